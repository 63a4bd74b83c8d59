//! Playing a motion on a bridge: streaming 16 ms frames against absolute deadlines, or
//! uploading keyframes for the bridge to play on its own clock (`upload.rs`).
//!
//! Pacing runs on a dedicated thread that sleeps to 1 ms before each deadline and spins
//! the rest (tokio's timers are millisecond-grained and round up: measured p99 lateness
//! 3–6 ms; sleep-then-spin gives well under 1 ms). Deadlines are `due₀ + k × 16 ms −
//! ahead`, never "16 ms after the last", so the schedule cannot drift. Each frame leaves
//! `ahead` (three quarters of the bridge's jitter buffer: 192 ms for the simulated
//! server's 16 frames, 384 ms for the robot's 32) before the robot applies it, so a host
//! the machine's load or a Wi-Fi stall holds up for less than that loses nothing, and the
//! last quarter takes frames that arrive early; a frame whose moment has passed at the
//! robot is skipped, never sent late.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use firmware_bridge::message::{ack, Angles, Message, Status, StreamFrame};
use firmware_bridge::{Counters, Key, State, DEFAULT_RAMP_DIVISOR};
use tokio::sync::mpsc;

use super::client::{ack_text, BridgeInfo, BridgeJoint, Client, Reply};
use super::transport::Endpoint;
use super::upload::{play_stored, upload_motion};
use super::LinkError;
use crate::mtn::{self, Motion};

/// One stream frame covers two 8 ms servo frames.
pub const FRAME_PERIOD: Duration = Duration::from_millis(16);

/// How the motion gets to the bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The host sends each 16 ms frame on time.
    Stream,
    /// The whole motion goes first; the bridge plays it on its own clock.
    Upload,
}

#[derive(Debug, Clone)]
pub struct PlayOptions {
    pub endpoint: Endpoint,
    pub key: Option<Key>,
    pub mode: Mode,
    pub loops: u16,
    /// Play even when the motion is for another model than the bridge's.
    pub force: bool,
    /// The name the motion is stored under on the bridge (upload mode).
    pub name: String,
    /// How long a dropped link is retried before the motion is abandoned.
    pub retry_for: Duration,
    pub connect_timeout: Duration,
    /// Set from outside to stop the motion.
    pub interrupt: Arc<AtomicBool>,
    /// Ctrl-C sets `interrupt` (for the command line; tests leave SIGINT alone).
    pub catch_ctrl_c: bool,
    /// Asked, before anything moves, of the way in from where the robot stands to the
    /// motion's first pose and, looped, of the way back between passes (streamed or
    /// stored and played); none: not asked.
    pub way_in_check: Option<WayInCheck>,
}

/// What a play asks of its ways in before anything moves: given one as a motion (the
/// straight line the bridge is eased along, see `LeadIn`) and which it is, `Err(why)`
/// stops the play there, the robot untouched (`play`'s gate: it tests the ways in for
/// balance as it tests the motion).
#[derive(Clone)]
pub struct WayInCheck(pub Arc<WayInJudge>);

/// The judge a [`WayInCheck`] holds: a way in as a motion, `Err(why)` to stop.
pub type WayInJudge = dyn Fn(&Motion, WayIn) -> Result<(), String> + Send + Sync;

/// Which way into a motion a [`WayInCheck`] is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WayIn {
    /// From where the robot stands (its pose as the bridge reports it) to the first pose.
    FromWhereItStands,
    /// Between the passes of a looped motion: from its last pose back to its first.
    BetweenLoops,
}

impl std::fmt::Debug for WayInCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WayInCheck")
    }
}

impl PlayOptions {
    pub fn new(endpoint: Endpoint) -> PlayOptions {
        PlayOptions {
            endpoint,
            key: None,
            mode: Mode::Stream,
            loops: 1,
            force: false,
            name: "motion".into(),
            retry_for: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(2),
            interrupt: Arc::new(AtomicBool::new(false)),
            catch_ctrl_c: false,
            way_in_check: None,
        }
    }
}

/// How a play ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every frame was sent (stream) or played (upload). Whether the robot played them
    /// all is [`PlayReport::shortfall`]'s question.
    Completed,
    /// Stopped on request: the bridge holds, then goes to its rest posture.
    Interrupted,
    /// The robot gave up mid-stream (its watchdog took it to rest), so the host stopped
    /// sending: frames to a resting robot are dropped.
    RobotGaveUp,
    /// The robot stopped answering mid-play though the link stayed up (another host took
    /// it over, say: `aibo-joint-server` listens to its newest link only), so the host
    /// stopped sending, or stopped waiting for a stored motion's end:
    /// [`PlayReport::went_silent`] says when.
    RobotSilent,
}

/// A robot that has answered none of the host's status requests (sent every 100 ms) for
/// this long, mid-play, has stopped listening to this link.
pub(super) const SILENT_FOR: Duration = Duration::from_secs(3);

/// The share of a motion's 8 ms frames a robot may leave unplayed (skipped on a late
/// host, lost on the line) before a play counts as not played as sent.
pub const UNPLAYED_SHARE_ALLOWED: f64 = 0.01;

