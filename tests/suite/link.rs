//! The link end to end: `play` to the simulated joint server over TCP and a pty, in
//! both modes, and the faults: corruption, a cut link, a stall, a hostile client,
//! forged and replayed frames, a bridge of the older protocol. All on loopback addresses
//! and pseudo-terminals.

use crate::common;

use aibo_motion::link::{self, Ending, Endpoint, Mode, PlayOptions};
use aibo_motion::mtn;
use common::link::{dense, ers7_motion, Row, Server, Transport};
use firmware_bridge::bridge::{LIMIT_SLACK_URAD, STEP_SLACK_URAD};
use firmware_bridge::message::{Angles, Message, Status, StreamFrame};
use firmware_bridge::sign::ReplayGuard;
use firmware_bridge::wire::{self, Decoder, Signing, MAX_ENCODED};
use firmware_bridge::{Config, Key, Model, State};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn options(endpoint: Endpoint, mode: Mode) -> PlayOptions {
    let mut o = PlayOptions::new(endpoint);
    o.mode = mode;
    o.name = "link-test".into();
    o
}

fn poses(rows: &[Row]) -> Vec<Vec<i32>> {
    rows.iter().map(|r| r.pose.clone()).collect()
}

fn play_and_compare(transport: Transport, mode: Mode, loops: u16) {
    let server = Server::start("ERS-7", Config::default(), transport);
    let endpoint = if server.address.starts_with('/') {
        Endpoint::Serial {
            path: server.address.clone(),
            baud: 115_200,
        }
    } else {
        Endpoint::Tcp(server.address.clone())
    };
    let motion = ers7_motion();
    let mut opts = options(endpoint, mode);
    opts.loops = loops;
    let report = link::play(&motion, &opts, &mut |_| {}).expect("the play completes");
    assert_eq!(report.ending, Ending::Completed);
    let bodies = server.bodies.clone();
    let (bridge, _, rows) = server.stop();
    // The bridge says the file's body roll and pitch with each pose: a stream carries
    // them with each 16 ms frame's poses (both ticks take the first's); an uploaded
    // motion with its keyframes, played by Sony's rule as the poses are.
    let frames: Vec<_> = mtn::dense_frames(&motion).collect();
    let want_bodies: Vec<Option<[i32; 2]>> = (0..frames.len() * usize::from(loops))
        .map(|i| {
            let of = if mode == Mode::Stream { i - i % 2 } else { i };
            let body = frames[of % frames.len()].body;
            Some([body[0], body[1]])
        })
        .collect();
    assert_eq!(*bodies.lock().unwrap(), want_bodies);
    let want = dense(&motion, usize::from(loops));
    // The robot's own count agrees: every 8 ms frame played, nothing short.
    assert_eq!(report.expected_ticks, want.len() as u64);
    assert_eq!(
        report.counted().map(|c| c.played as usize),
        Some(want.len())
    );
    assert_eq!(report.shortfall(), None);
    let got = poses(&rows);
    let first_difference = got.iter().zip(&want).position(|(g, w)| g != w);
    assert_eq!(
        (got.len(), first_difference),
        (want.len(), None),
        "the record is the dense playback, frame for frame"
    );
    let c = bridge.counters();
    assert_eq!(
        (c.bad, c.late, c.dropped, c.guarded, c.lost),
        (0, 0, 0, 0, 0),
        "{c:?}"
    );
    assert_eq!(bridge.state(), State::Holding);
    // Rows are consecutive 8 ms ticks on the robot's clock: no hold anywhere.
    let span = rows.last().unwrap().t_us - rows[0].t_us;
    assert_eq!(span, 8_000 * (rows.len() as u64 - 1));
}

#[test]
fn stream_over_tcp_records_the_dense_playback_exactly() {
    play_and_compare(Transport::Tcp, Mode::Stream, 1);
}

#[test]
fn stream_over_a_pty_records_the_dense_playback_exactly() {
    play_and_compare(Transport::Pty, Mode::Stream, 1);
}

#[test]
fn upload_over_tcp_plays_on_the_bridge_clock_exactly() {
    play_and_compare(Transport::Tcp, Mode::Upload, 2);
}

#[test]
fn upload_over_a_pty_plays_on_the_bridge_clock_exactly() {
    play_and_compare(Transport::Pty, Mode::Upload, 1);
}

#[test]
fn streamed_loops_continue_without_a_seam() {
    play_and_compare(Transport::Tcp, Mode::Stream, 2);
}

