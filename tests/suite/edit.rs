//! Motion edits: model changes by joint meaning, mirroring, reversing, re-timing.

use crate::common;

use aibo_motion::edit::{change_model, fit_speeds, mirror, reverse, scale_time};
use aibo_motion::mtn::{self, Keyframe, Layout, Motion};
use aibo_motion::robot::profile::Profile;
use aibo_motion::units::deg_to_urad;

/// A motion on `model` whose joint values (degrees, by semantic name) are given; every
/// other joint at the stand posture.
fn motion(model: &str, values: &[(&str, f64)], interps: &[u32]) -> Motion {
    let p = Profile::builtin(model).unwrap();
    let stand = &p.postures["stand"];
    let row: Vec<i32> = p
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            values
                .iter()
                .find(|(n, _)| *n == j.name)
                .map_or(deg_to_urad(stand.joints[i].to_degrees()), |(_, d)| {
                    deg_to_urad(*d)
                })
        })
        .collect();
    let keyframes = std::iter::once(0)
        .chain(interps.iter().copied())
        .enumerate()
        .map(|(k, n)| Keyframe {
            frames_before: n,
            roll: 1000 * k as i32,
            pitch: 0,
            yaw: -500 * k as i32,
            // Each keyframe a little different, so order matters (ears keep their state).
            joints: row
                .iter()
                .zip(&p.joints)
                .map(|(v, j)| if j.binary { *v } else { v + k as i32 })
                .collect(),
        })
        .collect();
    Motion {
        name: "m".into(),
        creator: "t".into(),
        design_label: p.design_label.clone(),
        frame_ms: 16,
        locators: p.joints.iter().map(|j| j.locator.clone()).collect(),
        keyframes,
        layout: Layout::default(),
    }
}

fn value(m: &Motion, model: &str, joint: &str, k: usize) -> i32 {
    let p = Profile::builtin(model).unwrap();
    let loc = &p.joint_by_name(joint).unwrap().locator;
    let c = m.locators.iter().position(|l| l == loc).unwrap();
    m.keyframes[k].joints[c]
}

#[test]
fn ers210_to_ers7_maps_by_meaning_adds_and_clamps() {
    let m = motion(
        "ERS-210",
        &[
            ("tail_pan", 10.0),
            ("tail_tilt", 0.0),
            ("rh_j3", 135.0),
            ("head_pan", 30.0),
        ],
        &[5],
    );
    let (ers7, notes) = change_model(
        &m,
        &Profile::builtin("ERS-210").unwrap(),
        &Profile::builtin("ERS-7").unwrap(),
    );
    assert_eq!(ers7.design_label, "DRX-1000");
    assert_eq!(ers7.locators.len(), 20);
    // The ERS-210's r6/c1 is tail pan; on the ERS-7 tail pan is r6/c2.
    assert_eq!(value(&ers7, "ERS-7", "tail_pan", 0), deg_to_urad(10.0));
    assert_eq!(ers7.locators[19], "PRM:/r6/c2-Joint2:62");
    // Tail tilt 0° is below the ERS-7's 5° minimum; the hind knee's 135° above its 122°.
    assert_eq!(value(&ers7, "ERS-7", "tail_tilt", 0), deg_to_urad(5.0));
    assert_eq!(value(&ers7, "ERS-7", "rh_j3", 0), deg_to_urad(122.0));
    assert_eq!(value(&ers7, "ERS-7", "head_pan", 0), deg_to_urad(30.0));
    // The ERS-7's upper neck tilt is new: its stand value.
    assert_eq!(value(&ers7, "ERS-7", "head_nod", 1), deg_to_urad(25.0));
    assert!(
        notes
            .iter()
            .any(|n| n.contains("dropped") && n.contains("head_roll")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("added") && n.contains("head_nod")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.contains("held within")), "{notes:?}");
    assert_eq!(ers7.keyframes[1].frames_before, 5);
}