/// What happened, for `--stats` and the tests.
#[derive(Debug, Clone)]
pub struct PlayReport {
    pub ending: Ending,
    pub bridge: Option<BridgeInfo>,
    /// 16 ms frames in the whole play (all loops).
    pub frames: u64,
    pub frames_sent: u64,
    /// Frames not sent because the host was late or the link was down.
    pub frames_skipped: u64,
    /// For each frame sent, how long after its deadline it was handed to the link, µs.
    pub lateness_us: Vec<u64>,
    pub reconnects: u32,
    /// The bridge's last status.
    pub status: Option<Status>,
    /// The bridge's counters just before the motion started, against which the last
    /// status's counters tell what this play did.
    pub counters_before: Option<Counters>,
    /// 8 ms frames of the whole play (all loops): what the robot should play. 0 when
    /// only the robot knows (a stored motion played by name).
    pub expected_ticks: u64,
    /// Times the robot reported a stall (frames stopped coming) mid-motion.
    pub stalls: u32,
    /// When the robot gave up: the state it reported, and the 16 ms frame the host
    /// was at.
    pub gave_up: Option<(State, u64)>,
    /// The 16 ms frame the host was at (streamed) or the robot last said it was at
    /// (stored) when the robot had answered nothing for `SILENT_FOR` (3 s).
    pub went_silent: Option<u64>,
    /// 8 ms ticks of the way in from where the robot was to the motion's first pose
    /// (streamed before it, and counted in `expected_ticks`).
    pub lead_in_ticks: u64,
}

impl PlayReport {
    pub(super) fn new(bridge: BridgeInfo, frames: u64, expected_ticks: u64) -> PlayReport {
        PlayReport {
            ending: Ending::Completed,
            bridge: Some(bridge),
            frames,
            frames_sent: 0,
            frames_skipped: 0,
            lateness_us: Vec::new(),
            reconnects: 0,
            status: None,
            counters_before: None,
            expected_ticks,
            stalls: 0,
            gave_up: None,
            went_silent: None,
            lead_in_ticks: 0,
        }
    }

    /// What the bridge counted during this play (`None` without a status before and
    /// after, or when the counters went back: a bridge that restarted).
    pub fn counted(&self) -> Option<Counters> {
        let (before, after) = (self.counters_before?, self.status?.counters);
        let d = |a: u32, b: u32| a.checked_sub(b);
        Some(Counters {
            bad: d(after.bad, before.bad)?,
            unauthenticated: d(after.unauthenticated, before.unauthenticated)?,
            replayed: d(after.replayed, before.replayed)?,
            lost: d(after.lost, before.lost)?,
            late: d(after.late, before.late)?,
            dropped: d(after.dropped, before.dropped)?,
            guarded: d(after.guarded, before.guarded)?,
            played: d(after.played, before.played)?,
        })
    }

    /// How much of the motion the robot played, by its own count, and what went wrong on
    /// the way as the bridge and the host counted it.
    fn how_much_played(&self) -> String {
        let counted = self.counted();
        let played = counted.map(|c| u64::from(c.played));
        let expected = self.expected_ticks;
        let mut troubles: Vec<String> = counted.map_or(Vec::new(), |c| {
            c.named()
                .iter()
                .filter(|(name, v)| *v > 0 && !matches!(*name, "played" | "guarded"))
                .map(|(name, v)| format!("{name} {v}"))
                .collect()
        });
        if self.stalls > 0 {
            troubles.push(format!("stalls {}", self.stalls));
        }
        if self.frames_skipped > 0 {
            troubles.push(format!("skipped by the host {}", self.frames_skipped));
        }
        let troubles: String = troubles.iter().map(|t| format!("; {t}")).collect();
        match played {
            // The bridge's count can run a few frames over the motion's (seen where it
            // had dropped another host's stream for this one): both stop at all of it.
            Some(p) if expected > 0 => format!(
                "it played {:.0}% of the motion ({} of {} frames of 8 ms{troubles})",
                100.0 * p.min(expected) as f64 / expected as f64,
                p.min(expected),
                expected
            ),
            Some(p) => format!("it played {p} frames of 8 ms{troubles}"),
            None => "how much it played is unknown (no status from the robot)".into(),
        }
    }

    /// What a play that went as sent did, as the end of one sentence for people: how
    /// much the robot played by its own count, and that it holds the last pose.
    pub fn played(&self) -> String {
        let holds = match self.status.and_then(|s| State::from_u8(s.state)) {
            Some(State::Holding) => "; it holds the last pose",
            _ => "",
        };
        format!("{}{holds}", self.how_much_played())
    }

