//! The one road from motion capture to a motion: clip → retarget → keyframes. The
//! `build` command, the viewers' motion-capture input, the fuzz target, the benchmark
//! and the tests all take it.

use crate::keyframes::{self, build_motion, KeyframeError};
use crate::likeness::{likeness, Likeness};
use crate::mtn::Motion;
use crate::retarget::{self, retarget, RetargetError, Tracks};
use crate::robot::profile::Profile;
use crate::source::Clip;

/// How a clip becomes a motion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildOptions {
    pub retarget: retarget::Options,
    pub keyframes: keyframes::Options,
}

/// A motion built from a clip, with the tracks it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    pub motion: Motion,
    pub tracks: Tracks,
    /// When the clip's first frame plays, in ms from the motion's start: the length of
    /// the ramp from the start posture.
    pub source_start_ms: u64,
    /// The length of the ramp from the clip's last frame to the end posture, ms.
    pub ramp_out_ms: u64,
}

impl Built {
    /// How much the motion looks like the performance (see [`crate::likeness`]).
    pub fn likeness(&self, profile: &Profile) -> Option<Likeness> {
        likeness(&self.tracks, profile, &self.motion, self.source_start_ms)
    }
}

/// Why a clip cannot become a motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("the clip holds no frames to build from")]
    NoFrames,
    /// A frame time or duration outside what the readers accept.
    #[error("{0}")]
    Time(String),
    #[error(transparent)]
    Retarget(#[from] RetargetError),
    #[error(transparent)]
    Keyframes(#[from] KeyframeError),
}

/// Retargets `clip` onto `profile` and makes the motion.
pub fn build(clip: &Clip, profile: &Profile, options: &BuildOptions) -> Result<Built, BuildError> {
    if clip.frames == 0 {
        return Err(BuildError::NoFrames);
    }
    if let Some(e) = crate::source::time_bounds_error(clip.frame_time, clip.frames) {
        return Err(BuildError::Time(e));
    }
    let tracks = retarget(clip, profile, &options.retarget)?;
    let keyframed = build_motion(&tracks, profile, &options.keyframes)?;
    Ok(Built {
        motion: keyframed.motion,
        tracks,
        source_start_ms: keyframed.source_start_ms,
        ramp_out_ms: keyframed.ramp_out_ms,
    })
}
