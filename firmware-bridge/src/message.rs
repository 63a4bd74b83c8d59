//! The messages frames carry, and their payload layouts (all little-endian).
//!
//! `PROTOCOL.md` at the crate's root is the reference, with test vectors; this module
//! is its one implementation, used by both the bridge and the host.

use crate::wire::MAX_JOINTS;
use crate::wire::MAX_PAYLOAD;

/// Message ids. Host to bridge below 0x80, bridge to host from 0x80.
pub mod id {
    pub const HELLO: u8 = 0x01;
    pub const ANSWER: u8 = 0x02;
    pub const STREAM_START: u8 = 0x10;
    pub const FRAME: u8 = 0x11;
    pub const STOP: u8 = 0x12;
    pub const HOLD: u8 = 0x13;
    pub const UPLOAD_BEGIN: u8 = 0x20;
    pub const UPLOAD_KEYFRAME: u8 = 0x21;
    pub const UPLOAD_END: u8 = 0x22;
    pub const PLAY: u8 = 0x23;
    /// An upload keyframe with the body's roll and pitch (protocol 2).
    pub const UPLOAD_KEYFRAME_BODY: u8 = 0x24;
    pub const STATUS_REQUEST: u8 = 0x30;
    pub const LIST: u8 = 0x31;
    pub const IDENTITY: u8 = 0x81;
    pub const JOINT_INFO: u8 = 0x82;
    pub const STATUS: u8 = 0x83;
    pub const ACK: u8 = 0x84;
    pub const STORED: u8 = 0x85;
}

/// Bytes of the challenge a keyed bridge sends in its identity.
pub const CHALLENGE_LEN: usize = 16;

/// Longest motion name a bridge stores.
pub const MAX_NAME: usize = 32;

/// Acknowledgement codes.
pub mod ack {
    pub const OK: u8 = 0;
    /// The message is not understood by this bridge.
    pub const UNSUPPORTED: u8 = 1;
    /// The joint count differs from the model's.
    pub const JOINT_COUNT: u8 = 2;
    /// An upload ended with keyframes missing, or none was in progress.
    pub const INCOMPLETE: u8 = 3;
    /// More keyframes than the bridge stores per motion, or an empty motion.
    pub const TOO_LARGE: u8 = 4;
    /// `PLAY` named a motion the bridge does not hold.
    pub const UNKNOWN_MOTION: u8 = 5;
    /// A name longer than [`super::MAX_NAME`] or empty.
    pub const BAD_NAME: u8 = 6;
    /// A keyed bridge takes no command before the link has answered its challenge.
    pub const UNANSWERED: u8 = 7;
    /// The answer named another challenge than the one this bridge set: a replay.
    pub const STALE: u8 = 8;
}

/// Up to [`MAX_JOINTS`] angles in µrad, held inline (no allocation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Angles {
    len: u8,
    values: [i32; MAX_JOINTS],
}

impl core::fmt::Debug for Angles {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl Angles {
    /// `None` when there are more than [`MAX_JOINTS`] values.
    pub fn from_slice(values: &[i32]) -> Option<Angles> {
        if values.len() > MAX_JOINTS {
            return None;
        }
        let mut a = Angles {
            len: values.len() as u8,
            values: [0; MAX_JOINTS],
        };
        a.values[..values.len()].copy_from_slice(values);
        Some(a)
    }

    pub fn as_slice(&self) -> &[i32] {
        &self.values[..usize::from(self.len)]
    }

