//! The AIBO's legs as kinematic chains (the `k` crate): the paw's position for given
//! joint angles, and the angles that put a paw at a given position within the joint
//! limits.
//!
//! Robot frame: x forward, y to the robot's left, z up, millimetres, origin at the body
//! centre. J2 lifts a leg outward (+). J1 and J3 turn the same way as each other but
//! opposite ways front and hind, as Tekkotsu's ERS-7.kin chains compute (its hind
//! rotors and knees have the front ones' axes reversed): in front, + swings the leg and
//! the lower leg forward; behind, + swings them back. So Sony's stand (J1 −5°, J3 30° on
//! every leg) has the elbows pointing back and the hind knees forward, as a dog's do.
//! Geometry comes from the profile (`[legs]`).

use crate::robot::profile::{Limits, Profile};
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

    fn is_left(self) -> bool {
        matches!(self, LegId::LeftFront | LegId::LeftHind)
    }

    fn is_front(self) -> bool {
        matches!(self, LegId::LeftFront | LegId::RightFront)
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
}

impl Leg {
    /// The leg `id` of `profile`, or `None` when the profile has no leg geometry or
    /// lacks one of the leg's joints.
    pub fn of(profile: &Profile, id: LegId) -> Option<Leg> {
        let g = profile.legs.as_ref()?;
        let index = |j: &str| {
            let name = format!("{}_{j}", id.prefix());
            profile.joints.iter().position(|p| p.name == name)
        };
        let joints = [index("j1")?, index("j2")?, index("j3")?];
        let limits: Vec<Option<Limits>> =
            joints.iter().map(|&i| profile.joints[i].limits).collect();
        let side = if id.is_left() { 1.0 } else { -1.0 };
        let hip = if id.is_front() {
            g.front_hip
        } else {
            g.hind_hip
        };
        let lower = if id.is_front() {
            g.front_lower
        } else {
            g.hind_lower
        };
        let range = |l: &Option<Limits>| l.map(|l| k::joint::Range::new(l.min, l.max));
        let revolute =
            |name: &str, at: na::Vector3<f64>, axis: na::Vector3<f64>, l: &Option<Limits>| {
                let node: k::Node<f64> = k::NodeBuilder::new()
                    .name(name)
                    .translation(na::Translation3::from(at))
                    .joint_type(k::JointType::Rotational {
                        axis: na::Unit::new_normalize(axis),
                    })
                    .limits(range(l))
                    .finalize()
                    .into();
                node
            };
        // + about −y swings a hanging leg forward; the hind legs turn the other way.
        let pitch_axis = if id.is_front() {
            -na::Vector3::y()
        } else {
            na::Vector3::y()
        };
        let j1 = revolute(
            "j1",
            na::Vector3::new(hip[0], side * hip[1], hip[2]),
            pitch_axis,
            &limits[0],
        );
        // Outward is +y for a left leg: a turn about +x lifts a hanging leg that way.
        let j2 = revolute(
            "j2",
            na::Vector3::zeros(),
            side * na::Vector3::x(),
            &limits[1],
        );
        let j3 = revolute(
            "j3",
            na::Vector3::new(0.0, 0.0, -g.upper),
            pitch_axis,
            &limits[2],
        );
        let paw: k::Node<f64> = k::NodeBuilder::new()
            .name("paw")
            .translation(na::Translation3::new(0.0, 0.0, -lower))
            .joint_type(k::JointType::Fixed)
            .finalize()
            .into();
        k::connect![j1 => j2 => j3 => paw];
        Some(Leg {
            chain: k::SerialChain::from_end(&paw),
            joints,
            length: g.upper + lower,
            upper: g.upper,
            lower,
        })
    }

    /// Where the paw is for joint angles (radians; clamped to the limits).
    pub fn paw(&self, angles: [f64; 3]) -> DVec3 {
        self.chain.set_joint_positions_clamped(&angles);
        self.chain.update_transforms();
        let t = self.chain.end_transform().translation.vector;
        DVec3::new(t.x, t.y, t.z)
    }

    /// Angles that put the paw at `target` within the limits, starting from `start`
    /// (the previous frame, for smooth motion) and then from a few spread-out guesses
    /// should the solver stall there; `None` when none gets within 0.5 mm.
    pub fn reach(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        self.reach_with(target, start, true)
    }

    /// [`Leg::reach`] from `start` alone: cheap where the previous frame's answer is the
    /// obvious start (or where the guesses just failed).
    pub fn reach_near(&self, target: DVec3, start: [f64; 3]) -> Option<[f64; 3]> {
        self.reach_with(target, start, false)
    }

    fn reach_with(&self, target: DVec3, start: [f64; 3], guesses: bool) -> Option<[f64; 3]> {
        const GUESSES: [[f64; 3]; 5] = [
            [0.0, 0.2, 0.5],
            [-1.0, 0.5, 1.5],
            [1.0, 0.5, 1.5],
            [-0.5, 1.0, 0.5],
            [0.5, 0.1, 2.0],
        ];
        // Out of the leg's reach whatever the limits: the nearest point that is not.
        let hip = self.paw([0.0; 3]) + DVec3::new(0.0, 0.0, self.length);
        let offset = target - hip;
        let (near, far) = ((self.upper - self.lower).abs() + 1.0, self.length - 0.5);
        let target = hip + offset.normalize_or(DVec3::NEG_Z) * offset.length().clamp(near, far);
        let others = if guesses { &GUESSES[..] } else { &[] };
        std::iter::once(start)
            .chain(others.iter().copied())
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
