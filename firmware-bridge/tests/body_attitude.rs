//! Protocol 2's body attitude: a stream frame's roll and pitch come out of the bridge
//! with the poses they came with (both ticks of the frame), stay while the last pose is
//! held, and are gone once anything else moves the servos.

mod common;

use common::{acks, Host};
use firmware_bridge::bridge::OutputKind;
use firmware_bridge::message::{ack, id, Angles, Message, StreamFrame};
use firmware_bridge::{Bridge, Config, Model, PROTOCOL_VERSION};

#[test]
fn a_frames_body_attitude_comes_out_with_its_poses_and_goes_when_the_ramp_moves_them() {
    assert_eq!(PROTOCOL_VERSION, 2);
    let model = Model::find("ERS-7").unwrap();
    let stand = model.posture("stand").unwrap().angles;
    let mut bridge = Bridge::new(model, Config::default(), stand);
    let mut host = Host::default();
    host.send(
        &mut bridge,
        &Message::StreamStart {
            stream: 1,
            first_tick: 0,
        },
    );
    // Four frames: the second says nothing of the body, the last ends the stream.
    let bodies = [Some([10, -20]), None, Some([30, 40]), Some([-50, 60])];
    for (k, body) in bodies.iter().enumerate() {
        host.send(
            &mut bridge,
            &Message::Frame(StreamFrame {
                tick: 2 * k as u32,
                last: k + 1 == bodies.len(),
                pose: Angles::from_slice(stand).unwrap(),
                middle: (k % 2 == 0).then(|| Angles::from_slice(stand).unwrap()),
                body: *body,
            }),
        );
    }
    let mut played = Vec::new();
    let mut held_after = Vec::new();
    for _ in 0..200 {
        let out = bridge.tick(&mut |_| {});
        match out.kind {
            OutputKind::Played => played.push(out.body),
            OutputKind::Held if !played.is_empty() => held_after.push(out.body),
            _ => {}
        }
    }
    // Each frame's attitude for both of its ticks (the last frame has no middle).
    assert_eq!(
        played,
        vec![
            Some([10, -20]),
            Some([10, -20]),
            None,
            None,
            Some([30, 40]),
            Some([30, 40]),
            Some([-50, 60]),
        ]
    );
    // After the last frame the bridge holds the pose, and what it meant.
    assert!(!held_after.is_empty());
    assert!(held_after.iter().all(|b| *b == Some([-50, 60])));

    // STOP: held, then the ramp to rest moves the servos, and the attitude is gone.
    host.send(&mut bridge, &Message::Stop);
    let mut ramped = Vec::new();
    for _ in 0..2000 {
        let out = bridge.tick(&mut |_| {});
        if out.kind == OutputKind::Ramped {
            ramped.push(out.body);
        }
    }
    assert!(!ramped.is_empty(), "the watchdog ramps to rest");
    assert!(ramped.iter().all(Option::is_none));
}

/// Sends a message to the bridge; the acknowledgements it answered.
#[test]
fn an_uploaded_motion_says_its_keyframes_attitude_by_sonys_rule_and_a_mixed_one_is_refused() {
    let model = Model::find("ERS-7").unwrap();
    let stand = Angles::from_slice(model.posture("stand").unwrap().angles).unwrap();
    let mut bridge = Bridge::new(model, Config::default(), stand.as_slice());
    let mut host = Host::default();
    let upload = |bridge: &mut Bridge, host: &mut Host, bodies: [Option<[i32; 2]>; 2]| {
        host.send(
            bridge,
            &Message::UploadBegin {
                name: b"lean",
                keyframes: 2,
                joints: stand.len() as u8,
            },
        );
        for (i, body) in bodies.into_iter().enumerate() {
            host.send(
                bridge,
                &Message::UploadKeyframe {
                    index: i as u16,
                    frames_before: if i == 0 { 0 } else { 3 },
                    angles: stand,
                    body,
                },
            );
        }
        acks(&host.send(bridge, &Message::UploadEnd { keyframes: 2 }))
    };
    // One keyframe says the body, the other not: the upload cannot complete.
    let answer = upload(&mut bridge, &mut host, [Some([0, 0]), None]);
    assert_eq!(answer, vec![(id::UPLOAD_END, ack::INCOMPLETE)]);
    // Both say it: played by Sony's rule, 2n + 1 in-between frames, then the last.
    let answer = upload(
        &mut bridge,
        &mut host,
        [Some([0, 100_000]), Some([-80_000, 180_000])],
    );
    assert_eq!(answer, vec![(id::UPLOAD_END, ack::OK)]);
    host.send(
        &mut bridge,
        &Message::Play {
            name: b"lean",
            loops: 1,
        },
    );
    let mut played = Vec::new();
    for _ in 0..40 {
        let out = bridge.tick(&mut |_| {});
        if out.kind == OutputKind::Played {
            played.push(out.body.unwrap());
        }
    }
    let n8 = firmware_bridge::sony::in_between_frames(3);
    let want: Vec<[i32; 2]> = (0..=n8)
        .map(|k| {
            let at = |v0, v1| firmware_bridge::sony::interpolate(v0, v1, k, n8);
            [at(0, -80_000), at(100_000, 180_000)]
        })
        .chain([[-80_000, 180_000]])
        .collect();
    assert_eq!(played, want);
}
