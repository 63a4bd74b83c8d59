//! Tracks to MTN keyframes: resample onto the keyframe grid, keep every joint within its
//! limits and speed, blend in from and out to a posture, and reduce to as few keyframes
//! as a tolerance allows.
//!
//! The tolerance is a guarantee about the written file: its dense playback (Sony's
//! integer rule on 8 ms frames, `mtn::dense_frames`) differs from the grid track,
//! linearly interpolated, by at most the tolerance on every joint at every 8 ms frame.
//! Between two keyframes the player draws a straight line (less at most 2n + 1 µrad of
//! integer truncation over n interpolation frames); both it and the interpolated track
//! are linear between grid samples, so checking the samples suffices. The reduction
//! then finds the fewest keyframes whose lines stay within the tolerance less that
//! truncation margin, exactly, as a shortest path over feasible segments.

use crate::mtn::{Keyframe, Layout, Motion};
use crate::retarget::Tracks;
use crate::robot::profile::{Joint, Posture, Profile};
use crate::units::rad_to_urad;

/// A segment may span at most this many grid steps, about 4 s at 16 ms (Sony's own
/// files go to 150). It bounds the reduction's work on long, still stretches.
pub const MAX_SEGMENT_STEPS: usize = 256;

/// Samples of `track` (spaced `from_s` seconds) at a spacing of `to_s` seconds, linearly
/// interpolated, covering the same duration (the last sample is held to fill the grid).
pub fn resample(track: &[f64], from_s: f64, to_s: f64) -> Vec<f64> {
    let Some(&last) = track.last() else {
        return Vec::new();
    };
    let duration = from_s * (track.len() - 1) as f64;
    let count = (duration / to_s).ceil() as usize + 1;
    (0..count)
        .map(|i| {
            let x = i as f64 * to_s / from_s;
            let k = x.floor() as usize;
            match (track.get(k), track.get(k + 1)) {
                (Some(&a), Some(&b)) => a + (b - a) * (x - k as f64),
                _ => last,
            }
        })
        .collect()
}

/// Each value held within `[min, max]`.
pub fn clamp(track: &mut [f64], min: f64, max: f64) {
    for v in track {
        *v = v.clamp(min, max);
    }
}

/// `track` within `joint`'s limits, then played no faster than `max_step` per sample
/// allows (none: no speed limit): a joint's column as the grid must hold it.
pub fn bound(track: &mut [f64], joint: &Joint, max_step: Option<f64>) {
    if let Some(limits) = joint.limits {
        clamp(track, limits.min, limits.max);
    }
    if let Some(step) = max_step {
        limit_speed(track, step);
    }
}

/// Each of `joints` (by profile index) [`bound`] down grid `rows` (the body's angles,
/// then every profile joint), `max_step` as [`max_steps`] gives it.
pub fn bound_rows(
    rows: &mut [Vec<f64>],
    joints: impl IntoIterator<Item = usize>,
    profile: &Profile,
    max_step: &[Option<f64>],
) {
    for j in joints {
        let c = BODY_ANGLES + j;
        let mut track: Vec<f64> = rows.iter().map(|r| r[c]).collect();
        bound(&mut track, &profile.joints[j], max_step[j]);
        for (r, v) in rows.iter_mut().zip(track) {
            r[c] = v;
        }
    }
}

/// A follower that moves toward the track by at most `max_step` per sample: the track
/// as a joint that cannot move faster would play it.
pub fn limit_speed(track: &mut [f64], max_step: f64) {
    for i in 1..track.len() {
        let previous = track[i - 1];
        track[i] = previous + (track[i] - previous).clamp(-max_step, max_step);
    }
}

/// Samples needed to move every channel from `from` to `to` without exceeding its
/// per-sample step (`None`: no limit), so that all channels arrive together.
pub fn ramp_length(from: &[f64], to: &[f64], max_step: &[Option<f64>]) -> usize {
    from.iter()
        .zip(to)
        .zip(max_step)
        .filter_map(|((a, b), step)| step.map(|s| ((b - a).abs() / s).ceil() as usize))
        .max()
        .unwrap_or(0)
}

/// A linear ramp of `steps` samples from `from` to `to`, excluding `from` and including
/// `to`, one row per sample.
pub fn ramp(from: &[f64], to: &[f64], steps: usize) -> Vec<Vec<f64>> {
    (1..=steps)
        .map(|i| {
            let s = i as f64 / steps as f64;
            from.iter().zip(to).map(|(a, b)| a + (b - a) * s).collect()
        })
        .collect()
}

