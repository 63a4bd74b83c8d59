//! `aibo-motion convert`: a motion on another model, mirrored, reversed or re-timed.

use super::{load_motion, Outcome};
use aibo_motion::edit::{change_model, fit_speeds, mirror, reverse, scale_time};
use aibo_motion::robot::profile::Profile;
use aibo_motion::{fsio, mtn};
use anyhow::Result;
use std::path::PathBuf;

/// Convert a motion between models (ERS-210, ERS-220, ERS-7), mirror it left to right,
/// reverse it, or change its speed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  aibo-motion convert dance210.mtn --to ERS-7 -o dance7.mtn\n  \
                        aibo-motion convert wave.mtn --mirror -o wave-left.mtn\n  \
                        aibo-motion convert sit.mtn --reverse --speed 0.5 -o stand-slowly.mtn\n\n\
                        Joints are matched by meaning, not locator (the tail's locators swap \
                        meaning between models); joints the target lacks are dropped, joints it \
                        adds take its stand posture, every value is held within the target's \
                        limits, and a segment that would outrun one of its joints is lengthened \
                        (the warning says how much longer the motion became), so the result \
                        passes `check`. Operations apply in the order: model, mirror, reverse, \
                        speed."
)]
pub struct Args {
    /// The MTN motion to convert.
    pub file: PathBuf,
    /// Target model (default: the motion's own).
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub to: Option<String>,
    /// The motion's model when its design label does not say.
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub from: Option<String>,
    /// Swap left and right.
    #[arg(long)]
    pub mirror: bool,
    /// Play the keyframes backwards.
    #[arg(long)]
    pub reverse: bool,
    /// Speed factor: 2 plays twice as fast, 0.5 half as fast.
    #[arg(long, value_name = "F", value_parser = super::parse_speed, allow_negative_numbers = true)]
    pub speed: Option<f64>,
    /// Allow a speed change that moves joints faster than they can, and replace a
    /// read-only output file.
    #[arg(long)]
    pub force: bool,
    /// The MTN file to write; `-` is stdout.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<Outcome> {
    let motion = load_motion(&args.file)?.motion;
    let from = match &args.from {
        Some(arg) => Profile::resolve(arg)?,
        None => Profile::for_design_label(&motion.design_label).ok_or_else(|| {
            anyhow::anyhow!(
                "design label {:?} has no built-in profile; say which model it is with --from",
                motion.design_label
            )
        })?,
    };
    let to = match &args.to {
        Some(arg) => Profile::resolve(arg)?,
        None => from.clone(),
    };
    let mut out = motion;
    if to != from {
        let (converted, notes) = change_model(&out, &from, &to);
        for note in notes {
            tracing::warn!("{note}");
        }
        // The target's joints may be slower: segments that would outrun them last longer.
        let before_ms = converted.duration_ms();
        let (fitted, added_ms) = fit_speeds(&converted, &to)?;
        if added_ms > 0 {
            tracing::warn!(
                "segments lengthened to keep within the {}'s joint speeds: the motion lasts \
                 {} instead of {} (+{:.0}%)",
                to.model,
                super::seconds(before_ms + added_ms),
                super::seconds(before_ms),
                100.0 * added_ms as f64 / before_ms.max(1) as f64
            );
        }
        out = fitted;
    }
    if args.mirror {
        out = mirror(&out, &to);
    }
    if args.reverse {
        out = reverse(&out);
    }
    if let Some(factor) = args.speed {
        let guard = (!args.force).then_some(&to);
        let (scaled, notes) = scale_time(&out, factor, guard)
            .map_err(|e| anyhow::anyhow!("{e}; use --force to write it anyway"))?;
        for note in notes {
            tracing::warn!("{note}");
        }
        out = scaled;
    }
    let bytes = mtn::encode(&out)?;
    fsio::write_bytes(&args.output, &[&args.file], &bytes)?;
    Ok(Outcome::Success)
}
