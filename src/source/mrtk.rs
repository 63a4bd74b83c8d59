//! MRTK input animation recordings (`.bin`): a HoloLens user's head (camera) pose, both
//! hands' 27 joints, pinch and tracking states, and eye gaze, as curves over time.
//!
//! Layout and evaluation follow `../shared/specs/mrtk-input-animation.md` (MRTK's own
//! serializer, not its documentation): versions 1.0 (full curves) and 1.1 (flags, simple
//! curves, gaze), markers, and the headerless 1.0 body of early recordings, whose times
//! are shifted to start at 0. The clip samples the curves at `fps` (default 60).
//!
//! The clip's joints are `head` (the camera), then `left_<slot>` and `right_<slot>` for
//! the 27 hand joints; its signals are the tracked and pinch states and the eye gaze.
//!
//! Unity's world is left-handed (Y up, metres); the clip is right-handed like every
//! other source, so z is negated (positions) and rotations are mirrored to match.

use super::{CaptureJoint, CaptureSkeleton, Clip, Format, Signal};
use crate::binary::{Cursor, FormatError};
use glam::{DQuat, DVec3};

/// The header's Int64 magic, little-endian.
pub const MAGIC: [u8; 8] = [0xC6, 0x42, 0x9E, 0x0F, 0x6E, 0xAF, 0x8F, 0x6A];
/// Samples per second when the caller gives none: HoloLens hand tracking runs at 60 Hz.
pub const DEFAULT_FPS: f64 = 60.0;
/// A recording longer than this is not a HoloLens session but a damaged file.
const MAX_SECONDS: f64 = 3600.0;
/// Bound on the sampled frames' memory (joints × frames × 56 bytes).
const MAX_SAMPLES: usize = 4_000_000;

/// Hand joint slots in file order (MRTK's `TrackedHandJoint`).
pub const HAND_JOINTS: [&str; 27] = [
    "none",
    "wrist",
    "palm",
    "thumb_metacarpal",
    "thumb_proximal",
    "thumb_distal",
    "thumb_tip",
    "index_metacarpal",
    "index_knuckle",
    "index_middle",
    "index_distal",
    "index_tip",
    "middle_metacarpal",
    "middle_knuckle",
    "middle_middle",
    "middle_distal",
    "middle_tip",
    "ring_metacarpal",
    "ring_knuckle",
    "ring_middle",
    "ring_distal",
    "ring_tip",
    "pinky_metacarpal",
    "pinky_knuckle",
    "pinky_middle",
    "pinky_distal",
    "pinky_tip",
];

/// One key of a float curve, in the file's f32 (a recording holds it as compactly as
/// the file does; evaluation is in f64). Simple curves have zero tangents and weights
/// and the "both" weighted mode, which evaluates as a straight line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    pub time: f32,
    pub value: f32,
    pub in_tangent: f32,
    pub out_tangent: f32,
    pub in_weight: f32,
    pub out_weight: f32,
    /// 0 none, 1 in, 2 out, 3 both.
    pub weighted_mode: i32,
}

impl Key {
    /// A key as MRTK's recorder writes it: zero tangents and weights in mode "both",
    /// which makes the curve a straight line to the next key.
    pub fn linear(time: f32, value: f32) -> Key {
        Key {
            time,
            value,
            in_tangent: 0.0,
            out_tangent: 0.0,
            in_weight: 0.0,
            out_weight: 0.0,
            weighted_mode: 3,
        }
    }
}

/// Unity wrap modes: 2 loop, 4 ping-pong, anything else clamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Clamp,
    Loop,
    PingPong,
}

impl Wrap {
    fn from_unity(mode: i32) -> Wrap {
        match mode {
            2 => Wrap::Loop,
            4 => Wrap::PingPong,
            _ => Wrap::Clamp,
        }
    }
}

/// A float curve (bool curves are float curves read as steps).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub pre_wrap: Wrap,
    pub post_wrap: Wrap,
    pub keys: Vec<Key>,
}

impl Curve {
    /// The value at time `t`, or `None` for a curve without keys.
    pub fn evaluate(&self, t: f64) -> Option<f64> {
        let first = self.keys.first()?;
        let last = self.keys.last()?;
        let (start, end) = (f64::from(first.time), f64::from(last.time));
        if self.keys.len() == 1 || end <= start {
            return Some(f64::from(if t < end { first.value } else { last.value }));
        }
        let t = wrap_time(t, start, end, self.pre_wrap, self.post_wrap);
        if t >= end {
            return Some(f64::from(last.value));
        }
        // The segment holding t: the last key at or before it.
        let i = self
            .keys
            .partition_point(|k| f64::from(k.time) <= t)
            .clamp(1, self.keys.len() - 1);
        Some(segment(&self.keys[i - 1], &self.keys[i], t))
    }

