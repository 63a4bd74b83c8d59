//! The contact plan: which paws carry the robot on each row of the keyframe grid.
//!
//! Standing, all four paws are down. A paw lifts only where the performer's limb
//! gestures (a front paw: the hand raised above about a third of the arm's length below
//! the shoulder, so an arm hanging with its elbow bent keeps its paw down; a hind paw:
//! the foot lifted above the other, a step), only one at a time, and only for long enough
//! to be worth the weight shift before it. Where the performer raises both arms, the arm
//! whose paw buys more likeness raised over its span wins (the angles its leg would lose
//! held in the stand, [`crate::likeness::lift_gains`]) and the other paw stays planted;
//! arm gestures win over steps. Every lift is preceded by a weight shift and followed
//! by a dwell with all four paws down, so contacts do not flicker.
//!
//! A gesture at the very start or end of a take would spend its weight shift or its
//! landing inside the performance (the short Bandai wave lost most of its wave so). There
//! the plan pads the grid: the performer's first pose is held while the weight shifts,
//! and the last pose while the paw comes down, outside the performance.

use super::resting::{self, Rest};
use crate::retarget::{Limb, Tracks};
use crate::robot::profile::Profile;

/// The paws, in the order the plan counts them.
pub const PAWS: [&str; 4] = ["lf", "rf", "lh", "rh"];

/// Whether a paw (index into [`PAWS`]) is a front one.
pub fn is_front(paw: usize) -> bool {
    paw < 2
}

/// A hand this high (relative to the shoulder, in arm lengths: −1 hanging straight, 0 at
/// shoulder height) raises its paw; below [`ARM_LOWERED`] it lowers it again. The
/// performers of the shared takes hang an idle arm at −0.8 to −1.0, elbow bent or not;
/// waves and raised arms go above −0.3.
const ARM_RAISED: f64 = -0.35;
const ARM_LOWERED: f64 = -0.5;

/// A foot this far above the other (in leg lengths) is a step; below [`FOOT_DOWN`] it is
/// down again. The shared walks lift a foot 0.12 to 0.25 of the leg.
const FOOT_LIFTED: f64 = 0.12;
const FOOT_DOWN: f64 = 0.06;

/// The plan's timing, seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The weight moves over the other three paws before a paw lifts.
    pub shift_s: f64,
    /// The paw rises from the floor.
    pub lift_s: f64,
    /// The paw comes down to its spot.
    pub land_s: f64,
    /// The shortest lift worth making.
    pub min_up_s: f64,
    /// All four paws stay down at least this long between lifts.
    pub min_down_s: f64,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            shift_s: 0.4,
            lift_s: 0.12,
            land_s: 0.2,
            min_up_s: 0.4,
            min_down_s: 0.2,
        }
    }
}

/// One lifted paw: rows `start..end` of the grid (it leaves the floor at `start` and is
/// back on it at `end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lift {
    pub paw: usize,
    pub start: usize,
    pub end: usize,
}

/// A limb's gesture, the rows its paw would be up for it (rising before the limb crosses
/// its threshold, landing after it crosses back), and what raising its paw buys over them
/// (the likeness gained, degrees summed over rows; where the robot has no skeleton to
/// measure it, how far above its threshold the signal went).
struct Candidate {
    want: Want,
    lifted: (usize, usize),
    score: f64,
}

/// Where the performer's limb gestured, rows `start..end`, whether or not its paw lifts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    pub paw: usize,
    pub start: usize,
    pub end: usize,
}

/// What a paw does on a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// On its spot, carrying weight.
    Planted,
    /// On its spot while the weight moves off it (this far, 0 to 1).
    Shifting(f64),
    /// Rising from the floor (this far).
    Lifting(f64),
    /// Up, following the performer.
    Up,
    /// Coming down to its spot (this far).
    Landing(f64),
}

impl Phase {
    /// It carries weight: on the floor.
    pub fn planted(self) -> bool {
        matches!(self, Phase::Planted | Phase::Shifting(_))
    }
}

