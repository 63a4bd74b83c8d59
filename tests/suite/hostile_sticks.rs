//! Sticks turned against their owner (issue 21): links that would send writes and
//! backups outside the stick, special files that would hang or exhaust a command, two
//! commands changing one stick at once, a change that fails half-way, a file the tool
//! would write but then refuse to read. Each is refused or undone, and says so.

#![cfg(unix)]

use crate::common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A writable copy of Sony's redistributable ERS-210 tree, and a motion built for it.
fn stick_and_motion() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    common::writable_stick("redist-ers210", &root);
    let motion = dir.path().join("nw210.mtn");
    common::build_example("ERS-210", &motion);
    (dir, root, motion)
}

fn run_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aibo-motion"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// `stick add ROOT MOTION --name NAME`.
fn add(root: &Path, motion: &Path, name: &str) -> Output {
    common::run(&[
        "stick",
        "add",
        root.to_str().unwrap(),
        motion.to_str().unwrap(),
        "--name",
        name,
    ])
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

/// Runs `args`, killed after `limit`; `None` when it had to be killed (it hung).
fn within(args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_linked_data_folder_gets_no_archive_written_through_it() {
    let (dir, root, motion) = stick_and_motion();
    // The archives' folder elsewhere and linked in, as a copied tree may hold it.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("notes.txt"), "the owner's").unwrap();
    std::fs::create_dir_all(root.join("OPEN-R/MW/DATA")).unwrap();
    symlink(&elsewhere, root.join("OPEN-R/MW/DATA/P")).unwrap();
    let (outside, inside) = (common::tree_bytes(&elsewhere), common::tree_bytes(&root));
    let out = add(&root, &motion, "nod_wave");
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    let said = common::stderr(&out);
    assert!(
        said.contains("OPEN-R/MW/DATA/P") && said.contains("symbolic link"),
        "{said}"
    );
    assert!(
        common::tree_bytes(&elsewhere) == outside,
        "written outside the stick"
    );
    assert!(common::tree_bytes(&root) == inside, "the stick changed");
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_linked_wireless_file_leaves_the_owners_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    common::writable_stick("redist-ers7", &root);
    let owners = dir.path().join("thesis.txt");
    std::fs::write(&owners, "two years of work").unwrap();
    let wlan = root.join("OPEN-R/SYSTEM/CONF/WLANCONF.TXT");
    std::fs::create_dir_all(wlan.parent().unwrap()).unwrap();
    symlink(&owners, &wlan).unwrap();
    let out = common::run(&[
        "stick",
        "wifi",
        root.to_str().unwrap(),
        "--essid",
        "homenet",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("symbolic link"));
    assert_eq!(
        std::fs::read_to_string(&owners).unwrap(),
        "two years of work"
    );
    assert!(
        !root.join("aibo-motion-backup").exists(),
        "no copy of it kept on the stick"
    );
    // check names it too, and does not read through it.
    let check = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_ne!(check.status.code(), Some(0));
    assert!(
        common::stdout(&check).contains("symbolic link"),
        "{}",
        common::stdout(&check)
    );
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_linked_backup_folder_sends_no_backup_out() {
    let (dir, root, motion) = stick_and_motion();
    let out_there = dir.path().join("out-there");
    std::fs::create_dir(&out_there).unwrap();
    symlink(&out_there, root.join("aibo-motion-backup")).unwrap();
    let before = common::tree_bytes(&root);
    let out = add(&root, &motion, "nod_wave");
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("aibo-motion-backup"));
    assert_eq!(std::fs::read_dir(&out_there).unwrap().count(), 0);
    assert!(common::tree_bytes(&root) == before, "nothing written");
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn special_files_on_a_stick_are_refused_at_once() {
    let (_dir, root, motion) = stick_and_motion();
    let rcode = root.join("OPEN-R/APP/PC/AMS/R-CODE.R");
    let _ = std::fs::remove_file(&rcode);
    mkfifo(&rcode);
    for args in [vec!["check"], vec!["list"]] {
        let mut all = vec!["stick", args[0], root.to_str().unwrap()];
        all.extend(&args[1..]);
        let out = within(&all, Duration::from_secs(20)).expect("a FIFO hangs no command");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            common::stderr(&out).contains("a FIFO"),
            "{}",
            common::stderr(&out)
        );
    }
    let out = within(
        &["stick", "autoplay", root.to_str().unwrap(), "SIT"],
        Duration::from_secs(20),
    )
    .expect("no hang");
    assert_eq!(out.status.code(), Some(2));
    // An archive linked to /dev/zero is named, never read until memory fails.
    std::fs::remove_file(&rcode).unwrap();
    let oda = root.join("OPEN-R/MW/DATA/P/MOTION.ODA");
    std::fs::create_dir_all(oda.parent().unwrap()).unwrap();
    symlink("/dev/zero", &oda).unwrap();
    let out = within(
        &[
            "stick",
            "add",
            root.to_str().unwrap(),
            motion.to_str().unwrap(),
            "--name",
            "x",
        ],
        Duration::from_secs(20),
    )
    .expect("no endless read");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("MOTION.ODA"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn two_changes_at_once_lose_nothing() {
    let (_dir, root, motion) = stick_and_motion();
    let r = root.to_str().unwrap();
    let m = motion.to_str().unwrap();
    // The first holds every write a while (debug builds' hook): longer than a second
    // command waits for the lock.
    let first = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(["stick", "add", r, m, "--name", "first"])
        .env("AIBO_MOTION_TEST_PAUSE_WRITE_MS", "2500")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let second = add(&root, &motion, "second");
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", common::stderr(&first));
    assert_eq!(
        second.status.code(),
        Some(2),
        "the second must wait, then refuse"
    );
    assert!(
        common::stderr(&second).contains("another command is changing this stick"),
        "{}",
        common::stderr(&second)
    );
    let listed = common::stdout(&common::run(&["stick", "list", r]));
    assert!(listed.contains("first"), "{listed}");
    // Once the first is done, the second goes through and both are there.
    assert!(add(&root, &motion, "second").status.success());
    let listed = common::stdout(&common::run(&["stick", "list", r]));
    assert!(
        listed.contains("first") && listed.contains("second"),
        "{listed}"
    );
    let check = common::run(&["stick", "check", r]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_change_that_fails_half_way_is_put_back() {
    let (_dir, root, motion) = stick_and_motion();
    let before = common::stick_files(&root);
    // The archive and the catalogue are written, then the action list cannot be.
    let out = run_with(
        &[
            "stick",
            "add",
            root.to_str().unwrap(),
            motion.to_str().unwrap(),
            "--name",
            "nod_wave",
        ],
        &[("AIBO_MOTION_TEST_FAIL_WRITE_OF", "ACTION.CFG")],
    );
    assert_eq!(out.status.code(), Some(2));
    let said = common::stderr(&out);
    assert!(said.contains("put back as they were"), "{said}");
    assert!(
        common::stick_files(&root) == before,
        "the stick is as it was"
    );
    let check = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_file_too_large_to_read_back_is_never_written() {
    let (dir, root, _motion) = stick_and_motion();
    // A valid 8 kHz 8-bit mono sound a few bytes short of the 64 MiB a stick file may
    // hold (a larger one is refused from its size before it is read): the archive it would
    // go into, with its header and Sony's own sounds, would not be.
    let sound = dir.path().join("long.wav");
    let samples = 64 * 1024 * 1024 - 44 - 8;
    let mut wav = Vec::with_capacity(samples + 44);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&((samples + 36) as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&8u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples as u32).to_le_bytes());
    wav.resize(samples + 44, 128);
    std::fs::write(&sound, &wav).unwrap();
    drop(wav);
    let before = common::tree_bytes(&root);
    let out = common::run(&[
        "stick",
        "add",
        root.to_str().unwrap(),
        "--sound",
        sound.to_str().unwrap(),
        "--name",
        "long",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains("AUDIO.ODA"),
        "{}",
        common::stderr(&out)
    );
    assert!(common::tree_bytes(&root) == before);
    // The stick still opens for every command.
    let check = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn removing_a_name_for_sonys_action_keeps_sonys_block() {
    let (_dir, root, _motion) = stick_and_motion();
    let list = root.join("OPEN-R/APP/PC/AMS/ACTION.CFG");
    std::fs::write(&list, "[ERS-210(E)]\r\nmysit 270 0 mysit\r\n").unwrap();
    let mwc = root.join("OPEN-R/MW/CONF/ERS-210.MWC");
    let catalogue = std::fs::read(&mwc).unwrap();
    let out = common::run(&["stick", "remove", root.to_str().unwrap(), "mysit"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read(&mwc).unwrap(),
        catalogue,
        "Sony's SIT block 270 stays"
    );
    assert!(!std::fs::read_to_string(&list).unwrap().contains("mysit"));
    let check = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
    // A catalogue that lost a block Sony's list plays is named by check.
    let damaged = {
        let mut decoded = aibo_motion::stick::mwc::decode(&catalogue).unwrap();
        decoded.catalogue.blocks.retain(|b| b.id != 270);
        aibo_motion::stick::mwc::encode(&decoded.catalogue, &decoded.packing).unwrap()
    };
    std::fs::write(&mwc, damaged).unwrap();
    let check = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_ne!(check.status.code(), Some(0));
    assert!(
        common::stdout(&check).contains("Sony's action SIT plays MWCID 270"),
        "{}",
        common::stdout(&check)
    );
}

/// A stick of our own making (no Sony files): an ERS-210 catalogue of `blocks` user
/// actions, each playing its own entry of MOTION.ODA, and an ACTION.CFG naming the first
/// `named` (names in base 36, so that many fit R-CODE's 1 MiB list).
fn crowded_stick(root: &Path, blocks: u32, named: u32) {
    use aibo_motion::oda::{Archive, Entry};
    use aibo_motion::stick::actions::{Action, Actions, Line};
    use aibo_motion::stick::mwc::{self, Block, Catalogue, Chunk, Packing};
    let name = |i: u32| {
        let mut digits = String::new();
        let mut n = i;
        loop {
            digits.insert(0, char::from_digit(n % 36, 36).unwrap());
            n /= 36;
            if n == 0 {
                break digits;
            }
        }
    };
    let id = |i: u32| 24001 + i as i32;
    let catalogue = Catalogue {
        version: 1,
        blocks: (0..blocks)
            .map(|i| Block {
                id: id(i),
                chunks: vec![Chunk::user(mwc::kind::MOTION, &name(i))],
            })
            .collect(),
    };
    let archive = Archive {
        entries: (0..blocks)
            .map(|i| Entry {
                kind: *b"OMTN",
                name: name(i),
                data: vec![0; 4],
            })
            .collect(),
    };
    let mut list = Actions {
        final_newline: true,
        ..Actions::default()
    };
    for i in 0..named {
        list.lines
            .push(Line::Action(Action::new(&name(i), id(i), 0, "")));
    }
    for (path, bytes) in [
        (
            "OPEN-R/MW/CONF/ERS-210.MWC",
            mwc::encode(&catalogue, &Packing::Plain).unwrap(),
        ),
        ("OPEN-R/MW/DATA/P/MOTION.ODA", archive.encode().unwrap()),
        ("OPEN-R/APP/PC/AMS/ACTION.CFG", list.encode()),
    ] {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// Runs `args` with stdout to a file, killed after `limit`; its exit status, stdout and
/// stderr, or `None` when it had to be killed.
fn within_to_file(args: &[&str], limit: Duration) -> Option<(Option<i32>, String, String)> {
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(args)
        .stdout(out.reopen().unwrap())
        .stderr(err.reopen().unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            let read = |f: &tempfile::NamedTempFile| std::fs::read_to_string(f.path()).unwrap();
            return Some((status.code(), read(&out), read(&err)));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
fn a_crowded_stick_is_checked_and_listed_without_quadratic_scans() {
    // 200 000 actions (a 9 MB catalogue, a 30 MB archive): looked up one by one in lists,
    // check took minutes; by hash, well under a second. The bound is a hundred times that,
    // for a busy machine.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    crowded_stick(&root, 200_000, 60_000);
    let root = root.to_str().unwrap();
    let (code, out, err) = within_to_file(&["stick", "check", root], Duration::from_secs(60))
        .expect("stick check finishes");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("the catalogue holds 140000 user actions that ACTION.CFG names nowhere"),
        "{out}"
    );
    let (code, out, err) = within_to_file(&["stick", "list", root], Duration::from_secs(60))
        .expect("stick list finishes");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.lines().filter(|l| l.contains("motion ")).count(),
        60_000
    );
}

#[test]
fn orphan_blocks_and_a_killed_writes_temporaries_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    crowded_stick(&root, 3, 1);
    std::fs::write(
        root.join("OPEN-R/MW/DATA/P/.aibo-motion-Ab12Cd.tmp"),
        b"half an archive",
    )
    .unwrap();
    let out = common::run(&["stick", "check", root.to_str().unwrap()]);
    let text = common::stdout(&out);
    assert!(
        text.contains(
            "the catalogue holds 2 user actions that ACTION.CFG names nowhere (24002, 24003)"
        ),
        "{text}"
    );
    assert!(
        text.contains("OPEN-R/MW/DATA/P/.aibo-motion-Ab12Cd.tmp: a temporary file"),
        "{text}"
    );
}

#[test]
fn a_classic_mac_action_list_shows_its_actions_and_keeps_its_names_unique() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    crowded_stick(&root, 2, 0);
    let cfg = root.join("OPEN-R/APP/PC/AMS/ACTION.CFG");
    std::fs::write(&cfg, b"[ERS-210(E)]\r0 24001 0 first\r1 24002 0 second\r").unwrap();
    let root = root.to_str().unwrap();
    let list = common::run(&["stick", "list", root]);
    let text = common::stdout(&list);
    assert!(
        text.contains("24001") && text.contains("24002"),
        "{text}{}",
        common::stderr(&list)
    );
    let check = common::stdout(&common::run(&["stick", "check", root]));
    assert!(check.contains("a CR alone (a classic Mac file)"), "{check}");
    // Adding an existing name is refused, not written twice.
    let motion = dir.path().join("nw210.mtn");
    common::build_example("ERS-210", &motion);
    let before = std::fs::read(&cfg).unwrap();
    let out = add(Path::new(root), &motion, "1");
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    assert_eq!(std::fs::read(&cfg).unwrap(), before);
}

#[test]
fn a_check_of_thousands_of_faults_keeps_a_thousand_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    // 5000 names for blocks the catalogue does not hold.
    crowded_stick(&root, 5000, 5000);
    std::fs::write(
        root.join("OPEN-R/MW/CONF/ERS-210.MWC"),
        aibo_motion::stick::mwc::encode(
            &aibo_motion::stick::mwc::Catalogue {
                version: 1,
                blocks: Vec::new(),
            },
            &aibo_motion::stick::mwc::Packing::Plain,
        )
        .unwrap(),
    )
    .unwrap();
    let out = common::run(&["stick", "check", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = common::stdout(&out);
    let errors = text.lines().filter(|l| l.contains("error: ")).count();
    assert_eq!(errors, 1001, "{}", &text[..text.len().min(2000)]);
    assert!(
        text.contains("and 4000 more errors like those above"),
        "{}",
        &text[text.len().saturating_sub(2000)..]
    );
}

/// A sound larger than any stick file is refused from its size, before it is read: the
/// command used to read it, build the archive with it (three copies, 218 MB for a 70 MB
/// sound) and refuse only then.
#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_sound_too_large_for_a_stick_is_refused_before_it_is_read() {
    let (dir, root, _) = stick_and_motion();
    let sound = dir.path().join("huge.wav");
    // Sparse: 70 MB on paper, nothing on disk.
    std::fs::File::create(&sound)
        .unwrap()
        .set_len(70 * 1024 * 1024)
        .unwrap();
    let before = common::tree_bytes(&root);
    let child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args([
            "stick",
            "add",
            root.to_str().unwrap(),
            "--name",
            "huge",
            "--sound",
        ])
        .arg(&sound)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("more than the 67108864 a sound on a stick may take"),
        "{err}"
    );
    assert_eq!(common::tree_bytes(&root), before, "nothing written");
}
