//! `--physics`: the servos' commands also move a simulated body on a floor (the same one
//! `aibo-motion simulate` uses), so a streamed motion can be watched falling. The server
//! says when the robot goes over and when it is back on its feet.

use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::physics::{Robot, FALL_TILT_DEG, GRAZE_TILT_DEG, SERVO_TORQUE_NM};
use anyhow::{Context, Result};
use firmware_bridge::bridge::{Output, OutputKind};
use glam::{DQuat, DVec3};

/// Back under this lean (degrees), the robot is up again.
const UP_AGAIN_DEG: f64 = 10.0;

/// The simulated body and what has been said of it.
pub struct Body {
    robot: Robot,
    /// Where the body stood at the start: the attitude it is meant to keep.
    upright: DQuat,
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
        let upright = DQuat::from_axis_angle(DVec3::NEG_Y, pitch);
        let mut robot = Robot::new(&profile, &angles, upright, SERVO_TORQUE_NM)
            .map_err(|e| anyhow::anyhow!("--physics: {e}"))?;
        robot.hold(0.5);
        Ok(Body {
            upright: robot.attitude(),
            robot,
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
        let tilt = (self.robot.attitude() * DVec3::Z)
            .angle_between(self.upright * DVec3::Z)
            .to_degrees();
        let onto = if self.robot.head_down() {
            Some("head")
        } else {
            self.robot.over().filter(|_| tilt > GRAZE_TILT_DEG)
        };
        let t = output.tick as f64 * 0.008;
        if !self.fallen && (tilt > FALL_TILT_DEG || onto.is_some()) {
            self.fallen = true;
            self.falls += 1;
            log(&format!(
                "physics: the robot fell at {t:.2} s ({}, {tilt:.0}° from upright)",
                onto.map_or("tipped over".to_string(), |p| format!("over onto its {p}"))
            ));
        } else if self.fallen && tilt < UP_AGAIN_DEG && onto.is_none() {
            self.fallen = false;
            log(&format!("physics: back on its feet at {t:.2} s"));
        }
    }
}
