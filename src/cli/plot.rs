//! `aibo-motion plot`: every joint's angle over time, as SVG.

use super::{motion_to_view, Outcome, ViewArgs};
use aibo_motion::fsio;
use anyhow::{anyhow, Result};
use std::path::PathBuf;

/// Plot every joint's angle over time (degrees against seconds), one panel per limb,
/// with each joint's limit band shaded, keyframes marked, and values past a limit or
/// segments faster than the joint drawn in red. Takes an MTN motion, or motion capture
/// built for --profile with `build`'s defaults.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion plot dance.mtn -o dance.svg\n  \
    aibo-motion plot dance.bvh --profile ERS-7 -o dance.svg\n  \
    aibo-motion plot walk.mtn --profile ERS-210 -o walk-as-210.svg")]
pub struct Args {
    /// An MTN motion, or motion capture (BVH, ASF/AMC, MRTK) with --profile.
    pub file: PathBuf,
    /// Output SVG file (`-` for stdout).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub view: ViewArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    super::output_kind(&args.output, &["svg"])?;
    let (motion, profile) = motion_to_view(&args.file, &args.view)?;
    let title = args
        .file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let svg = aibo_motion::view::plot::svg(&motion, &profile, &title)
        .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    fsio::write_bytes(&args.output, &[&args.file], svg.as_bytes())?;
    super::say_written(&args.output, "every joint's angle over time (SVG)")?;
    Ok(Outcome::Success)
}
