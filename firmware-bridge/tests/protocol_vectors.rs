//! The test vectors of PROTOCOL.md: each message encodes to exactly the bytes given
//! there, and those bytes decode back to the message. The host's tests use the same
//! vectors (`tests/link_vectors.rs` in the aibo-motion crate).

use firmware_bridge::message::{Angles, Counters, Identity, Message, Status, StreamFrame};
use firmware_bridge::sign::{Key, ReplayGuard};
use firmware_bridge::wire::{self, Decoder, Signing, MAX_ENCODED};

/// A vector: name, sequence number, whether signed (with [`vector_key`], timestamp 1),
/// the message, and its bytes on the wire.
pub fn vectors() -> Vec<(&'static str, u16, bool, Message<'static>)> {
    let a = |v: &[i32]| Angles::from_slice(v).unwrap();
    vec![
        ("hello", 1, false, Message::Hello { protocol: 1 }),
        (
            "stream-start",
            2,
            false,
            Message::StreamStart {
                stream: 1,
                first_tick: 0,
            },
        ),
        (
            "frame",
            3,
            false,
            Message::Frame(StreamFrame {
                tick: 4,
                last: false,
                pose: a(&[-349_066, 0, 1_000_000]),
                middle: Some(a(&[-349_000, -5, 1_000_000])),
                body: None,
            }),
        ),
        (
            "frame-body",
            4,
            false,
            Message::Frame(StreamFrame {
                tick: 6,
                last: true,
                pose: a(&[-349_066, 0, 1_000_000]),
                middle: None,
                body: Some([-87_266, 523_599]),
            }),
        ),
        (
            "status",
            9,
            false,
            Message::Status(Status {
                state: 1,
                tick: 1000,
                position: 4,
                buffered: 5,
                counters: Counters {
                    bad: 1,
                    unauthenticated: 0,
                    replayed: 0,
                    lost: 2,
                    late: 0,
                    dropped: 0,
                    guarded: 3,
                    played: 6,
                },
                applied: a(&[-349_066, 0, 1_000_000]),
            }),
        ),
        (
            "ack",
            10,
            false,
            Message::Ack {
                msg: 0x10,
                seq: 2,
                code: 0,
            },
        ),
        ("signed-hello", 1, true, Message::Hello { protocol: 1 }),
        (
            "identity",
            11,
            false,
            Message::Identity(Identity {
                protocol: 1,
                joints: 3,
                buffer_frames: 16,
                latency_ticks: 6,
                motion_slots: 8,
                max_keyframes: 4096,
                signing: true,
                challenge: core::array::from_fn(|i| 0xf0 + i as u8),
                model: b"ERS-7",
                design_label: b"DRX-1000",
            }),
        ),
        (
            "signed-answer",
            2,
            true,
            Message::Answer {
                challenge: core::array::from_fn(|i| 0xf0 + i as u8),
            },
        ),
    ]
}

pub fn vector_key() -> Key {
    Key::new(core::array::from_fn(|i| i as u8))
}

fn encode(seq: u16, signed: bool, m: &Message<'_>) -> Vec<u8> {
    let key = vector_key();
    let mut payload = [0u8; wire::MAX_PAYLOAD];
    let n = m.encode(&mut payload);
    let signing = signed.then_some(Signing {
        key: &key,
        link: 0,
        timestamp: 1,
    });
    let mut out = [0u8; MAX_ENCODED];
    let len = wire::encode_frame(seq, m.id(), &payload[..n], signing, &mut out).unwrap();
    out[..len].to_vec()
}

/// The vectors as PROTOCOL.md lists them: `name: hex bytes`.
fn documented() -> Vec<(String, Vec<u8>)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("vector "))
        .map(|l| {
            let (name, hex) = l.split_once(':').unwrap();
            let bytes = hex
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap())
                .collect();
            (name.trim().to_string(), bytes)
        })
        .collect()
}

#[test]
fn every_vector_encodes_to_the_documented_bytes_and_decodes_back() {
    let docs = documented();
    let vs = vectors();
    for (name, seq, signed, m) in &vs {
        let hex: Vec<String> = encode(*seq, *signed, m)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        println!("vector {name}: {}", hex.join(" "));
    }
    for (name, seq, signed, m) in &vs {
        let bytes = encode(*seq, *signed, m);
        let (_, doc) = docs
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("PROTOCOL.md lacks vector {name}"));
        assert_eq!(&bytes, doc, "vector {name}");
        let mut got = Vec::new();
        let key = vector_key();
        let mut replay = ReplayGuard::default();
        Decoder::new().feed(doc, |raw| {
            let frame = wire::parse_frame(raw.unwrap()).unwrap();
            assert_eq!(frame.seq, *seq);
            if *signed {
                wire::authenticate(&frame, Some(&key), &mut replay).unwrap();
            }
            got.push(format!(
                "{:?}",
                Message::decode(frame.msg, frame.payload).unwrap()
            ));
        });
        assert_eq!(got, vec![format!("{m:?}")], "vector {name}");
    }
    assert_eq!(docs.len(), vs.len(), "every documented vector is tested");
}

#[test]
fn the_crc_is_crc16_ibm_3740() {
    assert_eq!(wire::crc16(b"123456789"), 0x29B1);
}

#[test]
fn the_states_protocol_md_names_are_the_bridges() {
    use firmware_bridge::State;
    let doc = include_str!("../PROTOCOL.md");
    let states = doc
        .split("States: ")
        .nth(1)
        .and_then(|rest| rest.split(". The bridge sends").next())
        .expect("PROTOCOL.md lists the states")
        .replace('\n', " ");
    // "0 relaxed (gains off), 1 streaming, …": each number and the word after it, the
    // notes in brackets left out.
    let mut listed = Vec::new();
    let mut depth = 0;
    let mut clean = String::new();
    for c in states.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    for item in clean.split(',') {
        let mut words = item.split_whitespace();
        let number: u8 = words.next().unwrap().parse().unwrap();
        listed.push((number, words.next().unwrap().to_string()));
    }
    for (number, word) in &listed {
        let state = State::from_u8(*number).unwrap_or_else(|| panic!("no state {number}"));
        assert_eq!(state.name(), word, "state {number}");
    }
    // And every state of the bridge is listed.
    let count = (0..=u8::MAX)
        .filter(|&n| State::from_u8(n).is_some())
        .count();
    assert_eq!(listed.len(), count, "{listed:?}");
}