/// The fewest keyframes for `rows` (one row of channel values in µrad per grid
/// sample): indices of the samples that become keyframes, first and last included.
/// Every sample between two keyframes lies within `tolerance_urad` minus the truncation
/// margin of the straight line between them, on every channel.
pub fn reduce(rows: &[Vec<i32>], tolerance_urad: i64, steps_per_frame: usize) -> Vec<usize> {
    let n = rows.len();
    if n <= 1 {
        return (0..n).collect();
    }
    let max_steps = max_segment_steps(tolerance_urad, steps_per_frame);
    // Shortest path: best[b] = fewest keyframes ending with one at b.
    let mut best = vec![usize::MAX; n];
    let mut from = vec![0usize; n];
    best[0] = 1;
    for a in 0..n - 1 {
        if best[a] == usize::MAX {
            continue;
        }
        for b in reachable(rows, a, tolerance_urad, steps_per_frame, max_steps) {
            if best[a] + 1 < best[b] {
                best[b] = best[a] + 1;
                from[b] = a;
            }
        }
    }
    let mut keys = vec![n - 1];
    let mut at = n - 1;
    while at != 0 {
        at = from[at];
        keys.push(at);
    }
    keys.reverse();
    keys
}

/// The longest segment the truncation margin allows to be worth its while: its margin
/// takes at most a quarter of the tolerance.
fn max_segment_steps(tolerance_urad: i64, steps_per_frame: usize) -> usize {
    let frames = (tolerance_urad / 8).max(1) as usize;
    (frames / steps_per_frame.max(1)).clamp(1, MAX_SEGMENT_STEPS)
}

/// Integer truncation over a segment of `steps` grid samples: at most 2n + 2 µrad for n
/// interpolation frames of 16 ms.
fn truncation_margin(steps: usize, steps_per_frame: usize) -> i64 {
    let frames = (steps * steps_per_frame) as i64; // n + 1
    2 * frames
}

/// How far a sample may lie from a keyframe line: the tolerance less the integer
/// truncation of the longest segment [`reduce`] allows.
pub fn effective_tolerance(tolerance_urad: i64, steps_per_frame: usize) -> f64 {
    let max_steps = max_segment_steps(tolerance_urad, steps_per_frame);
    (tolerance_urad - truncation_margin(max_steps, steps_per_frame)).max(0) as f64
}

/// Every b > a such that the line from sample a to sample b keeps each sample between
/// them within the tolerance (less the margin for the longest allowed segment).
///
/// For each channel the slopes that keep samples a+1..i within ±tol of the line form
/// an interval that only narrows as i grows; b is reachable when its own slope lies in
/// the interval of the samples before it. Once an interval is empty nothing further is.
fn reachable(
    rows: &[Vec<i32>],
    a: usize,
    tolerance_urad: i64,
    steps_per_frame: usize,
    max_steps: usize,
) -> Vec<usize> {
    let tol = effective_tolerance(tolerance_urad, steps_per_frame);
    let channels = rows[a].len();
    let mut lo = vec![f64::NEG_INFINITY; channels];
    let mut hi = vec![f64::INFINITY; channels];
    let mut out = Vec::new();
    let last = (a + max_steps).min(rows.len() - 1);
    for b in a + 1..=last {
        let d = (b - a) as f64;
        let fits = (0..channels).all(|c| {
            let slope = f64::from(rows[b][c] - rows[a][c]) / d;
            slope >= lo[c] - 1e-12 && slope <= hi[c] + 1e-12
        });
        if fits {
            out.push(b);
        }
        // Sample b now lies between a and any later end.
        let mut open = true;
        for c in 0..channels {
            let rise = f64::from(rows[b][c] - rows[a][c]);
            lo[c] = lo[c].max((rise - tol) / d);
            hi[c] = hi[c].min((rise + tol) / d);
            open &= lo[c] <= hi[c] + 1e-12;
        }
        if !open {
            break;
        }
    }
    out
}

