//! The bridge core: what the robot runs between the link and its servos.
//!
//! The embedding program calls [`Bridge::receive`] with whatever bytes arrive and
//! [`Bridge::tick`] once per 8 ms servo frame; `tick` returns the pose to command.
//! Everything the host sends passes the **guard** (the model's limits and speeds) before
//! it reaches a servo, and the **watchdog** takes over when a stream stops: hold the last
//! pose, then ramp slowly to the rest posture, then relax.
//!
//! Memory is bounded: the decoder, the jitter buffer and the reply scratch are fixed
//! arrays, made once on the heap with the bridge; stored motions are capped in number and
//! size by [`Config`]. The bridge itself is small (under 1 KB) and its calls use little
//! stack: a program on the robot runs them on a fixed stack of a few KB.

use crate::message::{
    ack, Angles, Counters, Identity, JointInfo, Message, Status, StoredNames, StreamFrame,
    CHALLENGE_LEN,
};
use crate::model::{JointSpec, Model};
use crate::sign::{Key, ReplayGuard};
use crate::sony;
use crate::store::Store;
use crate::wire::{self, AuthError, Decoder, Signing, MAX_ENCODED};
use crate::wire::{MAX_JOINTS, PROTOCOL_VERSION};
use alloc::boxed::Box;
use alloc::vec;

/// Slack on limits, µrad: Sony's tools used π ≈ 3.1416, so their 122° sits 4 µrad past
/// the exact limit; the host's `check` allows the same.
pub const LIMIT_SLACK_URAD: i32 = 10;

/// Slack on each 8 ms step, µrad. Sony's rule puts a segment's truncation remainder
/// (under 2n + 2 µrad for n interpolation frames) into its last 8 ms step; 512 µrad
/// (0.03°) lets segments of up to 255 frames, which a speed-checked motion produces,
/// through unchanged.
pub const STEP_SLACK_URAD: u32 = 512;

/// Most stream frames the jitter buffer can be configured to hold.
pub const MAX_BUFFER_FRAMES: usize = 32;

/// The bridge's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// When set, only frames signed with this key are accepted, and replies are signed.
    pub key: Option<Key>,
    /// Random bytes from the embedding system, new at every start: the challenges that
    /// keep a recorded session from being played into a restarted bridge derive from
    /// them. Without fresh entropy a restarted bridge repeats its challenges.
    pub entropy: [u8; 32],
    /// The link id the bridge signs its replies with.
    pub link: u8,
    /// Stream frames (16 ms each) the jitter buffer holds, at most [`MAX_BUFFER_FRAMES`].
    pub buffer_frames: u8,
    /// 8 ms frames between a stream's start and its first frame: the jitter allowance.
    pub latency_ticks: u8,
    /// 8 ms frames the watchdog holds the last pose before ramping to rest.
    pub hold_ticks: u32,
    /// The watchdog's ramp moves each joint at 1/`ramp_divisor` of its top speed.
    pub ramp_divisor: u32,
    /// Motions kept for `PLAY`; uploading one more replaces the oldest.
    pub motion_slots: u8,
    /// Most keyframes in one stored motion.
    pub max_keyframes: u16,
}

/// The ramps' share of a joint's top speed by default (a quarter): the watchdog's ramp to
/// rest and a stored motion's way in. A host easing a stream in goes as fast (it cannot
/// ask a bridge for its own setting).
pub const DEFAULT_RAMP_DIVISOR: u32 = 4;

impl Default for Config {
    fn default() -> Self {
        Config {
            key: None,
            entropy: [0; 32],
            link: 1,
            buffer_frames: 16,
            latency_ticks: 6,
            hold_ticks: 63,
            ramp_divisor: DEFAULT_RAMP_DIVISOR,
            motion_slots: 8,
            max_keyframes: 4096,
        }
    }
}

