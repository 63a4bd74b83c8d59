//! Any bytes as an MWC catalogue (plain or gzip): a catalogue or a located error, never a
//! panic or an unbounded inflation; whatever reads writes back to bytes that read the same.
#![no_main]

use aibo_motion::stick::mwc;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = mwc::decode(data) else {
        return;
    };
    let bytes = mwc::encode(&decoded.catalogue, &decoded.packing).expect("a read catalogue writes");
    let again = mwc::decode(&bytes).expect("a written catalogue reads");
    assert_eq!(again, decoded);
    if decoded.packing == mwc::Packing::Plain {
        assert_eq!(bytes, data, "a plain catalogue writes back byte for byte");
    }
});
