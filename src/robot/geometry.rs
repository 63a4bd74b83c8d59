//! The robot's measurements as the profiles give them: data only, read from
//! `profiles/*.toml` (their sources are cited there). The skeleton (`skeleton.rs`) is
//! built from them.

use serde::Deserialize;

/// Leg geometry of one model, millimetres, for the left legs (right legs mirror y).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegGeometry {
    pub front_hip: [f64; 3],
    pub hind_hip: [f64; 3],
    pub upper: f64,
    pub front_lower: f64,
    pub hind_lower: f64,
}

/// Neck, head and tail geometry, kept in the profiles (with its sources).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyGeometry {
    /// Where the neck tilt and pan axes meet.
    pub neck: [f64; 3],
    /// From the neck joint up to the head joint (nod or roll).
    pub neck_length: f64,
    /// From the head joint forward to the camera (the nose, for drawing).
    pub head_length: f64,
    /// The jaw hinge from the head joint: forward, up.
    pub mouth: [f64; 2],
    pub jaw_length: f64,
    /// Each ear's root from the head joint, sideways.
    pub ear_offset: f64,
    pub ear_length: f64,
    /// Where the tail's axes meet.
    pub tail: [f64; 3],
    pub tail_length: f64,
}

/// How the robot's mass is spread, for `check --balance` and `simulate`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MassModel {
    /// The figures are estimates (spread from a total), not a model's own.
    #[serde(default)]
    pub uncertain: bool,
    /// One entry per link that carries mass, named by the skeleton bone it moves with.
    pub links: Vec<LinkMass>,
    /// Points of the body's hull that can touch the floor.
    pub hull: Vec<HullPoint>,
    /// The paws' and the knees' (and elbows') round ends, mm: they touch the floor this
    /// far below their points in the skeleton.
    pub paw_radius: f64,
    pub knee_radius: f64,
}

/// A point of the body's hull that can touch the floor.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HullPoint {
    /// mm, body frame.
    pub at: [f64; 3],
    pub part: HullPart,
}

/// Which part of the body a hull point is: what touching the floor there means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HullPart {
    Belly,
    Chest,
    Rump,
    Flank,
}

/// One link's mass.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkMass {
    /// A skeleton bone (`body`, `head_nod`, `lf_j2`, …).
    pub link: String,
    pub kg: f64,
    /// Centre of mass in the bone's frame, mm (the bone's joint when left out).
    #[serde(default)]
    pub com: [f64; 3],
}
