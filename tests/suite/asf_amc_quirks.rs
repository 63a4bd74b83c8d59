//! ASF/AMC as the 1995 spec allows and real exporters write, synthesized: commas and parentheses as whitespace, units, root order and axis, bone
//! axis frames, translation and length dofs, bones without dof, unknown keywords,
//! per-frame bone order, :RADIANS, and how an AMC finds its ASF.

use aibo_motion::source::kinematics::{end_positions, world_pose};
use aibo_motion::source::{self, amc, asf, Clip, ReadOptions};
use glam::DVec3;
use std::path::Path;

const ASF: &str = "# a test skeleton
:version 1.10
:name test
:units
  mass 1.0
  length 2.0
  angle deg
:documentation
  Free text, read until the next keyword.
:root
  order TX TY TZ RZ RY RX
  axis XYZ
  position 0 0 0
  orientation 0 0 0
:bonedata
  begin
    id 1
    name up
    direction 0 1 0
    length 1.5
    axis 0 0 0 XYZ
    dof rx ry rz
    limits (-180.0, 180.0)
           (-180.0, 180.0)
           (-180.0,180.0)
    bodymass 3.0
    vendorthing 1 2 3
  end
  begin
    name side
    direction 1 0 0
    length 1
    axis 0 0 90 XYZ
    dof rx
    limits (-90 90)
  end
  begin
    name dummy
    direction 0 0 1
    length 1
    axis 0 0 0 XYZ
  end
  begin
    name stretch
    direction 0 1 0
    length 1
    axis 0 0 0 xyz
    dof tx l
    limits (-inf inf) (0 5)
  end
  begin
    name tip
    direction 0 1 0
    length 1
    axis 0 0 0 XYZ
  end
:hierarchy
  begin
    root up dummy
    up side stretch
    stretch tip
  end
:skin skin.obj
";

const AMC: &str = "#!OML:ASF test.asf
# a comment
:FULLY-SPECIFIED
:DEGREES
1
root 1 2 3 0 0 0
up 0 0 0
side 0
stretch 0 0
2
side 90
up 0 0 90
root 0 0 0 0 0 0
stretch 1 0.5
3
up 0 0 90
root 0 0 0 0 0 0
stretch 1 0.5
";

fn clip(asf_text: &str, amc_text: &str) -> Clip {
    let skeleton = asf::read(asf_text.as_bytes()).unwrap();
    amc::read(&skeleton, amc_text.as_bytes(), 120.0).unwrap()
}

fn ends(clip: &Clip, frame: usize) -> Vec<DVec3> {
    let pose = world_pose(clip, frame);
    let ends = end_positions(clip, &pose);
    clip.skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(i, _)| ends[i].unwrap_or(pose.positions[i]))
        .collect()
}

fn assert_close(got: DVec3, want: [f64; 3], what: &str) {
    assert!(
        (got - DVec3::from_array(want)).length() < 1e-9,
        "{what}: {got} vs {want:?}"
    );
}