    /// Why the robot did not play the motion as sent, as one sentence for people; `None`
    /// when it did (it played all but [`UNPLAYED_SHARE_ALLOWED`] of the 8 ms frames and
    /// did not give up), or when only a stop asked of it cut the motion short.
    pub fn shortfall(&self) -> Option<String> {
        if self.ending == Ending::Interrupted {
            return None;
        }
        let played = self.counted().map(|c| u64::from(c.played));
        let expected = self.expected_ticks;
        let how_much = self.how_much_played();
        if let Some(frame) = self.went_silent {
            // Streamed, the host stopped sending; stored (no frame was sent on a
            // schedule), the robot plays on its own clock and what it did is unknown.
            let so = if self.lateness_us.is_empty() {
                "how it went on is unknown"
            } else {
                "the rest was not sent"
            };
            return Some(format!(
                "the robot did not play the motion as sent: by {:.2} s (frame {frame} of {}) it \
                 had answered nothing for {} s though the link was up, so {so} (has another \
                 host taken it over? aibo-joint-server listens to its newest link only); \
                 {how_much}",
                frame as f64 * FRAME_PERIOD.as_secs_f64(),
                self.frames,
                SILENT_FOR.as_secs()
            ));
        }
        if let Some((state, frame)) = self.gave_up {
            return Some(format!(
                "the robot did not play the motion as sent: frames stopped reaching it, and by \
                 {:.2} s (frame {frame} of {}) it had given up and {}; {how_much}",
                frame as f64 * FRAME_PERIOD.as_secs_f64(),
                self.frames,
                match state {
                    State::Relaxed => "gone limp at its rest posture",
                    _ => "was going to its rest posture",
                }
            ));
        }
        let unplayed = match played {
            Some(p) if expected > 0 => expected.saturating_sub(p) as f64 / expected as f64,
            _ => 0.0,
        };
        if unplayed > UNPLAYED_SHARE_ALLOWED {
            return Some(format!(
                "the robot did not play the motion as sent: {how_much}"
            ));
        }
        // The motion ran, but the robot did not end holding its last pose.
        match self.status.and_then(|s| State::from_u8(s.state)) {
            Some(state @ (State::Relaxed | State::Ramping | State::Stalled | State::Stopping))
                if expected > 0 =>
            {
                Some(format!(
                    "the robot did not end the motion holding its last pose: it is {}; {how_much}",
                    state.name()
                ))
            }
            _ => None,
        }
    }
}

/// Live progress, for a progress line.
#[derive(Debug, Clone)]
pub struct Progress {
    pub frame: u64,
    pub frames: u64,
    pub status: Option<Status>,
    /// "ok", or what is wrong with the link.
    pub link: String,
}

/// The longest way in, 8 ms ticks (10 s).
const LEAD_IN_MAX_TICKS: u64 = 1250;

/// The way in: from where the bridge holds the servos to the motion's first pose, at
/// the bridge's default ramp speed ([`DEFAULT_RAMP_DIVISOR`]: a quarter of each joint's
/// speed, as the watchdog's ramp and a stored motion's way in go), so that a motion
/// starting elsewhere (sitting, for a robot that stands) is not jumped into at full
/// speed. None is needed where every joint is within one such step of it. The body's
/// attitude goes the same way: from what the robot's pose means (its nearest standard
/// posture's pitch, as the static test reads a pose without one) to the motion's first,
/// so that a robot sitting up into a stand is not judged against the stand's level
/// attitude while it still sits.
#[derive(Debug, Clone, PartialEq)]
struct LeadIn {
    from: Vec<i32>,
    to: Vec<i32>,
    /// The body's roll and pitch where the way in starts and ends, µrad.
    from_body: [i32; 2],
    to_body: [i32; 2],
    /// 8 ms ticks of the way in, before the motion's first.
    ticks: u64,
}

impl LeadIn {
    /// The way from `applied` (the bridge's pose) into `motion` for `joints`, the body
    /// starting from `body` (roll and pitch, µrad; none: what the pose means, as
    /// [`meant_by`] reads it); `None` where none is needed.
    fn of(
        applied: &[i32],
        body: Option<[i32; 2]>,
        motion: &Motion,
        joints: &[BridgeJoint],
    ) -> Option<LeadIn> {
        let first = mtn::dense_frame_at(motion, 0)?;
        if applied.len() != first.joints.len() || joints.len() != applied.len() {
            return None;
        }
        // Where the servos can be: a pose past a limit (a confused bridge) counts from
        // the limit.
        let from: Vec<i32> = applied
            .iter()
            .zip(joints)
            .map(|(&a, j)| {
                if j.binary {
                    a
                } else {
                    a.clamp(j.min.min(j.max), j.max)
                }
            })
            .collect();
        let mut ticks = 0u64;
        for ((&a, &b), joint) in from.iter().zip(&first.joints).zip(joints) {
            if joint.binary || joint.max_step == 0 {
                continue;
            }
            let d = u64::from(a.abs_diff(b));
            let step = u64::from(joint.max_step / DEFAULT_RAMP_DIVISOR).max(1);
            if d > step {
                ticks = ticks.max(d.div_ceil(step));
            }
        }
        let to_body = [first.body[0], first.body[1]];
        (ticks > 0).then(|| LeadIn {
            from_body: body.or_else(|| meant_by(&from, motion)).unwrap_or(to_body),
            from,
            to: first.joints.clone(),
            to_body,
            // However slow a bridge says its joints are, the way in ends (the guard
            // holds each step to the joint's speed regardless).
            ticks: ticks.min(LEAD_IN_MAX_TICKS),
        })
    }

    /// Between the passes of a looped `motion`: from its last pose and attitude back to
    /// its first; `None` where it ends within a step of where it starts.
    fn seam(motion: &Motion, joints: &[BridgeJoint]) -> Option<LeadIn> {
        let count = mtn::dense_frame_count(motion);
        let last = mtn::dense_frame_at(motion, count.checked_sub(1)?)?;
        LeadIn::of(
            &last.joints,
            Some([last.body[0], last.body[1]]),
            motion,
            joints,
        )
    }

    /// The share of the way at tick `i` of it (`i` < `ticks`): `(i + 1) / (ticks + 1)`,
    /// so that the motion's first pose is the next step.
    fn share(&self, i: u64) -> f64 {
        (i + 1) as f64 / (self.ticks + 1) as f64
    }

