//! MRTK input animation files, written here byte by byte the way MRTK's serializer
//! writes them (not as MRTK's documentation describes them): versions 1.0 and 1.1, the
//! headerless early body, markers, and damaged input.

use crate::common;
use aibo_motion::source::mrtk;
use glam::DVec3;

const MAGIC: [u8; 8] = [0xC6, 0x42, 0x9E, 0x0F, 0x6E, 0xAF, 0x8F, 0x6A];

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn string(&mut self, s: &str) {
        let mut n = s.len();
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.0.push(b);
                break;
            }
            self.0.push(b | 0x80);
        }
        self.0.extend_from_slice(s.as_bytes());
    }
    /// A float curve: full keys carry zero tangents and weights in mode "both", as
    /// MRTK's recorder writes them.
    fn curve(&mut self, full: bool, keys: &[(f32, f32)]) {
        self.i32(8);
        self.i32(8);
        self.i32(keys.len() as i32);
        for &(t, v) in keys {
            self.f32(t);
            self.f32(v);
            if full {
                for _ in 0..4 {
                    self.f32(0.0);
                }
                self.i32(3);
            }
        }
    }
    /// Position x, y, z and rotation x, y, z, w.
    fn pose(&mut self, full: bool, position: [&[(f32, f32)]; 3], w: &[(f32, f32)]) {
        for keys in position {
            self.curve(full, keys);
        }
        for _ in 0..3 {
            self.curve(full, &[]);
        }
        self.curve(full, w);
    }
}

/// A version 1.0 body: the camera moving along x, the left wrist held at (0, 1, 2),
/// the left hand tracked from t0 + 1 and pinching from t0 + 2 to t0 + 3, a marker.
fn body_1_0(t0: f32) -> Vec<u8> {
    let mut w = Writer::default();
    w.pose(
        true,
        [&[(t0, 0.0), (t0 + 4.0, 8.0)], &[(t0, 1.5)], &[(t0, 1.0)]],
        &[(t0, 1.0)],
    );
    w.curve(false, &[(t0, 0.0), (t0 + 1.0, 1.0)]); // tracked left
    w.curve(false, &[]); // tracked right
    w.curve(false, &[(t0, 0.0), (t0 + 2.0, 1.0), (t0 + 3.0, 0.0)]); // pinching left
    w.curve(false, &[]);
    for hand in 0..2 {
        for slot in 0..27 {
            if hand == 0 && slot == 1 {
                w.pose(
                    true,
                    [&[(t0, 0.0)], &[(t0, 1.0)], &[(t0, 2.0)]],
                    &[(t0, 1.0)],
                );
            } else {
                w.pose(true, [&[], &[], &[]], &[]);
            }
        }
    }
    w.i32(1);
    w.f32(t0 + 0.5);
    w.string("wave");
    w.0
}

fn with_header(major: i32, minor: i32, body: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.0.extend_from_slice(&MAGIC);
    w.i32(major);
    w.i32(minor);
    w.0.extend_from_slice(body);
    w.0
}

fn signal<'a>(clip: &'a aibo_motion::source::Clip, name: &str) -> &'a [f64] {
    &clip.signals.iter().find(|s| s.name == name).unwrap().values
}

#[test]
fn version_1_0_reads_and_samples() {
    let clip = mrtk::read(&with_header(1, 0, &body_1_0(0.0)), Some(10.0)).unwrap();
    assert!(clip.warnings.is_empty(), "{:?}", clip.warnings);
    assert_eq!(clip.joint_count(), 1 + 27 + 27);
    assert_eq!(clip.frames, 41); // 0 to 4 s at 10 fps
    let camera = clip.skeleton.index_of("head").unwrap();
    let wrist = clip.skeleton.index_of("left_wrist").unwrap();
    // Halfway along the camera's x keys (0 → 8 over 4 s) at t = 1: x = 2. Unity's z is
    // negated into right-handed axes.
    assert!((clip.translation(10, camera) - DVec3::new(2.0, 1.5, -1.0)).length() < 1e-6);
    assert!((clip.translation(10, wrist) - DVec3::new(0.0, 1.0, -2.0)).length() < 1e-6);
    assert_eq!(signal(&clip, "tracked_left")[5], 0.0);
    assert_eq!(signal(&clip, "tracked_left")[10], 1.0);
    assert_eq!(signal(&clip, "pinch_left")[25], 1.0);
    assert_eq!(signal(&clip, "pinch_left")[30], 0.0);
    assert!(
        clip.notes.iter().any(|n| n.contains("\"wave\" at 0.500 s")),
        "{:?}",
        clip.notes
    );
}

#[test]
fn version_1_1_with_flags_simple_curves_and_gaze() {
    let mut w = Writer::default();
    w.0.extend_from_slice(&[1, 0, 1]); // camera, no hands, eye gaze
    w.pose(false, [&[(0.0, 0.0), (1.0, 1.0)], &[], &[]], &[(0.0, 1.0)]);
    // Gaze origin (0.5, 1.6, 0), direction (0, 0, 2).
    for value in [0.5, 1.6, 0.0, 0.0, 0.0, 2.0] {
        w.curve(false, &[(0.0, value)]);
    }
    w.i32(0); // no markers
    let clip = mrtk::read(&with_header(1, 1, &w.0), Some(4.0)).unwrap();
    assert_eq!(clip.joint_count(), 1);
    assert_eq!(clip.frames, 5);
    assert!((clip.translation(2, 0).x - 0.5).abs() < 1e-6);
    assert_eq!(signal(&clip, "gaze_origin_x")[0], 0.5);
    assert!((signal(&clip, "gaze_origin_y")[0] - 1.6).abs() < 1e-6);
    // The direction (0, 0, 2) normalized, z negated.
    assert_eq!(signal(&clip, "gaze_direction_z")[0], -1.0);
    assert!(clip.signals.iter().all(|s| !s.name.starts_with("tracked")));
}

