//! The simulated server's command line: where it listens is one choice of three, and
//! leaving it out names all three.

use std::process::Command;

fn server(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_missing_transport_names_tcp_serial_and_pty() {
    let out = server(&["--profile", "ERS-7"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for flag in ["--tcp", "--serial", "--pty"] {
        assert!(err.contains(flag), "{flag}: {err}");
    }
    // Two at once is refused as well.
    let out = server(&["--profile", "ERS-7", "--pty", "--tcp", "127.0.0.1:0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}
