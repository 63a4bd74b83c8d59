//! The command line as a user meets it, on files the tests make themselves.

use crate::common;

use aibo_motion::mtn;
use std::path::{Path, PathBuf};

fn write_motion(dir: &Path, name: &str, m: &mtn::Motion) -> String {
    let path = dir.join(name);
    std::fs::write(&path, mtn::encode(m).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

fn example_json() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/hello-ers7.json")
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_readme_example_builds_and_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("hello.mtn");
    let out = common::run(&["build", &example_json(), "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let m = mtn::decode(&std::fs::read(&out_path).unwrap())
        .unwrap()
        .motion;
    assert_eq!(m.design_label, "DRX-1000");
    assert_eq!(m.locators.len(), 20);

    let out = common::run(&["check", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stdout(&out));
    assert!(common::stdout(&out).contains("no violations"));
}

#[test]
fn the_readme_main_command_builds_a_clean_motion_for_every_model() {
    let bvh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh");
    let dir = tempfile::tempdir().unwrap();
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let out_path = dir.path().join(format!("{model}.mtn"));
        let out = common::run(&[
            "build",
            bvh.to_str().unwrap(),
            "--profile",
            model,
            "-o",
            out_path.to_str().unwrap(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let summary: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
        assert_eq!(summary["profile"], model);
        assert!(summary["mapping"].as_array().unwrap().len() >= 14);
        let m = mtn::decode(&std::fs::read(&out_path).unwrap())
            .unwrap()
            .motion;
        assert_eq!(m.name, "a_stand#stand_nod-and-wave");
        assert_eq!(m.creator, "aibo-motion");
        // Starts and ends in the stand posture.
        let profile = aibo_motion::robot::profile::Profile::builtin(model).unwrap();
        let stand = &profile.postures["stand"];
        for kf in [&m.keyframes[0], m.keyframes.last().unwrap()] {
            for (&v, &want) in kf.joints.iter().zip(&stand.joints) {
                assert!((f64::from(v) / 1e6 - want).abs() < 1e-5);
            }
        }
        let check = common::run(&["check", out_path.to_str().unwrap()]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{model}: {}",
            common::stdout(&check)
        );
    }
}

#[test]
fn info_json_has_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let m = common::synthetic_motion(4, &[2, 0]);
    let path = write_motion(dir.path(), "m.mtn", &m);
    let out = common::run(&["info", &path, "--json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(v["format"], "mtn");
    assert_eq!(v["joints"], 4);
    assert_eq!(v["keyframes"], 3);
    // (2 + 1) × 16 + (0 + 1) × 16 ms
    assert_eq!(v["duration_s"], 0.064);
    assert_eq!(v["dense_frames"], 6 + 2 + 1);
    assert_eq!(v["warnings"], serde_json::json!([]));
    assert_eq!(v["model"], "ERS-7");
}

#[test]
fn warnings_appear_in_json_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = common::synthetic_motion(2, &[1]);
    m.layout.stored_section3_size = Some(999);
    let path = write_motion(dir.path(), "odd.mtn", &m);
    let out = common::run(&["info", &path, "--json"]);
    assert!(out.status.success());
    assert!(
        common::stderr(&out).contains("Section 3"),
        "{}",
        common::stderr(&out)
    );
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert!(v["warnings"][0].as_str().unwrap().contains("999"));
    // -q silences the warning on stderr but not in the JSON.
    let out = common::run(&["info", &path, "--json", "-q"]);
    assert_eq!(common::stderr(&out), "");
}

#[test]
fn dump_csv_keyframes_and_dense() {
    let dir = tempfile::tempdir().unwrap();
    let m = common::synthetic_motion(3, &[1, 0]);
    let path = write_motion(dir.path(), "m.mtn", &m);

    let out = common::run(&["dump", &path, "--format", "csv"]);
    let text = common::stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "t_ms,roll,pitch,yaw,PRM:/r9/c0-Joint2:0,PRM:/r9/c1-Joint2:1,PRM:/r9/c2-Joint2:2"
    );
    assert_eq!(lines.len(), 1 + 3);
    let kf = &m.keyframes[1];
    assert_eq!(
        lines[2],
        format!(
            "32,{},{},{},{},{},{}",
            kf.roll, kf.pitch, kf.yaw, kf.joints[0], kf.joints[1], kf.joints[2]
        )
    );

    let csv = dir.path().join("dense.csv");
    let out = common::run(&[
        "dump",
        &path,
        "--format",
        "csv",
        "--dense",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len() as u64, mtn::dense_frame_count(&m));
    for (i, row) in rows.iter().enumerate() {
        assert!(row.starts_with(&format!("{},", 8 * i)), "{row}");
    }
    let last = &m.keyframes[2];
    assert!(rows
        .last()
        .unwrap()
        .ends_with(&format!(",{}", last.joints[2])));

    let out = common::run(&["dump", &path, "--dense"]);
    assert_eq!(out.status.code(), Some(2), "--dense needs csv");
}

#[test]
fn outputs_never_replace_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let m = common::synthetic_motion(2, &[1]);
    let path = write_motion(dir.path(), "m.mtn", &m);
    let before = std::fs::read(&path).unwrap();
    let out = common::run(&["dump", &path, "-o", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("one of this command's inputs"));
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let json = dir.path().join("m.json");
    let json = json.to_str().unwrap();
    assert!(common::run(&["dump", &path, "-o", json]).status.success());
    let out = common::run(&["build", json, "-o", json]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_exit_status_and_json() {
    let dir = tempfile::tempdir().unwrap();
    // ERS-7 locators with a head tilt of +10° (limit 0°) at keyframe 1, reached too fast.
    let json = std::fs::read_to_string(example_json()).unwrap();
    let mut m = mtn::from_json(&json).unwrap();
    m.keyframes[1].joints[0] = 174_533;
    m.keyframes[1].frames_before = 0;
    let path = write_motion(dir.path(), "bad.mtn", &m);

    let out = common::run(&["check", &path, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    let violations = v["violations"].as_array().unwrap();
    let limit = violations
        .iter()
        .find(|x| x["kind"] == "limit" && x["joint"] == "head_tilt")
        .unwrap();
    assert_eq!(limit["keyframe"], 1);
    assert_eq!(limit["value_urad"], 174_533);
    assert_eq!(limit["limit_urad"], 0);
    let speed = violations
        .iter()
        .find(|x| x["kind"] == "speed" && x["joint"] == "head_tilt")
        .unwrap();
    assert_eq!(speed["duration_ms"], 16);
    // From -20° to +10° in 16 ms: 0.5236 rad / 0.016 s.
    let expected = (30f64).to_radians() / 0.016;
    assert!((speed["speed_rad_s"].as_f64().unwrap() - expected).abs() < 1e-3);

    // Against a profile that does not know these joints: nothing to check, a usage
    // error, even when only shared joints are asked for.
    for partial in [&[][..], &["--partial"][..]] {
        let mut args = vec!["check", path.as_str(), "--profile", "ERS-210"];
        args.extend(partial);
        let out = common::run(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = common::stderr(&out);
        assert!(err.contains("is a joint of the ERS-210"), "{err}");
        assert!(err.contains("convert"), "{err}");
        assert!(common::stdout(&out).is_empty());
    }

    // A motion sharing only some joints: refused, unless --partial checks those.
    let mut some = mtn::from_json(&json).unwrap();
    some.locators[4] = "PRM:/r9/unknown".into();
    let some_path = write_motion(dir.path(), "some.mtn", &some);
    let out = common::run(&["check", &some_path, "--profile", "ERS-7"]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains(
            "1 of its 20 columns are not joints of the ERS-7 (DRX-1000) (PRM:/r9/unknown)"
        ) && err.contains("--partial to check only the 19 joints they share"),
        "{err}"
    );
    let out = common::run(&["check", &some_path, "--profile", "ERS-7", "--partial"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("not a joint of the ERS-7: not checked"));

    let out = common::run(&["check", &path, "--profile", "ERS-999"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_malformed_profile_file_is_reported_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = common::synthetic_motion(1, &[1]);
    let path = write_motion(dir.path(), "m.mtn", &m);
    let profile = dir.path().join("mine.toml");
    std::fs::write(
        &profile,
        "model = \"X\"\ndesign_label = \"DRX-1000\"\n\n[[joints]]\nname = \"a\"\nlocator = \"L\"\nmin_deg = \"low\"\n",
    )
    .unwrap();
    let out = common::run(&["check", &path, "--profile", profile.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(err.contains("mine.toml, line 7"), "{err}");
}

#[test]
fn unreadable_input_exits_2_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.mtn");
    std::fs::write(&junk, b"RIFF....WAVE").unwrap();
    for cmd in ["info", "dump", "check"] {
        let out = common::run(&[cmd, junk.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(!common::stderr(&out).contains("panicked"), "{cmd}");
    }
    let out = common::run(&["info", "/nonexistent/file.mtn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("cannot read"));
}

#[test]
fn oda_pack_list_extract_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_motion(dir.path(), "zeta.mtn", &common::synthetic_motion(2, &[1]));
    let b = write_motion(
        dir.path(),
        "alpha.mtn",
        &common::synthetic_motion(3, &[0, 4]),
    );
    let archive = dir.path().join("MOTION.ODA");
    let archive_s = archive.to_str().unwrap();
    let out = common::run(&["oda", "pack", "-o", archive_s, &a, &b]);
    assert!(out.status.success(), "{}", common::stderr(&out));

    let out = common::run(&["oda", "list", archive_s, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(v["format"], "oda");
    assert_eq!(v["entries"][0]["name"], "alpha");
    assert_eq!(v["entries"][1]["name"], "zeta");
    assert_eq!(v["entries"][0]["motion"]["keyframes"], 3);
    let out = common::run(&["info", archive_s]);
    assert!(common::stdout(&out).contains("ODA archive, 2 entries"));

    let into = dir.path().join("out");
    let out = common::run(&["oda", "extract", archive_s, "-o", into.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read(into.join("zeta.mtn")).unwrap(),
        std::fs::read(&a).unwrap()
    );
    assert_eq!(
        std::fs::read(into.join("alpha.mtn")).unwrap(),
        std::fs::read(&b).unwrap()
    );

    // Extracting again refuses to replace files without --force.
    let out = common::run(&["oda", "extract", archive_s, "-o", into.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    // Packing the extracted files gives the same archive, byte for byte.
    let again = dir.path().join("AGAIN.ODA");
    let z = into.join("zeta.mtn");
    let al = into.join("alpha.mtn");
    let out = common::run(&[
        "oda",
        "pack",
        "-o",
        again.to_str().unwrap(),
        z.to_str().unwrap(),
        al.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&archive).unwrap()
    );
}

#[test]
fn oda_extract_keeps_every_entry_in_the_folder_and_never_overwrites() {
    use aibo_motion::oda::{Archive, Entry};
    let dir = tempfile::tempdir().unwrap();
    let data = mtn::encode(&common::synthetic_motion(1, &[])).unwrap();
    let entry = |kind: &[u8; 4], name: &str, bytes: &[u8]| Entry {
        kind: *kind,
        name: name.into(),
        data: bytes.to_vec(),
    };
    // A name that would leave the folder, two entries of one name, and a type that
    // would make a folder of its extension.
    let archive = Archive {
        entries: vec![
            entry(b"OMTN", "../escape", &data),
            entry(b"OMTN", "twice", &data),
            entry(b"OMTN", "twicX", &data[..data.len() - 1]),
            entry(b"a/b\0", "typed", b"raw"),
        ],
    };
    // Our own writer refuses a second name; a hostile archive has one all the same.
    let mut bytes = archive.encode().unwrap();
    let at = bytes.windows(5).position(|w| w == b"twicX").unwrap();
    bytes[at + 4] = b'e';
    let path = dir.path().join("evil.ODA");
    std::fs::write(&path, bytes).unwrap();
    let listed = common::run(&["oda", "list", path.to_str().unwrap()]);
    assert!(
        common::stderr(&listed).contains("like entry 1"),
        "{}",
        common::stderr(&listed)
    );
    let into = dir.path().join("out");
    let out = common::run(&[
        "oda",
        "extract",
        path.to_str().unwrap(),
        "-o",
        into.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(!dir.path().join("escape.mtn").exists());
    let mut files: Vec<String> = std::fs::read_dir(&into)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["%2E.%2Fescape.mtn", "twice.mtn", "twice~2.mtn", "typed.ab"],
        "every entry, each in its own file inside the folder"
    );
    // Both payloads, whichever order the archive holds them in.
    let mut sizes =
        ["twice.mtn", "twice~2.mtn"].map(|f| std::fs::read(into.join(f)).unwrap().len());
    sizes.sort();
    assert_eq!(sizes, [data.len() - 1, data.len()]);
}

#[test]
fn many_inputs_build_into_a_folder_and_failures_are_reported_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let bvh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh");
    let copy = dir.path().join("second.bvh");
    std::fs::copy(&bvh, &copy).unwrap();
    let bad = dir.path().join("broken.bvh");
    std::fs::write(&bad, "HIERARCHY\nROOT a\n{\n").unwrap();
    let json = dir.path().join("hello.json");
    std::fs::copy(example_json(), &json).unwrap();
    let out = dir.path().join("built");
    let out_s = format!("{}/", out.display());
    let run = common::run(&[
        "build",
        bvh.to_str().unwrap(),
        bad.to_str().unwrap(),
        copy.to_str().unwrap(),
        json.to_str().unwrap(),
        "--profile",
        "ERS-220",
        "-o",
        &out_s,
        "--json",
    ]);
    assert_eq!(run.status.code(), Some(2), "a failed input fails the run");
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&run)).unwrap();
    assert_eq!(v["built"].as_array().unwrap().len(), 3);
    assert_eq!(v["failed"][0]["input"], bad.to_str().unwrap());
    assert!(common::stderr(&run).contains("1 of 4 inputs failed"));
    for name in ["nod-and-wave.mtn", "second.mtn", "hello.mtn"] {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert!(mtn::decode(&bytes).is_ok(), "{name}");
    }
    assert!(!out.join("broken.mtn").exists());
}

#[test]
fn a_build_that_panics_in_a_batch_is_reported_and_fails_the_run() {
    // A debug-build hook makes the build of `crash.bvh` panic; the other inputs build,
    // the crash is named, and the run fails.
    let dir = tempfile::tempdir().unwrap();
    let bvh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh");
    let inputs: Vec<PathBuf> = ["one.bvh", "crash.bvh", "three.bvh"]
        .iter()
        .map(|name| {
            let p = dir.path().join(name);
            std::fs::copy(&bvh, &p).unwrap();
            p
        })
        .collect();
    let out = dir.path().join("built");
    let out_s = format!("{}/", out.display());
    let mut args: Vec<&str> = vec!["build"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--profile", "ERS-7", "-o", &out_s, "--json"]);
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(&args)
        .env("AIBO_MOTION_TEST_PANIC_ON", "crash.bvh")
        .output()
        .unwrap();
    assert_ne!(run.status.code(), Some(0), "a crashed input fails the run");
    let stderr = common::stderr(&run);
    assert!(stderr.contains("1 of 3 inputs failed"), "{stderr}");
    assert!(stderr.contains("crash.bvh: the build crashed"), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&run)).unwrap();
    assert_eq!(v["built"].as_array().unwrap().len(), 2);
    assert_eq!(v["failed"][0]["input"], inputs[1].to_str().unwrap());
    assert!(out.join("one.mtn").exists() && out.join("three.mtn").exists());
    assert!(!out.join("crash.mtn").exists());
}

#[test]
fn oda_pack_takes_a_folder_of_files() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("motions");
    std::fs::create_dir(&folder).unwrap();
    let bytes = mtn::encode(&common::synthetic_motion(3, &[4])).unwrap();
    for name in ["walk.mtn", "sit.mtn", ".hidden.mtn"] {
        std::fs::write(folder.join(name), &bytes).unwrap();
    }
    std::fs::create_dir(folder.join("sub")).unwrap();
    let archive = dir.path().join("X.ODA");
    let out = common::run(&[
        "oda",
        "pack",
        "-o",
        archive.to_str().unwrap(),
        folder.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let decoded = aibo_motion::oda::Archive::decode(&std::fs::read(&archive).unwrap()).unwrap();
    let names: Vec<&str> = decoded
        .archive
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(names, ["sit", "walk"]);
}

#[test]
fn a_limb_the_source_lacks_is_named_with_the_joints_that_hold_still() {
    let dir = tempfile::tempdir().unwrap();
    let frames: Vec<Vec<(&str, char, f64)>> = (0..30)
        .map(|i| {
            vec![
                ("LeftArm", 'x', f64::from(i)),
                ("RightArm", 'x', f64::from(i)),
            ]
        })
        .collect();
    let whole = common::performer_bvh(&frames, 1.0 / 30.0);
    // The same performer whose left forearm and hand carry names no one would know.
    let armless = whole
        .replace("JOINT LeftForeArm", "JOINT Gizmo1")
        .replace("JOINT LeftHand", "JOINT Gizmo2");
    assert_ne!(armless, whole);
    let build = |name: &str, text: &str| {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let out = dir.path().join("out.mtn");
        common::run(&[
            "build",
            input.to_str().unwrap(),
            "--profile",
            "ERS-7",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ])
    };
    let run = build("armless.bvh", &armless);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&run)).unwrap();
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let expected = "no left arm found in the source (an upper arm with a forearm and a hand \
                    below it, such as LeftArm → LeftForeArm → LeftHand): lf_j1, lf_j2, lf_j3 \
                    hold the start posture";
    assert_eq!(warnings, [expected]);
    assert!(
        common::stderr(&run).contains(expected),
        "{}",
        common::stderr(&run)
    );
    // The whole performer: no such warning.
    let run = build("whole.bvh", &whole);
    let v: serde_json::Value = serde_json::from_str(&common::stdout(&run)).unwrap();
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn pictures_are_written_only_under_names_of_their_format_and_stills_only_within_the_motion() {
    let dir = tempfile::tempdir().unwrap();
    let json = example_json();
    let png = dir.path().join("f.png");
    for cmd in ["preview", "plot"] {
        let out = common::run(&[cmd, &json, "-o", png.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(
            common::stderr(&out).contains("this command writes .svg"),
            "{}",
            common::stderr(&out)
        );
        assert!(!png.exists(), "{cmd} wrote nothing");
    }
    let m = mtn::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let length_s = m.duration_ms() as f64 / 1000.0;
    let motion = write_motion(dir.path(), "m.mtn", &m);
    let svg = dir.path().join("f.svg");
    let still = |at: f64| {
        common::run(&[
            "preview",
            &motion,
            "--at",
            &at.to_string(),
            "-o",
            svg.to_str().unwrap(),
        ])
    };
    assert!(
        still(length_s).status.success(),
        "the last moment is within"
    );
    let out = still(length_s + 1.0);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains(&format!("the motion lasts {length_s:.3} s")),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn out_of_range_numbers_are_refused_with_their_range_and_postures_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mtn");
    let json = example_json();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--tolerance-deg", "-1"],
            "expected degrees above 0 and at most 45",
        ),
        (
            &["--tolerance-deg", "0"],
            "expected degrees above 0 and at most 45",
        ),
        (&["--frame-ms", "17"], "expected 16 or a multiple of it"),
        (&["--frame-ms", "-16"], "expected 16 or a multiple of it"),
        (&["--tolerance-deg", "nan"], "expected degrees above 0"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["build", json.as_str(), "-o", out.to_str().unwrap()];
        args.extend(extra);
        let run = common::run(&args);
        assert_eq!(run.status.code(), Some(2), "{extra:?}");
        let err = common::stderr(&run);
        assert!(err.contains(expected), "{extra:?}: {err}");
        assert!(
            !err.contains("-- -1"),
            "no tip to pass it as a positional: {err}"
        );
    }
    let run = common::run(&["convert", json.as_str(), "--speed", "-2", "-o", "x.mtn"]);
    assert!(common::stderr(&run).contains("expected a speed factor above 0 and at most 100"));
    // --help names every model's postures for --start-pose and --end-pose.
    let help = common::stdout(&common::run(&["build", "--help"]));
    for line in ["ERS-210: sit, sleep, stand", "ERS-7: sit, sleep, stand"] {
        assert!(help.contains(line), "{help}");
    }
    assert!(help.contains("Who made the motion"), "{help}");
}
