//! Any bytes as an AMC on a fixed CMU-like skeleton: a clip or a located error.
#![no_main]

use aibo_motion::source::kinematics::world_pose;
use aibo_motion::source::{amc, asf};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const ASF: &str = ":units\n length 0.45\n angle deg\n:root\n order TX TY TZ RX RY RZ\n axis XYZ\n \
position 0 0 0\n orientation 0 0 0\n:bonedata\n begin\n name a\n direction 0 1 0\n length 2\n \
axis 0 0 30 XYZ\n dof rx ry rz\n limits (-180 180) (-180 180) (-180 180)\n end\n begin\n name b\n \
direction 1 0 0\n length 1\n axis 0 0 0 XYZ\n dof tx l\n end\n begin\n name c\n direction 0 0 1\n \
length 1\n axis 0 0 0 XYZ\n end\n:hierarchy\n begin\n root a\n a b\n b c\n end\n";

fuzz_target!(|data: &[u8]| {
    static SKELETON: OnceLock<asf::Asf> = OnceLock::new();
    let skeleton = SKELETON.get_or_init(|| asf::read(ASF.as_bytes()).expect("the fixture parses"));
    if let Ok(clip) = amc::read(skeleton, data, 120.0) {
        assert_eq!(clip.rotations.len(), clip.frames * clip.joint_count());
        for frame in 0..clip.frames.min(4) {
            let _ = world_pose(&clip, frame);
        }
    }
});
