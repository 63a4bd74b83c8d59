//! What `build`'s balance stage did, for people and for `--json`: which paws it raised
//! and held down, how far it moved the weight, what the proof found, and how much the
//! motion still looks like the performer.

use super::to_places;
use aibo_motion::likeness::Likeness;
use aibo_motion::pipeline::{Kept, MovedSpots, PassedOver, PROOF_TORQUE};
use aibo_motion::stability::gait::Style;
use aibo_motion::stability::paths::PathFigures;
use aibo_motion::stability::plan::{is_front, PAWS};
use aibo_motion::stability::walking::{played_waits, take_s, wait_for, Steering, Wait, Way};
use aibo_motion::units::signed;
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
    /// Where the paws stand, where it is not the stance's spots.
    pub spots_moved: Option<MovedSpots>,
    /// How long the performer's first pose is held before the performance (while the
    /// weight shifts for a lift at its start) and its last pose after it (while a paw
    /// raised to the end comes down, or the last walk finishes), s.
    pub held_first_s: f64,
    pub held_last_s: f64,
    /// Whether the last pose is held for the last walk (else for a paw to come down).
    pub held_last_for_walk: bool,
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
    /// Where it sits or lies down while the performer kneels.
    pub rests: Vec<Rested>,
    /// Where the performance waits for a walk to finish: when (s into the take) and how
    /// long (s).
    pub waits: Vec<Wait>,
    /// The simulated body's path beside the performer's, where it walks.
    pub path: Option<PathFigures>,
    /// The way the walks went (none without walks).
    pub way: Option<Way>,
    /// The ways proved first and not kept, and why.
    pub passed_over: Vec<(Way, PassedOver)>,
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
    /// How long the robot walks on after the performer's travel and any wait for it,
    /// over what the performer does next, s (0: it is done in time).
    pub over_s: f64,
    /// How much lower than the stand the body walked, mm (the profile's `[walk] crouch`,
    /// or 0 for a walk at the stand's height).
    pub crouch_mm: f64,
}

