//! Which way the robot walks where the performer travels: the contact plan with its
//! walks, felt on the simulated floor in the motion as it plays up to each, and the
//! ways tried (a crawl, and trots where the performer outpaces it), the one that
//! follows the performer best proved first.

use super::{keep_balance, Balancing, BuildError, Kept, MovedSpots, Timing};
#[cfg(feature = "physics")]
use super::{keep_proved, plan_way, side_by_side, Locomotion, PassedOver};
use crate::keyframes::{self, finish, Keyframed};
use crate::retarget::{self, locomotion::Span, Tracks};
use crate::stability::gait::Style;
#[cfg(feature = "physics")]
use crate::stability::paths::PathFigures;
use crate::stability::plan::{self, Plan};
use crate::stability::stage::{self, Stage};
use crate::stability::walking::{self, Way};
use glam::DVec2;

/// The contact plan for `from.grid`, and the grid padded as the plan asks (see
/// [`plan::Padding`]). The robot walks `way` over the spans of `from.travel` (none: it
/// treads in place), and no gesture lifts a paw there. Walks felt on the simulated
/// floor are felt in the motion as it plays up to each ([`walking::felt_in_context`]),
/// its stage kept at `from.margin` mm. The walks start and end in the gait's stand.
pub fn planned(stage: &Stage, from: &Balancing, way: Way) -> Planned {
    planned_on(stage, from, way, [DVec2::ZERO; 4])
}

/// [`planned`], each walk stepping off the paws' spots and back onto them, `spots` from
/// the gait's places in the stand (as [`walking::plan`] takes them).
pub fn planned_on(stage: &Stage, from: &Balancing, way: Way, spots: [DVec2; 4]) -> Planned {
    let Balancing {
        tracks,
        gains,
        velocities,
        waits,
        travel,
        grid,
        profile,
        options,
        margin,
    } = *from;
    let landing_rows = |row: usize, paw: usize| stage.landing_rows_from(&grid.rows[row], paw);
    let standing = plan::plan(
        tracks,
        gains,
        profile,
        grid.rows.len(),
        grid.step_s(),
        &landing_rows,
    );
    let padded = grid.padded(standing.padding.lead, standing.padding.tail);
    #[cfg(feature = "physics")]
    let mut felt_path = Vec::new();
    let walks = if travel.is_empty() {
        Vec::new()
    } else {
        let lead = standing.padding.lead;
        // Where and how far each walk goes, reckoned.
        let walks = walking::plan(
            walking::Performance {
                travel,
                tracks,
                velocities,
                waits,
                home_by_end: options.timing == Timing::Fit,
            },
            profile,
            &padded,
            lead,
            way.style,
            spots,
        );
        match way.steering {
            // Then each felt in its place: the stage as far as walk `i`'s end, going on
            // from the start of the walk before (the rows before that are as they were;
            // its end is felt now).
            #[cfg(feature = "physics")]
            walking::Steering::Felt => {
                let mut before = stage.begin();
                let mut motion = |walks: &[plan::Walk], i: usize| {
                    let walks = reaching(walks, i, grid.step_s());
                    let (plan, padded) = walked_plan(&standing, grid, walks);
                    let margins = vec![margin; padded.rows.len()];
                    let mut progress = before.clone();
                    stage.advance(&padded, &plan, &margins, &mut progress, plan.walks[i].start);
                    before = progress.clone();
                    stage.advance(
                        &padded,
                        &plan,
                        &margins,
                        &mut progress,
                        plan.walks[i].rows().end,
                    );
                    let mut rows = keyframes::Grid {
                        rows: progress.rows().to_vec(),
                        frame_ms: padded.frame_ms,
                    };
                    super::lay_legs(&mut rows, &padded, &plan, profile);
                    rows
                };
                let step_s = grid.step_s();
                let ramp_in = |first: &[f64]| {
                    keyframes::ramp_in(first, profile, &options.keyframes).unwrap_or_default()
                };
                let felt;
                (felt, felt_path) = walking::felt_in_context(
                    walks,
                    profile,
                    way.style,
                    spots,
                    step_s,
                    &mut motion,
                    &ramp_in,
                );
                felt
            }
            // Without the simulation there is no floor to feel, nor a stage to run ahead.
            _ => {
                let _ = (margin, options);
                walks
            }
        }
    };
    let (plan, grid) = walked_plan(&standing, grid, walks);
    Planned {
        plan,
        grid,
        standing_tail: standing.padding.tail,
        #[cfg(feature = "physics")]
        felt_path,
        balanced: None,
        spots_moved: None,
    }
}

