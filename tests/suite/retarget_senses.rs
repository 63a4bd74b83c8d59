//! Natural senses: a human motion drives the AIBO the way a person would expect. Each
//! test turns one joint of a synthetic performer (Y up, facing +z, its left on +x,
//! arms hanging) and checks which way the robot joint goes.

use crate::common;

use aibo_motion::retarget::{retarget, Options, Tracks};
use aibo_motion::robot::profile::{load_mappings, Mapping, Profile};
use aibo_motion::source::bvh;

/// A two-frame performance: at rest, then with `moves` applied (joint, axis, degrees).
fn tracks(profile: &str, moves: &[(&str, char, f64)]) -> (Tracks, Profile) {
    tracks_with(profile, moves, &[])
}

fn tracks_with(
    profile: &str,
    moves: &[(&str, char, f64)],
    overrides: &[Mapping],
) -> (Tracks, Profile) {
    let text = common::performer_bvh(&[vec![], moves.to_vec()], 0.1);
    let clip = bvh::read(text.as_bytes()).unwrap();
    let profile = Profile::builtin(profile).unwrap();
    (
        retarget(
            &clip,
            &profile,
            &Options {
                overrides: overrides.to_vec(),
                ..Options::default()
            },
        )
        .unwrap(),
        profile,
    )
}

/// How far a robot joint moved from frame 0 to frame 1, in degrees.
fn moved(tracks: &Tracks, profile: &Profile, joint: &str) -> f64 {
    let i = profile.joint_index(joint).unwrap();
    let t = tracks.joints[i]
        .as_ref()
        .unwrap_or_else(|| panic!("{joint} has no source"));
    (t[1] - t[0]).to_degrees()
}

#[test]
fn turning_the_head_left_turns_the_aibo_head_left() {
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let (t, p) = tracks(model, &[("Head", 'y', 30.0)]);
        assert!((moved(&t, &p, "head_pan") - 30.0).abs() < 1e-6, "{model}");
        assert!(moved(&t, &p, "head_tilt").abs() < 1e-6, "{model}");
    }
}

#[test]
fn nodding_down_tilts_the_aibo_head_down() {
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let (t, p) = tracks(model, &[("Head", 'x', 25.0)]);
        // Tilt is negative downward on every model.
        assert!((moved(&t, &p, "head_tilt") + 25.0).abs() < 1e-6, "{model}");
        assert!(moved(&t, &p, "head_pan").abs() < 1e-6, "{model}");
    }
}

#[test]
fn swinging_an_arm_forward_swings_the_same_side_front_leg_forward() {
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        // −60° about the body's left axis carries a hanging arm forward.
        let (t, p) = tracks(model, &[("LeftArm", 'x', -60.0)]);
        assert!((moved(&t, &p, "lf_j1") - 60.0).abs() < 1e-6, "{model}");
        assert!(moved(&t, &p, "rf_j1").abs() < 1e-6, "{model}");
        let (t, p) = tracks(model, &[("RightArm", 'x', -40.0)]);
        assert!((moved(&t, &p, "rf_j1") - 40.0).abs() < 1e-6, "{model}");
        assert!(moved(&t, &p, "lf_j1").abs() < 1e-6, "{model}");
    }
}

#[test]
fn raising_an_arm_sideways_abducts_the_front_leg() {
    // The left arm swings out to the left (+x): about +z by a positive angle from down.
    let (t, p) = tracks("ERS-7", &[("LeftArm", 'z', 30.0), ("RightArm", 'z', -30.0)]);
    assert!((moved(&t, &p, "lf_j2") - 30.0).abs() < 1e-6);
    assert!((moved(&t, &p, "rf_j2") - 30.0).abs() < 1e-6);
}

#[test]
fn swinging_a_leg_forward_swings_the_same_side_hind_leg_forward() {
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        // Hind J1 is positive backward (Tekkotsu's chains: src/robot/skeleton.rs), so
        // forward is −.
        let (t, p) = tracks(model, &[("RightUpLeg", 'x', -45.0)]);
        assert!((moved(&t, &p, "rh_j1") + 45.0).abs() < 1e-6, "{model}");
        assert!(moved(&t, &p, "lh_j1").abs() < 1e-6, "{model}");
        let (t, p) = tracks(model, &[("LeftUpLeg", 'x', -20.0)]);
        assert!((moved(&t, &p, "lh_j1") + 20.0).abs() < 1e-6, "{model}");
    }
}