/// Rows the plan adds around the performance's: its first pose held `lead` rows before
/// it, its last pose `tail` rows after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Padding {
    pub lead: usize,
    pub tail: usize,
}

/// The contact plan of a motion's grid rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Rows in all, the padding's included.
    pub rows: usize,
    /// The rows held before and after the performance's.
    pub padding: Padding,
    /// The grid's spacing, s.
    pub row_s: f64,
    /// Lifted paws in time order; never two at once, never within the dwell and shift.
    pub lifts: Vec<Lift>,
    /// Where each limb gestured.
    pub wants: Vec<Want>,
    /// The performer's limb that drives each paw, by [`PAWS`] index.
    pub limbs: [Option<Limb>; 4],
    pub timing: Timing,
    /// Where the performer travels and the robot walks, in time order: on these rows the
    /// gait, not the performer's limbs, moves the legs, and its steps say which paw is up.
    pub walks: Vec<Walk>,
    /// Where the performer kneels and the robot sits or lies down, in time order: every
    /// paw down, the legs in one of the profile's resting postures ([`super::resting`]).
    pub rests: Vec<Rest>,
}

/// A walk: the gait's rows from `start`, and its steps (rows counted from `start`).
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    pub start: usize,
    pub gait: super::gait::Walked,
    /// The performer's travel it follows, s from the performance's first frame.
    pub source_s: (f64, f64),
    /// That travel's path, scaled by leg length, at each of the walk's first rows (from
    /// where the walk starts): where the crawl is asked to go.
    pub path: Vec<super::gait::Place>,
    /// The row by which the walk is back in the stand, blended out, where what follows
    /// needs the legs (the next walk, or the gestures after a wait for it).
    pub until: Option<usize>,
}

impl Walk {
    /// Where the performer's scaled travel ends, from where the walk starts.
    pub fn goal(&self) -> super::gait::Place {
        self.path.last().copied().unwrap_or_default()
    }

    /// How long the performer's scaled path is, mm.
    pub fn path_mm(&self) -> f64 {
        self.path
            .windows(2)
            .map(|w| w[0].at.distance(w[1].at))
            .sum()
    }

    /// The rows the gait moves the legs on.
    pub fn rows(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.gait.legs.len()
    }

    /// The rows every paw is held down over for the walk ([`Plan::hold`]): its rows and
    /// the `blend` rows either side.
    pub fn held_rows(&self, blend: usize) -> (usize, usize) {
        (self.start.saturating_sub(blend), self.rows().end + blend)
    }
}

impl Plan {
    /// All four paws down throughout.
    pub fn standing(rows: usize, row_s: f64) -> Plan {
        Plan {
            rows,
            row_s,
            padding: Padding::default(),
            lifts: Vec::new(),
            wants: Vec::new(),
            limbs: [None; 4],
            timing: Timing::default(),
            walks: Vec::new(),
            rests: Vec::new(),
        }
    }

    /// Whether `paw` is on the floor on `row`: the walk's steps where the robot walks,
    /// else the gestures' lifts (a paw shifting its weight off is still down).
    pub fn down(&self, row: usize, paw: usize) -> bool {
        match self.walks.iter().find(|w| w.rows().contains(&row)) {
            Some(w) => !w
                .gait
                .steps
                .iter()
                .any(|s| s.paw == paw && row >= w.start + s.start && row < w.start + s.end),
            None => self.phase(row, paw).planted(),
        }
    }

    /// The row the performance ends on: the tail's first.
    pub fn performed_end(&self) -> usize {
        self.rows.saturating_sub(self.padding.tail)
    }

    /// The rows past the performance's end that its lifts need to land and settle: the
    /// tail it must keep, the walks aside. A hold of every paw ([`Plan::hold`]) reaching
    /// the end leaves none.
    pub fn landing_tail(&self) -> usize {
        let settle = self.rows_of(self.timing.min_down_s) + 1;
        self.lifts
            .iter()
            .map(|l| (l.end + settle).saturating_sub(self.performed_end()))
            .max()
            .unwrap_or(0)
    }