impl Config {
    /// The bridge embedded through the C interface, as the OPEN-R object runs it on an AIBO
    /// (`firmware-bridge/openr`): a Wi-Fi link delays, bunches and stalls frames, so the
    /// whole jitter buffer (512 ms) and a stream start 320 ms after its STREAM_START (the
    /// host then sends each frame 384 ms ahead); and a store of 4 motions of up to 2048
    /// keyframes, well inside an ERS-210's 32 MB.
    pub fn robot() -> Config {
        Config {
            buffer_frames: MAX_BUFFER_FRAMES as u8,
            latency_ticks: 40,
            motion_slots: 4,
            max_keyframes: 2048,
            ..Config::default()
        }
    }
}

/// The bridge's state, as status messages report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum State {
    /// Gains off: nothing commanded.
    Relaxed = 0,
    /// Playing a stream from the host.
    Streaming = 1,
    /// Playing a stored motion on the bridge's own clock.
    Playing = 2,
    /// Holding a pose (a stream or motion ended, or the host said hold).
    Holding = 3,
    /// The watchdog holds the last pose: a stream's frames stopped coming.
    Stalled = 4,
    /// The watchdog ramps to the rest posture.
    Ramping = 5,
    /// The host said STOP: the pose is held `hold_ticks`, then ramps to rest.
    Stopping = 6,
}

impl State {
    pub fn from_u8(v: u8) -> Option<State> {
        Some(match v {
            0 => State::Relaxed,
            1 => State::Streaming,
            2 => State::Playing,
            3 => State::Holding,
            4 => State::Stalled,
            5 => State::Ramping,
            6 => State::Stopping,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            State::Relaxed => "relaxed",
            State::Streaming => "streaming",
            State::Playing => "playing",
            State::Holding => "holding",
            State::Stalled => "stalled",
            State::Ramping => "ramping",
            State::Stopping => "stopping",
        }
    }
}

/// What one 8 ms frame did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// Gains off; the pose is where the servos are.
    Relaxed,
    /// The pose did not change on purpose (holding, waiting for a stream, stalled).
    Held,
    /// A frame of a stream or stored motion, after the guard.
    Played,
    /// A step of the watchdog's ramp to rest.
    Ramped,
}

/// The pose for one servo frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output<'a> {
    /// The bridge's frame number (8 ms each since it started).
    pub tick: u64,
    pub kind: OutputKind,
    pub pose: &'a [i32],
    /// The body's roll and pitch (µrad) meant for this pose, where the stream's frame or
    /// the stored motion's keyframes said (protocol 2); kept while the pose is held,
    /// gone once anything else moves it.
    pub body: Option<[i32; 2]>,
}

#[derive(Debug, Clone)]
struct Stream {
    /// Local tick at which stream tick `first_tick` is applied.
    anchor: u64,
    first_tick: u32,
    /// The frame whose pose was applied last (for its middle, or to interpolate from).
    previous: Option<StreamFrame>,
    /// Local tick at which frames stopped arriving in time.
    stalled_since: Option<u64>,
    /// Stream tick last applied.
    position: u32,
}

#[derive(Debug, Clone)]
struct Playback {
    slot: usize,
    /// Still on the way from where the servos were to the first keyframe, at the
    /// watchdog ramp's speed: a motion that starts elsewhere (sitting, for a robot that
    /// stands) is not jumped into at full speed.
    ramping_in: bool,
    loops_left: u16,
    segment: usize,
    step: u32,
    position: u32,
}

// One per bridge, and kept inline so that starting a stream never allocates.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum Mode {
    Relaxed,
    Holding,
    Streaming(Stream),
    Playing(Playback),
    /// Holding after a STOP, since the given local tick.
    Stopping {
        since: u64,
    },
    Ramping,
}

/// Room to encode one reply.
#[derive(Debug, Clone)]
struct Scratch {
    payload: [u8; wire::MAX_PAYLOAD],
    out: [u8; MAX_ENCODED],
}