    /// A bool curve's state at `t`: `value > 0.5` of the last key at or before `t`
    /// (the first key's before it); false without keys.
    pub fn state(&self, t: f64) -> bool {
        let i = self.keys.partition_point(|k| f64::from(k.time) <= t);
        self.keys
            .get(i.saturating_sub(1))
            .is_some_and(|k| k.value > 0.5)
    }
}

fn wrap_time(t: f64, start: f64, end: f64, pre: Wrap, post: Wrap) -> f64 {
    let mode = if t < start {
        pre
    } else if t > end {
        post
    } else {
        return t;
    };
    let length = end - start;
    match mode {
        Wrap::Clamp => t.clamp(start, end),
        Wrap::Loop => start + (t - start).rem_euclid(length),
        Wrap::PingPong => {
            let phase = (t - start).rem_euclid(2.0 * length);
            start
                + if phase > length {
                    2.0 * length - phase
                } else {
                    phase
                }
        }
    }
}

/// Evaluates between two keys as Unity does: Hermite when neither side is weighted,
/// else a weighted cubic Bézier; an infinite tangent holds the first value.
fn segment(k0: &Key, k1: &Key, t: f64) -> f64 {
    let (t0, v0, t1, v1) = (
        f64::from(k0.time),
        f64::from(k0.value),
        f64::from(k1.time),
        f64::from(k1.value),
    );
    let dt = t1 - t0;
    if dt <= 0.0 || t >= t1 {
        return v1;
    }
    if t <= t0 {
        return v0;
    }
    let (m0, m1) = (f64::from(k0.out_tangent), f64::from(k1.in_tangent));
    if m0.is_infinite() || m1.is_infinite() {
        return v0;
    }
    let out_weighted = k0.weighted_mode & 2 != 0;
    let in_weighted = k1.weighted_mode & 1 != 0;
    if !out_weighted && !in_weighted {
        let s = (t - t0) / dt;
        let (s2, s3) = (s * s, s * s * s);
        let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
        let h10 = s3 - 2.0 * s2 + s;
        let h01 = -2.0 * s3 + 3.0 * s2;
        let h11 = s3 - s2;
        return h00 * v0 + h10 * dt * m0 + h01 * v1 + h11 * dt * m1;
    }
    let w0 = if out_weighted {
        f64::from(k0.out_weight)
    } else {
        1.0 / 3.0
    };
    let w1 = if in_weighted {
        f64::from(k1.in_weight)
    } else {
        1.0 / 3.0
    };
    let x = [t0, t0 + w0 * dt, t1 - w1 * dt, t1];
    let y = [v0, v0 + w0 * dt * m0, v1 - w1 * dt * m1, v1];
    let u = solve_bezier(&x, t);
    bezier(&y, u)
}

fn bezier(p: &[f64; 4], u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * p[0] + 3.0 * v * v * u * p[1] + 3.0 * v * u * u * p[2] + u * u * u * p[3]
}

