//! Any bytes as ACTION.CFG or ACTION.AMS: a list or an error with its line, never a
//! panic; whatever reads writes back byte for byte (but for a missing CR before an LF).
#![no_main]

use aibo_motion::stick::actions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(list) = actions::decode(data) else {
        return;
    };
    let bytes = list.encode();
    let again = actions::decode(&bytes).expect("a written list reads");
    assert_eq!(again.encode(), bytes);
    for a in list.actions() {
        assert!(!a.name().is_empty());
    }
});