    pub fn as_mut_slice(&mut self) -> &mut [i32] {
        &mut self.values[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One 16 ms frame of a stream: the pose due at `tick` (8 ms servo frames from the
/// stream's start) and, usually, the pose of the 8 ms frame after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamFrame {
    pub tick: u32,
    /// The stream's final frame: after it the bridge holds.
    pub last: bool,
    pub pose: Angles,
    /// The pose at `tick + 1`. Without it the bridge fills that frame by Sony's rule
    /// between this frame and the next (exact only where the motion is linear there).
    pub middle: Option<Angles>,
    /// The body's roll and pitch (µrad) the motion means at `tick`, as its MTN frame
    /// carries them (protocol 2). A robot has its own attitude and ignores it; a
    /// simulated robot judges a fall against it, as `aibo-motion simulate` does (a
    /// pose alone does not say whether it is meant to lean).
    pub body: Option<[i32; 2]>,
}

/// Frame flags.
const FRAME_MIDDLE_DELTA: u8 = 0x01;
const FRAME_LAST: u8 = 0x02;
const FRAME_MIDDLE_WIDE: u8 = 0x04;
const FRAME_BODY: u8 = 0x08;

/// What the bridge counts; sent in every status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Received bytes that were not a valid frame or message (COBS, CRC, size, layout).
    pub bad: u32,
    /// Frames dropped for a missing or wrong signature.
    pub unauthenticated: u32,
    /// Signed frames dropped because their timestamp was not new.
    pub replayed: u32,
    /// Sequence numbers skipped: frames lost on the way.
    pub lost: u32,
    /// Stream frames that arrived after their due time (dropped).
    pub late: u32,
    /// Stream frames dropped for other reasons: too far ahead, no stream, wrong size.
    pub dropped: u32,
    /// Output frames the guard had to change (a limit or a speed).
    pub guarded: u32,
    /// 8 ms frames played from a stream or a stored motion (the guard's output).
    pub played: u32,
}

impl Counters {
    /// Every counter with its name, in wire order.
    pub fn named(&self) -> [(&'static str, u32); 8] {
        [
            ("bad", self.bad),
            ("unauthenticated", self.unauthenticated),
            ("replayed", self.replayed),
            ("lost", self.lost),
            ("late", self.late),
            ("dropped", self.dropped),
            ("guarded", self.guarded),
            ("played", self.played),
        ]
    }
}

/// `bad 0, unauthenticated 0, …`: every counter, for people.
impl core::fmt::Display for Counters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, (name, value)) in self.named().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} {value}")?;
        }
        Ok(())
    }
}

/// The bridge's report of itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub state: u8,
    /// 8 ms servo frames since the bridge started.
    pub tick: u32,
    /// The stream tick (or, playing a stored motion, its frame) last applied.
    pub position: u32,
    /// Stream frames waiting in the jitter buffer.
    pub buffered: u8,
    pub counters: Counters,
    /// The angles last commanded to the servos.
    pub applied: Angles,
}

/// What a bridge tells a host about itself in answer to `HELLO`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity<'a> {
    pub protocol: u8,
    pub model: &'a [u8],
    pub design_label: &'a [u8],
    pub joints: u8,
    /// Stream frames the jitter buffer holds.
    pub buffer_frames: u8,
    /// 8 ms frames between a stream's start arriving and its first frame being applied.
    pub latency_ticks: u8,
    pub motion_slots: u8,
    pub max_keyframes: u16,
    /// The bridge requires signed frames.
    pub signing: bool,
    /// What a host must answer, signed, before a keyed bridge takes a command: fresh at
    /// every `HELLO`, so a session recorded earlier cannot be played again (zeros when
    /// the bridge has no key).
    pub challenge: [u8; CHALLENGE_LEN],
}

/// One joint of the bridge's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointInfo<'a> {
    pub index: u8,
    pub min: i32,
    pub max: i32,
    pub max_step: u32,
    pub binary: bool,
    pub name: &'a [u8],
    pub locator: &'a [u8],
}

/// The names of the motions a bridge holds, as they lie in a `STORED` payload: each a
/// length byte and its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredNames<'a> {
    count: u8,
    raw: &'a [u8],
}

