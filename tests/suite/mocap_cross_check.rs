//! A cross-format check that the real data allows: CMU take 01_01 as ASF/AMC
//! (`cmu_01.asf` + `cmu_01_01.amc`) and as an independently converted BVH
//! (`assimp__cmu_01_01.bvh`, whose frame k+1 is AMC frame k). Every bone's direction in
//! the world must agree on every frame: a test of both readers and of forward kinematics
//! at once.

use crate::common;

use aibo_motion::source::kinematics::{end_positions, world_pose, WorldPose};
use aibo_motion::source::{self, Clip, ReadOptions};
use glam::DVec3;
use std::path::Path;

/// ASF bone → (BVH joint at the bone's start, BVH joint at its end or `None` for the
/// start joint's End Site), as the cgspeed conversion names them.
const BONES: [(&str, &str, Option<&str>); 30] = [
    ("lhipjoint", "LHipJoint", Some("LeftUpLeg")),
    ("lfemur", "LeftUpLeg", Some("LeftLeg")),
    ("ltibia", "LeftLeg", Some("LeftFoot")),
    ("lfoot", "LeftFoot", Some("LeftToeBase")),
    ("ltoes", "LeftToeBase", None),
    ("rhipjoint", "RHipJoint", Some("RightUpLeg")),
    ("rfemur", "RightUpLeg", Some("RightLeg")),
    ("rtibia", "RightLeg", Some("RightFoot")),
    ("rfoot", "RightFoot", Some("RightToeBase")),
    ("rtoes", "RightToeBase", None),
    ("lowerback", "LowerBack", Some("Spine")),
    ("upperback", "Spine", Some("Spine1")),
    ("thorax", "Spine1", Some("Neck")),
    ("lowerneck", "Neck", Some("Neck1")),
    ("upperneck", "Neck1", Some("Head")),
    ("head", "Head", None),
    ("lclavicle", "LeftShoulder", Some("LeftArm")),
    ("lhumerus", "LeftArm", Some("LeftForeArm")),
    ("lradius", "LeftForeArm", Some("LeftHand")),
    ("lwrist", "LeftHand", Some("LeftFingerBase")),
    ("lhand", "LeftFingerBase", Some("LFingers")),
    ("lfingers", "LFingers", None),
    ("lthumb", "LThumb", None),
    ("rclavicle", "RightShoulder", Some("RightArm")),
    ("rhumerus", "RightArm", Some("RightForeArm")),
    ("rradius", "RightForeArm", Some("RightHand")),
    ("rwrist", "RightHand", Some("RightFingerBase")),
    ("rhand", "RightFingerBase", Some("RFingers")),
    ("rfingers", "RFingers", None),
    ("rthumb", "RThumb", None),
];

fn read(path: &Path, options: &ReadOptions) -> Clip {
    let data = std::fs::read(path).unwrap();
    source::read(path, &data, options).unwrap_or_else(|e| panic!("{e}"))
}

/// World direction of bone (start joint → end joint or End Site) in a posed BVH.
fn direction(clip: &Clip, pose: &WorldPose, start: &str, end: Option<&str>) -> DVec3 {
    let s = clip
        .skeleton
        .index_of(start)
        .unwrap_or_else(|| panic!("{start}"));
    let e = match end {
        Some(name) => pose.positions[clip.skeleton.index_of(name).unwrap()],
        None => end_positions(clip, pose)[s].unwrap(),
    };
    (e - pose.positions[s]).normalize()
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn cmu_01_01_bone_directions_agree_between_amc_and_bvh() {
    let dir = common::shared("mocap-samples");
    let amc = read(
        &dir.join("asf-amc/cmu_01_01.amc"),
        &ReadOptions {
            asf: Some(dir.join("asf-amc/cmu_01.asf")),
            fps: None,
        },
    );
    let bvh = read(
        &dir.join("bvh/assimp__cmu_01_01.bvh"),
        &ReadOptions::default(),
    );
    assert_eq!(amc.frames, 2751);
    assert_eq!(bvh.frames, 2752);

    let mut worst = (0.0f64, "", 0usize);
    for k in 0..amc.frames {
        let amc_pose = world_pose(&amc, k);
        let amc_ends = end_positions(&amc, &amc_pose);
        let bvh_pose = world_pose(&bvh, k + 1);
        for (bone, start, end) in BONES {
            let b = amc.skeleton.index_of(bone).unwrap();
            let from_amc = (amc_ends[b].unwrap() - amc_pose.positions[b]).normalize();
            let from_bvh = direction(&bvh, &bvh_pose, start, end);
            let angle = from_amc.angle_between(from_bvh).to_degrees();
            if angle > worst.0 {
                worst = (angle, bone, k);
            }
        }
    }
    println!(
        "largest disagreement: {:.4}° ({} on frame {})",
        worst.0, worst.1, worst.2
    );
    assert!(worst.0 < 0.1, "{worst:?}");
}