    /// The rows past the performance's end that its last walk needs to finish, blended
    /// out over `blend` rows.
    pub fn walk_tail(&self, blend: usize) -> usize {
        self.walks.last().map_or(0, |w| {
            (w.rows().end + blend).saturating_sub(self.performed_end())
        })
    }

    /// The row that plays `seconds` into the performance (after the lead).
    pub fn row_at(&self, seconds: f64) -> usize {
        self.padding.lead + (seconds / self.row_s).round() as usize
    }

    /// When `row` plays, seconds into the performance (0 for the lead's rows): the
    /// inverse of [`Plan::row_at`].
    pub fn seconds_at(&self, row: usize) -> f64 {
        row.saturating_sub(self.padding.lead) as f64 * self.row_s
    }

    fn rows_of(&self, seconds: f64) -> usize {
        (seconds / self.row_s).round().max(1.0) as usize
    }

    /// The lift that concerns `row` (its shift, or itself) if any.
    pub fn lift_at(&self, row: usize) -> Option<Lift> {
        let shift = self.rows_of(self.timing.shift_s);
        self.lifts
            .iter()
            .find(|l| row + shift >= l.start && row < l.end)
            .copied()
    }

    /// What `paw` does on `row`. A lift early in the motion has its weight shift start
    /// before the first row: the ramp from the start posture makes that part of it.
    pub fn phase(&self, row: usize, paw: usize) -> Phase {
        let Some(lift) = self.lift_at(row) else {
            return Phase::Planted;
        };
        if lift.paw != paw {
            return Phase::Planted;
        }
        let fraction = |at: usize, length: usize| ((at + 1) as f64 / length.max(1) as f64).min(1.0);
        if row < lift.start {
            let shift = self.rows_of(self.timing.shift_s);
            return Phase::Shifting(fraction(row + shift - lift.start, shift));
        }
        let rising = self.rows_of(self.timing.lift_s).min(lift.end - lift.start);
        let falling = self.rows_of(self.timing.land_s).min(lift.end - lift.start);
        if row < lift.start + rising {
            Phase::Lifting(fraction(row - lift.start, rising))
        } else if row + falling >= lift.end {
            Phase::Landing(fraction(row + falling - lift.end, falling))
        } else {
            Phase::Up
        }
    }

    /// The rows from `row` until `paw` is down again (at least 1), or until the plan's
    /// end: the end of the lift it is up in.
    pub fn rows_until_down(&self, row: usize, paw: usize) -> usize {
        let end = match self.lift_at(row) {
            Some(lift) if lift.paw == paw && row >= lift.start => lift.end.min(self.rows),
            _ => row,
        };
        end.saturating_sub(row).max(1)
    }

    /// Keeps every paw down over rows `from..to`, the dwell before them, and the dwell and
    /// a lift's weight shift after them: lifts that reach into that are cut short or
    /// dropped. Before the window a lift need only be down for the dwell (its weight
    /// comes back as it lands): the shift belongs before a lift, and counting it here too
    /// dropped the jumping take's one raised paw before its walk.
    pub fn hold(&mut self, from: usize, to: usize) {
        let (gap, min_up) = (self.gap_rows(), self.rows_of(self.timing.min_up_s));
        let dwell = self.rows_of(self.timing.min_down_s);
        let mut kept = Vec::new();
        for l in &self.lifts {
            let blocked = (from.saturating_sub(dwell), to + gap);
            for (start, end) in carve((l.start, l.end), &[blocked]) {
                if end - start >= min_up {
                    kept.push(Lift { start, end, ..*l });
                }
            }
        }
        self.lifts = kept;
    }