/// MTN keyframes from grid rows (body roll, pitch, yaw, then joints, in µrad) and the
/// chosen samples. A keyframe after `k` grid steps of `steps_per_frame` 16 ms frames
/// has `k·steps_per_frame − 1` interpolation frames before it.
pub fn to_keyframes(rows: &[Vec<i32>], keys: &[usize], steps_per_frame: usize) -> Vec<Keyframe> {
    let mut previous = None;
    keys.iter()
        .filter_map(|&k| {
            let row = rows.get(k)?;
            let frames_before = match previous {
                Some(p) => ((k - p) * steps_per_frame - 1) as u32,
                None => 0,
            };
            previous = Some(k);
            Some(Keyframe {
                frames_before,
                roll: row.first().copied().unwrap_or(0),
                pitch: row.get(1).copied().unwrap_or(0),
                yaw: row.get(2).copied().unwrap_or(0),
                joints: row.iter().skip(BODY_ANGLES).copied().collect(),
            })
        })
        .collect()
}

/// How tracks become a motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Keyframe grid in ms: 16 or a multiple of it.
    pub frame_ms: u32,
    /// Largest difference, in radians, between the written motion's playback and the
    /// limited track.
    pub tolerance: f64,
    pub start_pose: String,
    pub end_pose: String,
    pub name: String,
    pub creator: String,
    /// Body roll, pitch and yaw from the source's pelvis, rather than the posture's.
    pub body_attitude: bool,
}

impl Default for Options {
    /// `build`'s defaults: Sony's 16 ms grid, 0.5° tolerance, from and to standing.
    fn default() -> Options {
        Options {
            frame_ms: 16,
            tolerance: 0.5f64.to_radians(),
            start_pose: "stand".into(),
            end_pose: "stand".into(),
            name: "motion".into(),
            creator: "aibo-motion".into(),
            body_attitude: false,
        }
    }
}

/// Speed limits keep this much headroom, so that rounding to µrad never tips a segment
/// over its joint's limit.
const SPEED_HEADROOM: f64 = 0.995;

/// The ramps from the start posture and to the end posture move each joint at most
/// this share of its top speed: gently, as the bridge's own ramp to rest does, rather
/// than snapping into and out of the motion.
pub const RAMP_SPEED_SHARE: f64 = 0.25;

/// Why tracks cannot become a motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyframeError {
    #[error(
        "frame time {ms} ms: keyframes lie on Sony's 16 ms grid, so use 16 or a multiple of it"
    )]
    FrameTime { ms: u32 },
    #[error("the tolerance must be above 0")]
    Tolerance,
    #[error("the {model} has no posture {posture:?} (known: {})", known.join(", "))]
    NoPosture {
        model: String,
        posture: String,
        known: Vec<String>,
    },
    #[error(
        "{count} keyframes: an MTN file holds at most 65535; raise --tolerance-deg or --frame-ms"
    )]
    TooManyKeyframes { count: usize },
}

/// A motion made from tracks, and where the tracks play in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyframed {
    pub motion: Motion,
    /// When the source's first frame plays, in ms from the motion's start: after the
    /// ramp from the start posture.
    pub source_start_ms: u64,
    /// How long the ramp from the motion's last pose to the end posture lasts, ms.
    pub ramp_out_ms: u64,
}

/// A grid row's leading columns: the body's roll, pitch and yaw; the joints follow.
pub const BODY_ANGLES: usize = 3;

/// The motion's rows on the keyframe grid, before the ramps from and to the postures:
/// body roll, pitch and yaw, then every profile joint, radians, each joint within its
/// limits and speed. Row `k` plays `k` grid steps after the source's first frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub rows: Vec<Vec<f64>>,
    /// The grid's spacing, ms (16 or a multiple).
    pub frame_ms: u32,
}

impl Grid {
    /// The grid's spacing, seconds.
    pub fn step_s(&self) -> f64 {
        f64::from(self.frame_ms) / 1000.0
    }

    /// The grid with its first row held `lead` rows before it and its last row `tail`
    /// rows after it.
    pub fn padded(&self, lead: usize, tail: usize) -> Grid {
        let (Some(first), Some(last)) = (self.rows.first(), self.rows.last()) else {
            return self.clone();
        };
        let rows = std::iter::repeat_n(first, lead)
            .chain(&self.rows)
            .chain(std::iter::repeat_n(last, tail))
            .cloned()
            .collect();
        Grid {
            rows,
            frame_ms: self.frame_ms,
        }
    }
}

