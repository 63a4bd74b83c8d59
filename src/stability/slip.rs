//! The slip a motion's own geometry demands of its paws, found without physics: a
//! second judge for `simulate`'s slip figures, and the floor against which the
//! simulation's friction and servo gains are calibrated.
//!
//! A robot standing on three or four paws is a closed chain. Where a motion changes the
//! distance between two planted paws (Sony's stand-to-sit folds the hind legs under a
//! pitched body), no friction can keep both where they are: the rubber must slide. For
//! every pair of 8 ms frames, the points the static test has the robot standing on in
//! both are laid on the floor at its meant attitude (where it came down on a trot's paw
//! in its swing, the two paws that carry the robot, at the attitude they carry it at:
//! [`super::statics::Swing`]), and the body is moved over the floor
//! (a turn and a shift) so that they move as little as possible (least squares). What
//! each paw's rubber must still slide, less what it rolls as its shin turns, adds up
//! while the paw stays down; the largest sum over a stay is the paw's demand.
//!
//! That fit is one way of sharing the slide out. A bound no floor can beat needs no fit:
//! where two paws stay down together, the distance between their rubber's spots (each
//! paw's centre less what it has rolled) does not change unless one of them slides, so
//! where it changes by `d` over their shared stay, one of the two slides at least `d / 2`.

use glam::{DQuat, DVec2, DVec3};
use serde::Serialize;

use std::collections::HashMap;

use super::body::Body;
use super::statics::Stance;
use super::{BalanceError, Columns};
use crate::mtn::{self, Motion};
use crate::robot::profile::Profile;

/// What a motion's geometry demands of its paws' rubber.
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    /// Each paw's demanded slip, by paw (`lf paw`, …): the largest distance its rubber
    /// must slide over the floor during one stay down, with the body placed by the fit,
    /// mm.
    pub by_paw: Vec<(String, f64)>,
    /// The two paws whose rubber's spots draw furthest apart or together while both
    /// stay down, if any two do: on any floor, one of them slides at least half of it.
    pub pair: Option<PairDemand>,
}

/// Two paws down together whose rubber's spots the joint angles move apart or together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDemand {
    pub paws: [String; 2],
    /// How far the distance between their spots changes over the stay, mm.
    pub change_mm: f64,
}

impl PairDemand {
    /// The least that one of the two must slide, on any floor, mm.
    pub fn least_mm(&self) -> f64 {
        self.change_mm / 2.0
    }
}

/// What the motion's geometry demands of its paws (see [`Demand`]).
pub fn demanded(
    motion: &Motion,
    profile: &Profile,
    stances: &[Stance],
) -> Result<Demand, BalanceError> {
    let body = Body::of(profile)?;
    let columns = Columns::of(motion, profile);
    let paws: Vec<usize> = (0..body.contacts.len())
        .filter(|&i| body.contacts[i].name.ends_with(" paw"))
        .collect();
    let mut worst = vec![0.0f64; paws.len()];
    let mut sliding: Vec<Option<DVec2>> = vec![None; paws.len()];
    // What each paw has rolled in its stay down so far, and for each two paws down
    // together, the nearest and furthest their rubber's spots have been in it.
    let mut rolled_in_stay: Vec<Option<DVec2>> = vec![None; paws.len()];
    let mut spans: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
    let mut pair: Option<((usize, usize), f64)> = None;
    // The previous frame's standing points: contact index, centre on the floor (world
    // xy, mm) and the contact's world orientation.
    let mut previous: Vec<(usize, DVec2, DQuat)> = Vec::new();
    // The body's placement on the floor: a turn about the vertical and a shift.
    let mut placed = (0.0f64, DVec2::ZERO);
    for (f, stance) in mtn::dense_frames(motion).zip(stances) {
        let [roll, pitch, _] = super::attitude(&f);
        let pose = body
            .skeleton
            .pose(&columns.angles(profile, &f), [roll, pitch, 0.0]);
        // A trot's swing paw is not down: the two paws that carry the robot are, at the
        // attitude they carry it at.
        let (on, meant) = match &stance.swing {
            Some(swing) => (&swing.standing_on, swing.turn),
            None => (&stance.standing_on, stance.meant),
        };
        let standing: Vec<(usize, DVec3, DQuat)> = body
            .contacts
            .iter()
            .enumerate()
            .filter(|(_, c)| on.contains(&c.name))
            .map(|(i, c)| (i, meant * c.centre(&pose), meant * pose.rotations[c.bone]))
            .collect();
        // The points down in both frames fix the body's move; with fewer than two it may
        // pivot or shift freely, and nothing need slide.
        let pairs: Vec<(DVec2, DVec2)> = standing
            .iter()
            .filter_map(|&(i, at, _)| {
                previous
                    .iter()
                    .find(|p| p.0 == i)
                    .map(|p| (at.truncate(), p.1))
            })
            .collect();
        if pairs.len() >= 2 {
            placed = fit(&pairs);
        }
        let (turn, shift) = placed;
        let yaw = DQuat::from_axis_angle(DVec3::Z, turn);
        let on_floor = |at: DVec3| DVec2::from_angle(turn).rotate(at.truncate()) + shift;
        let now: Vec<(usize, DVec2, DQuat)> = standing
            .iter()
            .map(|&(i, at, q)| (i, on_floor(at), yaw * q))
            .collect();
        for (k, &paw) in paws.iter().enumerate() {
            let here = now.iter().find(|p| p.0 == paw);
            let before = previous.iter().find(|p| p.0 == paw);
            match (here, before) {
                (Some(h), Some(b)) => {
                    // A round paw rolls as its shin turns, and its rubber does not slide
                    // for that. (Down in the frame before, its stay has begun.)
                    let roll = rolled(b.2, h.2, body.contacts[paw].radius);
                    *rolled_in_stay[k].get_or_insert(DVec2::ZERO) += roll;
                    if pairs.len() >= 2 {
                        let total = sliding[k].get_or_insert(DVec2::ZERO);
                        *total += (h.1 - b.1) - roll;
                        worst[k] = worst[k].max(total.length());
                    }
                }
                (Some(_), None) => {
                    sliding[k] = Some(DVec2::ZERO);
                    rolled_in_stay[k] = Some(DVec2::ZERO);
                }
                (None, _) => {
                    sliding[k] = None;
                    rolled_in_stay[k] = None;
                }
            }
        }
        // Where each paw's rubber is: its centre on the floor, less what it has rolled.
        let rubber: Vec<Option<DVec2>> = paws
            .iter()
            .enumerate()
            .map(|(k, &paw)| Some(now.iter().find(|p| p.0 == paw)?.1 - rolled_in_stay[k]?))
            .collect();
        for a in 0..paws.len() {
            for b in a + 1..paws.len() {
                let (Some(at_a), Some(at_b)) = (rubber[a], rubber[b]) else {
                    spans.remove(&(a, b));
                    continue;
                };
                let d = at_a.distance(at_b);
                let span = spans.entry((a, b)).or_insert((d, d));
                *span = (span.0.min(d), span.1.max(d));
                let change = span.1 - span.0;
                if pair.is_none_or(|(_, most)| change > most) {
                    pair = Some(((a, b), change));
                }
            }
        }
        previous = now;
    }
    let name = |k: usize| body.contacts[paws[k]].name.clone();
    Ok(Demand {
        by_paw: (0..paws.len()).map(|k| (name(k), worst[k])).collect(),
        pair: pair
            .filter(|&(_, change)| change > 0.0)
            .map(|((a, b), change_mm)| PairDemand {
                paws: [name(a), name(b)],
                change_mm,
            }),
    })
}

