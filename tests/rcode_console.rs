//! `aibo-motion rcode` and `play --rcode` against a stand-in for R-CODE's console on
//! loopback: a banner, `<READY>`, then `<READY>` again after each line. (How a real
//! robot words anything else is unverified; the client passes it on.)

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// A console that greets with `greeting` and answers each line with `<READY>`; returns
/// its address and, when it ends, the lines it got.
fn console(greeting: &'static str) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.write_all(greeting.as_bytes()).unwrap();
        let mut got = Vec::new();
        for line in BufReader::new(stream.try_clone().unwrap()).lines() {
            let Ok(line) = line else { break };
            got.push(line.trim_end().to_string());
            if stream.write_all(b"<READY>\r\n").is_err() {
                break;
            }
        }
        got
    });
    (address, handle)
}

#[test]
fn lines_go_to_the_console_one_ready_at_a_time() {
    let (address, server) = console("R-CODE Ver 2.5\r\n<READY>\r\n");
    let out = common::run(&["rcode", &address, "PLAY:ACTION:dance", "WAIT"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("R-CODE Ver 2.5"));
    assert_eq!(server.join().unwrap(), ["PLAY:ACTION:dance", "WAIT"]);

    let (address, server) = console("<READY>\r\n");
    let out = common::run(&["play", "--rcode", &address, "dance"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("played dance"));
    assert_eq!(server.join().unwrap(), ["PLAY:ACTION:dance", "WAIT"]);
}

#[test]
fn a_log_in_prompt_and_a_closed_port_are_named() {
    // A prompt with no line break after it is named as it comes.
    let (address, _server) = console("AIBO\r\nlogin: ");
    let out = common::run(&["rcode", &address, "WAIT"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("owner's log-in"),
        "{}",
        common::stderr(&out)
    );
    let (address, _server) = console("Password required\r\n");
    let out = common::run(&["rcode", &address, "WAIT"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("owner's log-in"),
        "{}",
        common::stderr(&out)
    );
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = common::run(&["rcode", &closed.to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("nothing listens there"));
}
