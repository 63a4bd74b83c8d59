//! The AIBO's own skeleton: one bone per joint (plus the tips worth drawing), with
//! offsets from the profile's geometry, and forward kinematics over it. `preview` draws
//! it; `export` writes it as BVH.
//!
//! Frame: mm, x forward, y left, z up, origin at the body centre. Every joint turns
//! about one axis of its parent's frame, right-handed, so a positive angle is:
//! head tilt and nod, nose up (about −y); pan, to the left (+z); roll, about +x; mouth,
//! jaw up (so negative opens it, as the robots' values do); legs as Tekkotsu's
//! kinematics have them (J1 and J3 about −y in front, +y behind, so + swings a front
//! leg forward and a hind leg back; J2 outward about ±x); tail tilt, tip up (about +y);
//! tail pan, +z. The legs' chains (`legs.rs`) are built from these bones.

use glam::{DQuat, DVec3};

use crate::robot::profile::Profile;

/// Why a profile has no skeleton.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkeletonError {
    #[error("the {model} profile has no [{section}] geometry")]
    MissingGeometry {
        model: String,
        section: &'static str,
    },
}

/// One bone: a joint of the robot, or a fixed tip.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: String,
    pub parent: Option<usize>,
    /// From the parent's joint, in the parent's frame at rest, mm.
    pub offset: DVec3,
    /// The axis the joint turns about (a unit axis of the parent's frame); `None` for
    /// the root and for tips.
    pub axis: Option<DVec3>,
    /// The profile joint that drives it.
    pub joint: Option<usize>,
}

/// The robot's bones, parents before children; bone 0 is the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub bones: Vec<Bone>,
}

/// Where every bone is for one pose.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    pub positions: Vec<DVec3>,
    pub rotations: Vec<DQuat>,
}

const UP: DVec3 = DVec3::Z;
const PITCH_UP: DVec3 = DVec3::NEG_Y;

