//! Whatever bytes arrive, the bridge core neither panics nor grows, and nothing it
//! applies leaves the model's limits.

mod common;

use common::{acks, encode, Host};
use firmware_bridge::bridge::{LIMIT_SLACK_URAD, STEP_SLACK_URAD};
use firmware_bridge::message::{ack, Angles, Message};
use firmware_bridge::wire::{self, Decoder, MAX_ENCODED};
use firmware_bridge::{Bridge, Config, Model};
use proptest::prelude::*;

fn ers7() -> &'static Model {
    Model::find("ERS-7").unwrap()
}

fn bridge() -> Bridge {
    let m = ers7();
    Bridge::new(m, Config::default(), m.posture("stand").unwrap().angles)
}

/// Feeds `bytes` in `chunk`-sized pieces with a tick after each, checking every output.
fn survive(bytes: &[u8], chunk: usize) -> Bridge {
    let model = ers7();
    let mut b = bridge();
    let mut previous = b.applied().to_vec();
    for piece in bytes.chunks(chunk.max(1)) {
        let mut replies = 0usize;
        b.receive(piece, &mut |r| replies += r.len());
        assert!(replies < 64 * MAX_ENCODED, "replies stay proportionate");
        let out = b.tick(&mut |_| {});
        for ((v, p), j) in out.pose.iter().zip(&previous).zip(model.joints) {
            assert!(i64::from(*v) >= i64::from(j.min) - i64::from(LIMIT_SLACK_URAD));
            assert!(i64::from(*v) <= i64::from(j.max) + i64::from(LIMIT_SLACK_URAD));
            if j.max_step > 0 {
                assert!(v.abs_diff(*p) <= j.max_step + STEP_SLACK_URAD);
            }
            if j.binary {
                assert!(j.values.contains(v), "{} = {v}", j.name);
            }
        }
        previous = out.pose.to_vec();
    }
    b
}

