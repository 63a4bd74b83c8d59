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
//! every paw held down there (each place where it falls in turn climbs that ladder on
//! its own, `mending`), a bounded number of times. A motion that still falls is
//! returned with the proof that says so: the caller must say it.
//!
//! A walk may take the robot longer than the performer took. By default the take's
//! timing is kept and the walk walks over the gestures after it (the last one on past
//! the take's end); with [`Timing::Fit`] the last walk is home by the take's end too;
//! with [`Timing::Wait`] the performance waits for it (the take's tracks held at the
//! walk's end), so every gesture plays, later.
//!
//! Here is the road and the proof with its repairs; `walks` chooses which way the robot
//! walks, and `spots` where its planted paws stand.

use crate::keyframes::{self, finish, KeyframeError, Keyframed};
use crate::likeness::{likeness, Likeness};
use crate::mtn::Motion;
use crate::retarget::calibration;
use crate::retarget::locomotion::{self, Span};
use crate::retarget::{self, retarget, RetargetError, Tracks};
use crate::robot::profile::Profile;
use crate::source::Clip;
#[cfg(feature = "physics")]
use crate::stability::paths::PathFigures;
use crate::stability::plan::{self, Plan};
use crate::stability::resting;
use crate::stability::stage::{self, RowReport, Stage};
use crate::stability::walking::{self, Way};
use crate::stability::{statics, BalanceError};

mod mending;
mod spots;
mod walks;

use mending::{keep_planned, Climbed, Ladder};
use spots::on_likelier_spots;
pub use spots::{MovedSpots, Spots};
#[cfg(feature = "physics")]
use walks::walks_against;
pub use walks::{planned, Planned};
use walks::{tail_needed, walked};

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
    /// always, never where the performer's legs stand (see `plan_way`).
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

/// Why a way proved was not kept, the worse last (a way is ranked by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PassedOver {
    /// Its proof kept it up only by dropping a walk.
    WalkDropped,
    /// Its proof had it fall.
    Falls,
}

impl PassedOver {
    pub fn name(self) -> &'static str {
        match self {
            PassedOver::Falls => "falls",
            PassedOver::WalkDropped => "walk dropped",
        }
    }
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
    /// Where the paws stand, where it is not the stance's spots (see `plan_way`).
    pub spots_moved: Option<MovedSpots>,
    /// Where the performance waits for a walk to finish (in the take's seconds): the
    /// rows, the tracks and the plan play it with the waits in.
    pub waits: Vec<walking::Wait>,
    /// The way its walks went: their style, and how they steered.
    pub way: Way,
    /// The ways proved before it and not kept, each with why: its proof had it fall, or
    /// kept it up only by dropping a walk.
    pub passed_over: Vec<(Way, PassedOver)>,
    /// Where the simulated floor had the body on each grid row it played while the walks
    /// were felt ([`Planned::felt_path`]; row 0 plays at `source_start_ms` less the
    /// lead). Empty where they were not felt.
    #[cfg(feature = "physics")]
    pub felt_path: Vec<crate::stability::physics::PathPoint>,
}

impl Kept {
    /// How long the performer's first pose is held before the performance and its last
    /// pose after it, ms (see [`crate::stability::plan::Padding`]).
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

