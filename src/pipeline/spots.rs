//! Where the planted paws stand: the stance's spots, or the performer's own and their
//! variants that shift the weight less, whichever the balance stage makes look most
//! like the performer (a longer take's candidates screened on coarse rows first).

use super::walks::{planned, planned_on, Planned};
use super::{side_by_side, Balancing, BuildError};
use crate::keyframes::{self, BODY_ANGLES};
use crate::robot::profile::Profile;
use crate::stability::gait::Gait;
use crate::stability::plan;
use crate::stability::stage::{self, Stage};
use crate::stability::walking::{self, Way};
use crate::stability::BalanceError;
use glam::DVec2;

/// A paw planted this near its stance spot stands on it (the stage is not run twice).
const SPOT_MOVE_MM: f64 = 2.0;

/// With a front paw up, the other front paw and the hind paws carry the robot, and the
/// centre of mass must cross the diagonal from that front paw to the far hind paw. A
/// front paw planted further forward, and nearer the middle, turns that diagonal toward
/// the raised paw, so the weight shifts less and the legs lean less (lambada on the
/// ERS-7: 33 mm of shift and 22.8° on the stance's or the performer's spots; front
/// paws 30 mm forward and 15 mm in from the performer's, 17.2°). Further, the legs
/// reach no further forward standing (45 mm scored as 30 did).
const FRONT_FORWARD_MM: f64 = 30.0;
const FRONT_IN_MM: f64 = 15.0;

/// A performer standing with the legs apart puts the hind paws wider and further back
/// than the stance's spots, and the hind legs reach there only with the body lower.
/// Planted there, they widen the three paws that carry the robot while a front paw is
/// up, and the front paws further forward turn the diagonal the weight must cross, as
/// [`FRONT_FORWARD_MM`] does: the body leans less. Where a front paw lifts, the stage
/// tries the body lower by each of these, the front paws this much forward of the
/// stance's spots. On the 60 shared builds, 12 score 0.3–7.8° lower (the fair1 dab, the
/// one-arm wave, pfnn, lambada, the jumping jacks), all up in every judge. 5 mm alone
/// helped 13 builds (tried for hind lifts too, rokoko by 0.6°), 10 mm alone 11, but by
/// more; 15 and 20 mm less than 10; the front paws 55 mm forward less than 40.
const HIND_LOWER_MM: [f64; 2] = [5.0, 10.0];
const HIND_FRONT_FORWARD_MM: f64 = 40.0;

/// With a hind paw up, the weight must cross the diagonal from the other hind paw to
/// the far front paw; a hind paw planted further back turns it toward the raised paw,
/// as [`FRONT_FORWARD_MM`] does for a front lift. Where a hind paw lifts, the stage
/// tries the performer's spots with the hind paws this much further back (as far as the
/// legs reach: rokoko's hind legs 17–24 mm). Rokoko, whose paws lift only behind:
/// 27.5 → 25.0° on the ERS-7, 30.1 → 27.8° on the ERS-210. 20 mm gave 25.8° and 28.3°,
/// 60 mm 24.8° and 27.5° (the legs reach no further); from the stance's spots, 31.7°
/// balanced coarsely against 27.4° from the performer's.
const HIND_BACK_MM: f64 = 40.0;

/// Where a motion's paws are planted, when not on the stance's spots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spots {
    /// Where the performer's legs put them.
    Performers,
    /// The stance's spots, the front paws `FRONT_FORWARD_MM` further forward.
    FrontForward,
    /// Where the performer's legs put them, the front paws further forward and in.
    PerformersFrontForward,
    /// The hind paws where the performer's legs put them, the body lower for the legs
    /// to reach (`HIND_LOWER_MM`), the front paws forward of the stance's spots.
    PerformersHind,
    /// Where the performer's legs put them, the hind paws further back
    /// (`HIND_BACK_MM`).
    PerformersHindBack,
}

