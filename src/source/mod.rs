//! Motion sources: BVH, Acclaim ASF/AMC and MRTK input animation, read into one [`Clip`]
//! model, so that retargeting never cares where a motion came from.
//!
//! A clip is a skeleton (joints with parents and rest offsets) and frames (every joint's
//! local rotation relative to the rest pose, and the local position of the joints the
//! file animates), sampled at a fixed frame time. In the rest pose every rotation is the identity and every offset is
//! expressed in world axes, whatever the format.

pub mod amc;
pub mod asf;
mod asf_lookup;
pub mod bvh;
pub mod kinematics;
pub mod mrtk;
pub mod probe;
pub(crate) mod text;

pub use text::{cores, TextError};

use crate::binary::FormatError;
use amc::DEFAULT_FPS;
use glam::{DQuat, DVec3};
use std::path::{Path, PathBuf};

/// The shortest frame time a file may state: 10,000 frames per second.
pub const MIN_FRAME_TIME_S: f64 = 1e-4;
/// The longest frame time a file may state: 10 s.
pub const MAX_FRAME_TIME_S: f64 = 10.0;
/// The longest motion a reader accepts: an hour (motion capture takes last minutes; an
/// MRTK session is capped at an hour too). Everything downstream (a 16 ms grid over the
/// duration: about 50 MB for an hour, a preview's samples) grows with it, so a few bytes
/// that state a year are refused here, before anything is allocated for them.
pub const MAX_DURATION_S: f64 = 3_600.0;

/// Why `frame_time` is not one any reader accepts, if it is not.
pub fn frame_time_error(frame_time: f64) -> Option<String> {
    if !(MIN_FRAME_TIME_S..=MAX_FRAME_TIME_S).contains(&frame_time) {
        return Some(format!(
            "a frame time of {frame_time:e} s: frame times run from {MIN_FRAME_TIME_S} s to \
             {MAX_FRAME_TIME_S} s ({} to {} frames per second)",
            1.0 / MAX_FRAME_TIME_S,
            1.0 / MIN_FRAME_TIME_S
        ));
    }
    None
}

/// Why `frames` frames of `frame_time` seconds are not a motion any reader accepts, if
/// they are not: the frame time, or the duration.
pub fn time_bounds_error(frame_time: f64, frames: usize) -> Option<String> {
    if let Some(e) = frame_time_error(frame_time) {
        return Some(e);
    }
    let duration = frame_time * frames.saturating_sub(1) as f64;
    (duration > MAX_DURATION_S).then(|| {
        format!(
            "{frames} frames of {frame_time:e} s last {:.1} hours: a motion lasts at most {} hours",
            duration / 3600.0,
            MAX_DURATION_S / 3600.0
        )
    })
}

/// Which reader produced a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Bvh,
    AsfAmc,
    Mrtk,
}

impl Format {
    /// The name used in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            Format::Bvh => "bvh",
            Format::AsfAmc => "asf-amc",
            Format::Mrtk => "mrtk",
        }
    }

    /// Why a file of this format can never hold the body part `part` (`head`,
    /// `left_arm`, …, `right_leg`), or `None` where it can: its absence is then no news.
    pub fn never_holds(self, part: &str) -> Option<&'static str> {
        (self == Format::Mrtk && part.ends_with("_leg"))
            .then_some("an MRTK recording tracks the head and hands")
    }
}

/// One joint of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureJoint {
    pub name: String,
    /// Index of the parent joint; `None` for a root (a clip may have several).
    pub parent: Option<usize>,
    /// Rest position relative to the parent joint, in world axes.
    pub offset: DVec3,
    /// Where the joint's segment ends when nothing follows it (a BVH End Site, an ASF
    /// bone's tip), relative to the joint, in world axes at rest.
    pub end: Option<DVec3>,
    /// An ASF bone's axis frame C (local axes in world space); identity elsewhere.
    pub axis: DQuat,
}

/// The joints of a clip, parents before children.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaptureSkeleton {
    pub joints: Vec<CaptureJoint>,
}

impl CaptureSkeleton {
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
}

/// A per-frame scalar that is not a joint (MRTK pinch and tracking states, eye gaze).
#[derive(Debug, Clone, PartialEq)]
pub struct Signal {
    pub name: String,
    pub values: Vec<f64>,
}

/// A motion, read from any source.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub format: Format,
    pub skeleton: CaptureSkeleton,
    /// Seconds per frame.
    pub frame_time: f64,
    /// Number of frames.
    pub frames: usize,
    /// For each joint, its column in `translations` when the file animates its local
    /// position (a BVH position channel, the AMC root); `None` when its rest offset
    /// holds on every frame.
    pub moving: Vec<Option<usize>>,
    /// Animated local translations, frame-major: `translations[frame * columns + column]`
    /// with `columns` the number of moving joints.
    pub translations: Vec<DVec3>,
    /// Local rotation of every joint on every frame relative to its rest pose,
    /// frame-major: `rotations[frame * joints + joint]`.
    pub rotations: Vec<DQuat>,
    pub signals: Vec<Signal>,
    /// Oddities met while reading: usable, but worth saying.
    pub warnings: Vec<String>,
    /// How the clip was read where the file alone does not say (which ASF, what rate).
    pub notes: Vec<String>,
}

impl Clip {
    pub fn joint_count(&self) -> usize {
        self.skeleton.joints.len()
    }

    pub fn duration(&self) -> f64 {
        self.frame_time * self.frames.saturating_sub(1) as f64
    }