    /// Whether a paw could lift between a hold of every paw ([`Plan::hold`]) ending at row
    /// `to` and the next one from row `from`: the dwell and shift after the first, the
    /// shortest lift, and the dwell before the second. Where none fits, every paw stays
    /// down from one to the other.
    pub fn lift_fits_between(&self, to: usize, from: usize) -> bool {
        let dwell = self.rows_of(self.timing.min_down_s);
        let min_up = self.rows_of(self.timing.min_up_s);
        from.saturating_sub(dwell) >= to + self.gap_rows() + min_up
    }

    /// Rows between one lift's end and the next one's start: the dwell, then the shift.
    fn gap_rows(&self) -> usize {
        self.rows_of(self.timing.min_down_s) + self.rows_of(self.timing.shift_s)
    }

    /// Whether the robot rests (sits or lies down) on `row`, its ramps included.
    pub fn resting(&self, row: usize) -> bool {
        self.rests.iter().any(|r| r.rows().contains(&row))
    }

    /// Whether `paw`'s limb gestures on `row` (whether or not the paw lifts for it).
    pub fn wanted(&self, row: usize, paw: usize) -> bool {
        self.wants
            .iter()
            .any(|w| w.paw == paw && row >= w.start && row < w.end)
    }

    /// How many times a paw lifts.
    pub fn lift_count(&self, paw: usize) -> usize {
        self.lifts.iter().filter(|l| l.paw == paw).count()
    }

    /// Seconds a paw was raised, and seconds it was held down where its limb gestured.
    pub fn paw_seconds(&self, paw: usize) -> (f64, f64) {
        let raised: usize = self
            .lifts
            .iter()
            .filter(|l| l.paw == paw)
            .map(|l| l.end - l.start)
            .sum();
        let wanted: usize = self
            .wants
            .iter()
            .filter(|w| w.paw == paw)
            .map(|w| {
                let overlap: usize = self
                    .lifts
                    .iter()
                    .filter(|l| l.paw == paw)
                    .map(|l| w.end.min(l.end).saturating_sub(w.start.max(l.start)))
                    .sum();
                (w.end - w.start).saturating_sub(overlap)
            })
            .sum();
        (raised as f64 * self.row_s, wanted as f64 * self.row_s)
    }
}

/// The parts of `span` outside every one of `blocked`.
fn carve(span: (usize, usize), blocked: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut pieces = vec![span];
    for &(b0, b1) in blocked {
        pieces = pieces
            .into_iter()
            .flat_map(|(s, e)| {
                let mut out = Vec::new();
                if s < b0.min(e) {
                    out.push((s, b0.min(e)));
                }
                if b1.max(s) < e {
                    out.push((b1.max(s), e));
                }
                out
            })
            .collect();
    }
    pieces
}

/// The limb that drives each paw (through its leg's joints), from the tracks' drivers.
fn drivers(tracks: &Tracks) -> [Option<Limb>; 4] {
    let mut out = [None; 4];
    for (paw, prefix) in PAWS.iter().enumerate() {
        out[paw] = tracks
            .drivers
            .iter()
            .filter(|d| d.joint.starts_with(&format!("{prefix}_")))
            .find_map(|d| {
                let part = d.measure.split('.').next()?;
                Limb::ALL.into_iter().find(|l| l.name() == part)
            });
    }
    out
}

/// Each source frame's gesture signal for a limb, and how far above its threshold it is:
/// an arm's hand height, a leg's foot height over the other foot.
fn signal(tracks: &Tracks, limb: Limb) -> Option<Vec<f64>> {
    let track = tracks.performer.limb(limb)?;
    let length = track.length.max(1e-9);
    let height = |t: &crate::retarget::LimbTrack, f: usize| {
        t.bones.get(f).map_or(0.0, |(u, l)| (u.z + l.z) / length)
    };
    let frames = track.bones.len();
    match limb {
        Limb::LeftArm | Limb::RightArm => Some((0..frames).map(|f| height(track, f)).collect()),
        Limb::LeftLeg | Limb::RightLeg => {
            let other = if limb == Limb::LeftLeg {
                Limb::RightLeg
            } else {
                Limb::LeftLeg
            };
            let other = tracks.performer.limb(other)?;
            Some(
                (0..frames)
                    .map(|f| height(track, f) - height(other, f))
                    .collect(),
            )
        }
    }
}

