//! Tiny files cannot ask for unbounded work: frame times and durations have bounds that
//! every reader holds before it allocates for them, and error messages repeat at most a
//! short excerpt of what they quote.

use crate::common;

use aibo_motion::source::{self, amc, asf, bvh, MAX_DURATION_S, MAX_FRAME_TIME_S};
use std::time::Instant;

/// A one-joint BVH of `frames` frames, `frame_time` as written.
fn bvh_text(frames: usize, frame_time: &str) -> String {
    let mut text = format!(
        "HIERARCHY\nROOT a\n{{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n \
         End Site\n {{\n  OFFSET 0 1 0\n }}\n}}\nMOTION\nFrames: {frames}\nFrame Time: {frame_time}\n"
    );
    for _ in 0..frames {
        text.push_str("0 0 0\n");
    }
    text
}

#[test]
fn frame_times_past_the_bounds_are_refused_with_their_line() {
    for frame_time in ["1000000", "1e300", "0.00000001", "11"] {
        let err = bvh::read(bvh_text(3, frame_time).as_bytes()).unwrap_err();
        assert_eq!(err.line, 13, "{frame_time}: {err}");
        assert!(err.message.contains("frame time"), "{frame_time}: {err}");
    }
    // The bounds themselves are accepted.
    for frame_time in ["0.0001", "10"] {
        bvh::read(bvh_text(3, frame_time).as_bytes())
            .unwrap_or_else(|e| panic!("{frame_time}: {e}"));
    }
}

#[test]
fn a_motion_longer_than_an_hour_is_refused() {
    let frames = (MAX_DURATION_S / MAX_FRAME_TIME_S) as usize + 2;
    let err = bvh::read(bvh_text(frames, "10").as_bytes()).unwrap_err();
    assert!(err.message.contains("hours"), "{err}");
    let ok = bvh::read(bvh_text(frames - 1, "10").as_bytes()).unwrap();
    assert_eq!(ok.duration(), MAX_DURATION_S);

    // An AMC at a rate past the bounds, at one that stretches its frames past an hour,
    // and at the slowest rate within them.
    let asf_text = ":version 1.10\n:name t\n:units\n  length 1\n  angle deg\n:root\n  order TX TY TZ RX RY RZ\n  axis XYZ\n  position 0 0 0\n  orientation 0 0 0\n:bonedata\n:hierarchy\n  begin\n  end\n";
    let skeleton = asf::read(asf_text.as_bytes()).unwrap();
    let amc_text: String = (1..=3)
        .map(|k| format!("{k}\nroot 0 0 0 0 0 0\n"))
        .collect();
    let err = amc::read(&skeleton, amc_text.as_bytes(), 1e-9).unwrap_err();
    assert!(err.message.contains("frames per second"), "{err}");
    let long: String = (1..=400)
        .map(|k| format!("{k}\nroot 0 0 0 0 0 0\n"))
        .collect();
    let err = amc::read(&skeleton, long.as_bytes(), 0.1).unwrap_err();
    assert!(err.message.contains("hours"), "{err}");
    assert_eq!(
        amc::read(&skeleton, amc_text.as_bytes(), 0.1)
            .unwrap()
            .frames,
        3
    );
}