#[test]
fn the_command_line_plays_a_file_and_refuses_another_model() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("link.mtn");
    std::fs::write(&file, aibo_motion::mtn::encode(&ers7_motion()).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let out = common::run(&["play", f, "--tcp", &server.address, "--stats"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(
        common::stdout(&out).contains("host lateness"),
        "{}",
        common::stdout(&out)
    );
    // It ends saying what the robot played by its own count, which is what the
    // server recorded below.
    let said = common::stderr(&out);
    assert!(
        said.starts_with(&format!(
            "sent {f} to the ERS-7 at tcp://{}: ",
            server.address
        )) && said.trim_end().ends_with("; it holds the last pose"),
        "{said}"
    );

    // The same motion labelled for an ERS-210 is refused without touching the robot.
    let mut other = ers7_motion();
    other.design_label = "DRX-910".into();
    let file2 = dir.path().join("other.mtn");
    std::fs::write(&file2, aibo_motion::mtn::encode(&other).unwrap()).unwrap();
    let out = common::run(&["play", file2.to_str().unwrap(), "--tcp", &server.address]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("--force"),
        "{}",
        common::stderr(&out)
    );
    let (_, _, rows) = server.stop();
    assert_eq!(poses(&rows), dense(&ers7_motion(), 1));
    let n = rows.len();
    assert!(
        said.contains(&format!("({n} of {n} frames of 8 ms)")),
        "{said}"
    );
}

/// A TCP relay between the host and the server that can corrupt or cut the stream.
struct Relay {
    address: String,
}

impl Relay {
    /// Relays host→server bytes through `mangle` (which may change them or return false
    /// to cut the link); server→host bytes pass unchanged. After a cut, a new
    /// connection is relayed unchanged when `accept_again`, refused otherwise.
    fn start(
        server: &str,
        accept_again: bool,
        mut mangle: impl FnMut(&mut [u8]) -> bool + Send + 'static,
    ) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let server = server.to_string();
        std::thread::spawn(move || {
            let mut first = true;
            while let Ok((host, _)) = listener.accept() {
                if !first {
                    // The link takes a while to come back (longer than the 192 ms each
                    // frame is sent ahead): frames fall due meanwhile.
                    std::thread::sleep(Duration::from_millis(400));
                }
                let cut = relay(host, &server, &mut |b: &mut [u8]| !first || mangle(b));
                first = false;
                if cut && !accept_again {
                    return;
                }
            }
        });
        Relay { address }
    }
}

/// Relays one connection; true when `mangle` cut it.
fn relay(mut host: TcpStream, server: &str, mangle: &mut dyn FnMut(&mut [u8]) -> bool) -> bool {
    let mut upstream = TcpStream::connect(server).unwrap();
    // No Nagle: a relay that holds small writes back makes frames late.
    host.set_nodelay(true).unwrap();
    upstream.set_nodelay(true).unwrap();
    let (mut host_r, mut up_r) = (host.try_clone().unwrap(), upstream.try_clone().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = up_r.read(&mut buf) {
            if host.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    let mut buf = [0u8; 4096];
    while let Ok(n @ 1..) = host_r.read(&mut buf) {
        if !mangle(&mut buf[..n]) {
            let _ = host_r.shutdown(std::net::Shutdown::Both);
            let _ = upstream.shutdown(std::net::Shutdown::Both);
            return true;
        }
        if upstream.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    false
}

#[test]
fn corrupted_bytes_are_rejected_and_counted_and_the_stream_goes_on() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    // Flip a bit every 1300 bytes between 4 kB and 12 kB of the host's ~19 kB: frames
    // in the middle of the motion (never its last, never a zero byte, which would split
    // a frame instead).
    let mut offset = 0usize;
    let relay = Relay::start(&server.address, false, move |bytes| {
        for (i, b) in bytes.iter_mut().enumerate() {
            let at = offset + i;
            if (4_000..12_000).contains(&at) && at.is_multiple_of(1_300) {
                *b ^= 0x10;
                if *b == 0 {
                    *b = 0x55;
                }
            }
        }
        offset += bytes.len();
        true
    });
    let motion = ers7_motion();
    let report = link::play(
        &motion,
        &options(Endpoint::Tcp(relay.address.clone()), Mode::Stream),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.ending, Ending::Completed);
    let status = report.status.expect("a final status");
    let (bridge, _, rows) = server.stop();
    let c = bridge.counters();
    assert!(c.bad >= 5, "corrupted frames are counted as bad: {c:?}");
    // The host says what the robot's counters say: not the motion as sent.
    let why = report.shortfall().expect("frames went missing");
    assert!(
        why.starts_with("the robot did not play the motion as sent: it played ")
            && why.contains(&format!("; bad {}", c.bad)),
        "{why}"
    );
    assert_eq!(report.counted().unwrap().played as usize, rows.len());
    assert_eq!(c.late, 0, "{c:?}");
    assert_eq!(status.counters.bad, c.bad);
    // What was applied is the motion with holds where frames were lost: every recorded
    // row is a dense frame, in order, except where the guard slowed the catch-up after
    // a lost frame (a jump of several frames' worth in one step).
    let want = dense(&motion, 1);
    let mut at = 0;
    let mut not_frames = 0;
    for r in &rows {
        match want[at..].iter().position(|w| *w == r.pose) {
            Some(i) => at += i,
            None => not_frames += 1,
        }
    }
    assert!(
        not_frames <= c.guarded,
        "{not_frames} rows are not frames of the motion; {c:?}"
    );
    assert_eq!(rows.last().unwrap().pose, *want.last().unwrap());
    assert!(rows.len() < want.len());
}

#[test]
fn a_cut_link_is_reported_and_the_bridge_holds_then_rests() {
    let config = Config {
        hold_ticks: 25,
        ..Config::default()
    };
    let server = Server::start("ERS-7", config, Transport::Tcp);
    let mut seen = 0usize;
    let relay = Relay::start(&server.address, false, move |bytes| {
        seen += bytes.len();
        seen < 6_000 // about 40 frames in
    });
    let mut opts = options(Endpoint::Tcp(relay.address.clone()), Mode::Stream);
    opts.retry_for = Duration::from_millis(600);
    let started = Instant::now();
    let err =
        link::play(&ers7_motion(), &opts, &mut |_| {}).expect_err("the link is gone for good");
    assert!(matches!(err, link::LinkError::Lost { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "the link to tcp://{} dropped at frame",
            relay.address
        )) && text.contains("did not come back within 1 s; the bridge holds"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "reported within the retry time"
    );
    // Give the watchdog time to hold (200 ms) and ramp to rest.
    let model = Model::find("ERS-7").unwrap();
    let rest = model.rest_posture().unwrap().angles;
    wait_until(Duration::from_secs(15), || {
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("relaxed"))
    });
    let (bridge, _, rows) = server.stop();
    assert_eq!(bridge.state(), State::Relaxed);
    assert_eq!(
        rows.last().unwrap().pose,
        rest,
        "the ramp ends at the rest posture"
    );
    check_watchdog(&rows, 25, model);
}

#[test]
fn a_link_that_comes_back_resumes_at_the_frame_then_due() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let mut seen = 0usize;
    let relay = Relay::start(&server.address, true, move |bytes| {
        seen += bytes.len();
        seen < 6_000
    });
    let motion = ers7_motion();
    let report = link::play(
        &motion,
        &options(Endpoint::Tcp(relay.address.clone()), Mode::Stream),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.ending, Ending::Completed);
    assert_eq!(report.reconnects, 1);
    assert!(
        report.frames_skipped > 0,
        "frames due while the link was down are skipped, not burst"
    );
    let (bridge, _, rows) = server.stop();
    assert_eq!(bridge.state(), State::Holding, "the motion ran to its end");
    let want = dense(&motion, 1);
    assert_eq!(rows.last().unwrap().pose, *want.last().unwrap());
    // Rows are frames of the motion in order (the guard may smooth the jump at resume).
    let mut at = 0;
    let mut not_frames = 0;
    for r in &rows {
        match want[at..].iter().position(|w| *w == r.pose) {
            Some(i) => at += i,
            None => not_frames += 1,
        }
    }
    assert!(
        not_frames <= bridge.counters().guarded,
        "{not_frames} rows off the motion; {:?}",
        bridge.counters()
    );
    assert!(
        rows.len() < want.len(),
        "the frames missed while down were skipped"
    );
}

#[test]
fn ctrl_c_stops_the_motion_exits_130_and_the_robot_holds_then_rests() {
    let config = Config {
        hold_ticks: 20,
        ..Config::default()
    };
    let server = Server::start("ERS-7", config, Transport::Tcp);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.mtn");
    let mut motion = ers7_motion();
    motion.keyframes[4].frames_before = 300; // a slow stretch to interrupt
    std::fs::write(&file, aibo_motion::mtn::encode(&motion).unwrap()).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args([
            "play",
            file.to_str().unwrap(),
            "--tcp",
            &server.address,
            "--stats",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C once the robot is streaming (however long a busy machine takes to get there).
    wait_until(Duration::from_secs(30), || {
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l == "state: streaming")
    });
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "as shells expect of Ctrl-C");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped by Ctrl-C"), "{stderr}");
    // The state after the STOP, as the bridge reports it: stopping, not streaming.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("bridge: stopping;"), "{stdout}");
    wait_until(Duration::from_secs(15), || {
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("relaxed"))
    });
    {
        let log = server.log.lock().unwrap();
        let states: Vec<&String> = log.iter().filter(|l| l.starts_with("state: ")).collect();
        let stopping = states.iter().position(|l| *l == "state: stopping");
        let ramping = states.iter().position(|l| *l == "state: ramping");
        assert!(
            stopping.is_some() && stopping < ramping,
            "a requested stop is reported as such: {states:?}"
        );
    }
    let (_, _, rows) = server.stop();
    let model = Model::find("ERS-7").unwrap();
    assert!(
        rows.len() < dense(&motion, 1).len(),
        "the motion did not run to its end"
    );
    check_watchdog(&rows, 20, model);
    assert_eq!(
        rows.last().unwrap().pose,
        model.rest_posture().unwrap().angles
    );
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < until, "timed out");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The record after frames stopped: a gap of at least the hold time, then steps no
/// faster than a quarter of each joint's speed to the rest posture.
fn check_watchdog(rows: &[Row], hold_ticks: u64, model: &Model) {
    let gap = rows
        .windows(2)
        .position(|w| w[1].t_us - w[0].t_us > 8_000 * (hold_ticks - 2))
        .expect("a hold shows as a gap");
    let hold_us = rows[gap + 1].t_us - rows[gap].t_us;
    assert!(hold_us >= 8_000 * hold_ticks, "held {hold_us} µs");
    for w in rows[gap..].windows(2) {
        for ((a, b), j) in w[0].pose.iter().zip(&w[1].pose).zip(model.joints) {
            if j.max_step > 0 {
                assert!(
                    a.abs_diff(*b) <= j.max_step / 4,
                    "{}: ramp step {} > {}",
                    j.name,
                    a.abs_diff(*b),
                    j.max_step / 4
                );
            }
        }
    }
}

/// A raw client that speaks the protocol by hand.
struct RawClient {
    stream: TcpStream,
    seq: u16,
    key: Option<Key>,
    timestamp: u64,
    decoder: Decoder,
}

impl RawClient {
    fn connect(address: &str, key: Option<Key>) -> RawClient {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        RawClient {
            stream,
            seq: 0,
            key,
            timestamp: 1_000,
            decoder: Decoder::new(),
        }
    }

    fn frame(&mut self, m: &Message<'_>) -> Vec<u8> {
        let mut payload = [0u8; wire::MAX_PAYLOAD];
        let n = m.encode(&mut payload);
        self.seq += 1;
        self.timestamp += 1;
        let signing = self.key.as_ref().map(|key| Signing {
            key,
            link: 0,
            timestamp: self.timestamp,
        });
        let mut out = [0u8; MAX_ENCODED];
        let len = wire::encode_frame(self.seq, m.id(), &payload[..n], signing, &mut out).unwrap();
        out[..len].to_vec()
    }

    fn send(&mut self, m: &Message<'_>) {
        let f = self.frame(m);
        self.stream.write_all(&f).unwrap();
    }

    /// Says hello and answers the keyed bridge's challenge, as a host must before it
    /// commands anything.
    fn answer_challenge(&mut self) {
        self.send(&Message::Hello { protocol: 1 });
        let end = Instant::now() + Duration::from_secs(3);
        let mut buf = [0u8; 4096];
        let mut challenge = None;
        while challenge.is_none() {
            assert!(Instant::now() < end, "no identity");
            let n = self.stream.read(&mut buf).unwrap_or(0);
            self.decoder.feed(&buf[..n], |raw| {
                let Ok(f) = wire::parse_frame(raw.unwrap()) else {
                    return;
                };
                if let Ok(Message::Identity(i)) = Message::decode(f.msg, f.payload) {
                    challenge = Some(i.challenge);
                }
            });
        }
        let challenge = challenge.unwrap();
        self.send(&Message::Answer { challenge });
    }

    /// Statuses received until `until` says stop (or the time runs out).
    fn statuses_until(
        &mut self,
        limit: Duration,
        mut until: impl FnMut(&Status) -> bool,
    ) -> Vec<Status> {
        let end = Instant::now() + limit;
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        let mut replay = ReplayGuard::default();
        while Instant::now() < end {
            self.send(&Message::StatusRequest);
            let n = self.stream.read(&mut buf).unwrap_or(0);
            let key = self.key.clone();
            self.decoder.feed(&buf[..n], |raw| {
                let Ok(raw) = raw else { return };
                let Ok(f) = wire::parse_frame(raw) else {
                    return;
                };
                if wire::authenticate(&f, key.as_ref(), &mut replay).is_err() {
                    return;
                }
                if let Ok(Message::Status(s)) = Message::decode(f.msg, f.payload) {
                    out.push(s);
                }
            });
            if out.last().is_some_and(&mut until) {
                break;
            }
        }
        out
    }
}

fn stand() -> Vec<i32> {
    Model::find("ERS-7")
        .unwrap()
        .posture("stand")
        .unwrap()
        .angles
        .to_vec()
}

fn frame(tick: u32, pose: &[i32], last: bool) -> Message<'static> {
    Message::Frame(StreamFrame {
        tick,
        last,
        pose: Angles::from_slice(pose).unwrap(),
        middle: None,
        body: None,
    })
}

