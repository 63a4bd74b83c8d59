//! Biovision BVH, with everything real exporters write:
//! several ROOTs, any channel count and order per joint, leaves without End Site,
//! lower-case keywords, one-line End Site blocks, a byte-order mark, any line ends,
//! `Frames:` that disagrees with the data, joint names with `:`.
//!
//! Rotation channels compose as intrinsic rotations in the order listed
//! (`Zrotation Xrotation Yrotation` = Rz·Rx·Ry). Position channels give the joint's
//! local position outright, in place of its OFFSET (as exporters write them and as
//! Blender reads them: Bandai Namco's `Spine` channels repeat its OFFSET).

use super::text::{
    excerpt, in_line_pieces, parse_number, parse_numbers, strip_bom, Lines, Split, Syntax,
    TextError, Token, Tokens,
};
use super::{concat, moving_columns, CaptureJoint, CaptureSkeleton, Clip, Format};
use crate::units::axis_rotation;
use glam::{DQuat, DVec3};

const SYNTAX: Syntax = Syntax {
    single: b"{}",
    extra_space: b"",
    comments: false,
};

/// More channels than this on one joint is not a BVH file (3 position, 3 rotation, and
/// the 3 scale channels some exporters add).
const MAX_CHANNELS: usize = 9;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    Position(usize),
    Rotation(usize),
    /// Read and ignored: a rigid skeleton does not scale.
    Scale,
}

/// Reads a BVH file.
pub fn read(data: &[u8]) -> Result<Clip, TextError> {
    let data = strip_bom(data);
    let mut warnings = Vec::new();
    let mut tokens = Tokens::new(data, SYNTAX);
    let (joints, channels) = read_hierarchy(&mut tokens, &mut warnings)?;

    // MOTION header. The time bounds hold before any frame is read.
    let declared = read_frames_line(&mut tokens)?;
    let (frame_time, at) = read_frame_time(&mut tokens)?;
    if let Some(e) = super::frame_time_error(frame_time) {
        return Err(at.error(e));
    }
    tokens.skip_line();

    let skeleton = CaptureSkeleton { joints };
    let layout = Layout::new(&skeleton, &channels);
    let (pos, line) = tokens.position();
    let frames = read_motion(data, pos, line, &skeleton, &layout)?;

    if let Some(e) = super::time_bounds_error(frame_time, frames.count) {
        return Err(at.error(e));
    }
    if frames.count != declared {
        warnings.push(format!(
            "the header says Frames: {declared}, but {} frame lines follow; read the {} present",
            frames.count, frames.count
        ));
    }
    if layout.has_scale {
        warnings.push("scale channels are ignored".to_string());
    }
    Ok(Clip {
        format: Format::Bvh,
        skeleton,
        frame_time,
        frames: frames.count,
        moving: frames.moving,
        translations: frames.translations,
        rotations: frames.rotations,
        signals: Vec::new(),
        warnings,
        notes: Vec::new(),
    })
}

fn expect_token<'a>(tokens: &mut Tokens<'a>, what: &str) -> Result<Token<'a>, TextError> {
    tokens.next_token().ok_or_else(|| {
        let (line, column) = tokens.here();
        TextError::new(
            line,
            column,
            format!("the file ends where {what} should be"),
        )
    })
}

fn read_vec3(tokens: &mut Tokens) -> Result<DVec3, TextError> {
    let mut v = [0.0; 3];
    for (i, c) in v.iter_mut().enumerate() {
        *c = expect_token(tokens, "an OFFSET value")?.number(&format!("OFFSET value {}", i + 1))?;
    }
    Ok(DVec3::from_array(v))
}

