//! `aibo-motion info`: what a file is and what it holds.

use super::{
    deg, detect, json_text, log_warnings, print_stdout, seconds, shown, FileKind, Outcome,
};
use aibo_motion::fsio;
use aibo_motion::mtn::{self, Motion};
use aibo_motion::oda::Archive;
use aibo_motion::retarget::calibration;
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{Clip, Format};
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Show what a motion file or archive holds: names, model, joints, keyframes, duration.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  aibo-motion info dance.mtn\n  aibo-motion info MOTION7.ODA --json"
)]
pub struct Args {
    /// An MTN motion, an ODA archive, a BVH, an ASF or AMC, or an MRTK recording (told
    /// apart by content first, extension second).
    pub file: PathBuf,
    /// One JSON object on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub source: super::SourceArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let data = fsio::read_input(&args.file)?;
    let (summary, text) = match detect(&data, &args.file)? {
        FileKind::Mtn => {
            let decoded = super::decode_motion(&data, &args.file)?;
            log_warnings(&decoded.warnings);
            mtn_info(&args.file, &decoded.motion, &decoded.warnings)
        }
        FileKind::Oda => {
            let decoded = Archive::decode(&data).with_context(|| {
                format!("{} is not a readable ODA archive", args.file.display())
            })?;
            let mut warnings = decoded.warnings;
            let (summary, text) = oda_info(&args.file, &decoded.archive, &mut warnings);
            log_warnings(&warnings);
            (summary, text)
        }
        FileKind::Source(_) => {
            let clip = super::load_clip(&args.file, &data, &args.source)?;
            source_info(&args.file, &clip)
        }
    };
    print_stdout(&if args.json { json_text(&summary) } else { text })?;
    Ok(Outcome::Success)
}

fn mtn_info(path: &Path, m: &Motion, warnings: &[String]) -> (Value, String) {
    let profile = Profile::for_design_label(&m.design_label);
    let model = profile.as_ref().map(|p| p.model.clone());
    let dense = mtn::dense_frame_count(m);
    let joints: Vec<Value> = m
        .locators
        .iter()
        .map(|loc| {
            let name = profile
                .as_ref()
                .and_then(|p| p.joint_by_locator(loc))
                .map(|j| j.name.clone());
            json!({ "locator": loc, "name": name })
        })
        .collect();
    let summary = json!({
        "file": path.display().to_string(),
        "format": "mtn",
        "name": m.name,
        "creator": m.creator,
        "design_label": m.design_label,
        "model": model,
        "joints": m.locators.len(),
        "joint_list": joints,
        "keyframes": m.keyframes.len(),
        "frame_ms": m.frame_ms,
        "duration_s": m.duration_ms() as f64 / 1000.0,
        "dense_frames": dense,
        "warnings": warnings,
    });

    let mut t = String::new();
    let model_text = match &profile {
        Some(p) => format!("{}: {}", p.model, p.description),
        None => "unknown (no built-in profile for this label)".to_string(),
    };
    let _ = writeln!(t, "{}: MTN motion", path.display());
    let _ = writeln!(t, "  name          {}", shown(&m.name));
    let _ = writeln!(t, "  creator       {}", shown(&m.creator));
    let _ = writeln!(t, "  design label  {}", shown(&m.design_label));
    let _ = writeln!(t, "  model         {model_text}");
    let _ = writeln!(t, "  keyframes     {}", m.keyframes.len());
    let _ = writeln!(
        t,
        "  duration      {} ({dense} frames of 8 ms)",
        seconds(m.duration_ms())
    );
    let _ = writeln!(t, "  joints        {}", m.locators.len());
    let first = m.keyframes.first();
    for (i, loc) in m.locators.iter().enumerate() {
        let joint = profile.as_ref().and_then(|p| p.joint_by_locator(loc));
        let name = joint.map_or("?", |j| j.name.as_str());
        let start = first
            .and_then(|kf| kf.joints.get(i))
            .map(|&v| deg(v))
            .unwrap_or_default();
        let loc = shown(loc);
        let _ = writeln!(t, "    {i:>2}  {loc:<32} {name:<10} starts at {start:>7}");
    }
    if let Some(kf) = first {
        let _ = writeln!(
            t,
            "  body at start roll {} pitch {} yaw {}",
            deg(kf.roll),
            deg(kf.pitch),
            deg(kf.yaw)
        );
    }
    if !warnings.is_empty() {
        let _ = writeln!(t, "  warnings      {}", warnings.len());
    }
    (summary, t)
}