#[test]
fn a_stall_runs_the_watchdog_hold_ramp_relax_sequence_on_time() {
    let config = Config {
        hold_ticks: 30,
        ..Config::default()
    };
    let server = Server::start("ERS-7", config, Transport::Tcp);
    let mut c = RawClient::connect(&server.address, None);
    c.send(&Message::StreamStart {
        stream: 1,
        first_tick: 0,
    });
    let mut pose = stand();
    for k in 0..10u32 {
        pose[1] += 20_000; // head pan, well within its speed
        c.send(&frame(2 * k, &pose, false));
    }
    // Then nothing: the connection stays open, the frames just stop.
    let statuses = c.statuses_until(Duration::from_secs(15), |s| s.state == State::Relaxed as u8);
    let states: Vec<u8> = statuses.iter().map(|s| s.state).collect::<Vec<_>>();
    let mut seq = states.clone();
    seq.dedup();
    let expected = [State::Stalled, State::Ramping, State::Relaxed].map(|s| s as u8);
    assert!(seq.ends_with(&expected), "state sequence {seq:?}");
    let model = Model::find("ERS-7").unwrap();
    let (_, _, rows) = server.stop();
    // Ten frames without middles: ticks 0..=18 played (odd ones interpolated), then
    // tick 19 has no next frame to interpolate toward, and the stall begins.
    assert_eq!(rows[18].pose, pose);
    assert_eq!(rows[17].pose[1], pose[1] - 10_000);
    check_watchdog(&rows, 30, model);
    assert_eq!(
        rows.last().unwrap().pose,
        model.rest_posture().unwrap().angles
    );
}

