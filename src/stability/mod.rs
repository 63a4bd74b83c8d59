//! Will the dog stay on its feet? Three parts, used by every command that asks:
//!
//! - [`body`]: the robot as rigid links with masses, and the points of it that can touch
//!   the floor (paws, elbows and knees, the body's hull, the head);
//! - [`statics`]: the static test of every 8 ms frame of a motion (`check --balance`,
//!   `build`, the gate before `play` and `stick add`, `preview`);
//! - [`physics`]: the robot as rigid bodies on a floor (`simulate`, `preview --physics`,
//!   `aibo-joint-server --physics`).
//!
//! [`support`] holds the plane geometry they share: the support polygon and the distance
//! to its edge.

pub mod body;
#[cfg(feature = "physics")]
pub mod floor;
pub mod gait;
pub mod kinematics;
#[cfg(feature = "physics")]
pub mod paths;
#[cfg(feature = "physics")]
pub mod physics;
pub mod plan;
pub mod qp;
pub mod resting;
pub mod slip;
pub mod stage;
pub mod statics;
pub mod support;
pub mod walking;

use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::profile::Profile;
use crate::robot::skeleton::SkeletonError;

/// The longest motion tested frame by frame (and simulated): an hour of 8 ms frames, both
/// ends counted. A longer one (a hostile file can last years) is refused rather than left
/// to run.
pub const MAX_FRAMES: u64 = 3_600_000 / DENSE_FRAME_MS + 1;

/// Why a profile cannot be balanced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BalanceError {
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error("the {0} profile has no [mass] model")]
    NoMass(String),
    #[error(
        "the motion lasts {seconds:.3} s: too long to test frame by frame (at most {:.3} s, \
         an hour)",
        (MAX_FRAMES - 1) as f64 * DENSE_FRAME_MS as f64 / 1000.0
    )]
    TooLong { seconds: f64 },
    #[error("the {model} profile's [mass] names {link:?}, which is no bone of its skeleton")]
    UnknownLink { model: String, link: String },
    #[error("the {model} profile's {why}")]
    BadFigure { model: String, why: String },
    #[error("{given} stances given for a motion of {frames} frames")]
    StanceCount { given: usize, frames: u64 },
    #[error(
        "the simulation went numerically wrong at {:.3} s (the body's state is no longer a \
         number), so it gives no verdict; check the profile's [mass], [legs] and [body] figures",
        *t_ms as f64 / 1000.0
    )]
    Diverged { t_ms: u64 },
}

/// Where each of a profile's joints is among a motion's columns, to read its frames in
/// the profile's order (the static test, the simulation and the pictures all do).
#[derive(Debug, Clone)]
pub struct Columns(Vec<Option<usize>>);

impl Columns {
    pub fn of(motion: &Motion, profile: &Profile) -> Columns {
        Columns(
            profile
                .joints
                .iter()
                .map(|j| motion.locators.iter().position(|l| *l == j.locator))
                .collect(),
        )
    }

    /// A dense frame's joints in the profile's order, radians; a joint the motion lacks
    /// holds the profile's stand posture (or 0).
    pub fn angles(&self, profile: &Profile, frame: &mtn::DenseFrame) -> Vec<f64> {
        let stand = profile.postures.get("stand");
        self.0
            .iter()
            .enumerate()
            .map(|(j, col)| match col {
                Some(c) => frame.joints.get(*c).map_or(0.0, |&u| f64::from(u) * 1e-6),
                None => stand.and_then(|p| p.joints.get(j)).copied().unwrap_or(0.0),
            })
            .collect()
    }
}

/// A dense frame's body roll, pitch and yaw, radians.
pub fn attitude(frame: &mtn::DenseFrame) -> [f64; 3] {
    frame.body.map(|u| f64::from(u) * 1e-6)
}

/// The body turned as a motion carries it, by `roll` and `pitch` (radians; yaw turns the
/// robot on the floor without changing its balance): pitch nose-up about −y, after roll
/// about x.
pub fn carried(roll: f64, pitch: f64) -> glam::DQuat {
    glam::DQuat::from_axis_angle(glam::DVec3::NEG_Y, pitch)
        * glam::DQuat::from_axis_angle(glam::DVec3::X, roll)
}

/// The motion's dense frame count, or an error where it is too long to test frame by frame.
pub fn testable_frames(motion: &Motion) -> Result<u64, BalanceError> {
    let count = mtn::dense_frame_count(motion);
    if count > MAX_FRAMES {
        return Err(BalanceError::TooLong {
            seconds: (count - 1) as f64 * DENSE_FRAME_MS as f64 / 1000.0,
        });
    }
    Ok(count)
}

/// Solves a 3×3 system (Cramer's rule); `None` where it is singular.
pub(crate) fn solve3(a: [[f64; 3]; 3], b: [f64; 3]) -> Option<[f64; 3]> {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    if d.abs() < 1e-12 {
        return None;
    }
    let mut out = [0.0; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let mut m = a;
        for r in 0..3 {
            m[r][c] = b[r];
        }
        *o = det(m) / d;
    }
    Some(out)
}