/// The robot-side endpoint. See the module documentation.
#[derive(Debug, Clone)]
pub struct Bridge {
    model: &'static Model,
    config: Config,
    /// On the heap (700 bytes); `receive` takes it out while it hands frames to the
    /// bridge, and puts it back: it is `None` only inside `receive`.
    decoder: Option<Box<Decoder>>,
    replay: ReplayGuard,
    counters: Counters,
    last_rx_seq: Option<u16>,
    tx_seq: u16,
    tx_timestamp: u64,
    now: u64,
    mode: Mode,
    /// The pose last commanded; while relaxed, where the servos are.
    applied: Angles,
    /// The body attitude meant for `applied` (see [`Output::body`]).
    body: Option<[i32; 2]>,
    /// The jitter buffer, [`MAX_BUFFER_FRAMES`] long, on the heap (9 KB).
    buffer: Box<[Option<StreamFrame>]>,
    /// Where a reply is encoded, on the heap rather than the stack.
    scratch: Box<Scratch>,
    store: Store,
    reported: State,
    /// The challenge set at the last `HELLO`, and how many have been set.
    challenge: [u8; CHALLENGE_LEN],
    challenges: u64,
    /// The link has answered the current challenge (always true without a key).
    answered: bool,
}

impl Bridge {
    /// A bridge for `model`, relaxed, its servos at `start` (one angle per joint; a
    /// wrong length is padded or cut with the rest posture).
    pub fn new(model: &'static Model, mut config: Config, start: &[i32]) -> Bridge {
        config.buffer_frames = config.buffer_frames.clamp(1, MAX_BUFFER_FRAMES as u8);
        config.ramp_divisor = config.ramp_divisor.max(1);
        let mut applied =
            Angles::from_slice(&[0; MAX_JOINTS][..model.joints.len().min(MAX_JOINTS)])
                .unwrap_or_else(|| unreachable!("sliced to MAX_JOINTS"));
        let rest = model.rest_posture().map(|p| p.angles).unwrap_or(&[]);
        for (i, v) in applied.as_mut_slice().iter_mut().enumerate() {
            *v = start.get(i).or(rest.get(i)).copied().unwrap_or(0);
        }
        Bridge {
            model,
            config,
            decoder: Some(Box::default()),
            replay: ReplayGuard::default(),
            counters: Counters::default(),
            last_rx_seq: None,
            tx_seq: 0,
            tx_timestamp: 0,
            now: 0,
            mode: Mode::Relaxed,
            applied,
            body: None,
            buffer: vec![None; MAX_BUFFER_FRAMES].into_boxed_slice(),
            scratch: Box::new(Scratch {
                payload: [0; wire::MAX_PAYLOAD],
                out: [0; MAX_ENCODED],
            }),
            store: Store::default(),
            reported: State::Relaxed,
            challenge: [0; CHALLENGE_LEN],
            challenges: 0,
            answered: false,
        }
    }

    pub fn model(&self) -> &'static Model {
        self.model
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    pub fn state(&self) -> State {
        match &self.mode {
            Mode::Relaxed => State::Relaxed,
            Mode::Holding => State::Holding,
            Mode::Streaming(s) if s.stalled_since.is_some() => State::Stalled,
            Mode::Streaming(_) => State::Streaming,
            Mode::Playing(_) => State::Playing,
            Mode::Stopping { .. } => State::Stopping,
            Mode::Ramping => State::Ramping,
        }
    }

    /// The pose last commanded (or, relaxed, the servos' pose).
    pub fn applied(&self) -> &[i32] {
        self.applied.as_slice()
    }

    /// While relaxed, tells the bridge where the servos are, so that gains come on at
    /// the current angles. Ignored otherwise.
    pub fn set_measured(&mut self, pose: &[i32]) {
        if matches!(self.mode, Mode::Relaxed) {
            for (a, &m) in self.applied.as_mut_slice().iter_mut().zip(pose) {
                *a = m;
            }
        }
    }

    /// The link went away (a TCP connection closed). A stream then stalls and the
    /// watchdog takes over; a stored motion plays on. The next link starts afresh.
    pub fn link_lost(&mut self) {
        if let Some(decoder) = &mut self.decoder {
            decoder.reset();
        }
        self.last_rx_seq = None;
        self.answered = false;
    }

    /// Whether commands are taken from the link: always without a key; with one, once
    /// the link has answered this handshake's challenge.
    fn fresh(&self) -> bool {
        self.config.key.is_none() || self.answered
    }

