//! Walks where the performer walks: the performer's travel (`retarget::locomotion`)
//! becomes the path the walk follows (`gait`: a crawl or a trot), scaled by leg length
//! (the robot's leg over the performer's), and the walk's leg angles replace the
//! retargeted legs on its rows, eased in from the gesture before and out to the gesture
//! after.

use super::gait::{smooth, Gait, Place, Style, CATCH_UP_S};
use super::plan::{Plan, Walk};
use crate::keyframes::{self, Grid, BODY_ANGLES};
use crate::retarget::locomotion::{Span, Travel};
use crate::retarget::Tracks;
use crate::robot::profile::Profile;
use glam::DVec2;

#[cfg(feature = "physics")]
use super::physics::PathPoint;

/// How a walk knows where its body is, to steer by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steering {
    /// By where the simulated body goes as the walk is made ([`super::floor`]).
    Felt,
    /// By the walk's own reckoning, which knows no slip (without the simulation).
    Reckoned,
}

/// The way the robot walks: its gait's style, and how it steers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Way {
    pub style: Style,
    pub steering: Steering,
}

impl Way {
    /// The crawl, steered by its own reckoning: what needs no simulation.
    pub const RECKONED_CRAWL: Way = Way {
        style: Style::CRAWL,
        steering: Steering::Reckoned,
    };
}

/// How far before and after a travel span the walk's path reaches, s.
const PATH_MARGIN_S: f64 = 0.5;

/// Travel shorter than this is no walk, leg lengths: a step or two.
const MIN_WALK_LEGS: f64 = 1.0;

/// Travel spans closer than this are one walk, s: stepping home, swaying back and blending
/// out and in again take about this long.
const JOIN_S: f64 = 3.5;

/// The legs blend from the gesture into the walk's first row over this long, and from
/// its last row back, s.
pub const BLEND_S: f64 = 0.3;

/// [`BLEND_S`] in rows `row_s` apart (at least one).
pub fn blend_rows(row_s: f64) -> usize {
    (BLEND_S / row_s).round().max(1.0) as usize
}

/// What the walks follow: the performer's travel (`travel`: the take's spans of
/// locomotion, and `velocities`: how they move on each frame of `tracks`, as
/// [`crate::retarget::locomotion::velocities`]), and where the performance waits for a
/// walk (`waits`, in the take's seconds; the rest in the performance's, waits in); and
/// whether the last walk must be home in the stand by the performance's end
/// (`home_by_end`, `--timing fit`) rather than finish the performer's path after it.
#[derive(Clone, Copy)]
pub struct Performance<'a> {
    pub travel: &'a [Span],
    pub tracks: &'a Tracks,
    pub velocities: &'a [[f64; 3]],
    pub waits: &'a [Wait],
    pub home_by_end: bool,
}