impl Skeleton {
    /// The skeleton of `profile`; an error names what geometry is missing.
    pub fn of(profile: &Profile) -> Result<Skeleton, SkeletonError> {
        let missing = |section| SkeletonError::MissingGeometry {
            model: profile.model.clone(),
            section,
        };
        let legs = profile.legs.as_ref().ok_or_else(|| missing("legs"))?;
        let body = profile.body.as_ref().ok_or_else(|| missing("body"))?;
        let mut s = Skeleton { bones: Vec::new() };
        let joint = |name: &str| profile.joint_index(name);
        let body_bone = s.add("body", None, DVec3::ZERO, None, None);

        // Neck and head.
        let mut top = body_bone;
        if let Some(j) = joint("head_tilt") {
            top = s.add(
                "head_tilt",
                Some(top),
                DVec3::from(body.neck),
                Some(PITCH_UP),
                Some(j),
            );
        }
        if let Some(j) = joint("head_pan") {
            let at = if top == body_bone {
                DVec3::from(body.neck)
            } else {
                DVec3::ZERO
            };
            top = s.add("head_pan", Some(top), at, Some(UP), Some(j));
        }
        let neck_top = DVec3::new(0.0, 0.0, body.neck_length);
        let head = match (joint("head_nod"), joint("head_roll")) {
            (Some(j), _) => s.add("head_nod", Some(top), neck_top, Some(PITCH_UP), Some(j)),
            (None, Some(j)) => s.add("head_roll", Some(top), neck_top, Some(DVec3::X), Some(j)),
            (None, None) => s.add("head", Some(top), neck_top, None, None),
        };
        s.add(
            "nose",
            Some(head),
            DVec3::new(body.head_length, 0.0, 0.0),
            None,
            None,
        );
        if let Some(j) = joint("mouth") {
            let hinge = DVec3::new(body.mouth[0], 0.0, body.mouth[1]);
            let jaw = s.add("mouth", Some(head), hinge, Some(PITCH_UP), Some(j));
            s.add(
                "jaw_tip",
                Some(jaw),
                DVec3::new(body.jaw_length, 0.0, 0.0),
                None,
                None,
            );
        }
        for (name, side) in [("l_ear", 1.0), ("r_ear", -1.0)] {
            if let Some(j) = joint(name) {
                let root = DVec3::new(0.0, side * body.ear_offset, 0.0);
                let ear = s.add(name, Some(head), root, Some(side * DVec3::X), Some(j));
                s.add(
                    &format!("{name}_tip"),
                    Some(ear),
                    DVec3::new(0.0, side * body.ear_length, 0.0),
                    None,
                    None,
                );
            }
        }

        // Legs: hip (J1 then J2 at one point), knee below it, paw below that.
        for (prefix, front, side) in [
            ("lf", true, 1.0),
            ("rf", true, -1.0),
            ("lh", false, 1.0),
            ("rh", false, -1.0),
        ] {
            let hip = if front { legs.front_hip } else { legs.hind_hip };
            let lower = if front {
                legs.front_lower
            } else {
                legs.hind_lower
            };
            let (Some(j1), Some(j2), Some(j3)) = (
                joint(&format!("{prefix}_j1")),
                joint(&format!("{prefix}_j2")),
                joint(&format!("{prefix}_j3")),
            ) else {
                continue;
            };
            let at = DVec3::new(hip[0], side * hip[1], hip[2]);
            let pitch = if front { PITCH_UP } else { DVec3::Y };
            let b1 = s.add(
                &format!("{prefix}_j1"),
                Some(body_bone),
                at,
                Some(pitch),
                Some(j1),
            );
            let b2 = s.add(
                &format!("{prefix}_j2"),
                Some(b1),
                DVec3::ZERO,
                Some(side * DVec3::X),
                Some(j2),
            );
            let b3 = s.add(
                &format!("{prefix}_j3"),
                Some(b2),
                DVec3::new(0.0, 0.0, -legs.upper),
                Some(pitch),
                Some(j3),
            );
            s.add(
                &format!("{prefix}_paw"),
                Some(b3),
                DVec3::new(0.0, 0.0, -lower),
                None,
                None,
            );
        }

        // Tail.
        let mut tail = body_bone;
        if let Some(j) = joint("tail_tilt") {
            tail = s.add(
                "tail_tilt",
                Some(tail),
                DVec3::from(body.tail),
                Some(DVec3::Y),
                Some(j),
            );
        }
        if let Some(j) = joint("tail_pan") {
            let at = if tail == body_bone {
                DVec3::from(body.tail)
            } else {
                DVec3::ZERO
            };
            tail = s.add("tail_pan", Some(tail), at, Some(UP), Some(j));
        }
        if tail != body_bone {
            s.add(
                "tail_tip",
                Some(tail),
                DVec3::new(-body.tail_length, 0.0, 0.0),
                None,
                None,
            );
        }
        Ok(s)
    }

    fn add(
        &mut self,
        name: &str,
        parent: Option<usize>,
        offset: DVec3,
        axis: Option<DVec3>,
        joint: Option<usize>,
    ) -> usize {
        self.bones.push(Bone {
            name: name.to_string(),
            parent,
            offset,
            axis,
            joint,
        });
        self.bones.len() - 1
    }

    /// Forward kinematics: every bone's position and orientation for joint angles
    /// (radians, profile order) and the body's roll, pitch and yaw (radians; pitch
    /// positive nose up, as MTN files store it).
    pub fn pose(&self, joints: &[f64], body: [f64; 3]) -> Pose {
        let [roll, pitch, yaw] = body;
        let root = DQuat::from_axis_angle(UP, yaw)
            * DQuat::from_axis_angle(PITCH_UP, pitch)
            * DQuat::from_axis_angle(DVec3::X, roll);
        let mut positions = Vec::with_capacity(self.bones.len());
        let mut rotations = Vec::with_capacity(self.bones.len());
        for b in &self.bones {
            let (p, r) = match b.parent {
                Some(i) => (positions[i], rotations[i]),
                None => (DVec3::ZERO, root),
            };
            let turn = match (b.axis, b.joint) {
                (Some(axis), Some(j)) => {
                    DQuat::from_axis_angle(axis, joints.get(j).copied().unwrap_or(0.0))
                }
                _ => DQuat::IDENTITY,
            };
            positions.push(p + r * b.offset);
            rotations.push(if b.parent.is_some() { r * turn } else { root });
        }
        Pose {
            positions,
            rotations,
        }
    }

