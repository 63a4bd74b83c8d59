//! A walk felt on the simulated floor as it is made: each row's leg angles play on the
//! simulation's robot (`physics`), and the walk (`gait`) steers by where its body really
//! went. Paws slip, and a turn asked is not the turn made (a circle the crawl reckoned at
//! 349° turned 313° open loop), so a walk that trusted its own reckoning drifted off the
//! performer's path; this one corrects for it as it goes, as a robot walking by its
//! odometry would.
//!
//! The robot plays the whole motion up to each walk (`walking::felt_in_context`): the
//! gestures, the blends and the walks before, as the stage makes them. Felt alone from
//! the stand, a walk steered by a floor that was not the proof's: on the ERS-210 the
//! jumping take's walk ended facing −70° in the proof (the performer −26°); felt in its
//! place, −22°. It plays the ramp from the start posture first, as the written motion
//! does: without it, cmu_01_01's floor and proof on the ERS-210 parted by a 20° slip in
//! the first steps (the walk then steered to make up a turn the proof never lost); with
//! it, they stay within about 6° and 50 mm over 35 s of walking. The rest between them
//! is the keyframes' tolerance (0.5°), grown by slip. The floor steps the proof's solver
//! too: felt at 8 substeps a frame and proved at 16, 17 of the 22 walking builds of
//! issue 24's table ended outside its bounds (all 22 within them felt at 16), for a
//! fifth of the build's time (2026-12-07).

use glam::{DQuat, DVec2, DVec3};

use super::body::Body;
use super::gait::Place;
use super::physics::{Robot, SERVO_TORQUE_NM, SETTLE_S};
use crate::keyframes;
use crate::mtn::DENSE_FRAME_MS;
use crate::robot::legs::wrap;
use crate::robot::profile::Profile;

/// The robot a walk is felt on.
pub struct Floor {
    robot: Robot,
    /// Every joint's command (radians, profile order): the legs the walk's, the rest as
    /// [`Floor::feel`] is given them.
    angles: Vec<f64>,
    /// The profile joints of each leg, as [`super::gait::Walked::joints`].
    joints: [[usize; 3]; 4],
    /// The simulation's 8 ms frames in one row.
    steps: usize,
    /// Each joint's limits, and its largest move in one row, as the written motion
    /// keeps them (`keyframes::bound`): the floor plays the walk as it will be written.
    limits: Vec<Option<(f64, f64)>>,
    max_step: Vec<Option<f64>>,
    /// Where the body stood and faced once it had settled, and its heading so far
    /// (unwrapped, radians).
    start: DVec3,
    start_heading: f64,
    heading: f64,
}

impl Floor {
    /// `profile`'s robot settled in its stand, with `torque_share` of the servos' torque,
    /// for rows `row_s` apart; `None` when the profile cannot be simulated.
    pub fn new(
        profile: &Profile,
        joints: [[usize; 3]; 4],
        row_s: f64,
        torque_share: f64,
    ) -> Option<Floor> {
        let stand = profile.postures.get("stand")?;
        let angles = stand.joints.clone();
        if angles.len() != profile.joints.len() || !row_s.is_finite() || row_s <= 0.0 {
            return None;
        }
        // Stood on its four paws, as the static test finds them.
        let meant = Body::of(profile)
            .ok()?
            .stance(&angles, [0.0, stand.body_pitch, 0.0])
            .meant;
        let carried = DQuat::from_axis_angle(DVec3::NEG_Y, stand.body_pitch);
        let mut robot = Robot::new(
            profile,
            &angles,
            meant * carried,
            SERVO_TORQUE_NM * torque_share,
        )
        .ok()?;
        robot.hold(SETTLE_S);
        let heading = yaw(robot.attitude());
        let steps = ((row_s * 1000.0 / DENSE_FRAME_MS as f64).round() as usize).max(1);
        let row_ms = (steps as u64 * DENSE_FRAME_MS).min(u64::from(u32::MAX)) as u32;
        Some(Floor {
            limits: profile
                .joints
                .iter()
                .map(|j| j.limits.map(|l| (l.min, l.max)))
                .collect(),
            max_step: keyframes::max_steps(profile, row_ms),
            start: robot.position_mm(),
            start_heading: heading,
            heading,
            robot,
            angles,
            joints,
            steps,
        })
    }

    /// Plays one row: the legs' angles, and the other joints at `others` (radians,
    /// profile order; its legs' entries give way to `legs`), each from the last row's as
    /// the dense playback interpolates. Says where the body went: a [`Place`] from where
    /// it settled, in the heading it faced then; `None` once the simulation is no longer a
    /// number.
    pub fn feel(&mut self, legs: &[[f64; 3]; 4], others: &[f64]) -> Option<Place> {
        let mut to = self.commands(others);
        for (leg, angles) in self.joints.iter().zip(legs) {
            for (&j, &a) in leg.iter().zip(angles) {
                if let Some(c) = to.get_mut(j) {
                    *c = a;
                }
            }
        }
        self.play_to(to)
    }

    /// Plays one row of every joint (radians, profile order), as [`Floor::feel`] does.
    pub fn play(&mut self, joints: &[f64]) -> Option<Place> {
        let to = self.commands(joints);
        self.play_to(to)
    }

    /// The commands for a row of `joints` (profile order): the last row's where it is
    /// short.
    fn commands(&self, joints: &[f64]) -> Vec<f64> {
        let mut to = self.angles.clone();
        for (c, &a) in to.iter_mut().zip(joints) {
            *c = a;
        }
        to
    }

    /// Plays a row toward the commands `to`, and says where the body went.
    fn play_to(&mut self, mut to: Vec<f64>) -> Option<Place> {
        let from: Vec<f64> = self.angles.clone();
        // Within limits, and no faster than a row's move, as the written motion has it.
        for (j, a) in to.iter_mut().enumerate() {
            // (max then min: a profile's figures can never make this panic, as clamp can.)
            if let Some(Some((min, max))) = self.limits.get(j) {
                *a = a.max(*min).min(*max);
            }
            if let Some(Some(step)) = self.max_step.get(j) {
                *a = from[j] + (*a - from[j]).max(-step).min(*step);
            }
        }
        for k in 1..=self.steps {
            let t = k as f64 / self.steps as f64;
            for (j, c) in self.angles.iter_mut().enumerate() {
                *c = from[j] + (to[j] - from[j]) * t;
            }
            self.robot.step(&self.angles);
        }
        if !self.robot.is_finite() {
            return None;
        }
        let now = yaw(self.robot.attitude());
        self.heading += wrap(now - self.heading);
        let moved = (self.robot.position_mm() - self.start).truncate();
        Some(Place {
            at: DVec2::from_angle(-self.start_heading).rotate(moved),
            heading: self.heading - self.start_heading,
        })
    }
}

/// The heading of `attitude`: where its forward axis points on the floor, radians.
fn yaw(attitude: DQuat) -> f64 {
    let forward = attitude * DVec3::X;
    forward.y.atan2(forward.x)
}
