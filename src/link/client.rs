//! The protocol client: frames out (numbered, signed when a key is set), replies in
//! (checked, authenticated, decoded into owned values).

use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use firmware_bridge::message::{self, Message, Status};
use firmware_bridge::sign::{ReplayGuard, TIMESTAMP_UNITS_PER_S};
use firmware_bridge::wire::{self, Decoder, Signing, MAX_ENCODED};
use firmware_bridge::{Key, OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION};

use super::transport::{self, Connection, Endpoint};
use super::LinkError;

/// The host's link id in signed frames.
const HOST_LINK: u8 = 0;

/// Signing timestamps count from 2015-01-01, as MAVLink's do.
const TIMESTAMP_EPOCH_UNIX_S: u64 = 1_420_070_400;

/// One joint as the bridge describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeJoint {
    pub name: String,
    pub locator: String,
    pub min: i32,
    pub max: i32,
    pub max_step: u32,
    pub binary: bool,
}

/// What the handshake learns about the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeInfo {
    pub protocol: u8,
    pub model: String,
    pub design_label: String,
    pub joints: Vec<BridgeJoint>,
    pub buffer_frames: u8,
    pub latency_ticks: u8,
    pub motion_slots: u8,
    pub max_keyframes: u16,
    pub signing: bool,
    /// What a keyed bridge asks this link to answer before it takes a command.
    pub challenge: [u8; message::CHALLENGE_LEN],
}

/// A reply from the bridge, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The identity, and the number of joint descriptions that follow it.
    Identity(BridgeInfo, u8),
    Joint(u8, BridgeJoint),
    Status(Status),
    Ack {
        msg: u8,
        seq: u16,
        code: u8,
    },
    /// The names of the motions the bridge holds.
    Stored(Vec<String>),
}

/// Counts of what the client dropped on receipt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReceiveCounters {
    pub bad: u64,
    pub unauthenticated: u64,
}

