//! A motion shown to people and to other tools: an animated stick figure (`preview`),
//! every joint's angle over time (`plot`), and a BVH of the robot's own skeleton for
//! Blender and mocap viewers (`export`). Each reads a [`crate::mtn::Motion`] and writes
//! text; none changes the motion.

pub mod export;
#[cfg(feature = "view")]
pub mod plot;
#[cfg(feature = "view")]
pub mod preview;