    pub fn children(&self, bone: usize) -> impl Iterator<Item = usize> + '_ {
        self.bones
            .iter()
            .enumerate()
            .filter(move |(_, b)| b.parent == Some(bone))
            .map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Tekkotsu's ERS-7.kin chains (its Denavit-Hartenberg parameters, each joint
    /// turning about its own frame's z) give for a positive turn of each leg joint from
    /// the hanging rest pose, as the sign of the paw's forward (x) and outward (|y|)
    /// movement: worked out from the file's figures by hand (and numerically).
    #[test]
    fn leg_senses_are_tekkotsus() {
        let profile = Profile::builtin("ERS-7").unwrap();
        let s = Skeleton::of(&profile).unwrap();
        let rest = vec![0.0; profile.joints.len()];
        let paw = |prefix: &str, angles: &[f64]| {
            let i = s
                .bones
                .iter()
                .position(|b| b.name == format!("{prefix}_paw"))
                .unwrap();
            s.pose(angles, [0.0; 3]).positions[i]
        };
        for (prefix, forward) in [("lf", 1.0), ("rf", 1.0), ("lh", -1.0), ("rh", -1.0)] {
            for (joint, x_sign) in [("j1", forward), ("j3", forward)] {
                let mut a = rest.clone();
                a[profile.joint_index(&format!("{prefix}_{joint}")).unwrap()] = 0.3;
                let dx = paw(prefix, &a).x - paw(prefix, &rest).x;
                assert!(
                    dx * x_sign > 10.0,
                    "{prefix}_{joint}: paw moved {dx} mm in x"
                );
            }
            let mut a = rest.clone();
            a[profile.joint_index(&format!("{prefix}_j2")).unwrap()] = 0.3;
            assert!(
                paw(prefix, &a).y.abs() > paw(prefix, &rest).y.abs() + 10.0,
                "{prefix}_j2 outward"
            );
        }
        // Sony's stand: elbows behind the shoulder-paw line, hind knees in front of the
        // hip-paw line, as a dog stands.
        let stand: Vec<f64> = profile.postures["stand"].joints.clone();
        let pose = s.pose(&stand, [0.0; 3]);
        let at = |name: &str| pose.positions[s.bones.iter().position(|b| b.name == name).unwrap()];
        let knee_ahead = |prefix: &str| {
            let (hip, knee, paw) = (
                at(&format!("{prefix}_j1")),
                at(&format!("{prefix}_j3")),
                at(&format!("{prefix}_paw")),
            );
            let t = (knee.z - hip.z) / (paw.z - hip.z);
            knee.x - (hip.x + t * (paw.x - hip.x))
        };
        assert!(knee_ahead("lf") < 0.0, "front elbow points back");
        assert!(knee_ahead("lh") > 0.0, "hind knee points forward");
    }

    #[test]
    fn senses_match_the_documented_ones() {
        let profile = Profile::builtin("ERS-7").unwrap();
        let s = Skeleton::of(&profile).unwrap();
        let at = |name: &str, angles: &[f64], body| {
            let i = s.bones.iter().position(|b| b.name == name).unwrap();
            s.pose(angles, body).positions[i]
        };
        let rest = vec![0.0; profile.joints.len()];
        let mut up = rest.clone();
        up[profile.joint_index("head_nod").unwrap()] = 0.5;
        assert!(
            at("nose", &up, [0.0; 3]).z > at("nose", &rest, [0.0; 3]).z,
            "nod up lifts the nose"
        );
        let mut left = rest.clone();
        left[profile.joint_index("head_pan").unwrap()] = 0.5;
        assert!(
            at("nose", &left, [0.0; 3]).y > 0.0,
            "pan left turns the nose left"
        );
        let mut tail = rest.clone();
        tail[profile.joint_index("tail_tilt").unwrap()] = 0.5;
        assert!(
            at("tail_tip", &tail, [0.0; 3]).z > at("tail_tip", &rest, [0.0; 3]).z,
            "tail tilt raises the tip"
        );
        assert!(
            at("nose", &rest, [0.0, 0.3, 0.0]).z > at("nose", &rest, [0.0; 3]).z,
            "body pitch up lifts the nose"
        );
    }
}