/// The walks for the `performance`'s travel, on a grid of rows `row_s` apart whose
/// performance starts at row `lead`, in `style`, each steered by its own reckoning
/// ([`felt_in_context`] steers them by the simulated floor). Travel spans closer than
/// `JOIN_S` are one walk; each walk is back in the stand before the next blends in,
/// and by the end of the wait for it. The last walk may run past the performance's end
/// (the grid must be padded to hold it), unless it must be home by then. Each walk
/// steps off `spots` and back onto them: where the robot stands between its walks, each
/// paw's place against the gait's in the stand (mm, body frame; zero: the stand's,
/// [`Gait::standing_on`]).
pub fn plan(
    performance: Performance,
    profile: &Profile,
    grid: &Grid,
    lead: usize,
    style: Style,
    spots: [DVec2; 4],
) -> Vec<Walk> {
    let Performance {
        travel,
        tracks,
        velocities,
        waits,
        home_by_end,
    } = performance;
    let row_s = grid.step_s();
    let Some(gait) = Gait::styled(profile, style).map(|g| g.standing_on(spots)) else {
        return Vec::new();
    };
    let groups = walked_groups(travel, tracks);
    if groups.is_empty() || !row_s.is_finite() || row_s <= 0.0 {
        return Vec::new();
    }
    let blend = blend_rows(row_s);
    let row_of = |s: f64| lead + (s / row_s).round() as usize;
    let waits = played_waits(waits);
    // The last walk blended out by the performance's end, where it must be home by then.
    let end = home_by_end.then(|| row_of(tracks.duration()).saturating_sub(blend));
    // Each walk is home in the stand, and blended out, before the next one blends in,
    // and by the end of the wait after it.
    let mut walks: Vec<Walk> = Vec::new();
    for (k, &(start_s, end_s)) in groups.iter().enumerate() {
        let next = groups
            .get(k + 1)
            .map(|next| row_of(next.0).saturating_sub(2 * blend + 1))
            .or(end);
        let waited = wait_for((start_s, end_s), &waits).map(|w| row_of(w.1).saturating_sub(blend));
        let until = match (next, waited) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let walk = walk_for(
            &gait,
            velocities,
            tracks.frame_time,
            (start_s, end_s),
            row_s,
            lead,
            until,
        );
        if !walk.gait.legs.is_empty() {
            walks.push(walk);
        }
    }
    walks
}

/// The seconds of the performance each walk follows: the spans of `travel` walked, those
/// with less than a pause between them joined. Travel only, and far enough to be worth
/// the walk's sway in and out and its steps home: a performer turning on the spot (a
/// dancer's pirouette) turns faster than a crawl can and gestures as they turn, and a
/// step or two is a gesture; the legs keep gesturing there.
fn walked_groups(travel: &[Span], tracks: &Tracks) -> Vec<(f64, f64)> {
    let mut groups: Vec<(f64, f64)> = Vec::new();
    for span in travel.iter().filter(|s| not_walked(s).is_none()) {
        match groups.last_mut() {
            Some(last) if span.start_s - last.1 < JOIN_S => last.1 = span.end_s,
            _ => groups.push((span.start_s, span.end_s)),
        }
    }
    // The spans' speeds are a second's averages: the travel itself starts and ends up to
    // half a second further out, and the path follows all of it.
    let take_s = tracks.duration();
    for g in &mut groups {
        *g = (
            (g.0 - PATH_MARGIN_S).max(0.0),
            (g.1 + PATH_MARGIN_S).min(take_s),
        );
    }
    groups
}

/// Where the performance waits for a walk: at `at_s` (s into the take) the performer's
/// pose holds for `wait_s` more, and everything after plays that much later.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wait {
    pub at_s: f64,
    pub wait_s: f64,
}

/// Where the performance must wait for its walks in `style` (on a grid of rows `row_s`
/// apart): a walk the robot needs longer for than the performer took (it walks their
/// path later where they go faster than it can, and steps home after) would otherwise
/// walk over the gestures after it. Each walk's length is its own reckoning, with
/// nothing after it to be home for, and the [`CATCH_UP_S`] a walk steered by the floor
/// may walk on to arrive. (A felt walk left a turn behind may walk on longer; a wait
/// does not know that, so only the last walk, with nothing after it, is sure to make
/// that up.) In the take's order.
pub fn waits(performance: Performance, profile: &Profile, row_s: f64, style: Style) -> Vec<Wait> {
    let Performance {
        travel,
        tracks,
        velocities,
        ..
    } = performance;
    let Some(gait) = Gait::styled(profile, style) else {
        return Vec::new();
    };
    if !row_s.is_finite() || row_s <= 0.0 {
        return Vec::new();
    }
    let blend = blend_rows(row_s);
    walked_groups(travel, tracks)
        .into_iter()
        .filter_map(|group| {
            let walk = walk_for(&gait, velocities, tracks.frame_time, group, row_s, 0, None);
            // A walk steered by the floor may walk on to get there: the wait allows for it.
            let done_s = (walk.rows().end + blend) as f64 * row_s + CATCH_UP_S;
            (done_s > group.1).then_some(Wait {
                at_s: group.1,
                wait_s: done_s - group.1,
            })
        })
        .collect()
}

