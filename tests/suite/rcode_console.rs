//! `aibo-motion rcode` and `play --rcode`: first against a bare stand-in for R-CODE's
//! console on loopback (a banner, `<READY>`, then `<READY>` again after each line), then
//! end to end against the simulated R-CODE robot (`aibo-joint-server --rcode`) on a stick
//! that `build` and `stick add` made, its record compared with the motion's dense
//! playback. (How a real robot words anything but `<READY>` is unverified.)

use crate::common;

use firmware_bridge::Model;
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
    // A prompt with no line break after it is named as it comes, as is a whole line.
    for greeting in ["AIBO\r\nlogin: ", "Password required\r\n"] {
        let (address, _server) = console(greeting);
        let out = common::run(&["rcode", &address, "WAIT"]);
        assert_eq!(out.status.code(), Some(2), "{greeting:?}");
        assert!(
            common::stderr(&out).contains("owner's log-in"),
            "{greeting:?}: {}",
            common::stderr(&out)
        );
    }
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = common::run(&["rcode", &closed.to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("nothing listens there"));
}

/// The simulated R-CODE robot (`aibo-joint-server --rcode`) on a stick, its console's
/// address, its log lines as they come, and its record.
struct RcodeRobot {
    child: std::process::Child,
    address: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    record: std::path::PathBuf,
}

