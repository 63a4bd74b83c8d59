//! Acclaim AMC motions, on the skeleton of their ASF file.
//!
//! An AMC names its skeleton only loosely, so the skeleton is found in this order:
//! `--asf FILE`, the `#!OML:ASF <path>` line (as written, then its file name beside the
//! AMC), then a same-named `.asf` beside the AMC. AMC stores no frame rate: `--fps`,
//! 120 by default (CMU's capture rate); the clip's notes say which were used.

use super::asf::{self, euler, Asf, Dof};
use super::text::{first_keyword, parse_numbers, strip_bom, Lines, TextError};
use super::{Clip, Format, ReadError, ReadOptions};
use crate::fsio;
use glam::{DQuat, DVec3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// CMU captured at 120 Hz; AMC files do not say.
pub const DEFAULT_FPS: f64 = 120.0;

/// Whether ASF/AMC text is a skeleton (ASF) rather than a motion (AMC).
pub fn is_asf(data: &[u8]) -> bool {
    let Some(k) = first_keyword(data) else {
        return false;
    };
    let k = k.to_ascii_lowercase();
    [
        ":version",
        ":name",
        ":units",
        ":documentation",
        ":root",
        ":bonedata",
        ":hierarchy",
    ]
    .contains(&k.as_str())
}

/// Reads an ASF (a skeleton with no frames) or an AMC with its ASF.
pub fn read_with_skeleton(
    path: &Path,
    data: &[u8],
    options: &ReadOptions,
) -> Result<Clip, ReadError> {
    let text_err = |p: &Path| {
        let name = p.display().to_string();
        move |error| ReadError::Text { path: name, error }
    };
    if is_asf(data) {
        let skeleton = asf::read(data).map_err(text_err(path))?;
        let mut clip = read(&skeleton, &[], DEFAULT_FPS).map_err(text_err(path))?;
        clip.notes
            .push("an ASF skeleton alone: no frames (give the AMC to read a motion)".into());
        return Ok(clip);
    }
    let (asf_path, how) = find_asf(path, data, options)?;
    let asf_data = fsio::read_input(&asf_path)?;
    let skeleton = asf::read(&asf_data).map_err(text_err(&asf_path))?;
    let fps = options.fps.unwrap_or(DEFAULT_FPS);
    let mut clip = read(&skeleton, data, fps).map_err(text_err(path))?;
    clip.notes
        .insert(0, format!("skeleton from {} ({how})", asf_path.display()));
    if options.fps.is_none() {
        clip.notes.push(format!(
            "{DEFAULT_FPS} frames per second assumed: AMC files do not store a rate (set it with --fps)"
        ));
    }
    Ok(clip)
}

fn find_asf(
    path: &Path,
    data: &[u8],
    options: &ReadOptions,
) -> Result<(PathBuf, &'static str), ReadError> {
    if let Some(asf) = &options.asf {
        return Ok((asf.clone(), "--asf"));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tried = Vec::new();
    if let Some(named) = oml_asf_path(data) {
        let as_written = dir.join(&named);
        // Exporters wrote their own machine's path (often Windows): try its file name too.
        let file_name = named
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&named)
            .to_string();
        for candidate in [as_written, dir.join(file_name)] {
            if candidate.is_file() {
                return Ok((candidate, "named by its #!OML:ASF line"));
            }
            tried.push(candidate);
        }
    }
    let beside = path.with_extension("asf");
    if beside.is_file() {
        return Ok((beside, "same name beside the AMC"));
    }
    tried.push(beside);
    let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(ReadError::Other(format!(
        "{}: an AMC motion needs its ASF skeleton; none found (tried {}); name it with --asf FILE",
        path.display(),
        tried.join(", ")
    )))
}

/// The path on a `#!OML:ASF <path>` line, if the file has one before its data.
fn oml_asf_path(data: &[u8]) -> Option<String> {
    let mut lines = Lines::new(strip_bom(data));
    while let Some((_, line)) = lines.next_line() {
        let line = line.trim_ascii();
        if let Some(rest) = line.strip_prefix(b"#!OML:ASF") {
            return Some(String::from_utf8_lossy(rest.trim_ascii()).into_owned());
        }
        if !(line.is_empty() || line[0] == b'#' || line[0] == b':') {
            return None;
        }
    }
    None
}

/// Reads AMC text on `asf`'s skeleton at `fps` frames per second.
pub fn read(asf: &Asf, data: &[u8], fps: f64) -> Result<Clip, TextError> {
    let joints = asf.skeleton.joints.len();
    let mut warnings = asf.warnings.clone();
    let mut radians = asf.radians;
    let by_name: HashMap<Vec<u8>, usize> = asf
        .skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.name.to_ascii_lowercase().into_bytes(), i))
        .collect();
    let dof_count: Vec<usize> = asf.bones.iter().map(|b| b.dof.len()).collect();
    let animated = dof_count.iter().filter(|&&n| n > 0).count();

    let mut state = FrameState {
        values: asf.bones.iter().map(|b| vec![0.0; b.dof.len()]).collect(),
        seen: vec![false; joints],
    };
    let mut translations: Vec<DVec3> = Vec::new();
    let mut rotations: Vec<DQuat> = Vec::new();
    // Each frame line holds a name and at least one number: a bound on plausible frames.
    let plausible = data.len() / (4 * animated.max(1)) + 1;
    translations.reserve(plausible.min(1 << 16) * joints);
    rotations.reserve(plausible.min(1 << 16) * joints);

    let mut frames = 0usize;
    let mut current: Option<(u64, usize)> = None; // frame number and its line
    let mut previous_number: Option<u64> = None;
    let mut incomplete_warned = false;
    let mut lines = Lines::new(strip_bom(data));
    let mut number_buffer: Vec<f64> = Vec::with_capacity(8);
    while let Some((line_no, line)) = lines.next_line() {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed[0] == b'#' {
            continue;
        }
        if trimmed[0] == b':' {
            let k = trimmed.to_ascii_lowercase();
            if k.starts_with(b":radians") {
                radians = true;
            } else if k.starts_with(b":degrees") {
                radians = false;
            }
            continue;
        }
        let name_end = trimmed
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(trimmed.len());
        let name = &trimmed[..name_end];
        if name_end == trimmed.len() && name.iter().all(u8::is_ascii_digit) {
            // A frame number starts a frame; finish the one before.
            if current.is_some() {
                state.finish(asf, radians, &mut translations, &mut rotations);
                incomplete_warned |=
                    warn_missing(&state, asf, frames, &mut warnings, incomplete_warned);
                frames += 1;
            }
            let n: u64 = std::str::from_utf8(name)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            if let Some(p) = previous_number {
                if n != p + 1 {
                    warnings.push(format!(
                        "line {line_no}: frame {n} follows frame {p}; frames are read in file order"
                    ));
                }
            }
            previous_number = Some(n);
            current = Some((n, line_no));
            state.seen.iter_mut().for_each(|s| *s = false);
            continue;
        }
        if current.is_none() {
            return Err(TextError::new(
                line_no,
                1,
                format!(
                    "expected a frame number before bone data, found {:?}",
                    String::from_utf8_lossy(name)
                ),
            ));
        }
        let lookup = if name.iter().any(u8::is_ascii_uppercase) {
            by_name.get(&name.to_ascii_lowercase())
        } else {
            by_name.get(name)
        };
        let Some(&bone) = lookup else {
            return Err(TextError::new(
                line_no,
                1,
                format!(
                    "{:?} is not a bone of the ASF skeleton",
                    String::from_utf8_lossy(name)
                ),
            ));
        };
        number_buffer.clear();
        let offset = line.len() - line.trim_ascii_start().len();
        parse_numbers(
            &trimmed[name_end..],
            line_no,
            offset + name_end,
            &mut number_buffer,
        )?;
        if number_buffer.len() != dof_count[bone] {
            return Err(TextError::new(
                line_no,
                1,
                format!(
                    "{} has {} values here, but its dof line in the ASF declares {}",
                    asf.skeleton.joints[bone].name,
                    number_buffer.len(),
                    dof_count[bone]
                ),
            ));
        }
        state.values[bone].copy_from_slice(&number_buffer);
        state.seen[bone] = true;
    }
    if current.is_some() {
        state.finish(asf, radians, &mut translations, &mut rotations);
        warn_missing(&state, asf, frames, &mut warnings, incomplete_warned);
        frames += 1;
    }
    Ok(Clip {
        format: Format::AsfAmc,
        skeleton: asf.skeleton.clone(),
        frame_time: 1.0 / fps,
        frames,
        translations,
        rotations,
        signals: Vec::new(),
        warnings,
        notes: Vec::new(),
    })
}