    /// The pose and body attitude at tick `i` of the way in (`i` < `ticks`); a binary
    /// output keeps its state until the motion changes it.
    fn pose(&self, i: u64, joints: &[BridgeJoint]) -> (Vec<i32>, [i32; 2]) {
        let share = self.share(i);
        let between =
            |a: i32, b: i32| (f64::from(a) + share * (f64::from(b) - f64::from(a))).round() as i32;
        let pose = self
            .from
            .iter()
            .zip(&self.to)
            .zip(joints)
            .map(|((&a, &b), joint)| if joint.binary { a } else { between(a, b) })
            .collect();
        (
            pose,
            [0, 1].map(|k| between(self.from_body[k], self.to_body[k])),
        )
    }

    /// The way in as a motion of `motion`'s layout: from where the robot stands to the
    /// first pose, along the same straight line over the same time (to the 16 ms of a
    /// keyframe), for the gate's judges.
    fn as_motion(&self, motion: &Motion) -> Motion {
        let yaw = motion.keyframes.first().map_or(0, |k| k.yaw);
        let keyframe = |frames_before: u32, joints: &[i32], body: [i32; 2]| mtn::Keyframe {
            frames_before,
            roll: body[0],
            pitch: body[1],
            yaw,
            joints: joints.to_vec(),
        };
        // The stream's line spans ticks + 1 steps of 8 ms; a keyframe comes
        // (frames_before + 1) × 16 ms after the last.
        let frames =
            u32::try_from((self.ticks + 1).div_ceil(2).saturating_sub(1)).unwrap_or(u32::MAX);
        Motion {
            keyframes: vec![
                keyframe(0, &self.from, self.from_body),
                keyframe(frames, &self.to, self.to_body),
            ],
            ..motion.clone()
        }
    }
}

/// The body's roll and pitch (µrad) that `pose` (µrad, in `motion`'s columns) means
/// without an attitude: level, pitched as its nearest standard posture (as the static
/// test and the joint server read such a pose); `None` for a model without a profile.
fn meant_by(pose: &[i32], motion: &Motion) -> Option<[i32; 2]> {
    use crate::stability::{body::Body, Columns};
    let profile = crate::robot::profile::Profile::for_design_label(&motion.design_label)?;
    let body = Body::of(&profile).ok()?;
    let frame = mtn::DenseFrame {
        index: 0,
        body: [0; 3],
        joints: pose.to_vec(),
    };
    let angles = Columns::of(motion, &profile).angles(&profile, &frame);
    let pitch = body.nearest_posture(&angles).pitch;
    Some([0, (pitch * 1e6).round() as i32])
}

/// What a stream plays: the way in (if any), then `loops` passes over the motion
/// (`pass` 8 ms frames each), each after the first behind the way back to its start
/// (where the motion ends elsewhere).
struct Played<'a> {
    motion: &'a Motion,
    pass: u64,
    loops: u64,
    lead: Option<&'a LeadIn>,
    /// The way back to the first pose before each pass after the first.
    seam: Option<&'a LeadIn>,
    joints: &'a [BridgeJoint],
    /// Send the body attitude (a bridge of protocol 2 or later).
    body: bool,
}

impl Played<'_> {
    /// 8 ms ticks in all.
    fn ticks(&self) -> u64 {
        let seam = self.seam.map_or(0, |s| s.ticks);
        self.lead
            .map_or(0, |l| l.ticks)
            .saturating_add(self.pass.saturating_mul(self.loops))
            .saturating_add(seam.saturating_mul(self.loops.saturating_sub(1)))
    }

    /// The pose and body attitude of tick `i`.
    fn tick(&self, i: u64) -> Option<(Vec<i32>, [i32; 2])> {
        if i >= self.ticks() {
            return None;
        }
        let lead = self.lead.map_or(0, |l| l.ticks);
        if let Some(l) = self.lead.filter(|_| i < lead) {
            return Some(l.pose(i, self.joints));
        }
        // The first pass, then each later one after the way back to its start.
        let mut k = i - lead;
        if k >= self.pass {
            let seam = self.seam.map_or(0, |s| s.ticks);
            let into = (k - self.pass) % (seam + self.pass);
            if let Some(s) = self.seam.filter(|_| into < seam) {
                return Some(s.pose(into, self.joints));
            }
            k = into - seam;
        }
        let f = mtn::dense_frame_at(self.motion, k)?;
        Some((f.joints, [f.body[0], f.body[1]]))
    }

    /// Stream frame `k`: the pose at tick 2k and, when there is one, at 2k + 1, with
    /// the body's roll and pitch at 2k for a bridge that takes them. Frames are computed
    /// one by one, never the whole motion at once.
    fn frame(&self, k: u64) -> Option<StreamFrame> {
        let (pose, body) = self.tick(2 * k)?;
        let middle = self
            .tick(2 * k + 1)
            .and_then(|(p, _)| Angles::from_slice(&p));
        Some(StreamFrame {
            tick: (2 * k) as u32,
            last: 2 * k + 2 >= self.ticks(),
            pose: Angles::from_slice(&pose)?,
            middle,
            body: self.body.then_some(body),
        })
    }
}

