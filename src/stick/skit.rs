//! What R-CODE plays for a console command, found as R-CODE finds it: `PLAY:ACTION:<name>`
//! takes the number from `ACTION.CFG` (or Sony's `ACTION.AMS`/`ACTION.EXT`),
//! `PLAY:MWCID:<n>` the number itself; the catalogue's block names the motion, and
//! `MOTION.ODA` holds it. Before a skit R-CODE walks the robot to the start posture its
//! motion's name carries; [`posture_walk`] is that walk for the simulated robot.

use firmware_bridge::Model;

use super::mwc::{kind, FIRST_USER_MWCID};
use super::tree::{postures, Stick};
use crate::keyframes::RAMP_SPEED_SHARE;
use crate::mtn::{self, Keyframe, Motion};

/// A skit ready to play.
#[derive(Debug, Clone)]
pub struct Skit {
    pub mwcid: i32,
    /// The motion, where the block has one (a sound-only action has none).
    pub motion: Option<Motion>,
    /// The sound entry the block plays with it (the simulator has no speaker).
    pub sound: Option<String>,
    /// The posture R-CODE walks to first, from the motion's name.
    pub start: Option<String>,
}

/// Why a command names nothing R-CODE can play from this stick.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkitError {
    #[error("no action named {0:?} (not in ACTION.CFG, nor in Sony's ACTION.AMS or ACTION.EXT)")]
    UnknownAction(String),
    #[error("no block {0} in the stick's catalogue")]
    UnknownMwcid(i32),
    #[error(
        "action {mwcid} plays Sony's own motion {entry:?}, kept in Sony's encrypted archives: \
         only the stick's user actions can be played here"
    )]
    Sonys { mwcid: i32, entry: String },
    #[error("action {mwcid}: its motion {entry:?} is not in MOTION.ODA")]
    MissingMotion { mwcid: i32, entry: String },
    #[error("action {mwcid}: motion {entry:?}: {why}")]
    BadMotion {
        mwcid: i32,
        entry: String,
        why: String,
    },
}

impl Stick {
    /// The MWCID an action name plays: the owner's `ACTION.CFG` first, then Sony's lists.
    pub fn mwcid_of(&self, name: &str) -> Result<i32, SkitError> {
        self.actions
            .iter()
            .chain(self.reserved.iter().map(|(_, list)| list))
            .find_map(|list| list.find(name))
            .map(|a| a.mwcid)
            .ok_or_else(|| SkitError::UnknownAction(name.to_string()))
    }

    /// What block `mwcid` plays.
    pub fn skit(&self, mwcid: i32) -> Result<Skit, SkitError> {
        let block = self
            .catalogue
            .catalogue
            .block(mwcid)
            .ok_or(SkitError::UnknownMwcid(mwcid))?;
        let entry = |k: &dyn Fn(i32) -> bool| {
            block
                .chunks
                .iter()
                .find(|c| k(c.kind))
                .map(|c| c.name.clone())
        };
        let sound = entry(&|k| k == kind::SOUND);
        let Some(entry) = entry(&|k| k == kind::MOTION) else {
            return Ok(Skit {
                mwcid,
                motion: None,
                sound,
                start: None,
            });
        };
        let stored = self
            .motions
            .as_ref()
            .and_then(|a| a.entries.iter().find(|e| e.name == entry));
        let Some(stored) = stored else {
            return Err(if mwcid < FIRST_USER_MWCID {
                SkitError::Sonys { mwcid, entry }
            } else {
                SkitError::MissingMotion { mwcid, entry }
            });
        };
        let motion = mtn::decode(&stored.data)
            .map_err(|e| SkitError::BadMotion {
                mwcid,
                entry: entry.clone(),
                why: e.to_string(),
            })?
            .motion;
        Ok(Skit {
            mwcid,
            start: postures(&motion.name).map(|(start, _)| start),
            motion: Some(motion),
            sound,
        })
    }
}

/// A motion that takes `model` from `from` to `to` (one angle per joint, in the model's
/// order) in a straight line, no joint faster than the share of its top speed the
/// bridge's own ramps use; `None` where there is nothing to walk.
pub fn posture_walk(model: &Model, from: &[i32], to: &[i32]) -> Option<Motion> {
    if from == to || from.len() != model.joints.len() || to.len() != model.joints.len() {
        return None;
    }
    // Sony's rule moves by a truncated step each 8 ms and makes up the remainder on the
    // segment's last step: the walk is the fewest frames whose every step keeps within
    // the share (an authored frame is two servo frames, so start from half the steps).
    let moving: Vec<(f64, i64)> = model
        .joints
        .iter()
        .zip(from.iter().zip(to))
        .filter(|(j, _)| !j.binary && j.max_step > 0)
        .map(|(j, (a, b))| {
            let allowed = f64::from(j.max_step) * RAMP_SPEED_SHARE;
            (allowed, (i64::from(*b) - i64::from(*a)).abs())
        })
        .collect();
    let fits = |frames: u32| {
        let steps = i64::from(firmware_bridge::sony::in_between_frames(frames)) + 1;
        moving.iter().all(|&(allowed, delta)| {
            let step = delta / steps;
            let last = delta - (steps - 1) * step;
            (last.max(step) as f64) <= allowed
        })
    };
    let estimate = moving
        .iter()
        .map(|&(allowed, delta)| (delta as f64 / (2.0 * allowed)).ceil() as u32)
        .max()
        .unwrap_or(0)
        .max(1);
    let frames = (estimate..estimate.saturating_mul(2).max(estimate + 8))
        .find(|&f| fits(f))
        .unwrap_or(estimate.saturating_mul(2));
    let keyframe = |frames_before, joints: &[i32]| Keyframe {
        frames_before,
        roll: 0,
        pitch: 0,
        yaw: 0,
        joints: joints.to_vec(),
    };
    Some(Motion {
        name: "walk".into(),
        creator: "aibo-joint-server".into(),
        design_label: model.design_label.into(),
        frame_ms: 16,
        locators: model.joints.iter().map(|j| j.locator.to_string()).collect(),
        keyframes: vec![keyframe(0, from), keyframe(frames, to)],
        layout: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_keeps_every_joint_within_its_share_of_top_speed() {
        let model = Model::find("ERS-210").unwrap();
        let sit = model.posture("sit").unwrap().angles;
        let stand = model.posture("stand").unwrap().angles;
        assert!(posture_walk(model, stand, stand).is_none());
        let walk = posture_walk(model, sit, stand).unwrap();
        let frames: Vec<Vec<i32>> = mtn::dense_frames(&walk).map(|f| f.joints).collect();
        assert_eq!(frames.first().unwrap(), sit);
        assert_eq!(frames.last().unwrap(), stand);
        let mut fastest = 0.0f64;
        for pair in frames.windows(2) {
            for (j, spec) in model.joints.iter().enumerate() {
                if spec.binary || spec.max_step == 0 {
                    continue;
                }
                let step = f64::from((pair[1][j] - pair[0][j]).abs());
                let share = step / f64::from(spec.max_step);
                assert!(share <= RAMP_SPEED_SHARE + 1e-3, "{}: {share}", spec.name);
                fastest = fastest.max(share);
            }
        }
        // Not needlessly slow either: the joint that moves most nearly uses its share.
        assert!(fastest > 0.8 * RAMP_SPEED_SHARE, "{fastest}");
    }
}