impl Spots {
    /// The word `--json` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Spots::Performers => "performer",
            Spots::FrontForward => "front-forward",
            Spots::PerformersFrontForward => "performer-front-forward",
            Spots::PerformersHind => "performer-hind",
            Spots::PerformersHindBack => "performer-hind-back",
        }
    }

    /// What the summary says of it.
    pub fn said(self) -> &'static str {
        match self {
            Spots::Performers => "where the performer's legs stand",
            Spots::FrontForward => {
                "with the front paws forward of the stance's spots, so that the weight \
                 shifts less while a front paw is up"
            }
            Spots::PerformersFrontForward => {
                "where the performer's legs stand, the front paws further forward and in, \
                 so that the weight shifts less while a front paw is up"
            }
            Spots::PerformersHind => {
                "with the hind paws where the performer's legs stand and the front paws \
                 forward of the stance's spots, so that the support is wider"
            }
            Spots::PerformersHindBack => {
                "where the performer's legs stand, the hind paws further back, so that \
                 the weight shifts less while a hind paw is up"
            }
        }
    }
}

/// Paws planted elsewhere than the stance's spots: where, and how far from them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MovedSpots {
    pub to: Spots,
    /// How far each paw (by `plan::PAWS` index) stands from its stance spot, mm.
    pub mm: [f64; 4],
    /// How much lower than the stance the body stands, mm.
    pub lowered_mm: f64,
}

/// `spots` (by `PAWS` index) with the front paws (`front`) or the hind paws `forward` mm
/// further forward and `inward` mm nearer the middle.
fn paws_moved(
    spots: [Option<DVec2>; 4],
    front: bool,
    forward: f64,
    inward: f64,
) -> [Option<DVec2>; 4] {
    std::array::from_fn(|p| {
        spots[p].map(|s| match plan::is_front(p) == front {
            true => DVec2::new(s.x + forward, s.y - inward * s.y.signum()),
            false => s,
        })
    })
}

/// The stance's spots are where a performer at rest would plant the paws; the
/// performer's own legs often stand elsewhere, and kept over the stance's spots they bend
/// away from the performer's line (the dab's hind thighs: 9° without the stage, 31° with
/// it). Where a front paw lifts, the front paws planted further forward need less of a
/// weight shift ([`FRONT_FORWARD_MM`]). `on_stance` (the stage for `stance` and its
/// plan, its walks reckoned), or the same planted on one of those other spots
/// ([`Spots`]): whichever the stage makes look most like the performer, with its first
/// balance made, or, where the robot walks, its plan made again for `way`, each walk
/// stepping off the spots and back onto them ([`Gait::standing_on`]) and felt on the
/// floor where `way` steers so. The motion's ramps from and to the postures slide the
/// paws onto and off those spots, as Sony's own motions slide theirs.
pub(super) fn on_likelier_spots(
    from: &Balancing,
    way: Way,
    stance: &[f64],
    on_stance: (Stage, Planned),
) -> Result<(Stage, Planned), BuildError> {
    let (stage, planned) = likeliest(from, way, stance, on_stance)?;
    if planned.plan.walks.is_empty() {
        return Ok((stage, planned));
    }
    let spots = spots_off(stance, &stage, from.profile);
    let planned = Planned {
        spots_moved: planned.spots_moved,
        ..planned_on(&stage, from, way, spots)
    };
    Ok((stage, planned))
}

