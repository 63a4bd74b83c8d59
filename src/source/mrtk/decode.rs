//! The recording's bytes: header, versions 1.0 and 1.1, curves, markers, and the
//! headerless 1.0 body of early recordings.

use super::curve::{Curve, Key, PoseCurves, Wrap};
use super::MAGIC;
use crate::binary::{Cursor, FormatError};

/// A whole recording, as curves.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub version: (i32, i32),
    /// Headerless early recording (a version 1.0 body).
    pub legacy: bool,
    pub camera: Option<PoseCurves>,
    /// Tracked left, tracked right, pinching left, pinching right.
    pub hand_states: Option<[Curve; 4]>,
    pub left: Vec<PoseCurves>,
    pub right: Vec<PoseCurves>,
    /// Origin x, y, z, direction x, y, z.
    pub gaze: Option<[Curve; 6]>,
    pub markers: Vec<(f64, String)>,
}

impl Recording {
    fn all_curves(&self) -> impl Iterator<Item = &Curve> {
        let camera = self.camera.iter().flat_map(PoseCurves::curves);
        let states = self.hand_states.iter().flatten();
        let hands = self
            .left
            .iter()
            .chain(&self.right)
            .flat_map(PoseCurves::curves);
        let gaze = self.gaze.iter().flatten();
        camera.chain(states).chain(hands).chain(gaze)
    }

    /// First and last key time over every curve.
    pub fn time_range(&self) -> Option<(f64, f64)> {
        let times = self
            .all_curves()
            .flat_map(|c| c.keys.iter().map(|k| f64::from(k.time)));
        times.fold(None, |acc, t| match acc {
            None => Some((t, t)),
            Some((lo, hi)) => Some((lo.min(t), hi.max(t))),
        })
    }
}

/// Decodes a recording's curves. A file without the magic is read as a headerless
/// version 1.0 body, which must then account for every byte.
pub fn decode(data: &[u8]) -> Result<Recording, FormatError> {
    let mut c = Cursor::new(data);
    if !data.starts_with(&MAGIC) {
        let mut recording = read_body(&mut c, (1, 0)).map_err(|e| {
            FormatError::new(
                e.offset,
                format!("headerless recording (no MRTK magic): {}", e.context),
                e.expected,
                e.found,
            )
        })?;
        if c.remaining() != 0 {
            return Err(FormatError::new(
                c.pos(),
                "headerless recording (no MRTK magic)",
                "the end of a version 1.0 body",
                format!("{} more bytes", c.remaining()),
            ));
        }
        recording.legacy = true;
        return Ok(recording);
    }
    c.take(8, "magic")?;
    let at = c.pos();
    let major = c.i32("major version")?;
    let minor = c.i32("minor version")?;
    if major != 1 || !(0..=1).contains(&minor) {
        return Err(FormatError::new(
            at,
            "version",
            "1.0 or 1.1 (newer versions are not supported)",
            format!("{major}.{minor}"),
        ));
    }
    let recording = read_body(&mut c, (major, minor))?;
    Ok(recording)
}

fn read_body(c: &mut Cursor, version: (i32, i32)) -> Result<Recording, FormatError> {
    let v11 = version.1 >= 1;
    let (has_camera, has_hands, has_gaze) = if v11 {
        (
            c.u8("has-camera flag")? != 0,
            c.u8("has-hands flag")? != 0,
            c.u8("has-eye-gaze flag")? != 0,
        )
    } else {
        (true, true, false)
    };
    let full = !v11;
    let camera = if has_camera {
        Some(read_pose(c, full)?)
    } else {
        None
    };
    let (hand_states, left, right) = if has_hands {
        let states = [
            read_curve(c, false)?,
            read_curve(c, false)?,
            read_curve(c, false)?,
            read_curve(c, false)?,
        ];
        let mut left = Vec::with_capacity(27);
        for _ in 0..27 {
            left.push(read_pose(c, full)?);
        }
        let mut right = Vec::with_capacity(27);
        for _ in 0..27 {
            right.push(read_pose(c, full)?);
        }
        (Some(states), left, right)
    } else {
        (None, Vec::new(), Vec::new())
    };
    let gaze = if has_gaze {
        let mut curves = Vec::with_capacity(6);
        for _ in 0..6 {
            curves.push(read_curve(c, false)?);
        }
        curves.try_into().ok()
    } else {
        None
    };
    let markers = read_markers(c)?;
    Ok(Recording {
        version,
        legacy: false,
        camera,
        hand_states,
        left,
        right,
        gaze,
        markers,
    })
}