/// The options' frame time and tolerance, checked.
fn check_options(options: &Options) -> Result<(), KeyframeError> {
    if options.frame_ms == 0 || !options.frame_ms.is_multiple_of(16) {
        return Err(KeyframeError::FrameTime {
            ms: options.frame_ms,
        });
    }
    if !(options.tolerance.is_finite() && options.tolerance > 0.0) {
        return Err(KeyframeError::Tolerance);
    }
    Ok(())
}

/// The options' start and end postures.
fn postures<'p>(
    profile: &'p Profile,
    options: &Options,
) -> Result<(&'p Posture, &'p Posture), KeyframeError> {
    let posture = |name: &str| {
        profile
            .postures
            .get(name)
            .ok_or_else(|| KeyframeError::NoPosture {
                model: profile.model.clone(),
                posture: name.to_string(),
                known: profile.postures.keys().cloned().collect(),
            })
    };
    Ok((posture(&options.start_pose)?, posture(&options.end_pose)?))
}

/// Each joint's largest step per grid sample (none for a joint without a speed), with
/// the headroom that keeps rounding within the speed.
pub fn max_steps(profile: &Profile, frame_ms: u32) -> Vec<Option<f64>> {
    let dt = f64::from(frame_ms) / 1000.0;
    profile
        .joints
        .iter()
        .map(|j| j.max_speed.map(|v| v * dt * SPEED_HEADROOM))
        .collect()
}

/// Retargeted tracks on the keyframe grid: every joint within its limits and speed;
/// joints the tracks do not drive hold the start posture; the body's attitude the
/// source's when asked for, else the start posture's pitch.
pub fn grid(tracks: &Tracks, profile: &Profile, options: &Options) -> Result<Grid, KeyframeError> {
    check_options(options)?;
    let (start, _) = postures(profile, options)?;
    let dt = f64::from(options.frame_ms) / 1000.0;
    let max_step = max_steps(profile, options.frame_ms);

    // Each joint's track on the grid, within limits and speed.
    let mut columns: Vec<Vec<f64>> = Vec::with_capacity(profile.joints.len());
    for (i, joint) in profile.joints.iter().enumerate() {
        let mut column = match tracks.joints.get(i).and_then(Option::as_ref) {
            Some(track) if !joint.binary => resample(track, tracks.frame_time, dt),
            _ => vec![start.joints[i]],
        };
        bound(&mut column, joint, max_step[i]);
        columns.push(column);
    }
    // The source's duration on the grid, whatever drives the joints.
    let duration = tracks.duration();
    let samples =
        ((duration / dt).ceil() as usize + 1).max(columns.iter().map(Vec::len).max().unwrap_or(1));

    // Body attitude (roll, pitch, yaw) on the grid: the source's when asked for, else
    // the start posture's pitch.
    let body: Vec<Vec<f64>> = match (&tracks.body, options.body_attitude) {
        (Some(b), true) => b
            .iter()
            .map(|t| resample(t, tracks.frame_time, dt))
            .collect(),
        _ => vec![vec![0.0], vec![start.body_pitch], vec![0.0]],
    };
    let row = |k: usize| -> Vec<f64> {
        let at = |c: &Vec<f64>| c.get(k).or(c.last()).copied().unwrap_or(0.0);
        body.iter().map(at).chain(columns.iter().map(at)).collect()
    };
    Ok(Grid {
        rows: (0..samples).map(row).collect(),
        frame_ms: options.frame_ms,
    })
}

/// A posture as a grid row: the body's roll, pitch and yaw, then every joint.
fn posture_row(p: &Posture) -> Vec<f64> {
    [0.0, p.body_pitch, 0.0]
        .into_iter()
        .chain(p.joints.iter().copied())
        .collect()
}

/// Each grid column's largest step in the ramps from and to the postures.
fn ramp_limits(max_step: &[Option<f64>]) -> Vec<Option<f64>> {
    [None, None, None]
        .into_iter()
        .chain(max_step.iter().map(|s| s.map(|s| s * RAMP_SPEED_SHARE)))
        .collect()
}

