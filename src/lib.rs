//! aibo-motion: Sony AIBO motion files and the tools around them.
//!
//! Data flows one way: source reader → retarget → keyframes → [`mtn::Motion`] → MTN bytes
//! → `link` → the robot's `firmware-bridge` → servos.
//!
//! Features: `link` (playing on a robot: tokio, serialport), `view` (`plot` and
//! `preview`: plotters) and `cli` (the commands, with both, `docs`: their completion
//! scripts and manual pages, and `progress`: their progress bars). Without them the
//! library is the codecs, the readers, retargeting and `check`.

pub mod binary;
pub mod check;
#[cfg(feature = "cli")]
pub mod docs;
pub mod edit;
pub mod fsio;
pub mod keyframes;
pub mod likeness;
#[cfg(feature = "link")]
pub mod link;
pub mod mtn;
pub mod oda;
pub mod pipeline;
#[cfg(feature = "cli")]
pub mod progress;
pub mod retarget;
pub mod robot;
pub mod source;
pub mod stability;
pub mod stick;
pub mod terminal;
pub mod units;
pub mod view;
