//! `aibo-motion export`: a motion as a BVH of the robot's own skeleton.

use super::{motion_to_view, Outcome, ViewArgs};
use aibo_motion::export::{self, Rate};

/// Which frames to write: [`Rate`] on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportRate {
    /// Every 8 ms frame the robot plays.
    Dense,
    /// The 16 ms grid MTN keyframes lie on.
    Grid,
}

impl From<ExportRate> for Rate {
    fn from(frames: ExportRate) -> Rate {
        match frames {
            ExportRate::Dense => Rate::Dense,
            ExportRate::Grid => Rate::Grid,
        }
    }
}
use aibo_motion::fsio;
use anyhow::{anyhow, Result};
use std::path::PathBuf;

/// Write a motion as a BVH of the AIBO's own skeleton (one joint per robot joint, named
/// by its semantic name, one rotation channel each), for Blender and any mocap viewer.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion export dance.mtn -o dance.bvh\n  \
    aibo-motion export dance.mtn --rate grid -o dance16.bvh\n\n\
    BVH axes: Y up, the robot facing +Z, its left on +X; millimetres. Joint senses are \
    the profile's (for example a positive head_tilt lifts the nose).")]
pub struct Args {
    /// An MTN motion, or motion capture (BVH, ASF/AMC, MRTK) with --profile (built with
    /// `build`'s defaults, so the BVH shows what the robot would do).
    pub file: PathBuf,
    /// Output BVH file (`-` for stdout).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
    /// dense: every 8 ms frame the robot plays; grid: the keyframes' 16 ms grid.
    #[arg(long, value_enum, default_value_t = ExportRate::Dense)]
    pub rate: ExportRate,
    #[command(flatten)]
    pub view: ViewArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let (motion, profile) = motion_to_view(&args.file, &args.view)?;
    let text = export::bvh(&motion, &profile, args.rate.into())
        .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    fsio::write_bytes(&args.output, &[&args.file], text.as_bytes())?;
    Ok(Outcome::Success)
}