/// The contact plan and the padded grid ([`planned`]).
pub struct Planned {
    pub plan: Plan,
    pub grid: keyframes::Grid,
    /// The rows the contact plan holds the last pose for without the walks (its paws'
    /// landings): the rest of the tail is for the last walk to finish.
    pub standing_tail: usize,
    /// Where the simulated floor had the body on each row it played while the walks
    /// were felt, as the proof's path has it (point `k` is row `k`, from where the robot
    /// stood before the motion; empty where they were not felt).
    #[cfg(feature = "physics")]
    pub felt_path: Vec<crate::stability::physics::PathPoint>,
    /// The stage's first balance of `grid` at the build's margin, where choosing the
    /// paws' spots made it already.
    pub balanced: Option<stage::Balanced>,
    /// Where the paws stand, where it is not the stance's spots.
    pub spots_moved: Option<MovedSpots>,
}

/// `walks` with walk `i` running on in the stand as far as it may go once felt (to its
/// `until`, or 30 s on), for the stage to make the rows its felt steps play over: the
/// walk felt often goes on longer than planned, and the stage makes the rows past a
/// walk's end as gestures. There the floor played the head a settled walk does not:
/// cmu_01_03's ERS-7 walk's head held still, 73° from where the written motion turned it,
/// and the proof ended 26° from the heading the floor felt.
#[cfg(feature = "physics")]
fn reaching(walks: &[plan::Walk], i: usize, row_s: f64) -> Vec<plan::Walk> {
    let mut walks = walks.to_vec();
    let walk = &mut walks[i];
    let reach = walk.until.map_or(
        walk.gait.legs.len() + (FELT_REACH_S / row_s) as usize,
        |u| u.saturating_sub(walk.start),
    );
    if let Some(&home) = walk.gait.legs.last() {
        if reach > walk.gait.legs.len() {
            walk.gait.legs.resize(reach, home);
        }
    }
    walks
}

/// How far past its planned rows a walk may run once felt, s: its catch-up on the
/// performer's path and turn ([`crate::stability::gait::CATCH_UP_S`] and the turn's),
/// with room to spare.
#[cfg(feature = "physics")]
const FELT_REACH_S: f64 = 30.0;

/// The plan `standing` (the contact plan without walks) with `walks`: every paw held down
/// around them, and `grid` padded for the last to finish.
fn walked_plan(
    standing: &Plan,
    grid: &keyframes::Grid,
    walks: Vec<plan::Walk>,
) -> (Plan, keyframes::Grid) {
    let mut plan = standing.clone();
    plan.walks = walks;
    let blend = walking::blend_rows(grid.step_s());
    let held: Vec<(usize, usize)> = plan.walks.iter().map(|w| w.held_rows(blend)).collect();
    for &(from, to) in &held {
        plan.hold(from, to);
    }
    // A walk wins over a rest: the robot walks where the performer goes down on the
    // way, and rests after the walk where the performer is still down (Boxing_Toes goes
    // down to the floor where its last walk runs on, and after it with `--timing wait`).
    // The lifts carved around the whole rest stay carved.
    plan.rests = std::mem::take(&mut plan.rests)
        .into_iter()
        .filter_map(|rest| held.iter().try_fold(rest, |r, &rows| r.clear_of(rows)))
        .collect();
    // A walk still under way at the performance's end finishes after it: its steps
    // home and its sway back play while the performer's last pose is held. A walk
    // that ends with the performance holds every paw down there: no raised paw is
    // left to come down after it.
    let tail = tail_needed(&plan, blend, plan.padding.tail);
    plan.rows = plan.rows - plan.padding.tail + tail;
    plan.padding.tail = tail;
    let padded = grid.padded(plan.padding.lead, tail);
    (plan, padded)
}