/// Says once that a frame lacked some bones (they hold their previous values).
fn warn_missing(
    state: &FrameState,
    asf: &Asf,
    frame: usize,
    warnings: &mut Vec<String>,
    already: bool,
) -> bool {
    if already {
        return true;
    }
    let missing: Vec<&str> = asf
        .bones
        .iter()
        .enumerate()
        .filter(|(i, b)| !b.dof.is_empty() && !state.seen[*i])
        .map(|(i, _)| asf.skeleton.joints[i].name.as_str())
        .collect();
    if missing.is_empty() {
        return false;
    }
    warnings.push(format!(
        "frame {} lacks {}; they hold their previous values (said once)",
        frame + 1,
        missing.join(", ")
    ));
    true
}

/// The values of the frame being read, per bone in dof order.
struct FrameState {
    values: Vec<Vec<f64>>,
    seen: Vec<bool>,
}

impl FrameState {
    /// Turns the frame's values into every joint's translation and rotation.
    fn finish(
        &self,
        asf: &Asf,
        radians: bool,
        translations: &mut Vec<DVec3>,
        rotations: &mut Vec<DQuat>,
    ) {
        let angle = |v: f64| if radians { v } else { v.to_radians() };
        let joints = &asf.skeleton.joints;
        // A bone's `l` stretches it, which moves its children.
        let base = translations.len();
        for (i, (joint, bone)) in joints.iter().zip(&asf.bones).enumerate() {
            let values = &self.values[i];
            let mut t = joint.offset;
            if i == 0 {
                t = asf.root_position;
            }
            for (dof, &v) in bone.dof.iter().zip(values) {
                if let Dof::Translate(a) = *dof {
                    t[a] += v * asf.length_unit;
                }
            }
            let m = euler(
                bone.dof
                    .iter()
                    .zip(values)
                    .filter_map(|(dof, &v)| match *dof {
                        Dof::Rotate(a) => Some((a, angle(v))),
                        _ => None,
                    }),
            );
            translations.push(t);
            rotations.push(bone.axis * m * bone.axis.inverse());
        }
        for (i, joint) in joints.iter().enumerate() {
            let Some(p) = joint.parent else { continue };
            let stretch: f64 = asf.bones[p]
                .dof
                .iter()
                .zip(&self.values[p])
                .filter(|(d, _)| **d == Dof::Length)
                .map(|(_, v)| v * asf.length_unit)
                .sum();
            if stretch != 0.0 {
                translations[base + i] += asf.bones[p].direction * stretch;
            }
        }
    }
}
