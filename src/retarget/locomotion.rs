//! Where the performer travels: the spans of a take in which they walk, run, sidestep
//! or turn, found from the root's path over the floor and the body's heading.
//!
//! Speeds are in the performer's leg lengths per second (hip to ankle, hanging), so that
//! takes in centimetres, metres and inches read alike, and so that a span scales onto a
//! robot by its own leg length. A person strolls at about 1.5 leg lengths/s and runs at
//! 3 or more; one shifting their weight where they stand stays under 0.2.

use super::body::Limb;
use super::performer::Performer;
use crate::units::signed;
use glam::DVec3;
use serde::Serialize;

/// Moving at this many leg lengths per second, or faster, is travelling.
pub const TRAVEL_LEGS_PER_S: f64 = 0.4;

/// Turning at this rate or faster is turning on the spot, degrees per second.
pub const TURN_DEG_PER_S: f64 = 45.0;

/// Speeds are measured over this window, s: a step's sway and a stride's rhythm even out.
const WINDOW_S: f64 = 1.0;

/// Travel shorter than this is a shift of weight, not locomotion, s.
const MIN_SPAN_S: f64 = 0.5;

/// Two spans this close become one, s (a pause between steps).
const MERGE_S: f64 = 0.8;

/// At this speed or faster, a span is a run, leg lengths per second.
const RUN_LEGS_PER_S: f64 = 2.6;

/// How the performer travels over a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Travel {
    Walk,
    Run,
    /// Turning on the spot.
    Turn,
}

impl std::fmt::Display for Travel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Travel::Walk => "walk",
            Travel::Run => "run",
            Travel::Turn => "turn",
        })
    }
}

/// One span of locomotion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    /// From and to, s from the take's first frame.
    pub start_s: f64,
    pub end_s: f64,
    pub kind: Travel,
    /// How far the root travelled over the floor, leg lengths (the path's length).
    pub distance_legs: f64,
    /// From where it started to where it ended, leg lengths: forward (along the heading at
    /// the span's start) and to the left.
    pub forward_legs: f64,
    pub left_legs: f64,
    /// How far the body turned, degrees (left +).
    pub turn_deg: f64,
    /// The mean speed over the floor, leg lengths per second.
    pub speed_legs_per_s: f64,
}

impl Span {
    /// One line for people.
    pub fn describe(&self) -> String {
        format!(
            "{} from {:.1} s to {:.1} s: {:.1} leg lengths ({}, {}) at {:.1} leg lengths/s, turning {}",
            self.kind,
            self.start_s,
            self.end_s,
            self.distance_legs,
            signed(self.forward_legs, 1, "", "forward", "back"),
            signed(self.left_legs, 1, "", "left", "right"),
            self.speed_legs_per_s,
            signed(self.turn_deg, 0, "°", "left", "right"),
        )
    }
}

/// The performer's leg length (the clip's units): the mean of the legs measured, or,
/// without legs, nothing (a take with no legs does not travel on them).
pub fn leg_length(performer: &Performer) -> Option<f64> {
    let legs: Vec<f64> = [Limb::LeftLeg, Limb::RightLeg]
        .into_iter()
        .filter_map(|l| performer.limb(l))
        .map(|t| t.length)
        .filter(|&l| l.is_finite() && l > 0.0)
        .collect();
    (!legs.is_empty()).then(|| legs.iter().sum::<f64>() / legs.len() as f64)
}