/// The rows `plan` needs after the performance: what its lifts need to land and settle
/// ([`Plan::landing_tail`], at most `landing_at_most`: the walks' holds only ever cut
/// lifts short), and what its last walk needs to finish, blended out over `blend` rows.
pub(super) fn tail_needed(plan: &Plan, blend: usize, landing_at_most: usize) -> usize {
    let landing = plan.landing_tail().min(landing_at_most);
    landing.max(plan.walk_tail(blend))
}

/// A felt way's [`PathFigures::miss`] that follows the performer well enough not to
/// feel the upright trot as well (the crawl and the crouched trot are both felt where a
/// trot is tried): one acceptance bound's worth (20° of heading, 30% of distance, or a
/// leg length from their end).
#[cfg(feature = "physics")]
const FOLLOWED: f64 = 1.0;

/// The body's `path` beside the performer's scaled path over `walks`, walk after walk,
/// each from where the last ended; `None` without walks.
#[cfg(feature = "physics")]
pub(super) fn walks_against(
    walks: &[plan::Walk],
    path: &[crate::stability::physics::PathPoint],
) -> Option<PathFigures> {
    if walks.is_empty() {
        return None;
    }
    let (performer, heading) = walking::joined(walks.iter().map(|w| &w.path[..]));
    PathFigures::compare(&performer, heading, path)
}

