//! Helpers the robot-side tests share.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Runs `program` (with its arguments) on `script` as standard input and returns what it
/// printed; it must succeed. A program that stops reading (it refused a line) closes the
/// pipe: its exit status and last lines say why.
pub fn run_on(program: &[&Path], script: &str) -> String {
    let mut child = Command::new(program[0])
        .args(&program[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let text = script.to_string();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    let last: Vec<&str> = printed.lines().rev().take(5).collect();
    assert!(
        out.status.success(),
        "{program:?}: {:?}, last lines {last:?}",
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}