/// The parameter u in [0, 1] where the Bézier's time reaches `t`, by bisection (the time
/// polynomial rises monotonically for weights in [0, 1]).
fn solve_bezier(x: &[f64; 4], t: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if bezier(x, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Position and rotation curves of one tracked pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseCurves {
    pub position: [Curve; 3],
    pub rotation: [Curve; 4],
}

impl PoseCurves {
    fn has_data(&self) -> bool {
        self.position
            .iter()
            .chain(&self.rotation)
            .any(|c| !c.keys.is_empty())
    }

    fn curves(&self) -> impl Iterator<Item = &Curve> {
        self.position.iter().chain(&self.rotation)
    }

    /// The pose at `t` in Unity's axes; the quaternion normalized.
    fn evaluate(&self, t: f64) -> (DVec3, DQuat) {
        let p = self
            .position
            .each_ref()
            .map(|c| c.evaluate(t).unwrap_or(0.0));
        let r = self
            .rotation
            .each_ref()
            .map(|c| c.evaluate(t).unwrap_or(0.0));
        let q = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
        let q = if q.length_squared() > 1e-12 && q.is_finite() {
            q.normalize()
        } else {
            DQuat::IDENTITY
        };
        (DVec3::from_array(p), q)
    }
}

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

/// Reads a recording and samples it into a clip at `fps` frames per second.
pub fn read(data: &[u8], fps: Option<f64>) -> Result<Clip, FormatError> {
    let recording = decode(data)?;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let fps = fps.unwrap_or(DEFAULT_FPS);
    let range = recording.time_range();
    // Early recordings kept absolute times: the clip starts at their first key.
    let start = match (recording.legacy, range) {
        (true, Some((first, _))) => first,
        _ => 0.0,
    };
    if recording.legacy {
        warnings.push(format!(
            "no MRTK header: read as an early headerless version 1.0 recording; times shifted by {start:.3} s to start at 0"
        ));
    }
    let end = range.map_or(0.0, |r| (r.1 - start).max(0.0));
    if end > MAX_SECONDS {
        return Err(FormatError::new(
            0,
            "recording length",
            format!("at most {MAX_SECONDS} s"),
            format!("keys up to {end} s"),
        ));
    }
    notes.push(format!(
        "MRTK {}.{} recording sampled at {fps} frames per second",
        recording.version.0, recording.version.1
    ));

    let mut joints = Vec::new();
    let mut poses: Vec<&PoseCurves> = Vec::new();
    if let Some(cam) = &recording.camera {
        // The HoloLens camera is the wearer's head.
        joints.push(root_joint("head"));
        poses.push(cam);
    }
    for (side, hand) in [("left", &recording.left), ("right", &recording.right)] {
        for (slot, pose) in HAND_JOINTS.iter().zip(hand) {
            joints.push(root_joint(&format!("{side}_{slot}")));
            poses.push(pose);
        }
    }
    let frames = (end * fps).floor() as usize + 1;
    if frames.saturating_mul(joints.len().max(1)) > MAX_SAMPLES {
        return Err(FormatError::new(
            0,
            "recording length",
            format!("at most {MAX_SAMPLES} joint samples (lower --fps)"),
            format!("{frames} frames of {} joints", joints.len()),
        ));
    }
    let mut translations = Vec::with_capacity(frames * joints.len());
    let mut rotations = Vec::with_capacity(frames * joints.len());
    for f in 0..frames {
        let t = start + f as f64 / fps;
        for pose in &poses {
            let (p, q) = pose.evaluate(t);
            translations.push(right_handed(p));
            rotations.push(DQuat::from_xyzw(-q.x, -q.y, q.z, q.w));
        }
    }
    for (side, hand) in [("left", &recording.left), ("right", &recording.right)] {
        if !hand.is_empty() && !hand.iter().any(PoseCurves::has_data) {
            notes.push(format!("the {side} hand has no tracking data"));
        }
    }

    let mut signals = Vec::new();
    let times: Vec<f64> = (0..frames).map(|f| start + f as f64 / fps).collect();
    if let Some(states) = &recording.hand_states {
        let names = ["tracked_left", "tracked_right", "pinch_left", "pinch_right"];
        for (name, curve) in names.iter().zip(states) {
            signals.push(Signal {
                name: name.to_string(),
                values: times
                    .iter()
                    .map(|&t| f64::from(u8::from(curve.state(t))))
                    .collect(),
            });
        }
    }
    if let Some(gaze) = &recording.gaze {
        let mut origin = Vec::with_capacity(frames);
        let mut direction = Vec::with_capacity(frames);
        for &t in &times {
            let v = gaze.each_ref().map(|c| c.evaluate(t).unwrap_or(0.0));
            origin.push(right_handed(DVec3::new(v[0], v[1], v[2])));
            direction.push(right_handed(
                DVec3::new(v[3], v[4], v[5]).normalize_or_zero(),
            ));
        }
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            signals.push(Signal {
                name: format!("gaze_origin_{name}"),
                values: origin.iter().map(|o| o[axis]).collect(),
            });
        }
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            signals.push(Signal {
                name: format!("gaze_direction_{name}"),
                values: direction.iter().map(|d| d[axis]).collect(),
            });
        }
    }
    for (t, name) in &recording.markers {
        notes.push(format!("marker {name:?} at {:.3} s", t - start));
    }
    // Every tracked pose is a world position: all joints move.
    let moving = (0..joints.len()).map(Some).collect();
    Ok(Clip {
        format: Format::Mrtk,
        moving,
        skeleton: CaptureSkeleton { joints },
        frame_time: 1.0 / fps,
        frames,
        translations,
        rotations,
        signals,
        warnings,
        notes,
    })
}