/// From `from` through `way` to `to`, no joint steps faster than a quarter of its speed
/// (a rounding µrad aside): the way in, or back, as the bridge's ramp goes.
fn assert_eased(model: &Model, what: &str, from: &[i32], way: &[Vec<i32>], to: &[i32]) {
    let mut was = from;
    for pose in way.iter().map(Vec::as_slice).chain([to]) {
        for ((a, b), joint) in was.iter().zip(pose).zip(model.joints) {
            if !joint.binary && joint.max_step > 0 {
                assert!(
                    a.abs_diff(*b) <= joint.max_step / 4 + 1,
                    "{what}: {} steps {} µrad",
                    joint.name,
                    a.abs_diff(*b)
                );
            }
        }
        was = pose;
    }
}

#[test]
fn a_motion_that_starts_elsewhere_is_eased_into_at_a_quarter_of_joint_speed() {
    // The robot stands; the motion starts sitting. Jumped into, the guard would move
    // every leg at full speed; streamed or stored, it goes there at a quarter of each
    // joint's speed first (as the watchdog's ramp goes), then plays exactly.
    let model = Model::find("ERS-7").unwrap();
    let sit = model.posture("sit").unwrap().angles.to_vec();
    let mut nod = sit.clone();
    let head = model
        .joints
        .iter()
        .position(|j| j.name == "head_pan")
        .unwrap();
    nod[head] += 300_000;
    let mut motion = ers7_motion();
    motion.name = "a_sit#sit_link".into();
    motion.keyframes.truncate(2);
    motion.keyframes[0].joints = sit;
    motion.keyframes[1].joints = nod;
    let want = dense(&motion, 1);
    for mode in [Mode::Stream, Mode::Upload] {
        let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
        let opts = options(Endpoint::Tcp(server.address.clone()), mode);
        let report = link::play(&motion, &opts, &mut |_| {}).expect("the play completes");
        assert_eq!(report.ending, Ending::Completed, "{mode:?}");
        assert_eq!(report.shortfall(), None, "{mode:?}");
        let (bridge, _, rows) = server.stop();
        let got = poses(&rows);
        // The motion itself, exactly, after the way in.
        assert!(got.len() > want.len(), "{mode:?}: no way in");
        let (way_in, played) = got.split_at(got.len() - want.len());
        assert_eq!(played, &want[..], "{mode:?}");
        // The way in, from the stand, never faster than a quarter of a joint's speed
        // (a rounding µrad aside), and nothing the guard had to cut.
        assert_eased(model, &format!("{mode:?}"), &stand(), way_in, &played[0]);
        assert_eq!(bridge.counters().guarded, 0, "{mode:?}");
        if mode == Mode::Stream {
            assert_eq!(report.lead_in_ticks, way_in.len() as u64);
        }
    }
}