    /// A joint's local translation on a frame: its animated position, or its rest offset.
    pub fn translation(&self, frame: usize, joint: usize) -> DVec3 {
        match self.moving[joint] {
            Some(column) => self.frame_moving_translations(frame)[column],
            None => self.skeleton.joints[joint].offset,
        }
    }

    /// The animated translations of one frame, one per moving joint (see `moving`).
    pub fn frame_moving_translations(&self, frame: usize) -> &[DVec3] {
        let n = self.moving_columns();
        &self.translations[frame * n..(frame + 1) * n]
    }

    /// How many joints have animated translations.
    pub fn moving_columns(&self) -> usize {
        self.moving.iter().flatten().count()
    }

    /// The local rotations of one frame, one per joint.
    pub fn frame_rotations(&self, frame: usize) -> &[DQuat] {
        let n = self.joint_count();
        &self.rotations[frame * n..(frame + 1) * n]
    }

    /// The clip of `frames` alone (clamped to the clip's).
    pub fn frames_in(&self, frames: std::ops::Range<usize>) -> Clip {
        let end = frames.end.min(self.frames);
        let start = frames.start.min(end);
        let (joints, columns) = (self.joint_count(), self.moving_columns());
        Clip {
            frames: end - start,
            translations: self.translations[start * columns..end * columns].to_vec(),
            rotations: self.rotations[start * joints..end * joints].to_vec(),
            signals: self
                .signals
                .iter()
                .map(|s| Signal {
                    name: s.name.clone(),
                    values: s
                        .values
                        .get(start..end.min(s.values.len()))
                        .unwrap_or_default()
                        .to_vec(),
                })
                .collect(),
            skeleton: self.skeleton.clone(),
            moving: self.moving.clone(),
            warnings: self.warnings.clone(),
            notes: self.notes.clone(),
            ..*self
        }
    }
}

/// Numbers the joints that move: `Some(column)` for each flagged joint, in order.
pub(crate) fn moving_columns(flags: impl IntoIterator<Item = bool>) -> Vec<Option<usize>> {
    let mut next = 0;
    flags
        .into_iter()
        .map(|moving| {
            moving.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Joins the storage that pieces of a file were read into. The first piece's vector
/// grows to hold the rest (a large block grows in place), so frames are never held
/// twice over.
pub(crate) fn concat<T: Copy>(parts: Vec<Vec<T>>) -> Vec<T> {
    let total: usize = parts.iter().map(Vec::len).sum();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    out.reserve_exact(total - out.len());
    for part in parts {
        out.extend_from_slice(&part);
    }
    out
}

/// Why a motion source could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {error}")]
    Text { path: String, error: TextError },
    #[error("{path}: {error}")]
    Binary { path: String, error: FormatError },
    #[error(transparent)]
    Io(#[from] crate::fsio::IoError),
    #[error("{}: not a motion source this build reads (BVH, ASF/AMC, MRTK input animation)", path.display())]
    UnknownFormat { path: PathBuf },
    #[error("{}: an AMC motion needs its ASF skeleton; none found (tried {}); name it with --asf FILE", path.display(), list(tried))]
    NoSkeleton { path: PathBuf, tried: Vec<PathBuf> },
}

/// Paths for a message, comma-separated.
fn list(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// What a user may tell a reader beyond the file itself.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The skeleton for an AMC motion (`--asf`).
    pub asf: Option<PathBuf>,
    /// Frames per second where the file does not say (AMC: 120; MRTK sampling: 60).
    pub fps: Option<f64>,
}

/// Reads any motion source, choosing the reader by [`probe::source_format`]. The
/// readers take bytes; this is where an AMC's skeleton is looked for on disk.
pub fn read(path: &Path, data: &[u8], options: &ReadOptions) -> Result<Clip, ReadError> {
    let name = path.display().to_string();
    let text_err = |error| ReadError::Text {
        path: name.clone(),
        error,
    };
    match probe::source_format(data, path) {
        Some(Format::Bvh) => bvh::read(data).map_err(text_err),
        Some(Format::AsfAmc) => read_asf_amc(path, data, options),
        Some(Format::Mrtk) => mrtk::read(data, options.fps).map_err(|error| ReadError::Binary {
            path: name.clone(),
            error,
        }),
        None => Err(ReadError::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// Reads an ASF (a skeleton with no frames) or an AMC with its ASF.
fn read_asf_amc(path: &Path, data: &[u8], options: &ReadOptions) -> Result<Clip, ReadError> {
    let text_err = |p: &Path| {
        let name = p.display().to_string();
        move |error| ReadError::Text { path: name, error }
    };
    if amc::is_asf(data) {
        let skeleton = asf::read(data).map_err(text_err(path))?;
        let mut clip = amc::read(&skeleton, &[], DEFAULT_FPS).map_err(text_err(path))?;
        clip.notes
            .push("an ASF skeleton alone: no frames (give the AMC to read a motion)".into());
        return Ok(clip);
    }
    let (asf_path, how) = asf_lookup::find_asf(path, data, options)?;
    let asf_data = crate::fsio::read_input(&asf_path)?;
    let skeleton = asf::read(&asf_data).map_err(text_err(&asf_path))?;
    let fps = options.fps.unwrap_or(DEFAULT_FPS);
    let mut clip = amc::read(&skeleton, data, fps).map_err(text_err(path))?;
    clip.notes
        .insert(0, format!("skeleton from {} ({how})", asf_path.display()));
    if options.fps.is_none() {
        clip.notes.push(format!(
            "{DEFAULT_FPS} frames per second assumed: AMC files do not store a rate (set it with --fps)"
        ));
    }
    Ok(clip)
}