/// What raising each paw (by [`PAWS`] index) buys on each of the tracks' frames: the
/// [`crate::likeness::lift_gains`] of the limb that drives it (`None`: no limb, or no
/// skeleton to measure it on). The same for every plan made from the same tracks, so
/// reckoned once for them all.
pub type Gains = [Option<Vec<f64>>; 4];

/// The [`Gains`] of `tracks` on `profile`.
pub fn gains(tracks: &Tracks, profile: &Profile) -> Gains {
    drivers(tracks)
        .map(|limb| limb.and_then(|limb| crate::likeness::lift_gains(tracks, profile, limb)))
}

/// The contact plan for a performance of `rows` grid rows `row_s` apart, the first at
/// the tracks' first frame, padded where a gesture needs it (see [`Padding`]): its
/// rows are the padding's lead, then the performance's, then the tail. `gains` are the
/// tracks' [`gains`]. `landing_rows(row, paw)` estimates the rows a paw raised on
/// performance row `row` needs to come down: a lift lasts at least that long after its
/// limb lowers.
pub fn plan(
    tracks: &Tracks,
    gains: &Gains,
    profile: &Profile,
    rows: usize,
    row_s: f64,
    landing_rows: &dyn Fn(usize, usize) -> usize,
) -> Plan {
    // Gains of other tracks would score the gestures by another performance.
    debug_assert!(
        drivers(tracks).iter().zip(gains).all(|(limb, gains)| {
            let frames = limb
                .and_then(|l| tracks.performer.limb(l))
                .map(|t| t.bones.len());
            gains.as_ref().is_none_or(|g| Some(g.len()) == frames)
        }),
        "plan: gains reckoned from other tracks"
    );
    let plan = |padding| padded_plan(tracks, profile, gains, rows, row_s, landing_rows, padding);
    let (unpadded, wanted) = plan(None);
    if wanted == Padding::default() {
        unpadded
    } else {
        plan(Some(wanted)).0
    }
}