/// Where the robot walks on `plan`, in the performance's seconds (the blends either
/// side included, and the seam between two walks too close for a paw to lift between
/// them, where every paw stays down in the stand), and where the performance waits for
/// a walk to finish (`waits`, as [`played_waits`] plays them).
pub fn walking_s(plan: &Plan, waits: &[Wait]) -> Vec<(f64, f64)> {
    let blend = blend_rows(plan.row_s);
    let lead = plan.padding.lead as f64;
    let s = |row: usize| (row as f64 - lead) * plan.row_s;
    // Each walk's seconds, with the last row it holds every paw down to; a seam too
    // short for a lift joins it to the walk before.
    let mut walks: Vec<(f64, f64, usize)> = Vec::new();
    for w in &plan.walks {
        let rows = w.rows();
        let span_s = (s(rows.start) - BLEND_S, s(rows.end) + BLEND_S);
        let (from, to) = w.held_rows(blend);
        match walks.last_mut() {
            Some(last) if !plan.lift_fits_between(last.2, from) => {
                (last.1, last.2) = (span_s.1, to)
            }
            _ => walks.push((span_s.0, span_s.1, to)),
        }
    }
    let walks = walks.into_iter().map(|(from, to, _)| (from, to));
    walks.chain(played_waits(waits)).collect()
}

/// Where the performance waits for a walk (`waits`, in the take's seconds), in its own
/// seconds (the waits before in): from and to.
pub fn played_waits(waits: &[Wait]) -> Vec<(f64, f64)> {
    let mut waited = 0.0;
    waits
        .iter()
        .map(|w| {
            let at = w.at_s + waited;
            waited += w.wait_s;
            (at, at + w.wait_s)
        })
        .collect()
}

/// A wait starts on a whole frame of the take ([`waits`] puts it at its walk's path
/// end, the performance rounds it to a frame): this far past the path's end, s, it is
/// still that walk's.
const WAIT_ROUNDING_S: f64 = 0.1;

/// The wait for the walk over the performance's seconds `span` (its path, as
/// `walked_groups` gives it) among `played` (as [`played_waits`] gives them): the one
/// that starts within the span or where it ends.
pub fn wait_for(span: (f64, f64), played: &[(f64, f64)]) -> Option<(f64, f64)> {
    played
        .iter()
        .find(|wait| (span.0..=span.1 + WAIT_ROUNDING_S).contains(&wait.0))
        .copied()
}

/// A time `s` of the performance with `waits` in it, in the take's own seconds (a time
/// during a wait is where it waits).
pub fn take_s(waits: &[Wait], s: f64) -> f64 {
    let mut waited = 0.0;
    for w in waits {
        let at = w.at_s + waited;
        if s < at {
            break;
        }
        if s < at + w.wait_s {
            return w.at_s;
        }
        waited += w.wait_s;
    }
    s - waited
}

/// `span` (in the take's seconds) as it plays with `waits` in the performance.
pub fn waited(span: &Span, waits: &[Wait]) -> Span {
    let later: f64 = waits
        .iter()
        .filter(|w| w.at_s <= span.start_s)
        .map(|w| w.wait_s)
        .sum();
    Span {
        start_s: span.start_s + later,
        end_s: span.end_s + later,
        ..span.clone()
    }
}

/// The walk over the performance's seconds `span`.
fn walk_for(
    gait: &Gait,
    velocities: &[[f64; 3]],
    frame_s: f64,
    span: (f64, f64),
    row_s: f64,
    lead: usize,
    until: Option<usize>,
) -> Walk {
    let path = span_path(velocities, frame_s, gait.leg_mm, span, row_s);
    let start = lead + (span.0 / row_s).round() as usize;
    Walk {
        start,
        gait: gait.walk(&path, row_s, until.map(|u| u.saturating_sub(start)), None),
        source_s: span,
        path,
        until,
    }
}

