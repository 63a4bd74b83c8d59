//! The AIBO's legs as kinematic chains (the `k` crate), built from the skeleton's leg
//! bones: the paw's position for given joint angles, and the angles that put a paw at a
//! given position within the joint limits, in closed form (checked against `k`'s
//! solver, which serves a leg of another shape).
//!
//! Robot frame: x forward, y to the robot's left, z up, millimetres, origin at the body
//! centre. J2 lifts a leg outward (+). J1 and J3 turn the same way as each other but
//! opposite ways front and hind, as Tekkotsu's ERS-7.kin chains compute (its hind
//! rotors and knees have the front ones' axes reversed): in front, + swings the leg and
//! the lower leg forward; behind, + swings them back. So Sony's stand (J1 −5°, J3 30° on
//! every leg) has the elbows pointing back and the hind knees forward, as a dog's do.
//! The bones, offsets and axes are `skeleton.rs`'s: there is one description of them.

use crate::robot::profile::{Limits, Profile};
use crate::robot::skeleton::Skeleton;
use glam::DVec3;
use k::nalgebra as na;
use k::prelude::*;

/// One of the four legs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegId {
    LeftFront,
    RightFront,
    LeftHind,
    RightHind,
}

impl LegId {
    pub const ALL: [LegId; 4] = [
        LegId::LeftFront,
        LegId::RightFront,
        LegId::LeftHind,
        LegId::RightHind,
    ];

    /// The profile's joint-name prefix (`lf`, `rf`, `lh`, `rh`).
    pub fn prefix(self) -> &'static str {
        match self {
            LegId::LeftFront => "lf",
            LegId::RightFront => "rf",
            LegId::LeftHind => "lh",
            LegId::RightHind => "rh",
        }
    }
}

/// A leg as a serial chain: hip (J1, J2), knee (J3), paw.
pub struct Leg {
    chain: k::SerialChain<f64>,
    /// Joint indices in the profile, J1..J3.
    pub joints: [usize; 3],
    /// Hip to paw with the leg straight, mm.
    pub length: f64,
    upper: f64,
    lower: f64,
    /// Where J1 and J2 turn, in the body frame.
    hip: DVec3,
    /// Each joint's turn as a turn about +y, +x, +y (J1, J2, J3): +1 or −1.
    senses: [f64; 3],
    limits: [Option<Limits>; 3],
    /// Whether the bones have the shape the closed form solves (J2 at J1, the knee and
    /// the paw straight below along the leg); otherwise `k`'s iterative solver runs.
    closed_form: bool,
}

impl Leg {
    /// The leg `id` of `profile`, or `None` when the profile has no skeleton or lacks
    /// one of the leg's joints.
    pub fn of(profile: &Profile, id: LegId) -> Option<Leg> {
        let skeleton = Skeleton::of(profile).ok()?;
        Leg::in_skeleton(&skeleton, profile, id)
    }

    /// The leg `id` from `skeleton`'s bones `<prefix>_j1`, `_j2`, `_j3` and `_paw`.
    pub fn in_skeleton(skeleton: &Skeleton, profile: &Profile, id: LegId) -> Option<Leg> {
        let bone = |part: &str| {
            let name = format!("{}_{part}", id.prefix());
            skeleton.bones.iter().find(|b| b.name == name)
        };
        let bones = [bone("j1")?, bone("j2")?, bone("j3")?];
        let paw_bone = bone("paw")?;
        let joints = [bones[0].joint?, bones[1].joint?, bones[2].joint?];
        let axes = [bones[0].axis?, bones[1].axis?, bones[2].axis?];
        let limits = joints.map(|j| profile.joints[j].limits);
        let range = |l: &Option<Limits>| l.map(|l| k::joint::Range::new(l.min, l.max));
        let vector = |v: DVec3| na::Vector3::new(v.x, v.y, v.z);
        let nodes: Vec<k::Node<f64>> = bones
            .iter()
            .zip(axes)
            .zip(&limits)
            .map(|((b, axis), l)| {
                k::NodeBuilder::new()
                    .name(&b.name)
                    .translation(na::Translation3::from(vector(b.offset)))
                    .joint_type(k::JointType::Rotational {
                        axis: na::Unit::new_normalize(vector(axis)),
                    })
                    .limits(range(l))
                    .finalize()
                    .into()
            })
            .collect();
        let paw: k::Node<f64> = k::NodeBuilder::new()
            .name(&paw_bone.name)
            .translation(na::Translation3::from(vector(paw_bone.offset)))
            .joint_type(k::JointType::Fixed)
            .finalize()
            .into();
        k::connect![nodes[0] => nodes[1] => nodes[2] => paw];
        let (upper, lower) = (bones[2].offset.length(), paw_bone.offset.length());
        let along = |v: DVec3| (v - DVec3::new(0.0, 0.0, -v.length())).length() < 1e-12;
        let pitch = |a: DVec3| a.x == 0.0 && a.z == 0.0 && a.y.abs() == 1.0;
        let closed_form = bones[0].parent == Some(0)
            && bones[1].offset == DVec3::ZERO
            && along(bones[2].offset)
            && along(paw_bone.offset)
            && pitch(axes[0])
            && pitch(axes[2])
            && axes[1].y == 0.0
            && axes[1].z == 0.0
            && axes[1].x.abs() == 1.0;
        Some(Leg {
            chain: k::SerialChain::from_end(&paw),
            joints,
            length: upper + lower,
            upper,
            lower,
            hip: bones[0].offset,
            senses: [axes[0].y, axes[1].x, axes[2].y],
            limits,
            closed_form,
        })
    }

