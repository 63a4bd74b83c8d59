//! What `build`'s balance stage did, for people and for `--json`: which paws it raised
//! and held down, how far it moved the weight, what the proof found, and how much the
//! motion still looks like the performer.

use aibo_motion::likeness::Likeness;
use aibo_motion::pipeline::{Kept, PROOF_TORQUE};
use aibo_motion::stability::physics;
use aibo_motion::stability::plan::{is_front, PAWS};
use glam::DVec2;
use serde_json::json;
use std::fmt::Write as _;

/// One paw's part.
pub struct Paw {
    pub paw: &'static str,
    /// `left arm`, …: the limb that drives it.
    pub limb: Option<String>,
    pub lifts: usize,
    pub raised_s: f64,
    /// Held down where its limb gestured.
    pub held_s: f64,
}

/// The stage's outcome, as `build` reports it.
pub struct Stage {
    pub margin_mm: f64,
    pub paws: Vec<Paw>,
    /// The furthest the centre of mass moved from where the robot stands at rest, mm.
    pub shift_mm: f64,
    /// How long the performer's first pose is held before the performance (while the
    /// weight shifts for a lift at its start) and its last pose after it (while a paw
    /// raised to the end comes down), s.
    pub held_first_s: f64,
    pub held_last_s: f64,
    /// Rows whose program had no solution (the planted paws pulled, not held), and rows
    /// where the margin could not be kept.
    pub unsolved_rows: usize,
    pub short_rows: usize,
    pub repairs: usize,
    /// The simulation's one line (80% of the servos' torque).
    pub physics: String,
    /// Where the proof still finds a fall.
    pub falls: Option<String>,
    pub without: Option<Likeness>,
    /// Where the robot walks.
    pub walks: Vec<Walked>,
    /// The simulated body's path beside the performer's, where it walks.
    pub path: Option<PathFigures>,
}

/// The simulated body's travel beside the performer's (scaled by leg length, walks
/// only): how far each went, where each ended, and how far apart the paths run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PathFigures {
    pub performer_mm: f64,
    pub robot_mm: f64,
    /// The robot's distance as a share of the performer's.
    pub share: f64,
    pub performer_heading_deg: f64,
    pub robot_heading_deg: f64,
    /// How far apart the two ends are, mm.
    pub end_gap_mm: f64,
    /// The largest distance from a point of either path to the other path, mm (the
    /// robot's path through its two-second means; whenever each gets there).
    pub widest_gap_mm: f64,
}

impl PathFigures {
    fn of(kept: &Kept) -> Option<PathFigures> {
        if kept.plan.walks.is_empty() {
            return None;
        }
        // The performer's scaled path, walk after walk, each from where the last ended.
        let (mut at, mut heading) = (DVec2::ZERO, 0.0f64);
        let mut performer = vec![at];
        for w in &kept.plan.walks {
            let turned = DVec2::from_angle(heading);
            performer.extend(w.path.iter().map(|p| at + turned.rotate(p.at)));
            at += turned.rotate(w.goal().at);
            heading += w.goal().heading;
        }
        PathFigures::compare(&performer, heading, &kept.physics.path)
    }

    /// The simulated body's `path` beside the performer's (`performer`, mm from where
    /// the robot starts, in its first heading; ending `heading` radians turned left).
    pub fn compare(
        performer: &[DVec2],
        heading: f64,
        path: &[physics::PathPoint],
    ) -> Option<PathFigures> {
        let end = path.last()?;
        let &performer_end = performer.last()?;
        // The body sways over its paws at every step: its path is measured through the
        // mean of where it is over two seconds (more than a cycle), every half second.
        let mean_at = |t: u64| {
            let near: Vec<DVec2> = path
                .iter()
                .filter(|p| p.t_ms.abs_diff(t) <= 1000)
                .map(|p| DVec2::new(p.x_mm, p.y_mm))
                .collect();
            near.iter().sum::<DVec2>() / near.len().max(1) as f64
        };
        let robot: Vec<DVec2> = (0..=end.t_ms / 500).map(|k| mean_at(k * 500)).collect();
        let length = |line: &[DVec2]| -> f64 { line.windows(2).map(|w| w[0].distance(w[1])).sum() };
        let (performer_mm, robot_mm) = (length(performer), length(&robot));
        let widest_gap_mm = robot
            .iter()
            .map(|&p| off_path(p, performer))
            .chain(performer.iter().map(|&p| off_path(p, &robot)))
            .fold(0.0, f64::max);
        Some(PathFigures {
            performer_mm: performer_mm.round(),
            robot_mm: robot_mm.round(),
            share: (robot_mm / performer_mm.max(1e-9) * 100.0).round() / 100.0,
            performer_heading_deg: heading.to_degrees().round(),
            robot_heading_deg: end.heading_deg.round(),
            end_gap_mm: (DVec2::new(end.x_mm, end.y_mm) - performer_end)
                .length()
                .round(),
            widest_gap_mm: widest_gap_mm.round(),
        })
    }

