//! `aibo-motion dump`: a motion's full content as lossless JSON or as CSV.

use super::{detect, load_clip, FileKind, Outcome};
use aibo_motion::fsio;
use aibo_motion::mtn::{self, Motion, DENSE_FRAME_MS};
use aibo_motion::source::kinematics::{end_positions, world_pose};
use aibo_motion::source::{self, Clip};
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

/// Write a motion's content: an MTN as JSON (lossless) or CSV (micro-radians); motion
/// capture as the world positions of its joints (CSV).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion dump sit.mtn -o sit.json\n  \
                        aibo-motion dump sit.mtn --format csv --dense -o sit.csv\n  \
                        aibo-motion dump dance.bvh --positions -o dance.csv\n  \
                        aibo-motion dump 01_01.amc --asf 01.asf --positions\n\n\
                        --dense plays the motion as a robot does: Sony's integer interpolation \
                        on 8 ms frames, then one frame holding the final keyframe.\n\
                        --positions writes `frame,<joint>.x,<joint>.y,<joint>.z,…` (frame from \
                        0) in the file's own names and units; for ASF/AMC, `root` and each \
                        bone's end point.")]
pub struct Args {
    /// The MTN motion, or the BVH, AMC or MRTK recording, to dump.
    pub file: PathBuf,
    /// World positions of every joint on every frame (motion capture input).
    #[arg(long)]
    pub positions: bool,
    #[command(flatten)]
    pub source: super::SourceArgs,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// CSV of every 8 ms frame of playback instead of the keyframes.
    #[arg(long)]
    pub dense: bool,
    /// Output file; `-` (the default) is stdout.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args) -> Result<Outcome> {
    let data = fsio::read_input(&args.file)?;
    if let FileKind::Source(_) = detect(&data, &args.file)? {
        if !args.positions {
            anyhow::bail!(
                "{}: motion capture dumps as joint positions; add --positions",
                args.file.display()
            );
        }
        let clip = load_clip(&args.file, &data, &args.source)?;
        fsio::write_output(&args.output, &[&args.file], |w| write_positions(w, &clip))?;
        return Ok(Outcome::Success);
    }
    if args.positions {
        anyhow::bail!("--positions is for motion capture input (BVH, ASF/AMC, MRTK)");
    }
    if args.dense && args.format == Format::Json {
        anyhow::bail!("--dense goes with --format csv: the JSON form holds keyframes only");
    }
    let decoded = super::decode_motion(&data, &args.file)?;
    super::log_warnings(&decoded.warnings);
    let motion = decoded.motion;
    let frames = mtn::dense_frame_count(&motion);
    if args.dense && frames > aibo_motion::view::export::MAX_FRAMES {
        anyhow::bail!(
            "{}: {frames} frames of 8 ms ({:.1} hours) is more than the {} --dense writes; \
             dump its keyframes instead",
            args.file.display(),
            frames as f64 * 0.008 / 3600.0,
            aibo_motion::view::export::MAX_FRAMES
        );
    }
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

/// World positions per frame: every joint, or for ASF/AMC the root and each bone's end.
fn write_positions(w: &mut dyn Write, clip: &Clip) -> io::Result<()> {
    let joints = &clip.skeleton.joints;
    // ASF bones are named for their segment, so their end point carries the name.
    let bone_ends = clip.format == source::Format::AsfAmc;
    write!(w, "frame")?;
    for j in joints {
        let name = csv_field(&j.name);
        write!(w, ",{name}.x,{name}.y,{name}.z")?;
    }
    writeln!(w)?;
    for frame in 0..clip.frames {
        let pose = world_pose(clip, frame);
        let ends = end_positions(clip, &pose);
        write!(w, "{frame}")?;
        for (i, p) in pose.positions.iter().enumerate() {
            let p = match (bone_ends, ends[i]) {
                (true, Some(end)) => end,
                _ => *p,
            };
            write!(w, ",{},{},{}", p.x, p.y, p.z)?;
        }
        writeln!(w)?;
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
