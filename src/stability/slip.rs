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
//! [`super::statics::Swing`]), and the body is moved over the floor (a turn and a
//! shift) so that they move as little as possible, each weighted by the share of the
//! weight it carries (least squares). What each paw's rubber must still slide, less
//! what it rolls as its shin turns, adds up while the paw stays down; the largest sum
//! over a stay is the paw's demand.
//!
//! The shares are the body's as a rigid plate on equal springs, which push but do not
//! pull ([`loads`]): friction holds a paw in proportion to what it carries, so a paw that
//! carries little takes the slide. Shared evenly instead, a robot sitting on its rump and
//! hind paws while its front paws slide out (Sony's sleep to sit on the ERS-210) had its
//! front paws demanded about two thirds of what the simulated floor slid them. Nor is
//! it the least sum of load times slide (rigid Coulomb friction's answer, where the
//! loaded paws hold and the light ones take it all): that demanded 94 mm of the ERS-7's
//! left front paw in Sony's sit to sleep, which the simulated floor slid 64 mm, its
//! legs' servos giving a little (2026-12-07).
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
    // xy, mm), the contact's world orientation, and the share of the weight it carries.
    let mut previous: Vec<(usize, DVec2, DQuat, f64)> = Vec::new();
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
        // What each carries. On a trot's two paws the static test's centre of mass is
        // where it came to rest, not over them: they share it.
        let feet: Vec<DVec2> = standing.iter().map(|s| s.1.truncate()).collect();
        let carried = match &stance.swing {
            Some(_) => vec![1.0 / feet.len() as f64; feet.len()],
            None => loads(&feet, stance.com),
        };
        // The points down in both frames fix the body's move, each weighted by what it
        // carries over the two; with fewer than two it may pivot or shift freely, and
        // nothing need slide.
        let pairs: Vec<(DVec2, DVec2, f64)> = standing
            .iter()
            .zip(&carried)
            .filter_map(|(&(i, at, _), &share)| {
                previous
                    .iter()
                    .find(|p| p.0 == i)
                    .map(|p| (at.truncate(), p.1, 0.5 * (share + p.3)))
            })
            .collect();
        if pairs.len() >= 2 {
            placed = fit(&pairs);
        }
        let (turn, shift) = placed;
        let yaw = DQuat::from_axis_angle(DVec3::Z, turn);
        let on_floor = |at: DVec3| DVec2::from_angle(turn).rotate(at.truncate()) + shift;
        let now: Vec<(usize, DVec2, DQuat, f64)> = standing
            .iter()
            .zip(&carried)
            .map(|(&(i, at, q), &share)| (i, on_floor(at), yaw * q, share))
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
/// robot's own floor frame) closest to `to` (where they were on the floor), least
/// squares, each point weighted by the third (all alike where none weighs anything).
fn fit(pairs: &[(DVec2, DVec2, f64)]) -> (f64, DVec2) {
    let total: f64 = pairs.iter().map(|p| p.2.max(0.0)).sum();
    let weight = |w: f64| match total > 1e-9 {
        true => w.max(0.0) / total,
        false => 1.0 / pairs.len() as f64,
    };
    let a = pairs.iter().map(|p| p.0 * weight(p.2)).sum::<DVec2>();
    let b = pairs.iter().map(|p| p.1 * weight(p.2)).sum::<DVec2>();
    let (mut dot, mut cross) = (0.0, 0.0);
    for &(p, q, w) in pairs {
        let (p, q, w) = (p - a, q - b, weight(w));
        dot += w * p.dot(q);
        cross += w * p.perp_dot(q);
    }
    let turn = cross.atan2(dot);
    (turn, b - DVec2::from_angle(turn).rotate(a))
}

