//! Acclaim AMC motions, on the skeleton of their ASF file (which `asf_lookup.rs`
//! finds). AMC stores no frame rate: the caller gives one, 120 by default (CMU's
//! capture rate).

use super::asf::{Asf, Dof};
use super::text::{
    cores, excerpt, first_keyword, in_line_pieces, parse_numbers, strip_bom, Lines, Split,
    TextError,
};
use super::{concat, moving_columns, Clip, Format};
use crate::units::axis_rotation;
use glam::{DQuat, DVec3};
use std::collections::HashMap;

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

/// Reads AMC text on `asf`'s skeleton at `fps` frames per second.
pub fn read(asf: &Asf, data: &[u8], fps: f64) -> Result<Clip, TextError> {
    // The rate comes from the caller; its bounds hold before any frame is read.
    if let Some(e) = super::frame_time_error(1.0 / fps) {
        return Err(TextError::new(
            1,
            1,
            format!("at {fps} frames per second, {e}"),
        ));
    }
    let data = strip_bom(data);
    let ctx = Context::new(asf);
    let (start, first_line, radians) = read_header(data, asf.radians);
    let is_frame_line = |line: &[u8]| frame_number(line.trim_ascii()).is_some();
    let read_piece = |piece: &[u8]| read_frames(&ctx, piece, radians);
    let split = Split {
        pieces: cores(),
        boundary: is_frame_line,
    };
    let mut pieces = in_line_pieces(data, start, first_line, split, read_piece)?;
    // A bone missing from a piece's first frame should hold the previous piece's value,
    // which that piece could not see: read the whole motion in one piece then.
    if pieces.iter().skip(1).any(|p| !p.first_frame_complete) {
        let split = Split {
            pieces: 1,
            boundary: is_frame_line,
        };
        pieces = in_line_pieces(data, start, first_line, split, read_piece)?;
    }

    let mut warnings = asf.warnings.clone();
    let mut frames = 0;
    let mut previous_number: Option<u64> = None;
    let mut missing_warned = false;
    let mut translations = Vec::with_capacity(pieces.len());
    let mut rotations = Vec::with_capacity(pieces.len());
    for piece in pieces {
        if let (Some(p), Some(n)) = (previous_number, piece.first_number) {
            if n != p + 1 {
                warnings.push(format!(
                    "frame {n} follows frame {p}; frames are read in file order"
                ));
            }
        }
        previous_number = piece.last_number.or(previous_number);
        for w in piece.warnings {
            let is_missing = w.contains(" lacks ");
            if !(is_missing && missing_warned) {
                warnings.push(w);
            }
            missing_warned |= is_missing;
        }
        frames += piece.frames;
        translations.push(piece.translations);
        rotations.push(piece.rotations);
    }
    if let Some(e) = super::time_bounds_error(1.0 / fps, frames) {
        return Err(TextError::new(1, 1, e));
    }
    let (translations, rotations) = (concat(translations), concat(rotations));
    Ok(Clip {
        format: Format::AsfAmc,
        skeleton: asf.skeleton.clone(),
        frame_time: 1.0 / fps,
        frames,
        moving: ctx.moving,
        translations,
        rotations,
        signals: Vec::new(),
        warnings,
        notes: Vec::new(),
    })
}

/// What every piece of an AMC needs to know of the skeleton.
struct Context<'a> {
    asf: &'a Asf,
    by_name: HashMap<Vec<u8>, usize>,
    moving: Vec<Option<usize>>,
    columns: usize,
}

impl<'a> Context<'a> {
    fn new(asf: &'a Asf) -> Self {
        let joints = &asf.skeleton.joints;
        let by_name = joints
            .iter()
            .enumerate()
            .map(|(i, j)| (j.name.to_ascii_lowercase().into_bytes(), i))
            .collect();
        // The root, bones with translation dofs, and children of stretching bones move.
        let moving = moving_columns(joints.iter().zip(&asf.bones).enumerate().map(
            |(i, (joint, bone))| {
                let stretched_parent = joint
                    .parent
                    .is_some_and(|p| asf.bones[p].dof.contains(&Dof::Length));
                i == 0
                    || stretched_parent
                    || bone.dof.iter().any(|d| matches!(d, Dof::Translate(_)))
            },
        ));
        let columns = moving.iter().flatten().count();
        Context {
            asf,
            by_name,
            moving,
            columns,
        }
    }