/// How far a ball of `radius` on the floor moves over it as it rolls, without sliding,
/// through the turn from `before` to `now` (x and y; the units of `radius`). Where a
/// paw's centre moves by this, its rubber stays on its spot.
pub fn rolled(before: DQuat, now: DQuat, radius: f64) -> DVec2 {
    // `q` and `-q` are the same turn: take it the short way round, not the long (a
    // quaternion whose sign flipped between two frames would roll the paw a whole turn).
    let turn = now * before.inverse();
    let turn = if turn.w < 0.0 { -turn } else { turn };
    turn.to_scaled_axis().cross(DVec3::Z * radius).truncate()
}

/// The turn (radians) and shift (mm) that carry the points `from` (this frame, the
/// robot's own floor frame) closest to `to` (where they were on the floor), least squares.
fn fit(pairs: &[(DVec2, DVec2)]) -> (f64, DVec2) {
    let n = pairs.len() as f64;
    let a = pairs.iter().map(|p| p.0).sum::<DVec2>() / n;
    let b = pairs.iter().map(|p| p.1).sum::<DVec2>() / n;
    let (mut dot, mut cross) = (0.0, 0.0);
    for (p, q) in pairs {
        let (p, q) = (*p - a, *q - b);
        dot += p.dot(q);
        cross += p.perp_dot(q);
    }
    let turn = cross.atan2(dot);
    (turn, b - DVec2::from_angle(turn).rotate(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_turn_and_a_shift() {
        let turn = 0.3f64;
        let shift = DVec2::new(12.0, -7.0);
        let from = [
            DVec2::new(60.0, 40.0),
            DVec2::new(60.0, -40.0),
            DVec2::new(-60.0, 40.0),
            DVec2::new(-60.0, -40.0),
        ];
        let pairs: Vec<(DVec2, DVec2)> = from
            .iter()
            .map(|&p| (p, DVec2::from_angle(turn).rotate(p) + shift))
            .collect();
        let (t, s) = fit(&pairs);
        assert!((t - turn).abs() < 1e-12, "{t}");
        assert!(s.distance(shift) < 1e-9, "{s}");
    }

    #[test]
    fn a_paw_rolls_the_short_way_whichever_sign_its_turn_comes_with() {
        // A shin turned 0.02 rad about y rolls its 17 mm paw 0.34 mm along x, and `-q`
        // is the same turn as `q`: a quaternion whose sign flipped between two frames
        // must not roll the paw a whole turn (107 mm) the long way round.
        let shin = DQuat::from_axis_angle(DVec3::X, 0.3);
        let now = DQuat::from_axis_angle(DVec3::Y, 0.02) * shin;
        let short = rolled(shin, now, 17.0);
        assert!((short - DVec2::new(0.34, 0.0)).length() < 1e-6, "{short}");
        assert!((rolled(shin, -now, 17.0) - short).length() < 1e-9);
        assert!((rolled(-shin, now, 17.0) - short).length() < 1e-9);
        assert!(rolled(shin, -shin, 17.0).length() < 1e-9);
    }

    #[test]
    fn two_points_drawn_apart_share_the_slide() {
        // Two paws 100 mm apart move to 140 mm apart: each must slide 20 mm.
        let pairs = [
            (DVec2::new(-70.0, 0.0), DVec2::new(-50.0, 0.0)),
            (DVec2::new(70.0, 0.0), DVec2::new(50.0, 0.0)),
        ];
        let (t, s) = fit(&pairs);
        let moved: Vec<f64> = pairs
            .iter()
            .map(|(p, q)| (DVec2::from_angle(t).rotate(*p) + s).distance(*q))
            .collect();
        assert!(moved.iter().all(|m| (m - 20.0).abs() < 1e-9), "{moved:?}");
    }
}
