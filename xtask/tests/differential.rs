//! The bridge core on the robot's CPU: the replay harness runs the same scripts natively
//! and as a static mipsel executable under `qemu-mipsel` (linked with the very object
//! `cargo xtask robot` checked), and the core in this process reads them a third time. All
//! three transcripts must be identical, line for line.
//!
//! The scripts: every test vector of PROTOCOL.md, on an unsigned and a keyed bridge; a
//! signed session that answers its challenge, then a replay and a forgery; line noise;
//! upload, play, list and stop; a stream cut off, with the watchdog's hold and ramp to rest
//! and a lost link; and 300 generated sessions mixing all of these.

mod common;

use common::{hex, run_on};
use firmware_bridge::message::{Angles, Message, StreamFrame};
use firmware_bridge::sign::Key;
use firmware_bridge::wire::{encode_frame, Signing, MAX_ENCODED, MAX_PAYLOAD};
use firmware_bridge::{Bridge, Config, Model, OutputKind};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small deterministic generator (xorshift), so a failing script can be made again.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A script being written: its lines, and the host's sequence number and timestamp.
struct Script {
    text: String,
    seq: u16,
    timestamp: u64,
    key: Option<Key>,
}

impl Script {
    fn new() -> Self {
        Script {
            text: String::new(),
            seq: 0,
            timestamp: 0,
            key: None,
        }
    }

    /// A fresh bridge for `model`, keyed or not; the host's own counts start again.
    fn bridge(&mut self, model: &str, entropy: [u8; 32], key: Option<[u8; 32]>) -> &mut Self {
        let key_text = key.map_or("-".to_string(), |k| hex(&k));
        writeln!(self.text, "new {model} 4 512 {} {key_text}", hex(&entropy)).unwrap();
        self.key = key.map(Key::new);
        self.seq = 0;
        self.timestamp = 0;
        self
    }

    fn line(&mut self, line: &str) -> &mut Self {
        self.text.push_str(line);
        self.text.push('\n');
        self
    }

    fn rx(&mut self, bytes: &[u8]) -> &mut Self {
        let line = format!("rx {}", hex(bytes));
        self.line(line.trim_end())
    }

    fn ticks(&mut self, n: u32) -> &mut Self {
        self.line(&format!("tick {n}"))
    }

    /// `message` as the host sends it: signed when the script's bridge has a key.
    fn encoded(&mut self, message: &Message<'_>) -> Vec<u8> {
        self.seq = self.seq.wrapping_add(1);
        self.timestamp += 1;
        let mut payload = [0u8; MAX_PAYLOAD];
        let n = message.encode(&mut payload);
        let mut out = [0u8; MAX_ENCODED];
        let signing = self.key.as_ref().map(|key| Signing {
            key,
            link: 1,
            timestamp: self.timestamp,
        });
        let len = encode_frame(self.seq, message.id(), &payload[..n], signing, &mut out).unwrap();
        out[..len].to_vec()
    }

    fn send(&mut self, message: &Message<'_>) -> &mut Self {
        let bytes = self.encoded(message);
        self.rx(&bytes)
    }
}

fn model(name: &str) -> &'static Model {
    Model::find(name).unwrap()
}

fn pose(model: &Model, random: &mut Random, spread: i32) -> Angles {
    let stand = model.posture("stand").unwrap().angles;
    let values: Vec<i32> = stand
        .iter()
        .map(|v| v + (random.below(2 * spread as u64 + 1) as i32 - spread))
        .collect();
    Angles::from_slice(&values).unwrap()
}

/// A stream of `frames` 16 ms frames from tick `first`, moving by up to `spread` µrad.
fn stream(s: &mut Script, model: &Model, random: &mut Random, frames: u32, spread: i32) {
    s.send(&Message::StreamStart {
        stream: 1,
        first_tick: 0,
    });
    for i in 0..frames {
        let frame = StreamFrame {
            tick: 2 * i,
            last: i + 1 == frames,
            pose: pose(model, random, spread),
            middle: (random.below(2) == 0).then(|| pose(model, random, spread)),
            body: (random.below(2) == 0).then(|| [random.below(400_000) as i32, -7]),
        };
        s.send(&Message::Frame(frame)).ticks(2);
    }
}