    /// Where the robot walks, in the performance's seconds ([`walking::walking_s`]):
    /// the likeness leaves the limbs out there.
    pub fn walking_s(&self) -> Vec<(f64, f64)> {
        self.balance
            .as_ref()
            .map_or_else(Vec::new, |kept| walking::walking_s(&kept.plan, &kept.waits))
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
    let gains = plan::gains(&tracks, profile);
    let from = Balancing {
        tracks: &tracks,
        gains: &gains,
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

/// What the balance stage builds from, whichever way the robot walks.
#[derive(Clone, Copy)]
pub struct Balancing<'a> {
    pub tracks: &'a Tracks,
    /// What raising each paw buys on each frame of `tracks` ([`plan::gains`]), for every
    /// plan made from them.
    pub gains: &'a plan::Gains,
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
    keep_proved(from, unbalanced, way, &stage, planned)
}

/// [`keep_planned`], and again on the stance's spots where the spots moved for a walking
/// take cost it a walk.
fn keep_proved(
    from: &Balancing,
    unbalanced: Keyframed,
    way: Way,
    stage: &Stage,
    planned: Planned,
) -> Result<(Keyframed, Kept), BuildError> {
    let walks = planned.plan.walks.len();
    if walks == 0 || planned.spots_moved.is_none() {
        return keep_planned(from, unbalanced, way, stage, planned);
    }
    // Spots that cost a walk are not worth their likeness: where the proof drops one
    // (Boxing_Toes on the ERS-7, the front paws forward and in: its last walk fell at
    // 28.7 s), the stance's spots stand if the proof keeps more walks on them. The
    // moved spots' ladder is climbed only until a repair drops a walk: the rest of it is
    // climbed only where the stance's spots keep no more (Boxing's keep both walks, and
    // three attempts on the moved spots, two of them proofs, are spared).
    let mut moved = Ladder::new(from, unbalanced.clone(), way, stage, planned);
    while moved.walks() == walks {
        moved = match moved.climb()? {
            Climbed::Kept(kept) => return Ok(*kept),
            Climbed::Higher(ladder) => *ladder,
        };
    }
    let (stage, planned) = on_stance_spots(from, way)?;
    let on_stance = keep_planned(from, unbalanced, way, &stage, planned)?;
    if on_stance.1.plan.walks.len() == walks {
        tracing::debug!("the proof dropped a walk on the moved spots, none on the stance's");
        return Ok(on_stance);
    }
    let moved = moved.top()?;
    tracing::debug!(
        "the proof kept {} of {walks} walks on the moved spots, {} on the stance's",
        moved.1.plan.walks.len(),
        on_stance.1.plan.walks.len()
    );
    Ok(
        match on_stance.1.plan.walks.len() > moved.1.plan.walks.len() {
            true => on_stance,
            false => moved,
        },
    )
}

/// The stance's stage, and its plan for `way` ([`planned`]).
fn on_stance_spots(from: &Balancing, way: Way) -> Result<(Stage, Planned), BuildError> {
    let stage = Stage::new(from.profile, from.grid.frame_ms, &stance(from))?;
    let planned = planned(&stage, from, way);
    Ok((stage, planned))
}

/// Where a performer standing at rest would put the limbs: a take without legs stands
/// them as the posture does, rather than sliding the paws there and back.
fn stance(from: &Balancing) -> Vec<f64> {
    retarget::neutral_pose(from.profile, &from.options.retarget, from.tracks)
}

/// The stage for `way` and its plan ([`planned`]), on the spots that look most like the
/// performer unless `--stance-spots` ([`on_likelier_spots`]).
fn plan_way(from: &Balancing, way: Way) -> Result<(Stage, Planned), BuildError> {
    let stance_spots = matches!(
        from.options.balance,
        Balance::On {
            stance_spots: true,
            ..
        }
    );
    if stance_spots {
        return on_stance_spots(from, way);
    }
    let stance = stance(from);
    let stage = Stage::new(from.profile, from.grid.frame_ms, &stance)?;
    // Where the paws stand between the walks is chosen on the walks as reckoned: their
    // legs play no part in a standing row, and feeling a walk is a simulation. The walks
    // are felt once, stepping off the spots kept ([`on_likelier_spots`]).
    let reckoned = Way {
        steering: walking::Steering::Reckoned,
        ..way
    };
    let sketch = planned(&stage, from, reckoned);
    on_likelier_spots(from, way, &stance, (stage, sketch))
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

/// The legs the stage does not plan laid over its rows `grid`: the walks' gait
/// ([`walking::apply`]) and the rests' postures ([`resting::apply`], toward the legs of
/// `performed`, the grid the stage balanced). The proof's motion and the felt walks'
/// floor both play them.
fn lay_legs(
    grid: &mut keyframes::Grid,
    performed: &keyframes::Grid,
    plan: &Plan,
    profile: &Profile,
) {
    walking::apply(grid, &plan.walks, profile);
    resting::apply(grid, performed, &plan.rests, profile);
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
    use crate::stability::plan;

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