/// The joint tree (iteratively: a hostile file may nest deeper than any stack) and
/// each joint's channels, in data order.
fn read_hierarchy(
    tokens: &mut Tokens,
    warnings: &mut Vec<String>,
) -> Result<(Vec<CaptureJoint>, Vec<Vec<Channel>>), TextError> {
    let first = expect_token(tokens, "HIERARCHY")?;
    if !first.is("HIERARCHY") {
        return Err(first.error(format!("expected HIERARCHY, found {:?}", first.lossy())));
    }
    let mut joints: Vec<CaptureJoint> = Vec::new();
    let mut channels: Vec<Vec<Channel>> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    loop {
        let t = expect_token(tokens, "a joint or MOTION")?;
        if t.is("ROOT") || t.is("JOINT") {
            if t.is("ROOT") != open.is_empty() {
                let msg = if open.is_empty() {
                    "JOINT outside any ROOT"
                } else {
                    "ROOT inside another joint"
                };
                return Err(t.error(msg));
            }
            let name = read_name(tokens, &t)?;
            joints.push(CaptureJoint {
                name,
                parent: open.last().copied(),
                offset: DVec3::ZERO,
                end: None,
                axis: DQuat::IDENTITY,
            });
            channels.push(Vec::new());
            open.push(joints.len() - 1);
        } else if t.is("OFFSET") {
            let &j = open
                .last()
                .ok_or_else(|| t.error("OFFSET outside a joint"))?;
            joints[j].offset = read_vec3(tokens)?;
        } else if t.is("CHANNELS") {
            let &j = open
                .last()
                .ok_or_else(|| t.error("CHANNELS outside a joint"))?;
            channels[j] = read_channels(tokens)?;
        } else if t.is("End") {
            let &j = open
                .last()
                .ok_or_else(|| t.error("End Site outside a joint"))?;
            read_name(tokens, &t)?; // "Site", and whatever name an exporter put after it
            let o = expect_token(tokens, "OFFSET")?;
            let end = if o.is("OFFSET") {
                let v = read_vec3(tokens)?;
                let close = expect_token(tokens, "}")?;
                if close.text != b"}" {
                    return Err(close.error(format!(
                        "expected }} to close the End Site, found {:?}",
                        close.lossy()
                    )));
                }
                v
            } else if o.text == b"}" {
                DVec3::ZERO
            } else {
                return Err(o.error(format!(
                    "expected OFFSET in End Site, found {:?}",
                    o.lossy()
                )));
            };
            joints[j].end = Some(end);
        } else if t.text == b"}" {
            if open.pop().is_none() {
                return Err(t.error("} without an open joint"));
            }
        } else if t.is("MOTION") {
            if let Some(&j) = open.last() {
                return Err(t.error(format!(
                    "MOTION while joint {:?} is still open (a }} is missing)",
                    joints[j].name
                )));
            }
            break;
        } else {
            return Err(t.error(format!(
                "expected ROOT, JOINT, OFFSET, CHANNELS, End Site, }} or MOTION, found {:?}",
                t.lossy()
            )));
        }
    }
    if joints.is_empty() {
        warnings.push("the hierarchy has no joints".to_string());
    }
    Ok((joints, channels))
}

/// The words after ROOT, JOINT or End, up to the `{` (a name may contain spaces).
fn read_name(tokens: &mut Tokens, keyword: &Token) -> Result<String, TextError> {
    let mut words = Vec::new();
    loop {
        let t = expect_token(tokens, "{")?;
        if t.text == b"{" {
            break;
        }
        if t.text == b"}" {
            return Err(t.error(format!("expected {{ after {}", keyword.lossy())));
        }
        words.push(t.lossy());
    }
    if words.is_empty() && !keyword.is("End") {
        return Err(keyword.error(format!("{} without a name", keyword.lossy())));
    }
    Ok(words.join(" "))
}

fn read_channels(tokens: &mut Tokens) -> Result<Vec<Channel>, TextError> {
    let count_token = expect_token(tokens, "a channel count")?;
    let count = std::str::from_utf8(count_token.text)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n <= MAX_CHANNELS)
        .ok_or_else(|| {
            count_token.error(format!(
                "expected a channel count from 0 to {MAX_CHANNELS}, found {:?}",
                count_token.lossy()
            ))
        })?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let t = expect_token(tokens, "a channel name")?;
        let name = t.text.to_ascii_lowercase();
        let axis = match name.first() {
            Some(b'x') => 0,
            Some(b'y') => 1,
            Some(b'z') => 2,
            _ => usize::MAX,
        };
        let channel = match &name.get(1..) {
            Some(b"position") if axis < 3 => Channel::Position(axis),
            Some(b"rotation") if axis < 3 => Channel::Rotation(axis),
            Some(b"scale") if axis < 3 => Channel::Scale,
            _ => {
                return Err(t.error(format!(
                    "expected a channel name (Xposition … Zrotation), found {:?}",
                    t.lossy()
                )))
            }
        };
        out.push(channel);
    }
    Ok(out)
}

fn read_frames_line(tokens: &mut Tokens) -> Result<usize, TextError> {
    let t = expect_token(tokens, "Frames:")?;
    let lower = t.text.to_ascii_lowercase();
    let rest = lower
        .strip_prefix(b"frames:")
        .ok_or_else(|| t.error(format!("expected Frames:, found {:?}", t.lossy())))?;
    let (text, at) = if rest.is_empty() {
        let n = expect_token(tokens, "the number of frames")?;
        (n.text.to_vec(), n)
    } else {
        (rest.to_vec(), t)
    };
    std::str::from_utf8(&text)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .ok_or_else(|| {
            at.error(format!(
                "expected a whole number of frames, found {:?}",
                excerpt(&text)
            ))
        })
}

