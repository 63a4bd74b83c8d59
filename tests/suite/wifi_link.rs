//! Streaming to a robot over Wi-Fi: `play --tcp` to the simulated server run as the
//! robot's OPEN-R object runs the bridge (`--openr-timing`: four frames every 32 ms, the
//! object's settings), through a relay that behaves like a weak 802.11b link: every chunk
//! delayed 5–60 ms each way, chunks let through in bursts, and one 200 ms stall. The
//! robot must still apply the dense playback exactly, late or dropped nothing.

use crate::common;

use aibo_motion::link::{self, Ending, Endpoint, Mode, PlayOptions};
use common::link::{dense, ers7_motion, Server, Transport};
use common::Rng;
use firmware_bridge::sim::Timing;
use firmware_bridge::Config;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A delay of `low` to `high` ms.
fn between_ms(random: &mut Rng, low: u64, high: u64) -> Duration {
    Duration::from_millis(random.range(low as i64, high as i64) as u64)
}

/// What the weak link does to one direction.
#[derive(Clone, Copy)]
struct Weather {
    seed: u64,
    /// When the stall starts, from the connection's start, if this direction stalls.
    stall_at: Option<Duration>,
}

const STALL: Duration = Duration::from_millis(200);

/// Copies `from` to `to` as a weak link would: each chunk is let through 5–60 ms after it
/// came (never before the one ahead of it: TCP keeps order), every 20th chunk is held
/// with the next four and they go together, and anything that comes during the stall
/// waits for its end.
fn weak_copy(mut from: TcpStream, mut to: TcpStream, weather: Weather) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::spawn(move || {
        for (at, bytes) in rx {
            if let Some(wait) = at.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            if to.write_all(&bytes).is_err() {
                return;
            }
        }
        let _ = to.shutdown(std::net::Shutdown::Write);
    });
    let start = Instant::now();
    let mut random = Rng(weather.seed);
    let mut last = start;
    let mut burst_until = 0;
    let mut buf = [0u8; 4096];
    let mut chunk = 0u64;
    while let Ok(n @ 1..) = from.read(&mut buf) {
        let now = Instant::now();
        let mut at = now + between_ms(&mut random, 5, 60);
        if let Some(stall) = weather.stall_at {
            let (from_t, until) = (start + stall, start + stall + STALL);
            if now >= from_t && now < until {
                at = at.max(until);
            }
        }
        if chunk.is_multiple_of(20) {
            burst_until = chunk + 4;
        }
        if chunk < burst_until {
            // Held for the burst: it goes with the burst's last chunk.
            at = at.max(now + Duration::from_millis(40));
        }
        last = last.max(at);
        if tx.send((last, buf[..n].to_vec())).is_err() {
            return;
        }
        chunk += 1;
    }
}

/// A relay to `server` with the weak link both ways; the host's direction stalls once,
/// `stall_at` into the connection.
fn weak_relay(server: &str, stall_at: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let server = server.to_string();
    std::thread::spawn(move || {
        let (host, _) = listener.accept().unwrap();
        let robot = TcpStream::connect(&server).unwrap();
        for s in [&host, &robot] {
            s.set_nodelay(true).unwrap();
        }
        let (host_r, robot_r) = (host.try_clone().unwrap(), robot.try_clone().unwrap());
        std::thread::spawn(move || {
            weak_copy(
                robot_r,
                host,
                Weather {
                    seed: 0x5eed_0002,
                    stall_at: None,
                },
            )
        });
        weak_copy(
            host_r,
            robot,
            Weather {
                seed: 0x5eed_0001,
                stall_at: Some(stall_at),
            },
        );
    });
    address
}

#[test]
fn a_stream_over_a_weak_wifi_link_reaches_the_robots_effectors_exactly() {
    let server = Server::start_timed("ERS-7", Config::robot(), Transport::Tcp, Timing::Openr);
    // The stall falls mid-stream: the motion plays for 2 s a loop, three loops.
    let relay = weak_relay(&server.address, Duration::from_millis(2_500));
    let motion = ers7_motion();
    let mut opts = PlayOptions::new(Endpoint::Tcp(relay));
    opts.mode = Mode::Stream;
    opts.loops = 3;
    let report = link::play(&motion, &opts, &mut |_| {}).expect("the play completes");
    assert_eq!(report.ending, Ending::Completed);
    let (bridge, _, rows) = server.stop();
    let want = dense(&motion, 3);
    let got: Vec<Vec<i32>> = rows.iter().map(|r| r.pose.clone()).collect();
    let first_difference = got.iter().zip(&want).position(|(g, w)| g != w);
    let c = bridge.counters();
    assert_eq!(
        (got.len(), first_difference),
        (want.len(), None),
        "the record is the dense playback, frame for frame ({c:?})"
    );
    assert_eq!((c.bad, c.late, c.dropped, c.lost), (0, 0, 0, 0), "{c:?}");
    // Rows are consecutive ticks on the robot's clock: no hold anywhere.
    let span = rows.last().unwrap().t_us - rows[0].t_us;
    assert_eq!(span, 8_000 * (rows.len() as u64 - 1));
}

#[test]
fn the_openr_timing_runs_four_frames_back_to_back_every_32_ms() {
    // Over a plain link the record is the same, and the server's clock woke a quarter as
    // often as it ticked.
    let server = Server::start_timed("ERS-7", Config::robot(), Transport::Tcp, Timing::Openr);
    let motion = ers7_motion();
    let mut opts = PlayOptions::new(Endpoint::Tcp(server.address.clone()));
    opts.mode = Mode::Stream;
    let report = link::play(&motion, &opts, &mut |_| {}).expect("the play completes");
    assert_eq!(report.ending, Ending::Completed);
    let (_, run, rows) = server.stop();
    let got: Vec<Vec<i32>> = rows.iter().map(|r| r.pose.clone()).collect();
    assert_eq!(got, dense(&motion, 1));
    assert!(
        run.ticks.is_multiple_of(4),
        "ticks come in fours: {}",
        run.ticks
    );
}

#[test]
fn the_joint_server_with_openr_timing_records_the_dense_playback() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let motion = ers7_motion();
    let file = dir.path().join("m.mtn");
    std::fs::write(&file, aibo_motion::mtn::encode(&motion).unwrap()).unwrap();
    let record = dir.path().join("record.csv");
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .args([
            "--tcp",
            "127.0.0.1:0",
            "--profile",
            "ERS-7",
            "--openr-timing",
            "--record",
        ])
        .arg(&record)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // It prints the address it listens on.
    let mut address = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut address)
        .unwrap();
    let played = common::run(&["play", file.to_str().unwrap(), "--tcp", address.trim()]);
    let _ = server.kill();
    let _ = server.wait();
    assert!(played.status.success(), "{}", common::stderr(&played));
    let rows = common::link::read_record(&record);
    let got: Vec<Vec<i32>> = rows.iter().map(|r| r.pose.clone()).collect();
    assert_eq!(got, dense(&motion, 1));
}
