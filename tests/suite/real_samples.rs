//! Sony's and the community's real MTN files (`../shared/mtn-samples`): every readable
//! one round-trips byte for byte, through the writer and through JSON; their contents
//! match the strict parse recorded in that folder's SOURCES.md; the malformed one fails
//! cleanly.

use crate::common;

use aibo_motion::check::{check, Violation};
use aibo_motion::mtn;
use aibo_motion::robot::profile::Profile;
use std::path::{Path, PathBuf};

const MALFORMED: &str = "KnownGoodERS7.mtn";

fn readable_samples() -> (PathBuf, Vec<PathBuf>) {
    let dir = common::shared("mtn-samples");
    let files: Vec<PathBuf> = common::mtn_files(&dir)
        .into_iter()
        .filter(|p| !p.ends_with(MALFORMED))
        .collect();
    assert!(files.len() >= 19, "expected the 19 readable samples");
    (dir, files)
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn every_readable_sample_round_trips_byte_for_byte() {
    let (_, files) = readable_samples();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let decoded = mtn::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().unwrap().to_string_lossy();
        let section3_warnings = decoded
            .warnings
            .iter()
            .filter(|w| w.contains("Section 3"))
            .count();
        let expect_warning = usize::from(name == "sit_lose01.mtn");
        assert_eq!(
            section3_warnings, expect_warning,
            "{name}: {:?}",
            decoded.warnings
        );
        if name != "sit_lose01.mtn" {
            assert!(
                decoded.warnings.is_empty(),
                "{name}: {:?}",
                decoded.warnings
            );
        }

        assert_eq!(
            mtn::encode(&decoded.motion).unwrap(),
            bytes,
            "{name} via writer"
        );
        let json = mtn::to_json(&decoded.motion);
        let back = mtn::from_json(&json).unwrap();
        assert_eq!(mtn::encode(&back).unwrap(), bytes, "{name} via JSON");
    }
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn dump_then_build_on_the_command_line_recreates_every_file() {
    let (_, files) = readable_samples();
    let dir = tempfile::tempdir().unwrap();
    for (i, path) in files.iter().enumerate() {
        let json = dir.path().join(format!("{i}.json"));
        let rebuilt = dir.path().join(format!("{i}.mtn"));
        let p = path.to_str().unwrap();
        let out = common::run(&["dump", p, "-o", json.to_str().unwrap()]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let out = common::run(&[
            "build",
            json.to_str().unwrap(),
            "-o",
            rebuilt.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        assert_eq!(
            std::fs::read(&rebuilt).unwrap(),
            std::fs::read(path).unwrap(),
            "{p}"
        );
    }
}

/// One row of the SOURCES.md table: path, bytes, name, creator, label, J, K, ms.
struct Row {
    path: String,
    bytes: usize,
    name: String,
    creator: String,
    label: String,
    joints: usize,
    keyframes: usize,
    duration_ms: u64,
}

fn sources_table(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("SOURCES.md")).unwrap();
    let unquote = |s: &str| s.trim().trim_matches('`').to_string();
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // Data rows of the contents table: `path.mtn` | bytes | `name` | … (the
            // malformed file's row has its name in parentheses and is skipped).
            if cells.len() < 10 || !cells[1].ends_with(".mtn`") || !cells[3].starts_with('`') {
                return None;
            }
            Some(Row {
                path: unquote(cells[1]),
                bytes: cells[2].parse().ok()?,
                name: unquote(cells[3]),
                creator: unquote(cells[4]),
                label: unquote(cells[5]),
                joints: cells[6].parse().ok()?,
                keyframes: cells[7].parse().ok()?,
                duration_ms: cells[8].parse().ok()?,
            })
        })
        .collect()
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn contents_match_the_recorded_strict_parse() {
    let (dir, files) = readable_samples();
    let rows = sources_table(&dir);
    assert_eq!(
        rows.len(),
        files.len(),
        "one SOURCES.md row per readable file"
    );
    for row in rows {
        let bytes = std::fs::read(dir.join(&row.path)).unwrap();
        assert_eq!(bytes.len(), row.bytes, "{}", row.path);
        let m = mtn::decode(&bytes).unwrap().motion;
        assert_eq!(m.name, row.name, "{}", row.path);
        assert_eq!(m.creator, row.creator, "{}", row.path);
        assert_eq!(m.design_label, row.label, "{}", row.path);
        assert_eq!(m.locators.len(), row.joints, "{}", row.path);
        assert_eq!(m.keyframes.len(), row.keyframes, "{}", row.path);
        assert_eq!(m.duration_ms(), row.duration_ms, "{}", row.path);
        // Every joint of every real file is known to the profile of its label.
        let profile = Profile::for_design_label(&m.design_label).unwrap();
        for loc in &m.locators {
            assert!(
                profile.joint_by_locator(loc).is_some(),
                "{}: {loc}",
                row.path
            );
        }
    }
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn the_malformed_sample_fails_with_a_located_error() {
    let dir = common::shared("mtn-samples");
    let path = dir.join("doggies-galore").join(MALFORMED);
    let err = mtn::decode(&std::fs::read(&path).unwrap()).unwrap_err();
    // Section 1 (byte 28, size 44) ends at byte 72; after the 16-byte name, the creator's
    // length byte at 53 reads 'p' = 112.
    assert_eq!(err.offset, 53, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("creator length") && text.contains("112"),
        "{text}"
    );

    let out = common::run(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("at byte 53"),
        "{}",
        common::stderr(&out)
    );
    assert!(!common::stderr(&out).contains("panicked"));
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn sony_ers7_hind_knees_at_125_degrees_are_reported() {
    let dir = common::shared("mtn-samples");
    let path = dir.join("sony-openr-monet-ers7/a_sleep#stand_standard.mtn");
    let m = mtn::decode(&std::fs::read(&path).unwrap()).unwrap().motion;
    let report = check(&m, &Profile::builtin("ERS-7").unwrap());
    let knees: Vec<(usize, &str, i32, i32)> = report
        .violations
        .iter()
        .filter_map(|v| match v {
            Violation::Limit {
                keyframe,
                joint,
                value_urad,
                limit_urad,
                ..
            } => Some((*keyframe, joint.as_str(), *value_urad, *limit_urad)),
            _ => None,
        })
        .collect();
    assert!(!knees.is_empty());
    for (k, joint, value, limit) in &knees {
        assert!(*joint == "lh_j3" || *joint == "rh_j3", "{k} {joint}");
        assert_eq!(*limit, 2_129_302); // 122°
        let deg = f64::from(*value) / 1e6 * 180.0 / std::f64::consts::PI;
        assert!((deg - 125.0).abs() < 0.01, "{deg}");
    }

    let out = common::run(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = common::stdout(&out);
    assert!(
        text.contains("lh_j3 = 125.0° is above its maximum 122.0°"),
        "{text}"
    );
    // Reading still works: info succeeds on the same file.
    assert!(common::run(&["info", path.to_str().unwrap()])
        .status
        .success());
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn sony_postures_agree_with_the_profiles() {
    let dir = common::shared("mtn-samples");
    // A Sony motion named a_<start>#<end>_… starts and ends in those standard postures.
    let cases = [
        (
            "sony-openr-monet-ers7/a_stand#sit_standard.mtn",
            "stand",
            "sit",
        ),
        (
            "sony-openr-monet-ers7/a_sit#sleep_standard.mtn",
            "sit",
            "sleep",
        ),
        (
            "sony-openr-monet-ers200/a_sleep#sit_standard.mtn",
            "sleep",
            "sit",
        ),
        ("sony-spec-example/a_stand#sit_S.mtn", "stand", "sit"),
    ];
    for (file, start, end) in cases {
        let m = mtn::decode(&std::fs::read(dir.join(file)).unwrap())
            .unwrap()
            .motion;
        let profile = Profile::for_design_label(&m.design_label).unwrap();
        for (posture, kf) in [(start, &m.keyframes[0]), (end, m.keyframes.last().unwrap())] {
            let p = &profile.postures[posture];
            for (i, (&v, &want)) in kf.joints.iter().zip(&p.joints).enumerate() {
                let diff = (f64::from(v) / 1e6 - want).abs().to_degrees();
                assert!(diff < 1.0, "{file} {posture} joint {i}: {v} vs {want}");
            }
        }
    }
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn sony_motions_pack_into_an_archive_in_sonys_layout() {
    let dir = common::shared("mtn-samples");
    let files = common::mtn_files(&dir.join("sony-openr-monet-ers7"));
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("MOTION7.ODA");
    let mut args = vec!["oda", "pack", "-o", archive.to_str().unwrap()];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let out = common::run(&args);
    assert!(out.status.success(), "{}", common::stderr(&out));

    let bytes = std::fs::read(&archive).unwrap();
    let n = files.len();
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
        n
    );
    // Entries in file-name order (the files are named after their entries), payloads
    // back to back from the end of the table.
    let mut offset = 64 + 144 * n;
    for (i, path) in files.iter().enumerate() {
        let e = &bytes[64 + 144 * i..64 + 144 * (i + 1)];
        assert_eq!(&e[..4], b"OMTN");
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert_eq!(&e[4..4 + stem.len()], stem.as_bytes());
        assert!(e[4 + stem.len()..132].iter().all(|&b| b == 0));
        let data = std::fs::read(path).unwrap();
        assert_eq!(
            u32::from_le_bytes(e[132..136].try_into().unwrap()) as usize,
            offset
        );
        assert_eq!(
            u32::from_le_bytes(e[136..140].try_into().unwrap()) as usize,
            data.len()
        );
        assert_eq!(&bytes[offset..offset + data.len()], &data[..]);
        offset += data.len();
    }
    assert_eq!(offset, bytes.len());
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn sony_ears_hold_only_the_binary_states_and_a_wild_ear_is_reported() {
    let (_, files) = readable_samples();
    let mut ear_files = 0;
    for path in files {
        let m = mtn::decode(&std::fs::read(&path).unwrap()).unwrap().motion;
        let Some(profile) = Profile::for_design_label(&m.design_label) else {
            continue;
        };
        let ears: Vec<usize> = m
            .locators
            .iter()
            .enumerate()
            .filter(|(_, l)| profile.joint_by_locator(l).is_some_and(|j| j.binary))
            .map(|(i, _)| i)
            .collect();
        if ears.is_empty() {
            continue;
        }
        ear_files += 1;
        let states = |m: &mtn::Motion| {
            check(m, &profile)
                .violations
                .into_iter()
                .filter(|v| matches!(v, Violation::State { .. }))
                .count()
        };
        assert_eq!(states(&m), 0, "{}", path.display());
        // The same file with one ear pushed out of OPEN-R's two states.
        let mut wild = m.clone();
        wild.keyframes[0].joints[ears[0]] = i32::MAX;
        let report = check(&wild, &profile);
        assert!(
            report.violations.iter().any(|v| matches!(
                v,
                Violation::State { keyframe: 0, value: i32::MAX, legal, .. } if legal == &[0, 1]
            )),
            "{}: {:?}",
            path.display(),
            report.violations
        );
    }
    assert!(ear_files >= 9, "Sony's ERS-7 files carry ears: {ear_files}");
}