#[test]
fn a_way_in_the_check_refuses_moves_nothing_and_is_the_way_a_play_goes() {
    // The robot stands; the motion starts sitting, pitched as Sony's sit. Before
    // anything moves, the play hands the way in to its check: from the bridge's pose and
    // the stand's body pitch, along a straight line, to the first pose and its pitch.
    // Refused, neither mode sends a frame or a keyframe.
    let model = Model::find("ERS-7").unwrap();
    let sit = model.posture("sit").unwrap().angles.to_vec();
    let profile = aibo_motion::robot::profile::Profile::builtin("ERS-7").unwrap();
    let pitch = |posture: &str| (profile.postures[posture].body_pitch * 1e6).round() as i32;
    let sit_pitch = pitch("sit");
    assert!(sit_pitch.abs() > 100_000, "the sit is pitched: {sit_pitch}");
    let mut motion = ers7_motion();
    motion.name = "a_sit#sit_link".into();
    motion.keyframes.truncate(2);
    for k in &mut motion.keyframes {
        k.joints = sit.clone();
        k.pitch = sit_pitch;
        k.roll = 0;
    }
    let mut accepted_ticks = None;
    for mode in [Mode::Stream, Mode::Upload] {
        for refuse in [true, false] {
            let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
            let mut opts = options(Endpoint::Tcp(server.address.clone()), mode);
            let asked: Arc<Mutex<Vec<mtn::Motion>>> = Arc::default();
            let seen = asked.clone();
            opts.way_in_check = Some(link::WayInCheck(Arc::new(
                move |way: &mtn::Motion, kind| {
                    assert_eq!(kind, link::WayIn::FromWhereItStands);
                    seen.lock().unwrap().push(way.clone());
                    if refuse {
                        Err("refused by the test".into())
                    } else {
                        Ok(())
                    }
                },
            )));
            let played = link::play(&motion, &opts, &mut |_| {});
            let (bridge, _, rows) = server.stop();
            let asked = asked.lock().unwrap();
            assert_eq!(asked.len(), 1, "{mode:?}: asked once");
            let way = &asked[0].keyframes;
            assert_eq!(way.len(), 2, "{mode:?}");
            assert_eq!(way[0].joints, stand(), "{mode:?}: from the bridge's pose");
            assert_eq!(
                (way[0].roll, way[0].pitch),
                (0, pitch("stand")),
                "{mode:?}: as the stand means"
            );
            assert_eq!(way[1].joints, sit, "{mode:?}: to the first pose");
            assert_eq!((way[1].roll, way[1].pitch), (0, sit_pitch), "{mode:?}");
            if refuse {
                let err = played.expect_err("refused");
                assert!(matches!(err, link::LinkError::WayIn(_)), "{mode:?}: {err}");
                assert_eq!(err.to_string(), "refused by the test");
                assert!(
                    poses(&rows).iter().all(|p| *p == stand()),
                    "{mode:?}: moved"
                );
                assert_eq!(bridge.counters().played, 0, "{mode:?}");
            } else {
                let report = played.expect("the play completes");
                assert_eq!(report.ending, Ending::Completed, "{mode:?}");
                if mode == Mode::Stream {
                    accepted_ticks = Some((report.lead_in_ticks, asked[0].duration_ms()));
                }
            }
        }
    }
    // The way asked about takes as long as the stream's: its ticks and the step from
    // the last of them to the first pose (to the 16 ms of a keyframe's frame).
    let (ticks, way_ms) = accepted_ticks.expect("streamed");
    assert!(ticks > 0);
    let streamed_ms = (ticks + 1) * mtn::DENSE_FRAME_MS;
    assert!(
        way_ms >= streamed_ms && way_ms < streamed_ms + 16,
        "{way_ms} ms for {ticks} ticks"
    );
}

#[test]
fn a_looped_motion_that_ends_elsewhere_is_eased_back_to_its_start_between_passes() {
    // Stand to sit, twice. The second pass starts standing again: streamed or stored,
    // the robot goes back from the sit at a quarter of each joint's speed (as it is
    // eased into a motion), not at the guard's full speed, then plays the pass exactly.
    let model = Model::find("ERS-7").unwrap();
    let sit = model.posture("sit").unwrap().angles.to_vec();
    let mut motion = ers7_motion();
    motion.name = "a_stand#sit_loop".into();
    motion.keyframes.truncate(2);
    motion.keyframes[0].joints = stand();
    motion.keyframes[1].joints = sit.clone();
    motion.keyframes[1].frames_before = 150;
    let once = dense(&motion, 1);
    for mode in [Mode::Stream, Mode::Upload] {
        let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
        let mut opts = options(Endpoint::Tcp(server.address.clone()), mode);
        opts.loops = 2;
        let asked: Arc<Mutex<Vec<(link::WayIn, mtn::Motion)>>> = Arc::default();
        let seen = asked.clone();
        opts.way_in_check = Some(link::WayInCheck(Arc::new(
            move |way: &mtn::Motion, kind| {
                seen.lock().unwrap().push((kind, way.clone()));
                Ok(())
            },
        )));
        let report = link::play(&motion, &opts, &mut |_| {}).expect("the play completes");
        assert_eq!(report.ending, Ending::Completed, "{mode:?}");
        assert_eq!(report.shortfall(), None, "{mode:?}");
        let (bridge, _, rows) = server.stop();
        let got = poses(&rows);
        // The robot stands: the first pass from its first frame, exactly.
        assert_eq!(&got[..once.len()], &once[..], "{mode:?}: the first pass");
        let rest = &got[once.len()..];
        assert!(rest.len() > once.len(), "{mode:?}: no way back");
        let (back, second) = rest.split_at(rest.len() - once.len());
        assert_eq!(second, &once[..], "{mode:?}: the second pass");
        assert_eased(model, &format!("{mode:?}"), &sit, back, &second[0]);
        assert_eq!(bridge.counters().guarded, 0, "{mode:?}");
        // The check was asked about that way back, from the sit to the stand.
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{mode:?}");
        let (kind, way) = &asked[0];
        assert_eq!(*kind, link::WayIn::BetweenLoops, "{mode:?}");
        assert_eq!(way.keyframes[0].joints, sit, "{mode:?}");
        assert_eq!(way.keyframes[1].joints, stand(), "{mode:?}");
    }
}