/// [`on_likelier_spots`]' choice, on `on_stance`'s plan where the robot walks.
fn likeliest(
    from: &Balancing,
    way: Way,
    stance: &[f64],
    on_stance: (Stage, Planned),
) -> Result<(Stage, Planned), BuildError> {
    let (stage, planned) = on_stance;
    let plan = &planned.plan;
    // Where the robot walks the gait moves the legs, and where it rests its posture
    // does: the spots are for where it stands.
    let blend = walking::blend_rows(plan.row_s);
    let walks_on = |row: usize| {
        plan.walks.iter().any(|w| {
            let (from, to) = w.held_rows(blend);
            (from..to).contains(&row)
        })
    };
    let performers = stage.performers_spots(
        &planned.grid,
        |row| !walks_on(row) && !plan.resting(row),
        |row, paw| !plan.wanted(row, paw),
    );
    // Each: where, the spots, and how much lower the body stands.
    let mut wanted = vec![(Spots::Performers, performers, 0.0)];
    if plan.lifts.iter().any(|l| plan::is_front(l.paw)) {
        wanted.push((
            Spots::FrontForward,
            paws_moved(stage.spots(), true, FRONT_FORWARD_MM, 0.0),
            0.0,
        ));
        wanted.push((
            Spots::PerformersFrontForward,
            paws_moved(performers, true, FRONT_FORWARD_MM, FRONT_IN_MM),
            0.0,
        ));
        let forward = paws_moved(stage.spots(), true, HIND_FRONT_FORWARD_MM, 0.0);
        let hind: [Option<DVec2>; 4] = std::array::from_fn(|p| match plan::is_front(p) {
            true => forward[p],
            false => performers[p],
        });
        wanted.extend(HIND_LOWER_MM.map(|lower| (Spots::PerformersHind, hind, lower)));
    }
    if plan.lifts.iter().any(|l| !plan::is_front(l.paw)) {
        wanted.push((
            Spots::PerformersHindBack,
            paws_moved(performers, false, -HIND_BACK_MM, 0.0),
            0.0,
        ));
    }
    // Each stage as far toward its spots as the legs reach; one that ends where the
    // stance or an earlier one stands is not run again.
    let distances = |a: [Option<DVec2>; 4], b: [Option<DVec2>; 4]| -> [f64; 4] {
        std::array::from_fn(|p| match (a[p], b[p]) {
            (Some(a), Some(b)) => a.distance(b),
            _ => 0.0,
        })
    };
    let mut moved_stages: Vec<(MovedSpots, Stage)> = Vec::new();
    for (to, spots, lowered_mm) in wanted {
        // A body lowered so far that a leg cannot keep its paw on its spot is no stand.
        let Some(moved) = Stage::new(from.profile, from.grid.frame_ms, stance)?
            .lowered(lowered_mm)
            .map(|s| s.planted_toward(spots))
        else {
            continue;
        };
        let mm = distances(stage.spots(), moved.spots());
        let apart = |mm: [f64; 4]| mm.iter().any(|&d| d > SPOT_MOVE_MM);
        let new = moved_stages
            .iter()
            .all(|(o, s)| o.lowered_mm != lowered_mm || apart(distances(s.spots(), moved.spots())));
        if (apart(mm) || lowered_mm > 0.0) && new {
            moved_stages.push((MovedSpots { to, mm, lowered_mm }, moved));
        }
    }
    if moved_stages.is_empty() {
        return Ok((stage, planned));
    }
    // The stance's spots first: they stand unless another scores strictly lower.
    let mut candidates: Vec<(Option<MovedSpots>, Stage)> = vec![(None, stage)];
    candidates.extend(moved_stages.into_iter().map(|(moved, s)| (Some(moved), s)));
    // A short take balances every candidate in full; a longer one only those whose
    // coarse figure is near the best (which is always among them; where every figure is
    // infinite, every candidate is).
    // A walking take's candidates stand only between its walks, where the stage's
    // program runs: each balances in full for little (the coarse screen plans no walks).
    let performance_s = from.grid.rows.len() as f64 * from.grid.step_s();
    let coarse_deg = match performance_s < SCREEN_FROM_S || !plan.walks.is_empty() {
        true => None,
        false => Some(coarse_likeness(from, way, stance, &candidates)?),
    };
    let finalists: Vec<usize> = match &coarse_deg {
        None => (0..candidates.len()).collect(),
        Some(coarse_deg) => {
            let coarse_best = coarse_deg.iter().copied().fold(f64::INFINITY, f64::min);
            (0..candidates.len())
                .filter(|&i| coarse_deg[i] <= coarse_best + CHOICE_WITHIN_DEG)
                .collect()
        }
    };
    // Each finalist planned (the stance's plan is made) and balanced in full, side by
    // side where there are cores for it: on one, each costs a third or more of a
    // `--stance-spots` build (lambada 0.63 s and 0.2 s each; the Bandai dance 2.2 s and
    // 0.9 s each).
    let full = side_by_side(&finalists, |&i| {
        let stage = &candidates[i].1;
        // A walking take's candidates are balanced on the stance's plan, its walks as
        // reckoned (`on_stance`): the walks' legs play no part in a standing row's
        // likeness, and only the one kept is planned again, its walks felt.
        let made = (i > 0 && plan.walks.is_empty()).then(|| self::planned(stage, from, way));
        let balanced = balance_planned(stage, made.as_ref().unwrap_or(&planned), from.margin);
        let deg = rows_likeness(from, &balanced).unwrap_or(f64::INFINITY);
        (i, deg, made, balanced)
    });
    for (i, (moved, _)) in candidates.iter().enumerate() {
        let said = moved.map_or("on the stance's spots", |m| m.to.said());
        let coarse = match &coarse_deg {
            Some(deg) => format!("{:.1}° balanced coarsely, ", deg[i]),
            None => String::new(),
        };
        match full.iter().find(|f| f.0 == i) {
            Some((_, deg, ..)) => tracing::debug!(
                "the paws {said} ({:.0?} mm away): likeness {coarse}{deg:.1}° in full",
                moved.map_or([0.0; 4], |m| m.mm)
            ),
            None => tracing::debug!("the paws {said}: likeness {coarse}not balanced in full"),
        }
    }
    // The strictly lowest in full wins, the stance (first) on a tie.
    let best = full
        .into_iter()
        .reduce(|best, next| if next.1 < best.1 { next } else { best });
    let Some((i, _, made, balanced)) = best else {
        // No finalist (not reached): the stance's spots, balanced when kept.
        return Ok((candidates.swap_remove(0).1, planned));
    };
    let (spots_moved, stage) = candidates.swap_remove(i);
    let planned = Planned {
        balanced: Some(balanced),
        spots_moved,
        ..made.unwrap_or(planned)
    };
    Ok((stage, planned))
}

