//! The one road from motion capture to a motion: clip → retarget → keep balance →
//! keyframes. The `build` command, the viewers' motion-capture input, the fuzz target,
//! the benchmark and the tests all take it.
//!
//! Keeping balance is on by default: the balance stage (`stability::stage`) changes the
//! retargeted rows as little as it can, a crawl takes over the legs where the performer
//! travels (`stability::walking`), the motion is keyframed, and then it is proved
//! before anyone writes it: the static test on every 8 ms frame of its playback and,
//! with the `physics` feature, the simulation on the same frames (with [`PROOF_TORQUE`]
//! of the servos' torque: a twenty-year-old robot's servos are not new). Where either
//! still finds a fall, the stage is run again with a wider margin around it, then with
//! every paw held down there, a bounded number of times. A motion that still falls is
//! returned with the proof that says so: the caller must say it.
//!
//! A walk may take the robot longer than the performer took. By default the take's
//! timing is kept and the walk walks over the gestures after it (the last one on past
//! the take's end); with [`Timing::Fit`] the last walk is home by the take's end too;
//! with [`Timing::Wait`] the performance waits for it (the take's tracks held at the
//! walk's end), so every gesture plays, later.

use crate::keyframes::{self, finish, KeyframeError, Keyframed, BODY_ANGLES};
use crate::likeness::{likeness, Likeness};
use crate::mtn::Motion;
use crate::retarget::calibration;
use crate::retarget::locomotion::{self, Span};
use crate::retarget::{self, retarget, RetargetError, Tracks};
use crate::robot::profile::Profile;
use crate::source::Clip;
use crate::stability::gait::Style;
#[cfg(feature = "physics")]
use crate::stability::paths::PathFigures;
use crate::stability::plan::{self, Plan};
use crate::stability::stage::{self, RowReport, Stage};
use crate::stability::walking::{self, Way};
use crate::stability::{statics, BalanceError};
use glam::DVec2;

/// The share of the servos' torque the proof's simulation gives them.
pub const PROOF_TORQUE: f64 = 0.8;

/// How many times the proof may send the stage back to repair a fall (the last time with
/// every paw held down throughout).
pub const REPAIRS: usize = 4;

/// Whether the balance stage runs, and with what margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Balance {
    /// The retargeted motion as it is (`--balance off`).
    Off,
    /// Kept on its feet, the centre of mass this far inside the support (mm), or the
    /// profile's default; `stance_spots`: the planted paws on the neutral stance's spots
    /// always, never where the performer's legs stand (see [`plan_way`]).
    On {
        margin_mm: Option<f64>,
        stance_spots: bool,
    },
}

impl Default for Balance {
    fn default() -> Balance {
        Balance::On {
            margin_mm: None,
            stance_spots: false,
        }
    }
}

/// Whether the robot walks where the performer travels (with the balance stage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Locomotion {
    /// A statically stable crawl where the performer travels (`stability::walking`),
    /// or a trot where they outpace it and the trot follows them better.
    #[default]
    Walk,
    /// The crawl only, never a trot (`--gait crawl`): three paws carry it at every
    /// instant, so where it goes hangs less on how its paws slip. On a finer solver a
    /// crawl's path holds where a trot's turn does not (`simulate --fine`).
    Crawl,
    /// The legs follow the performer's, and the robot treads in place (`--gait off`).
    InPlace,
}

/// What follows a walk the robot needs longer for than the performer took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Timing {
    /// The take's timing is kept: the walk walks on over the gestures after it, and the
    /// last walk may run on past the performance's end to finish the performer's path.
    #[default]
    Keep,
    /// The performance waits for the walk to finish (`walking::waits`): every gesture
    /// plays, later.
    Wait,
    /// As [`Timing::Keep`], and the last walk is home by the performance's end too: the
    /// motion lasts as long as the take (for a motion played to its music), and the walk
    /// goes as far along the performer's path as it can by then.
    Fit,
}

