//! Walks where the performer walks: the performer's travel (`retarget::locomotion`)
//! becomes the crawl's velocities (`gait`), scaled by leg length (the robot's leg over
//! the performer's), and the crawl's leg angles replace the retargeted legs on its rows,
//! eased in from the gesture before and out to the gesture after.

use super::gait::{Gait, Place};
use super::plan::Walk;
use crate::keyframes::{self, Grid};
use crate::retarget::{locomotion, Tracks};
use crate::robot::profile::Profile;
use glam::DVec2;

/// The legs blend from the gesture into the walk's first row over this long, and from
/// its last row back, s.
pub const BLEND_S: f64 = 0.3;

/// The walks for the performer's travel, on a grid of rows `row_s` apart whose
/// performance starts at row `lead`. Travel spans that the walk of the one before would
/// still be finishing join it. The last walk may run past the performance's end: the
/// grid must be padded to hold it.
pub fn plan(tracks: &Tracks, profile: &Profile, row_s: f64, lead: usize) -> Vec<Walk> {
    let Some(gait) = Gait::of(profile) else {
        return Vec::new();
    };
    let spans = locomotion::spans(&tracks.performer, tracks.frame_time);
    if spans.is_empty() || !row_s.is_finite() || row_s <= 0.0 {
        return Vec::new();
    }
    let velocities = locomotion::velocities(&tracks.performer, tracks.frame_time);
    let blend = (BLEND_S / row_s).round() as usize;
    let row_of = |s: f64| lead + (s / row_s).round() as usize;
    let mut walks: Vec<Walk> = Vec::new();
    let mut groups: Vec<(f64, f64)> = Vec::new();
    for span in &spans {
        groups.push((span.start_s, span.end_s));
    }
    let mut k = 0;
    while k < groups.len() {
        let (mut start_s, mut end_s) = groups[k];
        let mut walk = walk_for(
            &gait,
            &velocities,
            tracks.frame_time,
            (start_s, end_s),
            row_s,
            lead,
        );
        // Join the spans that start before this walk has finished and blended out.
        while let Some(&(next_start, next_end)) = groups.get(k + 1) {
            if row_of(next_start) > walk.rows().end + 2 * blend {
                break;
            }
            end_s = next_end;
            k += 1;
            walk = walk_for(
                &gait,
                &velocities,
                tracks.frame_time,
                (start_s, end_s),
                row_s,
                lead,
            );
        }
        // A walk must leave room before it to blend in after the one before.
        if let Some(last) = walks.last() {
            if walk.start < last.rows().end + blend {
                start_s = ((last.rows().end + blend).saturating_sub(lead)) as f64 * row_s;
                if start_s >= end_s {
                    k += 1;
                    continue;
                }
                walk = walk_for(
                    &gait,
                    &velocities,
                    tracks.frame_time,
                    (start_s, end_s),
                    row_s,
                    lead,
                );
            }
        }
        if !walk.gait.legs.is_empty() {
            walks.push(walk);
        }
        k += 1;
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
) -> Walk {
    let (start_s, end_s) = span;
    let first = lead + (start_s / row_s).round() as usize;
    let last = lead + (end_s / row_s).round() as usize;
    // The performer's path, scaled to the robot's legs, from where the walk starts.
    let mut place = Place::default();
    let path: Vec<Place> = (first..=last)
        .map(|r| {
            let t = (r - lead) as f64 * row_s;
            let frame = ((t / frame_s).round() as usize).min(velocities.len().saturating_sub(1));
            let v = velocities.get(frame).copied().unwrap_or_default();
            let here = place;
            let ahead = DVec2::new(v[0], v[1]) * gait.leg_mm;
            place.at += DVec2::from_angle(place.heading).rotate(ahead) * row_s;
            place.heading += v[2] * row_s;
            here
        })
        .collect();
    Walk {
        start: first,
        gait: gait.walk(&path, row_s),
        source_s: span,
        goal: path.last().copied().unwrap_or_default(),
        goal_path_mm: path.windows(2).map(|w| w[0].at.distance(w[1].at)).sum(),
    }
}

/// Lays `walks` onto `grid`: the crawl's leg angles on its rows, blended with the rows
/// around it over [`BLEND_S`], then every leg joint within its limits and speed.
pub fn apply(grid: &mut Grid, walks: &[Walk], profile: &Profile) {
    let row_s = grid.step_s();
    let blend = (BLEND_S / row_s).round().max(1.0) as usize;
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
            let weight = (k + 1) as f64 / (blend + 1) as f64;
            let weight = weight * weight * (3.0 - 2.0 * weight);
            if let Some(row) = (rows.start + k).checked_sub(blend) {
                set(grid, row, first, weight);
            }
            set(grid, rows.end + k, last, 1.0 - weight);
        }
        for (k, legs) in walk.gait.legs.iter().enumerate() {
            set(grid, rows.start + k, legs, 1.0);
        }
        // The blends keep within each joint's speed: eased from the walk's ends.
        let from = rows.start.saturating_sub(blend);
        let to = (rows.end + blend).min(grid.rows.len());
        for leg in &joints {
            for &j in leg {
                let Some(step) = max_step.get(j).copied().flatten() else {
                    continue;
                };
                let mut track: Vec<f64> =
                    grid.rows[from..to].iter().map(|r| r[column(j)]).collect();
                if let Some(limits) = profile.joints[j].limits {
                    keyframes::clamp(&mut track, limits.min, limits.max);
                }
                keyframes::limit_speed(&mut track, step);
                for (r, v) in grid.rows[from..to].iter_mut().zip(track) {
                    r[column(j)] = v;
                }
            }
        }
    }
}