#[test]
fn ers210_to_ers220_and_back_keeps_the_common_joints() {
    let m = motion(
        "ERS-210",
        &[("lf_j1", 40.0), ("head_roll", 10.0), ("mouth", -20.0)],
        &[3, 7],
    );
    let (p210, p220) = (
        Profile::builtin("ERS-210").unwrap(),
        Profile::builtin("ERS-220").unwrap(),
    );
    let (common, _) = change_model(&m, &p210, &p220);
    assert_eq!(common.locators.len(), 15);
    assert_eq!(common.design_label, "DRX-900");
    let (back, _) = change_model(&common, &p220, &p210);
    for joint in ["lf_j1", "head_roll", "rh_j2"] {
        assert_eq!(
            value(&back, "ERS-210", joint, 2),
            value(&m, "ERS-210", joint, 2),
            "{joint}"
        );
    }
    // The mouth did not survive the ERS-220: it is back at the stand posture.
    assert_eq!(value(&back, "ERS-210", "mouth", 0), deg_to_urad(-3.0));
}

#[test]
fn mirror_swaps_sides_and_flips_lateral_senses() {
    let m = motion(
        "ERS-7",
        &[
            ("lf_j1", 40.0),
            ("rf_j1", -10.0),
            ("head_pan", 30.0),
            ("tail_pan", -20.0),
        ],
        &[4],
    );
    let p = Profile::builtin("ERS-7").unwrap();
    let mirrored = mirror(&m, &p);
    assert_eq!(value(&mirrored, "ERS-7", "rf_j1", 0), deg_to_urad(40.0));
    assert_eq!(value(&mirrored, "ERS-7", "lf_j1", 0), deg_to_urad(-10.0));
    assert_eq!(value(&mirrored, "ERS-7", "head_pan", 0), -deg_to_urad(30.0));
    assert_eq!(value(&mirrored, "ERS-7", "tail_pan", 0), deg_to_urad(20.0));
    assert_eq!(
        value(&mirrored, "ERS-7", "head_tilt", 0),
        value(&m, "ERS-7", "head_tilt", 0)
    );
    assert_eq!(mirrored.keyframes[1].roll, -m.keyframes[1].roll);
    assert_eq!(mirror(&mirrored, &p), m);
}

#[test]
fn reverse_plays_backwards_keeping_each_segment() {
    let m = motion("ERS-7", &[], &[3, 0, 9]);
    let r = reverse(&m);
    let frames: Vec<u32> = r.keyframes.iter().map(|k| k.frames_before).collect();
    assert_eq!(frames, [0, 9, 0, 3]);
    assert_eq!(r.keyframes[0].joints, m.keyframes[3].joints);
    assert_eq!(r.duration_ms(), m.duration_ms());
    assert_eq!(reverse(&r), m);
}