/// A connected protocol client.
pub struct Client {
    endpoint: Endpoint,
    conn: Connection,
    key: Option<Key>,
    seq: u16,
    last_timestamp: u64,
    decoder: Decoder,
    replay: ReplayGuard,
    pending: VecDeque<Reply>,
    pub received: ReceiveCounters,
    /// The newest status seen.
    pub last_status: Option<Status>,
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Client {
    pub async fn connect(
        endpoint: &Endpoint,
        key: Option<Key>,
        timeout: Duration,
    ) -> Result<Client, LinkError> {
        let conn = transport::connect(endpoint, timeout).await?;
        Ok(Client {
            endpoint: endpoint.clone(),
            conn,
            key,
            seq: 0,
            last_timestamp: 0,
            decoder: Decoder::new(),
            replay: ReplayGuard::default(),
            pending: VecDeque::new(),
            received: ReceiveCounters::default(),
            last_status: None,
        })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The sequence number the next frame will carry.
    pub fn next_seq(&self) -> u16 {
        self.seq.wrapping_add(1)
    }

    /// Encodes `m` as the next frame.
    pub fn encode(&mut self, m: &Message<'_>) -> Vec<u8> {
        let mut payload = [0u8; wire::MAX_PAYLOAD];
        let n = m.encode(&mut payload);
        self.seq = self.seq.wrapping_add(1);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as u64 / (1_000_000 / TIMESTAMP_UNITS_PER_S))
            .unwrap_or(0)
            .saturating_sub(TIMESTAMP_EPOCH_UNIX_S * TIMESTAMP_UNITS_PER_S);
        self.last_timestamp = now.max(self.last_timestamp + 1);
        let signing = self.key.as_ref().map(|key| Signing {
            key,
            link: HOST_LINK,
            timestamp: self.last_timestamp,
        });
        let mut out = [0u8; MAX_ENCODED];
        let len = wire::encode_frame(self.seq, m.id(), &payload[..n], signing, &mut out)
            .unwrap_or_else(|| unreachable!("every message fits a frame"));
        out[..len].to_vec()
    }

    /// Sends raw, already encoded bytes.
    pub fn send_bytes(&self, bytes: Vec<u8>) -> Result<(), LinkError> {
        self.conn.tx.send(bytes).map_err(|_| self.dropped())
    }

    pub fn send(&mut self, m: &Message<'_>) -> Result<u16, LinkError> {
        let bytes = self.encode(m);
        self.send_bytes(bytes)?;
        Ok(self.seq)
    }

    fn dropped(&self) -> LinkError {
        LinkError::Dropped(self.endpoint.to_string())
    }

    /// The next reply. Cancel-safe: no reply is lost if the future is dropped.
    pub async fn recv(&mut self) -> Result<Reply, LinkError> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                if let Reply::Status(s) = &r {
                    self.last_status = Some(*s);
                }
                return Ok(r);
            }
            let bytes = self.conn.rx.recv().await.ok_or_else(|| self.dropped())?;
            self.take(&bytes);
        }
    }

    fn take(&mut self, bytes: &[u8]) {
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.feed(bytes, |raw| {
            let reply = raw.ok().and_then(|raw| {
                let frame = wire::parse_frame(raw).ok()?;
                if wire::authenticate(&frame, self.key.as_ref(), &mut self.replay).is_err() {
                    self.received.unauthenticated += 1;
                    return Some(None);
                }
                Some(
                    Message::decode(frame.msg, frame.payload)
                        .ok()
                        .and_then(owned),
                )
            });
            match reply {
                Some(Some(r)) => self.pending.push_back(r),
                Some(None) => {}
                None => self.received.bad += 1,
            }
        });
        self.decoder = decoder;
    }

    async fn recv_within(
        &mut self,
        timeout: Duration,
        waiting_for: &'static str,
    ) -> Result<Reply, LinkError> {
        match tokio::time::timeout(timeout, self.recv()).await {
            Ok(r) => r,
            Err(_) => Err(LinkError::Timeout {
                endpoint: self.endpoint.to_string(),
                waiting_for,
                timeout,
            }),
        }
    }

    /// Says hello and collects the bridge's identity and joints.
    pub async fn handshake(&mut self, timeout: Duration) -> Result<BridgeInfo, LinkError> {
        self.send(&Message::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        let deadline = tokio::time::Instant::now() + timeout;
        let (mut info, count) = loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.recv_within(left, "the bridge's identity").await {
                Ok(Reply::Identity(i, n)) => break (i, n),
                Ok(_) => {}
                Err(LinkError::Timeout { .. }) => return Err(self.silent_bridge(timeout)),
                Err(e) => return Err(e),
            }
        };
        if !(OLDEST_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&info.protocol) {
            return Err(LinkError::Refused(format!(
                "the bridge speaks protocol {}, this host {OLDEST_PROTOCOL_VERSION} to {PROTOCOL_VERSION}",
                info.protocol
            )));
        }
        let mut joints: Vec<Option<BridgeJoint>> = vec![None; usize::from(count)];
        while joints.iter().any(Option::is_none) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if let Reply::Joint(i, j) = self.recv_within(left, "the bridge's joint list").await? {
                if let Some(slot) = joints.get_mut(usize::from(i)) {
                    *slot = Some(j);
                }
            }
        }
        info.joints = joints.into_iter().flatten().collect();
        if info.signing && self.key.is_some() {
            self.answer_challenge(&info, deadline).await?;
        }
        Ok(info)
    }

    /// Answers a keyed bridge's challenge (signed, as every frame is), which proves this
    /// link is live rather than a recording; until then the bridge takes no command.
    async fn answer_challenge(
        &mut self,
        info: &BridgeInfo,
        deadline: tokio::time::Instant,
    ) -> Result<(), LinkError> {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let answer = Message::Answer {
            challenge: info.challenge,
        };
        match self.request(&answer, left).await? {
            message::ack::OK => Ok(()),
            code => Err(LinkError::Refused(format!(
                "the answer to its challenge: {}",
                ack_text(code)
            ))),
        }
    }

    /// Why a bridge did not answer the hello, as far as this end can tell: the replies
    /// it dropped for their signatures tell a key mismatch from no answer at all.
    fn silent_bridge(&self, timeout: Duration) -> LinkError {
        let endpoint = self.endpoint.to_string();
        let reason = match (&self.key, self.received.unauthenticated) {
            (Some(_), 0) => {
                "no answer: is it a bridge? (this end signs with --key; a bridge with another \
                 key drops what it cannot verify, and says nothing)"
            }
            (Some(_), _) => {
                "it answered, but without this key's signature: start the bridge with the same \
                 --key, or play without --key if the bridge has none"
            }
            (None, 0) => {
                "no answer: is it a bridge, and was it started with --key? (a bridge with a key \
                 drops unsigned frames: pass the same --key here)"
            }
            (None, _) => "it answered with signed frames: pass the bridge's --key here",
        };
        LinkError::Connect {
            endpoint,
            reason: format!("{reason} (waited {:.1} s)", timeout.as_secs_f64()),
        }
    }

    /// Asks for the bridge's status; `None` when none came within `timeout`.
    pub async fn status(&mut self, timeout: Duration) -> Result<Option<Status>, LinkError> {
        self.send(&Message::StatusRequest)?;
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.recv_within(left, "a status").await {
                Ok(Reply::Status(s)) => return Ok(Some(s)),
                Ok(_) => {}
                Err(LinkError::Timeout { .. }) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    /// The names of the motions the bridge holds.
    pub async fn stored_names(&mut self, timeout: Duration) -> Result<Vec<String>, LinkError> {
        self.send(&Message::List)?;
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if let Reply::Stored(names) = self.recv_within(left, "the list of motions").await? {
                return Ok(names);
            }
        }
    }

    /// Sends `m` and waits for its acknowledgement; returns the code.
    pub async fn request(&mut self, m: &Message<'_>, timeout: Duration) -> Result<u8, LinkError> {
        let seq = self.send(m)?;
        let id = m.id();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if let Reply::Ack { msg, seq: s, code } =
                self.recv_within(left, "an acknowledgement").await?
            {
                if msg == id && s == seq {
                    return Ok(code);
                }
            }
        }
    }
}