/// The share of the weight each of the points `feet` carries (floor xy, mm), the centre
/// of mass over `com`: the body as a rigid plate on equal springs at those points, so
/// that each carries a share linear in where it stands (the least-squares shares that
/// put `com` at their centre), and a point whose share would be negative lifts off and
/// the rest carry it. Where no such shares exist (the centre of mass outside the
/// points, or fewer than three of them not on a line), they share alike.
pub fn loads(feet: &[DVec2], com: DVec2) -> Vec<f64> {
    let alike = vec![1.0 / feet.len().max(1) as f64; feet.len()];
    let mut on: Vec<usize> = (0..feet.len()).collect();
    // Each round lifts one point off: at most as many rounds as there are points.
    while on.len() >= 3 {
        // Shares w = Aᵀλ with A w = (1, 0, 0), A's rows 1, x and y of the points on,
        // measured from the centre of mass.
        let rel: Vec<DVec2> = on.iter().map(|&i| feet[i] - com).collect();
        let n = rel.len() as f64;
        let sum = |f: &dyn Fn(DVec2) -> f64| rel.iter().map(|&p| f(p)).sum::<f64>();
        let (sx, sy) = (sum(&|p| p.x), sum(&|p| p.y));
        let (sxx, sxy, syy) = (
            sum(&|p| p.x * p.x),
            sum(&|p| p.x * p.y),
            sum(&|p| p.y * p.y),
        );
        // Points on a line (within a millimetre) carry no plate.
        let (vx, vy, cxy) = (
            sxx / n - (sx / n).powi(2),
            syy / n - (sy / n).powi(2),
            sxy / n - sx * sy / (n * n),
        );
        let least_spread = 0.5 * (vx + vy) - (0.25 * (vx - vy).powi(2) + cxy * cxy).sqrt();
        if least_spread.is_nan() || least_spread <= 1.0 {
            return alike;
        }
        let a = [[n, sx, sy], [sx, sxx, sxy], [sy, sxy, syy]];
        let Some(l) = super::solve3(a, [1.0, 0.0, 0.0]) else {
            return alike;
        };
        let shares: Vec<f64> = rel.iter().map(|p| l[0] + l[1] * p.x + l[2] * p.y).collect();
        let Some((lowest, &least)) = shares.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1))
        else {
            return alike;
        };
        if least >= 0.0 {
            let mut all = vec![0.0; feet.len()];
            for (&i, s) in on.iter().zip(shares) {
                all[i] = s;
            }
            return all;
        }
        on.remove(lowest);
    }
    alike
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
        // Whatever the points weigh, where nothing need slide.
        for weights in [[1.0; 4], [0.1, 0.2, 0.3, 0.4]] {
            let pairs: Vec<(DVec2, DVec2, f64)> = from
                .iter()
                .zip(weights)
                .map(|(&p, w)| (p, DVec2::from_angle(turn).rotate(p) + shift, w))
                .collect();
            let (t, s) = fit(&pairs);
            assert!((t - turn).abs() < 1e-12, "{t}");
            assert!(s.distance(shift) < 1e-9, "{s}");
        }
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
    fn two_points_drawn_apart_share_the_slide_as_they_share_the_weight() {
        // Two paws 100 mm apart move to 140 mm apart: carrying alike, each must slide
        // 20 mm; the one carrying three quarters of the weight slides a quarter of the
        // 40 mm, the other the rest.
        let moved = |w: [f64; 2]| -> Vec<f64> {
            let pairs = [
                (DVec2::new(-70.0, 0.0), DVec2::new(-50.0, 0.0), w[0]),
                (DVec2::new(70.0, 0.0), DVec2::new(50.0, 0.0), w[1]),
            ];
            let (t, s) = fit(&pairs);
            pairs
                .iter()
                .map(|(p, q, _)| (DVec2::from_angle(t).rotate(*p) + s).distance(*q))
                .collect()
        };
        for m in [moved([0.5, 0.5]), moved([0.0, 0.0])] {
            assert!(m.iter().all(|m| (m - 20.0).abs() < 1e-9), "{m:?}");
        }
        let m = moved([0.75, 0.25]);
        assert!(
            (m[0] - 10.0).abs() < 1e-9 && (m[1] - 30.0).abs() < 1e-9,
            "{m:?}"
        );
    }

    /// The net force and moment of `shares` about `com`: zero where they carry it.
    fn unbalanced(feet: &[DVec2], shares: &[f64], com: DVec2) -> (f64, DVec2) {
        let total: f64 = shares.iter().sum();
        let moment: DVec2 = feet.iter().zip(shares).map(|(p, w)| (*p - com) * *w).sum();
        (total - 1.0, moment)
    }

    #[test]
    fn the_shares_carry_the_centre_of_mass_and_a_paw_it_leans_away_from_lifts_off() {
        let feet = [
            DVec2::new(60.0, 40.0),
            DVec2::new(60.0, -40.0),
            DVec2::new(-60.0, 40.0),
            DVec2::new(-60.0, -40.0),
        ];
        // Over the middle of a rectangle: alike.
        let w = loads(&feet, DVec2::ZERO);
        assert!(w.iter().all(|w| (w - 0.25).abs() < 1e-12), "{w:?}");
        // Moved toward the hind paws, they carry more, and the shares balance about it:
        // a plate on springs gives each paw at (x, y) the share 1/4 + x·cx/14400 +
        // y·cy/6400 for the centre of mass at (cx, cy), so each front paw 1/8 with it
        // 30 mm back, and the two 1/3 together with it at (−20, 10).
        for (com, front) in [
            (DVec2::new(-30.0, 0.0), 0.125),
            (DVec2::new(-20.0, 10.0), 1.0 / 6.0),
        ] {
            let w = loads(&feet, com);
            let (force, moment) = unbalanced(&feet, &w, com);
            assert!(force.abs() < 1e-12 && moment.length() < 1e-9, "{w:?}");
            assert!(w.iter().all(|w| *w >= 0.0), "{w:?}");
            assert!((w[0] + w[1] - 2.0 * front).abs() < 1e-9, "{com}: {w:?}");
        }
        // Near the left hind paw, the right front one would pull: it lifts off, and the
        // other three carry the weight as three points must (exactly, by the moments).
        let com = DVec2::new(-45.0, 30.0);
        let w = loads(&feet, com);
        assert_eq!(w[1], 0.0, "{w:?}");
        let (force, moment) = unbalanced(&feet, &w, com);
        assert!(force.abs() < 1e-12 && moment.length() < 1e-9, "{w:?}");
        assert!(w.iter().all(|w| *w >= 0.0), "{w:?}");
        // Outside the paws, or on two points, or on points in a line: alike.
        for (feet, com) in [
            (&feet[..], DVec2::new(100.0, 0.0)),
            (&feet[..2], DVec2::new(60.0, 0.0)),
            (
                &[DVec2::ZERO, DVec2::X * 10.0, DVec2::X * 20.0][..],
                DVec2::X * 5.0,
            ),
        ] {
            let w = loads(feet, com);
            assert!(
                w.iter()
                    .all(|w| (w - 1.0 / feet.len() as f64).abs() < 1e-12),
                "{w:?}"
            );
        }
    }
}
