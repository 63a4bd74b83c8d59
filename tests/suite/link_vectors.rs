//! The host's side of PROTOCOL.md's test vectors: the client encodes the host-to-bridge
//! vectors byte for byte and reads the bridge-to-host ones.

use aibo_motion::link::{Client, Endpoint, Reply};
use firmware_bridge::message::{Angles, Counters, Message, Status, StreamFrame};
use std::io::Write;
use std::time::Duration;

fn vector(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/firmware-bridge/PROTOCOL.md"
    ))
    .unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(&format!("vector {name}: ")))
        .unwrap();
    line.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

#[test]
fn the_client_writes_and_reads_the_documented_vectors() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let bridge = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // Both replies in one write, to be split at the zeros.
        let mut bytes = vector("status");
        bytes.extend(vector("ack"));
        bytes.extend(vector("identity"));
        s.write_all(&bytes).unwrap();
        std::thread::sleep(Duration::from_millis(300));
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut client = Client::connect(&Endpoint::Tcp(address), None, Duration::from_secs(2))
            .await
            .unwrap();
        assert_eq!(
            client.encode(&Message::Hello { protocol: 1 }),
            vector("hello")
        );
        assert_eq!(
            client.encode(&Message::StreamStart {
                stream: 1,
                first_tick: 0
            }),
            vector("stream-start")
        );
        let pose = Angles::from_slice(&[-349_066, 0, 1_000_000]).unwrap();
        assert_eq!(
            client.encode(&Message::Frame(StreamFrame {
                tick: 4,
                last: false,
                pose,
                middle: Some(Angles::from_slice(&[-349_000, -5, 1_000_000]).unwrap()),
                body: None,
            })),
            vector("frame")
        );
        // Protocol 2: the body's roll and pitch the file means.
        assert_eq!(
            client.encode(&Message::Frame(StreamFrame {
                tick: 6,
                last: true,
                pose,
                middle: None,
                body: Some([-87_266, 523_599]),
            })),
            vector("frame-body")
        );
        let applied = Angles::from_slice(&[-349_066, 0, 1_000_000]).unwrap();
        let status = Status {
            state: 1,
            tick: 1000,
            position: 4,
            buffered: 5,
            counters: Counters {
                bad: 1,
                lost: 2,
                guarded: 3,
                played: 6,
                ..Counters::default()
            },
            applied,
        };
        assert_eq!(client.recv().await.unwrap(), Reply::Status(status));
        assert_eq!(
            client.recv().await.unwrap(),
            Reply::Ack {
                msg: 0x10,
                seq: 2,
                code: 0
            }
        );
        // The identity carries the challenge a keyed bridge wants answered.
        match client.recv().await.unwrap() {
            Reply::Identity(info, joints) => {
                assert_eq!((info.model.as_str(), joints), ("ERS-7", 3));
                assert!(info.signing);
                assert_eq!(info.challenge, std::array::from_fn(|i| 0xf0 + i as u8));
            }
            other => panic!("{other:?}"),
        }
    });
    bridge.join().unwrap();
}
