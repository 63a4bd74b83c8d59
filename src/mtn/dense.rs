//! Dense playback: the 8 ms frames a robot plays, by Sony's integer rule.
//!
//! A segment of `n` interpolation frames becomes `n8 = 2n + 1` in-between 8 ms frames;
//! each value steps by `(v1 − v0) / (n8 + 1)` truncated toward zero, from f = 0 to n8.
//! After the last segment comes one frame holding the final keyframe exactly. A motion
//! of K keyframes so has Σ(2n_k + 2) + 1 frames, frame i at 8·i ms.

use super::{Keyframe, Motion};

/// The robot's servo frame.
pub const DENSE_FRAME_MS: u64 = 8;

/// One 8 ms frame of dense playback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenseFrame {
    /// Frame number; the frame is due at `index × 8` ms.
    pub index: u64,
    /// Body roll, pitch, yaw.
    pub body: [i32; 3],
    pub joints: Vec<i32>,
}

/// Number of frames [`dense_frames`] yields.
pub fn dense_frame_count(motion: &Motion) -> u64 {
    if motion.keyframes.is_empty() {
        return 0;
    }
    motion
        .keyframes
        .iter()
        .skip(1)
        .map(|kf| 2 * u64::from(kf.frames_before) + 2)
        .sum::<u64>()
        + 1
}

/// Dense frame `index` alone, without playing the frames before it: a walk over the
/// keyframes, so sampling a long motion (or one whose segments last hours) costs
/// nothing like playing it. `None` past the end.
pub fn dense_frame_at(motion: &Motion, index: u64) -> Option<DenseFrame> {
    let mut start = 0u64;
    for pair in motion.keyframes.windows(2) {
        let (from, to) = (&pair[0], &pair[1]);
        let n8 = firmware_bridge::sony::in_between_frames(to.frames_before);
        let len = u64::from(n8) + 1;
        if index < start + len {
            return Some(in_between(index, from, to, (index - start) as u32, n8));
        }
        start += len;
    }
    let last = motion.keyframes.last()?;
    (index == start).then(|| DenseFrame {
        index,
        body: [last.roll, last.pitch, last.yaw],
        joints: last.joints.clone(),
    })
}

/// The dense frames of `motion`, computed lazily (a long motion is never held whole).
pub fn dense_frames(motion: &Motion) -> DenseFrames<'_> {
    DenseFrames {
        keyframes: &motion.keyframes,
        segment: 0,
        step: 0,
        index: 0,
        done: motion.keyframes.is_empty(),
    }
}

/// Iterator over the dense frames of a motion.
#[derive(Debug, Clone)]
pub struct DenseFrames<'a> {
    keyframes: &'a [Keyframe],
    /// Current segment: from keyframe `segment` to `segment + 1`.
    segment: usize,
    /// Step within the segment, 0..=n8.
    step: u32,
    index: u64,
    done: bool,
}

impl Iterator for DenseFrames<'_> {
    type Item = DenseFrame;

    fn next(&mut self) -> Option<DenseFrame> {
        if self.done {
            return None;
        }
        let index = self.index;
        self.index += 1;
        let (Some(from), next) = (
            self.keyframes.get(self.segment),
            self.keyframes.get(self.segment + 1),
        ) else {
            self.done = true;
            return None;
        };
        let Some(to) = next else {
            // Past the last segment: the final keyframe's exact values.
            self.done = true;
            return Some(DenseFrame {
                index,
                body: [from.roll, from.pitch, from.yaw],
                joints: from.joints.clone(),
            });
        };
        let n8 = firmware_bridge::sony::in_between_frames(to.frames_before);
        let step = self.step;
        let frame = in_between(index, from, to, step, n8);
        if step == n8 {
            self.segment += 1;
            self.step = 0;
        } else {
            self.step += 1;
        }
        Some(frame)
    }
}

/// Frame `step` (0 ..= n8) of the segment from `from` to `to`, by Sony's rule.
fn in_between(index: u64, from: &Keyframe, to: &Keyframe, step: u32, n8: u32) -> DenseFrame {
    let at = |v0: i32, v1: i32| firmware_bridge::sony::interpolate(v0, v1, step, n8);
    DenseFrame {
        index,
        body: [
            at(from.roll, to.roll),
            at(from.pitch, to.pitch),
            at(from.yaw, to.yaw),
        ],
        joints: from
            .joints
            .iter()
            .zip(&to.joints)
            .map(|(&v0, &v1)| at(v0, v1))
            .collect(),
    }
}
