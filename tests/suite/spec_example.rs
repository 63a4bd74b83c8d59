//! Sony's own example file, rebuilt from the hex dump in its MTN format document
//! (`../shared/specs/seeds/002_e157e65ec93c2b22.txt`), decodes to the values read off
//! that dump by hand.

use crate::common;

use aibo_motion::mtn;

/// The bytes of the hex dump: lines `  NNN. AAAAAAAA : HH HH … : ascii`.
fn bytes_from_hex_dump(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.lines() {
        // The document pads the dump with no-break spaces.
        let line = line.replace('\u{a0}', " ");
        let parts: Vec<&str> = line.split(" : ").collect();
        let [prefix, hex, _ascii] = parts[..] else {
            continue;
        };
        let Some(address) = prefix.split_whitespace().last() else {
            continue;
        };
        let Ok(address) = usize::from_str_radix(address, 16) else {
            continue;
        };
        assert_eq!(address, out.len(), "hex dump lines are contiguous");
        for byte in hex.split_whitespace() {
            out.push(u8::from_str_radix(byte, 16).unwrap());
        }
    }
    out
}

#[test]
#[cfg_attr(not(shared_specs), ignore = "needs ../shared/specs/seeds")]
fn spec_example_decodes_to_its_known_values() {
    let seeds = common::shared("specs/seeds");
    let text = std::fs::read(seeds.join("002_e157e65ec93c2b22.txt")).unwrap();
    let bytes = bytes_from_hex_dump(&String::from_utf8_lossy(&text));
    assert_eq!(bytes.len(), 1164);

    let decoded = mtn::decode(&bytes).unwrap();
    assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
    let m = &decoded.motion;
    assert_eq!(m.name, "a_stand#sit_S");
    assert_eq!(m.creator, "Sony Corporation");
    assert_eq!(m.design_label, "DRX-910");
    assert_eq!(m.frame_ms, 16);
    assert_eq!(m.locators.len(), 20);
    assert_eq!(m.locators[0], "PRM:/r1/c1-Joint2:j1");
    assert_eq!(m.locators[4], "PRM:/r1/c1/c2/c3/e1-Joint3:j5");
    assert_eq!(m.locators[19], "PRM:/r6/c2-Joint2:j2");

    let interps: Vec<u32> = m.keyframes.iter().map(|k| k.frames_before).collect();
    assert_eq!(interps, [0, 60, 50, 40, 50, 100]);
    // Keyframe 0 from bytes 0x250..0x2AC of the dump.
    let k0 = &m.keyframes[0];
    assert_eq!((k0.roll, k0.pitch, k0.yaw), (0, 34906, 0));
    assert_eq!(
        k0.joints,
        [
            0, 0, 0, -52360, 0, 0, -174533, 0, 523600, -17453, 0, 436333, -174533, 0, 523601, 0, 0,
            436334, 0, 0
        ]
    );
    // Keyframe 1 starts at 0x2B0: pitch F0 66 FE FF, head tilt 28 36 F7 FF.
    assert_eq!(m.keyframes[1].pitch, -104720);
    assert_eq!(m.keyframes[1].joints[0], -575960);

    // 4880 ms: (61 + 51 + 41 + 51 + 101) × 16; dense frames Σ(2n + 2) + 1.
    assert_eq!(m.duration_ms(), 4880);
    assert_eq!(mtn::dense_frame_count(m), 611);
    assert_eq!(mtn::encode(m).unwrap(), bytes);
}

#[test]
#[cfg_attr(
    not(all(shared_specs, shared_mtn)),
    ignore = "needs ../shared/specs/seeds and ../shared/mtn-samples"
)]
fn the_shared_spec_example_is_the_dump_byte_for_byte() {
    let seeds = common::shared("specs/seeds");
    let text = std::fs::read(seeds.join("002_e157e65ec93c2b22.txt")).unwrap();
    let bytes = bytes_from_hex_dump(&String::from_utf8_lossy(&text));
    let samples = common::shared("mtn-samples");
    let file = std::fs::read(samples.join("sony-spec-example/a_stand#sit_S.mtn")).unwrap();
    assert_eq!(file, bytes);
}
