//! `aibo-motion preview`: an animated stick figure of the robot performing a motion.

use super::{motion_to_view, Outcome, ViewArgs};
use aibo_motion::fsio;
use aibo_motion::stability::physics;
use aibo_motion::view::preview;
use anyhow::{anyhow, bail, Result};
use std::path::PathBuf;

/// Draw the robot performing a motion: a stick figure from the model's leg, neck and
/// tail geometry (forward kinematics; side and top views), at true speed, looping. An
/// .html output animates on a canvas; an .svg output animates by itself (SMIL) in any
/// browser; --at gives one still frame.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion preview dance.mtn -o dance.html\n  \
    aibo-motion preview dance.mtn -o dance.svg\n  \
    aibo-motion preview dance.mtn --at 1.5 -o frame.svg\n  \
    aibo-motion preview dance.bvh --profile ERS-7 -o dance.html\n  \
    aibo-motion preview dance.mtn --physics -o fall.svg\n  \
    aibo-motion preview walk.mtn --physics -o walk.html\n\n\
    The top view marks each footfall (a dot in the paw's side colour, from the moment it \
    lands): where the planned contacts set a paw down, or with --physics where the \
    simulated paw came down on the floor as the body walked.")]
pub struct Args {
    /// An MTN motion, or motion capture (BVH, ASF/AMC, MRTK) with --profile.
    pub file: PathBuf,
    /// Output: .html (canvas) or .svg (SMIL animation, or a still with --at).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
    /// A still of this moment (seconds from the start) instead of the animation.
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_moment, allow_negative_numbers = true)]
    pub at: Option<f64>,
    /// Draw the simulated robot (as `simulate` plays it: rigid bodies on a floor, falls
    /// and all) instead of the joints as the motion sets them. The top view then shows
    /// where the body goes and where its paws came down, and no support polygon.
    #[arg(long)]
    pub physics: bool,
    #[command(flatten)]
    pub view: ViewArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    if let Some(t) = args.at {
        if !(t.is_finite() && t >= 0.0) {
            bail!("--at {t}: give seconds from the start, 0 or more");
        }
    }
    let html = match super::output_kind(&args.output, &["svg", "html", "htm"])? {
        Some(ext) => ext != "svg",
        None => false,
    };
    let (motion, profile) = motion_to_view(&args.file, &args.view)?;
    if let Some(t) = args.at {
        let duration_s = motion.duration_ms() as f64 / 1000.0;
        if t > duration_s {
            bail!("--at {t}: the motion lasts {duration_s:.3} s; give a moment within it");
        }
    }
    let title = args
        .file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let figure = if args.physics {
        preview::Figure::Physics
    } else {
        preview::Figure::Kinematic
    };
    if html && args.at.is_some() {
        bail!("--at draws a still: write it to an .svg file");
    }
    // `simulate`'s progress bar, for a long motion's simulation.
    let text = super::simulate::showing(|shown| {
        let progress = &mut |done_ms, total_ms| {
            shown(physics::Progress::Simulated { done_ms, total_ms });
        };
        if html {
            preview::html(&motion, &profile, &title, figure, progress)
        } else {
            preview::svg(&motion, &profile, &title, args.at, figure, progress)
        }
    })
    .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    fsio::write_bytes(&args.output, &[&args.file], text.as_bytes())?;
    let what = match (html, args.at) {
        (true, _) => "the robot performing the motion (HTML, animated)".to_string(),
        (false, Some(at)) => format!("the robot at {at} s (SVG)"),
        (false, None) => "the robot performing the motion (SVG, animated)".to_string(),
    };
    super::say_written(&args.output, &what)?;
    Ok(Outcome::Success)
}