    /// Where the paw is for joint angles (radians; clamped to the limits).
    pub fn paw(&self, angles: [f64; 3]) -> DVec3 {
        self.chain.set_joint_positions_clamped(&angles);
        self.chain.update_transforms();
        let t = self.chain.end_transform().translation.vector;
        DVec3::new(t.x, t.y, t.z)
    }

    /// How the lower leg (and the paw on it) is turned for joint angles, in the body
    /// frame (radians; clamped to the limits).
    pub fn paw_turn(&self, angles: [f64; 3]) -> glam::DQuat {
        self.chain.set_joint_positions_clamped(&angles);
        self.chain.update_transforms();
        let q = self.chain.end_transform().rotation;
        glam::DQuat::from_xyzw(q.i, q.j, q.k, q.w)
    }

    /// Angles that put the paw at `target` within the limits, the solution nearest
    /// `start` (the previous frame's, for smooth motion); `None` when none gets within
    /// 0.5 mm. A target beyond the leg's reach is moved to the nearest point within it.
    pub fn reach(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        let target = self.within_reach(target);
        if self.closed_form {
            self.solve(target, start)
        } else {
            self.reach_iteratively(target, start)
        }
    }

    /// The nearest point to `target` that the leg's lengths reach, whatever the limits.
    fn within_reach(&self, target: DVec3) -> DVec3 {
        let offset = target - self.hip;
        let (near, far) = ((self.upper - self.lower).abs() + 1.0, self.length - 0.5);
        self.hip + offset.normalize_or(DVec3::NEG_Z) * offset.length().clamp(near, far)
    }

    /// The closed form: the knee's angle from the hip-paw distance (two signs), the
    /// abduction from the paw's sideways offset (two branches), then the swing in the
    /// sagittal plane; of the solutions within the limits, the nearest `start`.
    ///
    /// With J1, J2, J3 as turns θ1 about y, θ2 about x and θ3 about y, the paw is
    /// hip + Ry(θ1)·Rx(θ2)·v with v = (−l·sin θ3, 0, −u − l·cos θ3), so
    /// |p|² = u² + l² + 2ul·cos θ3, p.y = −v.z·sin θ2, and (p.z, p.x) is (v.z·cos θ2, v.x)
    /// turned by θ1.
    pub fn solve(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        let p = target - self.hip;
        let (u, l) = (self.upper, self.lower);
        let cos3 = ((p.length_squared() - u * u - l * l) / (2.0 * u * l)).clamp(-1.0, 1.0);
        let knee = cos3.acos();
        let mut best: Option<([f64; 3], f64)> = None;
        for theta3 in [knee, -knee] {
            let (vx, vz) = (-l * theta3.sin(), -u - l * theta3.cos());
            let Some(sin2) = (vz.abs() > 1e-12).then(|| (-p.y / vz).clamp(-1.0, 1.0)) else {
                continue;
            };
            let first = sin2.asin();
            for theta2 in [first, std::f64::consts::PI - first] {
                let w = vz * theta2.cos();
                let theta1 = wrap(p.x.atan2(p.z) - vx.atan2(w));
                let angles = [
                    wrap(theta1 * self.senses[0]),
                    wrap(theta2 * self.senses[1]),
                    wrap(theta3 * self.senses[2]),
                ];
                if !self.within_limits(angles) {
                    continue;
                }
                let distance: f64 = angles.iter().zip(start).map(|(a, s)| (a - s).abs()).sum();
                if best.is_none_or(|(_, d)| distance < d) {
                    best = Some((angles, distance));
                }
            }
        }
        let (angles, _) = best?;
        // Every branch is exact up to rounding; a target the clamp could not bring
        // within reach fails here.
        ((self.paw(angles) - target).length() < 0.5).then_some(angles)
    }

    fn within_limits(&self, angles: [f64; 3]) -> bool {
        const SLACK: f64 = 1e-9;
        angles
            .iter()
            .zip(&self.limits)
            .all(|(a, l)| l.is_none_or(|l| *a >= l.min - SLACK && *a <= l.max + SLACK))
    }

    /// `k`'s iterative solver from `start`, then from a few spread-out guesses should it
    /// stall there; for a leg the closed form does not fit, and to check the closed form.
    pub fn reach_iteratively(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        const GUESSES: [[f64; 3]; 5] = [
            [0.0, 0.2, 0.5],
            [-1.0, 0.5, 1.5],
            [1.0, 0.5, 1.5],
            [-0.5, 1.0, 0.5],
            [0.5, 0.1, 2.0],
        ];
        std::iter::once(start)
            .chain(GUESSES)
            .find_map(|from| self.reach_from(target, from))
    }

    fn reach_from(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        self.chain.set_joint_positions_clamped(&start);
        self.chain.update_transforms();
        let goal = na::Isometry3::from_parts(
            na::Translation3::new(target.x, target.y, target.z),
            na::UnitQuaternion::identity(),
        );
        let constraints = k::Constraints {
            rotation_x: false,
            rotation_y: false,
            rotation_z: false,
            ..Default::default()
        };
        let solver = k::JacobianIkSolver::new(0.5, 1.0, 0.5, 200);
        solver
            .solve_with_constraints(&self.chain, &goal, &constraints)
            .ok()?;
        let p = self.chain.joint_positions();
        Some([p[0], p[1], p[2]])
    }
}

/// An angle in (−π, π].
pub fn wrap(a: f64) -> f64 {
    let turn = std::f64::consts::TAU;
    let w = a.rem_euclid(turn);
    if w > std::f64::consts::PI {
        w - turn
    } else {
        w
    }
}