/// The contact plan with `padding` around the performance's rows, and the padding it
/// wants (meaningful when made without any): a lead where a gesture starts too early for
/// its weight shift, a tail where a lift would outlast the performance. In the lead no
/// limb gestures. `gains` are the tracks' [`gains`].
fn padded_plan(
    tracks: &Tracks,
    profile: &Profile,
    gains: &Gains,
    performed: usize,
    row_s: f64,
    landing_rows: &dyn Fn(usize, usize) -> usize,
    padding: Option<Padding>,
) -> (Plan, Padding) {
    let padding = padding.unwrap_or_default();
    let rows = padding.lead + performed + padding.tail;
    let mut plan = Plan::standing(rows, row_s);
    plan.padding = padding;
    let timing = plan.timing;
    let performance_end = padding.lead + performed;
    // A paw rises while its limb does and comes down while it does: the lift begins
    // before the limb crosses its threshold, and lasts until the leg can have landed
    // from where the limb crossed back.
    let (rising, landing) = (plan.rows_of(timing.lift_s), plan.rows_of(timing.land_s));
    let shift = plan.rows_of(timing.shift_s);
    let (min_up, settle) = (
        plan.rows_of(timing.min_up_s),
        plan.rows_of(timing.min_down_s) + 1,
    );
    let mut wanted = Padding::default();
    let source_s = tracks.frame_time.max(1e-9);
    let frame_of = |row: usize| {
        let performed_row = row.saturating_sub(padding.lead);
        ((performed_row as f64 * row_s / source_s).round() as usize)
            .min(tracks.frames.saturating_sub(1))
    };
    let has_leg = |prefix: &str| {
        profile
            .joints
            .iter()
            .any(|j| j.name == format!("{prefix}_j1"))
    };
    // Each limb's spans of gesture, with a score: what raising its paw buys, in total.
    let mut candidates: Vec<Candidate> = Vec::new();
    plan.limbs = drivers(tracks);
    for (paw, limb) in plan.limbs.into_iter().enumerate() {
        let Some(limb) = limb else { continue };
        if !has_leg(PAWS[paw]) {
            continue;
        }
        let Some(signal) = signal(tracks, limb) else {
            continue;
        };
        let (raise, lower) = if is_front(paw) {
            (ARM_RAISED, ARM_LOWERED)
        } else {
            (FOOT_LIFTED, FOOT_DOWN)
        };
        let at = |row: usize| {
            if row < padding.lead || row >= performance_end {
                f64::NEG_INFINITY
            } else {
                signal.get(frame_of(row)).copied().unwrap_or(-1.0)
            }
        };
        let mut up = false;
        let mut start = 0;
        let mut score = 0.0;
        for row in 0..=rows {
            let v = if row < rows {
                at(row)
            } else {
                f64::NEG_INFINITY
            };
            if !up && v > raise {
                (up, start, score) = (true, row, 0.0);
            } else if up && v < lower {
                up = false;
                let raw = Want {
                    paw,
                    start,
                    end: row,
                };
                let performed_row = row
                    .saturating_sub(padding.lead)
                    .min(performed.saturating_sub(1));
                let lifted = (
                    start.saturating_sub(rising).max(padding.lead),
                    row + landing.max(landing_rows(performed_row, paw)),
                );
                // Only a gesture that lasts is worth a lift (and a padding).
                if raw.end - raw.start >= min_up {
                    if lifted.0 <= shift {
                        wanted.lead = shift;
                    }
                    wanted.tail = wanted.tail.max((lifted.1 + settle).saturating_sub(rows));
                }
                candidates.push(Candidate {
                    want: raw,
                    lifted: (lifted.0, lifted.1.min(rows)),
                    score,
                });
                continue;
            }
            if up {
                score += match &gains[paw] {
                    Some(gains) => gains.get(frame_of(row)).copied().unwrap_or(0.0),
                    None => v - lower,
                };
            }
        }
    }
    plan.wants = candidates.iter().map(|c| c.want).collect();
    let gap = plan.gap_rows();
    // Arms before steps; what buys most first. Each gesture that lasts takes what
    // the chosen ones leave, keeping the dwell and the weight shift clear around them,
    // and the motion's first and last rows (the ramps from and to the postures stand on
    // all four paws).
    candidates.retain(|c| c.want.end - c.want.start >= min_up);
    let mut candidates = joined(candidates, gap);
    candidates.sort_by(|a, b| {
        is_front(b.want.paw)
            .cmp(&is_front(a.want.paw))
            .then(b.score.total_cmp(&a.score))
    });
    let edges = [(0, 1), (rows.saturating_sub(1), rows + 1)];
    // No paw lifts while the robot rests, nor in the dwell and weight shift around it.
    plan.rests = resting::rests(tracks, profile, rows, row_s, padding.lead);
    let resting: Vec<(usize, usize)> = plan
        .rests
        .iter()
        .map(|r| (r.start.saturating_sub(gap), r.end + gap))
        .collect();
    let mut chosen: Vec<Lift> = Vec::new();
    for c in candidates {
        let mut blocked: Vec<(usize, usize)> = edges.to_vec();
        blocked.extend(&resting);
        blocked.extend(
            chosen
                .iter()
                .map(|c| (c.start.saturating_sub(gap), c.end + gap)),
        );
        for (start, end) in carve(c.lifted, &blocked) {
            if end - start >= min_up {
                chosen.push(Lift {
                    paw: c.want.paw,
                    start,
                    end,
                });
            }
        }
    }
    chosen.sort_by_key(|l| l.start);
    plan.lifts = chosen;
    (plan, wanted)
}