impl<'a> StoredNames<'a> {
    /// Names packed into `buf` (as many as fit in one payload), and the part used.
    pub fn pack<'n>(
        names: impl Iterator<Item = &'n [u8]>,
        buf: &'a mut [u8; MAX_PAYLOAD],
    ) -> StoredNames<'a> {
        let (mut count, mut len) = (0u8, 0usize);
        for name in names {
            let name = &name[..name.len().min(MAX_NAME)];
            // One byte for the count, one for this name's length.
            if count == u8::MAX || 1 + len + 1 + name.len() > MAX_PAYLOAD {
                break;
            }
            buf[len] = name.len() as u8;
            buf[len + 1..len + 1 + name.len()].copy_from_slice(name);
            len += 1 + name.len();
            count += 1;
        }
        StoredNames {
            count,
            raw: &buf[..len],
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.count)
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Each name in turn.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> {
        let mut rest = self.raw;
        (0..self.count).map_while(move |_| {
            let (&n, tail) = rest.split_first()?;
            let name = tail.get(..usize::from(n))?;
            rest = &tail[usize::from(n)..];
            Some(name)
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    Hello {
        protocol: u8,
    },
    /// The host's answer to the identity's challenge (the challenge itself, in a signed
    /// frame): the link is fresh, not a replay.
    Answer {
        challenge: [u8; CHALLENGE_LEN],
    },
    /// Starts (or resumes) a stream: frames that follow count ticks from `first_tick`.
    StreamStart {
        stream: u16,
        first_tick: u32,
    },
    Frame(StreamFrame),
    /// Stop: hold, then go to the rest posture and relax.
    Stop,
    /// Hold the current pose until told otherwise.
    Hold,
    UploadBegin {
        name: &'a [u8],
        keyframes: u16,
        joints: u8,
    },
    /// Sent as `UPLOAD_KEYFRAME_BODY` where it says the body's roll and pitch (µrad),
    /// as [`StreamFrame::body`].
    UploadKeyframe {
        index: u16,
        frames_before: u16,
        angles: Angles,
        body: Option<[i32; 2]>,
    },
    UploadEnd {
        keyframes: u16,
    },
    Play {
        name: &'a [u8],
        loops: u16,
    },
    StatusRequest,
    /// Which motions the bridge holds: answered with `STORED`.
    List,
    Identity(Identity<'a>),
    JointInfo(JointInfo<'a>),
    Status(Status),
    Ack {
        msg: u8,
        seq: u16,
        code: u8,
    },
    Stored(StoredNames<'a>),
}

/// A payload that does not match its message's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageError {
    pub msg: u8,
    /// Byte offset in the payload where decoding stopped.
    pub offset: usize,
}

struct Writer<'b> {
    buf: &'b mut [u8; MAX_PAYLOAD],
    len: usize,
    overflow: bool,
}

impl Writer<'_> {
    fn bytes(&mut self, b: &[u8]) {
        match self.buf.get_mut(self.len..self.len + b.len()) {
            Some(dst) => {
                dst.copy_from_slice(b);
                self.len += b.len();
            }
            None => self.overflow = true,
        }
    }
    fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }
    /// A short string: length byte, then the bytes (at most 255).
    fn str(&mut self, s: &[u8]) {
        let s = &s[..s.len().min(255)];
        self.u8(s.len() as u8);
        self.bytes(s);
    }
    fn angles(&mut self, a: &Angles) {
        self.u8(a.len);
        for &v in a.as_slice() {
            self.i32(v);
        }
    }
}

struct Reader<'a> {
    msg: u8,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self) -> MessageError {
        MessageError {
            msg: self.msg,
            offset: self.pos,
        }
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], MessageError> {
        let b = self.buf.get(self.pos..self.pos + n).ok_or(self.err())?;
        self.pos += n;
        Ok(b)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], MessageError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, MessageError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, MessageError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, MessageError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn i32(&mut self) -> Result<i32, MessageError> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    fn i16(&mut self) -> Result<i16, MessageError> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    fn str(&mut self) -> Result<&'a [u8], MessageError> {
        let n = usize::from(self.u8()?);
        self.bytes(n)
    }
    fn count(&mut self) -> Result<usize, MessageError> {
        let at = self.pos;
        let n = usize::from(self.u8()?);
        if n > MAX_JOINTS {
            return Err(MessageError {
                msg: self.msg,
                offset: at,
            });
        }
        Ok(n)
    }
    fn angles_of(&mut self, n: usize) -> Result<Angles, MessageError> {
        let mut a = Angles {
            len: n as u8,
            values: [0; MAX_JOINTS],
        };
        for v in a.as_mut_slice() {
            *v = self.i32()?;
        }
        Ok(a)
    }
    fn angles(&mut self) -> Result<Angles, MessageError> {
        let n = self.count()?;
        self.angles_of(n)
    }
    fn finish<T>(&self, value: T) -> Result<T, MessageError> {
        if self.pos == self.buf.len() {
            Ok(value)
        } else {
            Err(self.err())
        }
    }
}