/// The `walks` felt again in order, each in the motion as it plays up to its start: the
/// simulated robot plays every row before it (the gestures, the blends, the walks
/// before), then the walk steers from where that left the body. Felt alone, from the
/// stand, a walk steered by a floor the proof's was not: the jumping take's on the
/// ERS-210 ended facing −70° in the proof for the performer's −26° (−22° felt in its
/// place). `motion(walks, i)` gives the motion's grid rows, `row_s` apart, up to walk
/// `i`'s end with those walks laid on (it is asked for each walk in turn); `ramp_in`
/// the rows the written motion plays from its start posture into a first row (as
/// `keyframes::ramp_in`), which the robot plays first, as the proof will; each walk
/// steps off `spots` and back onto them (as [`plan`] has it). Also says
/// where the floor had the body on every row it played, as the proof's path has it
/// (from where the robot stood before the motion; empty where nothing was felt). Walks the robot
/// cannot be simulated for are left as they are.
#[cfg(feature = "physics")]
pub fn felt_in_context(
    mut walks: Vec<Walk>,
    profile: &Profile,
    style: Style,
    spots: [DVec2; 4],
    row_s: f64,
    motion: &mut dyn FnMut(&[Walk], usize) -> Grid,
    ramp_in: &dyn Fn(&[f64]) -> Vec<Vec<f64>>,
) -> (Vec<Walk>, Vec<PathPoint>) {
    let mut path = Vec::new();
    let Some(gait) = Gait::styled(profile, style).map(|g| g.standing_on(spots)) else {
        return (walks, path);
    };
    let torque = crate::pipeline::PROOF_TORQUE;
    let Some(mut floor) = super::floor::Floor::new(profile, gait.joints(), row_s, torque) else {
        return (walks, path);
    };
    let row_ms = (row_s * 1000.0).round() as u64;
    let on_path = |path: &mut Vec<PathPoint>, place: Place| {
        path.push(PathPoint {
            t_ms: path.len() as u64 * row_ms,
            x_mm: place.at.x,
            y_mm: place.at.y,
            z_mm: 0.0,
            tilt_deg: 0.0,
            heading_deg: place.heading.to_degrees(),
        });
    };
    let (mut played, mut here) = (0, Place::default());
    for i in 0..walks.len() {
        let start = walks[i].start;
        let grid = motion(&walks, i);
        if i == 0 {
            // From the start posture, into the first row (the ramp ends on it).
            let first = grid.rows.first().map_or(&[][..], Vec::as_slice);
            let ramp = ramp_in(first);
            for row in ramp.iter().take(ramp.len().saturating_sub(1)) {
                if floor
                    .play(row.get(BODY_ANGLES..).unwrap_or_default())
                    .is_none()
                {
                    return (walks, Vec::new());
                }
            }
        }
        for row in grid.rows.iter().take(start).skip(played) {
            match floor.play(row.get(BODY_ANGLES..).unwrap_or_default()) {
                Some(place) => {
                    here = place;
                    on_path(&mut path, place);
                }
                None => return (walks, Vec::new()),
            }
        }
        // As `plan` has it: back in the stand before what follows needs the legs.
        let until = walks[i].until.map(|u| u.saturating_sub(start));
        // The walk heads for the performer's path, joined up from the walks before (as
        // the path figures join it), not from where they left the body: what they fell
        // short, walk `i` makes up.
        let started = here;
        let origin = walks[..i]
            .iter()
            .fold(Place::default(), |end, w| end.then(w.goal()));
        let mut rows = grid.rows.iter().skip(start);
        let Some(mut others) = grid.rows.get(start) else {
            return (walks, Vec::new());
        };
        let mut lost = false;
        let mut felt = |legs: &[[f64; 3]; 4], _reckoned| {
            others = rows.next().unwrap_or(others);
            let place = floor.feel(legs, others.get(BODY_ANGLES..).unwrap_or_default());
            lost |= place.is_none();
            place.map(|p| {
                here = p;
                on_path(&mut path, p);
                p.seen_from(origin)
            })
        };
        let walked = gait.walk(&walks[i].path, row_s, until, Some(&mut felt));
        if lost || walked.legs.is_empty() {
            return (walks, Vec::new());
        }
        walks[i].gait = walked;
        played = walks[i].rows().end;
        tracing::debug!(
            "walk {} felt in its place: the body ends at {:.0}, {:.0} mm, heading {:.0}°, from {:.0}, {:.0} mm, heading {:.0}° (the performer's path from {:.0}, {:.0} mm, heading {:.0}°)",
            i + 1,
            here.at.x,
            here.at.y,
            here.heading.to_degrees(),
            started.at.x,
            started.at.y,
            started.heading.to_degrees(),
            origin.at.x,
            origin.at.y,
            origin.heading.to_degrees()
        );
    }
    (walks, path)
}

