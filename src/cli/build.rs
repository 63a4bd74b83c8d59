//! `aibo-motion build`: make an MTN file. For now from the JSON that `dump` writes;
//! motion capture input comes with retargeting.

use super::Outcome;
use crate::{fsio, mtn};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Build an MTN motion file (for now from the JSON form that `dump` writes).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion dump sit.mtn -o sit.json\n  \
                        (edit sit.json)\n  aibo-motion build sit.json -o sit2.mtn\n\n\
                        A JSON dump rebuilds the original file byte for byte.")]
pub struct Args {
    /// The motion's JSON form (`aibo-motion dump FILE.mtn --format json`).
    pub input: PathBuf,
    /// The MTN file to write; `-` is stdout.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<Outcome> {
    let data = fsio::read_input(&args.input)?;
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        anyhow::bail!(
            "{}: build reads the JSON form of a motion (from `aibo-motion dump`); \
             motion capture input is not supported yet",
            args.input.display()
        );
    }
    let text = std::str::from_utf8(&data)
        .with_context(|| format!("{} is not UTF-8 text", args.input.display()))?;
    let motion = mtn::from_json(text)
        .with_context(|| format!("{} is not a motion in JSON form", args.input.display()))?;
    for note in motion.advisories() {
        tracing::warn!("{note}");
    }
    let bytes = mtn::encode(&motion)?;
    fsio::write_bytes(&args.output, &[&args.input], &bytes)?;
    tracing::info!(
        "wrote {} ({} bytes, {} keyframes)",
        args.output.display(),
        bytes.len(),
        motion.keyframes.len()
    );
    Ok(Outcome::Success)
}
