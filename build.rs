//! Tells the tests which of the shared real-world sample folders (`../shared/…`, kept
//! beside the repository and never in it) are present. A test that reads one is
//! `#[cfg_attr(not(shared_…), ignore)]`, so that without the folder cargo's summary
//! counts it as ignored, never as passed.

use std::path::Path;

/// cfg name → folder below `../shared`.
const FOLDERS: [(&str, &str); 5] = [
    ("shared_mtn", "mtn-samples"),
    ("shared_mocap", "mocap-samples"),
    ("shared_mrtk", "mrtk-samples"),
    ("shared_rcode", "rcode-samples"),
    ("shared_specs", "specs/seeds"),
];

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let shared = Path::new(&manifest).join("../shared");
    for (cfg, folder) in FOLDERS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        let dir = shared.join(folder);
        // A folder that appears or goes away changes which tests run.
        println!("cargo::rerun-if-changed={}", dir.display());
        if dir.is_dir() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
    println!("cargo::rerun-if-changed=build.rs");
}