impl<'a> Message<'a> {
    pub fn id(&self) -> u8 {
        match self {
            Message::Hello { .. } => id::HELLO,
            Message::Answer { .. } => id::ANSWER,
            Message::StreamStart { .. } => id::STREAM_START,
            Message::Frame(_) => id::FRAME,
            Message::Stop => id::STOP,
            Message::Hold => id::HOLD,
            Message::UploadBegin { .. } => id::UPLOAD_BEGIN,
            Message::UploadKeyframe { body: None, .. } => id::UPLOAD_KEYFRAME,
            Message::UploadKeyframe { body: Some(_), .. } => id::UPLOAD_KEYFRAME_BODY,
            Message::UploadEnd { .. } => id::UPLOAD_END,
            Message::Play { .. } => id::PLAY,
            Message::StatusRequest => id::STATUS_REQUEST,
            Message::List => id::LIST,
            Message::Identity(_) => id::IDENTITY,
            Message::JointInfo(_) => id::JOINT_INFO,
            Message::Status(_) => id::STATUS,
            Message::Ack { .. } => id::ACK,
            Message::Stored(_) => id::STORED,
        }
    }

    /// Writes the payload into `buf` and returns its length.
    pub fn encode(&self, buf: &mut [u8; MAX_PAYLOAD]) -> usize {
        let mut w = Writer {
            buf,
            len: 0,
            overflow: false,
        };
        match self {
            Message::Hello { protocol } => w.u8(*protocol),
            Message::Answer { challenge } => w.bytes(challenge),
            Message::StreamStart { stream, first_tick } => {
                w.u16(*stream);
                w.u32(*first_tick);
            }
            Message::Frame(f) => encode_stream_frame(&mut w, f),
            Message::Stop | Message::Hold | Message::StatusRequest | Message::List => {}
            Message::Stored(names) => {
                w.u8(names.count);
                w.bytes(names.raw);
            }
            Message::UploadBegin {
                name,
                keyframes,
                joints,
            } => {
                w.u16(*keyframes);
                w.u8(*joints);
                w.str(name);
            }
            Message::UploadKeyframe {
                index,
                frames_before,
                angles,
                body,
            } => {
                w.u16(*index);
                w.u16(*frames_before);
                if let Some([roll, pitch]) = body {
                    w.i32(*roll);
                    w.i32(*pitch);
                }
                w.angles(angles);
            }
            Message::UploadEnd { keyframes } => w.u16(*keyframes),
            Message::Play { name, loops } => {
                w.u16(*loops);
                w.str(name);
            }
            Message::Identity(i) => {
                w.u8(i.protocol);
                w.u8(i.joints);
                w.u8(i.buffer_frames);
                w.u8(i.latency_ticks);
                w.u8(i.motion_slots);
                w.u16(i.max_keyframes);
                w.u8(u8::from(i.signing));
                w.bytes(&i.challenge);
                w.str(i.model);
                w.str(i.design_label);
            }
            Message::JointInfo(j) => {
                w.u8(j.index);
                w.i32(j.min);
                w.i32(j.max);
                w.u32(j.max_step);
                w.u8(u8::from(j.binary));
                w.str(j.name);
                w.str(j.locator);
            }
            Message::Status(s) => {
                w.u8(s.state);
                w.u32(s.tick);
                w.u32(s.position);
                w.u8(s.buffered);
                let c = &s.counters;
                for v in [
                    c.bad,
                    c.unauthenticated,
                    c.replayed,
                    c.lost,
                    c.late,
                    c.dropped,
                    c.guarded,
                    c.played,
                ] {
                    w.u32(v);
                }
                w.angles(&s.applied);
            }
            Message::Ack { msg, seq, code } => {
                w.u8(*msg);
                w.u16(*seq);
                w.u8(*code);
            }
        }
        debug_assert!(!w.overflow, "every message fits MAX_PAYLOAD");
        w.len
    }