#[test]
fn speed_scales_segments_and_guards_the_limits() {
    let m = motion("ERS-7", &[], &[9, 19]);
    let (fast, notes) = scale_time(&m, 2.0, None).unwrap();
    assert!(notes.is_empty());
    let frames: Vec<u32> = fast.keyframes.iter().map(|k| k.frames_before).collect();
    assert_eq!(frames, [0, 4, 9]); // (9+1)/2 − 1, (19+1)/2 − 1
    let (slow, _) = scale_time(&m, 0.5, None).unwrap();
    assert_eq!(slow.duration_ms(), 2 * m.duration_ms());
    assert!(scale_time(&m, 0.0, None).is_err());

    // A head turn of 60° in 160 ms is within the ERS-7's 10 rad/s; 8× faster is not.
    let p = Profile::builtin("ERS-7").unwrap();
    let mut turn = motion("ERS-7", &[], &[9]);
    let c = 1; // head_pan
    turn.keyframes[1].joints[c] = deg_to_urad(60.0);
    assert!(scale_time(&turn, 1.0, Some(&p)).is_ok());
    let err = scale_time(&turn, 8.0, Some(&p)).unwrap_err();
    assert!(
        matches!(&err, aibo_motion::edit::ScaleError::TooFast { joint, .. } if joint == "head_pan"),
        "{err}"
    );
    assert!(scale_time(&turn, 8.0, None).is_ok());
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn convert_on_the_command_line_and_sonys_walk_slows_down() {
    let dir = common::shared("mtn-samples");
    let tmp = tempfile::tempdir().unwrap();
    let spec = dir.join("sony-spec-example/a_stand#sit_S.mtn");
    let out = tmp.path().join("sit7.mtn");
    let run = common::run(&[
        "convert",
        spec.to_str().unwrap(),
        "--to",
        "ERS-7",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let m = mtn::decode(&std::fs::read(&out).unwrap()).unwrap().motion;
    assert_eq!(m.design_label, "DRX-1000");
    assert!(
        common::stderr(&run).contains("held within"),
        "{}",
        common::stderr(&run)
    );
    // Sony's walk is brisker than the ERS-7's published speeds; slowing it is allowed.
    let walk = dir.join("sony-openr-monet-ers7/a_walk#walk_sox_fwd.mtn");
    let slow = tmp.path().join("slow.mtn");
    let run = common::run(&[
        "convert",
        walk.to_str().unwrap(),
        "--speed",
        "0.5",
        "-o",
        slow.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    // Its 16 ms segments cannot get shorter: said, not refused.
    let run = common::run(&[
        "convert",
        walk.to_str().unwrap(),
        "--speed",
        "3",
        "-o",
        slow.to_str().unwrap(),
    ]);
    assert!(run.status.success());
    assert!(
        common::stderr(&run).contains("cannot get shorter"),
        "{}",
        common::stderr(&run)
    );
    // Sitting down eight times faster would move joints faster than they can.
    let sit = dir.join("sony-openr-monet-ers7/a_stand#sit_standard.mtn");
    let run = common::run(&[
        "convert",
        sit.to_str().unwrap(),
        "--speed",
        "8",
        "-o",
        slow.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        common::stderr(&run).contains("--force"),
        "{}",
        common::stderr(&run)
    );
    let run = common::run(&[
        "convert",
        sit.to_str().unwrap(),
        "--speed",
        "8",
        "--force",
        "-o",
        slow.to_str().unwrap(),
    ]);
    assert!(run.status.success());
}

#[test]
fn fit_speeds_lengthens_only_the_segments_a_joint_cannot_keep_up_with() {
    let p = Profile::builtin("ERS-7").unwrap();
    let limit = p.joint_by_name("head_pan").unwrap().max_speed.unwrap();
    // Head pan 0° → 60° in one 16 ms frame, then back in 200 frames (slow enough).
    let m = motion("ERS-7", &[], &[0, 199]);
    let mut m = m;
    let pan = p.joint_index("head_pan").unwrap();
    m.keyframes[1].joints[pan] = deg_to_urad(60.0);
    let (fitted, added_ms) = fit_speeds(&m, &p).unwrap();
    // 60° at `limit` rad/s takes 60° in radians / limit seconds: whole 16 ms frames.
    let frames = ((60f64.to_radians() / limit) / 0.016).ceil() as u32;
    assert_eq!(fitted.keyframes[1].frames_before, frames - 1);
    assert_eq!(
        fitted.keyframes[2].frames_before, 199,
        "the slow segment is untouched"
    );
    assert_eq!(added_ms, u64::from(frames - 1) * 16);
    let report = aibo_motion::check::check(&fitted, &p);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    // One frame fewer would be too fast: the fit is the shortest.
    let mut shorter = fitted.clone();
    shorter.keyframes[1].frames_before -= 1;
    assert!(!aibo_motion::check::check(&shorter, &p)
        .violations
        .is_empty());
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn every_sony_motion_converted_to_another_model_passes_check() {
    let dir = common::shared("mtn-samples");
    let tmp = tempfile::tempdir().unwrap();
    let mut converted = 0;
    for path in common::mtn_files(&dir) {
        let Ok(decoded) = mtn::decode(&std::fs::read(&path).unwrap()) else {
            continue; // the malformed sample
        };
        let from = decoded.motion.design_label.clone();
        for to in ["ERS-210", "ERS-7"] {
            if Profile::builtin(to).unwrap().design_label == from {
                continue;
            }
            let out = tmp.path().join("converted.mtn");
            let run = common::run(&[
                "convert",
                path.to_str().unwrap(),
                "--to",
                to,
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(run.status.success(), "{}", common::stderr(&run));
            let check = common::run(&["check", out.to_str().unwrap()]);
            assert_eq!(
                check.status.code(),
                Some(0),
                "{} to the {to}: {}",
                path.display(),
                common::stdout(&check)
            );
            converted += 1;
        }
    }
    assert!(converted >= 19, "{converted}");
}
