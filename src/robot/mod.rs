//! The robot: its profile (joints, limits, speeds, postures, mappings, geometry), the one
//! skeleton model built from that geometry (bones, offsets, axes, forward kinematics),
//! and the legs as kinematic chains built from the skeleton's leg bones.
//!
//! `geometry` is data only; `profile` holds it; `skeleton` is built from a profile; `legs`
//! from a skeleton. Nothing here imports back up that line.

pub mod geometry;
pub mod legs;
pub mod profile;
pub mod skeleton;