    /// The bone a line names. Bones come in the same order on every frame, so the
    /// bone that held this place on the previous frame is tried before the table.
    fn bone(&self, name: &[u8], guess: Option<usize>) -> Option<usize> {
        if let Some(g) = guess {
            if self.asf.skeleton.joints[g]
                .name
                .as_bytes()
                .eq_ignore_ascii_case(name)
            {
                return Some(g);
            }
        }
        if name.iter().any(u8::is_ascii_uppercase) {
            self.by_name.get(&name.to_ascii_lowercase()).copied()
        } else {
            self.by_name.get(name).copied()
        }
    }
}

/// A frame number line: digits alone.
fn frame_number(trimmed: &[u8]) -> Option<u64> {
    if trimmed.is_empty() || !trimmed.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(trimmed).ok()?.parse().ok()
}

/// Comments, `#!OML:ASF` and `:keywords` before the first frame: where the frames start
/// (byte and line) and whether angles are in radians.
fn read_header(data: &[u8], mut radians: bool) -> (usize, usize, bool) {
    let mut lines = Lines::new(data);
    let mut start = 0;
    while let Some((number, line)) = lines.next_line() {
        let trimmed = line.trim_ascii();
        if trimmed.first() == Some(&b':') {
            let k = trimmed.to_ascii_lowercase();
            if k.starts_with(b":radians") {
                radians = true;
            } else if k.starts_with(b":degrees") {
                radians = false;
            }
        } else if !(trimmed.is_empty() || trimmed[0] == b'#') {
            return (start, number, radians);
        }
        start = lines.position();
    }
    (data.len(), 1, radians)
}

/// The frames of one piece of an AMC's body.
struct Piece {
    frames: usize,
    translations: Vec<DVec3>,
    rotations: Vec<DQuat>,
    first_number: Option<u64>,
    last_number: Option<u64>,
    /// Whether the first frame names every bone that has dofs.
    first_frame_complete: bool,
    warnings: Vec<String>,
}

fn read_frames(ctx: &Context, data: &[u8], radians: bool) -> Result<Piece, TextError> {
    let asf = ctx.asf;
    let joints = asf.skeleton.joints.len();
    let mut state = FrameState {
        values: asf.bones.iter().map(|b| vec![0.0; b.dof.len()]).collect(),
        seen: vec![false; joints],
    };
    let animated = asf.bones.iter().filter(|b| !b.dof.is_empty()).count();
    // Each bone line holds a name and at least one number: a bound on plausible frames.
    let plausible = (data.len() / (4 * animated.max(1)) + 1).min(1 << 20);
    let mut piece = Piece {
        frames: 0,
        translations: Vec::with_capacity(plausible * ctx.columns),
        rotations: Vec::with_capacity(plausible * joints),
        first_number: None,
        last_number: None,
        first_frame_complete: true,
        warnings: Vec::new(),
    };
    let mut order: Vec<usize> = Vec::with_capacity(joints);
    let mut previous_order: Vec<usize> = Vec::new();
    let mut numbers: Vec<f64> = Vec::with_capacity(8);
    let mut lines = Lines::new(data);
    while let Some((line_no, line)) = lines.next_line() {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() || trimmed[0] == b'#' || trimmed[0] == b':' {
            continue;
        }
        if let Some(n) = frame_number(trimmed) {
            // A frame number starts a frame; finish the one before.
            if let Some(current) = piece.last_number {
                end_frame(ctx, &state, radians, current, &mut piece);
            }
            if let Some(p) = piece.last_number {
                if n != p + 1 {
                    piece.warnings.push(format!(
                        "frame {n} follows frame {p}; frames are read in file order"
                    ));
                }
            }
            if piece.first_number.is_none() {
                piece.first_number = Some(n);
            }
            piece.last_number = Some(n);
            state.seen.iter_mut().for_each(|s| *s = false);
            previous_order = std::mem::take(&mut order);
            continue;
        }
        if piece.last_number.is_none() {
            return Err(TextError::new(
                line_no,
                1,
                format!(
                    "expected a frame number before bone data, found {:?}",
                    excerpt(trimmed)
                ),
            ));
        }
        let name_end = trimmed
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(trimmed.len());
        let name = &trimmed[..name_end];
        let Some(bone) = ctx.bone(name, previous_order.get(order.len()).copied()) else {
            return Err(TextError::new(
                line_no,
                1,
                format!("{:?} is not a bone of the ASF skeleton", excerpt(name)),
            ));
        };
        order.push(bone);
        numbers.clear();
        let indent = line.len() - line.trim_ascii_start().len();
        parse_numbers(
            &trimmed[name_end..],
            line_no,
            indent + name_end,
            &mut numbers,
        )?;
        let expected = asf.bones[bone].dof.len();
        if numbers.len() != expected {
            return Err(TextError::new(
                line_no,
                1,
                format!(
                    "{} has {} values here, but its dof line in the ASF declares {expected}",
                    asf.skeleton.joints[bone].name,
                    numbers.len(),
                ),
            ));
        }
        state.values[bone].copy_from_slice(&numbers);
        state.seen[bone] = true;
    }
    if let Some(current) = piece.last_number {
        end_frame(ctx, &state, radians, current, &mut piece);
    }
    Ok(piece)
}

