//! Any bytes: the BVH reader returns a clip or a located error, never panics or hangs,
//! and a clip it returns is consistent and poses without panicking.
#![no_main]

use aibo_motion::source::bvh;
use aibo_motion::source::kinematics::world_pose;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match bvh::read(data) {
        Ok(clip) => {
            let joints = clip.joint_count();
            assert_eq!(clip.rotations.len(), clip.frames * joints);
            assert_eq!(clip.translations.len(), clip.frames * clip.moving_columns());
            for frame in 0..clip.frames.min(4) {
                let _ = world_pose(&clip, frame);
            }
        }
        Err(e) => assert!(e.line >= 1),
    }
});