pub(super) fn oda_info(
    path: &Path,
    archive: &Archive,
    warnings: &mut Vec<String>,
) -> (Value, String) {
    let mut entries = Vec::new();
    let mut total_ms = 0;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: ODA archive, {} entries",
        path.display(),
        archive.entries.len()
    );
    let _ = writeln!(
        t,
        "  {:<4}  {:<32} {:>7}  {:<10} {:>9} {:>10}",
        "type", "entry", "bytes", "label", "keyframes", "duration"
    );
    for e in &archive.entries {
        let motion = if &e.kind == mtn::MAGIC {
            match mtn::decode(&e.data) {
                Ok(d) => {
                    for w in d.warnings {
                        warnings.push(format!("entry {:?}: {w}", e.name));
                    }
                    Some(d.motion)
                }
                Err(err) => {
                    warnings.push(format!(
                        "entry {:?} is not a readable motion: {err}",
                        e.name
                    ));
                    None
                }
            }
        } else {
            None
        };
        let (label, keyframes, duration) = match &motion {
            Some(m) => (
                m.design_label.clone(),
                m.keyframes.len().to_string(),
                seconds(m.duration_ms()),
            ),
            None => (String::new(), String::new(), String::new()),
        };
        let _ = writeln!(
            t,
            "  {:<4}  {:<32} {:>7}  {:<10} {:>9} {:>10}",
            shown(&e.kind_str()),
            shown(&e.name),
            e.data.len(),
            label,
            keyframes,
            duration
        );
        if let Some(m) = &motion {
            total_ms += m.duration_ms();
            if m.name != e.name {
                let _ = writeln!(t, "        (motion's own name: {})", shown(&m.name));
            }
        }
        entries.push(json!({
            "type": e.kind_str(),
            "name": e.name,
            "bytes": e.data.len(),
            "motion": motion.as_ref().map(|m| json!({
                "name": m.name,
                "design_label": m.design_label,
                "joints": m.locators.len(),
                "keyframes": m.keyframes.len(),
                "duration_s": m.duration_ms() as f64 / 1000.0,
            })),
        }));
    }
    let summary = json!({
        "file": path.display().to_string(),
        "format": "oda",
        "entries": entries,
        "duration_s": total_ms as f64 / 1000.0,
        "warnings": warnings,
    });
    (summary, t)
}

fn source_info(path: &Path, clip: &Clip) -> (Value, String) {
    let joints = &clip.skeleton.joints;
    let joint_list: Vec<Value> = joints
        .iter()
        .map(|j| {
            json!({
                "name": j.name,
                "parent": j.parent.and_then(|p| joints.get(p)).map(|p| p.name.clone()),
            })
        })
        .collect();
    let fps = 1.0 / clip.frame_time;
    let signals: Vec<&str> = clip.signals.iter().map(|s| s.name.as_str()).collect();
    let t_pose = calibration::t_pose_of(clip);
    let summary = json!({
        "file": path.display().to_string(),
        "format": clip.format.name(),
        "joints": joints.len(),
        "joint_list": joint_list,
        "frames": clip.frames,
        "frame_time_s": clip.frame_time,
        "fps": fps,
        "duration_s": clip.duration(),
        "signals": signals,
        "t_pose_frames": {"start": t_pose.lead, "end": t_pose.trail},
        "warnings": clip.warnings,
        "notes": clip.notes,
    });

    let kind = match clip.format {
        Format::Bvh => "BVH motion capture",
        Format::AsfAmc => "Acclaim ASF/AMC motion capture",
        Format::Mrtk => "MRTK input animation recording",
    };
    let mut t = String::new();
    let _ = writeln!(t, "{}: {kind}", path.display());
    let _ = writeln!(t, "  joints        {}", joints.len());
    let _ = writeln!(t, "  frames        {}", clip.frames);
    let _ = writeln!(t, "  frame time    {:.6} s ({fps:.2} fps)", clip.frame_time);
    let _ = writeln!(t, "  duration      {:.3} s", clip.duration());
    for (frames, at) in [(t_pose.lead, "first"), (t_pose.trail, "last")] {
        if frames > 0 {
            let _ = writeln!(
                t,
                "  T-pose        the {at} {} ({:.3} s): the capture's calibration, which \
                 `build` leaves out (`--keep-tpose` plays it)",
                match frames {
                    1 => "frame".to_string(),
                    n => format!("{n} frames"),
                },
                frames as f64 * clip.frame_time
            );
        }
    }
    for note in &clip.notes {
        let _ = writeln!(t, "  note          {note}");
    }
    if !clip.signals.is_empty() {
        let _ = writeln!(t, "  signals       {}", signals.join(", "));
    }
    if !clip.warnings.is_empty() {
        let _ = writeln!(t, "  warnings      {}", clip.warnings.len());
    }
    let _ = writeln!(t, "  skeleton");
    let mut depth = vec![0usize; joints.len()];
    for (i, j) in joints.iter().enumerate() {
        depth[i] = j.parent.filter(|&p| p < i).map_or(0, |p| depth[p] + 1);
        let _ = writeln!(t, "    {}{}", "  ".repeat(depth[i].min(30)), shown(&j.name));
    }
    (summary, t)
}
