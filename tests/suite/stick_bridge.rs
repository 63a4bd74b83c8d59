//! `stick bridge` on a folder laid out like an OPEN-R SDK Wi-Fi base stick (made here,
//! with placeholder files: the SDK is Sony's and is not in the repository): the object
//! and its configuration lines go on once, backed up and written whole; `stick wifi` and
//! `stick check` know such a stick; R-CODE sticks, non-objects, links and special files
//! are refused with nothing written.

use crate::common;

use std::path::{Path, PathBuf};

const OBJECT_CFG: &[u8] = b"/MS/OPEN-R/MW/OBJS/POWERMON.BIN\r\n/MS/OPEN-R/MW/OBJS/MWIIC.BIN\r\n";
const CONNECT_CFG: &[u8] =
    b"PowerMonitor.Status.OPowerStatus.S MWIIC.PowerStatus.OPowerStatus.O\r\n";

/// A stick as the SDK's Wi-Fi base image lays it out, with placeholder contents.
fn sdk_stick(root: &Path) {
    for (path, bytes) in [
        ("OPEN-R/MW/CONF/OBJECT.CFG", OBJECT_CFG),
        ("OPEN-R/MW/CONF/CONNECT.CFG", CONNECT_CFG),
        ("OPEN-R/MW/CONF/DESIGNDB.CFG", &b"placeholder\r\n"[..]),
        ("OPEN-R/MW/OBJS/POWERMON.BIN", &b"\x1f\x8bplaceholder"[..]),
        (
            "OPEN-R/SYSTEM/OBJS/IPSTACK.BIN",
            &b"\x1f\x8bplaceholder"[..],
        ),
        ("OPEN-R/SYSTEM/CONF/WLANDFLT.TXT", &b"ESSID=AIBONET\r\n"[..]),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
}

/// A built object's stand-in: what the SDK's build writes is gzip.
fn object(dir: &Path) -> PathBuf {
    let path = dir.join("BRIDGE.BIN");
    std::fs::write(&path, b"\x1f\x8b\x08\x00the bridge object").unwrap();
    path
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = common::run(args);
    (
        out.status.success(),
        common::stdout(&out),
        common::stderr(&out),
    )
}

fn text(root: &Path, path: &str) -> Vec<u8> {
    std::fs::read(root.join(path)).unwrap()
}

#[test]
fn the_bridge_goes_on_an_sdk_stick_once_backed_up_and_check_and_wifi_know_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    sdk_stick(&root);
    let bin = object(dir.path());
    let r = root.to_str().unwrap();

    let (ok, out, _) = run(&["stick", "check", r]);
    assert!(ok, "{out}");
    assert!(
        out.contains("an OPEN-R SDK stick") && out.contains("no bridge"),
        "{out}"
    );

    let (ok, _, err) = run(&["stick", "bridge", r, bin.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains("3 files written"), "{err}");
    assert_eq!(
        text(&root, "OPEN-R/MW/OBJS/BRIDGE.BIN"),
        std::fs::read(&bin).unwrap()
    );
    // Each line once, after the owner's, with the file's CRLF.
    assert_eq!(
        text(&root, "OPEN-R/MW/CONF/OBJECT.CFG"),
        [OBJECT_CFG, b"/MS/OPEN-R/MW/OBJS/BRIDGE.BIN\r\n"].concat()
    );
    assert_eq!(
        text(&root, "OPEN-R/MW/CONF/CONNECT.CFG"),
        [
            CONNECT_CFG,
            b"BridgeObject.Move.OCommandVectorData.S OVirtualRobotComm.Effector.OCommandVectorData.O\r\n"
        ]
        .concat()
    );
    // The files it replaced are in the backup, as they were.
    let backups: Vec<PathBuf> = std::fs::read_dir(root.join("aibo-motion-backup"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(
        std::fs::read(backups[0].join("OPEN-R/MW/CONF/OBJECT.CFG")).unwrap(),
        OBJECT_CFG
    );

    // Again: the object is replaced, the lines are not added twice.
    let before = common::tree_bytes(&root.join("OPEN-R/MW/CONF"));
    let (ok, _, err) = run(&["stick", "bridge", r, bin.to_str().unwrap()]);
    assert!(ok && err.contains("1 file written"), "{err}");
    assert_eq!(common::tree_bytes(&root.join("OPEN-R/MW/CONF")), before);

    // The network, then a check with nothing to say.
    let (ok, _, err) = run(&["stick", "wifi", r, "--essid", "home", "--wep", "0123456789"]);
    assert!(ok, "{err}");
    assert!(
        String::from_utf8(text(&root, "OPEN-R/SYSTEM/CONF/WLANCONF.TXT"))
            .unwrap()
            .contains("WEPKEY=0x0123456789")
    );
    let (ok, out, _) = run(&["stick", "check", r]);
    assert!(ok, "{out}");
    assert!(
        !out.contains("warning") && out.contains("no errors"),
        "{out}"
    );

    // An object gone while the configuration still starts it is an error.
    std::fs::remove_file(root.join("OPEN-R/MW/OBJS/BRIDGE.BIN")).unwrap();
    let (ok, out, _) = run(&["stick", "check", r, "--json"]);
    assert!(!ok);
    assert!(out.contains("BRIDGE.BIN is missing"), "{out}");
}

#[test]
fn r_code_sticks_non_objects_links_and_special_files_are_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let bin = object(dir.path());

    // An R-CODE stick: its runtime starts its own objects.
    let rcode = dir.path().join("rcode");
    sdk_stick(&rcode);
    std::fs::create_dir_all(rcode.join("OPEN-R/APP/PC/AMS")).unwrap();
    let before = common::tree_bytes(&rcode);
    let (ok, _, err) = run(&[
        "stick",
        "bridge",
        rcode.to_str().unwrap(),
        bin.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("an R-CODE stick"), "{err}");
    assert_eq!(common::tree_bytes(&rcode), before);

    // No base system at all.
    let bare = dir.path().join("bare");
    std::fs::create_dir_all(bare.join("OPEN-R")).unwrap();
    let (ok, _, err) = run(&[
        "stick",
        "bridge",
        bare.to_str().unwrap(),
        bin.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("no OPEN-R SDK base system"), "{err}");

    let root = dir.path().join("stick");
    sdk_stick(&root);
    let r = root.to_str().unwrap();
    let before = common::tree_bytes(&root);
    // Not an object; not a regular file.
    let text_file = dir.path().join("notes.txt");
    std::fs::write(&text_file, "not an object").unwrap();
    let (ok, _, err) = run(&["stick", "bridge", r, text_file.to_str().unwrap()]);
    assert!(!ok && err.contains("not an OPEN-R object"), "{err}");
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (ok, _, err) = run(&["stick", "bridge", r, fifo.to_str().unwrap()]);
    assert!(!ok && err.contains("not a built object"), "{err}");
    assert_eq!(common::tree_bytes(&root), before);

    // A CONNECT.CFG that links to an owner's file elsewhere: refused by name, nothing
    // written, the owner's file untouched.
    let owners = dir.path().join("owners.cfg");
    std::fs::write(&owners, "the owner's own\n").unwrap();
    std::fs::remove_file(root.join("OPEN-R/MW/CONF/CONNECT.CFG")).unwrap();
    std::os::unix::fs::symlink(&owners, root.join("OPEN-R/MW/CONF/CONNECT.CFG")).unwrap();
    let before = common::tree_bytes(&root);
    let (ok, _, err) = run(&["stick", "bridge", r, bin.to_str().unwrap()]);
    assert!(!ok && err.contains("CONNECT.CFG"), "{err}");
    assert_eq!(common::tree_bytes(&root), before);
    assert_eq!(
        std::fs::read_to_string(&owners).unwrap(),
        "the owner's own\n"
    );
}