/// The balance stage, keyframes and the proof ([`keep_balance`]), walking the way that
/// follows the performer best. With the simulation, the walks steer by the simulated
/// floor (`stability::floor`), and the robot crawls; where the performer goes faster
/// than a crawl can, it is planned trotting too (where the profile crouches, and neither
/// crouched way follows within [`FOLLOWED`], upright as well), and the way whose floor
/// had the body end nearer where the performer's does, facing the same way, having come
/// as far ([`PathFigures::miss`]), is proved; the next only where the proof has it fall
/// or drops a walk of it, and then the one that stays up (then keeps its walks, then
/// misses less) is kept. Without the simulation, the
/// crawl steers by its own reckoning. Each way plays the performance waiting for its
/// own walks ([`Waited`]): that of the way kept comes back where it waits at all.
pub(super) fn walked(
    from: &Balancing,
    unbalanced: Keyframed,
) -> Result<(Keyframed, Kept, Option<Waited>), BuildError> {
    #[cfg(feature = "physics")]
    if let Some(gait) = crate::stability::gait::Gait::of(from.profile) {
        use crate::stability::walking::Steering;
        let walks: Vec<&Span> = from
            .travel
            .iter()
            .filter(|s| walking::not_walked(s).is_none())
            .collect();
        if !walks.is_empty() {
            // A trot is tried where the performer outpaces the crawl, unless the crawl
            // alone is asked for.
            let trot_tried = from.options.locomotion != Locomotion::Crawl
                && walks
                    .iter()
                    .any(|s| s.speed_legs_per_s * gait.leg_mm > Style::CRAWL.fastest_mm_s());
            let mut styles = vec![Style::CRAWL];
            if trot_tried {
                styles.push(Style::TROT);
            }
            // Each way tried: its style, and the performance as it plays for it.
            let mut tried = styles
                .into_iter()
                .map(|style| Ok((style, Waited::of(from, style)?)))
                .collect::<Result<Vec<_>, BuildError>>()?;
            // How far a way's body missed the performer's path, said at `-vv`.
            let missed = |way: Way, how: &str, figures: Option<PathFigures>| {
                let miss = figures
                    .as_ref()
                    .map_or(f64::INFINITY, |p| p.miss(gait.leg_mm));
                let upright = if way.style.crouched { "" } else { ", upright" };
                tracing::debug!(
                    "walking in a {}{upright}, {how}: path miss {miss:.2} ({})",
                    way.style.name,
                    figures.map_or_else(String::new, |p| p.text())
                );
                miss
            };
            // The ways tried from `first` on planned, their walks felt, side by side on
            // as many cores as there are, each with how far its floor's body missed the
            // performer's path. The floor is the proof's (`walking::felt_in_context`).
            let feel = |tried: &[(Style, Option<Waited>)], first: usize| {
                let planned = side_by_side(&tried[first..], |(style, waited)| {
                    let way = Way {
                        style: *style,
                        steering: Steering::Felt,
                    };
                    let from = Waited::balancing_of(waited, from);
                    plan_way(&from, way).map(|(s, p)| (way, s, p))
                });
                (first..)
                    .zip(planned)
                    .map(|(k, planned)| {
                        let (way, stage, planned) = planned?;
                        let figures = walks_against(&planned.plan.walks, &planned.felt_path);
                        let miss = missed(way, "as the floor felt it", figures);
                        Ok((miss, (k, way, stage, planned)))
                    })
                    .collect::<Result<Vec<_>, BuildError>>()
            };
            let mut ways = feel(&tried, 0)?;
            // The crouch spares the knees (the ERS-210/220's are slow; the ERS-7's,
            // near straight at the stand, must turn far to lift a paw) and follows most
            // takes better, but the ERS-210's crouched trot barely steers where the
            // performer sidesteps and turns at once (pymo's 8-walk: 48% of the
            // distance, where upright it goes 92%), and the ERS-7's keeps up less with
            // Boxing_Toes, cmu_01_03 and the Bandai dance. The upright trot is felt too
            // where the crouched ways miss by more than `FOLLOWED` (one more felt walk,
            // 1.3-1.5 s on one core for those three, only there).
            if trot_tried
                && from.profile.walk.crouch > 0.0
                && ways.iter().all(|(miss, _)| *miss > FOLLOWED)
            {
                let style = Style::UPRIGHT_TROT;
                tried.push((style, Waited::of(from, style)?));
                ways.extend(feel(&tried, tried.len() - 1)?);
            }
            // The way whose floor followed the performer best is proved first; only
            // where the proof has it fall, or drops a walk of it to keep it up, is the
            // next proved too (test_freebvh on the ERS-220: the trot's first step fell,
            // and the dog turned on the spot where the crawl walks).
            // The crawl first on a tie (it comes first, and the sort keeps the order).
            ways.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Proved: the one that stays up with its walks, then the one that stays up,
            // then the one that misses less. Its rank (what its proof found wrong, if
            // anything, then its miss), which way it was, and what it built.
            type Proved = (Keyframed, Kept);
            let mut best: Option<((Option<PassedOver>, f64), usize, Proved)> = None;
            // Each way proved that its proof found wrong, and what.
            let mut faulted: Vec<(usize, Way, PassedOver)> = Vec::new();
            for (_, (k, way, stage, planned)) in ways {
                let planned_walks = planned.plan.walks.len();
                // Keyframed only for a way proved (most builds prove one).
                let waited = &tried[k].1;
                let unbalanced = Waited::unbalanced(waited, from, &unbalanced)?;
                let from = Waited::balancing_of(waited, from);
                let built = keep_proved(&from, unbalanced, way, &stage, planned)?;
                let fault = if built.1.falls().is_some() {
                    Some(PassedOver::Falls)
                } else if built.1.plan.walks.len() < planned_walks {
                    Some(PassedOver::WalkDropped)
                } else {
                    None
                };
                let how = match fault {
                    Some(PassedOver::Falls) => "proved: falls",
                    Some(PassedOver::WalkDropped) => "proved: stays up, a walk dropped",
                    None => "proved: stays up",
                };
                let miss = missed(way, how, built.1.path_figures());
                let rank = (fault, miss);
                if best.as_ref().is_none_or(|(best, ..)| rank < *best) {
                    best = Some((rank, k, built));
                }
                match fault {
                    Some(fault) => faulted.push((k, way, fault)),
                    None => break,
                }
            }
            if let Some((_, k, (keyed, mut kept))) = best {
                kept.passed_over = faulted
                    .into_iter()
                    .filter(|f| f.0 != k)
                    .map(|(_, way, fault)| (way, fault))
                    .collect();
                let waited = tried.swap_remove(k).1;
                return Ok((keyed, Waited::told(kept, &waited), waited));
            }
        }
    }
    let waited = Waited::of(from, Style::CRAWL)?;
    let (keyed, kept) = match &waited {
        Some(w) => keep_balance(
            &w.balancing(from),
            Waited::unbalanced(&waited, from, &unbalanced)?,
            Way::RECKONED_CRAWL,
        )?,
        None => keep_balance(from, unbalanced, Way::RECKONED_CRAWL)?,
    };
    Ok((keyed, Waited::told(kept, &waited), waited))
}