fn root_joint(name: &str) -> CaptureJoint {
    CaptureJoint {
        name: name.to_string(),
        parent: None,
        offset: DVec3::ZERO,
        end: None,
        axis: DQuat::IDENTITY,
    }
}

/// Unity's left-handed axes to right-handed ones by negating z.
fn right_handed(v: DVec3) -> DVec3 {
    DVec3::new(v.x, v.y, -v.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f32, value: f32) -> Key {
        Key::linear(time, value)
    }

    fn curve(keys: Vec<Key>) -> Curve {
        Curve {
            pre_wrap: Wrap::Clamp,
            post_wrap: Wrap::Clamp,
            keys,
        }
    }

    #[test]
    fn recorded_curves_are_piecewise_linear() {
        let c = curve(vec![key(1.0, 10.0), key(3.0, 20.0), key(4.0, 0.0)]);
        // By hand: halfway between (1, 10) and (3, 20) is 15; a quarter of the way from
        // (3, 20) to (4, 0) is 15.
        assert!((c.evaluate(2.0).unwrap() - 15.0).abs() < 1e-9);
        assert!((c.evaluate(3.25).unwrap() - 15.0).abs() < 1e-9);
        assert_eq!(c.evaluate(0.0), Some(10.0)); // clamped before
        assert_eq!(c.evaluate(9.0), Some(0.0)); // clamped after
        assert_eq!(curve(vec![]).evaluate(1.0), None);
    }

    #[test]
    fn unweighted_keys_follow_hermite() {
        // From (0, 0) with slope 1 to (2, 0) with slope 1, at t = 0.5: s = 0.25,
        // h10 = s³ − 2s² + s = 0.140625, h11 = s³ − s² = −0.046875; dt = 2:
        // v = 2·0.140625 + 2·(−0.046875) = 0.1875.
        let mut k0 = key(0.0, 0.0);
        let mut k1 = key(2.0, 0.0);
        k0.out_tangent = 1.0;
        k1.in_tangent = 1.0;
        k0.weighted_mode = 0;
        k1.weighted_mode = 0;
        let c = curve(vec![k0, k1]);
        assert!((c.evaluate(0.5).unwrap() - 0.1875).abs() < 1e-12);
    }

    #[test]
    fn weighted_bezier_with_one_third_weights_equals_hermite() {
        // A cubic Bézier with weights 1/3 is the Hermite curve itself.
        let mut k0 = key(0.0, 1.0);
        let mut k1 = key(1.0, 3.0);
        k0.out_tangent = -2.0;
        k1.in_tangent = 4.0;
        k0.out_weight = 1.0 / 3.0;
        k1.in_weight = 1.0 / 3.0;
        let weighted = curve(vec![k0, k1]);
        k0.weighted_mode = 0;
        k1.weighted_mode = 0;
        let hermite = curve(vec![k0, k1]);
        for i in 0..=10 {
            let t = f64::from(i) / 10.0;
            let (a, b) = (weighted.evaluate(t).unwrap(), hermite.evaluate(t).unwrap());
            // Weights of 1/3 in f32 are not exactly 1/3.
            assert!((a - b).abs() < 1e-6, "t {t}: {a} vs {b}");
        }
    }

    #[test]
    fn infinite_tangent_is_a_step_and_bools_are_steps() {
        let mut k0 = key(0.0, 1.0);
        k0.out_tangent = f32::INFINITY;
        let c = curve(vec![k0, key(1.0, 5.0)]);
        assert_eq!(c.evaluate(0.99), Some(1.0));
        assert_eq!(c.evaluate(1.0), Some(5.0));

        // Before its first key a bool curve holds that key's state (Unity clamps).
        let b = curve(vec![key(1.0, 1.0), key(2.0, 0.0)]);
        assert!(b.state(0.5));
        assert!(b.state(1.0));
        assert!(b.state(1.99));
        assert!(!b.state(2.0));
    }

    #[test]
    fn wrap_modes() {
        let mut c = curve(vec![key(0.0, 0.0), key(1.0, 10.0)]);
        c.post_wrap = Wrap::Loop;
        assert!((c.evaluate(1.25).unwrap() - 2.5).abs() < 1e-9);
        c.post_wrap = Wrap::PingPong;
        assert!((c.evaluate(1.25).unwrap() - 7.5).abs() < 1e-9);
        c.pre_wrap = Wrap::Loop;
        assert!((c.evaluate(-0.25).unwrap() - 7.5).abs() < 1e-9);
    }
}
