//! Tells the tests which of the shared real-world sample folders (`../shared/…`, kept
//! beside the repository and never in it) are present. A test that reads one is
//! `#[cfg_attr(not(shared_…), ignore)]`, so that without the folder cargo's summary
//! counts it as ignored, never as passed. Likewise for a test that must make a device node,
//! or run a shell.

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
    // Each folder and whether this build saw it, for the test that checks it still
    // matches what is there (`folder=1` or `folder=0`, comma-separated).
    let mut seen = Vec::new();
    for (cfg, folder) in FOLDERS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        let dir = shared.join(folder);
        // A folder that appears or goes away changes which tests run.
        println!("cargo::rerun-if-changed={}", dir.display());
        let there = dir.is_dir();
        if there {
            println!("cargo::rustc-cfg={cfg}");
        }
        seen.push(format!("{folder}={}", u8::from(there)));
    }
    println!("cargo::rustc-env=SHARED_FOLDERS_SEEN={}", seen.join(","));
    // The device-node test needs to make one (root, with CAP_MKNOD); without that it shows
    // as ignored.
    println!("cargo::rustc-check-cfg=cfg(can_mknod)");
    if can_make_a_device_node() {
        println!("cargo::rustc-cfg=can_mknod");
    }
    // The completion tests run each script in its own shell, where one is installed
    // (Debian: bash, zsh, fish); without it they show as ignored.
    for shell in ["bash", "zsh", "fish"] {
        println!("cargo::rustc-check-cfg=cfg(has_{shell})");
        let runs = std::process::Command::new(shell)
            .args(["-c", "exit 0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if runs {
            println!("cargo::rustc-cfg=has_{shell}");
        }
    }
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-changed=build.rs");
}

/// Whether a character device like /dev/null's can be made here.
fn can_make_a_device_node() -> bool {
    let Ok(out) = std::env::var("OUT_DIR") else {
        return false;
    };
    let node = Path::new(&out).join("probe-null");
    let _ = std::fs::remove_file(&node);
    let made = std::process::Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&node);
    made
}
