//! `aibo-motion stick list` and `stick check` on Sony's R-CODE trees and treats
//! (`../shared/rcode-samples`), and on copies of them damaged one way at a time: each
//! damage is named, a stick that cannot be read is refused with where, never a panic.

mod common;

use aibo_motion::oda::Archive;
use std::path::{Path, PathBuf};

const TREES: [&str; 6] = [
    "redist-ers210",
    "redist-ers7",
    "treat-ers210-boo",
    "treat-ers210-cupid",
    "treat-ers210-holiday",
    "treat-ers210-thanksgiving",
];

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of a sample tree in a temporary folder, to damage.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    copy_tree(&common::shared("rcode-samples").join(name), &root);
    (dir, root)
}

fn stick(args: &[&str], root: &Path) -> std::process::Output {
    let mut all = vec!["stick"];
    all.extend(args);
    all.push(root.to_str().unwrap());
    common::run(&all)
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn every_sample_tree_lists_and_checks_clean() {
    for name in TREES {
        let root = common::shared("rcode-samples").join(name);
        let out = stick(&["check", "--json"], &root);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            common::stdout(&out)
        );
        let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
        let findings = v["findings"].as_array().unwrap();
        assert!(
            findings.iter().all(|f| f["severity"] == "warning"),
            "{name}"
        );
        // A folder of user files only, which the check says.
        assert!(findings
            .iter()
            .any(|f| f["message"].as_str().unwrap().contains("runtime")));
        let out = stick(&["list", "--json"], &root);
        assert!(out.status.success(), "{name}");
        let v: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
        let actions = v["actions"].as_array().unwrap();
        let expected = match name {
            "treat-ers210-boo" => 5,
            "treat-ers210-cupid" => 42,
            "treat-ers210-holiday" => 3,
            "treat-ers210-thanksgiving" => 4,
            _ => 0,
        };
        assert_eq!(actions.len(), expected, "{name}");
        for a in actions {
            assert!(a["mwcid"].as_i64().unwrap() >= 24001);
            if let Some(m) = a["motion"].as_object() {
                assert!(m["keyframes"].as_u64().unwrap() >= 2, "{name}: {a}");
                // Sony's treats name real postures, which R-CODE walks the robot to.
                for end in ["start", "end"] {
                    let posture = m[end].as_str().unwrap();
                    assert!(["stand", "sit", "sleep"].contains(&posture), "{name}: {a}");
                }
            }
        }
    }
    // Cupid's `ding` plays a sound alone; `low_battery` a sound and lights.
    let root = common::shared("rcode-samples").join("treat-ers210-cupid");
    let text = common::stdout(&stick(&["list"], &root));
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap()
            .to_string()
    };
    assert!(
        line("ding ").ends_with("no motion, sound amssound40"),
        "{text}"
    );
    assert!(line("low_battery").ends_with("no motion, sound amssound41, lights amsled41"));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn each_kind_of_damage_is_named() {
    // An entry a block plays, gone from its archive.
    let (_dir, root) = copy_of("treat-ers210-boo");
    let oda = root.join("OPEN-R/MW/DATA/P/MOTION.ODA");
    let mut archive = Archive::decode(&std::fs::read(&oda).unwrap())
        .unwrap()
        .archive;
    let gone = archive.entries.remove(0).name;
    std::fs::write(&oda, archive.encode().unwrap()).unwrap();
    let out = stick(&["check"], &root);
    assert_eq!(out.status.code(), Some(1));
    let text = common::stdout(&out);
    assert!(
        text.contains(&format!(
            "action 24001: {gone:?} is not an entry of MOTION.ODA"
        )),
        "{text}"
    );

    // A name Sony's own list holds, a name used twice, and a script line too long.
    let (_dir, root) = copy_of("treat-ers210-boo");
    let ams = root.join("OPEN-R/APP/PC/AMS");
    std::fs::copy(
        common::shared("rcode-samples").join("redist-ers210/OPEN-R/APP/PC/AMS/ACTION.AMS"),
        ams.join("ACTION.AMS"),
    )
    .unwrap();
    let mut cfg = std::fs::read(ams.join("ACTION.CFG")).unwrap();
    cfg.extend_from_slice(b"SIT 24001 0 sit\r\nboo 24002 0 again\r\n");
    std::fs::write(ams.join("ACTION.CFG"), cfg).unwrap();
    let mut script = std::fs::read(ams.join("R-CODE.R")).unwrap();
    script.extend_from_slice(format!("// {}\r\n", "x".repeat(130)).as_bytes());
    std::fs::write(ams.join("R-CODE.R"), script).unwrap();
    let out = stick(&["check"], &root);
    assert_eq!(out.status.code(), Some(1));
    let text = common::stdout(&out);
    for expected in [
        "ACTION.CFG line 7: SIT is already Sony's action in ACTION.AMS (line 1)",
        "ACTION.CFG line 7: \"SIT\" is not a user action's name",
        "ACTION.CFG line 8: boo is named twice (also MWCID 24001)",
        "bytes; R-CODE reads at most 127",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }

    // A catalogue whose header miscounts its chunks: refused, with where.
    let (_dir, root) = copy_of("treat-ers210-boo");
    let mwc = root.join("OPEN-R/MW/CONF/ERS-210.MWC");
    let mut bytes = std::fs::read(&mwc).unwrap();
    bytes[12] ^= 1;
    std::fs::write(&mwc, bytes).unwrap();
    let out = stick(&["check"], &root);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("at byte 12: number of chunks in the header"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn hostile_sticks_get_an_error_never_a_panic() {
    // (tree, file, how to spoil it, what the error says)
    type Damage = (
        &'static str,
        &'static str,
        fn(Vec<u8>) -> Vec<u8>,
        &'static str,
    );
    let damage: [Damage; 4] = [
        (
            "treat-ers210-holiday",
            "OPEN-R/MW/CONF/ERS-210.MWC",
            |b| b[..b.len() / 2].to_vec(),
            "at byte",
        ),
        (
            "redist-ers7",
            "OPEN-R/MW/CONF/ERS-7.MWC",
            |b| {
                let mut b = b[..40].to_vec();
                b.extend_from_slice(&[0xde; 64]);
                b
            },
            "gzip",
        ),
        (
            "treat-ers210-holiday",
            "OPEN-R/MW/DATA/P/LED.ODA",
            |b| b[..b.len() - 100].to_vec(),
            "LED.ODA",
        ),
        (
            "treat-ers210-holiday",
            "OPEN-R/APP/PC/AMS/ACTION.CFG",
            |b| {
                let text = String::from_utf8(b).unwrap();
                let mut out = vec![0xff, 0xfe];
                out.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
                out
            },
            "UTF-16",
        ),
    ];
    for (tree, file, spoil, expected) in damage {
        let (_dir, root) = copy_of(tree);
        let path = root.join(file);
        std::fs::write(&path, spoil(std::fs::read(&path).unwrap())).unwrap();
        for command in ["check", "list"] {
            let out = stick(&[command], &root);
            assert_eq!(out.status.code(), Some(2), "{tree} {file} {command}");
            let err = common::stderr(&out);
            assert!(
                err.contains(expected) && !err.contains("panicked"),
                "{file}: {err}"
            );
        }
    }
    // Not a stick at all.
    let empty = tempfile::tempdir().unwrap();
    let out = stick(&["list"], empty.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("no OPEN-R folder here"));
}
