//! `aibo-motion build`: make an MTN file from motion capture (retargeted onto a robot
//! profile) or from the JSON form that `dump` writes.

use super::{detect, json_text, load_clip, log_warnings, print_stdout, FileKind, Outcome};
use crate::keyframes::{build_motion, Options};
use crate::profile::{load_mappings, Profile};
use crate::retarget::retarget;
use crate::{fsio, mtn};
use anyhow::{Context, Result};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Build an MTN motion from motion capture (BVH, ASF/AMC, MRTK) or from its JSON form.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  aibo-motion build dance.bvh --profile ERS-210 -o dance.mtn\n  \
                        aibo-motion build 01_01.amc --asf 01.asf --profile ERS-7 -o walk.mtn\n  \
                        aibo-motion build sit.json -o sit.mtn\n\n\
                        The head follows the performer's head, the front legs the arms, the hind \
                        legs the legs; other joints hold the start posture. Every joint stays \
                        within its limits and speed, the motion starts and ends in a standard \
                        posture, and the written file's playback stays within --tolerance-deg \
                        of the limited track with as few keyframes as that allows. A JSON dump \
                        rebuilds its original file byte for byte."
)]
pub struct Args {
    /// Motion capture, or the JSON form of a motion (`aibo-motion dump FILE.mtn`).
    pub input: PathBuf,
    /// The MTN file to write; `-` is stdout.
    #[arg(short, long)]
    pub output: PathBuf,
    /// ERS-210, ERS-220, ERS-7, a design label, or a profile .toml (motion capture input).
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub profile: Option<String>,
    /// Keyframe grid in ms (16 or a multiple).
    #[arg(long, default_value_t = 16)]
    pub frame_ms: u32,
    /// Largest difference between the file's playback and the limited track, degrees.
    #[arg(long, default_value_t = 0.5)]
    pub tolerance_deg: f64,
    /// `[[mapping]]` entries that replace the profile's for the same joints.
    #[arg(long, value_name = "FILE.toml")]
    pub map: Option<PathBuf>,
    /// Motion name (default `a_<start>#<end>_<input stem>`).
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long, default_value = "aibo-motion")]
    pub creator: String,
    #[arg(long, default_value = "stand")]
    pub start_pose: String,
    #[arg(long, default_value = "stand")]
    pub end_pose: String,
    /// A JSON summary on stdout (keyframes, duration, mapping used, warnings).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub source: super::SourceArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let data = fsio::read_input(&args.input)?;
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return build_from_json(&args, &data);
    }
    if !matches!(detect(&data, &args.input)?, FileKind::Source(_)) {
        anyhow::bail!(
            "{}: build reads motion capture (BVH, ASF/AMC, MRTK) or a motion's JSON form",
            args.input.display()
        );
    }
    let profile_arg = args.profile.as_deref().ok_or_else(|| {
        anyhow::anyhow!("motion capture needs a robot: add --profile ERS-210, ERS-220 or ERS-7")
    })?;
    let profile = Profile::resolve(profile_arg)?;
    let overrides = match &args.map {
        Some(path) => load_mappings(path, &profile)?,
        None => Vec::new(),
    };
    let clip = load_clip(&args.input, &data, &args.source)?;
    if clip.frames == 0 {
        anyhow::bail!(
            "{}: the file holds no frames to build from",
            args.input.display()
        );
    }
    let tracks = retarget(&clip, &profile, &overrides).map_err(anyhow::Error::msg)?;
    let options = Options {
        frame_ms: args.frame_ms,
        tolerance: args.tolerance_deg.to_radians(),
        start_pose: args.start_pose.clone(),
        end_pose: args.end_pose.clone(),
        name: args.name.clone().unwrap_or_else(|| default_name(&args)),
        creator: args.creator.clone(),
    };
    let motion = build_motion(&tracks, &profile, &options).map_err(anyhow::Error::msg)?;
    let bytes = mtn::encode(&motion)?;
    fsio::write_bytes(&args.output, &[&args.input], &bytes)?;

    let held: Vec<&str> = profile
        .joints
        .iter()
        .zip(&tracks.joints)
        .filter(|(_, t)| t.is_none())
        .map(|(j, _)| j.name.as_str())
        .collect();
    let mut warnings = clip.warnings.clone();
    if tracks.drivers.is_empty() {
        warnings.push(
            "no joint of the source matched the profile's mappings: the motion only holds the posture"
                .to_string(),
        );
        log_warnings(&warnings[clip.warnings.len()..]);
    }
    if args.json {
        let mapping: Vec<_> = tracks
            .drivers
            .iter()
            .map(|d| json!({"joint": d.joint, "measure": d.measure, "source": d.source}))
            .collect();
        let summary = json!({
            "input": args.input.display().to_string(),
            "output": args.output.display().to_string(),
            "profile": profile.model,
            "keyframes": motion.keyframes.len(),
            "duration_s": motion.duration_ms() as f64 / 1000.0,
            "mapping": mapping,
            "held": held,
            "warnings": warnings,
            "notes": clip.notes,
        });
        print_stdout(&json_text(&summary))?;
    } else if !fsio::is_stdio(&args.output) {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{}: {} keyframes, {:.3} s, for the {}",
            args.output.display(),
            motion.keyframes.len(),
            motion.duration_ms() as f64 / 1000.0,
            profile.title()
        );
        for d in &tracks.drivers {
            let _ = writeln!(
                t,
                "  {:<10} ← {} ({})",
                d.joint,
                d.measure,
                d.source.join(" → ")
            );
        }
        if !held.is_empty() {
            let _ = writeln!(t, "  held at the posture: {}", held.join(", "));
        }
        eprint!("{t}");
    }
    Ok(Outcome::Success)
}

/// `a_<start>#<end>_<input stem>`, Sony's naming.
fn default_name(args: &Args) -> String {
    let stem = Path::new(&args.input)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "motion".to_string());
    format!("a_{}#{}_{stem}", args.start_pose, args.end_pose)
}

fn build_from_json(args: &Args, data: &[u8]) -> Result<Outcome> {
    let text = std::str::from_utf8(data)
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