/// The frame time and where it stands.
fn read_frame_time<'a>(tokens: &mut Tokens<'a>) -> Result<(f64, Token<'a>), TextError> {
    let t = expect_token(tokens, "Frame Time:")?;
    if !t.is("Frame") {
        return Err(t.error(format!("expected Frame Time:, found {:?}", t.lossy())));
    }
    let t = expect_token(tokens, "Time:")?;
    let lower = t.text.to_ascii_lowercase();
    let rest = lower
        .strip_prefix(b"time:")
        .ok_or_else(|| t.error(format!("expected Time:, found {:?}", t.lossy())))?;
    let (value, at) = if rest.is_empty() {
        let v = expect_token(tokens, "the frame time")?;
        (parse_number(v.text), v)
    } else {
        (parse_number(rest), t)
    };
    match value {
        Some(v) if v.is_finite() && v > 0.0 => Ok((v, at)),
        _ => Err(at.error("expected a frame time in seconds, above 0")),
    }
}

/// Where each joint's values sit on a motion line.
struct Layout {
    /// Per joint: its channels, in line order.
    joints: Vec<Vec<Channel>>,
    total: usize,
    has_scale: bool,
}

impl Layout {
    fn new(skeleton: &CaptureSkeleton, channels: &[Vec<Channel>]) -> Layout {
        debug_assert_eq!(skeleton.joints.len(), channels.len());
        Layout {
            joints: channels.to_vec(),
            total: channels.iter().map(Vec::len).sum(),
            has_scale: channels.iter().flatten().any(|c| *c == Channel::Scale),
        }
    }
}

struct Frames {
    count: usize,
    moving: Vec<Option<usize>>,
    translations: Vec<DVec3>,
    rotations: Vec<DQuat>,
}

fn read_motion(
    data: &[u8],
    pos: usize,
    line: usize,
    skeleton: &CaptureSkeleton,
    layout: &Layout,
) -> Result<Frames, TextError> {
    let joints = skeleton.joints.len();
    let moving = moving_columns(
        layout
            .joints
            .iter()
            .map(|c| c.iter().any(|c| matches!(c, Channel::Position(_)))),
    );
    let columns = moving.iter().flatten().count();
    let mut frames = Frames {
        count: 0,
        moving,
        translations: Vec::new(),
        rotations: Vec::new(),
    };
    if layout.total == 0 || joints == 0 {
        return Ok(frames); // nothing animates: motion lines cannot be told apart
    }
    // Each piece of the motion block (one per core) is parsed and posed on its own.
    let pieces = in_line_pieces(data, pos, line, Split::per_core(), |piece| {
        let mut out = Frames {
            count: 0,
            moving: Vec::new(),
            translations: Vec::new(),
            rotations: Vec::new(),
        };
        // Each frame line holds at least one character per value and separator.
        let plausible = piece.len() / (2 * layout.total) + 1;
        out.rotations.reserve(plausible * joints);
        out.translations.reserve(plausible * columns);
        let mut values = Vec::with_capacity(layout.total);
        let mut lines = Lines::new(piece);
        while let Some((number, text)) = lines.next_line() {
            values.clear();
            parse_numbers(text, number, 0, &mut values)?;
            if values.is_empty() {
                continue; // blank lines, at the end or between frames
            }
            if values.len() != layout.total {
                return Err(TextError::new(
                    number,
                    1,
                    format!(
                        "{} values on this motion line, but the hierarchy declares {} channels",
                        values.len(),
                        layout.total
                    ),
                ));
            }
            pose_line(&values, skeleton, layout, &mut out);
            out.count += 1;
        }
        Ok(out)
    })?;
    frames.count = pieces.iter().map(|p| p.count).sum();
    let (rotations, translations): (Vec<_>, Vec<_>) = pieces
        .into_iter()
        .map(|p| (p.rotations, p.translations))
        .unzip();
    frames.rotations = concat(rotations);
    frames.translations = concat(translations);
    Ok(frames)
}

/// One motion line's values as every joint's local rotation and, where animated, position.
fn pose_line(values: &[f64], skeleton: &CaptureSkeleton, layout: &Layout, out: &mut Frames) {
    let mut v = values.iter();
    for (joint, chans) in skeleton.joints.iter().zip(&layout.joints) {
        let mut translation = joint.offset;
        let mut moved = false;
        let mut rotation = DQuat::IDENTITY;
        for (c, &x) in chans.iter().zip(&mut v) {
            match *c {
                Channel::Position(a) => {
                    translation[a] = x;
                    moved = true;
                }
                // A zero angle is common (fingers, unused axes) and needs no trigonometry.
                Channel::Rotation(a) if x != 0.0 => rotation *= axis_rotation(a, x.to_radians()),
                Channel::Rotation(_) | Channel::Scale => {}
            }
        }
        if moved {
            out.translations.push(translation);
        }
        out.rotations.push(rotation);
    }
}