/// Poses a finished frame, noting bones it lacked (they hold their previous values).
fn end_frame(ctx: &Context, state: &FrameState, radians: bool, number: u64, piece: &mut Piece) {
    let asf = ctx.asf;
    let missing: Vec<&str> = asf
        .bones
        .iter()
        .enumerate()
        .filter(|(i, b)| !b.dof.is_empty() && !state.seen[*i])
        .map(|(i, _)| asf.skeleton.joints[i].name.as_str())
        .collect();
    if !missing.is_empty() {
        if piece.frames == 0 {
            piece.first_frame_complete = false;
        }
        if !piece.warnings.iter().any(|w| w.contains(" lacks ")) {
            piece.warnings.push(format!(
                "frame {number} lacks {}; they hold their previous values (said once)",
                missing.join(", ")
            ));
        }
    }
    state.finish(
        asf,
        radians,
        &ctx.moving,
        &mut piece.translations,
        &mut piece.rotations,
    );
    piece.frames += 1;
}

/// The values of the frame being read, per bone in dof order.
struct FrameState {
    values: Vec<Vec<f64>>,
    seen: Vec<bool>,
}

impl FrameState {
    /// Turns the frame's values into every joint's rotation and the moving joints'
    /// translations (the root, bones with translation dofs, children of stretching bones).
    fn finish(
        &self,
        asf: &Asf,
        radians: bool,
        moving: &[Option<usize>],
        translations: &mut Vec<DVec3>,
        rotations: &mut Vec<DQuat>,
    ) {
        let joints = &asf.skeleton.joints;
        for (i, (joint, bone)) in joints.iter().zip(&asf.bones).enumerate() {
            let values = &self.values[i];
            if moving[i].is_some() {
                let mut shift = DVec3::ZERO;
                for (dof, &v) in bone.dof.iter().zip(values) {
                    if let Dof::Translate(a) = *dof {
                        shift[a] += v * asf.length_unit;
                    }
                }
                // The root moves in world axes; a bone along its own axis frame.
                let mut t = if i == 0 {
                    asf.root_position + shift
                } else {
                    joint.offset + bone.axis * shift
                };
                if let Some(p) = joint.parent {
                    // A parent's `l` stretches it, which moves this joint along it.
                    for (dof, &v) in asf.bones[p].dof.iter().zip(&self.values[p]) {
                        if *dof == Dof::Length {
                            t += asf.bones[p].direction * (v * asf.length_unit);
                        }
                    }
                }
                translations.push(t);
            }
            // M in dof order (the first listed acts first), then moved into world axes.
            let mut m = DQuat::IDENTITY;
            for (dof, &v) in bone.dof.iter().zip(values) {
                if let Dof::Rotate(a) = *dof {
                    if v != 0.0 {
                        m = axis_rotation(a, if radians { v } else { v.to_radians() }) * m;
                    }
                }
            }
            rotations.push(bone.axis * m * bone.axis.inverse());
        }
    }
}
