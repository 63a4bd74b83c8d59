//! The robot-side endpoint of an aibo-motion link.
//!
//! The core (`wire`, `message`, `bridge`, `model`, `sony`) is `no_std` with `alloc`, has
//! bounded memory, and never panics on any input: it is what a program on the robot, or
//! on a microcontroller between a USB-serial adapter and the servos, would embed. The
//! `std` feature links it against std; the `sim` feature (the default, and `std` with it)
//! adds the simulated joint server's clock loop and transports (`sim`), which run the same
//! core against a simulated robot; the `aibo-joint-server` binary over them is in the
//! aibo-motion package, beside the stick readers its R-CODE mode needs.
//!
//! The wire protocol is documented, with test vectors, in `PROTOCOL.md`.

#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod bridge;
pub mod message;
pub mod model;
pub mod sign;
pub mod sony;
mod store;
pub mod wire;

#[cfg(feature = "sim")]
pub mod sim;

pub use bridge::{Bridge, Config, Output, OutputKind, State, DEFAULT_RAMP_DIVISOR};
pub use message::Counters;
pub use model::{JointSpec, Model, PostureSpec, MODELS};
pub use sign::Key;

pub use wire::{MAX_JOINTS, OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION, WIRE_VERSION};

/// The servo frame, in microseconds.
pub const TICK_US: u64 = 8_000;