/// Where `stage`'s paws stand against the `stance`'s (every profile joint's angle), each
/// in its leg's frame (mm, x forward and y left of the body), as the walks take them
/// ([`Gait::standing_on`]): zero on the stance's spots, whose walks start and end in the
/// gait's stand as they always have. (The gait's stand is not the stance: the blends
/// into and out of a walk slide a front and a hind paw 20 to 33 mm apart either way.
/// Walks from the stage's own spots instead, tried, slid less on most builds but more
/// on some, test_freebvh's ERS-210 right front paw 42 → 114 mm.)
fn spots_off(stance: &[f64], stage: &Stage, profile: &Profile) -> [DVec2; 4] {
    Gait::of(profile).map_or([DVec2::ZERO; 4], |gait| {
        gait.offsets(stance, stage.stance())
    })
}

/// `stage`'s balance of `planned`'s grid and plan, `margin` mm inside the support.
fn balance_planned(stage: &Stage, planned: &Planned, margin: f64) -> stage::Balanced {
    let margins = vec![margin; planned.grid.rows.len()];
    stage.balance(&planned.grid, &planned.plan, &margins)
}

/// Choosing the spots on a take of [`SCREEN_FROM_S`] or more, each candidate is first
/// balanced on every [`CHOICE_EVERY`]th row of the grid; only those whose likeness there
/// is within [`CHOICE_WITHIN_DEG`] of the best are balanced in full, and the best of
/// those wins. On the shared takes that are screened (test_mocapbank, lambada, the fair1
/// dab and rokoko for three models, and the Bandai dance and cmu_01_03 with `--gait off`
/// on the ERS-7), the full winner's coarse figure trailed the coarse best by at most
/// 0.2° at every 4th row, 0.4° at every 8th and 0.6° at every 16th, so every 8th row
/// within 1° keeps every choice a full balance of all of them makes, with room to spare.
/// Not so with `--gait off` on the walking takes, whose walks the stage then balances as
/// gestures: there a winner trailed by up to 1.8° (cmu_01_01 on the ERS-210, which
/// keeps a candidate 0.9° behind the best), and within 0.5° would have cost cmu_01_01 on
/// the ERS-7 0.8–0.9° (for 15–17% fewer instructions on the Bandai dance and cmu_01_03).
/// Balancing the coarse rows with the body's and a landing paw's pace per row scaled to
/// the rows they stand for made the screen no more faithful.
/// On one core every 4th row cost the Bandai dance (`--gait off`) 1.25 s of coarse
/// passes, every 8th 0.63 s. (Every 8th row lost the one-arm wave's choice, by
/// 1.9–6.2°, when short takes were screened too: its 0.6 s gave it 5 rows.)
const CHOICE_EVERY: usize = 8;
const CHOICE_WITHIN_DEG: f64 = 1.0;