/// Valid frames with random contents, some bytes flipped, some cut, glued together.
fn frames_strategy() -> impl Strategy<Value = Vec<u8>> {
    let frame = (
        any::<u8>(),
        any::<u32>(),
        prop::collection::vec(any::<i32>(), 0..24),
        any::<bool>(),
        any::<u16>(),
    )
        .prop_map(|(kind, tick, values, last, n)| {
            let angles = Angles::from_slice(&values).unwrap();
            let m = match kind % 8 {
                0 => Message::StreamStart {
                    stream: 1,
                    first_tick: tick % 64,
                },
                1..=3 => Message::Frame(firmware_bridge::message::StreamFrame {
                    tick: tick % 128,
                    last,
                    pose: angles,
                    middle: if last { None } else { Some(angles) },
                    body: (tick % 3 == 0).then_some([tick as i32, -(tick as i32)]),
                }),
                4 => Message::UploadBegin {
                    name: b"m",
                    keyframes: n % 8,
                    joints: values.len() as u8,
                },
                5 => Message::UploadKeyframe {
                    index: n % 8,
                    frames_before: n % 300,
                    angles,
                    body: (n % 3 == 0).then_some([i32::from(n), -i32::from(n)]),
                },
                6 => Message::UploadEnd { keyframes: n % 8 },
                _ => Message::Play {
                    name: b"m",
                    loops: n % 3,
                },
            };
            encode(n, &m)
        });
    (
        prop::collection::vec(frame, 0..40),
        prop::collection::vec((any::<usize>(), any::<u8>()), 0..8),
    )
        .prop_map(|(frames, flips)| {
            let mut bytes: Vec<u8> = frames.concat();
            for (at, x) in flips {
                if !bytes.is_empty() {
                    let i = at % bytes.len();
                    bytes[i] ^= x;
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096), chunk in 1usize..600) {
        survive(&bytes, chunk);
    }

    #[test]
    fn mangled_protocol_traffic_never_panics_or_escapes_the_guard(bytes in frames_strategy(), chunk in 1usize..400) {
        survive(&bytes, chunk);
    }
}

#[test]
fn a_megabyte_without_a_zero_is_one_bad_frame_and_the_next_frame_is_read() {
    let mut bytes = vec![0x55u8; 1 << 20];
    bytes.push(0);
    bytes.extend(encode(1, &Message::Hello { protocol: 1 }));
    let mut b = bridge();
    let mut replies = Vec::new();
    b.receive(&bytes, &mut |r| replies.extend_from_slice(r));
    assert_eq!(b.counters().bad, 1);
    // The hello was answered: an identity and 20 joint descriptions.
    let mut frames = 0;
    Decoder::new().feed(&replies, |f| {
        assert!(f.is_ok());
        frames += 1;
    });
    assert_eq!(frames, 21);
}

#[test]
fn a_declared_length_past_the_frame_is_refused() {
    let mut raw = vec![1u8, 0, 1, 0, 0x01, 0xff, 0xff, 1];
    let crc = wire::crc16(&raw);
    raw.extend(crc.to_le_bytes());
    assert!(matches!(
        wire::parse_frame(&raw),
        Err(wire::FrameError::Length { .. })
    ));
}

#[test]
fn uploads_are_bounded_in_size_and_number() {
    let config = Config {
        motion_slots: 2,
        max_keyframes: 10,
        ..Config::default()
    };
    let m = ers7();
    let mut b = Bridge::new(m, config, m.posture("stand").unwrap().angles);
    let stand = Angles::from_slice(m.posture("stand").unwrap().angles).unwrap();
    let mut codes = Vec::new();
    let decode_acks = |bytes: &[u8], codes: &mut Vec<u8>| {
        codes.extend(acks(bytes).into_iter().map(|(_, code)| code));
    };
    let mut host = Host::default();
    // Too many keyframes: refused before anything is allocated.
    let r = host.send(
        &mut b,
        &Message::UploadBegin {
            name: b"big",
            keyframes: 11,
            joints: 20,
        },
    );
    decode_acks(&r, &mut codes);
    // Three motions into two slots: the oldest goes.
    for name in [&b"one"[..], b"two", b"three"] {
        let r = host.send(
            &mut b,
            &Message::UploadBegin {
                name,
                keyframes: 2,
                joints: 20,
            },
        );
        decode_acks(&r, &mut codes);
        for i in 0..2 {
            host.send(
                &mut b,
                &Message::UploadKeyframe {
                    index: i,
                    frames_before: 3,
                    angles: stand,
                    body: None,
                },
            );
        }
        let r = host.send(&mut b, &Message::UploadEnd { keyframes: 2 });
        decode_acks(&r, &mut codes);
    }
    // A keyframe lost on the way: the upload is refused as incomplete.
    let r = host.send(
        &mut b,
        &Message::UploadBegin {
            name: b"gap",
            keyframes: 2,
            joints: 20,
        },
    );
    decode_acks(&r, &mut codes);
    host.send(
        &mut b,
        &Message::UploadKeyframe {
            index: 1,
            frames_before: 3,
            angles: stand,
            body: None,
        },
    );
    let r = host.send(&mut b, &Message::UploadEnd { keyframes: 2 });
    decode_acks(&r, &mut codes);
    for name in [&b"one"[..], b"two", b"three", b"gap"] {
        let r = host.send(&mut b, &Message::Play { name, loops: 1 });
        decode_acks(&r, &mut codes);
    }
    assert_eq!(
        codes,
        [
            ack::TOO_LARGE,
            ack::OK,
            ack::OK,
            ack::OK,
            ack::OK,
            ack::OK,
            ack::OK,
            ack::OK,
            ack::INCOMPLETE,
            ack::UNKNOWN_MOTION,
            ack::OK,
            ack::OK,
            ack::UNKNOWN_MOTION
        ]
    );
}

#[test]
fn binary_outputs_take_only_their_states_whatever_the_host_sends() {
    use firmware_bridge::bridge::OutputKind;
    use firmware_bridge::message::StreamFrame;
    let model = ers7();
    let ears: Vec<usize> = (0..model.joints.len())
        .filter(|&i| model.joints[i].binary)
        .collect();
    assert_eq!(ears.len(), 2);
    assert!(ears.iter().all(|&e| model.joints[e].values == [0, 1]));
    let stand = model.posture("stand").unwrap().angles;
    let wild = [i32::MAX, i32::MIN, 7, -3, 1];
    let mut bytes = encode(
        1,
        &Message::StreamStart {
            stream: 1,
            first_tick: 0,
        },
    );
    for (k, &value) in wild.iter().enumerate() {
        let mut pose = stand.to_vec();
        for &e in &ears {
            pose[e] = value;
        }
        let pose = Angles::from_slice(&pose).unwrap();
        let frame = StreamFrame {
            tick: 2 * k as u32,
            last: k + 1 == wild.len(),
            pose,
            middle: Some(pose),
            body: None,
        };
        bytes.extend(encode(2 + k as u16, &Message::Frame(frame)));
    }
    let mut b = bridge();
    b.receive(&bytes, &mut |_| {});
    let mut applied = Vec::new();
    for _ in 0..40 {
        let out = b.tick(&mut |_| {});
        if out.kind == OutputKind::Played {
            applied.push([out.pose[ears[0]], out.pose[ears[1]]]);
        }
    }
    // Each frame is applied twice (its pose and its middle): the nearest state each time.
    let want: Vec<[i32; 2]> = [1, 0, 1, 0, 1]
        .iter()
        .flat_map(|&s| [[s, s], [s, s]])
        .collect();
    assert_eq!(applied, want);
    assert_eq!(b.counters().guarded, 8, "the four wild frames, twice each");
}

#[test]
fn a_stored_motion_that_starts_past_a_limit_is_eased_to_the_limit_and_played() {
    // The way in goes toward the first keyframe only as far as the guard lets it: a
    // keyframe past a joint's limit must not keep the bridge easing in for ever.
    let m = ers7();
    let mut b = bridge();
    let mut past = Angles::from_slice(m.posture("stand").unwrap().angles).unwrap();
    let joint = m
        .joints
        .iter()
        .position(|j| !j.binary && j.max_step > 0)
        .unwrap();
    past.as_mut_slice()[joint] = m.joints[joint].max + 1_000_000;
    let mut host = Host::default();
    host.send(
        &mut b,
        &Message::UploadBegin {
            name: b"past",
            keyframes: 2,
            joints: past.len() as u8,
        },
    );
    for index in 0..2 {
        host.send(
            &mut b,
            &Message::UploadKeyframe {
                index,
                frames_before: 5,
                angles: past,
                body: None,
            },
        );
    }
    host.send(&mut b, &Message::UploadEnd { keyframes: 2 });
    host.send(
        &mut b,
        &Message::Play {
            name: b"past",
            loops: 1,
        },
    );
    let mut kinds = Vec::new();
    for _ in 0..3000 {
        kinds.push(b.tick(&mut |_| {}).kind);
    }
    let played = kinds
        .iter()
        .filter(|k| **k == firmware_bridge::bridge::OutputKind::Played)
        .count();
    // Sony's rule: the segment's in-between frames from its first keyframe, then the last.
    let frames = firmware_bridge::sony::in_between_frames(5) as usize + 2;
    assert_eq!(played, frames, "eased in, then every frame of it");
    assert!(b.applied()[joint] <= m.joints[joint].max + LIMIT_SLACK_URAD);
}
