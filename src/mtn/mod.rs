//! The motion model ([`Motion`], [`Keyframe`]) and the MTN (OMTN) codec.
//!
//! A file holds a header (magic `OMTN`, format, sizes), Section 1 (name, creator and
//! design label strings), Section 2 (the joints' PRM locators), Section 3 (keyframes:
//! frames before each, body roll, pitch and yaw, then every joint) and an end mark.
//! The reader keeps the oddities Sony's own files carry (a section size that disagrees
//! with its counts, say: see [`Layout`]) so that writing a file again gives back its
//! bytes; `dense.rs` plays it as Sony's player does. Values are i32 micro-radians, as
//! in the file.

mod dense;
mod json;
mod read;
mod write;

pub use dense::{
    dense_frame_at, dense_frame_count, dense_frames, DenseFrame, DenseFrames, DENSE_FRAME_MS,
};
pub use json::{from_json, to_json, JsonError, JSON_FORMAT};
pub use read::{decode, Decoded};
pub use write::{encode, EncodeError};

use serde::{Deserialize, Serialize};

/// The file magic.
pub const MAGIC: &[u8; 4] = b"OMTN";
/// Milliseconds per authored frame: every real file says 16, and Sony's player assumes it.
pub const FRAME_MS: u16 = 16;
/// Sony's reader copies the motion name and design label into fixed buffers of this size.
pub const NAME_BUFFER: usize = 128;
pub const LABEL_BUFFER: usize = 32;
/// The largest interpolation count Sony's player can play: it computes the 2n + 1
/// in-between frames in 32 signed bits, which overflow from n = 2³⁰ on (a segment of 198
/// days). A count past it is refused on reading and writing.
pub const MAX_FRAMES_BEFORE: u32 = (1 << 30) - 1;

/// A motion longer than this (an hour) is read, but said to be implausible.
pub const PLAUSIBLE_MS: u64 = 3_600_000;

/// One motion, as an MTN file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motion {
    pub name: String,
    pub creator: String,
    pub design_label: String,
    /// The Frame Rate field (ms per authored frame). Sony's player never reads it.
    pub frame_ms: u16,
    /// OPEN-R primitive locators, in column order.
    pub locators: Vec<String>,
    pub keyframes: Vec<Keyframe>,
    /// Header values that real files never vary, kept so that re-encoding is exact.
    #[serde(default, skip_serializing_if = "Layout::is_standard")]
    pub layout: Layout,
}

/// One keyframe: body attitude and joint values, in micro-radians.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyframe {
    /// Interpolation frames (16 ms each) between the previous keyframe and this one.
    /// The file has none before keyframe 0, so there it is always 0.
    #[serde(default)]
    pub frames_before: u32,
    /// Body roll, + leaning right.
    pub roll: i32,
    /// Body pitch, + leaning back.
    pub pitch: i32,
    /// Body yaw, + turned left.
    pub yaw: i32,
    /// One value per locator.
    pub joints: Vec<i32>,
}

/// Section 0 and 3 header fields that are constant in every real file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub major_version: u16,
    pub minor_version: u16,
    pub option: u32,
    /// A Section 3 size that disagreed with the content when read (Sony's `sit_lose01`);
    /// `None` writes the correct size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_section3_size: Option<u32>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            major_version: 1,
            minor_version: 2,
            option: 0,
            stored_section3_size: None,
        }
    }
}

impl Layout {
    pub fn is_standard(&self) -> bool {
        *self == Layout::default()
    }
}

impl Motion {
    /// Segment durations in ms: keyframe k follows k−1 after (n_k + 1) × 16 ms.
    pub fn segment_ms(keyframe: &Keyframe) -> u64 {
        (u64::from(keyframe.frames_before) + 1) * u64::from(FRAME_MS)
    }

    /// Time of each keyframe from the start, in ms.
    pub fn keyframe_times_ms(&self) -> Vec<u64> {
        let mut t = 0;
        self.keyframes
            .iter()
            .enumerate()
            .map(|(k, kf)| {
                if k > 0 {
                    t += Self::segment_ms(kf);
                }
                t
            })
            .collect()
    }

    /// Total duration in ms, from the first keyframe to the last.
    pub fn duration_ms(&self) -> u64 {
        self.keyframes.iter().skip(1).map(Self::segment_ms).sum()
    }

    /// Oddities that a file may hold but that Sony's player or reader might not cope
    /// with. Empty for a motion that any AIBO tool reads.
    pub fn advisories(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.duration_ms() > PLAUSIBLE_MS {
            notes.push(format!(
                "the motion lasts {:.1} hours: implausibly long for a robot's motion",
                self.duration_ms() as f64 / 3.6e6
            ));
        }
        if self.name.len() >= NAME_BUFFER {
            notes.push(format!(
                "motion name is {} bytes; Sony's reader keeps at most {}",
                self.name.len(),
                NAME_BUFFER - 1
            ));
        }
        if self.design_label.len() >= LABEL_BUFFER {
            notes.push(format!(
                "design label is {} bytes; Sony's reader keeps at most {}",
                self.design_label.len(),
                LABEL_BUFFER - 1
            ));
        }
        if self.frame_ms != FRAME_MS {
            notes.push(format!(
                "frame rate field is {} ms; Sony's player ignores it and plays 16 ms frames",
                self.frame_ms
            ));
        }
        let l = &self.layout;
        if (l.major_version, l.minor_version) != (1, 2) {
            notes.push(format!(
                "format version {}.{}; every known file is 1.2",
                l.major_version, l.minor_version
            ));
        }
        if l.option != 0 {
            notes.push(format!("reserved header field is {}, not 0", l.option));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kf(n: u32) -> Keyframe {
        Keyframe {
            frames_before: n,
            roll: 0,
            pitch: 0,
            yaw: 0,
            joints: vec![],
        }
    }

    #[test]
    fn times_follow_the_n_plus_one_rule() {
        let m = Motion {
            name: "x".into(),
            creator: "c".into(),
            design_label: "DRX-1000".into(),
            frame_ms: 16,
            locators: vec![],
            keyframes: vec![kf(0), kf(0), kf(2), kf(9)],
            layout: Layout::default(),
        };
        assert_eq!(m.keyframe_times_ms(), vec![0, 16, 64, 224]);
        assert_eq!(m.duration_ms(), 224);
    }
}
