//! What `-o` names is respected for what it is: a FIFO or a device is written into, not
//! replaced; a symbolic link keeps being a link while its target is replaced; a
//! read-only file is refused unless `--force`. Everything happens in a temporary folder; no test points
//! at a real device.
#![cfg(unix)]

use crate::common;

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-ers7.json")
}

/// `build` of the example motion into `out`.
fn build_into(out: &Path) -> std::process::Output {
    common::run(&[
        "build",
        example_json().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
}

#[test]
fn a_fifo_is_written_into_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    let run = build_into(&fifo);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let bytes = reader.join().unwrap();
    assert!(bytes.starts_with(b"OMTN"), "{} bytes", bytes.len());
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO is still a FIFO");
    // Nothing else was left in the folder.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_symlink_stays_a_link_and_its_target_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let target = real.join("motion.mtn");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.mtn");
    std::os::unix::fs::symlink("real/motion.mtn", &link).unwrap();
    let run = build_into(&link);
    assert!(run.status.success(), "{}", common::stderr(&run));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read(&target).unwrap().starts_with(b"OMTN"));
    // A dangling link: its target is created.
    let dangling = dir.path().join("dangling.mtn");
    std::os::unix::fs::symlink("real/new.mtn", &dangling).unwrap();
    let run = build_into(&dangling);
    assert!(run.status.success(), "{}", common::stderr(&run));
    assert!(std::fs::read(real.join("new.mtn"))
        .unwrap()
        .starts_with(b"OMTN"));
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_read_only_file_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keep.mtn");
    std::fs::write(&out, b"keep").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = build_into(&out);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        common::stderr(&run).contains("read-only"),
        "{}",
        common::stderr(&run)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
}

#[test]
fn force_replaces_a_read_only_file_which_stays_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keep.mtn");
    let json = dir.path().join("keep.json");
    for path in [&out, &json] {
        std::fs::write(path, b"old").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    let (o, j) = (out.to_str().unwrap(), json.to_str().unwrap());
    let built = common::run(&[
        "build",
        example_json().to_str().unwrap(),
        "-o",
        o,
        "--force",
    ]);
    assert!(built.status.success(), "{}", common::stderr(&built));
    let dumped = common::run(&["dump", o, "-o", j, "--force"]);
    assert!(dumped.status.success(), "{}", common::stderr(&dumped));
    // The build re-creates the example's bytes, and the dump is its JSON again.
    let again = common::run(&["build", j, "-o", "-"]);
    assert_eq!(again.stdout, std::fs::read(&out).unwrap());
    for path in [&out, &json] {
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444, "{}", path.display());
    }
    // Without --force, the refusal says how to go on.
    let refused = common::run(&["dump", o, "-o", j]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        common::stderr(&refused).contains("use --force to replace it"),
        "{}",
        common::stderr(&refused)
    );
}

#[test]
#[cfg_attr(
    not(can_mknod),
    ignore = "needs to make a device node (root with CAP_MKNOD)"
)]
fn a_device_node_is_written_into_not_replaced_where_tests_run_as_root() {
    // A node like /dev/null's (character device 1, 3), made in the temporary folder.
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(
        made.success(),
        "build.rs could make a device node; this test cannot"
    );
    let run = build_into(&node);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let kind = std::fs::symlink_metadata(&node).unwrap().file_type();
    assert!(kind.is_char_device(), "the device is still a device");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn an_interrupted_write_leaves_no_temporary_file() {
    // A debug-build hook holds the write once its temporary file exists; the command is
    // then interrupted, and must remove it and exit 128 + the signal.
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.mtn");
        let mut child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
            .args([
                "build",
                example_json().to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .env("AIBO_MOTION_TEST_PAUSE_WRITE_MS", "30000")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let temporary = || {
            std::fs::read_dir(dir.path()).unwrap().any(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".aibo-motion-")
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !temporary() {
            assert!(
                std::time::Instant::now() < deadline,
                "no temporary file appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert!(!temporary(), "SIG{signal} left a temporary file");
        assert!(!out.exists(), "no half-written output");
    }
}

#[test]
fn a_missing_output_folder_is_named_not_the_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no/such/folder/x.mtn");
    let run = build_into(&out);
    assert_eq!(run.status.code(), Some(2));
    let err = common::stderr(&run);
    let folder = dir.path().join("no/such/folder");
    assert!(
        err.contains(&format!("the folder {} does not exist", folder.display())),
        "{err}"
    );
    assert!(!err.contains(".aibo-motion-"), "{err}");
}

#[test]
fn a_batch_folder_is_made_but_not_the_folders_above_it_as_for_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let example = common::example();
    let made = dir.path().join("new");
    let run = common::run(&[
        "build",
        example.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "-o",
        &format!("{}/", made.display()),
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    assert!(made.join("nod-and-wave.mtn").is_file());
    let deeper = dir.path().join("no/such/new/");
    let run = common::run(&[
        "build",
        example.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "-o",
        &format!("{}/", deeper.display()),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = common::stderr(&run);
    assert!(
        err.contains(&format!(
            "the folder {} does not exist",
            dir.path().join("no/such").display()
        )),
        "{err}"
    );
    assert!(!dir.path().join("no").exists(), "nothing made above it");
}
