//! `aibo-motion stick list` and `stick check` on Sony's R-CODE trees and treats
//! (`../shared/rcode-samples`), and on copies of them damaged one way at a time: each
//! damage is named, a stick that cannot be read is refused with where, never a panic.

use crate::common;

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

/// A copy of a sample tree in a temporary folder, to damage.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    common::copy_tree(&common::shared("rcode-samples").join(name), &root);
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

/// A motion for the ERS-210 built from the repository's example, and a copy of Sony's
/// redistributable ERS-210 tree made writable (the samples are read-only).
fn example_and_stick() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = copy_of("redist-ers210");
    make_writable(&root);
    let motion = dir.path().join("nw210.mtn");
    common::build_example("ERS-210", &motion);
    (dir, root, motion)
}

fn make_writable(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            make_writable(&path);
        } else {
            let mut p = std::fs::metadata(&path).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            p.set_readonly(false);
            std::fs::set_permissions(&path, p).unwrap();
        }
    }
}

/// `stick add ROOT MOTION --name nod_wave`, to run with hooks set.
fn add_nod_wave(root: &Path, motion: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-motion"));
    c.args([
        "stick",
        "add",
        root.to_str().unwrap(),
        motion.to_str().unwrap(),
        "--name",
        "nod_wave",
    ]);
    c
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_built_motion_goes_on_a_stick_and_the_stick_checks_clean() {
    let (dir, root, motion) = example_and_stick();
    let before = common::stick_files(&root);
    let add = |args: &[&str]| {
        let mut all = vec!["stick", "add", root.to_str().unwrap()];
        all.extend(args);
        common::run(&all)
    };
    let out = add(&[motion.to_str().unwrap(), "--name", "nod_wave"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let check = stick(&["check"], &root);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
    let listed = common::stdout(&stick(&["list"], &root));
    assert!(
        listed.contains("nod_wave") && listed.contains("24001") && listed.contains("stand → stand"),
        "{listed}"
    );
    // The files it replaced are kept, as they were.
    let backups: Vec<PathBuf> = std::fs::read_dir(root.join("aibo-motion-backup"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 1);
    for file in ["OPEN-R/MW/CONF/ERS-210.MWC", "OPEN-R/APP/PC/AMS/ACTION.CFG"] {
        assert_eq!(
            std::fs::read(backups[0].join(file)).unwrap(),
            before[Path::new(file)],
            "{file}"
        );
    }
    // Refused, with nothing written: the same name again, Sony's own name, a motion
    // for another model, a sound R-CODE on the ERS-210 cannot play.
    let after = common::stick_files(&root);
    let seven = dir.path().join("seven.mtn");
    let mut m = aibo_motion::mtn::decode(&std::fs::read(&motion).unwrap())
        .unwrap()
        .motion;
    m.design_label = "DRX-1000".into();
    std::fs::write(&seven, aibo_motion::mtn::encode(&m).unwrap()).unwrap();
    let wav = dir.path().join("loud.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 44_100,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    // Half a second of A (440 Hz), in both channels.
    let mut w = hound::WavWriter::create(&wav, spec).unwrap();
    for i in 0..22_050 {
        let x = (std::f64::consts::TAU * 440.0 * f64::from(i) / 44_100.0).sin();
        w.write_sample((x * 16_000.0) as i16).unwrap(); // left
        w.write_sample((x * 16_000.0) as i16).unwrap(); // right
    }
    w.finalize().unwrap();
    let wav_bytes = std::fs::read(&wav).unwrap();
    for (args, expected) in [
        (
            vec![motion.to_str().unwrap(), "--name", "nod_wave"],
            "already has an action named \"nod_wave\"",
        ),
        (
            vec![motion.to_str().unwrap(), "--name", "sit"],
            "Sony's own action",
        ),
        (
            vec![seven.to_str().unwrap(), "--name", "other"],
            "convert it with `aibo-motion convert FILE --to ERS-210`",
        ),
        (
            vec!["--name", "noisy", "--sound", wav.to_str().unwrap()],
            "44100 Hz, 16-bit PCM, 2 channels; R-CODE on the ERS-210 plays 8000 Hz 8-bit \
             mono PCM only; add it with --convert-sound to convert it",
        ),
    ] {
        let out = add(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            common::stderr(&out).contains(expected),
            "{args:?}: {}",
            common::stderr(&out)
        );
        assert!(
            common::stick_files(&root) == after,
            "{args:?} wrote nothing"
        );
    }
    // Converted, the sound goes on as the ERS-210 plays it; the owner's file is untouched.
    let out = add(&[
        "--name",
        "noisy",
        "--sound",
        wav.to_str().unwrap(),
        "--convert-sound",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(std::fs::read(&wav).unwrap(), wav_bytes);
    let audio = std::fs::read(root.join("OPEN-R/MW/DATA/P/AUDIO.ODA")).unwrap();
    let archive = Archive::decode(&audio).unwrap().archive;
    let entry = archive.entries.iter().find(|e| e.name == "loud").unwrap();
    assert_eq!(&entry.kind, b"WAVE");
    let reader = hound::WavReader::new(&entry.data[..]).unwrap();
    let spec = reader.spec();
    assert_eq!(
        (spec.sample_rate, spec.bits_per_sample, spec.channels),
        (8000, 8, 1)
    );
    assert!(
        (i64::from(reader.duration()) - 4000).abs() <= 1,
        "half a second"
    );
    let check = stick(&["check"], &root);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_stick_pulled_mid_way_holds_every_file_whole_and_checks_clean() {
    // The files after a complete addition, to compare the interrupted ones with.
    let (_done_dir, done, motion) = example_and_stick();
    let old = common::stick_files(&done);
    let out = common::run(&[
        "stick",
        "add",
        done.to_str().unwrap(),
        motion.to_str().unwrap(),
        "--name",
        "nod_wave",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let new = common::stick_files(&done);
    // Each write is held 150 ms before its rename (a debug-build hook), and the command
    // is killed at points from its start through all three writes.
    for kill_at_ms in [30, 120, 200, 280, 350, 430, 520, 700] {
        let (_dir, root, motion) = example_and_stick();
        let mut child = add_nod_wave(&root, &motion)
            .env("AIBO_MOTION_TEST_PAUSE_WRITE_MS", "150")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(kill_at_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = common::stick_files(&root);
        for (path, bytes) in &now {
            let name = path.file_name().unwrap().to_string_lossy();
            assert!(
                !name.starts_with(".aibo-motion-") || name.ends_with(".tmp"),
                "{name}"
            );
            if name.starts_with(".aibo-motion-") {
                continue; // a SIGKILL can leave a temporary file, never a half file
            }
            assert!(
                old.get(path) == Some(bytes) || new.get(path) == Some(bytes),
                "killed at {kill_at_ms} ms: {} is neither the old file nor the new",
                path.display()
            );
        }
        for path in old.keys() {
            assert!(
                now.contains_key(path),
                "killed at {kill_at_ms} ms: {} lost",
                path.display()
            );
        }
        let check = stick(&["check"], &root);
        assert_eq!(
            check.status.code(),
            Some(0),
            "killed at {kill_at_ms} ms: {}",
            common::stdout(&check)
        );
    }
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn removing_an_action_keeps_what_others_play_and_autoplay_writes_the_boot_script() {
    let (_dir, root) = copy_of("treat-ers210-cupid");
    make_writable(&root);
    let entries = |file: &str| -> Vec<String> {
        let bytes = std::fs::read(root.join("OPEN-R/MW/DATA/P").join(file)).unwrap();
        Archive::decode(&bytes)
            .unwrap()
            .archive
            .entries
            .into_iter()
            .map(|e| e.name)
            .collect()
    };
    // one_paw_r plays amsmtn17, amssound17 and amsled17; one_paw_l shares the sound.
    let out = common::run(&["stick", "remove", root.to_str().unwrap(), "one_paw_r"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(!entries("MOTION.ODA").contains(&"a_sleep#sleep_amsmtn17".to_string()));
    assert!(
        entries("AUDIO.ODA").contains(&"amssound17".to_string()),
        "shared, kept"
    );
    assert!(!entries("LED.ODA").contains(&"amsled17".to_string()));
    assert_eq!(stick(&["check"], &root).status.code(), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(&common::stdout(&stick(&["list", "--json"], &root))).unwrap();
    assert_eq!(v["actions"].as_array().unwrap().len(), 41);
    let out = common::run(&["stick", "remove", root.to_str().unwrap(), "one_paw_r"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("no action named \"one_paw_r\"; it has gaze_aibo,"));

    let script = root.join("OPEN-R/APP/PC/AMS/R-CODE.R");
    let before = std::fs::read(&script).unwrap();
    let out = common::run(&[
        "stick",
        "autoplay",
        root.to_str().unwrap(),
        "gaze_aibo",
        "nope_nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&script).unwrap(), before, "nothing written");
    let out = common::run(&[
        "stick",
        "autoplay",
        root.to_str().unwrap(),
        "gaze_aibo",
        "ding",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "// Written by aibo-motion stick autoplay: plays these actions at boot.\r\n\
         PLAY:ACTION:gaze_aibo\r\nWAIT\r\nPLAY:ACTION:ding\r\nWAIT\r\n"
    );
    assert_eq!(stick(&["check"], &root).status.code(), Some(0));
    // Both changes kept what they replaced, each in a folder of its own.
    let backups = std::fs::read_dir(root.join("aibo-motion-backup"))
        .unwrap()
        .count();
    assert_eq!(backups, 2);
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_stick_without_room_is_refused_before_anything_is_written() {
    let (_dir, root, motion) = example_and_stick();
    let before = common::stick_files(&root);
    let add = |free: &str| {
        add_nod_wave(&root, &motion)
            .env("AIBO_MOTION_TEST_FREE_BYTES", free)
            .output()
            .unwrap()
    };
    // The catalogue alone, new and backed up, needs twice its 215 kB.
    let out = add("300000");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has 292 kB free and this change needs"),
        "{err}"
    );
    assert!(common::stick_files(&root) == before, "nothing written");
    assert!(!root.join("aibo-motion-backup").exists());
    let out = add("8000000");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn the_wireless_set_up_is_written_as_open_r_reads_it_and_checked() {
    let (_dir, root) = copy_of("redist-ers7");
    make_writable(&root);
    let wifi = |args: &[&str]| {
        let mut all = vec![
            "stick",
            "wifi",
            root.to_str().unwrap(),
            "--essid",
            "homenet",
        ];
        all.extend(args);
        common::run(&all)
    };
    // WPA-style passphrases are not WEP keys: refused, nothing written.
    let out = wifi(&["--wep", "a-long-passphrase"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("no WPA"));
    assert!(!root.join("OPEN-R/SYSTEM/CONF/WLANCONF.TXT").exists());
    let out = wifi(&[
        "--wep",
        "0xAD4278E4A4",
        "--ip",
        "192.168.1.50",
        "--netmask",
        "255.255.255.0",
        "--no-auth",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = std::fs::read_to_string(root.join("OPEN-R/SYSTEM/CONF/WLANCONF.TXT")).unwrap();
    for line in [
        "HOSTNAME=AIBO",
        "ESSID=homenet",
        "WEPENABLE=1",
        "WEPKEY=0xAD4278E4A4",
        "APMODE=1",
        "USE_DHCP=0",
        "ETHER_IP=192.168.1.50",
        "ETHER_NETMASK=255.255.255.0",
        "IP_GATEWAY=192.168.1.50",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }
    assert!(root.join("OPEN-R/APP/PC/AMS/NOAUTH.CFG").exists());
    assert!(common::stderr(&out).contains("anyone on the wireless network"));
    // This tree holds no SYSTEM.CFG: none is made up, and the owner is told.
    let settings = root.join("OPEN-R/APP/PC/AMS/SYSTEM.CFG");
    assert!(!settings.exists());
    assert!(
        common::stderr(&out).contains("needs `W 1` in the stick's SYSTEM.CFG"),
        "{}",
        common::stderr(&out)
    );
    // Where it is, the console switch alone changes, and the old file is backed up.
    let sony = b"// R-CODE settings\r\nV 1\r\nW 0 // wireless\r\nP 2\r\n";
    std::fs::write(&settings, sony).unwrap();
    let out = wifi(&["--dhcp"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("console is turned on"));
    assert_eq!(
        std::fs::read(&settings).unwrap(),
        b"// R-CODE settings\r\nV 1\r\nW 1 // wireless\r\nP 2\r\n"
    );
    let backed_up: Vec<_> = common::tree_bytes(&root.join("aibo-motion-backup"))
        .into_iter()
        .filter(|(p, _)| p.ends_with("SYSTEM.CFG"))
        .collect();
    assert_eq!(backed_up.len(), 1);
    assert_eq!(backed_up[0].1, sony);
    let out = wifi(&["--dhcp"]);
    assert!(common::stderr(&out).contains("console was on already"));
    assert_eq!(stick(&["check"], &root).status.code(), Some(0));
    // A set-up damaged by hand is reported by check.
    std::fs::write(
        root.join("OPEN-R/SYSTEM/CONF/WLANCONF.TXT"),
        "ESSID=homenet\nUSE_DHCP=0\nETHER_IP=10.0.0\n",
    )
    .unwrap();
    let out = stick(&["check"], &root);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::stdout(&out).contains("WLANCONF.TXT: line 3: ETHER_IP"),
        "{}",
        common::stdout(&out)
    );
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn nothing_is_written_below_dev() {
    // /dev/shm is the one place below /dev a test can make a tree in.
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    common::copy_tree(
        &common::shared("rcode-samples").join("redist-ers210"),
        dir.path(),
    );
    make_writable(dir.path());
    let before = common::stick_files(dir.path());
    for args in [vec!["autoplay", "SIT"], vec!["wifi", "--essid", "homenet"]] {
        let mut all = vec!["stick", args[0], dir.path().to_str().unwrap()];
        all.extend(&args[1..]);
        let out = common::run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            common::stderr(&out).contains("a device; name the folder the stick is mounted on"),
            "{}",
            common::stderr(&out)
        );
    }
    assert!(common::stick_files(dir.path()) == before);
}
