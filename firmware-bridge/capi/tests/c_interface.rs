//! The C interface against the core called directly: the same session, fed through
//! `aibo_bridge_*` and through `Bridge`, gives the same replies, poses, states and
//! counters frame for frame; and the interface turns away what C can get wrong.

use aibo_bridge::*;
use core::ffi::c_void;
use firmware_bridge::message::{Angles, Message, StreamFrame};
use firmware_bridge::wire::{encode_frame, MAX_ENCODED, MAX_PAYLOAD};
use firmware_bridge::{Bridge, Config, Model, OutputKind};

/// `message` as the host sends it, sequence number `seq`.
fn encoded(seq: u16, message: &Message<'_>) -> Vec<u8> {
    let mut payload = [0u8; MAX_PAYLOAD];
    let n = message.encode(&mut payload);
    let mut out = [0u8; MAX_ENCODED];
    let len = encode_frame(seq, message.id(), &payload[..n], None, &mut out).unwrap();
    out[..len].to_vec()
}

/// A session, each chunk with the 8 ms frames that pass after it: hello, a stream of 40
/// frames (16 ms each) that moves the head, silence (the watchdog holds, then ramps to
/// rest), line noise, a status request, and a stop split across two reads.
fn session(model: &Model) -> Vec<(Vec<u8>, usize)> {
    let stand = model.posture("stand").unwrap().angles;
    let mut seq = 0;
    let mut next = |m: &Message<'_>| {
        seq += 1;
        encoded(seq, m)
    };
    let mut chunks = vec![
        (next(&Message::Hello { protocol: 1 }), 1),
        (
            next(&Message::StreamStart {
                stream: 1,
                first_tick: 0,
            }),
            0,
        ),
    ];
    for i in 0..40u32 {
        let mut pose = stand.to_vec();
        pose[0] += (i as i32) * 5_000;
        chunks.push((
            next(&Message::Frame(StreamFrame {
                tick: 2 * i,
                last: i == 39,
                pose: Angles::from_slice(&pose).unwrap(),
                middle: None,
                body: None,
            })),
            2,
        ));
    }
    // Silence after the stream's last frame: the bridge holds it.
    chunks.last_mut().unwrap().1 = 20;
    chunks.push((b"\x00noise\xff\x13\x00".to_vec(), 1));
    chunks.push((next(&Message::StatusRequest), 1));
    let split = next(&Message::Stop);
    let (a, b) = split.split_at(split.len() / 2);
    chunks.push((a.to_vec(), 0));
    // The stop's hold (63 frames), then the ramp to rest.
    chunks.push((b.to_vec(), 200));
    chunks
}

/// Everything one side did: each reply, and each frame's kind, pose and state.
#[derive(Debug, Default, PartialEq)]
struct Transcript {
    lines: Vec<String>,
}

unsafe extern "C" fn record(context: *mut c_void, bytes: *const u8, len: usize) {
    let t = unsafe { &mut *(context as *mut Transcript) };
    let bytes = unsafe { std::slice::from_raw_parts(bytes, len) };
    t.lines.push(format!("reply {bytes:02x?}"));
}

fn kind_code(kind: OutputKind) -> i32 {
    match kind {
        OutputKind::Relaxed => AIBO_BRIDGE_RELAXED,
        OutputKind::Held => AIBO_BRIDGE_HELD,
        OutputKind::Played => AIBO_BRIDGE_PLAYED,
        OutputKind::Ramped => AIBO_BRIDGE_RAMPED,
    }
}