#[test]
fn bending_an_elbow_or_knee_bends_the_matching_aibo_knee() {
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let (t, p) = tracks(model, &[("LeftForeArm", 'x', -90.0)]);
        assert!((moved(&t, &p, "lf_j3") - 90.0).abs() < 1e-6, "{model}");
        assert!(
            moved(&t, &p, "lf_j1").abs() < 1e-6,
            "{model}: the upper arm did not move"
        );
        let (t, p) = tracks(model, &[("RightLeg", 'x', 70.0)]);
        assert!((moved(&t, &p, "rh_j3") - 70.0).abs() < 1e-6, "{model}");
    }
}

#[test]
fn turning_the_whole_body_moves_nothing() {
    // Measures are taken relative to the torso: a performer who turns round and leans
    // still stands the same way.
    let (t, p) = tracks("ERS-7", &[("Hips", 'y', 120.0), ("Hips", 'z', 10.0)]);
    for joint in [
        "head_pan",
        "head_tilt",
        "lf_j1",
        "lf_j2",
        "rf_j1",
        "lh_j1",
        "rh_j2",
        "rh_j3",
    ] {
        assert!(
            moved(&t, &p, joint).abs() < 1e-6,
            "{joint}: {}",
            moved(&t, &p, joint)
        );
    }
}

#[test]
fn standing_straight_gives_the_stand_posture() {
    // The head exactly; the legs within 5°: their mappings straighten Sony's stand a
    // little toward a straight-limbed performer (the profiles say why).
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let (t, p) = tracks(model, &[]);
        let stand = &p.postures["stand"];
        for (i, joint) in p.joints.iter().enumerate() {
            if let Some(track) = &t.joints[i] {
                let diff = (track[0] - stand.joints[i]).to_degrees().abs();
                let bound = if joint.name.contains("_j") { 5.0 } else { 0.0 };
                assert!(diff <= bound + 1e-6, "{model} {}: {diff}°", joint.name);
            }
        }
    }
}

#[test]
fn a_user_mapping_file_overrides_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("mine.toml");
    // Drive the head pan from the head's roll instead, reversed and halved.
    std::fs::write(
        &map,
        "[[mapping]]\njoint = \"head_pan\"\nmeasure = \"head.roll\"\nsign = -1\nscale = 0.5\n",
    )
    .unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let overrides = load_mappings(&map, &profile).unwrap();
    // +40° about +z lifts the head's left side: right ear down, a roll of +40°.
    let (t, p) = tracks_with("ERS-7", &[("Head", 'z', 40.0)], &overrides);
    assert!(
        (moved(&t, &p, "head_pan") + 20.0).abs() < 1e-6,
        "{}",
        moved(&t, &p, "head_pan")
    );
    assert!(t
        .drivers
        .iter()
        .any(|d| d.joint == "head_pan" && d.measure == "head.roll"));
    // The other mappings stay.
    assert!(t.drivers.iter().any(|d| d.joint == "head_tilt"));

    std::fs::write(
        &map,
        "[[mapping]]\njoint = \"head_pan\"\nmeasure = \"head.wobble\"\n",
    )
    .unwrap();
    let err = load_mappings(&map, &profile).unwrap_err().to_string();
    assert!(
        err.contains("line 1") && err.contains("head.wobble"),
        "{err}"
    );
}

#[test]
fn body_attitude_follows_the_pelvis() {
    // Leaning back 10° (the forward axis tips up: −10° about +x), turned left 30°, and
    // leaning right 5° (the left side up: +5° about +z), applied as Rz·Rx·Ry.
    let (t, _) = tracks("ERS-7", &[("Hips", 'x', -10.0)]);
    let [roll, pitch, yaw] = t.body.clone().unwrap();
    assert!((pitch[1].to_degrees() - 10.0).abs() < 1e-6);
    assert!(roll[1].abs() < 1e-9 && yaw[1].abs() < 1e-9);
    let (t, _) = tracks("ERS-7", &[("Hips", 'y', 30.0)]);
    assert!((t.body.unwrap()[2][1].to_degrees() - 30.0).abs() < 1e-6);
    let (t, _) = tracks("ERS-7", &[("Hips", 'z', 5.0)]);
    assert!((t.body.unwrap()[0][1].to_degrees() - 5.0).abs() < 1e-6);
}
