//! Any bytes: decoding never panics, and whatever decodes re-encodes to a file that
//! decodes to the same motion (and, through JSON, to the same bytes).
#![no_main]

use aibo_motion::mtn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = mtn::decode(data) else {
        return;
    };
    let motion = decoded.motion;
    let bytes = mtn::encode(&motion).expect("a decoded motion encodes");
    let again = mtn::decode(&bytes).expect("an encoded motion decodes");
    assert_eq!(again.motion, motion);
    let from_json = mtn::from_json(&mtn::to_json(&motion)).expect("JSON round trip");
    assert_eq!(mtn::encode(&from_json).unwrap(), bytes);
    // Dense playback is lazy; walk a bounded prefix of it.
    for frame in mtn::dense_frames(&motion).take(10_000) {
        assert_eq!(frame.joints.len(), motion.locators.len());
    }
    let _ = aibo_motion::check::check(
        &motion,
        &aibo_motion::robot::profile::Profile::builtin("ERS-7").unwrap(),
    );
});
