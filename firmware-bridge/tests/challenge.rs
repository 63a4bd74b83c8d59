//! The freshness challenge: a keyed bridge takes no command from a link until the link
//! has answered the challenge of its latest HELLO, so a session recorded earlier cannot
//! be played into a restarted bridge (which has forgotten the timestamps it saw).

use firmware_bridge::message::{ack, id, Message, CHALLENGE_LEN};
use firmware_bridge::sign::{Key, ReplayGuard};
use firmware_bridge::wire::{self, Decoder, Signing, MAX_ENCODED};
use firmware_bridge::{Bridge, Config, Model};

fn key() -> Key {
    Key::new([0x42; 32])
}

fn bridge(entropy: u8) -> Bridge {
    let m = Model::find("ERS-7").unwrap();
    let config = Config {
        key: Some(key()),
        entropy: [entropy; 32],
        ..Config::default()
    };
    Bridge::new(m, config, m.posture("stand").unwrap().angles)
}

/// A host end that signs with the key and numbers its frames.
struct Host {
    seq: u16,
    timestamp: u64,
}

impl Host {
    fn frame(&mut self, m: &Message<'_>) -> Vec<u8> {
        self.seq += 1;
        self.timestamp += 1;
        let key = key();
        let mut payload = [0u8; wire::MAX_PAYLOAD];
        let n = m.encode(&mut payload);
        let signing = Some(Signing {
            key: &key,
            link: 0,
            timestamp: self.timestamp,
        });
        let mut out = [0u8; MAX_ENCODED];
        let len = wire::encode_frame(self.seq, m.id(), &payload[..n], signing, &mut out).unwrap();
        out[..len].to_vec()
    }
}

/// What the bridge answers to `bytes`: challenges from identities, and ack codes by
/// message id.
#[derive(Debug, Default)]
struct Answers {
    challenges: Vec<[u8; CHALLENGE_LEN]>,
    acks: Vec<(u8, u8)>,
}

fn send(bridge: &mut Bridge, bytes: &[u8]) -> Answers {
    let mut replies = Vec::new();
    bridge.receive(bytes, &mut |r| replies.extend_from_slice(r));
    let mut answers = Answers::default();
    let mut replay = ReplayGuard::default();
    Decoder::new().feed(&replies, |raw| {
        let frame = wire::parse_frame(raw.unwrap()).unwrap();
        wire::authenticate(&frame, Some(&key()), &mut replay).unwrap();
        match Message::decode(frame.msg, frame.payload).unwrap() {
            Message::Identity(i) => answers.challenges.push(i.challenge),
            Message::Ack { msg, code, .. } => answers.acks.push((msg, code)),
            _ => {}
        }
    });
    answers
}

const START: Message<'static> = Message::StreamStart {
    stream: 1,
    first_tick: 0,
};

#[test]
fn commands_wait_for_the_answer_to_the_latest_challenge() {
    let mut b = bridge(1);
    let mut host = Host {
        seq: 0,
        timestamp: 100,
    };
    // Before any hello: no command is taken.
    let a = send(&mut b, &host.frame(&START));
    assert_eq!(a.acks, [(id::STREAM_START, ack::UNANSWERED)]);
    let a = send(&mut b, &host.frame(&Message::Hello { protocol: 1 }));
    let [challenge] = a.challenges[..] else {
        panic!("one identity: {a:?}")
    };
    assert_ne!(challenge, [0; CHALLENGE_LEN]);
    // Still unanswered; a wrong answer is a replay.
    for m in [START, Message::Stop, Message::Hold] {
        let a = send(&mut b, &host.frame(&m));
        assert_eq!(a.acks, [(m.id(), ack::UNANSWERED)]);
    }
    let mut wrong = challenge;
    wrong[0] ^= 1;
    let a = send(&mut b, &host.frame(&Message::Answer { challenge: wrong }));
    assert_eq!(a.acks, [(id::ANSWER, ack::STALE)]);
    assert_eq!(b.counters().replayed, 1);
    assert_eq!(b.counters().unauthenticated, 4);
    // The right answer opens the link.
    let a = send(&mut b, &host.frame(&Message::Answer { challenge }));
    assert_eq!(a.acks, [(id::ANSWER, ack::OK)]);
    let a = send(&mut b, &host.frame(&START));
    assert_eq!(a.acks, [(id::STREAM_START, ack::OK)]);
    // A new hello sets a new challenge, and the old answer no longer counts.
    let a = send(&mut b, &host.frame(&Message::Hello { protocol: 1 }));
    assert_ne!(a.challenges, [challenge]);
    let a = send(&mut b, &host.frame(&Message::Answer { challenge }));
    assert_eq!(a.acks, [(id::ANSWER, ack::STALE)]);
    let a = send(&mut b, &host.frame(&START));
    assert_eq!(a.acks, [(id::STREAM_START, ack::UNANSWERED)]);
    // So does a lost link.
    let a = send(&mut b, &host.frame(&Message::Hello { protocol: 1 }));
    let challenge = a.challenges[0];
    send(&mut b, &host.frame(&Message::Answer { challenge }));
    b.link_lost();
    let a = send(&mut b, &host.frame(&START));
    assert_eq!(a.acks, [(id::STREAM_START, ack::UNANSWERED)]);
}

#[test]
fn a_recorded_session_replayed_into_a_restarted_bridge_moves_nothing() {
    let mut host = Host {
        seq: 0,
        timestamp: 1_000,
    };
    let mut first = bridge(1);
    let mut recorded = host.frame(&Message::Hello { protocol: 1 });
    let challenge = send(&mut first, &recorded).challenges[0];
    let answer = host.frame(&Message::Answer { challenge });
    let start = host.frame(&START);
    assert_eq!(send(&mut first, &answer).acks, [(id::ANSWER, ack::OK)]);
    assert_eq!(send(&mut first, &start).acks, [(id::STREAM_START, ack::OK)]);
    recorded.extend(answer);
    recorded.extend(start);
    // The same bytes into a bridge restarted with fresh entropy: its challenge differs,
    // so the recorded answer is stale and the stream never starts.
    let mut restarted = bridge(2);
    let a = send(&mut restarted, &recorded);
    assert_ne!(a.challenges, [challenge]);
    assert_eq!(
        a.acks,
        [
            (id::ANSWER, ack::STALE),
            (id::STREAM_START, ack::UNANSWERED)
        ]
    );
    // A bridge restarted without fresh entropy repeats its challenges: the replay works,
    // which is why an embedding system must give it new random bytes at each start.
    let mut same = bridge(1);
    let a = send(&mut same, &recorded);
    assert_eq!(a.acks, [(id::ANSWER, ack::OK), (id::STREAM_START, ack::OK)]);
}