    /// Takes received bytes; answers (encoded frames) go to `reply`.
    pub fn receive(&mut self, bytes: &[u8], reply: &mut dyn FnMut(&[u8])) {
        let Some(mut decoder) = self.decoder.take() else {
            return;
        };
        decoder.feed(bytes, |raw| match raw {
            Ok(raw) => self.receive_frame(raw, reply),
            Err(_) => self.counters.bad = self.counters.bad.wrapping_add(1),
        });
        self.decoder = Some(decoder);
    }

    fn receive_frame(&mut self, raw: &[u8], reply: &mut dyn FnMut(&[u8])) {
        let frame = match wire::parse_frame(raw) {
            Ok(f) => f,
            Err(_) => return self.counters.bad = self.counters.bad.wrapping_add(1),
        };
        match wire::authenticate(&frame, self.config.key.as_ref(), &mut self.replay) {
            Ok(()) => {}
            Err(AuthError::Replayed) => {
                return self.counters.replayed = self.counters.replayed.wrapping_add(1)
            }
            Err(AuthError::Unsigned | AuthError::Forged) => {
                return self.counters.unauthenticated =
                    self.counters.unauthenticated.wrapping_add(1)
            }
        }
        if let Some(previous) = self.last_rx_seq {
            let gap = frame.seq.wrapping_sub(previous).wrapping_sub(1);
            if gap < 0x8000 {
                self.counters.lost = self.counters.lost.wrapping_add(u32::from(gap));
            }
        }
        self.last_rx_seq = Some(frame.seq);
        match Message::decode(frame.msg, frame.payload) {
            Ok(m) => self.handle(m, frame.seq, reply),
            Err(_) => self.counters.bad = self.counters.bad.wrapping_add(1),
        }
    }

    fn handle(&mut self, m: Message<'_>, seq: u16, reply: &mut dyn FnMut(&[u8])) {
        let ack_code = match m {
            Message::Hello { .. } => {
                self.set_challenge();
                self.send_identity(reply);
                return;
            }
            Message::StatusRequest => {
                self.send_status(reply);
                return;
            }
            Message::List => {
                let mut buf = [0u8; wire::MAX_PAYLOAD];
                let names = StoredNames::pack(self.store.names(), &mut buf);
                self.send(&Message::Stored(names), reply);
                return;
            }
            Message::Answer { challenge } => self.answer(&challenge),
            // A keyed bridge moves nothing for a link that has not answered: a session
            // recorded earlier and played again carries an old answer.
            Message::Frame(_) | Message::UploadKeyframe { .. } if !self.fresh() => {
                self.counters.unauthenticated = self.counters.unauthenticated.wrapping_add(1);
                return;
            }
            Message::StreamStart { .. }
            | Message::Stop
            | Message::Hold
            | Message::UploadBegin { .. }
            | Message::UploadEnd { .. }
            | Message::Play { .. }
                if !self.fresh() =>
            {
                self.counters.unauthenticated = self.counters.unauthenticated.wrapping_add(1);
                ack::UNANSWERED
            }
            Message::Frame(f) => {
                self.accept_frame(f);
                return;
            }
            Message::UploadKeyframe {
                index,
                frames_before,
                angles,
                body,
            } => {
                self.accept_keyframe(index, frames_before, &angles, body);
                return;
            }
            Message::StreamStart { first_tick, .. } => {
                self.buffer.fill(None);
                self.mode = Mode::Streaming(Stream {
                    anchor: self.now + u64::from(self.config.latency_ticks),
                    first_tick,
                    previous: None,
                    stalled_since: None,
                    position: first_tick,
                });
                ack::OK
            }
            Message::Stop => {
                self.stop();
                ack::OK
            }
            Message::Hold => {
                if !matches!(self.mode, Mode::Relaxed) {
                    self.mode = Mode::Holding;
                }
                ack::OK
            }
            Message::UploadBegin {
                name,
                keyframes,
                joints,
            } => self.begin_upload(name, keyframes, joints),
            Message::UploadEnd { keyframes } => self.end_upload(keyframes),
            Message::Play { name, loops } => self.play(name, loops),
            // Bridge-to-host messages have no business arriving here.
            Message::Identity(_)
            | Message::JointInfo(_)
            | Message::Status(_)
            | Message::Ack { .. }
            | Message::Stored(_) => ack::UNSUPPORTED,
        };
        self.send(
            &Message::Ack {
                msg: m.id(),
                seq,
                code: ack_code,
            },
            reply,
        );
    }

