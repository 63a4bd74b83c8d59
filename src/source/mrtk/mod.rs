//! MRTK input animation recordings (`.bin`): a HoloLens user's head (camera) pose, both
//! hands' 27 joints, pinch and tracking states, and eye gaze, as curves over time.
//!
//! Layout and evaluation follow MRTK's own serializer and Unity's curve evaluation (not
//! MRTK's documentation, which differs from what the recorder writes): versions 1.0 (full curves) and 1.1 (flags, simple
//! curves, gaze), markers, and the headerless 1.0 body of early recordings, whose times
//! are shifted to start at 0. The clip samples the curves at `fps` (default 60).
//!
//! The clip's joints are `head` (the camera), then `left_<slot>` and `right_<slot>` for
//! the 27 hand joints; its signals are the tracked and pinch states and the eye gaze.
//!
//! Unity's world is left-handed (Y up, metres); the clip is right-handed like every
//! other source, so z is negated (positions) and rotations are mirrored to match.

mod curve;
mod decode;

pub use curve::{Curve, Key, PoseCurves, Wrap};
pub use decode::{decode, Recording};

use super::{CaptureJoint, CaptureSkeleton, Clip, Format, Signal};
use crate::binary::FormatError;
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

/// Reads a recording and samples it into a clip at `fps` frames per second.
pub fn read(data: &[u8], fps: Option<f64>) -> Result<Clip, FormatError> {
    let recording = decode(data)?;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let fps = fps.unwrap_or(DEFAULT_FPS);
    if let Some(e) = super::frame_time_error(1.0 / fps) {
        return Err(FormatError::new(
            0,
            "sampling rate",
            "a rate within bounds",
            e,
        ));
    }
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
