//! A whole stick tree from one input: an ERS-210 catalogue, ACTION.CFG, and MOTION.ODA,
//! AUDIO.ODA and LED.ODA, each its share of the bytes (the first sixteen bytes give the
//! first four lengths). `Stick::open` reads it or names what is wrong; `check` and `list`
//! then never panic.
#![no_main]

use aibo_motion::stick::tree::Stick;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

const FILES: [&str; 5] = [
    "OPEN-R/MW/CONF/ERS-210.MWC",
    "OPEN-R/APP/PC/AMS/ACTION.CFG",
    "OPEN-R/MW/DATA/P/MOTION.ODA",
    "OPEN-R/MW/DATA/P/AUDIO.ODA",
    "OPEN-R/MW/DATA/P/LED.ODA",
];

/// One tree per process, its files rewritten for every input.
fn tree() -> &'static PathBuf {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("aibo-fuzz-stick-{}", std::process::id()));
        for f in FILES {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        }
        root
    })
}

fuzz_target!(|data: &[u8]| {
    let (lengths, mut rest) = data.split_at(data.len().min(16));
    let mut parts = Vec::new();
    for quad in lengths.chunks(4) {
        let mut le = [0u8; 4];
        le[..quad.len()].copy_from_slice(quad);
        let n = u32::from_le_bytes(le) as usize;
        let (part, after) = rest.split_at(n.min(rest.len()));
        parts.push(part);
        rest = after;
    }
    parts.push(rest);
    let root = tree();
    for (i, f) in FILES.iter().enumerate() {
        let path = root.join(f);
        match parts.get(i) {
            // An absent file is one of the trees to read too.
            Some(bytes) if !(i > 0 && bytes.is_empty()) => std::fs::write(&path, bytes).unwrap(),
            _ => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let Ok(stick) = Stick::open(root) else { return };
    for finding in stick.check() {
        assert!(!finding.message.is_empty());
    }
    for action in stick.list() {
        assert!(!action.name.is_empty());
    }
});