#[test]
fn a_few_bytes_stating_a_year_are_refused_at_once_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("zombie.bvh");
    let text = bvh_text(2, "1000000");
    std::fs::write(&input, &text).unwrap();
    let out = dir.path().join("z.mtn");
    let picture = dir.path().join("z.svg");
    for command in [
        vec!["build", "--profile", "ERS-7", "-o", out.to_str().unwrap()],
        vec![
            "plot",
            "--profile",
            "ERS-7",
            "-o",
            picture.to_str().unwrap(),
        ],
        vec![
            "preview",
            "--profile",
            "ERS-7",
            "-o",
            picture.to_str().unwrap(),
        ],
    ] {
        let mut args = command.clone();
        args.insert(1, input.to_str().unwrap());
        let started = Instant::now();
        let run = common::run(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert!(common::stderr(&run).contains("frame time"), "{args:?}");
        // Not a timing assertion on a busy machine: a refusal takes no minutes.
        assert!(started.elapsed().as_secs() < 60);
    }
    assert!(!out.exists() && !picture.exists());
    // --fps past its bounds is a usage error naming the range.
    let run = common::run(&["info", input.to_str().unwrap(), "--fps", "1e-9"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(common::stderr(&run).contains("from 0.1 to 10000"));
}

#[test]
fn error_messages_quote_an_excerpt_not_the_whole_token() {
    // A megabyte where a number should be.
    let mut text = bvh_text(1, "0.1");
    let huge = "x".repeat(1 << 20);
    text = text.replace("OFFSET 0 0 0", &format!("OFFSET {huge} 0 0"));
    let err = bvh::read(text.as_bytes()).unwrap_err().to_string();
    assert!(err.len() < 300, "{} bytes of message", err.len());
    assert!(err.contains(&format!("({} bytes)", huge.len())), "{err}");
    // And in a motion line, read by another path.
    let mut text = bvh_text(1, "0.1");
    text = text.replace("0 0 0\n", &format!("0 {huge} 0\n"));
    let err = source::read(
        std::path::Path::new("x.bvh"),
        text.as_bytes(),
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.len() < 300, "{} bytes of message", err.len());
}

/// An MTN whose second keyframe comes `count` interpolation frames after the first.
fn mtn_with_count(count: u32) -> Vec<u8> {
    let motion = common::synthetic_motion(5, &[12_345, 3]);
    let mut bytes = aibo_motion::mtn::encode(&motion).unwrap();
    let marker = 12_345i32.to_le_bytes();
    let at = bytes
        .windows(4)
        .position(|w| w == marker)
        .expect("the count is in the file");
    bytes[at..at + 4].copy_from_slice(&count.to_le_bytes());
    bytes
}

#[test]
fn interpolation_counts_sonys_player_cannot_play_are_refused() {
    use aibo_motion::mtn::{self, MAX_FRAMES_BEFORE};
    for count in [i32::MAX as u32, 1 << 30] {
        let err = mtn::decode(&mtn_with_count(count)).unwrap_err();
        assert!(err.to_string().contains("Sony's player"), "{err}");
    }
    // The largest count it plays reads, with a word about its length.
    let decoded = mtn::decode(&mtn_with_count(MAX_FRAMES_BEFORE)).unwrap();
    assert!(
        decoded
            .warnings
            .iter()
            .any(|w| w.contains("implausibly long")),
        "{:?}",
        decoded.warnings
    );
    // Slowing it down would need a count past it: refused, not clamped.
    let err = aibo_motion::edit::scale_time(&decoded.motion, 0.5, None).unwrap_err();
    assert!(
        matches!(err, aibo_motion::edit::ScaleError::TooLong { keyframe: 1 }),
        "{err}"
    );
}

#[test]
fn dense_dumps_of_long_motions_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("long.mtn");
    std::fs::write(&input, mtn_with_count(aibo_motion::mtn::MAX_FRAMES_BEFORE)).unwrap();
    let out = dir.path().join("long.csv");
    let run = common::run(&[
        "dump",
        input.to_str().unwrap(),
        "--format",
        "csv",
        "--dense",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        common::stderr(&run).contains("more than the"),
        "{}",
        common::stderr(&run)
    );
    assert!(!out.exists());
    // Its keyframes dump as ever.
    let run = common::run(&[
        "dump",
        input.to_str().unwrap(),
        "--format",
        "csv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
}

#[test]
fn a_file_of_no_kind_is_refused_at_byte_0_with_its_start_quoted() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [("bad.mtn", &b"XXXXrest"[..]), ("short.mtn", &b"OM"[..])] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let run = common::run(&["info", path.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(2));
        let err = common::stderr(&run);
        assert!(
            err.contains("at byte 0: not a file this build reads"),
            "{err}"
        );
        let start = String::from_utf8_lossy(&bytes[..bytes.len().min(4)]).into_owned();
        assert!(err.contains(&format!("{start:?}")), "{err}");
    }
}
