//! Peak memory of reading one motion source, against the budget: about twice the
//! file's size plus the frames' f64 storage. Linux only (reads /proc/self/status).
//!
//! `cargo run --release --example peak_memory -- FILE [--asf ASF]`

use aibo_motion::source::{self, ReadOptions};
use std::path::PathBuf;

fn status_kib(key: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first().map(PathBuf::from) else {
        eprintln!("usage: peak_memory FILE [--asf ASF]");
        std::process::exit(2);
    };
    let asf = args
        .iter()
        .position(|a| a == "--asf")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let before = status_kib("VmHWM:");
    let data = std::fs::read(&file).expect("readable file");
    let clip =
        source::read(&file, &data, &ReadOptions { asf, fps: None }).expect("readable motion");
    let peak = status_kib("VmHWM:").saturating_sub(before);
    let frames_bytes = (clip.rotations.len() * 32 + clip.translations.len() * 24) as u64;
    let budget = 2 * data.len() as u64 + frames_bytes;
    println!(
        "{}: file {} KiB, frames storage {} KiB, peak growth {} KiB, budget {} KiB ({:.2} of budget)",
        file.display(),
        data.len() / 1024,
        frames_bytes / 1024,
        peak,
        budget / 1024,
        peak as f64 / (budget as f64 / 1024.0)
    );
}
