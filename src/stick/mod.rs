//! R-CODE memory sticks: the user files an owner's stick holds beside Sony's runtime.
//! The MWC catalogue (`mwc`) ties a number to the motion, sound and LED an action plays;
//! `ACTION.CFG` (`actions`) names the numbers. Sony's encrypted files are never read or
//! written here.

pub mod actions;
pub mod add;
pub mod bridge;
pub mod console;
pub mod files;
pub mod mwc;
pub mod remove;
pub mod settings;
pub mod skit;
#[cfg(feature = "sound")]
pub mod sound;
pub mod tree;
pub mod wifi;