    /// Reads a payload of message `msg`.
    pub fn decode(msg: u8, payload: &'a [u8]) -> Result<Message<'a>, MessageError> {
        let mut r = Reader {
            msg,
            buf: payload,
            pos: 0,
        };
        let m = match msg {
            id::HELLO => Message::Hello { protocol: r.u8()? },
            id::ANSWER => Message::Answer {
                challenge: r.array()?,
            },
            id::STREAM_START => Message::StreamStart {
                stream: r.u16()?,
                first_tick: r.u32()?,
            },
            id::FRAME => Message::Frame(decode_stream_frame(&mut r)?),
            id::STOP => Message::Stop,
            id::HOLD => Message::Hold,
            id::STATUS_REQUEST => Message::StatusRequest,
            id::LIST => Message::List,
            id::STORED => {
                let count = r.u8()?;
                let start = r.pos;
                for _ in 0..count {
                    r.str()?;
                }
                Message::Stored(StoredNames {
                    count,
                    raw: &payload[start..r.pos],
                })
            }
            id::UPLOAD_BEGIN => {
                let keyframes = r.u16()?;
                let joints = r.u8()?;
                Message::UploadBegin {
                    keyframes,
                    joints,
                    name: r.str()?,
                }
            }
            id::UPLOAD_KEYFRAME => Message::UploadKeyframe {
                index: r.u16()?,
                frames_before: r.u16()?,
                angles: r.angles()?,
                body: None,
            },
            id::UPLOAD_KEYFRAME_BODY => {
                let (index, frames_before) = (r.u16()?, r.u16()?);
                let body = Some([r.i32()?, r.i32()?]);
                Message::UploadKeyframe {
                    index,
                    frames_before,
                    angles: r.angles()?,
                    body,
                }
            }
            id::UPLOAD_END => Message::UploadEnd {
                keyframes: r.u16()?,
            },
            id::PLAY => {
                let loops = r.u16()?;
                Message::Play {
                    loops,
                    name: r.str()?,
                }
            }
            id::IDENTITY => Message::Identity(Identity {
                protocol: r.u8()?,
                joints: r.u8()?,
                buffer_frames: r.u8()?,
                latency_ticks: r.u8()?,
                motion_slots: r.u8()?,
                max_keyframes: r.u16()?,
                signing: r.u8()? != 0,
                challenge: r.array()?,
                model: r.str()?,
                design_label: r.str()?,
            }),
            id::JOINT_INFO => Message::JointInfo(JointInfo {
                index: r.u8()?,
                min: r.i32()?,
                max: r.i32()?,
                max_step: r.u32()?,
                binary: r.u8()? != 0,
                name: r.str()?,
                locator: r.str()?,
            }),
            id::STATUS => Message::Status(Status {
                state: r.u8()?,
                tick: r.u32()?,
                position: r.u32()?,
                buffered: r.u8()?,
                counters: Counters {
                    bad: r.u32()?,
                    unauthenticated: r.u32()?,
                    replayed: r.u32()?,
                    lost: r.u32()?,
                    late: r.u32()?,
                    dropped: r.u32()?,
                    guarded: r.u32()?,
                    played: r.u32()?,
                },
                applied: r.angles()?,
            }),
            id::ACK => Message::Ack {
                msg: r.u8()?,
                seq: r.u16()?,
                code: r.u8()?,
            },
            _ => return Err(r.err()),
        };
        r.finish(m)
    }
}

/// Frame payload: tick u32, flags u8, count u8, pose i32×count, then the middle frame as
/// i16 deltas from the pose (flag 0x01) or as i32 angles (flag 0x04), or nothing; then,
/// with flag 0x08, the body's roll and pitch, i32 each.
fn encode_stream_frame(w: &mut Writer<'_>, f: &StreamFrame) {
    let deltas: Option<[i16; MAX_JOINTS]> = f.middle.and_then(|m| {
        let mut d = [0i16; MAX_JOINTS];
        for ((slot, &p), &v) in d.iter_mut().zip(f.pose.as_slice()).zip(m.as_slice()) {
            *slot = i16::try_from(i64::from(v) - i64::from(p)).ok()?;
        }
        Some(d)
    });
    let mut flags = if f.last { FRAME_LAST } else { 0 };
    if f.middle.is_some() {
        flags |= if deltas.is_some() {
            FRAME_MIDDLE_DELTA
        } else {
            FRAME_MIDDLE_WIDE
        };
    }
    if f.body.is_some() {
        flags |= FRAME_BODY;
    }
    w.u32(f.tick);
    w.u8(flags);
    w.angles(&f.pose);
    match (deltas, f.middle) {
        (Some(d), _) => {
            for v in &d[..f.pose.len()] {
                w.bytes(&v.to_le_bytes());
            }
        }
        (None, Some(m)) => {
            for &v in m.as_slice().iter().take(f.pose.len()) {
                w.i32(v);
            }
        }
        (None, None) => {}
    }
    if let Some([roll, pitch]) = f.body {
        w.i32(roll);
        w.i32(pitch);
    }
}

fn decode_stream_frame(r: &mut Reader<'_>) -> Result<StreamFrame, MessageError> {
    let tick = r.u32()?;
    let flags_at = r.pos;
    let flags = r.u8()?;
    if flags & !(FRAME_MIDDLE_DELTA | FRAME_LAST | FRAME_MIDDLE_WIDE | FRAME_BODY) != 0
        || flags & FRAME_MIDDLE_DELTA != 0 && flags & FRAME_MIDDLE_WIDE != 0
    {
        return Err(MessageError {
            msg: r.msg,
            offset: flags_at,
        });
    }
    let pose = r.angles()?;
    let middle = if flags & FRAME_MIDDLE_DELTA != 0 {
        let mut m = pose;
        for v in m.as_mut_slice() {
            *v = v.saturating_add(i32::from(r.i16()?));
        }
        Some(m)
    } else if flags & FRAME_MIDDLE_WIDE != 0 {
        Some(r.angles_of(pose.len())?)
    } else {
        None
    };
    let body = if flags & FRAME_BODY != 0 {
        Some([r.i32()?, r.i32()?])
    } else {
        None
    };
    Ok(StreamFrame {
        tick,
        last: flags & FRAME_LAST != 0,
        pose,
        middle,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(m: Message<'_>) {
        let mut buf = [0u8; MAX_PAYLOAD];
        let n = m.encode(&mut buf);
        assert_eq!(Message::decode(m.id(), &buf[..n]), Ok(m));
        // Every shorter payload is refused, never misread.
        for cut in 0..n {
            assert!(
                Message::decode(m.id(), &buf[..cut]).is_err(),
                "{m:?} cut at {cut}"
            );
        }
    }

    #[test]
    fn every_message_round_trips_and_refuses_truncation() {
        let pose = Angles::from_slice(&[1, -2, 300_000, i32::MIN, i32::MAX]).unwrap();
        let near = Angles::from_slice(&[5, -2, 300_100, i32::MIN + 7, i32::MAX - 9]).unwrap();
        let far = Angles::from_slice(&[5, -2, 0, 0, 0]).unwrap();
        round_trip(Message::Hello { protocol: 1 });
        round_trip(Message::Answer {
            challenge: [0xa5; CHALLENGE_LEN],
        });
        round_trip(Message::Identity(Identity {
            protocol: 1,
            model: b"ERS-7",
            design_label: b"DRX-1000",
            joints: 20,
            buffer_frames: 16,
            latency_ticks: 6,
            motion_slots: 8,
            max_keyframes: 4096,
            signing: true,
            challenge: [7; CHALLENGE_LEN],
        }));
        round_trip(Message::StreamStart {
            stream: 7,
            first_tick: 1234,
        });
        for middle in [None, Some(near), Some(far)] {
            for body in [None, Some([-87_266, i32::MIN]), Some([i32::MAX, 523_599])] {
                round_trip(Message::Frame(StreamFrame {
                    tick: 42,
                    last: middle.is_none(),
                    pose,
                    middle,
                    body,
                }));
            }
        }
        round_trip(Message::UploadBegin {
            name: b"dance",
            keyframes: 300,
            joints: 20,
        });
        for body in [None, Some([-87_266, 523_599])] {
            round_trip(Message::UploadKeyframe {
                index: 3,
                frames_before: 150,
                angles: pose,
                body,
            });
        }
        round_trip(Message::Play {
            name: b"dance",
            loops: 2,
        });
        round_trip(Message::Status(Status {
            state: 2,
            tick: 99,
            position: 5,
            buffered: 4,
            counters: Counters {
                bad: 1,
                unauthenticated: 2,
                replayed: 3,
                lost: 4,
                late: 5,
                dropped: 6,
                guarded: 7,
                played: 8,
            },
            applied: pose,
        }));
        let mut buf = [0u8; MAX_PAYLOAD];
        let names = [&b"dance"[..], b"", b"wave"];
        let stored = StoredNames::pack(names.iter().copied(), &mut buf);
        assert_eq!(stored.iter().collect::<Vec<_>>(), names);
        round_trip(Message::Stored(stored));
        round_trip(Message::List);
        // Names past one payload are left out, never cut.
        let long = [b'x'; MAX_NAME];
        let mut buf = [0u8; MAX_PAYLOAD];
        let many = StoredNames::pack(core::iter::repeat_n(&long[..], 20), &mut buf);
        assert_eq!(many.len(), (MAX_PAYLOAD - 1) / (MAX_NAME + 1));
        assert!(many.iter().all(|n| n == long));
        round_trip(Message::Ack {
            msg: id::PLAY,
            seq: 9,
            code: ack::UNKNOWN_MOTION,
        });
    }
}
