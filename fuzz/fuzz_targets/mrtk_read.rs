//! Any bytes: the MRTK reader returns a sampled clip or an error with an offset; it never
//! panics and never allocates beyond its stated bounds.
#![no_main]

use aibo_motion::source::mrtk;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A low rate keeps each run short; the bounds are the reader's own.
    if let Ok(clip) = mrtk::read(data, Some(5.0)) {
        assert_eq!(clip.rotations.len(), clip.frames * clip.joint_count());
        for s in &clip.signals {
            assert_eq!(s.values.len(), clip.frames);
        }
    }
});
