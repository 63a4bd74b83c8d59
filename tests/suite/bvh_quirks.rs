//! BVH quirks, synthesized: what real exporters write (tabs, CRLF, exponents, per-joint
//! channel orders, missing End Sites, a `Frames:` count that disagrees with the data) and
//! what the format allows but no real sample shows (several ROOTs, lower-case keywords,
//! a byte-order mark, `Frames: 0`).

use aibo_motion::source::bvh;
use aibo_motion::source::kinematics::{end_positions, world_pose};
use glam::DVec3;

fn close(a: DVec3, b: DVec3) -> bool {
    (a - b).length() < 1e-9
}

const SIMPLE: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
1 2 3 0 0 0 0 0 0
1 2 3 90 0 0 0 0 0
";

#[test]
fn a_plain_file_reads_and_poses() {
    let clip = bvh::read(SIMPLE.as_bytes()).unwrap();
    assert_eq!(clip.joint_count(), 2);
    assert_eq!(clip.frames, 2);
    assert_eq!(clip.frame_time, 0.5);
    assert!(clip.warnings.is_empty(), "{:?}", clip.warnings);
    let pose = world_pose(&clip, 1);
    // Position channels place the root; Zrotation 90 turns the chest's +y offset to −x.
    assert!(close(pose.positions[0], DVec3::new(1.0, 2.0, 3.0)));
    assert!(close(pose.positions[1], DVec3::new(-9.0, 2.0, 3.0)));
    let ends = end_positions(&clip, &pose);
    assert!(close(ends[1].unwrap(), DVec3::new(-14.0, 2.0, 3.0)));
}

#[test]
fn channels_compose_as_intrinsic_rotations_in_listed_order() {
    // Zrotation 90 then Xrotation 90 (Rz·Rx) takes the child's +y offset to +z … by hand:
    // Rx(90)·(0,1,0) = (0,0,1); Rz(90)·(0,0,1) = (0,0,1).
    // Xrotation 90 then Zrotation 90 (Rx·Rz): Rz(90)·(0,1,0) = (−1,0,0); Rx keeps it.
    for (order, want) in [
        ("Zrotation Xrotation", DVec3::new(0.0, 0.0, 1.0)),
        ("Xrotation Zrotation", DVec3::new(-1.0, 0.0, 0.0)),
    ] {
        let text = format!(
            "HIERARCHY\nROOT a\n{{\nOFFSET 0 0 0\nCHANNELS 2 {order}\nJOINT b\n{{\nOFFSET 0 1 0\n}}\n}}\n\
             MOTION\nFrames: 1\nFrame Time: 1\n90 90\n"
        );
        let clip = bvh::read(text.as_bytes()).unwrap();
        let pose = world_pose(&clip, 0);
        assert!(
            close(pose.positions[1], want),
            "{order}: {}",
            pose.positions[1]
        );
    }
}

#[test]
fn position_channels_replace_the_offset_on_any_joint() {
    // Bandai Namco writes 6 channels on every joint, the position repeating the OFFSET.
    let text = "HIERARCHY\nROOT r\n{\nOFFSET 5 5 5\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
                JOINT c\n{\nOFFSET 0 10 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n}\n\
                MOTION\nFrames: 1\nFrame Time: 1\n0 0 0 0 0 0 0 10 0 0 0 0\n";
    let clip = bvh::read(text.as_bytes()).unwrap();
    let pose = world_pose(&clip, 0);
    assert!(close(pose.positions[0], DVec3::ZERO));
    assert!(close(pose.positions[1], DVec3::new(0.0, 10.0, 0.0)));
}

#[test]
fn several_roots_and_a_three_channel_root() {
    let text = "HIERARCHY\nROOT a\n{\nOFFSET 1 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}\n\
                ROOT b\n{\nOFFSET 0 2 0\nCHANNELS 1 Yposition\n}\n\
                MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 7\n";
    let clip = bvh::read(text.as_bytes()).unwrap();
    assert_eq!(clip.joint_count(), 2);
    assert_eq!(clip.skeleton.joints[1].parent, None);
    let pose = world_pose(&clip, 0);
    assert!(close(pose.positions[0], DVec3::new(1.0, 0.0, 0.0)));
    assert!(close(pose.positions[1], DVec3::new(0.0, 7.0, 0.0)));
}