    /// One line for people.
    pub fn text(&self) -> String {
        format!(
            "the body travels {:.0} mm, {:.0}% of the performer's {:.0} mm scaled to its legs; \
             it ends heading {:.0}° (the performer {:.0}°), {:.0} mm from the performer's scaled end; \
             the paths are at most {:.0} mm apart",
            self.robot_mm,
            self.share * 100.0,
            self.performer_mm,
            self.robot_heading_deg,
            self.performer_heading_deg,
            self.end_gap_mm,
            self.widest_gap_mm
        )
    }
}

/// How far `p` is from the nearest point of the polyline `path`.
fn off_path(p: DVec2, path: &[DVec2]) -> f64 {
    let to_segment = |a: DVec2, b: DVec2| {
        let ab = b - a;
        let along = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
        p.distance(a + ab * along)
    };
    match path {
        [] => f64::INFINITY,
        [only] => p.distance(*only),
        _ => path
            .windows(2)
            .map(|w| to_segment(w[0], w[1]))
            .fold(f64::INFINITY, f64::min),
    }
}

/// One walk, as the build reports it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Walked {
    /// The performer's travel it follows, s from the performance's first frame.
    pub from_s: f64,
    pub to_s: f64,
    /// How long the robot walks, s (it finishes its last steps after the performer).
    pub walks_s: f64,
    pub steps: usize,
    /// The crawl's own reckoning of the body's travel: forward and to the left (mm, in
    /// the heading it started with), and the turn (degrees, left +).
    pub forward_mm: f64,
    pub left_mm: f64,
    pub turn_deg: f64,
    /// The share of the performer's scaled speed the crawl could make (1: all of it).
    pub speed_share: f64,
}

