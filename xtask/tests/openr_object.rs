//! The OPEN-R object on the host: `BridgeObject.cc` built against our stand-ins for the
//! SDK (`firmware-bridge/openr/host`), driven as OPEN-R and the IP stack would drive it, and
//! checked against the core run in this process on the same schedule: the frames of every
//! command vector (four per `Ready()`, the ears as OPEN-R's binary commands), the region a
//! vector is written into (never one still held), the replies sent in chunks under 1 KB,
//! and a closed connection taken as a lost link (hold, ramp to rest, relax, listen again).

mod common;

use common::{hex, run_on};
use firmware_bridge::message::{Angles, Message, StreamFrame};
use firmware_bridge::wire::{encode_frame, MAX_ENCODED, MAX_PAYLOAD};
use firmware_bridge::{Bridge, Config, Model};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

const FRAMES_PER_VECTOR: usize = 4;
const SEND_CHUNK: usize = 1000;

/// The script for the object, and the core in this process following the same schedule:
/// what the effectors must receive, tick by tick, and the bytes the host must be sent.
struct Session {
    script: String,
    core: Bridge,
    measured: Vec<i32>,
    connected: bool,
    frames: Vec<Vec<i32>>,
    replies: Vec<u8>,
    seq: u16,
}

impl Session {
    fn new(model: &'static Model) -> Self {
        // The object's settings, which its identity reply shows.
        let config = Config::robot();
        // Where the servos are when the object starts: a little off the stand.
        let measured: Vec<i32> = model
            .posture("stand")
            .unwrap()
            .angles
            .iter()
            .zip(model.joints)
            .map(|(v, j)| if j.binary { *v } else { v + 1_000 })
            .collect();
        let mut script = format!("design {}\nclock 1795500000\n", model.name);
        for (i, v) in measured.iter().enumerate() {
            writeln!(script, "measured {i} {v}").unwrap();
        }
        script.push_str("start\n");
        Session {
            script,
            core: Bridge::new(model, config, &[]),
            measured,
            connected: false,
            frames: Vec::new(),
            replies: Vec::new(),
            seq: 0,
        }
    }

    fn line(&mut self, line: &str) {
        self.script.push_str(line);
        self.script.push('\n');
    }

    fn connect(&mut self) {
        self.line("connect");
        self.connected = true;
    }

    fn send(&mut self, message: &Message<'_>) {
        self.seq = self.seq.wrapping_add(1);
        let mut payload = [0u8; MAX_PAYLOAD];
        let n = message.encode(&mut payload);
        let mut out = [0u8; MAX_ENCODED];
        let len = encode_frame(self.seq, message.id(), &payload[..n], None, &mut out).unwrap();
        self.line(&format!("rx {}", hex(&out[..len])));
        let mut replies = Vec::new();
        self.core
            .receive(&out[..len], &mut |r: &[u8]| replies.extend_from_slice(r));
        self.keep(replies);
    }

    /// What the object sends on: only while a host is connected.
    fn keep(&mut self, replies: Vec<u8>) {
        if self.connected {
            self.replies.extend(replies);
        }
    }

    /// `n` Ready() events, each four ticks; while relaxed the measured angles go in first,
    /// as the object feeds them. Every send completes after each.
    fn ready(&mut self, n: usize) {
        for _ in 0..n {
            self.line("ready 1");
            for _ in 0..FRAMES_PER_VECTOR {
                if self.core.state() as u8 == 0 {
                    self.core.set_measured(&self.measured.clone());
                }
                let mut replies = Vec::new();
                let pose = self
                    .core
                    .tick(&mut |r: &[u8]| replies.extend_from_slice(r))
                    .pose
                    .to_vec();
                self.frames.push(pose);
                self.keep(replies);
            }
            self.line("flush");
        }
    }

    /// The first half of a frame, the rest never coming.
    fn half_frame(&mut self) {
        let mut payload = [0u8; MAX_PAYLOAD];
        let n = Message::Hold.encode(&mut payload);
        let mut out = [0u8; MAX_ENCODED];
        let len = encode_frame(99, Message::Hold.id(), &payload[..n], None, &mut out).unwrap();
        let half = &out[..len / 2];
        self.line(&format!("rx {}", hex(half)));
        self.core.receive(half, &mut |_: &[u8]| {});
    }

    fn hang_up(&mut self) {
        self.line("hangup");
        self.core.link_lost();
        self.connected = false;
    }
}

/// What the object did, read from the driver's transcript.
struct Seen {
    vectors: Vec<Vec<Vec<String>>>,
    sends: Vec<Vec<u8>>,
    lines: Vec<String>,
}