#[test]
fn the_guard_never_applies_out_of_limit_or_too_fast_frames() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let model = Model::find("ERS-7").unwrap();
    let mut c = RawClient::connect(&server.address, None);
    c.send(&Message::StreamStart {
        stream: 1,
        first_tick: 0,
    });
    let mut wild = stand();
    // Each frame leaves 112 ms before it is due (half the bridge's buffer, as `play`
    // does), on absolute times: a test held up by a busy machine still delivers them.
    let t0 = Instant::now();
    for k in 0..40u32 {
        let send_at = (t0 + Duration::from_millis(16) * k).checked_sub(Duration::from_millis(112));
        if let Some(wait) = send_at.and_then(|at| at.checked_duration_since(Instant::now())) {
            std::thread::sleep(wait);
        }
        // Alternate between far past both limits on every joint.
        for (v, j) in wild.iter_mut().zip(model.joints) {
            *v = if k % 2 == 0 {
                j.max.saturating_add(2_000_000)
            } else {
                j.min.saturating_sub(2_000_000)
            };
        }
        c.send(&frame(2 * k, &wild, k == 39));
    }
    std::thread::sleep(Duration::from_millis(900));
    let statuses = c.statuses_until(Duration::from_secs(2), |s| s.state == State::Holding as u8);
    let (bridge, _, rows) = server.stop();
    assert!(bridge.counters().guarded > 30, "{:?}", bridge.counters());
    assert!(statuses.last().unwrap().counters.guarded > 30);
    let mut previous = stand();
    for r in &rows {
        for ((v, p), j) in r.pose.iter().zip(&previous).zip(model.joints) {
            assert!(
                *v >= j.min.saturating_sub(LIMIT_SLACK_URAD)
                    && *v <= j.max.saturating_add(LIMIT_SLACK_URAD),
                "{}: {v}",
                j.name
            );
            if j.max_step > 0 {
                assert!(
                    v.abs_diff(*p) <= j.max_step + STEP_SLACK_URAD,
                    "{}: step {}",
                    j.name,
                    v.abs_diff(*p)
                );
            }
        }
        previous = r.pose.clone();
    }
    assert!(
        rows.len() >= 70,
        "the frames were played (guarded), {} rows",
        rows.len()
    );
}

/// One encoded frame, signed with `key` when given.
fn frame_bytes(seq: u16, m: &Message<'_>, key: Option<&Key>, timestamp: u64) -> Vec<u8> {
    let mut payload = [0u8; wire::MAX_PAYLOAD];
    let n = m.encode(&mut payload);
    let signing = key.map(|key| Signing {
        key,
        link: 0,
        timestamp,
    });
    let mut out = [0u8; MAX_ENCODED];
    let len = wire::encode_frame(seq, m.id(), &payload[..n], signing, &mut out).unwrap();
    out[..len].to_vec()
}

#[test]
fn with_a_key_forged_unsigned_and_replayed_frames_are_dropped() {
    let key = Key::new([7; 32]);
    let config = Config {
        key: Some(key.clone()),
        ..Config::default()
    };
    let server = Server::start("ERS-7", config, Transport::Tcp);
    let mut good = RawClient::connect(&server.address, Some(key.clone()));
    good.answer_challenge();
    // Frames signed with the right key, captured to be replayed later.
    let start = good.frame(&Message::StreamStart {
        stream: 1,
        first_tick: 0,
    });
    good.stream.write_all(&start).unwrap();
    let mut pose = stand();
    pose[1] += 30_000;
    let captured = good.frame(&frame(0, &pose, true));
    good.stream.write_all(&captured).unwrap();
    std::thread::sleep(Duration::from_millis(300));

    // One attacker connection: a forged stream start and frame, the same unsigned, then
    // the captured genuine frames again.
    let forged_key = Key::new([8; 32]);
    let mut far = stand();
    far[1] += 40_000;
    let mut attack = Vec::new();
    for (seq, key) in [(10, Some(&forged_key)), (12, None)] {
        attack.extend(frame_bytes(
            seq,
            &Message::StreamStart {
                stream: 2,
                first_tick: 0,
            },
            key,
            5_000,
        ));
        attack.extend(frame_bytes(seq + 1, &frame(0, &far, true), key, 5_001));
    }
    attack.extend(&start);
    attack.extend(&captured);
    let mut attacker = TcpStream::connect(&server.address).unwrap();
    attacker.write_all(&attack).unwrap();
    std::thread::sleep(Duration::from_millis(300));

    let mut checker = RawClient::connect(&server.address, Some(key));
    checker.timestamp = 1_000_000;
    let s = checker.statuses_until(Duration::from_secs(3), |_| true);
    let (bridge, _, rows) = server.stop();
    let c = bridge.counters();
    assert_eq!(c.unauthenticated, 4, "{c:?}");
    assert_eq!(c.replayed, 2, "{c:?}");
    assert_eq!(s.last().unwrap().counters.unauthenticated, 4);
    assert_eq!(
        poses(&rows),
        vec![pose],
        "only the genuine frame was applied"
    );
}

#[test]
fn a_key_on_one_side_only_is_named_as_such() {
    let key = Key::new([7; 32]);
    // The bridge has a key, the host none: the bridge drops the unsigned hello. (One
    // server at a time: they take turns.)
    {
        let keyed = Server::start(
            "ERS-7",
            Config {
                key: Some(key.clone()),
                ..Config::default()
            },
            Transport::Tcp,
        );
        let mut opts = options(Endpoint::Tcp(keyed.address.clone()), Mode::Stream);
        opts.connect_timeout = Duration::from_millis(500);
        let err = link::play(&ers7_motion(), &opts, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains("pass the same --key here"), "{err}");
    }
    // The host has a key, the bridge none: it answers, unsigned.
    let open = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let mut opts = options(Endpoint::Tcp(open.address.clone()), Mode::Stream);
    opts.connect_timeout = Duration::from_millis(500);
    opts.key = Some(key);
    let err = link::play(&ers7_motion(), &opts, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("without this key's signature"), "{err}");
}

