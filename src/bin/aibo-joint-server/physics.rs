//! `--physics`: the servos' commands also move a simulated body on a floor (the same one
//! `aibo-motion simulate` uses), so a streamed motion can be watched falling. The server
//! says when the robot goes over and when it is back on its feet, by the same rule as
//! `simulate` (`Robot::fall`), against the body attitude the stream's frames or the
//! uploaded keyframes give (as the file gives `simulate`). From a host that sends none
//! (protocol 1), the attitude each pose means is found as the static test finds it, from
//! the nearest standard posture and from where the paws stand level (`Robot::meant`),
//! and it has fallen only by both.

use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::physics::{FallWatch, Robot, SERVO_TORQUE_NM};
use anyhow::{Context, Result};
use firmware_bridge::bridge::{Output, OutputKind};
use glam::{DQuat, DVec3};

/// Back under this lean (degrees), the robot is up again.
const UP_AGAIN_DEG: f64 = 10.0;

/// The simulated body and what has been said of it.
pub struct Body {
    robot: Robot,
    watch: FallWatch,
    fallen: bool,
    pub falls: u32,
}

impl Body {
    /// The model's robot standing in its posture `posture` (`start`: its angles, µrad,
    /// model order), at the body pitch the profile gives that posture.
    pub fn new(model: &str, posture: &str, start: &[i32]) -> Result<Body> {
        let profile = Profile::builtin(model).with_context(|| format!("no profile for {model}"))?;
        let angles: Vec<f64> = start.iter().map(|&u| f64::from(u) * 1e-6).collect();
        let pitch = profile.postures.get(posture).map_or(0.0, |p| p.body_pitch);
        let carried = DQuat::from_axis_angle(DVec3::NEG_Y, pitch);
        let mut robot = Robot::new(&profile, &angles, carried, SERVO_TORQUE_NM)
            .map_err(|e| anyhow::anyhow!("--physics: {e}"))?;
        robot.hold(0.5);
        Ok(Body {
            robot,
            watch: FallWatch::default(),
            fallen: false,
            falls: 0,
        })
    }

    /// One tick: the servos' pose moves the body; a fall (or getting up) is logged.
    pub fn tick(&mut self, output: &Output<'_>, log: &mut dyn FnMut(&str)) {
        // Relaxed servos hold nothing; the body is left where it lies.
        if output.kind == OutputKind::Relaxed {
            return;
        }
        let angles: Vec<f64> = output.pose.iter().map(|&u| f64::from(u) * 1e-6).collect();
        self.robot.step(&angles);
        // Fallen by what the stream meant, or, where it did not say, by every meaning
        // the pose may have.
        let carried = output.body.map(|b| b.map(|u| f64::from(u) * 1e-6));
        let meant = self.robot.meant(&angles, carried);
        let falls: Vec<_> = meant.iter().map(|m| self.robot.fall(m)).collect();
        let found = falls
            .iter()
            .all(Option::is_some)
            .then(|| falls[0])
            .flatten();
        let t_ms = output.tick * 8;
        let fall = self.watch.observe(t_ms, found);
        let t = t_ms as f64 / 1000.0;
        match fall {
            Some((since, f)) if !self.fallen => {
                let t = since as f64 / 1000.0;
                self.fallen = true;
                self.falls += 1;
                log(&format!(
                    "physics: the robot fell at {t:.2} s ({}, {:.0}° from the attitude its pose means)",
                    f.onto
                        .map_or("tipped over".to_string(), |p| format!("over onto its {}", p.word())),
                    f.tilt_deg
                ));
            }
            None if self.fallen => {
                let up = self.robot.attitude() * DVec3::Z;
                let tilt = meant
                    .iter()
                    .map(|m| up.angle_between(m.upright_nearest(up)))
                    .fold(f64::INFINITY, f64::min);
                if tilt.to_degrees() < UP_AGAIN_DEG {
                    self.fallen = false;
                    log(&format!("physics: back on its feet at {t:.2} s"));
                }
            }
            _ => {}
        }
    }
}