/// PROTOCOL.md's vectors, each received and followed by two frames, on both bridges.
fn vectors(s: &mut Script) {
    let protocol = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-bridge/PROTOCOL.md"),
    )
    .unwrap();
    let vectors: Vec<Vec<u8>> = protocol
        .lines()
        .filter_map(|l| l.strip_prefix("vector ")?.split_once(": "))
        .map(|(_, bytes)| {
            bytes
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap())
                .collect()
        })
        .collect();
    assert!(
        vectors.len() >= 8,
        "{} vectors in PROTOCOL.md",
        vectors.len()
    );
    let vector_key: [u8; 32] = std::array::from_fn(|i| i as u8);
    for key in [None, Some(vector_key)] {
        s.bridge("ERS-7", [3; 32], key);
        for v in &vectors {
            s.rx(v).ticks(2).line("counters");
        }
    }
}

/// A keyed link: hello, the answer to the bridge's first challenge, a stream; then a frame
/// played again (its timestamp is old) and one signed with another key.
fn signed_session(s: &mut Script) {
    let (entropy, key) = ([9u8; 32], [0x5a; 32]);
    let m = model("ERS-210");
    let mut random = Random(7);
    s.bridge("ERS-210", entropy, Some(key));
    s.send(&Message::Hello { protocol: 1 }).ticks(1);
    let challenge = Key::new(key).challenge(&entropy, 0);
    s.send(&Message::Answer { challenge }).ticks(1);
    stream(s, m, &mut random, 12, 20_000);
    let again = s.encoded(&Message::Hold);
    s.rx(&again).rx(&again).ticks(3).line("counters");
    s.key = Some(Key::new([0x11; 32]));
    s.send(&Message::Stop).ticks(3).line("counters");
}

/// Bytes at random, zeros among them (frame ends), on a bridge in the middle of a stream.
fn line_noise(s: &mut Script, random: &mut Random) {
    let m = model("ERS-7");
    s.bridge("ERS-7", [1; 32], None);
    stream(s, m, random, 4, 10_000);
    for _ in 0..20 {
        let noise: Vec<u8> = (0..random.below(400))
            .map(|_| {
                if random.below(9) == 0 {
                    0
                } else {
                    random.next() as u8
                }
            })
            .collect();
        s.rx(&noise).ticks(1);
    }
    s.line("counters");
}

/// A motion uploaded, played twice, listed, and stopped.
fn upload_play_stop(s: &mut Script, model_name: &str, random: &mut Random) {
    let m = model(model_name);
    s.bridge(model_name, [2; 32], None);
    let joints = m.joints.len() as u8;
    s.send(&Message::UploadBegin {
        name: b"wave",
        keyframes: 3,
        joints,
    });
    for index in 0..3 {
        s.send(&Message::UploadKeyframe {
            index,
            frames_before: if index == 0 { 0 } else { 10 },
            angles: pose(m, random, 150_000),
            body: None,
        });
    }
    s.send(&Message::UploadEnd { keyframes: 3 })
        .send(&Message::List)
        .send(&Message::Play {
            name: b"wave",
            loops: 2,
        })
        // The way in from where the servos are (at a quarter of joint speed), then the
        // motion twice.
        .ticks(400)
        .send(&Message::Stop)
        .ticks(140)
        .send(&Message::Play {
            name: b"none",
            loops: 1,
        })
        .ticks(2)
        .line("counters");
}

/// A stream that stops coming: the watchdog holds, ramps to rest and relaxes; then the
/// link is lost and the servos are measured where they lie.
fn watchdog(s: &mut Script, random: &mut Random) {
    let m = model("ERS-220");
    s.bridge("ERS-220", [4; 32], None);
    let mut script_stream = |s: &mut Script| {
        s.send(&Message::StreamStart {
            stream: 2,
            first_tick: 0,
        });
        for i in 0..10 {
            let frame = StreamFrame {
                tick: 2 * i,
                last: false,
                pose: pose(m, random, 80_000),
                middle: None,
                body: None,
            };
            s.send(&Message::Frame(frame)).ticks(2);
        }
    };
    script_stream(s);
    s.ticks(400).line("lost");
    let rest = m.rest_posture().unwrap().angles;
    let measured: Vec<String> = rest.iter().map(|v| (v + 1_000).to_string()).collect();
    s.line(&format!("measured {}", measured.join(" ")));
    s.ticks(2).line("counters");
}