/// Plays `motion` on the bridge at `opts.endpoint`.
pub fn play(
    motion: &Motion,
    opts: &PlayOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PlayReport, LinkError> {
    session(opts, Some(motion), true, |mut client, info| async move {
        match opts.mode {
            Mode::Stream => stream(motion, opts, client, info, progress).await,
            Mode::Upload => {
                // The bridge eases into a stored motion as a stream is eased into.
                way_in(&mut client, motion, opts, &info).await?;
                upload_motion(&mut client, motion, &opts.name, &info).await?;
                let frames = mtn::dense_frame_count(motion);
                play_stored(&mut client, frames, opts, info, progress).await
            }
        }
    })
}

/// The prelude of every exchange with a bridge: a runtime, Ctrl-C watched if `watch`
/// (it then interrupts rather than kills), the link open and the bridge known, and a
/// `motion` (if any) checked against its model; then `body`.
pub(super) fn session<T, F, Fut>(
    opts: &PlayOptions,
    motion: Option<&Motion>,
    watch: bool,
    body: F,
) -> Result<T, LinkError>
where
    F: FnOnce(Client, BridgeInfo) -> Fut,
    Fut: std::future::Future<Output = Result<T, LinkError>>,
{
    runtime()?.block_on(async {
        if watch {
            watch_ctrl_c(opts);
        }
        let (client, info) = open(opts).await?;
        if let Some(motion) = motion {
            check_model(motion, &info, opts.force)?;
        }
        body(client, info).await
    })
}

fn watch_ctrl_c(opts: &PlayOptions) {
    if opts.catch_ctrl_c {
        let flag = opts.interrupt.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                flag.store(true, Ordering::Relaxed);
            }
        });
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, LinkError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LinkError::Connect {
            endpoint: "tokio runtime".into(),
            reason: e.to_string(),
        })
}

/// Connects and learns who is at the other end.
async fn open(opts: &PlayOptions) -> Result<(Client, BridgeInfo), LinkError> {
    let mut client =
        Client::connect(&opts.endpoint, opts.key.clone(), opts.connect_timeout).await?;
    let info = client.handshake(opts.connect_timeout).await?;
    Ok((client, info))
}

/// Refuses a motion for another model (unless forced) and always one of another size.
fn check_model(motion: &Motion, info: &BridgeInfo, force: bool) -> Result<(), LinkError> {
    let joints = motion.keyframes.first().map_or(0, |k| k.joints.len());
    if !motion.keyframes.is_empty() && joints != info.joints.len() {
        return Err(LinkError::Mismatch(format!(
            "the motion has {joints} joints and the robot ({}) has {}: convert it with `aibo-motion convert FILE --to {}`",
            info.model,
            info.joints.len(),
            info.model
        )));
    }
    if !motion.design_label.eq_ignore_ascii_case(&info.design_label) && !force {
        return Err(LinkError::Mismatch(format!(
            "the motion is for {} and the robot is an {} ({}): convert it with `aibo-motion convert FILE --to {}`, or play it anyway with --force",
            motion.design_label, info.model, info.design_label, info.model
        )));
    }
    Ok(())
}

/// When each stream frame is due at the robot, as the host reckons it: frame `first`
/// at `due`, each next one 16 ms later.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    first: u64,
    due: Instant,
    /// When the stream started: the first frames are sent from then on.
    started: Instant,
    /// How long before its due time a frame is sent.
    ahead: Duration,
}

impl Schedule {
    /// The schedule of a stream the bridge has just acknowledged: it applies the first
    /// frame `latency_ticks` after the start arrived, and buffers `buffer_frames`.
    fn started(first: u64, info: &BridgeInfo) -> Schedule {
        let latency = Duration::from_millis(8 * u64::from(info.latency_ticks));
        let buffer = FRAME_PERIOD * u32::from(info.buffer_frames.max(1));
        let now = Instant::now();
        Schedule {
            first,
            due: now + latency,
            started: now,
            ahead: buffer * 3 / 4,
        }
    }

    fn due(&self, k: u64) -> Instant {
        self.due + FRAME_PERIOD * k.saturating_sub(self.first) as u32
    }

    fn send_at(&self, k: u64) -> Instant {
        let at = self.due(k).checked_sub(self.ahead).unwrap_or(self.started);
        at.max(self.started)
    }

    /// The first frame from `k` on that can still reach the robot in time.
    fn first_useful(&self, k: u64, now: Instant) -> u64 {
        // A frame needs a little time on the line; one due sooner is skipped.
        let reach = now + Duration::from_millis(4);
        match reach.checked_duration_since(self.due) {
            Some(past) => {
                k.max(self.first + (past.as_micros() / FRAME_PERIOD.as_micros()) as u64 + 1)
            }
            None => k,
        }
    }
}

/// The pacing thread: hands over `(k, deadline)` at each frame's sending time, skipping
/// the frames that could no longer reach the robot in time. Ends after `frames` or when
/// the receiver goes.
fn spawn_pacer(schedule: Schedule, frames: u64) -> mpsc::UnboundedReceiver<(u64, Instant)> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut k = schedule.first;
        while k < frames {
            let deadline = schedule.send_at(k);
            if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
                if let Some(sleep) = wait.checked_sub(Duration::from_millis(1)) {
                    std::thread::sleep(sleep);
                }
                while Instant::now() < deadline {
                    std::hint::spin_loop();
                }
            }
            // Late (a busy machine): send what can still arrive in time, skip the rest.
            k = schedule.first_useful(k, Instant::now());
            if k >= frames {
                return;
            }
            if tx.send((k, schedule.send_at(k))).is_err() {
                return;
            }
            k += 1;
        }
    });
    rx
}