fn through_the_core(model: &'static Model, entropy: [u8; 32]) -> Transcript {
    let mut t = Transcript::default();
    let config = Config {
        entropy,
        motion_slots: 4,
        max_keyframes: 1024,
        ..Config::robot()
    };
    let mut bridge = Bridge::new(model, config, &[]);
    for (chunk, ticks) in session(model) {
        bridge.receive(&chunk, &mut |b: &[u8]| {
            t.lines.push(format!("reply {b:02x?}"))
        });
        for _ in 0..ticks {
            let mut replies = Vec::new();
            let out = bridge.tick(&mut |b: &[u8]| replies.push(format!("reply {b:02x?}")));
            let (kind, pose) = (kind_code(out.kind), out.pose.to_vec());
            let line = format!("frame {kind} {pose:?} {}", bridge.state() as u32);
            t.lines.extend(replies);
            t.lines.push(line);
        }
    }
    t.lines.push(format!(
        "counters {:?}",
        bridge.counters().named().map(|(_, v)| v)
    ));
    t
}

fn through_the_c_interface(model: &'static Model, entropy: [u8; 32]) -> Transcript {
    let mut t = Transcript::default();
    let ctx = &mut t as *mut Transcript as *mut c_void;
    unsafe {
        let b = aibo_bridge_new(
            model.name.as_ptr(),
            model.name.len(),
            entropy.as_ptr(),
            std::ptr::null(),
            4,
            1024,
            std::ptr::null(),
            0,
        );
        assert!(!b.is_null());
        let joints = aibo_bridge_joints(b);
        assert_eq!(joints, model.joints.len());
        let mut pose = vec![0i32; joints];
        for (chunk, ticks) in session(model) {
            aibo_bridge_receive(b, chunk.as_ptr(), chunk.len(), Some(record), ctx);
            for _ in 0..ticks {
                let kind = aibo_bridge_tick(b, pose.as_mut_ptr(), pose.len(), Some(record), ctx);
                let state = aibo_bridge_state(b);
                (*(ctx as *mut Transcript))
                    .lines
                    .push(format!("frame {kind} {pose:?} {state}"));
            }
        }
        let mut counters = [0u32; 8];
        assert_eq!(aibo_bridge_counters(b, counters.as_mut_ptr(), 8), 8);
        (*(ctx as *mut Transcript))
            .lines
            .push(format!("counters {counters:?}"));
        aibo_bridge_free(b);
    }
    t
}

#[test]
fn the_c_interface_plays_a_session_exactly_as_the_core_does_on_every_model() {
    for model in firmware_bridge::MODELS {
        let entropy = [7u8; 32];
        let core = through_the_core(model, entropy);
        let c = through_the_c_interface(model, entropy);
        assert_eq!(core, c, "{}", model.name);
        // The session did what it says: replies, played frames, a stall and a stop.
        let has = |s: &str| core.lines.iter().any(|l| l.starts_with(s));
        assert!(has("reply"), "{}", model.name);
        assert!(
            has(&format!("frame {AIBO_BRIDGE_PLAYED} ")),
            "{}",
            model.name
        );
        assert!(
            core.lines.last().unwrap().starts_with("counters [1,"),
            "{:?}",
            core.lines.last()
        );
    }
}

#[test]
fn what_c_can_get_wrong_is_turned_away() {
    let entropy = [1u8; 32];
    let ers7 = b"ERS-7";
    unsafe {
        let null = std::ptr::null();
        // An unknown model, a label as bytes that are not UTF-8, missing entropy, figures
        // out of range.
        for (name, e, slots, keyframes) in [
            (&b"ERS-111"[..], entropy.as_ptr(), 8, 4096),
            (&b"\xffERS"[..], entropy.as_ptr(), 8, 4096),
            (&ers7[..], null, 8, 4096),
            (&ers7[..], entropy.as_ptr(), 256, 4096),
            (&ers7[..], entropy.as_ptr(), 8, 65536),
        ] {
            let b = aibo_bridge_new(
                name.as_ptr(),
                name.len(),
                e,
                null,
                slots,
                keyframes,
                std::ptr::null(),
                0,
            );
            assert!(b.is_null(), "{name:?}");
        }
        // A design label names a model too.
        let b = aibo_bridge_new(
            b"DRX-1000".as_ptr(),
            8,
            entropy.as_ptr(),
            null,
            8,
            4096,
            std::ptr::null(),
            0,
        );
        assert_eq!(
            aibo_bridge_joints(b),
            Model::find("ERS-7").unwrap().joints.len()
        );
        // Null buffers and callbacks are ignored, a short pose buffer is not overrun.
        aibo_bridge_receive(b, null, 5, None, std::ptr::null_mut());
        let mut two = [0i32; 3];
        assert_eq!(
            aibo_bridge_tick(b, two.as_mut_ptr(), 2, None, std::ptr::null_mut()),
            AIBO_BRIDGE_RELAXED
        );
        assert_eq!(two[2], 0, "wrote past the length it was given");
        assert_eq!(aibo_bridge_state(b), 0);
        aibo_bridge_free(b);
        // A null bridge is answered, never dereferenced.
        let none = std::ptr::null_mut();
        assert_eq!(
            aibo_bridge_tick(none, two.as_mut_ptr(), 2, None, std::ptr::null_mut()),
            AIBO_BRIDGE_NULL
        );
        assert_eq!(aibo_bridge_state(none), 255);
        assert_eq!(aibo_bridge_joints(none), 0);
        assert_eq!(aibo_bridge_counters(none, std::ptr::null_mut(), 0), 0);
        aibo_bridge_link_lost(none);
        aibo_bridge_set_measured(none, null.cast(), 0);
        aibo_bridge_free(none);
    }
}