    /// A new challenge for the link that just said hello; until it is answered, the
    /// link commands nothing.
    fn set_challenge(&mut self) {
        self.answered = false;
        if let Some(key) = &self.config.key {
            self.challenge = key.challenge(&self.config.entropy, self.challenges);
            self.challenges = self.challenges.wrapping_add(1);
        }
    }

    fn answer(&mut self, challenge: &[u8; CHALLENGE_LEN]) -> u8 {
        if self.config.key.is_none() {
            return ack::OK;
        }
        if self.challenges > 0 && *challenge == self.challenge {
            self.answered = true;
            ack::OK
        } else {
            self.counters.replayed = self.counters.replayed.wrapping_add(1);
            ack::STALE
        }
    }

    fn stop(&mut self) {
        self.mode = match self.mode {
            Mode::Relaxed => Mode::Relaxed,
            Mode::Ramping => Mode::Ramping,
            _ => Mode::Stopping { since: self.now },
        };
    }

    fn accept_frame(&mut self, f: StreamFrame) {
        let joints = self.applied.len();
        let Mode::Streaming(stream) = &self.mode else {
            return self.counters.dropped = self.counters.dropped.wrapping_add(1);
        };
        let offset = f.tick.wrapping_sub(stream.first_tick);
        let due = stream.anchor + u64::from(offset);
        let window = 2 * u64::from(self.config.buffer_frames);
        if f.pose.len() != joints || offset % 2 != 0 || offset >= 0x8000_0000 {
            self.counters.dropped = self.counters.dropped.wrapping_add(1);
        } else if due < self.now {
            self.counters.late = self.counters.late.wrapping_add(1);
        } else if due >= self.now + window {
            self.counters.dropped = self.counters.dropped.wrapping_add(1);
        } else {
            let slot = (offset / 2) as usize % usize::from(self.config.buffer_frames);
            self.buffer[slot] = Some(f);
        }
    }