/// Where the bridge holds the servos now, and the way from there into `motion`, asked
/// of `opts.way_in_check` before anything moves.
async fn way_in(
    client: &mut Client,
    motion: &Motion,
    opts: &PlayOptions,
    info: &BridgeInfo,
) -> Result<WaysIn, LinkError> {
    let before = client.status(opts.connect_timeout).await?;
    let lead = before
        .as_ref()
        .and_then(|s| LeadIn::of(s.applied.as_slice(), None, motion, &info.joints));
    let seam = (opts.loops > 1)
        .then(|| LeadIn::seam(motion, &info.joints))
        .flatten();
    if let Some(check) = &opts.way_in_check {
        for (way, kind) in [
            (&lead, WayIn::FromWhereItStands),
            (&seam, WayIn::BetweenLoops),
        ] {
            if let Some(way) = way {
                (check.0)(&way.as_motion(motion), kind).map_err(LinkError::WayIn)?;
            }
        }
    }
    Ok(WaysIn { before, lead, seam })
}

/// Where the bridge held the servos before a play, and the ways into the motion.
struct WaysIn {
    before: Option<Status>,
    lead: Option<LeadIn>,
    seam: Option<LeadIn>,
}

async fn stream(
    motion: &Motion,
    opts: &PlayOptions,
    mut client: Client,
    info: BridgeInfo,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PlayReport, LinkError> {
    let pass = mtn::dense_frame_count(motion);
    let loops = u64::from(opts.loops.max(1));
    if pass == 0 {
        return Ok(PlayReport::new(info.clone(), 0, 0));
    }
    let WaysIn { before, lead, seam } = way_in(&mut client, motion, opts, &info).await?;
    let played = Played {
        motion,
        pass,
        loops,
        lead: lead.as_ref(),
        seam: seam.as_ref(),
        joints: &info.joints,
        // What the file means the body to do goes to a bridge that knows the flag.
        body: info.protocol >= 2,
    };
    let ticks = played.ticks();
    let frames = ticks.div_ceil(2);
    let mut report = PlayReport::new(info.clone(), frames, ticks);
    report.lead_in_ticks = lead.as_ref().map_or(0, |l| l.ticks);
    report.lateness_us.reserve(frames.min(1 << 20) as usize);
    report.counters_before = before.map(|s| s.counters);
    expect_ok(&mut client, &stream_start(0), opts).await?;
    let mut schedule = Schedule::started(0, &info);
    let mut pacer = spawn_pacer(schedule, frames);
    let mut next = 0u64;
    let mut status_poll = tokio::time::interval(Duration::from_millis(100));
    let mut answered = Instant::now();
    while next < frames {
        if opts.interrupt.load(Ordering::Relaxed) {
            return interrupted(client, report, opts).await;
        }
        // In this order: a frame due goes first, and a reply waiting is read before the
        // robot is taken for silent (after a host stalled for seconds, say).
        tokio::select! {
            biased;
            paced = pacer.recv() => {
                let Some((k, deadline)) = paced else { break };
                // The pacer skipped what could not arrive in time; the rest all goes.
                report.frames_skipped += k - next;
                let Some(frame) = played.frame(k) else { break };
                let bytes = client.encode(&Message::Frame(frame));
                let sent = client.send_bytes(bytes);
                report.lateness_us.push(Instant::now().saturating_duration_since(deadline).as_micros() as u64);
                next = k + 1;
                match sent {
                    Ok(()) => report.frames_sent += 1,
                    Err(_) => {
                        (client, schedule, pacer) =
                            resume(opts, &info, &mut report, &mut next, &schedule, progress).await?;
                    }
                }
            }
            reply = client.recv() => match reply {
                Ok(Reply::Status(s)) => {
                    answered = Instant::now();
                    let was = report.status.and_then(|p| State::from_u8(p.state));
                    report.status = Some(s);
                    progress(&Progress { frame: next, frames, status: Some(s), link: "ok".into() });
                    match State::from_u8(s.state) {
                        Some(State::Stalled) if was != Some(State::Stalled) => report.stalls += 1,
                        // The watchdog took over: frames sent now would only be dropped.
                        Some(state @ (State::Ramping | State::Relaxed)) if report.frames_sent > 0 => {
                            report.gave_up = Some((state, next));
                            report.ending = Ending::RobotGaveUp;
                            return Ok(report);
                        }
                        _ => {}
                    }
                }
                Ok(_) => answered = Instant::now(),
                Err(_) => {
                    (client, schedule, pacer) =
                        resume(opts, &info, &mut report, &mut next, &schedule, progress).await?;
                    answered = Instant::now();
                }
            },
            _ = status_poll.tick() => {
                // Frames to a robot that no longer listens to this link go nowhere.
                if answered.elapsed() > SILENT_FOR {
                    report.went_silent = Some(next);
                    report.ending = Ending::RobotSilent;
                    return Ok(report);
                }
                let _ = client.send(&Message::StatusRequest);
            }
        }
    }
    // The last frames are still in the bridge's buffer: wait until it has played them.
    let drain = Duration::from_millis(u64::from(info.latency_ticks) * 8 + 500);
    report.status = wait_for_state(
        &mut client,
        &[State::Holding, State::Relaxed, State::Ramping],
        drain,
        opts,
    )
    .await?;
    if opts.interrupt.load(Ordering::Relaxed) {
        return interrupted(client, report, opts).await;
    }
    Ok(report)
}

/// The start of the stream, or its resumption at stream frame `first`.
fn stream_start(first: u64) -> Message<'static> {
    Message::StreamStart {
        stream: 1,
        first_tick: (2 * first) as u32,
    }
}