/// Takes shorter than this, s, balance every candidate in full, unscreened: there the
/// screen saves little, and its rows' longer steps can mislead it where a leg stands
/// near the end of its reach. On pfnn (2 s) for the ERS-210/220, every coarse pass but
/// none in full left three quarters of its rows unsolved (a hind paw 2 mm off its spot,
/// and the rows after an unsolved row unsolved too): the coarse figures were 49–65°
/// against 23–28° in full, and the stance's spots won at 26.6° where the performer's
/// hind spots with the body lowered give 23.2°. The shared takes under 5 s (the wave,
/// pfnn, the jumping jacks and both charlestons) cost 0.03–0.1 s more on one core so,
/// the jumping jacks on the ERS-210 0.3 s; at 10 s the fair1 dab (9.8 s) cost 0.45 s.
const SCREEN_FROM_S: f64 = 5.0;

/// Each candidate's likeness balanced on every [`CHOICE_EVERY`]th row (infinite where
/// it cannot be measured), side by side.
fn coarse_likeness(
    from: &Balancing,
    way: Way,
    stance: &[f64],
    candidates: &[(Option<MovedSpots>, Stage)],
) -> Result<Vec<f64>, BuildError> {
    let grid = keyframes::Grid {
        rows: from
            .grid
            .rows
            .iter()
            .step_by(CHOICE_EVERY)
            .cloned()
            .collect(),
        frame_ms: from.grid.frame_ms.saturating_mul(CHOICE_EVERY as u32),
    };
    // No walks: the spots are chosen only where the robot does not walk.
    let coarse = Balancing {
        grid: &grid,
        travel: &[],
        ..*from
    };
    // Each standing as the full stage does, on the coarse grid's frame time.
    let stages = candidates
        .iter()
        .map(|(_, fine)| Ok(Stage::new(from.profile, grid.frame_ms, stance)?.standing_as(fine)))
        .collect::<Result<Vec<Stage>, BalanceError>>()?;
    Ok(side_by_side(&stages, |stage| {
        let planned = self::planned(stage, &coarse, way);
        let balanced = balance_planned(stage, &planned, from.margin);
        rows_likeness(&coarse, &balanced).unwrap_or(f64::INFINITY)
    }))
}

/// The overall likeness median of the stage's balanced rows, each track frame against
/// the row due at its time, the limbs left out where the robot walks (as the build's
/// likeness does).
fn rows_likeness(from: &Balancing, balanced: &stage::Balanced) -> Option<f64> {
    let rows = &balanced.grid.rows;
    let last = rows.len().checked_sub(1)?;
    let pose = |f: usize| {
        let row = balanced.plan.row_at(f as f64 * from.tracks.frame_time);
        Some(rows[row.min(last)][BODY_ANGLES..].to_vec())
    };
    let walking = walking::walking_s(&balanced.plan, from.waits);
    Some(
        crate::likeness::likeness_of(from.tracks, from.profile, &walking, pose)?
            .overall
            .median_deg,
    )
}