/// The performance as it plays for walks in one style: held still where it waits for a
/// walk that takes the robot longer than the performer ([`walking::waits`]), so that the
/// walk does not walk over the gestures after it; and on the grid.
pub(super) struct Waited {
    waits: Vec<walking::Wait>,
    pub(super) tracks: Tracks,
    /// The plan's [`plan::gains`] of `tracks`.
    gains: plan::Gains,
    velocities: Vec<[f64; 3]>,
    travel: Vec<Span>,
    grid: keyframes::Grid,
}

impl Waited {
    /// The performance of `from` waiting for its walks in `style`; `None` where none
    /// needs it to.
    fn of(from: &Balancing, style: Style) -> Result<Option<Waited>, BuildError> {
        if from.options.timing != Timing::Wait {
            return Ok(None);
        }
        let frame_s = from.tracks.frame_time;
        let step_s = from.grid.step_s();
        let performance = walking::Performance {
            travel: from.travel,
            tracks: from.tracks,
            velocities: from.velocities,
            waits: &[],
            home_by_end: false,
        };
        let waits = walking::waits(performance, from.profile, step_s, style);
        if waits.is_empty() || !frame_s.is_finite() || frame_s <= 0.0 {
            return Ok(None);
        }
        // In whole frames of the take.
        let holds: Vec<(usize, usize)> = waits
            .iter()
            .map(|w| {
                (
                    (w.at_s / frame_s).round() as usize,
                    (w.wait_s / frame_s).ceil() as usize,
                )
            })
            .collect();
        let waits: Vec<walking::Wait> = holds
            .iter()
            .map(|&(frame, count)| walking::Wait {
                at_s: frame as f64 * frame_s,
                wait_s: count as f64 * frame_s,
            })
            .collect();
        let times = retarget::hold_times(from.tracks.frames, &holds);
        let frames = times.iter().fold(0usize, |n, &t| n.saturating_add(t));
        if let Some(e) = crate::source::time_bounds_error(frame_s, frames) {
            tracing::warn!("the take's timing is kept: waiting for its walks, {e}");
            return Ok(None);
        }
        let tracks = from.tracks.holding(&times);
        // The travel as the take has it, the performer still while they wait.
        let mut velocities = Vec::with_capacity(frames);
        for (v, &n) in from.velocities.iter().zip(&times) {
            velocities.push(*v);
            velocities.extend(std::iter::repeat_n([0.0; 3], n - 1));
        }
        let travel = from
            .travel
            .iter()
            .map(|s| walking::waited(s, &waits))
            .collect();
        let grid = keyframes::grid(&tracks, from.profile, &from.options.keyframes)?;
        Ok(Some(Waited {
            waits,
            gains: plan::gains(&tracks, from.profile),
            tracks,
            velocities,
            travel,
            grid,
        }))
    }

    /// The motion built without the stage from the performance waiting for the walks
    /// (the likeness it would have had is against that); `unbalanced` where it waits
    /// for none.
    fn unbalanced(
        waited: &Option<Waited>,
        from: &Balancing,
        unbalanced: &Keyframed,
    ) -> Result<Keyframed, BuildError> {
        Ok(match waited {
            Some(w) => finish(&w.grid, from.profile, &from.options.keyframes)?,
            None => unbalanced.clone(),
        })
    }

    /// `from` with the waits of `waited` in, where it waits at all (the felt ways').
    #[cfg(feature = "physics")]
    fn balancing_of<'a>(waited: &'a Option<Waited>, from: &Balancing<'a>) -> Balancing<'a> {
        waited.as_ref().map_or(*from, |w| w.balancing(from))
    }

    /// `from` with the waits in.
    fn balancing<'a>(&'a self, from: &Balancing<'a>) -> Balancing<'a> {
        Balancing {
            tracks: &self.tracks,
            gains: &self.gains,
            velocities: &self.velocities,
            waits: &self.waits,
            travel: &self.travel,
            grid: &self.grid,
            ..*from
        }
    }

    /// `kept`, told where its performance waited.
    fn told(mut kept: Kept, waited: &Option<Waited>) -> Kept {
        kept.waits = waited.as_ref().map_or_else(Vec::new, |w| w.waits.clone());
        kept
    }
}