fn run(script: &str) -> Seen {
    let exe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/robot/openr-host");
    let printed = run_on(&[&exe], script);
    let mut seen = Seen {
        vectors: Vec::new(),
        sends: Vec::new(),
        lines: Vec::new(),
    };
    for line in printed.lines() {
        if line.starts_with("vector ") {
            seen.vectors.push(Vec::new());
        } else if let Some(frame) = line.strip_prefix("frame ") {
            seen.vectors
                .last_mut()
                .unwrap()
                .push(frame.split(' ').map(str::to_string).collect());
        } else if let Some(send) = line.strip_prefix("ant send ") {
            let (len, bytes) = send.split_once(' ').unwrap();
            let bytes: Vec<u8> = (0..bytes.len() / 2)
                .map(|i| u8::from_str_radix(&bytes[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            assert_eq!(len.parse::<usize>().unwrap(), bytes.len());
            seen.sends.push(bytes);
        }
        seen.lines.push(line.to_string());
    }
    seen
}

/// A frame's values as the core gives them: an ear's command is its state, 0 or 1.
fn values(frame: &[String]) -> Vec<i32> {
    frame
        .iter()
        .map(|v| {
            let v = v
                .strip_prefix("e4:")
                .map(|e| e.split('/').next().unwrap())
                .or(v.strip_prefix("e3:"))
                .unwrap_or(v);
            v.parse().unwrap()
        })
        .collect()
}

fn a_session(model: &'static Model) -> (Session, Seen) {
    let mut s = Session::new(model);
    s.ready(2); // relaxed, before anyone connects
    s.connect();
    s.send(&Message::Hello { protocol: 1 });
    s.ready(1);
    s.send(&Message::StreamStart {
        stream: 1,
        first_tick: 0,
    });
    let stand = model.posture("stand").unwrap().angles;
    for i in 0..60u32 {
        let mut pose = stand.to_vec();
        pose[0] += (i as i32 % 20) * 4_000; // the head nods
        for (j, spec) in model.joints.iter().enumerate() {
            if spec.binary {
                pose[j] = i32::from(i % 8 < 4); // the ears flick
            }
        }
        s.send(&Message::Frame(StreamFrame {
            tick: 2 * i,
            last: false,
            pose: Angles::from_slice(&pose).unwrap(),
            middle: None,
            body: None,
        }));
        if i % 2 == 1 {
            s.ready(1);
        }
    }
    // The host goes quiet, then the connection closes mid-frame: hold, ramp to rest,
    // relax; the half frame must not spoil the next host's first one.
    s.ready(5);
    s.half_frame();
    s.hang_up();
    s.line("closed");
    s.ready(250);
    // A new host connects, and is answered; two hellos at once make over 1 KB of replies
    // to send.
    s.connect();
    s.send(&Message::Hello { protocol: 1 });
    s.send(&Message::Hello { protocol: 1 });
    s.ready(1);
    let seen = run(&s.script);
    (s, seen)
}

#[test]
#[cfg_attr(
    not(can_build_openr_host),
    ignore = "needs g++ and rust-src (.ci/run installs rust-src)"
)]
fn the_object_commands_what_the_core_plays_and_takes_a_closed_link_as_lost() {
    let built = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("openr-host")
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for name in ["ERS-7", "ERS-210", "ERS-220"] {
        let model = Model::find(name).unwrap();
        let (session, seen) = a_session(model);
        assert!(seen.lines.iter().any(|l| l == "init ok"), "{name}");
        assert!(
            !seen.lines.iter().any(|l| l.starts_with("error")),
            "{name}: {:?}",
            seen.lines.iter().find(|l| l.starts_with("error"))
        );

        // Four frames per vector, one vector per Ready(), each frame the core's.
        assert!(
            seen.vectors.iter().all(|v| v.len() == FRAMES_PER_VECTOR),
            "{name}"
        );
        let commanded: Vec<Vec<i32>> = seen.vectors.iter().flatten().map(|f| values(f)).collect();
        assert_eq!(commanded.len(), session.frames.len(), "{name}");
        for (tick, (got, want)) in commanded.iter().zip(&session.frames).enumerate() {
            assert_eq!(got, want, "{name}: tick {tick}");
        }

        // The ears as OPEN-R takes them: JOINT_COMMAND4 (a period of one frame) on the
        // ERS-7, JOINT_COMMAND3 on the ERS-210/220; both states were commanded.
        let ear = if name == "ERS-7" { "e4:" } else { "e3:" };
        let ears: Vec<&String> = seen
            .vectors
            .iter()
            .flatten()
            .flatten()
            .filter(|v| v.starts_with('e'))
            .collect();
        let has_ears = model.joints.iter().any(|j| j.binary);
        assert_eq!(!ears.is_empty(), has_ears, "{name}");
        assert!(
            ears.iter().all(|e| e.starts_with(ear)),
            "{name}: {:?}",
            ears.first()
        );
        if has_ears {
            for state in ["0", "1"] {
                assert!(
                    ears.iter().any(|e| e[3..].starts_with(state)),
                    "{name}: no ear state {state}"
                );
            }
        }
        if name == "ERS-7" {
            assert!(ears.iter().all(|e| e.ends_with("/1")), "{name}");
        }

        // Replies: every send under 1 KB, and together exactly what the core said while a
        // host was connected.
        assert!(
            seen.sends
                .iter()
                .all(|s| !s.is_empty() && s.len() <= SEND_CHUNK),
            "{name}"
        );
        assert!(
            seen.sends.iter().any(|s| s.len() == SEND_CHUNK),
            "{name}: two identities take more than one chunk"
        );
        assert_eq!(seen.sends.concat(), session.replies, "{name}");

        // The closed link: the object closes its endpoint and listens again; the core held,
        // ramped to rest and relaxed, with the gains off again.
        let after = |what: &str, from: usize| {
            seen.lines[from..]
                .iter()
                .position(|l| l.starts_with(what))
                .map(|i| i + from)
        };
        let hangup = after("ant close", 0).expect("closed its endpoint");
        assert!(
            after("ant listen port 7000", hangup).is_some(),
            "{name}: listens again"
        );
        // The ramp reached the rest posture, then the core relaxed: the stand-in's servos
        // stay where they were measured, and that is what a relaxed object reports.
        let rest = model.rest_posture().unwrap().angles;
        assert!(
            session.frames.iter().any(|f| f == rest),
            "{name}: reached rest"
        );
        assert_eq!(session.core.state() as u8, 0, "{name}: relaxed");
        let enabled = after("gain ", 0).expect("gains came on");
        assert!(seen.lines[enabled].ends_with("enable"), "{name}");
        assert!(
            after("gain ", hangup).is_some_and(|i| seen.lines[i].ends_with("disable")),
            "{name}: gains off at rest"
        );
    }
}
