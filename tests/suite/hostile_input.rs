//! Damaged MTN and ODA input: every failure is an error that names a byte offset inside
//! the data, never a panic.

use crate::common;

use aibo_motion::mtn;
use aibo_motion::oda::{Archive, Entry};

fn sample_bytes() -> Vec<u8> {
    mtn::encode(&common::synthetic_motion(5, &[2, 0, 7])).unwrap()
}

#[test]
fn every_truncation_is_a_located_error() {
    let bytes = sample_bytes();
    for len in 0..bytes.len() {
        let err = mtn::decode(&bytes[..len]).unwrap_err();
        assert!(err.offset <= len, "len {len}: {err}");
    }
}

#[test]
fn every_single_byte_corruption_is_handled() {
    let bytes = sample_bytes();
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] = v;
            if let Err(e) = mtn::decode(&b) {
                assert!(e.offset < b.len(), "byte {i} = {v}: {e}");
            }
        }
    }
}

#[test]
fn specific_damage_is_described() {
    let bytes = sample_bytes();
    let err = |b: &[u8]| mtn::decode(b).unwrap_err().to_string();

    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(err(&b).contains("file magic"), "{}", err(&b));

    // Section 1 size larger than its content.
    let mut b = bytes.clone();
    b[32] += 4;
    let e = err(&b);
    assert!(e.starts_with("at byte 32: Section 1 size"), "{e}");

    // Absurd keyframe count: the file is far too short for it.
    let mut b = bytes.clone();
    b[20..22].copy_from_slice(&u16::MAX.to_le_bytes());
    let e = err(&b);
    assert!(e.contains("65535 keyframes"), "{e}");

    // Zero keyframes.
    let mut b = bytes.clone();
    b[20..22].copy_from_slice(&0u16.to_le_bytes());
    assert!(err(&b).contains("at least 1"));

    // Negative interpolation count before keyframe 1.
    let m = mtn::decode(&bytes).unwrap().motion;
    let s3 = bytes.len() - (12 + 4 * 4 * (3 + 5) + 3 * 4);
    let at = s3 + 12 + 4 * (3 + 5);
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(&(-1i32).to_le_bytes());
    let e = err(&b);
    assert!(
        e.starts_with(&format!("at byte {at}: interpolation")),
        "{e}"
    );
    assert_eq!(m.keyframes[1].frames_before, 2);

    // Trailing bytes are a warning, not an error.
    let mut b = bytes.clone();
    b.extend_from_slice(&[0; 8]);
    let d = mtn::decode(&b).unwrap();
    assert!(
        d.warnings[0].contains("8 bytes after the last keyframe"),
        "{:?}",
        d.warnings
    );
}

#[test]
fn random_bytes_never_panic() {
    // A small deterministic generator, so the test is repeatable.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let sample = sample_bytes();
    let archive = Archive {
        entries: vec![Entry {
            kind: *b"OMTN",
            name: "x".into(),
            data: sample.clone(),
        }],
    }
    .encode()
    .unwrap();
    for _ in 0..20_000 {
        for base in [&sample, &archive] {
            let mut b = base.clone();
            let edits = next() % 6;
            for _ in 0..=edits {
                let i = (next() as usize) % b.len();
                b[i] = next() as u8;
            }
            b.truncate((next() as usize) % (b.len() + 1));
            let _ = mtn::decode(&b);
            if let Ok(d) = Archive::decode(&b) {
                let _ = d.archive.encode();
            }
        }
    }
}

#[test]
fn names_from_files_reach_the_terminal_escaped() {
    // A motion name and a BVH joint name carrying terminal control sequences (set the
    // window title, clear the screen): `info` shows them escaped, never sends them.
    let evil = "a\u{1b}]0;pwned\u{7}\u{1b}[2J";
    let dir = tempfile::tempdir().unwrap();
    let mut motion = common::synthetic_motion(5, &[2]);
    motion.name = evil.to_string();
    let mtn_path = dir.path().join("evil.mtn");
    std::fs::write(&mtn_path, mtn::encode(&motion).unwrap()).unwrap();
    let bvh_path = dir.path().join("evil.bvh");
    std::fs::write(
        &bvh_path,
        format!(
            "HIERARCHY\nROOT {}\n{{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n \
             End Site\n {{\n  OFFSET 0 1 0\n }}\n}}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n",
            evil.replace(' ', "_")
        ),
    )
    .unwrap();
    for path in [&mtn_path, &bvh_path] {
        let run = common::run(&["info", path.to_str().unwrap()]);
        assert!(run.status.success(), "{}", common::stderr(&run));
        let out = common::stdout(&run);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(out.contains("\\u{1b}]0;pwned"), "{out}");
    }
}

#[test]
fn names_from_files_reach_the_terminal_escaped_from_build_check_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let no_controls = |what: &str, text: &str| {
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{what}: {text:?}"
        );
    };
    // A joint name that still reads as a forearm (names match on letters and digits)
    // but rings the bell and clears the screen: build's mapping lines show it escaped.
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/nod-and-wave.bvh"
    ))
    .unwrap();
    let evil = example.replace("JOINT RightForeArm ", "JOINT RightForeArm\u{7}\u{1b} ");
    assert_ne!(evil, example);
    let bvh = dir.path().join("evil.bvh");
    std::fs::write(&bvh, evil).unwrap();
    let out = dir.path().join("evil.mtn");
    let run = common::run(&[
        "-v",
        "build",
        bvh.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let stdout = common::stdout(&run);
    assert!(stdout.contains("RightForeArm\\u{7}\\u{1b}"), "{stdout}");
    no_controls("build stdout", &stdout);
    no_controls("build stderr", &common::stderr(&run));
    // A locator no profile knows, carrying the same: check's warning shows it escaped.
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/hello-ers7.json"
    ))
    .unwrap();
    let mut motion = mtn::from_json(&example).unwrap();
    motion.locators[0] = "PRM:/evil\u{1b}]0;pwned\u{7}".into();
    let mtn_path = dir.path().join("evil-locator.mtn");
    std::fs::write(&mtn_path, mtn::encode(&motion).unwrap()).unwrap();
    let run = common::run(&[
        "check",
        mtn_path.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "--partial",
    ]);
    let stderr = common::stderr(&run);
    assert!(stderr.contains("evil\\u{1b}]0;pwned"), "{stderr}");
    no_controls("check stderr", &stderr);
    no_controls("check stdout", &common::stdout(&run));
    // An error quoting a file's bytes (a BVH keyword that is none).
    let bad = dir.path().join("bad.bvh");
    std::fs::write(&bad, "HIERARCHY\nROOT\u{1b}[2J x\n").unwrap();
    let run = common::run(&["info", bad.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    no_controls("error", &common::stderr(&run));
}
