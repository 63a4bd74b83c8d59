//! The console client against a scripted peer: the peer sends the input's bytes and hangs
//! up; the client greets, drains, sends PLAY and WAIT as `play --rcode` does. It never
//! panics, keeps at most 64 banner lines of at most 4096 bytes, and ends with an answer or
//! an error as soon as the peer has hung up (no wait on a deadline).
#![no_main]

use aibo_motion::stick::console::Console;
use libfuzzer_sys::fuzz_target;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Each run's peer listens on the next address of 127.0.0.0/8: a closed connection
/// stays in TIME_WAIT for a minute, and at hundreds of runs a second one address's
/// ephemeral ports ran out (bind failed with AddrInUse after 28 000 runs).
fn next_loopback() -> Ipv4Addr {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed) % 0x00ff_fffe;
    Ipv4Addr::from(0x7f00_0001 + n)
}

fuzz_target!(|data: &[u8]| {
    let listener = TcpListener::bind((next_loopback(), 0)).unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let script = data.to_vec();
    let peer = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let _ = stream.write_all(&script);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        // Take what the client sends until it hangs up, so it never blocks on writing.
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let _ = std::io::copy(&mut stream.take(1 << 16), &mut std::io::sink());
    });
    let started = Instant::now();
    let wait = Duration::from_secs(5);
    if let Ok((mut console, banner)) = Console::connect(&address, wait) {
        assert!(banner.len() <= 64);
        assert!(banner.iter().all(|l| l.len() <= 4096));
        let mut lines = 0usize;
        let mut each = |line: &str| {
            assert!(line.len() <= 4096);
            lines += 1;
        };
        let _ = console
            .drain(
                Duration::from_millis(1),
                Duration::from_millis(50),
                &mut each,
            )
            .and_then(|()| console.command("PLAY:ACTION:fuzz", wait, &mut each))
            .and_then(|_| console.command("WAIT", wait, &mut each));
        drop(console);
    }
    // The peer hung up: nothing waits on a deadline.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    peer.join().unwrap();
});
