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