impl RcodeRobot {
    fn start(stick: &std::path::Path, posture: &str, record: std::path::PathBuf) -> RcodeRobot {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
            .args(["--rcode", "127.0.0.1:0", "--stick"])
            .arg(stick)
            .args(["--start-posture", posture, "--record"])
            .arg(&record)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut address = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        });
        RcodeRobot {
            child,
            address: address.trim().to_string(),
            log,
            record,
        }
    }

    /// Waits (up to a minute, for a busy machine) for a log line containing `text`.
    fn wait_for(&self, text: &str) {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !self.log.lock().unwrap().iter().any(|l| l.contains(text)) {
            assert!(
                std::time::Instant::now() < end,
                "no {text:?} in {:?}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// The record's rows as poses, split where the robot held (a gap in `t_us`).
    fn plays(&self) -> Vec<Vec<Vec<i32>>> {
        let mut plays: Vec<Vec<Vec<i32>>> = Vec::new();
        let mut last = None;
        for row in common::link::read_record(&self.record) {
            if last.is_none_or(|t| row.t_us != t + 8000) {
                plays.push(Vec::new());
            }
            last = Some(row.t_us);
            plays.last_mut().unwrap().push(row.pose);
        }
        plays
    }
}

impl Drop for RcodeRobot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `build` the repository's example for the ERS-210 and `stick add` it as `nod_wave` to
/// a copy of Sony's redistributable tree; the folder, the stick's root and the motion.
fn example_on_a_stick() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    aibo_motion::mtn::Motion,
) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    common::writable_stick("redist-ers210", &root);
    let file = dir.path().join("nod.mtn");
    common::build_example("ERS-210", &file);
    let out = common::run(&[
        "stick",
        "add",
        root.to_str().unwrap(),
        file.to_str().unwrap(),
        "--name",
        "nod_wave",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let motion = aibo_motion::mtn::decode(&std::fs::read(&file).unwrap())
        .unwrap()
        .motion;
    (dir, root, motion)
}

/// The motion's dense 8 ms frames in the model's joint order (the record's columns).
fn dense_in_model_order(motion: &aibo_motion::mtn::Motion, model: &Model) -> Vec<Vec<i32>> {
    let column: Vec<usize> = model
        .joints
        .iter()
        .map(|j| motion.locators.iter().position(|l| l == j.locator).unwrap())
        .collect();
    aibo_motion::mtn::dense_frames(motion)
        .map(|f| column.iter().map(|&c| f.joints[c]).collect())
        .collect()
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_built_motion_on_a_stick_plays_over_the_console_after_the_walk_to_its_posture() {
    let (dir, root, motion) = example_on_a_stick();
    let model = Model::find("ERS-210").unwrap();
    // The robot sits; the motion starts standing.
    let robot = RcodeRobot::start(&root, "sit", dir.path().join("record.csv"));
    let out = common::run(&["play", "--rcode", &robot.address, "nod_wave"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("played nod_wave"));
    // The robot's lines are shown, but not the blank ones between them.
    assert!(
        !common::stderr(&out)
            .lines()
            .any(|l| l.trim_end() == "robot:"),
        "{}",
        common::stderr(&out)
    );
    robot.wait_for("nod_wave: ended");
    // A walk, then the motion frame for frame as Sony's player interpolates it (the
    // hold between them can be shorter than a frame, so the rows are counted).
    let rows = robot.plays().concat();
    let want = dense_in_model_order(&motion, model);
    assert!(rows.len() > want.len(), "a walk came first");
    let (walk, played) = rows.split_at(rows.len() - want.len());
    assert_eq!(played, &want[..]);
    // The walk: from sitting to standing, no joint faster than the ramp's share.
    let sit = model.posture("sit").unwrap().angles;
    let stand = model.posture("stand").unwrap().angles;
    assert_eq!(walk.first().unwrap(), sit);
    assert_eq!(walk.last().unwrap(), stand);
    for pair in walk.windows(2) {
        for (j, spec) in model.joints.iter().enumerate() {
            if !spec.binary && spec.max_step > 0 {
                let step = f64::from((pair[1][j] - pair[0][j]).abs());
                assert!(
                    step <= f64::from(spec.max_step) * aibo_motion::keyframes::RAMP_SPEED_SHARE,
                    "{}: {step}",
                    spec.name
                );
            }
        }
    }
    // By number, and again: the robot stands now, so no walk.
    let out = common::run(&["rcode", &robot.address, "PLAY:MWCID:24001", "WAIT"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    robot.wait_for("MWCID 24001: ended");
    let again = robot.plays().concat();
    assert_eq!(again.len(), rows.len() + want.len());
    assert_eq!(again[rows.len()..], want[..]);
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn the_console_refuses_what_the_stick_cannot_play() {
    let (dir, root, _) = example_on_a_stick();
    let robot = RcodeRobot::start(&root, "stand", dir.path().join("record.csv"));
    for (name, says) in [
        ("no_such", "no action named \"no_such\""),
        ("SIT", "plays Sony's own motion"),
    ] {
        let out = common::run(&["play", "--rcode", &robot.address, name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = common::stderr(&out);
        assert!(
            err.contains(&format!("did not take PLAY:ACTION:{name}: ERROR:")) && err.contains(says),
            "{err}"
        );
    }
    let out = common::run(&["rcode", &robot.address, "DANCE:NOW", "@DISS"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("ERROR: DANCE:NOW: the simulated console knows"));
    assert!(robot.plays().is_empty(), "nothing moved");
}

/// `play --rcode` in the background, and Ctrl-C sent to it `presses` times once the
/// motion plays (the second 200 ms after the first).
fn interrupted_play(robot: &RcodeRobot, presses: usize) -> std::process::Output {
    let before = robot.log.lock().unwrap().len();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(["play", "--rcode", &robot.address, "nod_wave"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !robot.log.lock().unwrap()[before..]
        .iter()
        .any(|l| l.contains("nod_wave: playing"))
    {
        assert!(std::time::Instant::now() < end);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    for _ in 0..presses {
        let killed = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    child.wait_with_output().unwrap()
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn ctrl_c_sends_stop_which_ends_the_action_then_quit_which_cuts_it_short() {
    let (dir, root, motion) = example_on_a_stick();
    let model = Model::find("ERS-210").unwrap();
    let full = dense_in_model_order(&motion, model);
    let robot = RcodeRobot::start(&root, "stand", dir.path().join("record.csv"));
    // STOP: R-CODE stops after the current action, which plays to its end.
    let out = interrupted_play(&robot, 1);
    assert_eq!(out.status.code(), Some(130));
    assert!(common::stderr(&out).contains("sent STOP"));
    assert!(
        common::stderr(&out).contains("Press Ctrl-C again to send QUIT and stop it now"),
        "{}",
        common::stderr(&out)
    );
    robot.wait_for("nod_wave: ended");
    assert_eq!(robot.plays(), std::slice::from_ref(&full));
    // QUIT: at once; the robot holds, then rests.
    let out = interrupted_play(&robot, 2);
    assert_eq!(out.status.code(), Some(130));
    assert!(common::stderr(&out).contains("sent QUIT"));
    robot.wait_for("nod_wave: stopped by QUIT");
    let plays = robot.plays();
    assert!(plays.len() >= 2);
    assert!(
        plays[1].len() < full.len() && plays[1][..] == full[..plays[1].len()],
        "cut short: {} of {} frames",
        plays[1].len(),
        full.len()
    );
}

/// The simulated robot on a plain copy of Sony's redistributable ERS-210 tree.
fn robot_on_sonys_tree() -> (tempfile::TempDir, RcodeRobot) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stick");
    common::writable_stick("redist-ers210", &root);
    let robot = RcodeRobot::start(&root, "stand", dir.path().join("record.csv"));
    (dir, robot)
}

/// Reads from `stream` until `text` has come (or 20 s pass); what came.
fn read_until_text(stream: &mut std::net::TcpStream, text: &str) -> String {
    use std::io::Read;
    stream
        .set_read_timeout(Some(std::time::Duration::from_millis(200)))
        .unwrap();
    let (mut got, end) = (
        Vec::new(),
        std::time::Instant::now() + std::time::Duration::from_secs(20),
    );
    while !String::from_utf8_lossy(&got).contains(text) && std::time::Instant::now() < end {
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn a_client_that_never_reads_its_answers_is_held_up_not_queued() {
    let (_dir, robot) = robot_on_sonys_tree();
    let mut hostile = std::net::TcpStream::connect(&robot.address).unwrap();
    hostile
        .set_write_timeout(Some(std::time::Duration::from_secs(3)))
        .unwrap();
    // Short lines, each answered with an ERROR line nobody reads: the server stops
    // reading (and so the client stops writing) long before this much is sent.
    const SENT_AT_MOST: usize = 24 << 20;
    let chunk = b"X\n".repeat(32 << 10);
    let mut sent = 0;
    while sent < SENT_AT_MOST && hostile.write_all(&chunk).is_ok() {
        sent += chunk.len();
    }
    let peak = common::peak_kb(robot.child.id()).unwrap();
    assert!(sent < SENT_AT_MOST, "the server read all {sent} bytes");
    assert!(
        peak < 60_000,
        "the server peaked at {peak} kB after {sent} bytes"
    );
    // And the console still serves others meanwhile.
    let out = common::run(&["rcode", &robot.address, "PLAY:ACTION:no_such", "@DISS"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("no action named"));
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn an_idle_connection_does_not_hold_up_the_next_owner() {
    let (_dir, robot) = robot_on_sonys_tree();
    let mut idle = std::net::TcpStream::connect(&robot.address).unwrap();
    assert!(read_until_text(&mut idle, "<READY>").contains("<READY>"));
    let out = common::run(&["rcode", &robot.address, "DANCE:NOW", "@DISS"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("ERROR: DANCE:NOW"));
    // Sessions are capped: with the cap's worth open, one more is told so.
    let mut open = vec![idle];
    let busy = loop {
        let mut s = std::net::TcpStream::connect(&robot.address).unwrap();
        let said = read_until_text(&mut s, "\n");
        if said.contains("busy") {
            break said;
        }
        open.push(s);
        assert!(open.len() <= 64, "no cap on sessions");
    };
    assert!(busy.starts_with("ERROR: busy"), "{busy}");
}

#[test]
#[cfg_attr(not(shared_rcode), ignore = "needs ../shared/rcode-samples")]
fn escape_sequences_from_the_network_are_shown_escaped_never_sent() {
    let (_dir, robot) = robot_on_sonys_tree();
    let mut client = std::net::TcpStream::connect(&robot.address).unwrap();
    read_until_text(&mut client, "<READY>");
    client
        .write_all(b"\x1b]0;owned\x07\x1b[2JPLAY:ACTION:\x1b[31mred\r\n")
        .unwrap();
    let answer = read_until_text(&mut client, "<READY>");
    assert!(answer.contains("ERROR: "), "{answer:?}");
    assert!(answer.contains("\\u{1b}[2J"), "{answer:?}");
    assert!(!answer.contains(['\x1b', '\x07']), "{answer:?}");
    robot.wait_for("error:");
    let log = robot.log.lock().unwrap().join("\n");
    assert!(log.contains("\\u{1b}"), "{log}");
    assert!(!log.contains(['\x1b', '\x07']), "{log}");
}