/// Bridge-to-host messages as owned replies; anything else is not a reply.
fn owned(m: Message<'_>) -> Option<Reply> {
    Some(match m {
        Message::Identity(i) => Reply::Identity(
            BridgeInfo {
                protocol: i.protocol,
                model: lossy(i.model),
                design_label: lossy(i.design_label),
                joints: Vec::new(),
                buffer_frames: i.buffer_frames,
                latency_ticks: i.latency_ticks,
                motion_slots: i.motion_slots,
                max_keyframes: i.max_keyframes,
                signing: i.signing,
                challenge: i.challenge,
            },
            i.joints,
        ),
        Message::JointInfo(j) => Reply::Joint(
            j.index,
            BridgeJoint {
                name: lossy(j.name),
                locator: lossy(j.locator),
                min: j.min,
                max: j.max,
                max_step: j.max_step,
                binary: j.binary,
            },
        ),
        Message::Status(s) => Reply::Status(s),
        Message::Ack { msg, seq, code } => Reply::Ack { msg, seq, code },
        Message::Stored(names) => Reply::Stored(names.iter().map(lossy).collect()),
        _ => return None,
    })
}

/// A person's words for an acknowledgement code.
pub fn ack_text(code: u8) -> &'static str {
    match code {
        message::ack::OK => "ok",
        message::ack::UNSUPPORTED => "not supported by this bridge",
        message::ack::JOINT_COUNT => "the motion's joint count differs from the robot's",
        message::ack::INCOMPLETE => "keyframes went missing on the way",
        message::ack::TOO_LARGE => "the motion is larger than the bridge can store",
        message::ack::UNKNOWN_MOTION => "the bridge holds no motion of that name",
        message::ack::BAD_NAME => "the motion name is empty or longer than 32 bytes",
        message::ack::UNANSWERED => "the link has not answered the bridge's challenge",
        message::ack::STALE => "it answers another challenge: a replayed session",
        _ => "unknown code",
    }
}
