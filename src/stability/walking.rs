//! Walks where the performer walks: the performer's travel (`retarget::locomotion`)
//! becomes the path the walk follows (`gait`: a crawl or a trot), scaled by leg length
//! (the robot's leg over the performer's), and the walk's leg angles replace the
//! retargeted legs on its rows, eased in from the gesture before and out to the gesture
//! after.

use super::gait::{smooth, Gait, Place, Style};
use super::plan::Walk;
use crate::keyframes::{self, Grid};
use crate::retarget::locomotion::{self, Span, Travel};
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

/// The walks for the performer's travel (`travel`: the take's spans of locomotion), on a
/// grid of rows `row_s` apart whose performance starts at row `lead`, in `style`, each
/// steered by its own reckoning ([`felt_in_context`] steers them by the simulated
/// floor). Travel spans closer than [`JOIN_S`] are one walk; each walk is back in the
/// stand before the next blends in. The last walk may run past the performance's end:
/// the grid must be padded to hold it.
pub fn plan(
    travel: &[Span],
    tracks: &Tracks,
    profile: &Profile,
    grid: &Grid,
    lead: usize,
    style: Style,
) -> Vec<Walk> {
    let row_s = grid.step_s();
    let Some(gait) = Gait::styled(profile, style) else {
        return Vec::new();
    };
    // Travel only, and far enough to be worth the walk's sway in and out and its steps
    // home: a performer turning on the spot (a dancer's pirouette) turns faster than a
    // crawl can and gestures as they turn, and a step or two is a gesture; the legs keep
    // gesturing there.
    let spans: Vec<&Span> = travel.iter().filter(|s| not_walked(s).is_none()).collect();
    if spans.is_empty() || !row_s.is_finite() || row_s <= 0.0 {
        return Vec::new();
    }
    let velocities = locomotion::velocities(&tracks.performer, tracks.frame_time);
    let blend = blend_rows(row_s);
    let row_of = |s: f64| lead + (s / row_s).round() as usize;
    // Spans with less than a pause between them are one walk.
    let mut groups: Vec<(f64, f64)> = Vec::new();
    for span in &spans {
        match groups.last_mut() {
            Some(last) if span.start_s - last.1 < JOIN_S => last.1 = span.end_s,
            _ => groups.push((span.start_s, span.end_s)),
        }
    }
    // The spans' speeds are a second's averages: the travel itself starts and ends up to
    // half a second further out, and the path follows all of it.
    let take_s = tracks.frames.saturating_sub(1) as f64 * tracks.frame_time;
    for g in &mut groups {
        *g = (
            (g.0 - PATH_MARGIN_S).max(0.0),
            (g.1 + PATH_MARGIN_S).min(take_s),
        );
    }
    // Each walk is home in the stand, and blended out, before the next one blends in.
    let mut walks: Vec<Walk> = Vec::new();
    for (k, &(start_s, end_s)) in groups.iter().enumerate() {
        let until = groups
            .get(k + 1)
            .map(|next| row_of(next.0).saturating_sub(2 * blend + 1));
        let walk = walk_for(
            &gait,
            &velocities,
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
    let (start_s, end_s) = span;
    let (first, last) = (
        (start_s / row_s).round() as usize,
        (end_s / row_s).round() as usize,
    );
    let path = performer_path(velocities, frame_s, gait.leg_mm, first..=last, row_s);
    let until = until.map(|u| u.saturating_sub(lead + first));
    Walk {
        start: lead + first,
        gait: gait.walk(&path, row_s, until, None),
        source_s: span,
        path,
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
/// `keyframes::ramp_in`), which the robot plays first, as the proof will. Also says
/// where the floor had the body on every row it played, as the proof's path has it
/// (from where the robot stood before the motion; empty where nothing was felt). Walks the robot
/// cannot be simulated for are left as they are.
#[cfg(feature = "physics")]
pub fn felt_in_context(
    mut walks: Vec<Walk>,
    profile: &Profile,
    style: Style,
    row_s: f64,
    motion: &mut dyn FnMut(&[Walk], usize) -> Grid,
    ramp_in: &dyn Fn(&[f64]) -> Vec<Vec<f64>>,
) -> (Vec<Walk>, Vec<PathPoint>) {
    let mut path = Vec::new();
    let Some(gait) = Gait::styled(profile, style) else {
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
    let blend = blend_rows(row_s);
    let (mut played, mut here) = (0, Place::default());
    for i in 0..walks.len() {
        let start = walks[i].start;
        let grid = motion(&walks, i);
        if i == 0 {
            // From the start posture, into the first row (the ramp ends on it).
            let first = grid.rows.first().map_or(&[][..], Vec::as_slice);
            let ramp = ramp_in(first);
            for row in ramp.iter().take(ramp.len().saturating_sub(1)) {
                if floor.play(row.get(3..).unwrap_or_default()).is_none() {
                    return (walks, Vec::new());
                }
            }
        }
        for row in grid.rows.iter().take(start).skip(played) {
            match floor.play(row.get(3..).unwrap_or_default()) {
                Some(place) => {
                    here = place;
                    on_path(&mut path, place);
                }
                None => return (walks, Vec::new()),
            }
        }
        // As `plan` has it: back in the stand before the next walk blends in.
        let until = walks.get(i + 1).map(|next| {
            next.start
                .saturating_sub(2 * blend + 1)
                .saturating_sub(start)
        });
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
            let place = floor.feel(legs, others.get(3..).unwrap_or_default());
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
/// it is at the first: their travel ([`locomotion::velocities`], frames `frame_s`
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
    let column = |joint: usize| 3 + joint;
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
        for leg in &joints {
            for &j in leg {
                let mut track: Vec<f64> =
                    grid.rows[from..to].iter().map(|r| r[column(j)]).collect();
                keyframes::bound(&mut track, &profile.joints[j], max_step[j]);
                for (r, v) in grid.rows[from..to].iter_mut().zip(track) {
                    r[column(j)] = v;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::gait::Walked;

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
                },
                source_s: (0.0, 1.0),
                path: Vec::new(),
            })
            .collect();
        apply(&mut grid, &walks, profile);
        grid
    }

    /// Joint `j`'s column of `grid`, after checking that no row moves it faster than its
    /// speed allows.
    fn within_speed(grid: &Grid, profile: &Profile, j: usize) -> Vec<f64> {
        let step = keyframes::max_steps(profile, grid.frame_ms)[j].unwrap();
        let track: Vec<f64> = grid.rows.iter().map(|r| r[3 + j]).collect();
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