#[test]
fn skeleton_reads_with_commas_parentheses_units_and_unknown_keys() {
    let s = asf::read(ASF.as_bytes()).unwrap();
    let names: Vec<&str> = s.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "up", "dummy", "side", "stretch", "tip"]);
    assert_eq!(s.length_unit, 2.0);
    // Bone length × the length unit.
    assert_close(s.skeleton.joints[1].end.unwrap(), [0.0, 3.0, 0.0], "up");
    assert!(s.bones[2].dof.is_empty(), "dummy has no dof");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn frames_pose_as_worked_out_by_hand() {
    let c = clip(ASF, AMC);
    assert_eq!(c.frames, 3);
    assert_eq!(c.frame_time, 1.0 / 120.0);
    // Order: root, up, dummy, side, stretch, tip.
    let f0 = ends(&c, 0);
    assert_close(f0[0], [2.0, 4.0, 6.0], "root, scaled by length 2");
    assert_close(f0[1], [2.0, 7.0, 6.0], "up end");
    assert_close(f0[2], [2.0, 4.0, 8.0], "dummy end (bone without dof)");
    assert_close(f0[3], [4.0, 7.0, 6.0], "side end");
    assert_close(f0[5], [2.0, 11.0, 6.0], "tip end");

    // Frame 2, bones listed in another order. up turns 90° about z: its (0,3,0) becomes
    // (−3,0,0). side's axis frame is Rz(90), so its rx acts about world y: its (2,0,0)
    // goes to (0,0,−2), then up's turn keeps it there. stretch moves tx = 1 (×2) along
    // its frame and stretches by l = 0.5 (×2), which carries tip.
    let f1 = ends(&c, 1);
    assert_close(f1[1], [-3.0, 0.0, 0.0], "up end");
    assert_close(f1[3], [-3.0, 0.0, -2.0], "side end through its axis frame");
    assert_close(f1[5], [-8.0, 2.0, 0.0], "tip end after tx and l");

    // Frame 3 lacks side: it holds 90 from frame 2, said once in a warning.
    let f2 = ends(&c, 2);
    assert_close(f2[3], [-3.0, 0.0, -2.0], "side holds");
    assert!(
        c.warnings.iter().any(|w| w.contains("frame 3 lacks side")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn radians_in_the_asf_and_in_the_amc() {
    let rad_asf = ASF
        .replace("angle deg", "angle rad")
        .replace("axis 0 0 90 XYZ", "axis 0 0 1.5707963267948966 XYZ");
    let rad_amc = AMC
        .replace(":DEGREES\n", "")
        .replace("up 0 0 90", "up 0 0 1.5707963267948966")
        .replace("side 90", "side 1.5707963267948966");
    let c = clip(&rad_asf, &rad_amc);
    assert_close(
        ends(&c, 1)[3],
        [-3.0, 0.0, -2.0],
        "side end, all in radians",
    );

    let amc_radians = AMC
        .replace(":DEGREES", ":RADIANS")
        .replace("up 0 0 90", "up 0 0 1.5707963267948966")
        .replace("side 90", "side 1.5707963267948966");
    let c = clip(ASF, &amc_radians);
    assert_close(
        ends(&c, 1)[3],
        [-3.0, 0.0, -2.0],
        "side end, :RADIANS in the AMC",
    );
}

#[test]
fn root_order_and_axis_are_honoured() {
    // Values in the order the ASF declares: rotations first, then translations; the
    // root's orientation offset turns about z by 90 (its axis frame).
    let asf_text = ASF
        .replace("order TX TY TZ RZ RY RX", "order RX RY RZ TX TY TZ")
        .replace("orientation 0 0 0", "orientation 0 0 90");
    let amc_text = AMC.replace("root 1 2 3 0 0 0", "root 0 0 0 1 2 3");
    let c = clip(&asf_text, &amc_text);
    assert_close(
        ends(&c, 0)[0],
        [2.0, 4.0, 6.0],
        "root translation from the last three",
    );
    // A root rotation rz = 90 about the root frame's z (which is world z) turns up.
    let turned = AMC.replace("root 1 2 3 0 0 0", "root 0 0 0 90 0 0");
    let c = clip(ASF, &turned);
    assert_close(
        ends(&c, 0)[1],
        [-3.0, 0.0, 0.0],
        "rz first in TX TY TZ RZ RY RX order",
    );
}

#[test]
fn amc_errors_are_located() {
    let s = asf::read(ASF.as_bytes()).unwrap();
    let cases = [
        (AMC.replace("side 0\n", "sideways 0\n"), 8, "not a bone"),
        (AMC.replace("up 0 0 0", "up 0 0"), 7, "2 values"),
        (
            AMC.replace("side 90", "side ninety"),
            11,
            "expected a number",
        ),
        (AMC.replace("1\nroot", "root"), 5, "frame number"),
    ];
    for (text, line, what) in cases {
        let err = amc::read(&s, text.as_bytes(), 120.0).unwrap_err();
        assert_eq!(err.line, line, "{err}");
        assert!(err.to_string().contains(what), "{err}");
    }
    let err = amc::read(&s, AMC.replace("side 90", "side 9x0").as_bytes(), 120.0).unwrap_err();
    assert_eq!((err.line, err.column), (11, 6), "{err}");
}

#[test]
fn asf_errors_are_located() {
    let cases = [
        (ASF.replace("length 2.0", "length two"), 6),
        (ASF.replace("root up dummy", "root up dummy ghost"), 59),
        (ASF.replace("axis 0 0 90 XYZ", "axis 0 0 90 XYQ"), 33),
        (ASF.replace("angle deg", "angle grad"), 7),
    ];
    for (text, line) in cases {
        let err = asf::read(text.as_bytes()).unwrap_err();
        assert_eq!(err.line, line, "{err}");
    }
}

#[test]
fn an_amc_finds_its_asf_and_says_how() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test.asf"), ASF).unwrap();
    let named = dir.path().join("take.amc");
    std::fs::write(&named, AMC).unwrap();
    let read = |path: &Path, options: &ReadOptions| {
        let data = std::fs::read(path).unwrap();
        source::read(path, &data, options).unwrap()
    };
    let c = read(&named, &ReadOptions::default());
    assert!(c.notes[0].contains("#!OML:ASF"), "{:?}", c.notes);
    assert!(c
        .notes
        .iter()
        .any(|n| n.contains("120 frames per second assumed")));

    // A Windows path on the #!OML line: its file name beside the AMC is used.
    let windows = dir.path().join("win.amc");
    std::fs::write(
        &windows,
        AMC.replace("#!OML:ASF test.asf", "#!OML:ASF C:\\mocap\\test.asf"),
    )
    .unwrap();
    assert!(read(&windows, &ReadOptions::default()).notes[0].contains("#!OML:ASF"));

    // No #!OML line: CMU's naming, test_01.amc beside test.asf.
    let cmu = dir.path().join("test_01.amc");
    std::fs::write(&cmu, AMC.replace("#!OML:ASF test.asf\n", "")).unwrap();
    assert!(read(&cmu, &ReadOptions::default()).notes[0].contains("begins the AMC"));

    // --asf wins, and --fps sets the rate.
    let options = ReadOptions {
        asf: Some(dir.path().join("test.asf")),
        fps: Some(60.0),
    };
    let c = read(&cmu, &options);
    assert!(c.notes[0].contains("--asf"));
    assert_eq!(c.frame_time, 1.0 / 60.0);

    // Nothing to find: a clear error that says what was tried.
    let alone = tempfile::tempdir().unwrap();
    let lonely = alone.path().join("x.amc");
    std::fs::write(&lonely, AMC).unwrap();
    let data = std::fs::read(&lonely).unwrap();
    let err = source::read(&lonely, &data, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("--asf"), "{err}");
}

#[test]
fn truncated_files_never_panic() {
    let s = asf::read(ASF.as_bytes()).unwrap();
    for len in 0..ASF.len() {
        let _ = asf::read(&ASF.as_bytes()[..len]);
    }
    for len in 0..AMC.len() {
        if let Ok(c) = amc::read(&s, &AMC.as_bytes()[..len], 120.0) {
            assert!(c.frames <= 3);
        }
    }
}

#[test]
fn many_bones_read_in_linear_time() {
    // Name lookups are by table: tens of thousands of bones read at once.
    let n = 30_000;
    let mut text = String::from(":bonedata\n");
    for i in 0..n {
        text.push_str(&format!(
            "begin\nname b{i}\ndirection 0 1 0\nlength 1\nend\n"
        ));
    }
    text.push_str(":hierarchy\nbegin\nroot b0\n");
    for i in 1..n {
        text.push_str(&format!("b{} b{i}\n", i - 1));
    }
    text.push_str("end\n");
    let s = asf::read(text.as_bytes()).unwrap();
    assert_eq!(s.skeleton.joints.len(), n + 1);
    assert_eq!(s.skeleton.joints[n].parent, Some(n - 1));
}

#[test]
fn the_oml_line_leads_only_below_the_amcs_folder() {
    // A skeleton outside the AMC's folder, named absolutely and through `..`: neither is
    // opened (a hostile AMC must not make `info` read any file); --asf still reaches it.
    let outer = tempfile::tempdir().unwrap();
    let outside = outer.path().join("outside.asf");
    std::fs::write(&outside, ASF).unwrap();
    let dir = outer.path().join("takes");
    std::fs::create_dir_all(dir.join("skeletons")).unwrap();
    let try_line = |line: &str| {
        let amc = dir.join("hostile.amc");
        std::fs::write(&amc, AMC.replace("#!OML:ASF test.asf", line)).unwrap();
        let data = std::fs::read(&amc).unwrap();
        (
            source::read(&amc, &data, &ReadOptions::default()),
            source::read(
                &amc,
                &data,
                &ReadOptions {
                    asf: Some(outside.clone()),
                    fps: None,
                },
            ),
        )
    };
    for line in [
        format!("#!OML:ASF {}", outside.display()),
        "#!OML:ASF ../outside.asf".to_string(),
        "#!OML:ASF skeletons/../../outside.asf".to_string(),
    ] {
        let (found, given) = try_line(&line);
        let err = found.unwrap_err().to_string();
        assert!(err.contains("needs its ASF skeleton"), "{line}: {err}");
        assert!(given.is_ok(), "{line}: --asf goes anywhere");
    }
    // Below the folder is fine.
    std::fs::write(dir.join("skeletons/test.asf"), ASF).unwrap();
    let (found, _) = try_line("#!OML:ASF skeletons/test.asf");
    assert!(found.unwrap().notes[0].contains("#!OML:ASF"));
}
