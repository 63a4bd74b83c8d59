//! `export`: a motion as a BVH of the robot's skeleton, read back with our own BVH
//! reader, gives every joint's angle at every keyframe
//! time within 0.01° of the MTN.

use crate::common;

use aibo_motion::mtn::{self, Motion};
use aibo_motion::robot::profile::Profile;
use aibo_motion::robot::skeleton::Skeleton;
use aibo_motion::source::{self, ReadOptions};
use aibo_motion::view::export::{self, Rate};
use glam::DVec3;
use std::path::Path;

/// The largest difference, in degrees, between a keyframe's joint values and the BVH's.
fn round_trip_error(motion: &Motion, profile: &Profile, rate: Rate) -> f64 {
    let text = export::bvh(motion, profile, rate, None).unwrap();
    let clip = source::read(
        Path::new("motion.bvh"),
        text.as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert!(clip.warnings.is_empty(), "{:?}", clip.warnings);
    let skeleton = Skeleton::of(profile).unwrap();
    let frames_per_grid_step = match rate {
        Rate::Dense => 2,
        Rate::Grid => 1,
    };
    let mut worst = 0.0f64;
    let mut at = 0usize; // keyframe time in 16 ms steps
    for (k, kf) in motion.keyframes.iter().enumerate() {
        if k > 0 {
            at += kf.frames_before as usize + 1;
        }
        let frame = at * frames_per_grid_step;
        let rotations = clip.frame_rotations(frame);
        for bone in &skeleton.bones {
            let (Some(axis), Some(joint)) = (bone.axis, bone.joint) else {
                continue;
            };
            let (channel, sign) = export::channel_of(axis);
            let e = match channel {
                "Xrotation" => DVec3::X,
                "Yrotation" => DVec3::Y,
                _ => DVec3::Z,
            };
            let j = clip.skeleton.index_of(&bone.name).unwrap();
            let q = rotations[j];
            let about = DVec3::new(q.x, q.y, q.z);
            assert!(
                (about - e * about.dot(e)).length() < 1e-9,
                "{}: a turn about its axis only",
                bone.name
            );
            let angle = sign * 2.0 * about.dot(e).atan2(q.w).to_degrees();
            let want = (kf.joints[joint] as f64 * 1e-6).to_degrees();
            worst = worst.max((angle - want).abs());
        }
    }
    let dense = mtn::dense_frame_count(motion);
    let expected = if rate == Rate::Dense {
        dense
    } else {
        dense.div_ceil(2)
    };
    assert_eq!(clip.frames as u64, expected);
    worst
}

#[test]
fn a_motion_survives_the_round_trip_at_both_rates() {
    let motion = common::link::ers7_motion();
    let profile = Profile::builtin("ERS-7").unwrap();
    for rate in [Rate::Dense, Rate::Grid] {
        let worst = round_trip_error(&motion, &profile, rate);
        assert!(worst < 0.01, "{rate:?}: {worst}°");
    }
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn every_sony_sample_but_the_malformed_one_survives_the_round_trip() {
    let dir = common::shared("mtn-samples");
    let mut tried = 0;
    for path in common::mtn_files(&dir) {
        let data = std::fs::read(&path).unwrap();
        // The malformed sample (KnownGoodERS7.mtn, despite its name) is the one that
        // does not decode; tests/suite/real_samples.rs pins its error.
        let Ok(decoded) = mtn::decode(&data) else {
            assert!(
                path.ends_with("doggies-galore/KnownGoodERS7.mtn"),
                "{}",
                path.display()
            );
            continue;
        };
        let motion = decoded.motion;
        let profile = Profile::for_design_label(&motion.design_label).unwrap();
        let worst = round_trip_error(&motion, &profile, Rate::Grid);
        println!("{}: worst {worst:.6}°", path.display());
        assert!(worst < 0.01, "{}: {worst}°", path.display());
        tried += 1;
    }
    assert!(tried > 0);
}

#[test]
fn the_command_writes_a_bvh_our_reader_and_info_accept() {
    let dir = tempfile::tempdir().unwrap();
    let mtn_path = dir.path().join("m.mtn");
    std::fs::write(
        &mtn_path,
        mtn::encode(&common::link::ers7_motion()).unwrap(),
    )
    .unwrap();
    let out = dir.path().join("m.bvh");
    let run = common::run(&[
        "export",
        mtn_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--rate",
        "grid",
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let info = common::run(&["info", out.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["format"], "bvh");
    // The body and one joint per robot joint (End Sites are not joints).
    assert_eq!(v["joints"], 21);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0);
}
