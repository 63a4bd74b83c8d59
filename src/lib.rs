//! aibo-motion: Sony AIBO motion files and the tools around them.
//!
//! Data flows one way: source reader → retarget → keyframes → [`mtn::Motion`] → MTN bytes
//! → [`link`] → the robot's `firmware-bridge` → servos.

pub mod binary;
pub mod check;
pub mod edit;
pub mod export;
pub mod fsio;
pub mod keyframes;
pub mod kinematics;
pub mod legs;
pub mod likeness;
pub mod link;
pub mod mtn;
pub mod oda;
pub mod pipeline;
pub mod plot;
pub mod preview;
pub mod profile;
pub mod retarget;
pub mod skeleton;
pub mod source;
pub mod units;