/// What becomes of a T-pose the performer holds at the start or end of a take, the
/// capture's calibration ([`calibration`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TPose {
    /// Played, as any other frames (`--keep-tpose`).
    Keep,
    /// Left out: the motion plays the performance alone. The robot would otherwise
    /// spread its front legs sideways for the calibration and swing them back as the
    /// performance begins, and a T-pose first frame would set the performer's reference
    /// heading.
    #[default]
    Skip,
}

/// How a clip becomes a motion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildOptions {
    pub retarget: retarget::Options,
    pub keyframes: keyframes::Options,
    pub balance: Balance,
    pub locomotion: Locomotion,
    pub timing: Timing,
    pub t_pose: TPose,
}

/// A motion built from a clip, with the tracks it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    pub motion: Motion,
    pub tracks: Tracks,
    /// When the clip's first frame plays, in ms from the motion's start: the length of
    /// the ramp from the start posture, and of any hold of the first pose the balance
    /// stage added ([`Kept::padding_ms`]).
    pub source_start_ms: u64,
    /// How long the motion lasts after the clip's last frame, ms: any hold of the last
    /// pose, then the ramp to the end posture.
    pub ramp_out_ms: u64,
    /// What keeping the balance did; `None` with `--balance off`.
    pub balance: Option<Kept>,
    /// Where the performer travels (walks only with the balance stage and
    /// [`Locomotion::Walk`] or [`Locomotion::Crawl`]).
    pub locomotion: Vec<Span>,
    /// The frames of the take's T-pose left out at its start and end ([`TPose::Skip`];
    /// none with [`TPose::Keep`]): `tracks` and every time of the build count from the
    /// first frame after it.
    pub t_pose: calibration::Ends,
    /// The frames of the T-pose the take starts and ends in, played or left out.
    pub t_pose_found: calibration::Ends,
}

/// What the balance stage did, and the proof of the motion it made.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The margin it kept, mm.
    pub margin_mm: f64,
    /// The contact plan it followed (after any repair).
    pub plan: Plan,
    /// Each grid row's outcome.
    pub rows: Vec<RowReport>,
    /// The grid's spacing, ms (rows play from `source_start_ms`, less the plan's lead).
    pub row_ms: u32,
    /// The same clip built without the stage, for the likeness it would have had.
    pub without: Motion,
    pub without_source_start_ms: u64,
    /// The static test of the written motion.
    pub statics: statics::Report,
    /// The simulation of it (with the `physics` feature).
    #[cfg(feature = "physics")]
    pub physics: crate::stability::physics::Report,
    /// How many times the stage was sent back.
    pub repairs: usize,
    /// Where the paws stand, where it is not the stance's spots (see [`plan_way`]).
    pub spots_moved: Option<MovedSpots>,
    /// Where the performance waits for a walk to finish (in the take's seconds): the
    /// rows, the tracks and the plan play it with the waits in.
    pub waits: Vec<walking::Wait>,
    /// The way its walks went: their style, and how they steered.
    pub way: Way,
    /// Where the simulated floor had the body on each grid row it played while the walks
    /// were felt ([`Planned::felt_path`]; row 0 plays at `source_start_ms` less the
    /// lead). Empty where they were not felt.
    #[cfg(feature = "physics")]
    pub felt_path: Vec<crate::stability::physics::PathPoint>,
}

impl Kept {
    /// How long the performer's first pose is held before the performance and its last
    /// pose after it, ms (see [`plan::Padding`]).
    pub fn padding_ms(&self) -> (u64, u64) {
        let row_ms = u64::from(self.row_ms);
        let padding = self.plan.padding;
        (padding.lead as u64 * row_ms, padding.tail as u64 * row_ms)
    }

    /// Whether the performer's last pose is held after the performance for the last walk
    /// to finish its steps (else, if at all, for a raised paw to come down).
    pub fn walk_outlasts(&self) -> bool {
        self.plan.walk_tail(walking::blend_rows(self.plan.row_s)) > 0
    }

    /// The simulated body's path beside the performer's, scaled by leg length, over the
    /// walks only (each walk's path from where the last ended); `None` without walks.
    #[cfg(feature = "physics")]
    pub fn path_figures(&self) -> Option<PathFigures> {
        walks_against(&self.plan.walks, &self.physics.path)
    }