#[test]
fn a_played_session_replayed_into_a_restarted_server_moves_nothing() {
    let key = Key::new([7; 32]);
    let keyed = |entropy: u8| Config {
        key: Some(key.clone()),
        entropy: [entropy; 32],
        ..Config::default()
    };
    // A genuine signed session, recorded on its way to the server.
    let recording = Arc::new(Mutex::new(Vec::new()));
    let frames_sent = {
        let server = Server::start("ERS-7", keyed(1), Transport::Tcp);
        let tap = recording.clone();
        let relay = Relay::start(&server.address, false, move |bytes| {
            tap.lock().unwrap().extend_from_slice(bytes);
            true
        });
        let mut opts = options(Endpoint::Tcp(relay.address.clone()), Mode::Stream);
        opts.key = Some(key.clone());
        let report = link::play(&ers7_motion(), &opts, &mut |_| {}).unwrap();
        assert_eq!(report.ending, Ending::Completed);
        let (_, _, rows) = server.stop();
        assert!(!rows.is_empty(), "the genuine session played");
        report.frames_sent
    };
    // The server restarts (new entropy, no memory of timestamps) and hears it again.
    let server = Server::start("ERS-7", keyed(2), Transport::Tcp);
    let mut replayer = TcpStream::connect(&server.address).unwrap();
    let bytes = recording.lock().unwrap().clone();
    replayer.write_all(&bytes).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (bridge, _, rows) = server.stop();
    let c = bridge.counters();
    assert!(rows.is_empty(), "nothing moved: {} rows", rows.len());
    assert_eq!(c.played, 0, "{c:?}");
    assert_eq!(c.replayed, 1, "the recorded answer is stale: {c:?}");
    assert_eq!(
        u64::from(c.unauthenticated),
        1 + frames_sent,
        "the stream start and every frame were refused: {c:?}"
    );
}

/// A relay that stops forwarding the host's bytes for `stall` once `after` bytes have
/// passed, with the connection left open: the robot hears nothing meanwhile.
fn stalling_relay(server: &str, after: usize, stall: Duration) -> Relay {
    let mut seen = 0usize;
    let mut stalled = false;
    Relay::start(server, false, move |bytes| {
        seen += bytes.len();
        if seen > after && !stalled {
            stalled = true;
            std::thread::sleep(stall);
        }
        true
    })
}

#[test]
fn a_stalled_link_makes_play_say_the_robot_gave_up() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let relay = stalling_relay(&server.address, 3_000, Duration::from_secs(2));
    let motion = ers7_motion();
    let report = link::play(
        &motion,
        &options(Endpoint::Tcp(relay.address.clone()), Mode::Stream),
        &mut |_| {},
    )
    .expect("the link stays open");
    assert_eq!(report.ending, Ending::RobotGaveUp);
    let (state, frame) = report.gave_up.unwrap();
    assert!(
        matches!(state, State::Ramping | State::Relaxed),
        "{state:?}"
    );
    assert!(frame < report.frames, "it stopped before the end: {frame}");
    assert_eq!(report.stalls, 1);
    let (bridge, _, rows) = server.stop();
    let played = report.counted().unwrap().played;
    assert!(
        (played as usize) < dense(&motion, 1).len() && played > 0,
        "{played}"
    );
    // Every row the robot played before it gave up is a frame of the motion.
    let want = dense(&motion, 1);
    assert_eq!(poses(&rows[..played as usize]), want[..played as usize]);
    let why = report.shortfall().unwrap();
    assert!(
        why.starts_with("the robot did not play the motion as sent: frames stopped reaching it")
            && why.contains(&format!("{played} of {} frames of 8 ms", want.len())),
        "{why}"
    );
    assert!(
        bridge.counters().played == played,
        "{:?}",
        bridge.counters()
    );
}

#[test]
fn a_play_the_robot_stops_answering_ends_there_and_says_why() {
    // Another host connects mid-play, and the simulated robot listens to its newest link
    // only. The first host, answered no more though its link is up, gives up within
    // seconds: streaming, it stops sending the rest into nothing; stored, it stops
    // waiting for an end it would never hear of (it waited for ever).
    for (mode, so) in [
        (Mode::Stream, "so the rest was not sent"),
        (Mode::Upload, "so how it went on is unknown"),
    ] {
        let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
        let (motion, _) = aibo_motion::edit::scale_time(&ers7_motion(), 0.05, None).unwrap();
        let opts = options(Endpoint::Tcp(server.address.clone()), mode);
        let first = std::thread::spawn(move || link::play(&motion, &opts, &mut |_| {}));
        std::thread::sleep(Duration::from_secs(1));
        let other = TcpStream::connect(&server.address).unwrap();
        let report = first.join().unwrap().expect("the link stays open");
        drop(other);
        assert_eq!(report.ending, Ending::RobotSilent, "{mode:?}");
        let at = report.went_silent.unwrap();
        assert!(
            at < report.frames,
            "{mode:?}: it stopped before the end: {at}"
        );
        if mode == Mode::Stream {
            assert!(report.frames_sent <= at, "{} sent", report.frames_sent);
        }
        let why = report.shortfall().unwrap();
        assert!(
            why.starts_with("the robot did not play the motion as sent: by ")
                && why.contains("it had answered nothing for 3 s though the link was up")
                && why.contains(so)
                && why.contains("% of the motion ("),
            "{mode:?}: {why}"
        );
        server.stop();
    }
}

#[test]
fn the_command_line_exits_1_with_the_truth_when_the_link_stalls() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let relay = stalling_relay(&server.address, 3_000, Duration::from_secs(2));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("link.mtn");
    std::fs::write(&file, aibo_motion::mtn::encode(&ers7_motion()).unwrap()).unwrap();
    let out = common::run(&["play", file.to_str().unwrap(), "--tcp", &relay.address]);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].starts_with("aibo-motion: the robot did not play the motion as sent:")
            && lines[0].contains("% of the motion ("),
        "{stderr}"
    );
    server.stop();
}

#[test]
fn playing_a_name_the_robot_does_not_hold_lists_the_names_it_does() {
    let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
    let endpoint = Endpoint::Tcp(server.address.clone());
    let mut opts = options(endpoint, Mode::Upload);
    opts.name = "nope".into();
    let err = link::play_named(&opts, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no motion named \"nope\"; it holds none yet")
            && err.contains("aibo-motion upload"),
        "{err}"
    );
    for name in ["dance", "wave"] {
        opts.name = name.into();
        link::upload(&ers7_motion(), &opts).unwrap();
    }
    opts.name = "nope".into();
    let err = link::play_named(&opts, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("the robot holds no motion named \"nope\"; it holds \"dance\", \"wave\""),
        "{err}"
    );
    server.stop();
}