/// Every function the header declares is one the library exports, and the other way
/// round: the header is written by hand, so it is checked.
#[test]
fn the_header_declares_exactly_the_exported_functions() {
    let header = include_str!("../aibo_bridge.h");
    let lib = include_str!("../src/lib.rs");
    let declared: std::collections::BTreeSet<&str> = header
        .lines()
        .filter_map(|l| {
            let open = l.find('(')?;
            let name = l[..open]
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()?;
            (name.starts_with("aibo_bridge_") && !l.trim_start().starts_with("typedef"))
                .then_some(name)
        })
        .collect();
    let exported: std::collections::BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub unsafe extern \"C\" fn "))
        .filter_map(|l| l.split('(').next())
        .collect();
    let embedder = [
        "aibo_bridge_alloc",
        "aibo_bridge_dealloc",
        "aibo_bridge_abort",
    ];
    let ours: std::collections::BTreeSet<&str> = declared
        .iter()
        .copied()
        .filter(|n| !embedder.contains(n))
        .collect();
    let exported_ours: std::collections::BTreeSet<&str> = exported
        .iter()
        .copied()
        .filter(|n| !embedder.contains(n))
        .collect();
    assert_eq!(ours, exported_ours);
    assert_eq!(ours.len(), 11);
    for e in embedder {
        assert!(
            declared.contains(e) && lib.contains(&format!("fn {e}(")),
            "{e}"
        );
    }
}

#[test]
fn every_joints_locator_and_kind_come_through_for_opening_its_primitive() {
    for model in firmware_bridge::MODELS {
        unsafe {
            let b = aibo_bridge_new(
                model.name.as_ptr(),
                model.name.len(),
                [5u8; 32].as_ptr(),
                std::ptr::null(),
                1,
                16,
                std::ptr::null(),
                0,
            );
            for (i, joint) in model.joints.iter().enumerate() {
                let mut buf = [0u8; 64];
                let n = aibo_bridge_joint_locator(b, i, buf.as_mut_ptr(), buf.len());
                assert_eq!(&buf[..n], joint.locator.as_bytes());
                // A short buffer gets the start, and the whole length is still told.
                let mut short = [0u8; 4];
                assert_eq!(aibo_bridge_joint_locator(b, i, short.as_mut_ptr(), 4), n);
                assert_eq!(&short, &joint.locator.as_bytes()[..4]);
                assert_eq!(aibo_bridge_joint_binary(b, i), u32::from(joint.binary));
            }
            let past = model.joints.len();
            assert_eq!(
                aibo_bridge_joint_locator(b, past, std::ptr::null_mut(), 0),
                0
            );
            assert_eq!(aibo_bridge_joint_binary(b, past), 0);
            aibo_bridge_free(b);
        }
    }
}