/// One rest, as the build reports it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Rested {
    /// From going down to being up again, s into the take.
    pub from_s: f64,
    pub to_s: f64,
    /// The profile's posture (`sit`, `sleep`).
    pub posture: String,
    /// How far its legs went from the posture toward the performer's (0 to 1).
    pub follow: f64,
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
        let played = played_waits(&kept.waits);
        let performance_end_s = kept.plan.seconds_at(kept.plan.performed_end());
        // Over what the performer does next: from the end of their travel, or of the
        // wait for it, to where the robot's walk ends (within the performance).
        let over_s = |w: &aibo_motion::stability::plan::Walk| {
            let free_s =
                wait_for(w.source_s, &played).map_or(w.source_s.1, |wait| wait.1.max(w.source_s.1));
            let end_s = kept.plan.seconds_at(w.rows().end);
            to_places((end_s.min(performance_end_s) - free_s).max(0.0), 3)
        };
        Stage {
            margin_mm: kept.margin_mm,
            paws,
            held_first_s: lead_ms as f64 / 1000.0,
            held_last_s: tail_ms as f64 / 1000.0,
            held_last_for_walk: kept.walk_outlasts(),
            shift_mm: kept.rows.iter().map(|r| r.shift_mm).fold(0.0, f64::max),
            spots_moved: kept.spots_moved,
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
                    from_s: to_places(take_s(&kept.waits, w.source_s.0), 3),
                    to_s: to_places(take_s(&kept.waits, w.source_s.1), 3),
                    walks_s: to_places(w.gait.legs.len() as f64 * kept.plan.row_s, 3),
                    steps: w.gait.steps.len(),
                    forward_mm: w.gait.travel.0.x.round(),
                    left_mm: w.gait.travel.0.y.round(),
                    turn_deg: w.gait.travel.1.to_degrees().round(),
                    speed_share: to_places(w.gait.slowed, 2),
                    over_s: over_s(w),
                    crouch_mm: w.gait.crouch_mm,
                })
                .collect(),
            rests: kept
                .plan
                .rests
                .iter()
                .map(|r| {
                    let take = |row| to_places(take_s(&kept.waits, kept.plan.seconds_at(row)), 3);
                    Rested {
                        from_s: take(r.start),
                        to_s: take(r.end),
                        posture: r.posture.clone(),
                        follow: to_places(r.follow, 3),
                    }
                })
                .collect(),
            waits: kept.waits.clone(),
            path: kept.path_figures(),
            way: (!kept.plan.walks.is_empty()).then_some(kept.way),
            passed_over: kept.passed_over.clone(),
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
                    "raised_s": to_places(p.raised_s, 3),
                    "held_down_s": to_places(p.held_s, 3),
                })
            })
            .collect();
        json!({
            "margin_mm": self.margin_mm,
            "paws": paws,
            "weight_shift_mm": to_places(self.shift_mm, 1),
            "spots": self.spots_moved.map_or("stance", |m| m.to.name()),
            "spots_moved_mm": self.spots_moved.map(|m| m.mm.map(|d| to_places(d, 1))),
            "body_lowered_mm": self.spots_moved.map_or(0.0, |m| m.lowered_mm),
            "first_pose_held_s": to_places(self.held_first_s, 3),
            "last_pose_held_s": to_places(self.held_last_s, 3),
            // What the last pose is held for: the last walk to finish, or a paw to land.
            "last_pose_held_for": (self.held_last_s > 0.0)
                .then_some(if self.held_last_for_walk { "walk" } else { "landing" }),
            "unsolved_rows": self.unsolved_rows,
            "short_rows": self.short_rows,
            "repairs": self.repairs,
            "simulation": {"torque_share": PROOF_TORQUE, "summary": self.physics},
            "stays_up": self.falls.is_none(),
            "falls": self.falls,
            "likeness_without": self.without.as_ref().map(super::build::likeness_json),
            "walks": self.walks,
            "rests": self.rests,
            "waits": self.waits.iter().map(|w| json!({
                "at_s": to_places(w.at_s, 3),
                "wait_s": to_places(w.wait_s, 3),
            })).collect::<Vec<_>>(),
            "path": self.path,
            "gait": self.way.map(|w| w.style.name),
            "steering": self.way.map(|w| match w.steering {
                Steering::Felt => "felt",
                Steering::Reckoned => "reckoned",
            }),
            "ways_passed_over": self.passed_over.iter().map(|(way, why)| json!({
                "gait": way.style.name,
                "upright": !way.style.crouched,
                "why": why.name(),
            })).collect::<Vec<_>>(),
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
            // The legs' own reckoning: where a floor without slip would take the body (a
            // walk steered by the simulated floor asks more, to make up the slip).
            let _ = writeln!(
                t,
                "    walks where the performer travels from {:.1} s to {:.1} s: {} steps in {:.1} s{slowed}; \
                 its strides alone reckon {} and {}, turning {}",
                w.from_s,
                w.to_s,
                w.steps,
                w.walks_s,
                signed(w.forward_mm, 0, " mm", "forward", "back"),
                signed(w.left_mm, 0, " mm", "to the left", "to the right"),
                signed(w.turn_deg, 0, "°", "left", "right"),
            );
            if w.over_s >= 0.5 {
                let _ = writeln!(
                    t,
                    "      it walks on {:.1} s after the performer's walk, over what they do next \
                     (`--timing wait` plays that after the walk)",
                    w.over_s
                );
            }
        }
        for r in &self.rests {
            let legs = match r.follow > 0.0 {
                true => format!(
                    ", its legs {:.0}% of the way to the performer's",
                    r.follow * 100.0
                ),
                false => String::new(),
            };
            let _ = writeln!(
                t,
                "    rests in its {} posture from {:.1} s to {:.1} s, where the performer kneels{legs}",
                r.posture, r.from_s, r.to_s
            );
        }
        for w in &self.waits {
            let _ = writeln!(
                t,
                "    the performance waits {:.1} s at {:.1} s for the walk to finish (what follows plays that much later)",
                w.wait_s, w.at_s
            );
        }
        if let Some(p) = &self.path {
            let _ = writeln!(t, "    simulated, {}", p.text());
        }
        if let Some(way) = self.way {
            let trotted = way.style.name == Style::TROT.name;
            let gait = match trotted {
                true => "trotted (the performer goes faster than a crawl, and the simulation keeps the trot up)",
                false => "crawled",
            };
            // Which height the walks went at, where the profile crouches (only there is
            // a walk tried upright; one way's walks share it).
            let crouch = self.walks.first().map_or(0.0, |w| w.crouch_mm);
            let height = if !way.style.crouched {
                ", upright (crouched, they followed the performer's path less well)".to_string()
            } else if crouch > 0.0 {
                format!(", {crouch:.0} mm crouched")
            } else {
                String::new()
            };
            let steering = match way.steering {
                Steering::Felt => "steered by where the simulated body went",
                Steering::Reckoned => "steered by their own reckoning",
            };
            let _ = writeln!(t, "    the walks {gait}{height}, {steering}");
            // Where the trot ends no simulation pins down (docs/balance.md: How far to
            // trust the path); the owner should know before the robot walks it.
            if trotted && way.steering == Steering::Felt {
                let _ = writeln!(
                    t,
                    "    a trot's turn rests on how its paws slip: the robot may end facing \
                     elsewhere (`simulate --fine` is a second opinion; `--gait crawl` holds \
                     its path better, more slowly)"
                );
            }
        }
        // A way that followed the performer better and was proved first, said so that a
        // fast performer's crawl (or a walk that never came) is not a puzzle.
        for (way, why) in &self.passed_over {
            let way = match way.style.crouched {
                true => format!("a {}", way.style.name),
                false => format!("an upright {}", way.style.name),
            };
            let why = match why {
                PassedOver::Falls => "its proof had it fall",
                PassedOver::WalkDropped => "its proof kept it up only by dropping a walk",
            };
            let _ = writeln!(
                t,
                "    {way} followed the performer's path better, but {why}"
            );
        }
        if let Some(moved) = self.spots_moved {
            let paws: Vec<String> = PAWS
                .iter()
                .zip(moved.mm)
                .filter(|(_, d)| *d >= 0.5)
                .map(|(p, d)| format!("{p} {d:.0} mm"))
                .collect();
            let lowered = match moved.lowered_mm > 0.0 {
                true => format!(", the body {:.0} mm lower", moved.lowered_mm),
                false => String::new(),
            };
            let _ = writeln!(
                t,
                "    paws planted {}, not on the stance's spots: {}{lowered} (the ramps from \
                 the start posture and to the end posture slide them)",
                moved.to.said(),
                paws.join(", ")
            );
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
                if self.held_last_for_walk {
                    "the walk finished its steps"
                } else {
                    "the raised paw came down"
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