#[test]
fn a_robot_that_is_not_there_gets_a_hint_of_what_to_try() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("link.mtn");
    std::fs::write(&file, aibo_motion::mtn::encode(&ers7_motion()).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let missing = dir.path().join("ttyUSB9");
    let out = common::run(&["play", f, "--port", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains("`aibo-motion ports`") && err.contains("udev/README.md"),
        "{err}"
    );
    // A port nothing listens on (bound, then let go).
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = common::run(&["play", f, "--tcp", &closed.to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains("nothing listens there") && err.contains("aibo-joint-server --tcp"),
        "{err}"
    );
}

#[test]
fn a_port_another_program_holds_is_named_busy_and_left_to_it() {
    // The robot's pty, held open by another program as serialport opens a port: for
    // itself alone (TIOCEXCL and an flock, which root's opens meet too).
    let server = Server::start("ERS-7", Config::default(), Transport::Pty);
    let holder = serialport::new(&server.address, 115_200).open().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("link.mtn");
    std::fs::write(&file, aibo_motion::mtn::encode(&ers7_motion()).unwrap()).unwrap();
    let out = common::run(&["play", file.to_str().unwrap(), "--port", &server.address]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains("another program has the port open") && err.contains("close it"),
        "{err}"
    );
    // Nothing reached the robot; once the holder lets go, the same command plays.
    drop(holder);
    let out = common::run(&["play", file.to_str().unwrap(), "--port", &server.address]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (_, _, rows) = server.stop();
    assert_eq!(poses(&rows), dense(&ers7_motion(), 1));
}

/// What carries a pose from the host: a stream frame or an uploaded keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sent {
    Frame,
    Keyframe,
}

/// The poses a host sent, each with the body attitude it said.
type SentPoses = Arc<Mutex<Vec<(Sent, Option<[i32; 2]>)>>>;

/// Relays one connection as a version-1 bridge would answer it: the bridge's identity
/// says protocol 1 (every other reply passes as it came). What the host sends passes
/// unchanged, and each pose it carries is kept in `sent`, with the body attitude it says.
fn relay_as_version_1(mut host: TcpStream, server: &str, sent: SentPoses) {
    let mut upstream = TcpStream::connect(server).unwrap();
    host.set_nodelay(true).unwrap();
    upstream.set_nodelay(true).unwrap();
    let (mut host_w, mut up_w) = (host.try_clone().unwrap(), upstream.try_clone().unwrap());
    std::thread::spawn(move || {
        let (mut buf, mut decoder) = ([0u8; 4096], Decoder::new());
        while let Ok(n @ 1..) = upstream.read(&mut buf) {
            let mut out = Vec::new();
            decoder.feed(&buf[..n], |raw| {
                let frame = wire::parse_frame(raw.unwrap()).unwrap();
                let mut payload = [0u8; wire::MAX_PAYLOAD];
                let mut len = frame.payload.len();
                payload[..len].copy_from_slice(frame.payload);
                if let Ok(Message::Identity(mut identity)) =
                    Message::decode(frame.msg, frame.payload)
                {
                    identity.protocol = 1;
                    len = Message::Identity(identity).encode(&mut payload);
                }
                let mut encoded = [0u8; MAX_ENCODED];
                let n =
                    wire::encode_frame(frame.seq, frame.msg, &payload[..len], None, &mut encoded)
                        .unwrap();
                out.extend_from_slice(&encoded[..n]);
            });
            if host_w.write_all(&out).is_err() {
                break;
            }
        }
    });
    let (mut buf, mut decoder) = ([0u8; 4096], Decoder::new());
    while let Ok(n @ 1..) = host.read(&mut buf) {
        decoder.feed(&buf[..n], |raw| {
            let frame = wire::parse_frame(raw.unwrap()).unwrap();
            // Each pose the host sends, and the body attitude it carries.
            let pose = match Message::decode(frame.msg, frame.payload).unwrap() {
                Message::Frame(f) => Some((Sent::Frame, f.body)),
                Message::UploadKeyframe { body, .. } => Some((Sent::Keyframe, body)),
                _ => None,
            };
            sent.lock().unwrap().extend(pose);
        });
        if up_w.write_all(&buf[..n]).is_err() {
            break;
        }
    }
}

#[test]
fn a_version_1_bridge_gets_neither_the_attitude_nor_its_message_and_plays_exactly() {
    // A bridge of protocol 1 knows neither the frame's body flag nor
    // UPLOAD_KEYFRAME_BODY: it would drop both as bad. The host, told protocol 1 in the
    // identity, sends poses only, and the motion plays as it does to a version-2 bridge.
    for mode in [Mode::Stream, Mode::Upload] {
        let server = Server::start("ERS-7", Config::default(), Transport::Tcp);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let sent = Arc::new(Mutex::new(Vec::new()));
        let (upstream, seen) = (server.address.clone(), sent.clone());
        std::thread::spawn(move || {
            if let Ok((host, _)) = listener.accept() {
                relay_as_version_1(host, &upstream, seen);
            }
        });
        let motion = ers7_motion();
        let report = link::play(&motion, &options(Endpoint::Tcp(address), mode), &mut |_| {})
            .expect("the play completes");
        assert_eq!(report.ending, Ending::Completed, "{mode:?}");
        let bodies = server.bodies.clone();
        let (bridge, _, rows) = server.stop();
        let sent = sent.lock().unwrap();
        assert!(
            sent.iter().all(|(_, body)| body.is_none()),
            "{mode:?}: the host sent the body to a version-1 bridge"
        );
        let count = |kind: Sent| sent.iter().filter(|(k, _)| *k == kind).count();
        let (frames, keyframes) = (count(Sent::Frame), count(Sent::Keyframe));
        match mode {
            Mode::Stream => assert!(frames > 0 && keyframes == 0, "{frames} {keyframes}"),
            _ => assert!(
                frames == 0 && keyframes == motion.keyframes.len(),
                "{keyframes}"
            ),
        }
        // The bridge passed on no attitude, dropped nothing, and played every pose.
        assert!(bodies.lock().unwrap().iter().all(Option::is_none));
        let c = bridge.counters();
        assert_eq!((c.bad, c.dropped, c.guarded, c.lost), (0, 0, 0, 0), "{c:?}");
        assert_eq!(poses(&rows), dense(&motion, 1), "{mode:?}");
    }
}
