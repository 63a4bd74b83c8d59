//! Any bytes: the ASF reader returns a skeleton or a located error, never panics.
#![no_main]

use aibo_motion::source::asf;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(skeleton) = asf::read(data) {
        assert_eq!(skeleton.bones.len(), skeleton.skeleton.joints.len());
        for (i, j) in skeleton.skeleton.joints.iter().enumerate() {
            assert!(j.parent.is_none_or(|p| p < i));
        }
    }
});