impl Stage {
    pub fn of(kept: &Kept, without: Option<Likeness>) -> Stage {
        let paws = (0..PAWS.len())
            .filter_map(|p| {
                let (raised_s, held_s) = kept.plan.paw_seconds(p);
                (raised_s > 0.0 || held_s > 0.0).then(|| Paw {
                    paw: PAWS[p],
                    limb: kept.plan.limbs[p].map(|l| l.name().replace('_', " ")),
                    lifts: kept.plan.lift_count(p),
                    raised_s,
                    held_s,
                })
            })
            .collect();
        let (lead_ms, tail_ms) = kept.padding_ms();
        Stage {
            margin_mm: kept.margin_mm,
            paws,
            held_first_s: lead_ms as f64 / 1000.0,
            held_last_s: tail_ms as f64 / 1000.0,
            shift_mm: kept.rows.iter().map(|r| r.shift_mm).fold(0.0, f64::max),
            unsolved_rows: kept.rows.iter().filter(|r| r.held).count(),
            short_rows: kept.rows.iter().filter(|r| r.short_mm > 0.5).count(),
            repairs: kept.repairs,
            physics: kept.physics.summary(),
            falls: kept.falls(),
            without,
            walks: kept
                .plan
                .walks
                .iter()
                .map(|w| Walked {
                    from_s: round3(w.source_s.0),
                    to_s: round3(w.source_s.1),
                    walks_s: round3(w.gait.legs.len() as f64 * kept.plan.row_s),
                    steps: w.gait.steps.len(),
                    forward_mm: w.gait.travel.0.x.round(),
                    left_mm: w.gait.travel.0.y.round(),
                    turn_deg: w.gait.travel.1.to_degrees().round(),
                    speed_share: (w.gait.slowed * 100.0).round() / 100.0,
                })
                .collect(),
            path: PathFigures::of(kept),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        let paws: Vec<_> = self
            .paws
            .iter()
            .map(|p| {
                json!({
                    "paw": p.paw,
                    "limb": p.limb,
                    "lifts": p.lifts,
                    "raised_s": round3(p.raised_s),
                    "held_down_s": round3(p.held_s),
                })
            })
            .collect();
        json!({
            "margin_mm": self.margin_mm,
            "paws": paws,
            "weight_shift_mm": (self.shift_mm * 10.0).round() / 10.0,
            "first_pose_held_s": round3(self.held_first_s),
            "last_pose_held_s": round3(self.held_last_s),
            "unsolved_rows": self.unsolved_rows,
            "short_rows": self.short_rows,
            "repairs": self.repairs,
            "simulation": {"torque_share": PROOF_TORQUE, "summary": self.physics},
            "stays_up": self.falls.is_none(),
            "falls": self.falls,
            "likeness_without": self.without.as_ref().map(super::build::likeness_json),
            "walks": self.walks,
            "path": self.path,
        })
    }

    /// The lines under the build's balance line.
    pub fn text(&self, t: &mut String) {
        for p in &self.paws {
            let limb = p.limb.clone().unwrap_or_else(|| "its limb".into());
            let kind = if is_front(PAWS.iter().position(|&x| x == p.paw).unwrap_or(0)) {
                "gestured"
            } else {
                "stepped"
            };
            let mut parts = Vec::new();
            if p.raised_s > 0.0 {
                parts.push(format!(
                    "raised {:.1} s ({} lift{}) as the {limb} {kind}",
                    p.raised_s,
                    p.lifts,
                    if p.lifts == 1 { "" } else { "s" }
                ));
            }
            if p.held_s > 0.0 {
                parts.push(format!(
                    "held down {:.1} s where the {limb} {kind}",
                    p.held_s
                ));
            }
            let _ = writeln!(t, "    {} paw {}", p.paw, parts.join("; "));
        }
        for w in &self.walks {
            let slowed = if w.speed_share < 0.995 {
                format!(
                    ", at {:.0}% of the performer's speed scaled to its legs",
                    w.speed_share * 100.0
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                t,
                "    walks where the performer travels from {:.1} s to {:.1} s: {} steps in {:.1} s, \
                 {:.0} mm forward and {:.0} mm to the left, turning {:.0}°{slowed}",
                w.from_s, w.to_s, w.steps, w.walks_s, w.forward_mm, w.left_mm, w.turn_deg
            );
        }
        if let Some(p) = &self.path {
            let _ = writeln!(t, "    simulated, {}", p.text());
        }
        if self.shift_mm > 0.5 {
            let _ = writeln!(t, "    weight shifted up to {:.0} mm", self.shift_mm);
        }
        if self.held_first_s > 0.0 {
            let _ = writeln!(
                t,
                "    the performer's first pose held {:.2} s before the performance, while the weight shifted",
                self.held_first_s
            );
        }
        if self.held_last_s > 0.0 {
            let _ = writeln!(
                t,
                "    the performer's last pose held {:.2} s after the performance, while {}",
                self.held_last_s,
                if self.walks.is_empty() {
                    "the raised paw came down"
                } else {
                    "the walk finished its steps"
                }
            );
        }
        if self.repairs > 0 {
            let _ = writeln!(
                t,
                "    the proof sent it back {} time{} to repair a fall",
                self.repairs,
                if self.repairs == 1 { "" } else { "s" }
            );
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_path_is_the_distance_to_the_nearest_segment() {
        let path = [
            DVec2::ZERO,
            DVec2::new(100.0, 0.0),
            DVec2::new(100.0, 100.0),
        ];
        assert_eq!(off_path(DVec2::new(50.0, 30.0), &path), 30.0);
        assert_eq!(off_path(DVec2::new(130.0, 50.0), &path), 30.0);
        assert_eq!(off_path(DVec2::new(-30.0, -40.0), &path), 50.0);
        assert_eq!(off_path(DVec2::new(3.0, 4.0), &path[..1]), 5.0);
        assert_eq!(off_path(DVec2::ZERO, &[]), f64::INFINITY);
    }
}