#[test]
fn end_site_spellings_and_one_line_blocks() {
    let text = "hierarchy\nroot a\n{\noffset 0 0 0\nchannels 1 xrotation\n\
                joint b\n{\nOFFSET 0 1 0\nEnd site\n{\nOFFSET 0 2 0\n}\n}\n\
                JOINT c\n{\nOFFSET 1 0 0\nEnd Site c_end { OFFSET 3 0 0 }\n}\n\
                JOINT d\n{\nOFFSET 0 0 1\n}\n}\n\
                motion\nframes: 1\nframe time: 0.1\n0\n";
    let clip = bvh::read(text.as_bytes()).unwrap();
    let names: Vec<&str> = clip
        .skeleton
        .joints
        .iter()
        .map(|j| j.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert_eq!(clip.skeleton.joints[1].end, Some(DVec3::new(0.0, 2.0, 0.0)));
    assert_eq!(clip.skeleton.joints[2].end, Some(DVec3::new(3.0, 0.0, 0.0)));
    // A leaf without an End Site is kept, with no end.
    assert_eq!(clip.skeleton.joints[3].end, None);
    assert_eq!(clip.frames, 1);
}

#[test]
fn line_ends_bom_tabs_and_number_spellings() {
    let lf = SIMPLE.replace("1 2 3 90 0 0 0 0 0", "\t1 2 3 90.0 -0 .0 0 -0.0 1e-015");
    for (what, text) in [
        ("CRLF", lf.replace('\n', "\r\n")),
        ("bare CR", lf.replace('\n', "\r")),
        ("BOM", format!("\u{feff}{lf}")),
        ("no final newline", lf.trim_end().to_string()),
        ("blank lines at the end", format!("{lf}\n\n  \n")),
        (
            "tabs",
            lf.replace("  ", "\t").replace("Frames: ", "Frames:\t"),
        ),
        (
            "no leading zero in frame time",
            lf.replace("Frame Time: 0.5", "Frame Time: .5"),
        ),
    ] {
        let clip = bvh::read(text.as_bytes()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(clip.frames, 2, "{what}");
        assert_eq!(clip.frame_time, 0.5, "{what}");
        assert!(clip.warnings.is_empty(), "{what}: {:?}", clip.warnings);
        let pose = world_pose(&clip, 1);
        assert!(
            close(pose.positions[1], DVec3::new(-9.0, 2.0, 3.0)),
            "{what}"
        );
    }
}

#[test]
fn joints_without_channels_and_channels_in_any_order() {
    let text =
        "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 4 Yrotation Zposition Xposition Yposition\n\
                JOINT still\n{\nOFFSET 0 1 0\nJOINT tip\n{\nOFFSET 0 1 0\nCHANNELS 0\n}\n}\n}\n\
                MOTION\nFrames: 1\nFrame Time: 0.1\n90 3 1 2\n";
    let clip = bvh::read(text.as_bytes()).unwrap();
    let pose = world_pose(&clip, 0);
    assert!(close(pose.positions[0], DVec3::new(1.0, 2.0, 3.0)));
    assert!(close(pose.positions[2], DVec3::new(1.0, 4.0, 3.0)));
}

#[test]
fn frames_header_that_disagrees_with_the_data_is_a_warning() {
    let more = SIMPLE.replace("Frames: 2", "Frames: 1");
    let clip = bvh::read(more.as_bytes()).unwrap();
    assert_eq!(clip.frames, 2);
    assert!(
        clip.warnings[0].contains("Frames: 1"),
        "{:?}",
        clip.warnings
    );
    let fewer = SIMPLE.replace("Frames: 2", "Frames: 1000000000");
    let clip = bvh::read(fewer.as_bytes()).unwrap();
    assert_eq!(clip.frames, 2);
    assert!(clip.warnings[0].contains("1000000000"));
}

#[test]
fn frames_zero_with_no_motion() {
    let text = SIMPLE.split("Frames:").next().unwrap().to_string() + "Frames: 0\nFrame Time: 0.1\n";
    let clip = bvh::read(text.as_bytes()).unwrap();
    assert_eq!(clip.frames, 0);
    assert!(clip.warnings.is_empty());
}

#[test]
fn names_with_colons_and_spaces_survive() {
    let text = SIMPLE
        .replace("ROOT Hips", "ROOT mixamorig:Hips")
        .replace("JOINT Chest", "JOINT Character1 Chest");
    let clip = bvh::read(text.as_bytes()).unwrap();
    assert_eq!(clip.skeleton.joints[0].name, "mixamorig:Hips");
    assert_eq!(clip.skeleton.joints[1].name, "Character1 Chest");
}

#[test]
fn full_precision_is_kept() {
    let text = SIMPLE.replace("1 2 3 90 0 0", "0.1234567890123456789 2 3 90 0 0");
    let clip = bvh::read(text.as_bytes()).unwrap();
    assert_eq!(clip.translation(1, 0).x, 0.123_456_789_012_345_68);
}

#[test]
fn a_wrong_value_count_names_the_line_and_both_counts() {
    let text = SIMPLE.replace("1 2 3 90 0 0 0 0 0", "1 2 3 90 0 0 0 0");
    let err = bvh::read(text.as_bytes()).unwrap_err();
    assert_eq!(err.line, 20);
    assert!(
        err.to_string().contains("8 values") && err.to_string().contains("9 channels"),
        "{err}"
    );
}

#[test]
fn malformed_input_is_located() {
    let cases = [
        (SIMPLE.replace("OFFSET 0 10 0", "OFFSET 0 ten 0"), 8, 14),
        (SIMPLE.replace("CHANNELS 3", "CHANNELS 99"), 9, 14),
        (
            SIMPLE.replace(
                "Zrotation Xrotation Yrotation\n    End",
                "Zrotation Xrotation Wrotation\n    End",
            ),
            9,
            36,
        ),
        (SIMPLE.replace("1 2 3 0", "1 2 x 0"), 19, 5),
        (SIMPLE.replace("Frame Time: 0.5", "Frame Time: 0"), 18, 13),
        (SIMPLE.replace("HIERARCHY", "HIERARCHX"), 1, 1),
    ];
    for (text, line, column) in cases {
        let err = bvh::read(text.as_bytes()).unwrap_err();
        assert_eq!((err.line, err.column), (line, column), "{err}");
    }
}

#[test]
fn every_truncation_fails_cleanly_or_reads_a_prefix() {
    let bytes = SIMPLE.as_bytes();
    for len in 0..bytes.len() {
        match bvh::read(&bytes[..len]) {
            Ok(clip) => assert!(clip.frames <= 2),
            Err(e) => assert!(e.line >= 1 && e.line <= 21, "{len}: {e}"),
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let mut text = String::from("HIERARCHY\nROOT r\n{\n");
    for i in 0..depth {
        text.push_str(&format!("JOINT j{i}\n{{\n"));
    }
    let clip_err = bvh::read(text.as_bytes());
    assert!(clip_err.is_err());
}