/// `candidates` (each paw's in time order) with two of a paw's lasting gestures joined
/// into one where the second would lift within `gap` rows (the dwell and the weight
/// shift) of the first's landing: the paw stays up across the limb's dip. Apart,
/// whichever was chosen first cut the other's lift short to leave the gap, so the paw
/// came down during the gesture to stand the dwell and lift again: the fair1 dab's left arm on the ERS-210 and ERS-220 (29.0 → 25.1°), Boxing_Toes
/// on the ERS-7 (19.8 → 18.2°) and the ERS-210/220 (21.1 → 20.9°), rokoko (0.6–1.4°
/// lower); the jumping jacks 0.2° higher on the ERS-7, and the dab there needs three
/// repairs instead of one (26.0 → 28.9°, and 26.2° since each place of a fall climbs
/// the repairs on its own and a landing leg's joints follow the performer longer),
/// 2026-12-02.
fn joined(candidates: Vec<Candidate>, gap: usize) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::with_capacity(candidates.len());
    for c in candidates {
        match out.last_mut() {
            Some(last) if last.want.paw == c.want.paw && c.lifted.0 < last.lifted.1 + gap => {
                last.want.end = c.want.end;
                last.lifted.1 = last.lifted.1.max(c.lifted.1);
                last.score += c.score;
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paw_stays_up_across_a_dip_shorter_than_the_gap_and_no_other() {
        let candidate = |paw, start, end, lifted: (usize, usize)| Candidate {
            want: Want { paw, start, end },
            lifted,
            score: 1.0,
        };
        let gap = 38;
        let joined = joined(
            vec![
                // lf: lands on row 120 and lifts again on 157, 37 rows later; lands on
                // 240 and lifts again on 278, the whole gap later.
                candidate(0, 10, 100, (2, 120)),
                candidate(0, 165, 220, (157, 240)),
                candidate(0, 286, 300, (278, 320)),
                // rf: lifts on 330, within the gap of lf's landing: another paw's.
                candidate(1, 338, 360, (330, 380)),
            ],
            gap,
        );
        let spans: Vec<_> = joined
            .iter()
            .map(|c| (c.want.paw, c.want.start, c.want.end, c.lifted, c.score))
            .collect();
        assert_eq!(
            spans,
            [
                (0, 10, 220, (2, 240), 2.0),
                (0, 286, 300, (278, 320), 1.0),
                (1, 338, 360, (330, 380), 1.0),
            ]
        );
    }

    #[test]
    fn carving_leaves_what_lies_outside_the_blocks() {
        assert_eq!(carve((10, 50), &[(20, 30)]), [(10, 20), (30, 50)]);
        assert_eq!(carve((10, 50), &[(0, 15), (45, 60)]), [(15, 45)]);
        assert_eq!(carve((10, 50), &[(0, 60)]), []);
        assert_eq!(carve((10, 50), &[(60, 70)]), [(10, 50)]);
    }

    #[test]
    fn the_rows_until_a_paw_is_down_are_those_its_phases_count() {
        let mut p = Plan::standing(300, 0.016);
        p.lifts = vec![
            Lift {
                paw: 1,
                start: 20,
                end: 90,
            },
            Lift {
                paw: 0,
                start: 120,
                end: 200,
            },
            Lift {
                paw: 1,
                start: 240,
                end: 330,
            },
        ];
        for row in 0..p.rows {
            for paw in 0..4 {
                let counted = (row..p.rows)
                    .position(|r| p.phase(r, paw).planted())
                    .unwrap_or(p.rows - row)
                    .max(1);
                assert_eq!(p.rows_until_down(row, paw), counted, "row {row}, paw {paw}");
            }
        }
    }

    #[test]
    fn phases_run_shift_lift_up_land_and_hold_cuts_lifts() {
        let mut p = Plan::standing(200, 0.016);
        p.lifts = vec![Lift {
            paw: 1,
            start: 50,
            end: 100,
        }];
        // 0.4 s of shift is 25 rows; 0.12 s of lift 8 rows; 0.2 s of landing 13.
        assert_eq!(p.phase(10, 1), Phase::Planted);
        assert!(matches!(p.phase(25, 1), Phase::Shifting(s) if s > 0.0 && s < 0.1));
        assert!(matches!(p.phase(49, 1), Phase::Shifting(s) if s == 1.0));
        assert!(matches!(p.phase(50, 1), Phase::Lifting(_)));
        assert_eq!(p.phase(70, 1), Phase::Up);
        assert!(matches!(p.phase(87, 1), Phase::Landing(s) if s > 0.0 && s < 0.1));
        assert!(matches!(p.phase(99, 1), Phase::Landing(s) if s == 1.0));
        assert_eq!(p.phase(100, 1), Phase::Planted);
        assert_eq!(p.phase(70, 0), Phase::Planted);
        // A lift near the start has its shift begun before the first row.
        let mut q = Plan::standing(200, 0.016);
        q.lifts = vec![Lift {
            paw: 0,
            start: 5,
            end: 60,
        }];
        assert!(matches!(q.phase(0, 0), Phase::Shifting(s) if s > 0.8));
        // Holding the paws down over 60..65 leaves no lift long enough on either side.
        p.hold(60, 65);
        assert!(p.lifts.is_empty(), "{:?}", p.lifts);
    }

    #[test]
    fn a_hold_to_the_performance_s_end_leaves_no_paw_to_land_after_it() {
        // 100 rows performed, and a tail of 20 for a paw that lands on row 106 and
        // settles for the dwell (0.2 s: 13 rows) and a row.
        let mut p = Plan::standing(120, 0.016);
        p.padding = Padding { lead: 0, tail: 20 };
        p.lifts = vec![Lift {
            paw: 0,
            start: 70,
            end: 106,
        }];
        assert_eq!(p.landing_tail(), 106 + 13 + 1 - 100);
        // A walk's hold of every paw to the end cuts the lift away.
        p.hold(60, 100);
        assert!(p.lifts.is_empty());
        assert_eq!(p.landing_tail(), 0);
    }

    #[test]
    fn a_hold_keeps_a_dwell_before_it_and_a_dwell_and_a_shift_after_it() {
        // At 16 ms a row: the dwell (0.2 s) is 13 rows, the shift (0.4 s) 25, the
        // shortest lift (0.4 s) 25.
        let lift = |start, end| Lift { paw: 0, start, end };
        let mut p = Plan::standing(400, 0.016);
        p.lifts = vec![lift(100, 200), lift(260, 360)];
        p.hold(180, 250);
        // The first lands a dwell before the hold; the second lifts after the hold's
        // dwell and the weight's shift over the other three.
        assert_eq!(p.lifts, vec![lift(100, 167), lift(288, 360)]);
        // What a cut leaves shorter than the shortest lift is dropped.
        let mut q = Plan::standing(400, 0.016);
        q.lifts = vec![lift(100, 200)];
        q.hold(136, 150);
        assert!(q.lifts.is_empty(), "{:?}", q.lifts);
    }

    #[test]
    fn a_lift_fits_between_two_holds_exactly_where_holding_both_leaves_one() {
        // At 16 ms a row a lift needs 13 + 25 rows after the first hold, 25 up, and 13
        // before the second: 76 rows between them.
        let mut fits = Vec::new();
        for gap in 60..90 {
            let mut p = Plan::standing(400, 0.016);
            p.lifts = vec![Lift {
                paw: 2,
                start: 100,
                end: 100 + gap,
            }];
            p.hold(50, 100);
            p.hold(100 + gap, 150 + gap);
            assert_eq!(
                p.lift_fits_between(100, 100 + gap),
                !p.lifts.is_empty(),
                "{gap}"
            );
            fits.push(p.lift_fits_between(100, 100 + gap));
        }
        assert_eq!(fits.iter().position(|&f| f), Some(76 - 60));
    }
}