    /// One 8 ms servo frame. State changes are reported to the host through `reply`.
    pub fn tick(&mut self, reply: &mut dyn FnMut(&[u8])) -> Output<'_> {
        let t = self.now;
        self.now += 1;
        // A stream or a stored motion says its own attitude; anything else that moves
        // the servos means none.
        let says_body = matches!(self.mode, Mode::Streaming(_) | Mode::Playing(_));
        let kind = match self.mode {
            Mode::Relaxed => OutputKind::Relaxed,
            Mode::Holding => OutputKind::Held,
            Mode::Streaming(_) => self.stream_step(t),
            Mode::Playing(_) => self.play_step(),
            Mode::Stopping { since } => {
                if t.saturating_sub(since) >= u64::from(self.config.hold_ticks) {
                    self.mode = Mode::Ramping;
                }
                OutputKind::Held
            }
            Mode::Ramping => self.ramp_step(),
        };
        if self.state() != self.reported {
            self.reported = self.state();
            self.send_status(reply);
        }
        if !matches!(kind, OutputKind::Held) && !says_body {
            self.body = None;
        }
        Output {
            tick: t,
            kind,
            pose: self.applied.as_slice(),
            body: self.body,
        }
    }

    fn stream_step(&mut self, t: u64) -> OutputKind {
        let Mode::Streaming(stream) = &mut self.mode else {
            return OutputKind::Held;
        };
        if t < stream.anchor {
            return OutputKind::Held;
        }
        let offset = (t - stream.anchor) as u32;
        let tick = stream.first_tick.wrapping_add(offset);
        let frames = usize::from(self.config.buffer_frames);
        let slot_of = |offset: u32| (offset / 2) as usize % frames;
        let mut ended = false;
        let target = if offset % 2 == 0 {
            let slot = slot_of(offset);
            match self.buffer[slot] {
                Some(f) if f.tick == tick => {
                    self.buffer[slot] = None;
                    stream.previous = Some(f);
                    // A last frame with a middle ends after its middle.
                    ended = f.last && f.middle.is_none();
                    Some((f.pose, f.body))
                }
                _ => None,
            }
        } else {
            match stream.previous {
                Some(p) if p.tick == tick.wrapping_sub(1) => {
                    ended = p.last;
                    // The middle pose is meant at the frame's attitude (8 ms on).
                    p.middle
                        .or_else(|| {
                            let next = self.buffer[slot_of(offset + 1)]
                                .filter(|n| n.tick == tick.wrapping_add(1))?;
                            let mut mid = p.pose;
                            for (m, &v1) in mid.as_mut_slice().iter_mut().zip(next.pose.as_slice())
                            {
                                *m = sony::interpolate(*m, v1, 1, sony::in_between_frames(0));
                            }
                            Some(mid)
                        })
                        .map(|m| (m, p.body))
                }
                _ => None,
            }
        };
        let Some((target, body)) = target else {
            // Nothing to play: hold, and after the hold time hand over to the watchdog.
            let since = *stream.stalled_since.get_or_insert(t);
            if t - since >= u64::from(self.config.hold_ticks) {
                self.mode = Mode::Ramping;
            }
            return OutputKind::Held;
        };
        stream.stalled_since = None;
        stream.position = tick;
        if ended {
            self.mode = Mode::Holding;
        }
        self.apply(target.as_slice());
        self.body = body;
        self.counters.played = self.counters.played.wrapping_add(1);
        OutputKind::Played
    }

    fn play_step(&mut self) -> OutputKind {
        let Mode::Playing(p) = &mut self.mode else {
            return OutputKind::Held;
        };
        let joints = self.applied.len();
        let Some((rows, says_body)) = self.store.get(p.slot).map(|m| (&m.rows, m.body)) else {
            self.mode = Mode::Holding;
            return OutputKind::Held;
        };
        let width = 1 + joints + if says_body { 2 } else { 0 };
        let row = |k: usize| rows.get(k * width..(k + 1) * width);
        // A row's attitude, where the motion says it.
        let body_of = |r: &[i32]| says_body.then(|| [r[1 + joints], r[2 + joints]]);
        if p.ramping_in {
            let Some(first) = row(0).and_then(|r| Angles::from_slice(&r[1..1 + joints])) else {
                self.mode = Mode::Holding;
                return OutputKind::Held;
            };
            if !self.within_a_step(first.as_slice()) {
                self.ramp_toward(first.as_slice());
                // The ramp moves the servos: the pose on the way means no attitude the
                // motion gives (a sit rising to a stand is not yet level).
                self.body = None;
                return OutputKind::Ramped;
            }
            let Mode::Playing(p) = &mut self.mode else {
                return OutputKind::Held;
            };
            p.ramping_in = false;
            return self.play_step();
        }
        let mut target = self.applied;
        match (row(p.segment), row(p.segment + 1)) {
            (Some(from), Some(to)) => {
                let n8 = sony::in_between_frames(to[0].clamp(0, i32::from(u16::MAX)) as u32);
                let at = |v0: i32, v1: i32| sony::interpolate(v0, v1, p.step, n8);
                for (v, (&v0, &v1)) in target
                    .as_mut_slice()
                    .iter_mut()
                    .zip(from[1..].iter().zip(&to[1..]))
                {
                    *v = at(v0, v1);
                }
                self.body = body_of(from)
                    .zip(body_of(to))
                    .map(|([r0, p0], [r1, p1])| [at(r0, r1), at(p0, p1)]);
                if p.step >= n8 {
                    p.segment += 1;
                    p.step = 0;
                } else {
                    p.step += 1;
                }
            }
            (Some(last), None) => {
                target.as_mut_slice().copy_from_slice(&last[1..1 + joints]);
                self.body = body_of(last);
                if p.loops_left > 1 {
                    // The next pass starts where the first did: a motion that ends
                    // elsewhere is eased back, not jumped.
                    p.loops_left -= 1;
                    p.segment = 0;
                    p.step = 0;
                    p.ramping_in = true;
                } else {
                    self.mode = Mode::Holding;
                }
            }
            _ => {
                self.mode = Mode::Holding;
                return OutputKind::Held;
            }
        }
        if let Mode::Playing(p) = &mut self.mode {
            p.position = p.position.wrapping_add(1);
        }
        self.apply(target.as_slice());
        self.counters.played = self.counters.played.wrapping_add(1);
        OutputKind::Played
    }

    /// How far a joint moves in one tick of a ramp: 1/`ramp_divisor` of its top speed.
    fn ramp_speed(&self, joint: &JointSpec) -> i64 {
        i64::from(joint.max_step / self.config.ramp_divisor).max(1)
    }

    /// Whether every joint is within one ramp step of `goal`, or of as near as the guard
    /// lets it go (a binary output, or a joint without a speed limit, always is).
    fn within_a_step(&self, goal: &[i32]) -> bool {
        self.applied
            .as_slice()
            .iter()
            .zip(goal)
            .zip(self.model.joints)
            .all(|((&a, &g), joint)| {
                let reachable = i64::from(g).clamp(
                    i64::from(joint.min) - i64::from(LIMIT_SLACK_URAD),
                    i64::from(joint.max) + i64::from(LIMIT_SLACK_URAD),
                );
                joint.binary
                    || joint.max_step == 0
                    || (i64::from(a) - reachable).abs() <= self.ramp_speed(joint)
            })
    }

    /// The pose one ramp step from `applied` toward `goal` (a binary output, or a joint
    /// without a speed limit, goes at once).
    fn ramp_target(&self, goal: &[i32]) -> Angles {
        let mut target = self.applied;
        for ((t, &g), joint) in target
            .as_mut_slice()
            .iter_mut()
            .zip(goal)
            .zip(self.model.joints)
        {
            let d = i64::from(g) - i64::from(*t);
            let step = if joint.max_step == 0 || joint.binary {
                d
            } else {
                let speed = self.ramp_speed(joint);
                d.clamp(-speed, speed)
            };
            *t = (i64::from(*t) + step) as i32;
        }
        target
    }

    /// One ramp step toward `goal`, through the guard (a stored motion's way in: its
    /// first keyframe may lie past a limit).
    fn ramp_toward(&mut self, goal: &[i32]) {
        let target = self.ramp_target(goal);
        self.apply(target.as_slice());
    }

    fn ramp_step(&mut self) -> OutputKind {
        let Some(rest) = self.model.rest_posture() else {
            self.mode = Mode::Relaxed;
            return OutputKind::Held;
        };
        // The rest posture is within every limit: no guard on the way.
        self.applied = self.ramp_target(rest.angles);
        if self.applied.as_slice() == rest.angles {
            self.mode = Mode::Relaxed;
        }
        OutputKind::Ramped
    }

    /// The guard: `target` reaches the servos only within limits and speeds.
    fn apply(&mut self, target: &[i32]) {
        let mut changed = false;
        for ((a, &want), joint) in self
            .applied
            .as_mut_slice()
            .iter_mut()
            .zip(target)
            .zip(self.model.joints)
        {
            let mut v = if joint.binary {
                // A binary output takes its legal values only: no slack, no speed.
                joint.legal_value(i64::from(want))
            } else {
                i64::from(want).clamp(
                    i64::from(joint.min) - i64::from(LIMIT_SLACK_URAD),
                    i64::from(joint.max) + i64::from(LIMIT_SLACK_URAD),
                )
            };
            if joint.max_step > 0 {
                let limit = i64::from(joint.max_step) + i64::from(STEP_SLACK_URAD);
                v = i64::from(*a) + (v - i64::from(*a)).clamp(-limit, limit);
            }
            let v = v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
            changed |= v != want;
            *a = v;
        }
        if changed {
            self.counters.guarded = self.counters.guarded.wrapping_add(1);
        }
    }

    fn begin_upload(&mut self, name: &[u8], keyframes: u16, joints: u8) -> u8 {
        let robot_joints = self.applied.len();
        let most = self.config.max_keyframes;
        self.store
            .begin(name, keyframes, usize::from(joints), robot_joints, most)
    }

    fn accept_keyframe(
        &mut self,
        index: u16,
        frames_before: u16,
        angles: &Angles,
        body: Option<[i32; 2]>,
    ) {
        if !self.store.accept(index, frames_before, angles, body) {
            self.counters.dropped = self.counters.dropped.wrapping_add(1);
        }
    }

    fn end_upload(&mut self, keyframes: u16) -> u8 {
        let playing = match &self.mode {
            Mode::Playing(p) => Some(p.slot),
            _ => None,
        };
        let slots = usize::from(self.config.motion_slots);
        match self.store.finish(keyframes, slots, playing) {
            Ok(slot) => {
                // The motion playing was replaced under its own name: hold, do not
                // play on into the new one.
                if playing == Some(slot) {
                    self.mode = Mode::Holding;
                }
                ack::OK
            }
            Err(code) => code,
        }
    }

    fn play(&mut self, name: &[u8], loops: u16) -> u8 {
        match self.store.find(name) {
            Some(slot) => {
                self.mode = Mode::Playing(Playback {
                    slot,
                    ramping_in: true,
                    loops_left: loops.max(1),
                    segment: 0,
                    step: 0,
                    position: 0,
                });
                ack::OK
            }
            None => ack::UNKNOWN_MOTION,
        }
    }

    /// The status message as the bridge would send it now.
    pub fn status(&self) -> Status {
        let position = match &self.mode {
            Mode::Streaming(s) => s.position,
            Mode::Playing(p) => p.position,
            _ => 0,
        };
        Status {
            state: self.state() as u8,
            tick: self.now as u32,
            position,
            buffered: self.buffer.iter().flatten().count() as u8,
            counters: self.counters,
            applied: self.applied,
        }
    }

    fn send_status(&mut self, reply: &mut dyn FnMut(&[u8])) {
        let status = self.status();
        self.send(&Message::Status(status), reply);
    }

    fn send_identity(&mut self, reply: &mut dyn FnMut(&[u8])) {
        let model = self.model;
        let identity = Identity {
            protocol: PROTOCOL_VERSION,
            model: model.name.as_bytes(),
            design_label: model.design_label.as_bytes(),
            joints: self.applied.len() as u8,
            buffer_frames: self.config.buffer_frames,
            latency_ticks: self.config.latency_ticks,
            motion_slots: self.config.motion_slots,
            max_keyframes: self.config.max_keyframes,
            signing: self.config.key.is_some(),
            challenge: self.challenge,
        };
        self.send(&Message::Identity(identity), reply);
        for (i, j) in model.joints.iter().enumerate().take(MAX_JOINTS) {
            let info = JointInfo {
                index: i as u8,
                min: j.min,
                max: j.max,
                max_step: j.max_step,
                binary: j.binary,
                name: j.name.as_bytes(),
                locator: j.locator.as_bytes(),
            };
            self.send(&Message::JointInfo(info), reply);
        }
    }

    fn send(&mut self, m: &Message<'_>, reply: &mut dyn FnMut(&[u8])) {
        let Scratch { payload, out } = &mut *self.scratch;
        let n = m.encode(payload);
        self.tx_seq = self.tx_seq.wrapping_add(1);
        // A bridge has no wall clock: its timestamps follow the host's (as MAVLink's do).
        self.tx_timestamp = (self.tx_timestamp + 1).max(self.replay.newest());
        let signing = self.config.key.as_ref().map(|key| Signing {
            key,
            link: self.config.link,
            timestamp: self.tx_timestamp,
        });
        if let Some(len) = wire::encode_frame(self.tx_seq, m.id(), &payload[..n], signing, out) {
            reply(&out[..len]);
        }
    }
}