    /// Where the proof still finds a fall: a sentence, or `None` when it stays up.
    pub fn falls(&self) -> Option<String> {
        #[cfg(feature = "physics")]
        if let Some(f) = &self.physics.fall {
            return Some(format!(
                "the simulation has it fall at {:.2} s ({})",
                f.at_ms as f64 / 1000.0,
                self.physics.summary()
            ));
        }
        self.statics.faults().next().map(|s| {
            format!(
                "the static test has it tip from {:.2} s to {:.2} s ({})",
                s.start_ms as f64 / 1000.0,
                s.end_ms as f64 / 1000.0,
                self.statics.summary()
            )
        })
    }
}

/// The body's `path` beside the performer's scaled path over `walks`, walk after walk,
/// each from where the last ended; `None` without walks.
#[cfg(feature = "physics")]
fn walks_against(
    walks: &[plan::Walk],
    path: &[crate::stability::physics::PathPoint],
) -> Option<PathFigures> {
    if walks.is_empty() {
        return None;
    }
    let (performer, heading) = walking::joined(walks.iter().map(|w| &w.path[..]));
    PathFigures::compare(&performer, heading, path)
}

impl Built {
    /// How much the motion looks like the performance (see [`crate::likeness`]).
    pub fn likeness(&self, profile: &Profile) -> Option<Likeness> {
        let walking = self.walking_s();
        likeness(
            &self.tracks,
            profile,
            &self.motion,
            self.source_start_ms,
            &walking,
        )
    }

    /// Where the robot walks, in the performance's seconds (the blends either side
    /// included, and the seam between two walks too close for a paw to lift between
    /// them, where every paw stays down in the stand), and where the performance waits
    /// for it to finish: the likeness leaves the limbs out there.
    pub fn walking_s(&self) -> Vec<(f64, f64)> {
        let Some(kept) = &self.balance else {
            return Vec::new();
        };
        let plan = &kept.plan;
        let blend = walking::blend_rows(plan.row_s);
        let lead = plan.padding.lead as f64;
        let s = |row: usize| (row as f64 - lead) * plan.row_s;
        // Each walk's seconds, with the last row it holds every paw down to; a seam too
        // short for a lift joins it to the walk before.
        let mut walks: Vec<(f64, f64, usize)> = Vec::new();
        for w in &plan.walks {
            let rows = w.rows();
            let span_s = (
                s(rows.start) - walking::BLEND_S,
                s(rows.end) + walking::BLEND_S,
            );
            let (from, to) = w.held_rows(blend);
            match walks.last_mut() {
                Some(last) if !plan.lift_fits_between(last.2, from) => {
                    (last.1, last.2) = (span_s.1, to)
                }
                _ => walks.push((span_s.0, span_s.1, to)),
            }
        }
        let walks = walks.into_iter().map(|(from, to, _)| (from, to));
        walks.chain(walking::played_waits(&kept.waits)).collect()
    }

    /// How much the motion built without the balance stage would have looked like it.
    pub fn likeness_without(&self, profile: &Profile) -> Option<Likeness> {
        let kept = self.balance.as_ref()?;
        likeness(
            &self.tracks,
            profile,
            &kept.without,
            kept.without_source_start_ms,
            &self.walking_s(),
        )
    }
}

