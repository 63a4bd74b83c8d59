//! `aibo-motion dump`: a motion's full content as lossless JSON or as CSV.

use super::{load_motion, Outcome};
use crate::fsio;
use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use anyhow::Result;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lossless: `aibo-motion build FILE.json` re-creates the original bytes exactly.
    Json,
    /// `t_ms,roll,pitch,yaw,<locator>…`, one row per keyframe (or 8 ms frame), in µrad.
    Csv,
}

/// Write a motion's content as JSON (lossless) or CSV (values in micro-radians).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion dump sit.mtn -o sit.json\n  \
                        aibo-motion dump sit.mtn --format csv --dense -o sit.csv\n\n\
                        --dense plays the motion as a robot does: Sony's integer interpolation \
                        on 8 ms frames, then one frame holding the final keyframe.")]
pub struct Args {
    /// The MTN motion to dump.
    pub file: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// CSV of every 8 ms frame of playback instead of the keyframes.
    #[arg(long)]
    pub dense: bool,
    /// Output file; `-` (the default) is stdout.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<Outcome> {
    if args.dense && args.format == Format::Json {
        anyhow::bail!("--dense goes with --format csv: the JSON form holds keyframes only");
    }
    let motion = load_motion(&args.file)?.motion;
    fsio::write_output(&args.output, &[&args.file], |w| match args.format {
        Format::Json => w.write_all(mtn::to_json(&motion).as_bytes()),
        Format::Csv if args.dense => write_dense_csv(w, &motion),
        Format::Csv => write_keyframe_csv(w, &motion),
    })?;
    Ok(Outcome::Success)
}

fn write_header(w: &mut dyn Write, m: &Motion) -> io::Result<()> {
    write!(w, "t_ms,roll,pitch,yaw")?;
    for loc in &m.locators {
        write!(w, ",{}", csv_field(loc))?;
    }
    writeln!(w)
}

fn write_row(w: &mut dyn Write, t_ms: u64, body: [i32; 3], joints: &[i32]) -> io::Result<()> {
    write!(w, "{t_ms},{},{},{}", body[0], body[1], body[2])?;
    for v in joints {
        write!(w, ",{v}")?;
    }
    writeln!(w)
}

fn write_keyframe_csv(w: &mut dyn Write, m: &Motion) -> io::Result<()> {
    write_header(w, m)?;
    for (kf, t) in m.keyframes.iter().zip(m.keyframe_times_ms()) {
        write_row(w, t, [kf.roll, kf.pitch, kf.yaw], &kf.joints)?;
    }
    Ok(())
}

fn write_dense_csv(w: &mut dyn Write, m: &Motion) -> io::Result<()> {
    write_header(w, m)?;
    for f in mtn::dense_frames(m) {
        write_row(w, f.index * DENSE_FRAME_MS, f.body, &f.joints)?;
    }
    Ok(())
}

/// Quotes a field that holds a comma, quote or line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