/// The performer's path over the floor, scaled to the robot's legs (`leg_mm` per leg
/// length), at the rows `rows` (`row_s` apart from the take's first frame), from where
/// it is at the first: their travel ([`crate::retarget::locomotion::velocities`], frames `frame_s`
/// apart) added up.
pub fn performer_path(
    velocities: &[[f64; 3]],
    frame_s: f64,
    leg_mm: f64,
    rows: std::ops::RangeInclusive<usize>,
    row_s: f64,
) -> Vec<Place> {
    let mut place = Place::default();
    rows.map(|r| {
        let t = r as f64 * row_s;
        let frame = ((t / frame_s).round() as usize).min(velocities.len().saturating_sub(1));
        let v = velocities.get(frame).copied().unwrap_or_default();
        let here = place;
        let ahead = DVec2::new(v[0], v[1]) * leg_mm;
        place.at += DVec2::from_angle(place.heading).rotate(ahead) * row_s;
        place.heading += v[2] * row_s;
        here
    })
    .collect()
}

/// The performer's path over the seconds `span` of the take, a place a row `row_s`
/// apart from its first (as [`performer_path`]).
fn span_path(
    velocities: &[[f64; 3]],
    frame_s: f64,
    leg_mm: f64,
    span: (f64, f64),
    row_s: f64,
) -> Vec<Place> {
    let (first, last) = (
        (span.0 / row_s).round() as usize,
        (span.1 / row_s).round() as usize,
    );
    performer_path(velocities, frame_s, leg_mm, first..=last, row_s)
}

/// The performer's path over what the robot walks of the take: the `travel` the build
/// walks (as [`plan`] groups it), each walk's path (as [`performer_path`], `leg_mm` per
/// leg length, rows `row_s` apart) from where the last ended, as [`joined`]. What
/// `simulate --take` compares the body's path with, as the build compares its walks'.
pub fn walked_path(
    travel: &[Span],
    tracks: &Tracks,
    velocities: &[[f64; 3]],
    leg_mm: f64,
    row_s: f64,
) -> (Vec<DVec2>, f64) {
    if !row_s.is_finite() || row_s <= 0.0 {
        return (vec![DVec2::ZERO], 0.0);
    }
    let paths: Vec<Vec<Place>> = walked_groups(travel, tracks)
        .into_iter()
        .map(|span| span_path(velocities, tracks.frame_time, leg_mm, span, row_s))
        .collect();
    joined(paths.iter().map(Vec::as_slice))
}

/// `paths` walked one after another, each (a path from where it starts, in the heading
/// it starts in) from where the last ended: the points from where the first starts,
/// and the heading at the end (radians turned left).
pub fn joined<'a>(paths: impl IntoIterator<Item = &'a [Place]>) -> (Vec<DVec2>, f64) {
    let mut end = Place::default();
    let mut points = vec![end.at];
    for path in paths {
        points.extend(path.iter().map(|&p| end.then(p).at));
        end = end.then(path.last().copied().unwrap_or_default());
    }
    (points, end.heading)
}

