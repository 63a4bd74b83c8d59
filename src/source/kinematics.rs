//! Forward kinematics over a clip's skeleton: world positions and rotations of every
//! joint on a frame.

use crate::source::Clip;
use glam::{DQuat, DVec3};

/// World pose of every joint on one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldPose {
    pub positions: Vec<DVec3>,
    pub rotations: Vec<DQuat>,
}

/// World positions and rotations of every joint on `frame`: a joint sits at its parent's
/// position plus the parent's world rotation applied to its local translation, and turns
/// by its parent's world rotation times its own local rotation.
pub fn world_pose(clip: &Clip, frame: usize) -> WorldPose {
    let joints = &clip.skeleton.joints;
    let locals = clip.frame_rotations(frame);
    let moving = clip.frame_moving_translations(frame);
    let mut positions = Vec::with_capacity(joints.len());
    let mut rotations: Vec<DQuat> = Vec::with_capacity(joints.len());
    for (i, joint) in joints.iter().enumerate() {
        // Parents come before children, which every reader guarantees.
        let (p, r) = match joint.parent.filter(|&p| p < i) {
            Some(p) => (positions[p], rotations[p]),
            None => (DVec3::ZERO, DQuat::IDENTITY),
        };
        let t = match clip.moving[i] {
            Some(column) => moving[column],
            None => joint.offset,
        };
        positions.push(p + r * t);
        rotations.push((r * locals[i]).normalize());
    }
    WorldPose {
        positions,
        rotations,
    }
}

/// Where each joint's segment ends in the world: its `end` (End Site, ASF bone tip)
/// turned by the joint's own world rotation; `None` for joints without one.
pub fn end_positions(clip: &Clip, pose: &WorldPose) -> Vec<Option<DVec3>> {
    clip.skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| j.end.map(|e| pose.positions[i] + pose.rotations[i] * e))
        .collect()
}