#[test]
fn a_headerless_early_recording_is_read_as_1_0_and_shifted() {
    let clip = mrtk::read(&body_1_0(10.0), Some(10.0)).unwrap();
    assert_eq!(clip.frames, 41);
    assert!(
        clip.warnings[0].contains("headerless"),
        "{:?}",
        clip.warnings
    );
    assert!(clip.warnings[0].contains("10.000 s"));
    assert_eq!(signal(&clip, "tracked_left")[10], 1.0);
    // Trailing bytes mean it was not a 1.0 body after all.
    let mut extra = body_1_0(10.0);
    extra.push(0);
    let err = mrtk::read(&extra, None).unwrap_err();
    assert!(err.to_string().contains("headerless"), "{err}");
}

#[test]
fn newer_versions_are_refused() {
    let err = mrtk::read(&with_header(1, 2, &body_1_0(0.0)), None).unwrap_err();
    assert_eq!(err.offset, 8);
    assert!(err.to_string().contains("1.2"), "{err}");
    assert!(mrtk::read(&with_header(2, 0, &[]), None).is_err());
}

#[test]
fn damaged_recordings_fail_with_an_offset() {
    let file = with_header(1, 0, &body_1_0(0.0));
    for len in (0..file.len()).step_by(7) {
        let err = mrtk::read(&file[..len], None).unwrap_err();
        assert!(err.offset <= len, "{len}: {err}");
    }
    // An absurd key count is refused before any allocation.
    let mut bad = file.clone();
    bad[16 + 8..16 + 12].copy_from_slice(&i32::MAX.to_le_bytes());
    let err = mrtk::read(&bad, None).unwrap_err();
    assert_eq!(err.offset, 24);
    // A key a century in: not a recording.
    let mut late = Writer::default();
    late.0.extend_from_slice(&[1, 0, 0]);
    late.pose(false, [&[(0.0, 0.0), (3.0e9, 1.0)], &[], &[]], &[]);
    late.i32(0);
    assert!(mrtk::read(&with_header(1, 1, &late.0), None).is_err());
}

/// A version 1.1 recording of the camera and hands. The head at 1.6 m looking down
/// Unity's +z; the left hand (Unity's −x is the wearer's left) held straight forward at
/// shoulder height, tracked; the right hand never tracked.
fn left_hand_forward() -> Vec<u8> {
    let mut w = Writer::default();
    w.0.extend_from_slice(&[1, 1, 0]);
    w.pose(
        false,
        [&[(0.0, 0.0)], &[(0.0, 1.6)], &[(0.0, 0.0)]],
        &[(0.0, 1.0)],
    );
    w.curve(false, &[(0.0, 1.0), (1.0, 1.0)]); // tracked left
    w.curve(false, &[]); // tracked right
    w.curve(false, &[]);
    w.curve(false, &[]);
    for hand in 0..2 {
        for slot in 0..27 {
            if hand == 0 && slot == 1 {
                w.pose(
                    false,
                    [&[(0.0, -0.18)], &[(0.0, 1.35)], &[(0.0, 0.6)]],
                    &[(0.0, 1.0)],
                );
            } else {
                w.pose(false, [&[], &[], &[]], &[]);
            }
        }
    }
    w.i32(0);
    with_header(1, 1, &w.0)
}

#[test]
fn a_tracked_hand_drives_the_same_side_front_leg() {
    use aibo_motion::retarget::{retarget, Options};
    use aibo_motion::robot::profile::Profile;
    let clip = mrtk::read(&left_hand_forward(), Some(10.0)).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let tracks = retarget(&clip, &profile, &Options::default()).unwrap();
    let value = |joint: &str| {
        let i = profile.joint_index(joint).unwrap();
        tracks.joints[i].as_ref().unwrap()[5].to_degrees()
    };
    let offset = |joint: &str| {
        let m = profile.mappings.iter().find(|m| m.joint == joint).unwrap();
        m.offset_deg
    };
    // Arm straight forward: swing 90° on top of the mapping's offset (the leg hanging).
    assert!(
        (value("lf_j1") - 90.0 - offset("lf_j1")).abs() < 1e-3,
        "{}",
        value("lf_j1")
    );
    assert!(
        (value("lf_j2") - offset("lf_j2")).abs() < 1e-3,
        "{}",
        value("lf_j2")
    );
    // The untracked right hand hangs: swing 0.
    assert!(
        (value("rf_j1") - offset("rf_j1")).abs() < 1e-3,
        "{}",
        value("rf_j1")
    );
    assert!(tracks
        .drivers
        .iter()
        .any(|d| d.joint == "lf_j1" && d.source.contains(&"left_wrist".to_string())));
}

#[test]
fn building_a_recording_warns_of_no_legs_it_could_never_have_and_says_so_at_v() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("hand.bin");
    std::fs::write(&input, left_hand_forward()).unwrap();
    let out = dir.path().join("hand.mtn");
    let (input, out) = (input.to_str().unwrap(), out.to_str().unwrap());
    let run = common::run(&[
        "-v",
        "build",
        input,
        "--profile",
        "ERS-7",
        "-o",
        out,
        "--json",
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&run)).unwrap();
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .all(|w| !w.as_str().unwrap().contains("leg")),
        "{warnings:?}"
    );
    let said = common::stderr(&run);
    for leg in ["no left leg", "no right leg"] {
        assert!(
            said.contains(&format!(
                "an MRTK recording tracks the head and hands: {leg}"
            )),
            "{said}"
        );
    }
}