/// Why the robot does not walk the performer's `span` (see [`plan`]); `None` for travel
/// it walks.
pub fn not_walked(span: &Span) -> Option<&'static str> {
    if span.kind == Travel::Turn {
        Some("a turn on the spot, faster than a crawl turns, is a gesture")
    } else if span.distance_legs < MIN_WALK_LEGS {
        Some("less than a leg length, a step or two, is a gesture")
    } else {
        None
    }
}

/// Lays `walks` onto `grid`: the walks' leg angles on its rows, blended with the rows
/// around it over [`BLEND_S`], then every leg joint within its limits and speed.
pub fn apply(grid: &mut Grid, walks: &[Walk], profile: &Profile) {
    let row_s = grid.step_s();
    let blend = blend_rows(row_s);
    let max_step = keyframes::max_steps(profile, grid.frame_ms);
    // Columns: body roll, pitch and yaw come first.
    let column = |joint: usize| BODY_ANGLES + joint;
    for walk in walks {
        let joints = walk.gait.joints;
        let set = |grid: &mut Grid, row: usize, legs: &[[f64; 3]; 4], weight: f64| {
            let Some(values) = grid.rows.get_mut(row) else {
                return;
            };
            for (leg, angles) in joints.iter().zip(legs) {
                for (&j, &a) in leg.iter().zip(angles) {
                    if let Some(v) = values.get_mut(column(j)) {
                        *v += (a - *v) * weight;
                    }
                }
            }
        };
        let rows = walk.rows();
        let (Some(first), Some(last)) = (walk.gait.legs.first(), walk.gait.legs.last()) else {
            continue;
        };
        for k in 0..blend {
            let weight = smooth((k + 1) as f64 / (blend + 1) as f64);
            if let Some(row) = (rows.start + k).checked_sub(blend) {
                set(grid, row, first, weight);
            }
            set(grid, rows.end + k, last, 1.0 - weight);
        }
        for (k, legs) in walk.gait.legs.iter().enumerate() {
            set(grid, rows.start + k, legs, 1.0);
        }
        // The blends keep within each joint's limits and speed: from the row before the
        // blend in (the first step into it counts too: after a walk that ended late, the
        // rows there differ), eased from the walk's ends, and on until each joint has
        // caught up with the gesture after the walk (bounded only to the blend's end, a
        // joint that lagged there jumped to the next row).
        let to = grid.rows.len();
        let from = rows.start.saturating_sub(blend + 1).min(to);
        keyframes::bound_rows(
            &mut grid.rows[from..to],
            joints.iter().flatten().copied(),
            profile,
            &max_step,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::gait::Walked;

    #[test]
    fn a_time_with_waits_in_maps_back_to_the_take_s() {
        // 3 s at 2 s into the take, 1 s at 5 s (which plays at 8 s).
        let waits = [
            Wait {
                at_s: 2.0,
                wait_s: 3.0,
            },
            Wait {
                at_s: 5.0,
                wait_s: 1.0,
            },
        ];
        for (played, take) in [
            (1.0, 1.0),
            (2.0, 2.0),
            (4.9, 2.0),
            (5.5, 2.5),
            (7.9, 4.9),
            (8.5, 5.0),
            (9.5, 5.5),
        ] {
            assert!((take_s(&waits, played) - take).abs() < 1e-9, "{played}");
        }
        assert_eq!(take_s(&[], 3.0), 3.0);
        // A span after both waits plays 4 s later; one before them as it was.
        let span = |start_s: f64| Span {
            start_s,
            end_s: start_s + 1.0,
            kind: Travel::Walk,
            distance_legs: 2.0,
            forward_legs: 2.0,
            left_legs: 0.0,
            turn_deg: 0.0,
            speed_legs_per_s: 2.0,
        };
        assert_eq!(waited(&span(6.0), &waits).start_s, 10.0);
        assert_eq!(waited(&span(6.0), &waits).end_s, 11.0);
        assert_eq!(waited(&span(3.0), &waits).start_s, 6.0);
        assert_eq!(waited(&span(0.5), &waits).start_s, 0.5);
        // Each played time maps into the take, and the spans' own times come back.
        for s in [0.5, 3.0, 6.0] {
            let played = waited(&span(s), &waits).start_s;
            assert!((take_s(&waits, played) - s).abs() < 1e-9, "{s}");
        }
    }

    #[test]
    fn a_joint_that_lags_at_the_walk_s_end_catches_up_within_its_speed() {
        let profile = Profile::builtin("ERS-210").unwrap();
        let joints = Gait::of(&profile).unwrap().joints();
        // Every joint at 0 around a walk of 20 rows whose legs swing far and fast, with
        // the rows after it back at 0: the blend out cannot get there in time.
        let grid = lagging_walks(&profile, &[30]);
        for leg in joints {
            for j in leg {
                let track = within_speed(&grid, &profile, j);
                // And it does get back to the gesture after the walk.
                assert_eq!(track.last(), Some(&0.0), "joint {j}");
            }
        }
    }

    #[test]
    fn a_walk_that_blends_in_while_a_joint_still_lags_from_the_last_keeps_its_speed() {
        let profile = Profile::builtin("ERS-210").unwrap();
        let joints = Gait::of(&profile).unwrap().joints();
        // The second walk (knees straight) blends in, 19 rows before it, while the knees
        // still race back from the first's at their top speed: the blend's first row must
        // not add to that.
        for second in [70, 74, 78, 82] {
            let grid = lagging_walks(&profile, &[30, second]);
            for leg in joints {
                for j in leg {
                    within_speed(&grid, &profile, j);
                }
            }
        }
    }

    /// A grid of 160 rows of 16 ms, every joint at 0, with a walk of 20 rows starting at
    /// each of `starts` whose legs swing far and fast, laid on: the first with its knees
    /// bent far, the others with them straight.
    fn lagging_walks(profile: &Profile, starts: &[usize]) -> Grid {
        let joints = Gait::of(profile).unwrap().joints();
        let columns = 3 + profile.joints.len();
        let mut grid = Grid {
            rows: vec![vec![0.0; columns]; 160],
            frame_ms: 16,
        };
        let legs = |knee: f64| -> Vec<[[f64; 3]; 4]> {
            (0..20)
                .map(|k| [[if k % 2 == 0 { -0.6 } else { 0.6 }, 0.2, knee]; 4])
                .collect()
        };
        let walks: Vec<Walk> = starts
            .iter()
            .enumerate()
            .map(|(w, &start)| Walk {
                start,
                gait: Walked {
                    legs: legs(if w == 0 { 1.2 } else { 0.0 }),
                    joints,
                    steps: Vec::new(),
                    slowed: 1.0,
                    travel: (DVec2::ZERO, 0.0),
                    crouch_mm: 0.0,
                },
                source_s: (0.0, 1.0),
                path: Vec::new(),
                until: None,
            })
            .collect();
        apply(&mut grid, &walks, profile);
        grid
    }

    /// Joint `j`'s column of `grid`, after checking that no row moves it faster than its
    /// speed allows.
    fn within_speed(grid: &Grid, profile: &Profile, j: usize) -> Vec<f64> {
        let step = keyframes::max_steps(profile, grid.frame_ms)[j].unwrap();
        let track: Vec<f64> = grid.rows.iter().map(|r| r[BODY_ANGLES + j]).collect();
        for (k, pair) in track.windows(2).enumerate() {
            let moved = (pair[1] - pair[0]).abs();
            assert!(
                moved <= step + 1e-12,
                "joint {j}, row {k}: {moved} over {step}"
            );
        }
        track
    }
}