/// After the link dropped: reconnect, start the stream again at the first frame still to
/// come (frames handed to the link that went down are lost with it), and pace from there.
async fn resume(
    opts: &PlayOptions,
    info: &BridgeInfo,
    report: &mut PlayReport,
    next: &mut u64,
    schedule: &Schedule,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(Client, Schedule, mpsc::UnboundedReceiver<(u64, Instant)>), LinkError> {
    let mut client = reconnect(opts, report, *next, progress).await?;
    let first = schedule.first_useful(*next, Instant::now());
    report.frames_skipped += first - *next;
    *next = first;
    expect_ok(&mut client, &stream_start(first), opts).await?;
    let schedule = Schedule::started(first, info);
    Ok((client, schedule, spawn_pacer(schedule, report.frames)))
}

/// Ctrl-C: tell the bridge to stop (hold, then rest) and say so.
async fn interrupted(
    mut client: Client,
    mut report: PlayReport,
    opts: &PlayOptions,
) -> Result<PlayReport, LinkError> {
    let _ = client.request(&Message::Stop, opts.connect_timeout).await;
    report.ending = Ending::Interrupted;
    report.status = client.last_status;
    // The state after the STOP (stopping, then ramping), not the one read before it.
    if client.send(&Message::StatusRequest).is_ok() {
        let asked = tokio::time::timeout(opts.connect_timeout, async {
            loop {
                match client.recv().await {
                    Ok(Reply::Status(s)) => return Some(s),
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        });
        if let Ok(Some(s)) = asked.await {
            report.status = Some(s);
        }
    }
    Ok(report)
}

async fn expect_ok(
    client: &mut Client,
    m: &Message<'_>,
    opts: &PlayOptions,
) -> Result<(), LinkError> {
    match client.request(m, opts.connect_timeout).await? {
        ack::OK => Ok(()),
        code => Err(LinkError::Refused(ack_text(code).into())),
    }
}

/// Reports the drop at once, then tries to reconnect for `opts.retry_for`.
pub(super) async fn reconnect(
    opts: &PlayOptions,
    report: &mut PlayReport,
    frame: u64,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Client, LinkError> {
    tracing::warn!(
        "the link to {} dropped at frame {frame}; retrying for {:.0} s",
        opts.endpoint,
        opts.retry_for.as_secs_f64()
    );
    progress(&Progress {
        frame,
        frames: report.frames,
        status: report.status,
        link: "dropped, reconnecting".into(),
    });
    let give_up = Instant::now() + opts.retry_for;
    loop {
        if opts.interrupt.load(Ordering::Relaxed) || Instant::now() >= give_up {
            return Err(LinkError::Lost {
                endpoint: opts.endpoint.to_string(),
                frame,
                frames: report.frames,
                retry_s: opts.retry_for.as_secs_f64(),
            });
        }
        if let Ok(Ok((c, _))) = tokio::time::timeout(Duration::from_secs(1), open(opts)).await {
            report.reconnects += 1;
            tracing::info!("link back at frame {frame}");
            return Ok(c);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Polls the bridge's status until it is in one of `states` or `timeout` passes.
async fn wait_for_state(
    client: &mut Client,
    states: &[State],
    timeout: Duration,
    opts: &PlayOptions,
) -> Result<Option<Status>, LinkError> {
    let deadline = Instant::now() + timeout;
    let mut poll = tokio::time::interval(Duration::from_millis(50));
    while Instant::now() < deadline && !opts.interrupt.load(Ordering::Relaxed) {
        tokio::select! {
            _ = poll.tick() => { client.send(&Message::StatusRequest)?; }
            reply = client.recv() => {
                if let Reply::Status(s) = reply? {
                    if State::from_u8(s.state).is_some_and(|st| states.contains(&st)) {
                        return Ok(Some(s));
                    }
                }
            }
        }
    }
    Ok(client.last_status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mtn::{Keyframe, Layout};

    fn joint(max_step: u32) -> BridgeJoint {
        BridgeJoint {
            name: "j".into(),
            locator: "PRM:/j".into(),
            min: -1_000_000,
            max: 1_000_000,
            max_step,
            binary: false,
        }
    }

    fn starting_at(joints: Vec<i32>) -> Motion {
        Motion {
            name: "m".into(),
            creator: "tests".into(),
            design_label: "DRX-1000".into(),
            frame_ms: 16,
            locators: vec!["PRM:/j".into(); joints.len()],
            keyframes: vec![Keyframe {
                frames_before: 0,
                roll: 0,
                pitch: 0,
                yaw: 0,
                joints,
            }],
            layout: Layout::default(),
        }
    }

    #[test]
    fn the_way_in_goes_at_a_quarter_of_joint_speed_and_ends_however_the_bridge_lies() {
        let motion = starting_at(vec![400_000, 0]);
        let joints = [joint(20_000), joint(20_000)];
        // Within a quarter step of the first pose: no way in.
        assert_eq!(LeadIn::of(&[396_000, 0], None, &motion, &joints), None);
        // 400 000 µrad at 5 000 a tick: 80 ticks, each step at most 5 000, ending one
        // such step short of the first pose.
        let lead = LeadIn::of(&[0, 0], None, &motion, &joints).unwrap();
        assert_eq!(lead.ticks, 80);
        let mut was = 0;
        for i in 0..lead.ticks {
            let now = lead.pose(i, &joints).0[0];
            assert!(now.abs_diff(was) <= 5_000, "tick {i}: {was} to {now}");
            was = now;
        }
        assert!(was.abs_diff(400_000) <= 5_000);
        // A pose past the limits counts from the limit; a joint said to be all but
        // still gives a way in of at most 10 s.
        let lead = LeadIn::of(&[i32::MIN, 0], None, &motion, &joints).unwrap();
        assert_eq!(lead.ticks, 1_400_000 / 5_000);
        assert!(lead.pose(0, &joints).0[0].abs_diff(-1_000_000) <= 5_000);
        let lead = LeadIn::of(&[0, 0], None, &motion, &[joint(1), joint(1)]).unwrap();
        assert_eq!(lead.ticks, LEAD_IN_MAX_TICKS);
    }

    #[test]
    #[cfg(feature = "physics")]
    fn a_way_in_from_wherever_a_lying_bridge_says_is_bounded_and_judged_without_panic() {
        // A bridge may report any pose within any limits it claims: the way in still
        // lasts at most 10 s, and the gate's judges give a verdict on it (here: it falls).
        use crate::stability::physics;
        let profile = crate::robot::profile::Profile::builtin("ERS-7").unwrap();
        let mut motion = starting_at(vec![0; profile.joints.len()]);
        motion.locators = profile.joints.iter().map(|j| j.locator.clone()).collect();
        let joints: Vec<BridgeJoint> = profile
            .joints
            .iter()
            .map(|_| BridgeJoint {
                min: i32::MIN,
                max: i32::MAX,
                ..joint(20_000)
            })
            .collect();
        for applied in [i32::MIN, i32::MAX] {
            let lead = LeadIn::of(&vec![applied; joints.len()], None, &motion, &joints).unwrap();
            assert_eq!(lead.ticks, LEAD_IN_MAX_TICKS);
            let way = lead.as_motion(&motion);
            assert!(way.duration_ms() <= (LEAD_IN_MAX_TICKS + 2) * mtn::DENSE_FRAME_MS);
            assert!(way.duration_ms() >= (LEAD_IN_MAX_TICKS + 1) * mtn::DENSE_FRAME_MS);
            let (_, simulated) =
                physics::judged(&way, &profile, 0.0, physics::SERVO_TORQUE_NM, &mut |_| {})
                    .unwrap();
            assert!(simulated.fall.is_some(), "{}", simulated.summary());
        }
    }

    #[test]
    fn the_way_in_carries_the_body_from_the_pitch_its_posture_means_to_the_motions() {
        // An ERS-7 lying down (Sony's sleep, pitched as the profile says), into a motion
        // that starts standing, rolled and pitched a little as its file says: the body's
        // roll and pitch go straight from the sleep's to the file's, step by step as the
        // joints do.
        let profile = crate::robot::profile::Profile::builtin("ERS-7").unwrap();
        let urad = |posture: &str| -> Vec<i32> {
            profile.postures[posture]
                .joints
                .iter()
                .map(|&r| (r * 1e6).round() as i32)
                .collect()
        };
        let mut motion = starting_at(urad("stand"));
        motion.locators = profile.joints.iter().map(|j| j.locator.clone()).collect();
        motion.keyframes[0].roll = 50_000;
        motion.keyframes[0].pitch = 30_000;
        // (Within ±π: the sleep's legs reach past the ±1 rad the other test's joints allow.)
        let joints: Vec<BridgeJoint> = profile
            .joints
            .iter()
            .map(|_| BridgeJoint {
                min: -3_141_593,
                max: 3_141_593,
                ..joint(20_000)
            })
            .collect();
        let lead = LeadIn::of(&urad("sleep"), None, &motion, &joints).unwrap();
        let sleep_pitch = (profile.postures["sleep"].body_pitch * 1e6).round() as i32;
        assert_eq!(lead.from_body, [0, sleep_pitch]);
        assert_eq!(lead.to_body, [50_000, 30_000]);
        let step = |from: i32, to: i32| (f64::from(to - from) / (lead.ticks + 1) as f64).abs();
        let mut was = lead.from_body;
        for i in 0..lead.ticks {
            let body = lead.pose(i, &joints).1;
            for k in 0..2 {
                let d = f64::from(body[k] - was[k]);
                assert!(
                    d.abs() <= step(lead.from_body[k], lead.to_body[k]) + 1.0,
                    "tick {i}"
                );
                assert!(
                    d * f64::from(lead.to_body[k] - lead.from_body[k]) >= 0.0,
                    "tick {i}"
                );
            }
            was = body;
        }
        // The as-motion way starts and ends as the stream does.
        let way = lead.as_motion(&motion);
        assert_eq!(
            (way.keyframes[0].roll, way.keyframes[0].pitch),
            (0, sleep_pitch)
        );
        assert_eq!(
            (way.keyframes[1].roll, way.keyframes[1].pitch),
            (50_000, 30_000)
        );
        assert_eq!(way.keyframes[0].joints, urad("sleep"));
        assert_eq!(way.keyframes[1].joints, urad("stand"));
    }
}
