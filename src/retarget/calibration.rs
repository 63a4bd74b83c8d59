//! The capture's calibration pose at either end of a take. Many files open (CMU's BVH
//! conversions: one frame; the animdrawings takes: over a second) or close on the
//! performer standing in a T-pose, arms straight out to the sides, which the capture
//! system calibrates on. It is no part of the performance, and a robot that plays it
//! spreads its front legs sideways as far as they go, then swings them back at full
//! speed as the performance begins.

use super::body::{Body, Limb};
use super::performer::{Neutral, Performer};
use crate::source::Clip;
use glam::DVec3;

/// How far an arm's segment may point from level out to its side and still be in the
/// pose, degrees: performers hold it loosely (the dab take's right forearm droops 26°,
/// the jesse dance's 25–34° as it ends in one).
const ARM_WITHIN_DEG: f64 = 35.0;

/// How far a leg's segment may point from straight down, degrees: standing, one knee
/// may be a little bent (38° at the jesse dance's end), where a jump or a kick is not.
const LEG_WITHIN_DEG: f64 = 45.0;

/// Frames of the calibration pose at the start and at the end of a take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ends {
    pub lead: usize,
    pub trail: usize,
}

impl Ends {
    pub fn is_empty(&self) -> bool {
        self.lead == 0 && self.trail == 0
    }
}

/// Whether the performer stands in a T-pose on frame `f`: both arms (upper arm and
/// forearm) level out to their sides, and the legs, where the take has them, straight
/// down. A take without both arms has no T-pose to find.
fn in_t_pose(performer: &Performer, f: usize) -> bool {
    let near = |bone: DVec3, towards: DVec3, within_deg: f64| {
        bone.try_normalize()
            .is_some_and(|b| b.dot(towards) >= within_deg.to_radians().cos())
    };
    // Body coordinates: x forward, y left, z up.
    let along = |limb: Limb, towards: DVec3| {
        let within = match limb {
            Limb::LeftArm | Limb::RightArm => ARM_WITHIN_DEG,
            Limb::LeftLeg | Limb::RightLeg => LEG_WITHIN_DEG,
        };
        performer
            .limb(limb)
            .and_then(|t| t.bones.get(f))
            .map(|&(upper, lower)| near(upper, towards, within) && near(lower, towards, within))
    };
    let arms = along(Limb::LeftArm, DVec3::Y) == Some(true)
        && along(Limb::RightArm, -DVec3::Y) == Some(true);
    let legs = [Limb::LeftLeg, Limb::RightLeg]
        .into_iter()
        .all(|leg| along(leg, -DVec3::Z) != Some(false));
    arms && legs
}

/// The frames at the start and the end of the performance in which the performer holds
/// a T-pose; none where that is the whole take (there is nothing else to play).
pub fn t_pose_ends(performer: &Performer, frames: usize) -> Ends {
    let lead = (0..frames).take_while(|&f| in_t_pose(performer, f)).count();
    if lead == frames {
        return Ends::default();
    }
    let trail = (0..frames)
        .rev()
        .take_while(|&f| in_t_pose(performer, f))
        .count();
    Ends { lead, trail }
}

/// The frames of `clip`'s T-pose at its start and end, as [`t_pose_ends`] finds them.
pub fn t_pose_of(clip: &Clip) -> Ends {
    let body = Body::find(&clip.skeleton);
    let performer = Performer::measure(clip, &body, Neutral::Typical);
    t_pose_ends(&performer, clip.frames)
}

/// `neutral` (a frame of the whole take) in the take less `ends.lead` frames: a frame in
/// the T-pose left out becomes the performance's first.
pub fn shifted(neutral: Neutral, ends: Ends) -> Neutral {
    match neutral {
        Neutral::Frame(n) => Neutral::Frame(n.saturating_sub(ends.lead)),
        typical => typical,
    }
}
