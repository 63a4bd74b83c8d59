//! The host side of a link to a robot (or the simulated joint server): transports, the
//! protocol client, and the player that paces frames.
//!
//! The wire protocol itself is `firmware_bridge`'s (the robot's contract); this module
//! only uses it. IO runs on tokio; frame pacing runs on its own thread (tokio's timers
//! have millisecond granularity and round deadlines up, see `player`).

pub mod client;
pub mod player;
pub mod ports;
pub mod transport;
pub mod upload;

pub use client::{BridgeInfo, Client, Reply};
pub use player::{play, Ending, Mode, PlayOptions, PlayReport, Progress, WayIn, WayInCheck};
pub use transport::Endpoint;
pub use upload::{play_named, upload};

use std::time::Duration;

/// p50, p99 and max of `values` (a sorted copy), for timing reports.
pub fn percentiles(values: &[u64]) -> Option<(u64, u64, u64)> {
    let mut v = values.to_vec();
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (!v.is_empty()).then(|| (at(0.5), at(0.99), at(1.0)))
}

/// What can go wrong on a link.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("cannot open {endpoint}: {reason}")]
    Connect { endpoint: String, reason: String },
    #[error("the link to {0} dropped")]
    Dropped(String),
    /// The link dropped mid-motion and did not come back while it was retried.
    #[error(
        "the link to {endpoint} dropped at frame {frame} of {frames} and did not come back \
         within {retry_s:.0} s; the bridge holds the last pose, then goes to its rest posture"
    )]
    Lost {
        endpoint: String,
        frame: u64,
        frames: u64,
        retry_s: f64,
    },
    #[error("{endpoint} did not answer within {:.1} s ({waiting_for})", timeout.as_secs_f64())]
    Timeout {
        endpoint: String,
        waiting_for: &'static str,
        timeout: Duration,
    },
    #[error("the bridge refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Mismatch(String),
    /// The way in from where the robot stands was refused (`PlayOptions::way_in_check`):
    /// nothing was sent.
    #[error("{0}")]
    WayIn(String),
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lost_link_reads_as_one_sentence() {
        let e = super::LinkError::Lost {
            endpoint: "tcp://127.0.0.1:7000".into(),
            frame: 187,
            frames: 4018,
            retry_s: 5.0,
        };
        assert_eq!(
            e.to_string(),
            "the link to tcp://127.0.0.1:7000 dropped at frame 187 of 4018 and did not come \
             back within 5 s; the bridge holds the last pose, then goes to its rest posture"
        );
    }

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let v: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(super::percentiles(&v), Some((51, 99, 100)));
        assert_eq!(super::percentiles(&[7]), Some((7, 7, 7)));
        assert_eq!(super::percentiles(&[]), None);
    }
}