/// A generated session: hellos, streams, uploads, holds, stops, noise, split reads, lost
/// links and silences, in random order.
fn generated(s: &mut Script, random: &mut Random) {
    let name = ["ERS-7", "ERS-210", "ERS-220"][random.below(3) as usize];
    let m = model(name);
    s.bridge(
        name,
        std::array::from_fn(|i| i as u8 ^ random.next() as u8),
        None,
    );
    for _ in 0..random.below(12) + 1 {
        match random.below(8) {
            0 => {
                s.send(&Message::Hello { protocol: 1 });
            }
            1 => {
                let n = random.below(6) as u32 + 1;
                let spread = [1_000, 50_000, 3_000_000][random.below(3) as usize];
                stream(s, m, random, n, spread);
            }
            2 => upload_part(s, m, random),
            3 => {
                let m = [
                    Message::Stop,
                    Message::Hold,
                    Message::StatusRequest,
                    Message::List,
                ];
                s.send(&m[random.below(4) as usize]);
            }
            4 => {
                // A frame split across reads, at a random place.
                let bytes = s.encoded(&Message::Frame(StreamFrame {
                    tick: random.below(40) as u32,
                    last: random.below(4) == 0,
                    pose: pose(m, random, 30_000),
                    middle: None,
                    body: None,
                }));
                let at = random.below(bytes.len() as u64) as usize;
                s.rx(&bytes[..at]).ticks(1).rx(&bytes[at..]);
            }
            5 => {
                let noise: Vec<u8> = (0..random.below(64)).map(|_| random.next() as u8).collect();
                s.rx(&noise);
            }
            6 => {
                s.line("lost");
            }
            _ => {
                s.ticks(random.below(150) as u32);
            }
        }
        s.ticks(random.below(4) as u32);
    }
    s.line("counters");
}

fn upload_part(s: &mut Script, m: &Model, random: &mut Random) {
    let keyframes = random.below(4) as u16 + 1;
    s.send(&Message::UploadBegin {
        name: b"m",
        keyframes,
        joints: m.joints.len() as u8,
    });
    // Half the uploads say the body's roll and pitch (protocol 2), in every keyframe.
    let says_body = random.below(2) == 0;
    for index in 0..keyframes {
        if random.below(6) == 0 {
            continue; // a keyframe lost on the way
        }
        s.send(&Message::UploadKeyframe {
            index,
            frames_before: random.below(20) as u16,
            angles: pose(m, random, 100_000),
            body: says_body.then(|| [random.below(300_000) as i32, 11]),
        });
    }
    s.send(&Message::UploadEnd { keyframes })
        .send(&Message::Play {
            name: b"m",
            loops: 1,
        });
}

fn every_script() -> String {
    let mut s = Script::new();
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    vectors(&mut s);
    signed_session(&mut s);
    line_noise(&mut s, &mut random);
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        upload_play_stop(&mut s, model, &mut random);
    }
    watchdog(&mut s, &mut random);
    for _ in 0..300 {
        generated(&mut s, &mut random);
    }
    s.text
}