/// The spans of locomotion in a take whose frames are `frame_s` apart.
pub fn spans(performer: &Performer, frame_s: f64) -> Vec<Span> {
    let n = performer.root.len();
    let Some(leg) = leg_length(performer) else {
        return Vec::new();
    };
    if n < 2 || !frame_s.is_finite() || frame_s <= 0.0 {
        return Vec::new();
    }
    let up = performer.world_up;
    let floor = |v: DVec3| v - up * v.dot(up);
    let yaw = &performer.attitude()[2];
    let half = half_window(frame_s);
    // Each frame: travelling or turning, over the window around it.
    let moving: Vec<bool> = velocities(performer, frame_s)
        .iter()
        .map(|&[forward, left, turn]| {
            forward.hypot(left) >= TRAVEL_LEGS_PER_S || turn.to_degrees().abs() >= TURN_DEG_PER_S
        })
        .collect();
    // Runs of moving frames, merged across short pauses, kept when long enough.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut f = 0;
    while f < n {
        if !moving[f] {
            f += 1;
            continue;
        }
        let start = f;
        while f < n && moving[f] {
            f += 1;
        }
        match runs.last_mut() {
            Some(last) if (start - last.1) as f64 * frame_s <= MERGE_S => last.1 = f - 1,
            _ => runs.push((start, f - 1)),
        }
    }
    // A frame counts as moving once enough of its window moves: the travel itself began
    // and ended a little further out.
    runs.into_iter()
        .filter(|&(a, b)| (b - a) as f64 * frame_s >= MIN_SPAN_S)
        .map(|(a, b)| (a.saturating_sub(half / 4), (b + half / 4).min(n - 1)))
        .map(|(a, b)| {
            let distance: f64 = (a..b)
                .map(|f| floor(performer.root[f + 1] - performer.root[f]).length())
                .sum::<f64>()
                / leg;
            let heading = floor(performer.frames[a].forward)
                .try_normalize()
                .unwrap_or_else(|| up.any_orthonormal_vector());
            let left = up.cross(heading);
            let moved = floor(performer.root[b] - performer.root[a]) / leg;
            let seconds = (b - a) as f64 * frame_s;
            let speed = distance / seconds;
            let turn_deg = (yaw[b] - yaw[a]).to_degrees();
            let kind = if distance < TRAVEL_LEGS_PER_S * seconds * 0.5 && turn_deg.abs() >= 45.0 {
                Travel::Turn
            } else if speed >= RUN_LEGS_PER_S {
                Travel::Run
            } else {
                Travel::Walk
            };
            Span {
                start_s: a as f64 * frame_s,
                end_s: b as f64 * frame_s,
                kind,
                distance_legs: distance,
                forward_legs: moved.dot(heading),
                left_legs: moved.dot(left),
                turn_deg,
                speed_legs_per_s: speed,
            }
        })
        .collect()
}

/// Frames either side of one in its window.
fn half_window(frame_s: f64) -> usize {
    ((WINDOW_S / 2.0 / frame_s).round() as usize).max(1)
}

/// The body's velocity on every frame, over the window around it (`WINDOW_S`): forward
/// and to the left in the performer's heading on that frame (leg lengths per second),
/// and the turn (radians per second, left +). Empty without legs to measure by.
pub fn velocities(performer: &Performer, frame_s: f64) -> Vec<[f64; 3]> {
    let n = performer.root.len();
    let Some(leg) = leg_length(performer) else {
        return Vec::new();
    };
    if n < 2 || !frame_s.is_finite() || frame_s <= 0.0 {
        return vec![[0.0; 3]; n];
    }
    let up = performer.world_up;
    let floor = |v: DVec3| v - up * v.dot(up);
    let yaw = &performer.attitude()[2];
    let half = half_window(frame_s);
    (0..n)
        .map(|f| {
            let (a, b) = (f.saturating_sub(half), (f + half).min(n - 1));
            let seconds = (b - a) as f64 * frame_s;
            let heading = floor(performer.frames[f].forward)
                .try_normalize()
                .unwrap_or_else(|| up.any_orthonormal_vector());
            let left = up.cross(heading);
            let moved = floor(performer.root[b] - performer.root[a]) / leg / seconds;
            [
                moved.dot(heading),
                moved.dot(left),
                (yaw[b] - yaw[a]) / seconds,
            ]
        })
        .collect()
}
