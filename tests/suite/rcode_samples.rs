//! Sony's R-CODE stick files (`../shared/rcode-samples`: the redistributable trees of
//! the ERS-210 and ERS-7 and four of Sony's ERS-210 "treats"): every MWC catalogue and
//! action list reads and writes back byte for byte, and the treats are built as the
//! notes on them say: the redistributable's catalogue with one block per user action
//! appended, numbered from 24001 in ACTION.CFG order, each naming entries of the ODAs.

use crate::common;

use aibo_motion::oda::Archive;
use aibo_motion::stick::actions;
use aibo_motion::stick::add::{Media, NewAction};
use aibo_motion::stick::mwc::{self, kind, Packing};
use aibo_motion::stick::tree::Stick;
use std::path::{Path, PathBuf};

const TREATS: [&str; 4] = [
    "treat-ers210-boo",
    "treat-ers210-cupid",
    "treat-ers210-holiday",
    "treat-ers210-thanksgiving",
];

fn tree(name: &str) -> PathBuf {
    common::shared("rcode-samples").join(name).join("OPEN-R")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn every_catalogue_reads_and_writes_back_byte_for_byte() {
    let mut files: Vec<PathBuf> = TREATS
        .iter()
        .chain(&["redist-ers210"])
        .map(|t| tree(t).join("MW/CONF/ERS-210.MWC"))
        .collect();
    files.push(tree("redist-ers7").join("MW/CONF/ERS-7.MWC"));
    for path in files {
        let bytes = read(&path);
        let decoded = mwc::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!decoded.catalogue.blocks.is_empty());
        match &decoded.packing {
            Packing::Plain => {
                assert_eq!(
                    mwc::encode_plain(&decoded.catalogue).unwrap(),
                    bytes,
                    "{}",
                    path.display()
                );
            }
            Packing::Gzip { name, .. } => {
                // Sony's gzip stream itself need not come back alike; what it holds must,
                // and a rewrite keeps it gzip under the same name.
                assert_eq!(name.as_deref(), Some(&b"ERS-7.MWC"[..]));
                let mut inflated = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::GzDecoder::new(&bytes[..]),
                    &mut inflated,
                )
                .unwrap();
                assert_eq!(mwc::encode_plain(&decoded.catalogue).unwrap(), inflated);
                let again = mwc::encode(&decoded.catalogue, &decoded.packing).unwrap();
                assert_eq!(mwc::decode(&again).unwrap(), decoded);
            }
        }
    }
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn every_action_list_reads_and_writes_back_byte_for_byte() {
    let mut files: Vec<PathBuf> = TREATS
        .iter()
        .chain(&["redist-ers210"])
        .map(|t| tree(t).join("APP/PC/AMS/ACTION.CFG"))
        .collect();
    for t in ["redist-ers210", "redist-ers7"] {
        files.push(tree(t).join("APP/PC/AMS/ACTION.AMS"));
    }
    for path in files {
        let bytes = read(&path);
        let list = actions::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            list.encode() == bytes,
            "{} does not write back",
            path.display()
        );
        if path.ends_with("ACTION.AMS") {
            // Sony's system actions: upper-case names, never a user's.
            assert!(list.actions().count() > 40, "{}", path.display());
            assert!(list.actions().all(|a| !actions::valid_name(a.name())));
        }
    }
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_treat_is_the_redistributable_catalogue_with_its_actions_appended() {
    let redist = read(&tree("redist-ers210").join("MW/CONF/ERS-210.MWC"));
    let base = mwc::decode(&redist).unwrap().catalogue;
    for treat in TREATS {
        let root = tree(treat);
        let bytes = read(&root.join("MW/CONF/ERS-210.MWC"));
        // Byte for byte the redistributable's after the header, then the new blocks.
        assert_eq!(bytes[16..redist.len()], redist[16..], "{treat}");
        let catalogue = mwc::decode(&bytes).unwrap().catalogue;
        let (old, new) = catalogue.blocks.split_at(base.blocks.len());
        assert_eq!(old, &base.blocks[..], "{treat}");
        let list = actions::decode(&read(&root.join("APP/PC/AMS/ACTION.CFG"))).unwrap();
        let named: Vec<&actions::Action> = list.actions().collect();
        assert_eq!(named.len(), new.len(), "{treat}: one block per action");
        let oda = |file: &str| -> Vec<String> {
            let archive = Archive::decode(&read(&root.join("MW/DATA/P").join(file)))
                .unwrap()
                .archive;
            archive.entries.iter().map(|e| e.name.clone()).collect()
        };
        let (motions, sounds, leds) = (oda("MOTION.ODA"), oda("AUDIO.ODA"), oda("LED.ODA"));
        for (k, (action, block)) in named.iter().zip(new).enumerate() {
            assert_eq!(block.id, mwc::FIRST_USER_MWCID + k as i32, "{treat}");
            assert_eq!(action.mwcid, block.id, "{treat}: {}", action.name());
            assert!(
                actions::valid_name(action.name()),
                "{treat}: {}",
                action.name()
            );
            for chunk in &block.chunks {
                let entries = match chunk.kind {
                    kind::MOTION => &motions,
                    kind::SOUND => &sounds,
                    k if kind::LEDS.contains(&k) => &leds,
                    other => panic!("{treat}: chunk type {other:#x}"),
                };
                assert!(
                    entries.contains(&chunk.name),
                    "{treat}: {} names {:?}, not in its ODA",
                    action.name(),
                    chunk.name
                );
                assert_eq!(
                    (
                        chunk.repeat,
                        chunk.start,
                        chunk.fourth,
                        chunk.synchronize,
                        chunk.special
                    ),
                    (1, 0, 0, 1, 0),
                    "{treat}"
                );
            }
        }
        assert_eq!(
            catalogue.next_user_id(),
            mwc::FIRST_USER_MWCID + new.len() as i32
        );
    }
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_treats_archives_write_back_byte_for_byte_in_the_order_their_entries_were_added() {
    for treat in TREATS {
        for file in ["MOTION.ODA", "AUDIO.ODA", "LED.ODA"] {
            let path = tree(treat).join("MW/DATA/P").join(file);
            let bytes = read(&path);
            let archive = Archive::decode(&bytes).unwrap().archive;
            let again = archive.encode_in(aibo_motion::oda::Order::AsGiven).unwrap();
            assert!(again == bytes, "{treat} {file}");
        }
    }
}

/// The main test of `stick add`: from Sony's redistributable ERS-210 tree, adding each
/// of a treat's actions in its ACTION.CFG order, with the motion, sound and lights taken
/// from the treat's archives, gives the treat's catalogue, action list and three
/// archives byte for byte.
#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn adding_a_treats_actions_to_the_redistributable_tree_reproduces_the_treat() {
    for treat in TREATS {
        let treat_root = common::shared("rcode-samples").join(treat);
        let original = Stick::open(&treat_root).unwrap();
        // An entry of the treat's archive.
        fn entry(archive: &Option<Archive>, name: String) -> &aibo_motion::oda::Entry {
            archive
                .as_ref()
                .and_then(|a| a.entries.iter().find(|e| e.name == name))
                .unwrap_or_else(|| panic!("no entry {name}"))
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("stick");
        common::copy_tree(
            &common::shared("rcode-samples").join("redist-ers210"),
            &root,
        );
        let user_files = |root: &Path| -> Vec<Vec<u8>> {
            [
                "MW/CONF/ERS-210.MWC",
                "APP/PC/AMS/ACTION.CFG",
                "MW/DATA/P/MOTION.ODA",
                "MW/DATA/P/AUDIO.ODA",
                "MW/DATA/P/LED.ODA",
            ]
            .iter()
            .map(|f| std::fs::read(root.join("OPEN-R").join(f)).unwrap_or_default())
            .collect()
        };
        let count = original.actions.as_ref().unwrap().actions().count();
        let mut before_last = Vec::new();
        for (k, action) in original.actions.as_ref().unwrap().actions().enumerate() {
            if k + 1 == count {
                before_last = user_files(&root);
            }
            let block = original.catalogue.catalogue.block(action.mwcid).unwrap();
            let named = |k: &dyn Fn(i32) -> bool| {
                block
                    .chunks
                    .iter()
                    .find(|c| k(c.kind))
                    .map(|c| c.name.clone())
            };
            let motion = named(&|k| k == kind::MOTION).map(|n| &entry(&original.motions, n).data);
            let sound = named(&|k| k == kind::SOUND).map(|n| entry(&original.sounds, n));
            let led = named(&|k| kind::LEDS.contains(&k)).map(|n| entry(&original.leds, n));
            let stick = Stick::open(&root).unwrap();
            let changes = stick
                .add(&NewAction {
                    name: action.name(),
                    motion: motion.map(Vec::as_slice),
                    sound: sound.map(Media::from),
                    led: led.map(Media::from),
                })
                .unwrap_or_else(|e| panic!("{treat}: {}: {e}", action.name()));
            assert_eq!(changes.mwcid, action.mwcid, "{treat}: {}", action.name());
            for (path, bytes) in changes.files {
                let target = root.join(path);
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::write(target, bytes).unwrap();
            }
        }
        for file in [
            "MW/CONF/ERS-210.MWC",
            "APP/PC/AMS/ACTION.CFG",
            "MW/DATA/P/MOTION.ODA",
            "MW/DATA/P/AUDIO.ODA",
            "MW/DATA/P/LED.ODA",
        ] {
            let made = read(&root.join("OPEN-R").join(file));
            let sony = read(&tree(treat).join(file));
            assert!(
                made == sony,
                "{treat}: {file} differs ({} bytes made, {} Sony's)",
                made.len(),
                sony.len()
            );
        }
        // Removing the last action gives the files as they were before it was added.
        let stick = Stick::open(&root).unwrap();
        let last = original.actions.as_ref().unwrap().actions().last().unwrap();
        let changes = stick.remove(last.name()).unwrap();
        assert_eq!(changes.mwcid, last.mwcid);
        for (path, bytes) in changes.files {
            std::fs::write(root.join(path), bytes).unwrap();
        }
        assert!(
            user_files(&root) == before_last,
            "{treat}: removing {} undoes adding it",
            last.name()
        );
    }
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn every_treat_action_is_found_as_r_code_finds_it() {
    let model = firmware_bridge::Model::find("ERS-210").unwrap();
    for treat in TREATS {
        let stick = Stick::open(&tree(treat)).unwrap();
        let list = stick.actions.as_ref().unwrap();
        let mut with_motion = 0;
        for action in list.actions() {
            assert_eq!(stick.mwcid_of(action.name()).unwrap(), action.mwcid);
            let skit = stick.skit(action.mwcid).unwrap();
            let Some(motion) = skit.motion else {
                assert!(
                    skit.sound.is_some(),
                    "{treat} {}: plays something",
                    action.name()
                );
                continue;
            };
            with_motion += 1;
            // Stored under its own name, for the treats' model, starting in a posture
            // the robot has (R-CODE walks there first).
            let block = stick.catalogue.catalogue.block(action.mwcid).unwrap();
            let entry = block
                .chunks
                .iter()
                .find(|c| c.kind == kind::MOTION)
                .unwrap();
            assert_eq!(motion.name, entry.name);
            assert_eq!(motion.design_label, "DRX-910");
            let start = skit.start.unwrap();
            assert!(model.posture(&start).is_some(), "{treat}: {start}");
        }
        assert!(with_motion > 0, "{treat}");
        assert!(stick.mwcid_of("no_such_action").is_err());
        assert!(stick.skit(99_999).is_err());
    }
    // Sony's own actions are named in ACTION.AMS, but their motions are not on a stick.
    let redist = Stick::open(&tree("redist-ers210")).unwrap();
    let sit = redist.mwcid_of("SIT").unwrap();
    assert_eq!(sit, 270);
    assert!(matches!(
        redist.skit(sit),
        Err(aibo_motion::stick::skit::SkitError::Sonys { mwcid: 270, .. })
    ));
}
