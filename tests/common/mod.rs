//! Helpers shared by the integration tests.
#![allow(dead_code)]

use aibo_motion::mtn::{Keyframe, Layout, Motion};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `../shared` beside the repository, or `None` with a printed notice.
pub fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(what);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: ../shared/{what} not found");
        None
    }
}

/// Every `.mtn` file below `dir`, sorted.
pub fn mtn_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("mtn"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs the `aibo-motion` binary.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(args)
        .output()
        .expect("the binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small hand-made motion: `k` keyframes of `j` joints with simple, distinct values.
pub fn synthetic_motion(j: usize, interps: &[u32]) -> Motion {
    let keyframes = std::iter::once(0)
        .chain(interps.iter().copied())
        .enumerate()
        .map(|(k, n)| Keyframe {
            frames_before: n,
            roll: 0,
            pitch: 1000 * k as i32,
            yaw: -7 * k as i32,
            joints: (0..j)
                .map(|c| (c as i32 - 3) * 100_003 * (k as i32 % 3 + 1))
                .collect(),
        })
        .collect();
    Motion {
        name: "a_stand#stand_test".into(),
        creator: "aibo-motion tests".into(),
        design_label: "DRX-1000".into(),
        frame_ms: 16,
        locators: (0..j).map(|c| format!("PRM:/r9/c{c}-Joint2:{c}")).collect(),
        keyframes,
        layout: Layout::default(),
    }
}