/// The rows [`finish`] plays from the start posture into a grid whose first row is
/// `first` (rows of `frame_ms`): the ramp, the posture's own row left out, ending in
/// `first` (none where the motion starts in the posture).
pub fn ramp_in(
    first: &[f64],
    profile: &Profile,
    options: &Options,
) -> Result<Vec<Vec<f64>>, KeyframeError> {
    let (start, _) = postures(profile, options)?;
    let start_row = posture_row(start);
    let limits = ramp_limits(&max_steps(profile, options.frame_ms));
    let steps = ramp_length(&start_row, first, &limits);
    Ok(ramp(&start_row, first, steps))
}

/// A motion from grid rows: it starts in the start posture, ramps into the rows at a
/// share of each joint's speed, plays them, ramps to the end posture, and is reduced to
/// the fewest keyframes the tolerance allows.
pub fn finish(
    grid: &Grid,
    profile: &Profile,
    options: &Options,
) -> Result<Keyframed, KeyframeError> {
    check_options(options)?;
    let (start, end) = postures(profile, options)?;
    if grid.frame_ms != options.frame_ms {
        return Err(KeyframeError::FrameTime { ms: grid.frame_ms });
    }
    let steps_per_frame = (options.frame_ms / 16) as usize;
    let max_step = max_steps(profile, options.frame_ms);
    let ramp_limits = ramp_limits(&max_step);

    // Rows: start posture, a ramp into the motion, the motion, a ramp to the end posture.
    let start_row = posture_row(start);
    let first = grid
        .rows
        .first()
        .cloned()
        .unwrap_or_else(|| start_row.clone());
    let steps = ramp_length(&start_row, &first, &ramp_limits);
    let source_start_ms = steps as u64 * u64::from(options.frame_ms);
    let mut rows = vec![start_row.clone()];
    rows.extend(ramp(&start_row, &first, steps));
    if steps == 0 {
        rows[0] = first; // the motion starts in the posture: no need to hold it twice
    }
    rows.extend(grid.rows.iter().skip(1).cloned());
    let last = rows.last().cloned().unwrap_or_default();
    let end_row = posture_row(end);
    let steps = ramp_length(&last, &end_row, &ramp_limits).max(1);
    let ramp_out_ms = steps as u64 * u64::from(options.frame_ms);
    rows.extend(ramp(&last, &end_row, steps));

    let grid: Vec<Vec<i32>> = rows
        .iter()
        .map(|row| row.iter().map(|&v| rad_to_urad(v)).collect())
        .collect();
    let tolerance_urad = (options.tolerance * 1e6).round() as i64;
    let keys = reduce(&grid, tolerance_urad, steps_per_frame);
    if keys.len() > usize::from(u16::MAX) {
        return Err(KeyframeError::TooManyKeyframes { count: keys.len() });
    }
    let motion = Motion {
        name: options.name.clone(),
        creator: options.creator.clone(),
        design_label: profile.design_label.clone(),
        frame_ms: crate::mtn::FRAME_MS,
        locators: profile.joints.iter().map(|j| j.locator.clone()).collect(),
        keyframes: to_keyframes(&grid, &keys, steps_per_frame),
        layout: Layout::default(),
    };
    Ok(Keyframed {
        motion,
        source_start_ms,
        ramp_out_ms,
    })
}

/// A motion from retargeted tracks: [`grid`], then [`finish`].
pub fn build_motion(
    tracks: &Tracks,
    profile: &Profile,
    options: &Options,
) -> Result<Keyframed, KeyframeError> {
    finish(&grid(tracks, profile, options)?, profile, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resample_interpolates_and_covers_the_duration() {
        let r = resample(&[0.0, 10.0, 20.0], 0.1, 0.04);
        // 0.2 s at 0.04 s: samples at 0, .04, … .2.
        assert_eq!(r.len(), 6);
        for (got, want) in r.iter().zip([0.0, 4.0, 8.0, 12.0, 16.0, 20.0]) {
            assert!((got - want).abs() < 1e-9, "{got} {want}");
        }
    }

    #[test]
    fn speed_limit_follows_at_most_max_step() {
        let mut t = vec![0.0, 10.0, 10.0, 10.0, -10.0];
        limit_speed(&mut t, 4.0);
        assert_eq!(t, [0.0, 4.0, 8.0, 10.0, 6.0]);
    }

    #[test]
    fn a_straight_line_needs_two_keyframes() {
        let rows: Vec<Vec<i32>> = (0..50).map(|i| vec![0, 0, 0, i * 1000, -i * 37]).collect();
        assert_eq!(reduce(&rows, 8727, 1), [0, 49]);
    }
}
