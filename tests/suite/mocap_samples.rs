//! Every real motion capture file in `../shared/mocap-samples` and every MRTK recording
//! in `../shared/mrtk-samples` reads with the frame and joint counts that the files
//! themselves (or their SOURCES.md) state, and `info` and `dump --positions` work on
//! each from the command line.

use crate::common;

use aibo_motion::source::{self, Clip, ReadOptions};
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

fn read(path: &Path, asf: Option<PathBuf>) -> Clip {
    let data = std::fs::read(path).unwrap();
    let options = ReadOptions { asf, fps: None };
    source::read(path, &data, &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Counted another way: ROOT and JOINT keywords, and the `Frames:` header.
fn bvh_counts(text: &str) -> (usize, usize) {
    let joints = text
        .split_whitespace()
        .take_while(|w| *w != "MOTION")
        .filter(|w| *w == "ROOT" || *w == "JOINT")
        .count();
    let frames = text
        .split("Frames:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    (joints, frames)
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn every_bvh_sample_reads_with_its_counts() {
    let dir = common::shared("mocap-samples");
    let bvh = files(&dir.join("bvh"), "bvh");
    assert_eq!(bvh.len(), 16);
    for path in bvh {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let (joints, declared) = bvh_counts(&text);
        let clip = read(&path, None);
        assert_eq!(clip.joint_count(), joints, "{name}");
        if name == "assimp__Boxing_Toes.bvh" {
            // Says 3069, holds 3070 motion lines.
            assert_eq!(clip.frames, 3070);
            assert!(clip.warnings[0].contains("3069"), "{:?}", clip.warnings);
        } else {
            assert_eq!(clip.frames, declared, "{name}");
            assert!(clip.warnings.is_empty(), "{name}: {:?}", clip.warnings);
        }
    }
    let sinusoidal = read(&dir.join("bvh/fairmotion__sinusoidal.bvh"), None);
    assert_eq!((sinusoidal.joint_count(), sinusoidal.frames), (4, 120));
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn every_amc_sample_reads_with_its_frame_count() {
    let dir = common::shared("mocap-samples");
    let dir = dir.join("asf-amc");
    // Frame counts and skeletons from SOURCES.md; all are CMU's 30 bones plus the root.
    let expected = [
        ("charleston1.amc", "charleston.asf", 506),
        ("charleston2.amc", "charleston.asf", 546),
        ("cmu_01_01.amc", "cmu_01.asf", 2751),
        ("cmu_11_01.amc", "cmu_11.asf", 597),
        ("lambada.amc", "lambada.asf", 2180),
        ("zombie.amc", "zombie.asf", 1558),
    ];
    assert_eq!(files(&dir, "amc").len(), expected.len());
    for (amc, asf, frames) in expected {
        let clip = read(&dir.join(amc), Some(dir.join(asf)));
        assert_eq!((clip.joint_count(), clip.frames), (31, frames), "{amc}");
        assert!(clip.warnings.is_empty(), "{amc}: {:?}", clip.warnings);
        assert_eq!(clip.frame_time, 1.0 / 120.0);
    }
    for asf in files(&dir, "asf") {
        let clip = read(&asf, None);
        assert_eq!((clip.joint_count(), clip.frames), (31, 0));
    }
}

#[test]
#[cfg_attr(not(shared_mrtk), ignore = "needs ../shared/mrtk-samples")]
fn every_mrtk_recording_reads() {
    let dir = common::shared("mrtk-samples");
    // Time ranges (s) from SOURCES.md, to two decimals, sampled at 60 fps.
    let expected = [
        (
            "InputAnimation-20190606-161538.bin",
            21.14 - 10.24,
            2,
            "pinch_left",
        ),
        (
            "InputAnimation-20190607-120309.bin",
            62.37 - 41.25,
            6,
            "pinch_right",
        ),
        (
            "InputAnimation-20190607-121439.bin",
            25.31 - 5.79,
            6,
            "pinch_right",
        ),
    ];
    for (file, seconds, pinches, hand) in expected {
        let clip = read(&dir.join(file), None);
        assert_eq!(clip.joint_count(), 55, "{file}");
        let frames = seconds * 60.0;
        assert!(
            (clip.frames as f64 - frames).abs() <= 2.0,
            "{file}: {} vs {frames}",
            clip.frames
        );
        assert!(clip.warnings[0].contains("headerless"), "{file}");
        let pinch = &clip.signals.iter().find(|s| s.name == hand).unwrap().values;
        let starts = pinch
            .windows(2)
            .filter(|w| w[0] == 0.0 && w[1] == 1.0)
            .count();
        assert!(
            starts.abs_diff(pinches) <= 1,
            "{file}: {starts} pinches, about {pinches} expected"
        );
    }
    let never = read(&dir.join("InputAnimation-20190606-161538.bin"), None);
    assert!(never
        .notes
        .iter()
        .any(|n| n.contains("right hand has no tracking data")));
}

#[test]
#[cfg_attr(
    not(all(shared_mocap, shared_mrtk)),
    ignore = "needs ../shared/mocap-samples and ../shared/mrtk-samples"
)]
fn info_and_positions_work_on_every_sample_from_the_command_line() {
    let (mocap, mrtk) = (
        common::shared("mocap-samples"),
        common::shared("mrtk-samples"),
    );
    let mut all = files(&mocap.join("bvh"), "bvh");
    all.extend(files(&mocap.join("asf-amc"), "amc"));
    all.extend(files(&mrtk, "bin"));
    let tmp = tempfile::tempdir().unwrap();
    for path in all {
        let p = path.to_str().unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let asf_for = |stem: &str| {
            let base = stem
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .trim_end_matches('_');
            mocap.join("asf-amc").join(format!("{base}.asf"))
        };
        let mut args = vec!["info", p, "--json"];
        let asf = asf_for(stem);
        let asf_s = asf.to_str().unwrap().to_string();
        if p.ends_with(".amc") {
            args.extend(["--asf", &asf_s]);
        }
        let out = common::run(&args);
        assert!(out.status.success(), "{p}: {}", common::stderr(&out));
        let info: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
        let frames = info["frames"].as_u64().unwrap() as usize;

        let csv = tmp.path().join(format!("{stem}.csv"));
        args[0] = "dump";
        args[2] = "--positions";
        args.extend(["-o", csv.to_str().unwrap()]);
        let out = common::run(&args);
        assert!(out.status.success(), "{p}: {}", common::stderr(&out));
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        let columns = 1 + 3 * info["joints"].as_u64().unwrap() as usize;
        assert_eq!(header.split(',').count(), columns, "{p}");
        assert_eq!(lines.count(), frames, "{p}");
    }
}

#[test]
#[cfg_attr(
    not(all(shared_mocap, shared_mrtk)),
    ignore = "needs ../shared/mocap-samples and ../shared/mrtk-samples"
)]
fn every_sample_builds_a_clean_motion_for_every_model_and_leg_mode() {
    use aibo_motion::check::check;
    use aibo_motion::pipeline::{build, BuildOptions};
    use aibo_motion::retarget::{self, LegMode};
    use aibo_motion::robot::profile::Profile;

    let (mocap, mrtk) = (
        common::shared("mocap-samples"),
        common::shared("mrtk-samples"),
    );
    let mut inputs: Vec<(PathBuf, Option<PathBuf>)> = files(&mocap.join("bvh"), "bvh")
        .into_iter()
        .map(|p| (p, None))
        .collect();
    inputs.extend(common::amc_takes(&mocap.join("asf-amc")));
    inputs.extend(files(&mrtk, "bin").into_iter().map(|p| (p, None)));
    let profiles: Vec<Profile> = ["ERS-210", "ERS-220", "ERS-7"]
        .iter()
        .map(|m| Profile::builtin(m).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for (path, skeleton) in &inputs {
            let profiles = &profiles;
            scope.spawn(move || {
                // Inverse kinematics on a few short takes of each kind (it is slow unoptimized).
                let name = path.file_name().unwrap().to_string_lossy();
                let short = ["bandai2__wave", "mass__walk", "bvh-python__test_freebvh"];
                let modes: &[LegMode] = if short.iter().any(|s| name.contains(s)) {
                    &[LegMode::Angles, LegMode::Ik]
                } else {
                    &[LegMode::Angles]
                };
                // Read in-process only for the builds made there.
                let clip = modes
                    .contains(&LegMode::Ik)
                    .then(|| read(path, skeleton.clone()));
                for (profile, &mode) in profiles
                    .iter()
                    .flat_map(|p| modes.iter().map(move |m| (p, m)))
                {
                    let motion = if mode == LegMode::Angles {
                        // The defaults, by the command line: other tests check other
                        // things of these same builds.
                        let asf = skeleton.as_ref().map(|s| s.to_str().unwrap());
                        let extra: Vec<&str> = asf.map(|a| vec!["--asf", a]).unwrap_or_default();
                        let built = common::shared_build(path, &profile.model, &extra);
                        aibo_motion::mtn::decode(&built.bytes).unwrap().motion
                    } else {
                        let options = BuildOptions {
                            retarget: retarget::Options {
                                legs: mode,
                                ..Default::default()
                            },
                            ..BuildOptions::default()
                        };
                        let clip = clip.as_ref().expect("read for its in-process builds");
                        build(clip, profile, &options).unwrap().motion
                    };
                    let report = check(&motion, profile);
                    assert!(
                        report.violations.is_empty(),
                        "{} on the {} ({mode:?}): {:?}",
                        path.display(),
                        profile.model,
                        &report.violations[..report.violations.len().min(3)]
                    );
                    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
                }
            });
        }
    });
}