/// The third reading: the script played into the core in this process, written as the
/// harness writes its transcript.
fn in_process(script: &str) -> String {
    let mut out = String::new();
    let mut bridge: Option<Bridge> = None;
    for line in script.lines() {
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let words: Vec<&str> = rest.split_whitespace().collect();
        let unhex = |h: &str| -> Vec<u8> {
            (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect()
        };
        match command {
            "new" => {
                let key = (words[4] != "-").then(|| Key::new(unhex(words[4]).try_into().unwrap()));
                let config = Config {
                    key,
                    entropy: unhex(words[3]).try_into().unwrap(),
                    motion_slots: words[1].parse().unwrap(),
                    max_keyframes: words[2].parse().unwrap(),
                    // The C interface's settings.
                    ..Config::robot()
                };
                bridge = Model::find(words[0]).map(|m| Bridge::new(m, config, &[]));
                out.push_str(if bridge.is_some() {
                    "new ok\n"
                } else {
                    "new null\n"
                });
            }
            "rx" => {
                let b = bridge.as_mut().unwrap();
                b.receive(&unhex(rest), &mut |r: &[u8]| {
                    writeln!(out, "reply {}", hex(r)).unwrap()
                });
            }
            "tick" => {
                let b = bridge.as_mut().unwrap();
                for _ in 0..rest.parse::<u32>().unwrap() {
                    // Replies come as they are sent, before their tick's frame.
                    let o = b.tick(&mut |r: &[u8]| writeln!(out, "reply {}", hex(r)).unwrap());
                    let kind = match o.kind {
                        OutputKind::Relaxed => 0,
                        OutputKind::Held => 1,
                        OutputKind::Played => 2,
                        OutputKind::Ramped => 3,
                    };
                    let pose: Vec<String> = o.pose.iter().map(i32::to_string).collect();
                    let state = b.state() as u32;
                    writeln!(out, "frame {kind} {state} {}", pose.join(" ")).unwrap();
                }
            }
            "lost" => bridge.as_mut().unwrap().link_lost(),
            "measured" => {
                let pose: Vec<i32> = words.iter().map(|w| w.parse().unwrap()).collect();
                bridge.as_mut().unwrap().set_measured(&pose);
            }
            "counters" => {
                let all = bridge.as_ref().unwrap().counters().named();
                let values: Vec<String> = all.iter().map(|(_, v)| v.to_string()).collect();
                writeln!(out, "counters {}", values.join(" ")).unwrap();
            }
            other => panic!("unknown command {other}"),
        }
    }
    out
}

/// The first line where two transcripts part, with the line before for context.
fn assert_same(a: &str, b: &str, what: &str) {
    if a == b {
        return;
    }
    let (a_lines, b_lines): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = a_lines
        .iter()
        .zip(&b_lines)
        .position(|(x, y)| x != y)
        .unwrap_or(a_lines.len().min(b_lines.len()));
    panic!(
        "{what}: the transcripts part at line {} of {} and {}:\n  {:?}\n  {:?}",
        at + 1,
        a_lines.len(),
        b_lines.len(),
        a_lines.get(at),
        b_lines.get(at)
    );
}

fn built(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/robot")
        .join(name)
}

#[test]
#[cfg_attr(
    not(can_replay_on_mips),
    ignore = "needs gcc, gcc-mipsel-linux-gnu, qemu-user and rust-src (.ci/run installs them)"
)]
fn the_core_on_the_robots_cpu_replies_and_moves_exactly_as_on_the_host() {
    let built_harness = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("replay")
        .output()
        .unwrap();
    assert!(
        built_harness.status.success(),
        "{}",
        String::from_utf8_lossy(&built_harness.stderr)
    );
    let script = every_script();
    let native = run_on(&[&built("replay-native")], &script);
    let mips = run_on(
        &[Path::new("qemu-mipsel"), &built("replay-mipsel")],
        &script,
    );
    let here = in_process(&script);
    assert_same(
        &here,
        &native,
        "the core in this process and the native harness",
    );
    assert_same(&native, &mips, "the native harness and qemu-mipsel");

    // The scripts did what they are for: replies, every kind of frame, each state.
    let count = |prefix: &str| native.lines().filter(|l| l.starts_with(prefix)).count();
    assert!(count("new ok") > 300, "{}", count("new ok"));
    assert!(count("reply ") > 1000, "{}", count("reply "));
    for (kind, state) in [(2, 1), (2, 2), (1, 3), (1, 4), (3, 5), (1, 6), (0, 0)] {
        assert!(
            count(&format!("frame {kind} {state} ")) > 0,
            "no frame of kind {kind} in state {state}"
        );
    }
    // The signed session's replayed and forged frames were counted as such.
    assert!(
        native
            .lines()
            .any(|l| l.starts_with("counters ") && l.split(' ').nth(3) != Some("0")),
        "no replayed frame counted"
    );
}
