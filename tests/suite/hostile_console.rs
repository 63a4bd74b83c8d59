//! The console client against hostile peers (issue 21): a peer that floods bytes with no
//! line end, one that trickles a byte at a time, one that sends prompts nobody asked for.
//! The client's memory stays bounded, its deadlines and Ctrl-C hold, and a stray
//! `<READY>` never passes for an action played.

#![cfg(target_os = "linux")]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A peer running `serve` on the first connection; returns its address.
fn peer(serve: impl FnOnce(TcpStream) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        if let Ok((stream, _)) = listener.accept() {
            serve(stream);
        }
    });
    address
}

#[test]
fn a_flood_with_no_line_end_costs_no_memory_and_the_banner_deadline_holds() {
    const FLOOD: usize = 600 * 1024 * 1024;
    let address = peer(|mut s| {
        let chunk = vec![b'x'; 1 << 20];
        let mut sent = 0;
        while sent < FLOOD && s.write_all(&chunk).is_ok() {
            sent += chunk.len();
        }
        // Then silence, the connection held open.
        std::thread::sleep(Duration::from_secs(30));
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(["rcode", &address, "WAIT"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (started, mut peak) = (Instant::now(), 0);
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(common::peak_kb(child.id()).unwrap_or(0));
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the 5 s banner wait holds"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("did not say <READY>"),
        "{}",
        common::stderr(&out)
    );
    assert!(peak < 64 * 1024, "peak memory {peak} kB for a 600 MB flood");
}

#[test]
fn a_trickling_peer_holds_neither_the_deadline_nor_ctrl_c() {
    // A byte every 50 ms, never a line end: the 5 s banner wait still ends.
    let trickle = |mut s: TcpStream| {
        for _ in 0..2000 {
            if s.write_all(b".").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let address = peer(trickle);
    let started = Instant::now();
    let out = common::run(&["rcode", &address, "WAIT"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("did not say <READY>"));
    assert!(started.elapsed() < Duration::from_secs(30));

    // During WAIT, Ctrl-C reaches the robot as STOP even while it trickles.
    let (tx, got_stop) = std::sync::mpsc::channel();
    let address = peer(move |mut s| {
        s.write_all(b"<READY>\r\n").unwrap();
        let mut lines = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        lines.read_line(&mut line).unwrap(); // PLAY
        s.write_all(b"<READY>\r\n").unwrap();
        line.clear();
        lines.read_line(&mut line).unwrap(); // WAIT
        s.set_nonblocking(true).unwrap();
        let mut heard = Vec::new();
        for _ in 0..400 {
            let _ = s.write_all(b".");
            let mut buf = [0u8; 64];
            if let Ok(n) = (&s).read(&mut buf) {
                heard.extend_from_slice(&buf[..n]);
                if String::from_utf8_lossy(&heard).contains("STOP") {
                    let _ = tx.send(());
                    let _ = s.write_all(b"\r\n<READY>\r\n");
                    std::thread::sleep(Duration::from_millis(500));
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let child = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(["play", "--rcode", &address, "dance"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sigint = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sigint.success());
    assert!(
        got_stop.recv_timeout(Duration::from_secs(10)).is_ok(),
        "STOP reached the robot"
    );
    let out = child.wait_with_output().unwrap();
    assert!(
        common::stderr(&out).contains("sent STOP"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn a_stray_ready_never_passes_for_an_action_played() {
    // Extra prompts after the banner; the action is refused.
    let address = peer(|mut s| {
        s.write_all(b"R-CODE\r\n<READY>\r\n<READY>\r\n<READY>\r\n")
            .unwrap();
        let mut lines = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
            let answer: &[u8] = if line.starts_with("PLAY:ACTION:") {
                b"ERROR: no such action\r\n<READY>\r\n"
            } else {
                b"<READY>\r\n"
            };
            if s.write_all(answer).is_err() {
                return;
            }
            line.clear();
        }
    });
    let out = common::run(&["play", "--rcode", &address, "dance"]);
    assert_ne!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let said = common::stderr(&out);
    assert!(
        said.contains("no such action") && !said.contains("played dance"),
        "{said}"
    );
}