fn read_pose(c: &mut Cursor, full: bool) -> Result<PoseCurves, FormatError> {
    Ok(PoseCurves {
        position: [
            read_curve(c, full)?,
            read_curve(c, full)?,
            read_curve(c, full)?,
        ],
        rotation: [
            read_curve(c, full)?,
            read_curve(c, full)?,
            read_curve(c, full)?,
            read_curve(c, full)?,
        ],
    })
}

fn f32(c: &mut Cursor, what: &str) -> Result<f32, FormatError> {
    Ok(f32::from_bits(c.u32(what)?))
}

/// A count that the bytes left can hold at `size` bytes each.
fn count(c: &mut Cursor, size: usize, what: &str) -> Result<usize, FormatError> {
    let at = c.pos();
    let n = c.i32(what)?;
    match usize::try_from(n) {
        Ok(n) if n.saturating_mul(size) <= c.remaining() => Ok(n),
        _ => Err(FormatError::new(
            at,
            what,
            format!("0 to {} (the bytes left)", c.remaining() / size),
            n.to_string(),
        )),
    }
}

fn read_curve(c: &mut Cursor, full: bool) -> Result<Curve, FormatError> {
    let pre = c.i32("pre-wrap mode")?;
    let post = c.i32("post-wrap mode")?;
    let size = if full { 28 } else { 8 };
    let n = count(c, size, "key count")?;
    let mut keys = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.pos();
        let time = f32(c, "key time")?;
        let value = f32(c, "key value")?;
        if !time.is_finite() {
            return Err(FormatError::new(
                at,
                "key time",
                "a finite number of seconds",
                time.to_string(),
            ));
        }
        let key = if full {
            Key {
                time,
                value,
                in_tangent: f32(c, "in-tangent")?,
                out_tangent: f32(c, "out-tangent")?,
                in_weight: f32(c, "in-weight")?,
                out_weight: f32(c, "out-weight")?,
                weighted_mode: c.i32("weighted mode")?,
            }
        } else {
            Key::linear(time, value)
        };
        keys.push(key);
    }
    if keys.windows(2).any(|w| w[1].time < w[0].time) {
        keys.sort_by(|a, b| a.time.total_cmp(&b.time));
    }
    Ok(Curve {
        pre_wrap: Wrap::from_unity(pre),
        post_wrap: Wrap::from_unity(post),
        keys,
    })
}

fn read_markers(c: &mut Cursor) -> Result<Vec<(f64, String)>, FormatError> {
    let n = count(c, 5, "marker count")?;
    let mut markers = Vec::with_capacity(n);
    for _ in 0..n {
        let time = f64::from(f32(c, "marker time")?);
        let name = read_string(c)?;
        markers.push((time, name));
    }
    Ok(markers)
}

/// .NET `BinaryWriter` string: a 7-bit encoded length, then UTF-8.
fn read_string(c: &mut Cursor) -> Result<String, FormatError> {
    let at = c.pos();
    let mut len: u64 = 0;
    for shift in (0..35).step_by(7) {
        let b = c.u8("string length")?;
        len |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            let bytes = c.take(len, "string")?;
            return Ok(String::from_utf8_lossy(bytes).into_owned());
        }
    }
    Err(FormatError::new(
        at,
        "string length",
        "at most 5 bytes",
        "more",
    ))
}