/// Why a clip cannot become a motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("the clip holds no frames to build from")]
    NoFrames,
    /// A frame time or duration outside what the readers accept.
    #[error("{0}")]
    Time(String),
    #[error(transparent)]
    Retarget(#[from] RetargetError),
    #[error(transparent)]
    Keyframes(#[from] KeyframeError),
    #[error("the balance stage cannot run: {0}; build with --balance off to go without it")]
    Balance(#[from] BalanceError),
}

/// Retargets `clip` onto `profile` and makes the motion.
pub fn build(clip: &Clip, profile: &Profile, options: &BuildOptions) -> Result<Built, BuildError> {
    if clip.frames == 0 {
        return Err(BuildError::NoFrames);
    }
    if let Some(e) = crate::source::time_bounds_error(clip.frame_time, clip.frames) {
        return Err(BuildError::Time(e));
    }
    let Performed {
        tracks,
        t_pose_found,
        t_pose,
    } = performed(clip, profile, &options.retarget, options.t_pose)?;
    let travel = locomotion::spans(&tracks.performer, tracks.frame_time);
    let grid = keyframes::grid(&tracks, profile, &options.keyframes)?;
    let unbalanced = finish(&grid, profile, &options.keyframes)?;
    let Balance::On { margin_mm, .. } = options.balance else {
        return Ok(Built {
            motion: unbalanced.motion,
            tracks,
            source_start_ms: unbalanced.source_start_ms,
            ramp_out_ms: unbalanced.ramp_out_ms,
            balance: None,
            locomotion: travel,
            t_pose,
            t_pose_found,
        });
    };
    let margin = margin_mm.unwrap_or_else(|| default_margin(profile));
    let walks = match options.locomotion {
        Locomotion::Walk | Locomotion::Crawl => &travel[..],
        Locomotion::InPlace => &[],
    };
    let velocities = locomotion::velocities(&tracks.performer, tracks.frame_time);
    let from = Balancing {
        tracks: &tracks,
        velocities: &velocities,
        waits: &[],
        travel: walks,
        grid: &grid,
        profile,
        options,
        margin,
    };
    let (keyed, kept, waited) = walked(&from, unbalanced)?;
    Ok(Built {
        motion: keyed.motion,
        // As the motion plays them: with the waits for the walks in.
        tracks: waited.map_or(tracks, |w| w.tracks),
        source_start_ms: keyed.source_start_ms,
        ramp_out_ms: keyed.ramp_out_ms,
        balance: Some(kept),
        locomotion: travel,
        t_pose,
        t_pose_found,
    })
}

/// A clip retargeted, with what became of a T-pose at its ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Performed {
    pub tracks: Tracks,
    /// The frames of the T-pose the take starts and ends in.
    pub t_pose_found: calibration::Ends,
    /// Those of them left out ([`TPose::Skip`]; none with [`TPose::Keep`]): the tracks
    /// count from the first frame after them.
    pub t_pose: calibration::Ends,
}

/// `clip` retargeted onto `profile`, a T-pose at its ends played or left out as `t_pose`
/// says. The T-pose is looked for on the performer the retargeting measures; only a take
/// that has one to leave out is measured again, without it.
pub fn performed(
    clip: &Clip,
    profile: &Profile,
    options: &retarget::Options,
    t_pose: TPose,
) -> Result<Performed, RetargetError> {
    let tracks = retarget(clip, profile, options)?;
    let found = calibration::t_pose_ends(&tracks.performer, tracks.frames);
    if t_pose == TPose::Keep || found.is_empty() {
        return Ok(Performed {
            tracks,
            t_pose_found: found,
            t_pose: calibration::Ends::default(),
        });
    }
    let performance = clip.frames_in(found.lead..clip.frames - found.trail);
    let mut options = options.clone();
    options.neutral = calibration::shifted(options.neutral, found);
    Ok(Performed {
        tracks: retarget(&performance, profile, &options)?,
        t_pose_found: found,
        t_pose: found,
    })
}

/// The margin the stage keeps on `profile` by default, mm: wider where its masses are
/// estimates.
pub fn default_margin(profile: &Profile) -> f64 {
    match profile.mass.as_ref().is_some_and(|m| m.uncertain) {
        true => stage::UNCERTAIN_MARGIN_MM,
        false => stage::DEFAULT_MARGIN_MM,
    }
}

/// The contact plan for `from.grid`, and the grid padded as the plan asks (see
/// [`plan::Padding`]). The robot walks `way` over the spans of `from.travel` (none: it
/// treads in place), and no gesture lifts a paw there. Walks felt on the simulated
/// floor are felt in the motion as it plays up to each ([`walking::felt_in_context`]),
/// its stage kept at `from.margin` mm.
pub fn planned(stage: &Stage, from: &Balancing, way: Way) -> Planned {
    let Balancing {
        tracks,
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
                    walking::apply(&mut rows, &plan.walks, profile);
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
    for (from, to) in held {
        plan.hold(from, to);
    }
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
fn tail_needed(plan: &Plan, blend: usize, landing_at_most: usize) -> usize {
    let landing = plan.landing_tail().min(landing_at_most);
    landing.max(plan.walk_tail(blend))
}

/// A felt way's [`PathFigures::miss`] that follows the performer well enough not to
/// feel the upright trot as well (the crawl and the crouched trot are both felt where a
/// trot is tried): one acceptance bound's worth (20° of heading, 30% of distance, or a
/// leg length from their end).
#[cfg(feature = "physics")]
const FOLLOWED: f64 = 1.0;

/// The balance stage, keyframes and the proof ([`keep_balance`]), walking the way that
/// follows the performer best. With the simulation, the walks steer by the simulated
/// floor (`stability::floor`), and the robot crawls; where the performer goes faster
/// than a crawl can, it is planned trotting too (where the profile crouches, and neither
/// crouched way follows within [`FOLLOWED`], upright as well), and the way whose floor
/// had the body end nearer where the performer's does, facing the same way, having come
/// as far ([`PathFigures::miss`]), is proved; the next only where the proof has it fall,
/// and then the one that stays up (or misses less) is kept. Without the simulation, the
/// crawl steers by its own reckoning. Each way plays the performance waiting for its
/// own walks ([`Waited`]): that of the way kept comes back where it waits at all.
fn walked(
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
            // The crouch spares the slow knees of the ERS-210/220 and follows most takes
            // better, but their crouched trot barely steers where the performer
            // sidesteps and turns at once (pymo's 8-walk: 48% of the distance, where
            // upright it goes 92%). The upright trot is felt too where the crouched ways
            // miss by more than `FOLLOWED` (one more felt walk, only there).
            if trot_tried
                && from.profile.walk.crouch > 0.0
                && ways.iter().all(|(miss, _)| *miss > FOLLOWED)
            {
                let style = Style::UPRIGHT_TROT;
                tried.push((style, Waited::of(from, style)?));
                ways.extend(feel(&tried, tried.len() - 1)?);
            }
            // The way whose floor followed the performer best is proved first; only
            // where the proof has it fall is the next proved too.
            // The crawl first on a tie (it comes first, and the sort keeps the order).
            ways.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Proved: the one that stays up, then the one that misses less.
            // Its rank (falls, then misses), which way it was, and what it built.
            type Proved = (Keyframed, Kept);
            let mut best: Option<((bool, f64), usize, Proved)> = None;
            for (_, (k, way, stage, planned)) in ways {
                // Keyframed only for a way proved (most builds prove one).
                let waited = &tried[k].1;
                let unbalanced = Waited::unbalanced(waited, from, &unbalanced)?;
                let from = Waited::balancing_of(waited, from);
                let built = keep_planned(&from, unbalanced, way, &stage, planned)?;
                let falls = built.1.falls().is_some();
                let how = if falls {
                    "proved: falls"
                } else {
                    "proved: stays up"
                };
                let miss = missed(way, how, built.1.path_figures());
                if best.as_ref().is_none_or(|(rank, ..)| (falls, miss) < *rank) {
                    best = Some(((falls, miss), k, built));
                }
                if !falls {
                    break;
                }
            }
            if let Some((_, k, (keyed, kept))) = best {
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
struct Waited {
    waits: Vec<walking::Wait>,
    tracks: Tracks,
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

/// What the balance stage builds from, whichever way the robot walks.
#[derive(Clone, Copy)]
pub struct Balancing<'a> {
    pub tracks: &'a Tracks,
    /// How the performer travels on each frame of `tracks` ([`locomotion::velocities`]),
    /// measured on the take: still where it waits for a walk.
    pub velocities: &'a [[f64; 3]],
    /// Where the performance waits for a walk (in the take's seconds; the rest in the
    /// performance's, the waits in).
    pub waits: &'a [walking::Wait],
    /// Where the performer travels (none: the robot treads in place).
    pub travel: &'a [Span],
    /// The retargeted motion's rows.
    pub grid: &'a keyframes::Grid,
    pub profile: &'a Profile,
    pub options: &'a BuildOptions,
    /// The margin the stage keeps, mm.
    pub margin: f64,
}

/// The balance stage, keyframes and the proof, repaired where the proof finds a fall.
fn keep_balance(
    from: &Balancing,
    unbalanced: Keyframed,
    way: Way,
) -> Result<(Keyframed, Kept), BuildError> {
    let (stage, planned) = plan_way(from, way)?;
    keep_planned(from, unbalanced, way, &stage, planned)
}

/// The stage for `way` and its plan ([`planned`]).
fn plan_way(from: &Balancing, way: Way) -> Result<(Stage, Planned), BuildError> {
    // Where a performer standing at rest would put the limbs: a take without legs
    // stands them as the posture does, rather than sliding the paws there and back.
    let stance = retarget::neutral_pose(from.profile, &from.options.retarget, from.tracks);
    let stage = Stage::new(from.profile, from.grid.frame_ms, &stance)?;
    let planned = planned(&stage, from, way);
    let stance_spots = matches!(
        from.options.balance,
        Balance::On {
            stance_spots: true,
            ..
        }
    );
    if stance_spots || !planned.plan.walks.is_empty() {
        // Asked for, or where the walks were felt on the floor from the stance
        // (`planned`), the stance's spots stay.
        return Ok((stage, planned));
    }
    on_likelier_spots(from, way, &stance, (stage, planned))
}

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
    /// The stance's spots, the front paws [`FRONT_FORWARD_MM`] further forward.
    FrontForward,
    /// Where the performer's legs put them, the front paws further forward and in.
    PerformersFrontForward,
    /// The hind paws where the performer's legs put them, the body lower for the legs
    /// to reach ([`HIND_LOWER_MM`]), the front paws forward of the stance's spots.
    PerformersHind,
    /// Where the performer's legs put them, the hind paws further back
    /// ([`HIND_BACK_MM`]).
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
/// plan), or the same planted on one of those other spots ([`Spots`]): whichever the
/// stage makes look most like the performer, with its first balance made. The motion's
/// ramps from and to the postures slide the paws onto and off those spots, as Sony's
/// own motions slide theirs.
fn on_likelier_spots(
    from: &Balancing,
    way: Way,
    stance: &[f64],
    on_stance: (Stage, Planned),
) -> Result<(Stage, Planned), BuildError> {
    let (stage, planned) = on_stance;
    let plan = &planned.plan;
    let performers = stage.performers_spots(&planned.grid, |row, paw| !plan.wanted(row, paw));
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
    let performance_s = from.grid.rows.len() as f64 * from.grid.step_s();
    let coarse_deg = match performance_s < SCREEN_FROM_S {
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
        let made = (i > 0).then(|| self::planned(stage, from, way));
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

/// `f` of each of `items`, side by side on a thread each (cores permitting), in order;
/// a thread's panic goes on here.
fn side_by_side<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let f = &f;
    std::thread::scope(|scope| {
        let threads: Vec<_> = items
            .iter()
            .map(|item| scope.spawn(move || f(item)))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
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

/// The overall likeness median of the stage's balanced rows (no walks: the limbs are
/// compared throughout), each track frame against the row due at its time.
fn rows_likeness(from: &Balancing, balanced: &stage::Balanced) -> Option<f64> {
    let rows = &balanced.grid.rows;
    let last = rows.len().checked_sub(1)?;
    let pose = |f: usize| {
        let row = balanced.plan.row_at(f as f64 * from.tracks.frame_time);
        Some(rows[row.min(last)][BODY_ANGLES..].to_vec())
    };
    Some(
        crate::likeness::likeness_of(from.tracks, from.profile, &[], pose)?
            .overall
            .median_deg,
    )
}

/// [`keep_balance`] of a way already planned.
fn keep_planned(
    from: &Balancing,
    unbalanced: Keyframed,
    way: Way,
    stage: &Stage,
    planned: Planned,
) -> Result<(Keyframed, Kept), BuildError> {
    let Balancing {
        profile,
        options,
        margin,
        ..
    } = *from;
    #[cfg(feature = "physics")]
    let felt_path = planned.felt_path;
    let Planned {
        mut plan,
        mut grid,
        standing_tail,
        mut balanced,
        spots_moved,
        ..
    } = planned;
    let mut margins = vec![margin; grid.rows.len()];
    let mut repairs = 0;
    loop {
        let mut balanced = balanced
            .take()
            .unwrap_or_else(|| stage.balance(&grid, &plan, &margins));
        walking::apply(&mut balanced.grid, &plan.walks, profile);
        let mut keyed = finish(&balanced.grid, profile, &options.keyframes)?;
        let proof = prove(&keyed.motion, profile)?;
        let windows = proof.falls();
        #[cfg(feature = "physics")]
        tracing::debug!(
            "balance proof, attempt {}: {}; {}; falls at {windows:?} ms",
            repairs + 1,
            proof.statics.summary(),
            proof.physics.summary()
        );
        if windows.is_empty() || repairs == REPAIRS {
            let kept = Kept {
                margin_mm: margin,
                plan: balanced.plan,
                rows: balanced.rows,
                row_ms: grid.frame_ms,
                without: unbalanced.motion,
                without_source_start_ms: unbalanced.source_start_ms,
                statics: proof.statics,
                #[cfg(feature = "physics")]
                physics: proof.physics,
                repairs,
                spots_moved,
                waits: Vec::new(),
                way,
                #[cfg(feature = "physics")]
                felt_path,
            };
            // The performance plays after the lead, and the tail belongs to the way out.
            let (lead_ms, tail_ms) = kept.padding_ms();
            keyed.source_start_ms += lead_ms;
            keyed.ramp_out_ms += tail_ms;
            return Ok((keyed, kept));
        }
        // Back to the stage, around each fall: first a wider margin, then every paw
        // down, then both over a wider stretch; last, every paw down throughout.
        repairs += 1;
        if repairs == REPAIRS {
            plan.lifts.clear();
            plan.walks.clear();
            for m in margins.iter_mut() {
                *m += 10.0;
            }
            trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
            continue;
        }
        let row_of = |ms: u64| {
            (ms.saturating_sub(keyed.source_start_ms) / u64::from(grid.frame_ms)) as usize
        };
        let reach = u64::from(if repairs == 2 { 1000u32 } else { 500 });
        let blend = walking::blend_rows(grid.step_s());
        for (from, to) in windows {
            let (a, b) = (
                row_of(from.saturating_sub(reach)),
                row_of(to + reach).min(grid.rows.len()),
            );
            if repairs != 2 {
                for m in margins.iter_mut().take(b).skip(a) {
                    *m += 10.0;
                }
            }
            if repairs >= 2 {
                plan.hold(a, b);
            }
            // A walk the proof has fall is no help to the stage's margins: the robot
            // treads in place there instead, which the stage keeps up.
            plan.walks
                .retain(|w| w.rows().end + blend <= a || w.start.saturating_sub(blend) >= b);
        }
        trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
    }
}

/// The rows `grid` was padded with for a walk to finish after the performance, cut
/// again once the proof has dropped that walk: the tail keeps what the lifts left need
/// to land (at most what the contact plan needs without walks, `standing_tail`) and
/// what the walks left need to finish. (A dropped last walk left its rows: the motion
/// stood on, and the summary said its last pose was held while a raised paw came down.)
fn trim_tail(
    plan: &mut Plan,
    grid: &mut keyframes::Grid,
    margins: &mut Vec<f64>,
    standing_tail: usize,
) {
    let tail = tail_needed(plan, walking::blend_rows(grid.step_s()), standing_tail);
    if tail < plan.padding.tail {
        plan.rows -= plan.padding.tail - tail;
        plan.padding.tail = tail;
        grid.rows.truncate(plan.rows);
        margins.truncate(plan.rows);
    }
}

/// Both judges' verdicts on a motion.
struct Proof {
    statics: statics::Report,
    #[cfg(feature = "physics")]
    physics: crate::stability::physics::Report,
}

impl Proof {
    /// Where it falls, ms from the motion's start: the static test's unstable spans
    /// (other than a trot's) and the simulation's fall.
    fn falls(&self) -> Vec<(u64, u64)> {
        let tips = self
            .statics
            .spans
            .iter()
            .filter(|s| s.verdict == statics::Verdict::Unstable && !s.dynamic)
            .map(|s| (s.start_ms, s.end_ms));
        #[cfg(feature = "physics")]
        let fall = self.physics.fall.as_ref().map(|f| {
            (
                f.at_ms.saturating_sub(600),
                f.at_ms + crate::mtn::DENSE_FRAME_MS,
            )
        });
        #[cfg(not(feature = "physics"))]
        let fall = None;
        tips.chain(fall).collect()
    }
}

/// The static test of every dense frame, and the simulation on the same frames.
fn prove(motion: &Motion, profile: &Profile) -> Result<Proof, BalanceError> {
    let margin = statics::DEFAULT_MARGIN_MM;
    #[cfg(feature = "physics")]
    {
        use crate::stability::physics;
        let torque = physics::SERVO_TORQUE_NM * PROOF_TORQUE;
        let (statics, physics) = physics::judged(motion, profile, margin, torque, &mut |_| {})?;
        Ok(Proof { statics, physics })
    }
    #[cfg(not(feature = "physics"))]
    Ok(Proof {
        statics: statics::check(motion, profile, margin)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::gait::Walked;

    /// A walk on rows `start..end` (the legs still, nothing stepped).
    fn walk_on(start: usize, end: usize) -> plan::Walk {
        plan::Walk {
            start,
            gait: Walked {
                legs: vec![[[0.0; 3]; 4]; end - start],
                joints: [[0; 3]; 4],
                steps: Vec::new(),
                slowed: 1.0,
                travel: Default::default(),
                crouch_mm: 0.0,
            },
            source_s: (0.0, 0.0),
            path: Vec::new(),
            until: None,
        }
    }

    #[test]
    fn a_dropped_walk_takes_the_rows_padded_for_it_away_again() {
        // 5 rows of lead, 55 performed, and a tail of 40 padded for a walk to finish;
        // the contact plan alone holds the last pose 10 rows for a paw to land: it comes
        // down on the tail's row 10 less the dwell after a landing (0.2 s and a row).
        let (lead, performed, tail, standing_tail) = (5, 55, 40, 10);
        let rows = lead + performed + tail;
        let mut plan = Plan::standing(rows, 0.016);
        plan.padding = plan::Padding { lead, tail };
        let settle = (0.2f64 / 0.016).round() as usize + 1;
        let lands = lead + performed + standing_tail - settle;
        plan.lifts = vec![plan::Lift {
            paw: 0,
            start: lands - 30,
            end: lands,
        }];
        let mut grid = keyframes::Grid {
            rows: (0..rows).map(|r| vec![r as f64]).collect(),
            frame_ms: 16,
        };
        let mut margins = vec![14.0; rows];
        let blend = walking::blend_rows(0.016);
        // A walk still there that ends 20 rows into the tail keeps those and its blend.
        plan.walks = vec![walk_on(30, lead + performed + 20)];
        trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
        assert_eq!(plan.padding.tail, 20 + blend);
        assert_eq!(plan.rows, lead + performed + 20 + blend);
        // Dropped, the tail is the contact plan's again, and the rows go with it.
        plan.walks.clear();
        trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
        assert_eq!(
            plan.padding,
            plan::Padding {
                lead,
                tail: standing_tail
            }
        );
        assert_eq!(plan.rows, lead + performed + standing_tail);
        assert_eq!(grid.rows.len(), plan.rows);
        assert_eq!(margins.len(), plan.rows);
        // The rows kept are the first ones, as they were.
        assert_eq!(grid.rows.last(), Some(&vec![(plan.rows - 1) as f64]));
        // A walk that needs no tail leaves the contact plan's.
        plan.walks = vec![walk_on(10, 20)];
        trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
        assert_eq!(plan.padding.tail, standing_tail);
        // With no paw left to land (the last repair puts every paw down), no tail.
        plan.lifts.clear();
        trim_tail(&mut plan, &mut grid, &mut margins, standing_tail);
        assert_eq!(plan.padding.tail, 0);
        assert_eq!(grid.rows.len(), lead + performed);
    }
}
