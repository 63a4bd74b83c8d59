//! The robot's walks: the legs' joint angles, row by row, that carry the body over the
//! floor along the path it is given (forward, to the left, and turning), in one of two
//! [`Style`]s.
//!
//! - **The crawl** ([`Style::CRAWL`], statically stable, the default). One paw is up at a
//!   time, in the order left hind, left front, right hind, right front (a walking dog's),
//!   each for a fifth of the cycle, with all four down between swings. The body sways
//!   over the three paws that stay down before each lift: to the right while the left
//!   paws step, to the left while the right ones do, and forward while a hind paw steps,
//!   back while a front one does.
//! - **The trot** ([`Style::TROT`]). Diagonal pairs swing together (left front with right
//!   hind, then right front with left hind), each for two fifths of the cycle, with all
//!   four down between; the body does not sway. Over two paws it is not statically
//!   stable: it stays up by its pace, as Sony's own walks do, and a build keeps a trot
//!   only where the simulation has it stay up (`pipeline`).
//!
//! A paw on the floor stays on its spot while the body moves over it; a swinging paw
//! rises [`LIFT_MM`] and lands half a stride ahead of its place in the stand, so that the
//! paws stay around the stand. The body walks as much lower than the stand as the
//! profile's `[walk] crouch` says, going down as the walk begins and up as it ends (a
//! paw on the floor rolls as its leg turns, so each step home lands where the rise
//! rolls it onto its end spot; [`Style::UPRIGHT_TROT`] keeps the stand's height: a
//! build tries it where the crouched walks miss the performer's path, `pipeline`).
//!
//! The stride is limited by the legs' reach around the stand ([`REACH_MM`]) and the cycle
//! by the style's quickest: a path faster than the walk is walked later, all of it (the
//! place the walk heads for moves along it at what the walk can go, `WARP_S` late at
//! most), and [`Walked::slowed`] says how much of the path's speed it made. A trot
//! arriving finishes in the crawl. The angles come from the legs' closed-form inverse
//! kinematics (`robot::legs`), within the joints' limits but not their speed: at the
//! stand's height a swing's first rows ask a knee up to 3–5 times its speed on the ERS-7
//! and 6–9 times on the ERS-210, whose leg joints are half as fast, as the knee lifts
//! the paw from a near-straight leg. The written motion slows them to their speed
//! (`keyframes`), so a swing lifts later and lower than reckoned here, and its paw
//! scuffs. Every model walks crouched, which lessens it (the profiles give the figures:
//! upright, an ERS-7 trot spun on the fine solver). Slowing
//! the styles' cycles to the legs' speed was tried, and lost the long walks more than it
//! gained. Nothing here feels the floor:
//! where the body really goes is the simulation's to say, and a walk may steer by it
//! ([`Felt`]).

use glam::{DVec2, DVec3};

use super::plan::Lift;
use super::slip::rolled;
use crate::robot::legs::{wrap, Leg, LegId};
use crate::robot::profile::Profile;

/// How a walk steps: which paws swing when, how the body sways, and how quick a cycle
/// may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// What people call it: "crawl", "trot".
    pub name: &'static str,
    /// When each paw's swing starts in the cycle, in [`plan::PAWS`](super::plan::PAWS)
    /// order (lf, rf, lh, rh).
    swing_at: [f64; 4],
    /// The share of the cycle each paw swings (the rest it carries weight).
    swing_share: f64,
    /// The body's sway to the side and fore and aft, mm.
    sway_mm: f64,
    surge_mm: f64,
    /// The cycle's shortest and longest duration, s.
    cycle_min_s: f64,
    cycle_max_s: f64,
    /// Whether the body walks as low as the profile's `[walk] crouch` says, or at the
    /// stand's height.
    pub crouched: bool,
}

impl Style {
    /// The statically stable crawl: left hind first, then left front, right hind, right
    /// front, a fifth of the cycle each.
    pub const CRAWL: Style = Style {
        name: "crawl",
        swing_at: [0.25, 0.75, 0.0, 0.5],
        swing_share: 0.2,
        sway_mm: 30.0,
        surge_mm: 10.0,
        cycle_min_s: 1.2,
        cycle_max_s: 2.0,
        crouched: true,
    };

    /// The trot: left front with right hind, then right front with left hind, two fifths
    /// of the cycle each, twice as quick as the crawl at most.
    pub const TROT: Style = Style {
        name: "trot",
        swing_at: [0.0, 0.5, 0.5, 0.0],
        swing_share: 0.4,
        sway_mm: 0.0,
        surge_mm: 0.0,
        cycle_min_s: 0.6,
        cycle_max_s: 1.0,
        crouched: true,
    };

    /// The trot at the stand's height, whatever the profile's crouch.
    pub const UPRIGHT_TROT: Style = Style {
        crouched: false,
        ..Style::TROT
    };

    /// The share of the cycle each paw carries weight.
    fn stance(&self) -> f64 {
        1.0 - self.swing_share
    }

    /// The fastest the style goes, mm/s: its stride within reach at its quickest cycle.
    pub fn fastest_mm_s(&self) -> f64 {
        REACH_MM / (self.stance() * self.cycle_min_s)
    }

    /// Where the body sways at `phase` of the cycle (mm, its own frame): over the three
    /// paws that stay down at the next lift, as it must be there first (away from the
    /// side that steps, forward for a hind step and back for a front one).
    fn sway(&self, phase: f64) -> DVec2 {
        DVec2::new(
            self.surge_mm * (std::f64::consts::TAU * 2.0 * (phase - 0.1)).cos(),
            -self.sway_mm * (std::f64::consts::TAU * (phase + 0.125)).sin(),
        )
    }
}

/// How far a paw may travel along the floor about its place in the stand, mm (the stride
/// in the body's frame).
pub const REACH_MM: f64 = 50.0;

/// How far a paw may travel to the side about its place in the stand, mm.
pub const SIDE_REACH_MM: f64 = 30.0;

/// How high a swinging paw rises, mm.
pub const LIFT_MM: f64 = 20.0;

/// How much wider than the stand the paws step while walking, each side, mm: the body
/// sways over a wider base, and the paw on the side it sways to stays within its leg's
/// reach inward (J2 turns inward only 10°).
const WIDEN_MM: f64 = 15.0;

/// A paw on the floor this near where its leg is asked to put it is there, mm; a paw on
/// a spot its leg cannot reach ([`Gait::standing_on`]) tries this many places on the
/// way to its place in the stand.
const REACHED_MM: f64 = 0.5;
const REACH_TRIES: usize = 10;

/// How long the body sways over before the first step, and back after the last, s.
const SWAY_IN_S: f64 = 0.4;

/// The crawl for one robot.
pub struct Gait {
    legs: Vec<Leg>,
    /// Each paw where the stand puts it (body frame, mm), and the stand's leg angles.
    stand_paws: [DVec3; 4],
    stand_angles: [[f64; 3]; 4],
    /// Where each paw stands before a walk's first step and after its step home (body
    /// frame, mm): the stand's places, or others ([`Gait::standing_on`]).
    ends: [DVec3; 4],
    /// The legs' mean length, hip to paw, mm.
    pub leg_mm: f64,
    /// The paws' radius, mm: a paw on the floor rolls as its leg turns.
    paw_radius: f64,
    /// How much lower than the stand the body walks, mm (the profile's `[walk]`).
    crouch_mm: f64,
    /// How it steps.
    pub style: Style,
}

/// Where a row asks the body to be on the floor: mm from where the walk starts (x ahead
/// of its heading then, y to its left) and its heading (radians turned left).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Place {
    pub at: DVec2,
    pub heading: f64,
}

impl Place {
    /// Where `step` (a place seen from this one) is, seen from where this one is seen
    /// from: the inverse of [`Place::seen_from`].
    pub fn then(self, step: Place) -> Place {
        Place {
            at: self.at + DVec2::from_angle(self.heading).rotate(step.at),
            heading: self.heading + step.heading,
        }
    }

    /// This place as seen from `origin`: from there, in the heading it faced.
    pub fn seen_from(self, origin: Place) -> Place {
        Place {
            at: DVec2::from_angle(-origin.heading).rotate(self.at - origin.at),
            heading: self.heading - origin.heading,
        }
    }
}

/// Where the body is once a row's leg angles (as [`Walked::legs`]) have played, as a
/// [`Place`] from where the walk started, given also where the crawl reckons it is then;
/// `None` when it cannot tell.
pub type Felt<'a> = dyn FnMut(&[[f64; 3]; 4], Place) -> Option<Place> + 'a;

/// The crawl closes the distance to where it should be over about this long, s.
const TRACK_S: f64 = 1.0;

/// Once the path is behind it, the walk walks on for at most this long to get there, s.
pub const CATCH_UP_S: f64 = 5.0;

/// A walk still facing away from the path's end as the path ends (by more than
/// [`TURNED_AWAY_RAD`]) walks on longer, turning: as long as it would take at
/// [`TURN_CATCH_UP_RAD_S`] to face it, at most [`TURN_CATCH_UP_MAX_S`] more. A dancer who
/// spins fast leaves the walk a turn or more behind by the path's end: the Bandai dance's
/// ERS-7 walk was 466° behind, and ended a whole turn short after [`CATCH_UP_S`]. Nearer
/// than that, a walk's heading only sways as it steps, and walking on changes nothing.
const TURNED_AWAY_RAD: f64 = 1.0;

/// A trot asked to turn in place turns about 0.5 rad/s on the simulated floor (a third of
/// what its strides reckon); the catch-up allows for a little less, rad/s.
const TURN_CATCH_UP_RAD_S: f64 = 0.4;
const TURN_CATCH_UP_MAX_S: f64 = 20.0;

/// How long a walk whose heading is `off_heading` (rad) from the path's end as the path
/// ends may walk on after it, s.
fn catch_up_s(off_heading: f64) -> f64 {
    let off = off_heading.abs();
    if off > TURNED_AWAY_RAD {
        CATCH_UP_S + (off / TURN_CATCH_UP_RAD_S).min(TURN_CATCH_UP_MAX_S)
    } else {
        CATCH_UP_S
    }
}

/// The share of a style's fastest a path may ask before the walk follows it slower than
/// the performer went (the rest closes the gap to where it should be).
const WARP_SHARE: f64 = 0.8;

/// A walk may finish its path this long after the performer did, s: a path faster
/// than that allows, the walk falls behind and heads straight for where it should be.
const WARP_S: f64 = 20.0;

/// Once the path ends, a trot this near where it should be finishes in the crawl, mm.
const FINISH_IN_CRAWL_MM: f64 = 100.0;
const FINISH_IN_CRAWL_RAD: f64 = 0.5;

/// How far along the path (s of it) past the row nearest the body the walk looks for a
/// nearer one, row by row, to count how far the body got.
const BODY_ALONG_REACH_S: f64 = 2.0;

/// Close enough to the path's end to stop: mm, and radians.
const ARRIVED_MM: f64 = 20.0;
const ARRIVED_RAD: f64 = 0.09;

/// A crawl, row by row.
#[derive(Debug, Clone, PartialEq)]
pub struct Walked {
    /// Each row's leg angles, radians, in [`plan::PAWS`](super::plan::PAWS) order, J1 to J3.
    pub legs: Vec<[[f64; 3]; 4]>,
    /// The profile joints the angles go to, in the same order.
    pub joints: [[usize; 3]; 4],
    /// Each swing: the rows a paw is off the floor.
    pub steps: Vec<Lift>,
    /// The share of the path's own speed the crawl made while following it: its speed
    /// over what the path asked, summed over the path's rows (1: all of it), and no more
    /// than the path up to where the body got, where it stopped short of the end.
    pub slowed: f64,
    /// Where the body went over the floor by the crawl's own reckoning: forward and left
    /// (mm, in the heading it started with) and the turn (radians).
    pub travel: (DVec2, f64),
    /// How much lower than the stand the body walked, mm.
    pub crouch_mm: f64,
}

impl Gait {
    /// The crawl for `profile`; `None` when it has no legs to solve or no stand.
    pub fn of(profile: &Profile) -> Option<Gait> {
        Gait::styled(profile, Style::CRAWL)
    }

    /// The walk in `style` for `profile`; `None` when it has no legs to solve or no stand.
    pub fn styled(profile: &Profile, style: Style) -> Option<Gait> {
        let stand = profile.postures.get("stand")?;
        let order = [
            LegId::LeftFront,
            LegId::RightFront,
            LegId::LeftHind,
            LegId::RightHind,
        ];
        let legs: Vec<Leg> = order
            .iter()
            .map(|&id| Leg::of(profile, id))
            .collect::<Option<_>>()?;
        let mut stand_paws = [DVec3::ZERO; 4];
        let mut stand_angles = [[0.0; 3]; 4];
        for (i, leg) in legs.iter().enumerate() {
            let angles = leg
                .joints
                .map(|j| stand.joints.get(j).copied().unwrap_or(0.0));
            stand_angles[i] = angles;
            stand_paws[i] = leg.paw(angles);
        }
        let leg_mm = legs.iter().map(|l| l.length).sum::<f64>() / legs.len() as f64;
        Some(Gait {
            legs,
            stand_paws,
            stand_angles,
            ends: stand_paws,
            leg_mm,
            paw_radius: profile.mass.as_ref().map_or(0.0, |m| m.paw_radius),
            crouch_mm: if style.crouched {
                profile.walk.crouch
            } else {
                0.0
            },
            style,
        })
    }

    /// The profile joints of each leg, in [`plan::PAWS`](super::plan::PAWS) order, J1 to J3.
    pub fn joints(&self) -> [[usize; 3]; 4] {
        [0, 1, 2, 3].map(|i| self.legs[i].joints)
    }

    /// How far each paw of pose `to` stands from where pose `from` puts it (each every
    /// profile joint's angle; one a pose lacks, as the stand has it), seen from above
    /// in the body's frame (mm, x forward and y left), in [`plan::PAWS`](super::plan::PAWS)
    /// order: the offsets [`Gait::standing_on`] takes.
    pub fn offsets(&self, from: &[f64], to: &[f64]) -> [DVec2; 4] {
        std::array::from_fn(|i| {
            let leg = &self.legs[i];
            let paw = |pose: &[f64]| {
                leg.paw(std::array::from_fn(|k| {
                    pose.get(leg.joints[k])
                        .copied()
                        .unwrap_or(self.stand_angles[i][k])
                }))
            };
            (paw(to) - paw(from)).truncate()
        })
    }

    /// This gait, its walks starting and ending with each paw `offsets[i]` (mm, x forward
    /// and y left in the body's frame) from its place in the stand: walks that step off
    /// the spots the robot stands on before them and back onto them, where the gait's
    /// own start and end in its stand. A paw stays on its spot until its first step, and
    /// its step home lands it there again. Where the body sways too far from a paw on
    /// the floor for its leg to reach it, the paw slides toward its place in the stand
    /// as far as it must, and stays where it slid.
    pub fn standing_on(mut self, offsets: [DVec2; 4]) -> Gait {
        self.ends = std::array::from_fn(|i| self.stand_paws[i] + offsets[i].extend(0.0));
        self
    }

    /// The walk for rows `row_s` apart that follows `path`, each row's place for the
    /// body: it heads for where it should be, at what the path's own speed asks plus
    /// what closes the gap over `TRACK_S`, going and turning slowed alike to the
    /// style's speed. Where the path asks more than the style goes, where it should be
    /// moves along the path slower than the performer did (`Gait::path_pace`), up to
    /// `WARP_S` late. It starts and ends in the stand: it sways over before its first
    /// step; once it has the path behind it, it walks on until it gets there (at most
    /// [`CATCH_UP_S`], longer where it faces away as `catch_up_s` says; a trot near
    /// there finishes in the crawl), steps each paw back to
    /// its place, and sways back. With `until`, it is back in the stand by that row
    /// (what follows needs the legs): it stops following in time to step home.
    ///
    /// With `felt`, it steers by where the body really goes: after each row's legs,
    /// `felt` says where the body is (as [`Felt`]), and the crawl heads for the path from
    /// there rather than from its own reckoning, which knows no slip.
    pub fn walk(
        &self,
        path: &[Place],
        row_s: f64,
        until: Option<usize>,
        mut felt: Option<&mut Felt>,
    ) -> Walked {
        let mut out = Walked {
            legs: Vec::new(),
            joints: self.joints(),
            steps: Vec::new(),
            slowed: 1.0,
            travel: (DVec2::ZERO, 0.0),
            crouch_mm: self.crouch_mm,
        };
        if !row_s.is_finite() || row_s <= 0.0 {
            return out;
        }
        // The paws on the floor (body frame, the sway aside), and each swing under way:
        // where it left and where it lands.
        let mut paws = self.ends;
        let mut swinging: [Option<Swing>; 4] = [None; 4];
        let mut angles = self.stand_angles;
        let sway_in = (SWAY_IN_S / row_s).round().max(1.0) as usize;
        // How far down into the crouch the body is by a row, going down from the first.
        let going_down = |row: usize| (row + 1) as f64 / sway_in as f64;
        // The style it steps in: its own, until a trot finishes in the crawl.
        let mut style = self.style;
        let slowest_cycle_s = style.cycle_max_s.max(Style::CRAWL.cycle_max_s);
        // The cycle's phase, from −(sway in) as the body sways over before the first step.
        let mut phase = -SWAY_IN_S / style.cycle_max_s;
        let mut stepped_home = [false; 4];
        let mut homing = false;
        // How far each paw on the floor stands from where the gait would have it, while
        // it stands on the spot the walk starts or ends on (`None` once it stepped off).
        let mut off_place: [Option<DVec3>; 4] =
            std::array::from_fn(|i| Some(self.ends[i] - self.stand_paws[i]));
        let mut heading = 0.0f64;
        let mut travelled = DVec2::ZERO;
        let mut row = 0usize;
        let mut sway_out: Option<usize> = None;
        let (mut path_mm, mut made_mm) = (0.0, 0.0);
        // Where the body is by what `felt` said last (the sway aside), or by reckoning.
        let mut sensed: Option<Place> = None;
        // How far along the path (in its rows) the place the walk heads for is, and the
        // row the walk got there: a path faster than the walk is walked later, all of it,
        // not cut across.
        let mut along = 0.0f64;
        let mut path_done: Option<usize> = None;
        // Where the body was on each row while it followed, with how far along the path
        // the place it headed for was; and whether it got to the path's end. A walk cut
        // short left the body behind that place (see `Gait::body_along`).
        let mut followed: Vec<(Place, usize)> = Vec::new();
        let mut reached = false;
        let mut catching_up: Option<f64> = None;
        let path_end = path.len().saturating_sub(1) as f64;
        // The row by which the path is walked: at most [`WARP_S`] after the performer
        // (the rows it walks on over are theirs no more), and in time to step home by
        // `until`.
        let homeward_max = homeward_rows(slowest_cycle_s, row_s) as f64;
        let deadline = (path_end + WARP_S / row_s)
            .min(until.map_or(f64::INFINITY, |u| u as f64 - homeward_max))
            .max(path_end);
        loop {
            // Where it should be, what the path's speed asks there, and how far it is off.
            let target = path_at(path, along);
            // Later, but not much: the rest of the path is walked by the deadline.
            let rows_left = (deadline - row as f64).max(1.0);
            let pace_mm_s = self.path_pace(path, along, row_s);
            let rate = (WARP_SHARE * style.fastest_mm_s() / pace_mm_s.max(1e-9))
                .max((path_end - along) / rows_left)
                .min(1.0);
            let next = path_at(path, along + rate);
            let here = sensed.unwrap_or(Place {
                at: travelled,
                heading,
            });
            let onward = DVec2::from_angle(-here.heading);
            let off = onward.rotate(target.at - here.at);
            // Unwrapped: a walk round twice turns twice, however far behind it falls.
            let off_heading = target.heading - here.heading;
            let arrived = off.length() < ARRIVED_MM && off_heading.abs() < ARRIVED_RAD;
            reached |= arrived && path_done.is_some();
            if !reached {
                followed.push((here, along.floor() as usize));
            }
            // Stepping home and swaying back take a slow cycle and the sway.
            let homeward = homeward_rows(style.cycle_max_s, row_s);
            let in_time = until.is_none_or(|u| row + homeward < u);
            // How long it may walk on, from how far it faces from the path's end as the
            // path ends.
            let catch_up = path_done.map(|_| *catching_up.get_or_insert(catch_up_s(off_heading)));
            // Once it stops to step home it stays stopped: a body felt to slip back off
            // its arrival would otherwise walk a paw back off the spot it stepped home to.
            homing |= !(in_time
                && path_done
                    .zip(catch_up)
                    .is_none_or(|(done, s)| !arrived && (row - done) as f64 * row_s < s));
            let walking = !homing;
            let asked = walking.then(|| {
                let ahead = onward.rotate(next.at - target.at) / row_s;
                let turning = wrap(next.heading - target.heading) / row_s;
                (ahead + off / TRACK_S, turning + off_heading / TRACK_S)
            });
            let (v, turn) = asked.unwrap_or_default();
            // Arriving, a trot gives way to the crawl (on four paws, between the pairs'
            // swings): slow, on two paws, it rocks about and barely steers, and the
            // ERS-210's turned away from where it should face as it walked on.
            let finishing = path_done.is_some()
                && off.length() < FINISH_IN_CRAWL_MM
                && off_heading.abs() < FINISH_IN_CRAWL_RAD;
            if finishing
                && asked.is_some()
                && style != Style::CRAWL
                && phase >= 0.0
                && swinging.iter().all(Option::is_none)
            {
                style = Style::CRAWL;
                phase = -SWAY_IN_S / style.cycle_max_s;
            }
            if asked.is_none() && sway_out.is_none() {
                // Every paw has stepped back to its place with the body still: sway back.
                if stepped_home.iter().all(|&h| h) && swinging.iter().all(Option::is_none) {
                    sway_out = Some(row);
                }
            }
            if let Some(from) = sway_out {
                if row >= from + sway_in {
                    break;
                }
            }
            let Pace {
                linear,
                turn,
                cycle,
            } = self.pace(style, v, turn);
            if path_done.is_none() && walking {
                // The path's own pace here, and the share of it the walk goes.
                path_mm += pace_mm_s;
                made_mm += pace_mm_s * rate;
                along = (along + rate).min(path_end);
                if along >= path_end {
                    path_done = Some(row + 1);
                }
            }
            // The body's move over this row, and the paws on the floor moving back under it.
            let before = phase;
            if sway_out.is_none() {
                phase += row_s / cycle;
            }
            for i in 0..4 {
                let at = |p: f64| (p - style.swing_at[i]).rem_euclid(1.0);
                let swing_now = phase >= 0.0 && at(phase) < style.swing_share && sway_out.is_none();
                let swing_began = swing_now && (before < 0.0 || at(before) >= style.swing_share);
                if swing_began {
                    // Walking, the paws land a little wider than the stand; home, on it.
                    let home = if asked.is_some() {
                        let side = self.stand_paws[i].y.signum();
                        self.stand_paws[i] + DVec3::Y * side * WIDEN_MM
                    } else {
                        self.ends[i]
                    };
                    let reach =
                        (linear + rotate(turn, home.truncate())) * (style.stance() * cycle / 2.0);
                    let mut land = home + reach.extend(0.0);
                    if asked.is_none() {
                        // Planted, the paw rolls as the body sways and rises over it:
                        // it lands where that roll leaves it on its end spot.
                        let ahead = style.swing_share - at(phase);
                        let landing_row = row + (ahead * cycle / row_s).round() as usize;
                        let body = style
                            .sway(phase + ahead)
                            .extend(self.lowered(going_down(landing_row)));
                        land = self.landing_to_roll_home(i, land, body);
                    }
                    swinging[i] = Some(Swing {
                        from: paws[i],
                        land,
                        row,
                    });
                    // Stepping home, it lands on its end spot; stepping on, off it.
                    off_place[i] = None;
                    if asked.is_none() {
                        stepped_home[i] = true;
                    }
                }
                match swinging[i] {
                    Some(swing) if !swing_now => {
                        paws[i] = swing.land;
                        if stepped_home[i] {
                            off_place[i] = Some(self.ends[i] - self.stand_paws[i]);
                        }
                        out.steps.push(Lift {
                            paw: i,
                            start: swing.row,
                            end: row,
                        });
                        swinging[i] = None;
                    }
                    Some(_) => {}
                    None => {
                        let p = paws[i].truncate();
                        let moved = (linear + rotate(turn, p)) * row_s;
                        paws[i] -= moved.extend(0.0);
                    }
                }
            }
            travelled += DVec2::from_angle(heading).rotate(linear * row_s);
            heading += turn * row_s;
            // Sway and crouch ease out alike over the sway's time once every paw is home.
            let leaving = sway_out.map(|from| 1.0 - (row - from) as f64 / sway_in as f64);
            // The sway: full once the stepping starts, eased in before (by the phase: a
            // trot finishing in the crawl sways in anew) and out after.
            let ease = leaving.unwrap_or(if phase < 0.0 {
                1.0 + phase * style.cycle_max_s / SWAY_IN_S
            } else {
                1.0
            });
            let body = style.sway(phase.max(0.0)) * smooth(ease.clamp(0.0, 1.0));
            // The crouch goes down by rows from the walk's first, whatever the style (a
            // trot finishing in the crawl stays down).
            let lowered = self.lowered(leaving.unwrap_or(going_down(row)));
            let swung = self.swung(style, &swinging, phase);
            self.pose_legs(
                &mut paws,
                &swung,
                &mut off_place,
                body.extend(lowered),
                &mut angles,
            );
            out.legs.push(angles);
            if let Some(felt) = felt.as_deref_mut() {
                // The body's centre carries the sway; the crawl's place does not.
                let reckoned = Place {
                    at: travelled,
                    heading,
                };
                sensed = felt(&angles, reckoned).map(|p| Place {
                    at: p.at - DVec2::from_angle(p.heading).rotate(body),
                    heading: p.heading,
                });
            }
            row += 1;
            // A walk that never settles still ends: a hostile or endless input.
            if row
                > path.len()
                    + ((WARP_S + CATCH_UP_S + TURN_CATCH_UP_MAX_S + 4.0 * slowest_cycle_s) / row_s)
                        as usize
                    + 2 * sway_in
            {
                break;
            }
        }
        out.travel = (travelled, heading);
        // Cut short by `until`, the walk left the rest of the path unwalked: asked, and
        // not made.
        if path_done.is_none() {
            let mut k = along;
            while k < path_end {
                path_mm += self.path_pace(path, k, row_s);
                k += 1.0;
            }
        }
        // The share is what the body made: a walk that hurried its target to the path's
        // end by `until`, or gave up catching up, made only as far as the body got.
        if !reached {
            let body_along = self.body_along(path, &followed, row_s);
            let body_mm: f64 = (0..body_along)
                .map(|k| self.path_pace(path, k as f64, row_s))
                .sum();
            made_mm = made_mm.min(body_mm);
        }
        out.slowed = if path_mm > 0.0 {
            made_mm / path_mm
        } else {
            1.0
        };
        out
    }
}

impl Gait {
    /// The path's row nearest where the body got, from where it was on each row it
    /// `followed` the path (with the row the place it headed for was on, which it never
    /// passes). Nearness is the stride (mm) that would take the body to a row, so that a
    /// turn on the spot counts as much as a walk; row by row, the nearest of the rows up
    /// to [`BODY_ALONG_REACH_S`] past the last: on past a place where the path doubles
    /// back, never leaping to where a loop comes by again.
    fn body_along(&self, path: &[Place], followed: &[(Place, usize)], row_s: f64) -> usize {
        if path.is_empty() {
            return 0;
        }
        let ahead = (BODY_ALONG_REACH_S / row_s) as usize;
        followed.iter().fold(0, |last, &(here, headed)| {
            let onward = DVec2::from_angle(-here.heading);
            let reach = (last + ahead).min(headed).min(path.len() - 1);
            (last..=reach)
                .map(|k| {
                    let off = onward.rotate(path[k].at - here.at);
                    (k, self.paw_speed(off, path[k].heading - here.heading))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(last, |(k, _)| k)
        })
    }
}

/// Rows `row_s` apart to step home and sway back: a cycle of `cycle_s` and the sway.
fn homeward_rows(cycle_s: f64, row_s: f64) -> usize {
    ((cycle_s + 2.0 * SWAY_IN_S) / row_s).ceil() as usize
}

/// The place on `path` (a place a row) `along` rows into it, between its rows; the
/// last one past its end.
fn path_at(path: &[Place], along: f64) -> Place {
    let Some(&last) = path.last() else {
        return Place::default();
    };
    let k = along.max(0.0).floor() as usize;
    let (Some(&a), Some(&b)) = (path.get(k), path.get(k + 1)) else {
        return last;
    };
    let t = along - k as f64;
    Place {
        at: a.at.lerp(b.at, t),
        heading: a.heading + (b.heading - a.heading) * t,
    }
}

/// A paw in the air: where it left (body frame, mm), where it lands, and the row it
/// lifted.
#[derive(Debug, Clone, Copy)]
struct Swing {
    from: DVec3,
    land: DVec3,
    row: usize,
}

/// How the crawl goes over one row: the body's velocity (mm/s, its own frame), its turn
/// (rad/s), and the cycle that strides them out (s).
struct Pace {
    linear: DVec2,
    turn: f64,
    cycle: f64,
}

impl Gait {
    /// How fast the fastest paw strides over the floor (mm/s, a sideways stride counted
    /// longer: a paw reaches less far to the side, as J2 turns inward only 10°) while the
    /// body goes `v` and turns `turn` over it.
    fn paw_speed(&self, v: DVec2, turn: f64) -> f64 {
        let stride = |v: DVec2| DVec2::new(v.x, v.y * REACH_MM / SIDE_REACH_MM).length();
        self.stand_paws
            .iter()
            .map(|p| stride(v + rotate(turn, p.truncate())))
            .fold(0.0, f64::max)
    }

    /// How fast the fastest paw strides (mm/s, as [`Gait::paw_speed`]) at the pace `path`
    /// (a place a row `row_s` apart) asks `along` it, in its own heading there: the walk
    /// heads for a place that moves along the path at [`WARP_SHARE`] of the style's
    /// fastest at most.
    fn path_pace(&self, path: &[Place], along: f64, row_s: f64) -> f64 {
        let (a, b) = (path_at(path, along), path_at(path, along + 1.0));
        let onward = DVec2::from_angle(-a.heading).rotate(b.at - a.at) / row_s;
        self.paw_speed(onward, wrap(b.heading - a.heading) / row_s)
    }

    /// What the crawl makes of going `v` and turning `turn`: both slowed alike to its
    /// fastest (it walks any way it faces, so it need not turn to get somewhere), at the
    /// cycle whose stride carries them.
    fn pace(&self, style: Style, v: DVec2, turn: f64) -> Pace {
        let share = (style.fastest_mm_s() / self.paw_speed(v, turn).max(1e-9)).min(1.0);
        let (linear, turn) = (v * share, turn * share);
        let demand = self.paw_speed(linear, turn);
        let cycle = if demand > 0.0 {
            (REACH_MM / (demand * style.stance())).clamp(style.cycle_min_s, style.cycle_max_s)
        } else {
            style.cycle_max_s
        };
        Pace {
            linear,
            turn,
            cycle,
        }
    }

    /// Where each swinging paw is along its arc at `phase`; `None` for a planted one.
    fn swung(&self, style: Style, swinging: &[Option<Swing>; 4], phase: f64) -> [Option<DVec3>; 4] {
        std::array::from_fn(|i| {
            swinging[i].map(|swing| {
                let s = ((phase - style.swing_at[i]).rem_euclid(1.0) / style.swing_share)
                    .clamp(0.0, 1.0);
                let mut at = swing.from.lerp(swing.land, smooth(s));
                at.z = self.stand_paws[i].z + LIFT_MM * (std::f64::consts::PI * s).sin();
                at
            })
        })
    }

    /// The body's height against the stand (mm, down is negative) a share `down` of the
    /// way into the crouch, eased.
    fn lowered(&self, down: f64) -> f64 {
        -self.crouch_mm * smooth(down.clamp(0.0, 1.0))
    }

    /// Where paw `i` lands, near `land`, under a body at `body` (its sway and crouch), so
    /// that its centre is on its end spot once the body stands over it in the stand: a
    /// planted paw's centre moves by its roll as its leg turns, and rising from a
    /// crouch turns the legs (15 mm turned the ERS-7's hind paws 4 mm outward and 4 mm
    /// back, which the blend out of the walk then slid).
    fn landing_to_roll_home(&self, i: usize, land: DVec3, body: DVec3) -> DVec3 {
        let leg = &self.legs[i];
        let Some(home) = leg.reach(self.ends[i], self.stand_angles[i]) else {
            return land;
        };
        let home_turn = leg.paw_turn(home);
        let mut at = land;
        // The roll barely changes with where the paw lands: twice is enough.
        for _ in 0..2 {
            let Some(landed) = leg.reach(at - body, home) else {
                return land;
            };
            at =
                self.ends[i] - rolled(leg.paw_turn(landed), home_turn, self.paw_radius).extend(0.0);
        }
        at
    }

    /// Each leg's angles for its paw: a planted one where it is, a swinging one where it
    /// is `swung`, all less the body's sway and crouch `body`. A target out of reach
    /// (an inward paw past J2's limit) gives way toward the paw's place in the stand; a
    /// planted paw's centre moves by its roll as its leg turns.
    fn pose_legs(
        &self,
        paws: &mut [DVec3; 4],
        swung: &[Option<DVec3>; 4],
        off_place: &mut [Option<DVec3>; 4],
        body: DVec3,
        angles: &mut [[f64; 3]; 4],
    ) {
        for i in 0..4 {
            let mut target = swung[i].unwrap_or(paws[i]);
            target -= body;
            // The paw's place in the stand, as low under the body as the crouch puts it.
            let home = self.stand_paws[i] - DVec3::Z * body.z;
            if let Some(off) = off_place[i].filter(|o| *o != DVec3::ZERO) {
                // A paw on its spot off its place in the stand (`off` from where the gait
                // would have it) that its leg cannot reach from where the body is slides
                // back along that offset, as far as it must, and keeps what it gave up.
                // (The leg's solver takes a target past its reach to the nearest point
                // within it, which is no place for a paw on the floor.)
                let leg = &self.legs[i];
                let kept = (0..=REACH_TRIES).rev().find_map(|n| {
                    let k = n as f64 / REACH_TRIES as f64;
                    let to = target - off * (1.0 - k);
                    let a = leg.reach(to, angles[i])?;
                    (leg.paw(a).distance(to) < REACHED_MM).then_some(k)
                });
                let k = kept.unwrap_or(0.0);
                if k < 1.0 {
                    paws[i] -= off * (1.0 - k);
                    target -= off * (1.0 - k);
                    off_place[i] = Some(off * k);
                }
            }
            let reached = [0.0, 0.25, 0.5, 0.75, 1.0]
                .into_iter()
                .find_map(|k| self.legs[i].reach(target.lerp(home, k), angles[i]));
            if let Some(a) = reached {
                // The rubber stays on its spot, and the body goes as far as planned (not
                // further), only if the centre moves by the roll.
                if swung[i].is_none() {
                    let leg = &self.legs[i];
                    let (was, now) = (leg.paw_turn(angles[i]), leg.paw_turn(a));
                    paws[i] += rolled(was, now, self.paw_radius).extend(0.0);
                }
                angles[i] = a;
            }
        }
    }
}

/// `p` turned by a rate `turn` (rad/s) as a velocity: `turn` × `p` about the vertical.
fn rotate(turn: f64, p: DVec2) -> DVec2 {
    DVec2::new(-turn * p.y, turn * p.x)
}

/// 0 to 1, easing in and out.
pub(super) fn smooth(s: f64) -> f64 {
    s * s * (3.0 - 2.0 * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_has_swayed_away_from_each_paw_as_it_lifts() {
        // lf, rf, lh, rh: left is +y, front is +x. (Through a front paw's swing the
        // sideways sway already heads back: a sine over the cycle. Holding it to the
        // side until the paw lands, and crossing over in a pause on four paws, made the
        // simulated walks fall: tried and left.)
        let crawl = Style::CRAWL;
        let side = [1.0, -1.0, 1.0, -1.0];
        let end = [1.0, 1.0, -1.0, -1.0];
        for i in 0..4 {
            let body = crawl.sway(crawl.swing_at[i]);
            assert!(body.y * side[i] <= -0.6 * crawl.sway_mm, "paw {i}: {body}");
            let body = crawl.sway(crawl.swing_at[i] + crawl.swing_share / 2.0);
            assert!(body.x * end[i] < 0.0, "paw {i}: {body}");
        }
    }

    /// `mm` straight ahead over `seconds`, a place every `row_s`.
    fn straight_ahead(mm: f64, seconds: f64, row_s: f64) -> Vec<Place> {
        let rows = (seconds / row_s) as usize;
        (0..=rows)
            .map(|k| Place {
                at: DVec2::new(mm * k as f64 / rows as f64, 0.0),
                heading: 0.0,
            })
            .collect()
    }

    /// How far (mm, seen from above) the paws of `walked`'s last row stand from `gait`'s
    /// end spots, at most.
    fn off_the_end_spots(gait: &Gait, walked: &Walked) -> f64 {
        let last = walked.legs.last().expect("a walk has rows");
        (0..4)
            .map(|i| {
                let at = gait.legs[i].paw(last[i]).truncate();
                at.distance(gait.ends[i].truncate())
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_crouched_walk_steps_home_where_rising_rolls_each_paw_onto_its_spot() {
        // A planted paw rolls as its leg turns, and rising out of the crouch turns the
        // legs: a step home landing on the spot itself ended the ERS-7's paws 4-5 mm off
        // it at 15 mm down, which the blend out of the walk then slid.
        let row_s = 0.016;
        let path = straight_ahead(200.0, 4.0, row_s);
        let forward_rh = [(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (22.8, 0.7)];
        for model in ["ERS-7", "ERS-210", "ERS-220"] {
            let profile = Profile::builtin(model).unwrap();
            assert!(profile.walk.crouch >= 10.0, "{model}");
            for style in [Style::CRAWL, Style::TROT] {
                for offsets in [[(0.0, 0.0); 4], forward_rh] {
                    let gait = Gait::styled(&profile, style)
                        .unwrap()
                        .standing_on(offsets.map(|(x, y)| DVec2::new(x, y)));
                    let walked = gait.walk(&path, row_s, None, None);
                    let off = off_the_end_spots(&gait, &walked);
                    assert!(off < 1.0, "{model} {}: {off:.2} mm", style.name);
                }
            }
        }
    }

    #[test]
    fn a_walk_that_stopped_to_step_home_stays_stopped_though_the_body_slips_back() {
        // A floor on which the body is where the walk reckons until it has stood still
        // for 30 rows (stepping home), and from then on 2 × ARRIVED_MM behind. Walking
        // on from there (it did until 2026-12-07: 11 more steps here) stepped paws
        // already home off their spots, and on a felt build ended them 26 mm off.
        let row_s = 0.016;
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        let path = straight_ahead(200.0, 4.0, row_s);
        let (mut was, mut still, mut rows) = (Place::default(), 0, 0);
        let mut slipped_on: Option<usize> = None;
        let mut floor = |_: &[[f64; 3]; 4], reckoned: Place| {
            still = if reckoned == was { still + 1 } else { 0 };
            if still >= 30 {
                slipped_on.get_or_insert(rows);
            }
            (was, rows) = (reckoned, rows + 1);
            let back = if slipped_on.is_some() {
                2.0 * ARRIVED_MM
            } else {
                0.0
            };
            Some(Place {
                at: reckoned.at - DVec2::X * back,
                ..reckoned
            })
        };
        let walked = gait.walk(&path, row_s, None, Some(&mut floor));
        let slipped_on = slipped_on.expect("the floor slipped the body back");
        // Each paw steps at most once more (home), and ends on its spot.
        let mut after = [0; 4];
        for step in walked.steps.iter().filter(|s| s.start > slipped_on) {
            after[step.paw] += 1;
        }
        assert!(after.iter().all(|&n| n <= 1), "{after:?}");
        let off = off_the_end_spots(&gait, &walked);
        assert!(off < 1.0, "{off:.2} mm");
    }

    /// The share of a walk's joint-rows (`walked`, rows `row_s` apart) that ask a leg
    /// joint past its speed, as the written motion bounds it (`keyframes::max_steps`).
    fn past_speed(profile: &Profile, walked: &Walked, row_s: f64) -> f64 {
        let steps = crate::keyframes::max_steps(profile, (row_s * 1000.0).round() as u32);
        let (mut past, mut all) = (0usize, 0usize);
        for rows in walked.legs.windows(2) {
            for (paw, joints) in walked.joints.iter().enumerate() {
                for (k, &j) in joints.iter().enumerate() {
                    all += 1;
                    let step = steps[j].expect("a leg joint has a speed");
                    past += usize::from((rows[1][paw][k] - rows[0][paw][k]).abs() > step);
                }
            }
        }
        past as f64 / all.max(1) as f64
    }

    #[test]
    fn the_ers7_walks_crouched_as_its_knees_lag_a_swing_from_the_stand() {
        // From the stand's near-straight hind legs, a paw rises only for a large turn
        // of the knee: upright, a swing asks the knees past their speed on more rows
        // than crouched, in either style (the profile gives the figures: 3.6% against
        // 2.4% of the crawl's joint-rows, 7.4% against 4.1% of the trot's).
        let profile = Profile::builtin("ERS-7").unwrap();
        assert!(profile.walk.crouch > 0.0);
        let row_s = 0.016;
        for style in [Style::CRAWL, Style::TROT] {
            // Straight ahead for 10 s, at the style's fastest.
            let path = straight_ahead(style.fastest_mm_s() * 10.0, 10.0, row_s);
            let share = |style: Style| {
                let gait = Gait::styled(&profile, style).unwrap();
                past_speed(&profile, &gait.walk(&path, row_s, None, None), row_s)
            };
            let upright = Style {
                crouched: false,
                ..style
            };
            let (crouched, upright) = (share(style), share(upright));
            assert!(
                crouched < 0.75 * upright,
                "{}: {crouched:.3} crouched, {upright:.3} upright",
                style.name
            );
        }
    }

    #[test]
    fn a_walk_planted_on_other_spots_steps_off_them_and_back_onto_them() {
        // Front paws forward and out (left is +y), hind paws forward: a trot (no sway)
        // holds them until each paw steps, but where the body's first strides leave a
        // hind paw behind its nearly straight leg's reach; a crawl swaying 30 mm to the
        // side before its first step takes the ERS-7's legs out of reach of spots 12 to
        // 16 mm forward (nearly as far as they reach at all), and those paws slide back
        // as far as they must.
        let small = [(10.0, 2.0), (10.0, -2.0), (10.0, 2.0), (6.0, -2.0)];
        let far = [(16.0, 0.0), (16.0, 0.0), (12.0, 0.0), (12.0, 0.0)];
        for (model, style, offsets, held_most) in [
            ("ERS-7", Style::TROT, small, true),
            ("ERS-210", Style::TROT, small, true),
            ("ERS-7", Style::CRAWL, far, false),
        ] {
            let offsets = offsets.map(|(x, y)| DVec2::new(x, y));
            let profile = Profile::builtin(model).unwrap();
            // Paws that do not roll as their legs turn: the two walks' paws then stand
            // apart by what the offsets do alone.
            let gait = || Gait {
                paw_radius: 0.0,
                ..Gait::styled(&profile, style).unwrap()
            };
            let path = straight_ahead(150.0, 4.0, 0.016);
            let walked = gait().walk(&path, 0.016, None, None);
            assert!(
                walked.steps.len() > 8,
                "{model}: {} steps",
                walked.steps.len()
            );
            let moved = gait().standing_on(offsets).walk(&path, 0.016, None, None);
            assert_eq!(moved.legs.len(), walked.legs.len());
            assert_eq!(moved.steps, walked.steps);
            let legs = &gait().legs;
            let at = |w: &Walked, k: usize, i: usize| legs[i].paw(w.legs[k][i]);
            let (mut on_spots, mut held) = (0, 0);
            for (i, &offset) in offsets.iter().enumerate() {
                let tag = |k: usize| format!("{model} {} paw {i} row {k}", style.name);
                let steps: Vec<&Lift> = walked.steps.iter().filter(|s| s.paw == i).collect();
                let (first, home) = (steps[0], steps[steps.len() - 1]);
                // On the spot as the walk starts and as its step home lands, in the
                // body's frame, at the gait's height.
                for k in [0, home.end] {
                    let want = at(&walked, k, i) + offset.extend(0.0);
                    let got = at(&moved, k, i);
                    assert!(got.distance(want) < 0.5, "{}: {got} for {want}", tag(k));
                }
                // As the gait has it from the first step's landing to the last's lift.
                for k in first.end..home.start {
                    let (got, want) = (at(&moved, k, i), at(&walked, k, i));
                    assert!(got.distance(want) < 1e-6, "{}: {got} for {want}", tag(k));
                }
                // Before its first step the paw stays where it was put, or slides back
                // toward the gait's place, never further from it (the leg's solver puts a
                // paw within 0.5 mm of where it is asked to).
                let length = offset.length();
                let mut least = length;
                for k in 0..first.start {
                    let off = at(&moved, k, i) - at(&walked, k, i);
                    let along = off.truncate().dot(offset) / length;
                    assert!(off.length() < length + 1.0, "{}: {off}", tag(k));
                    if held_most {
                        let across = off.truncate().distance(offset * along / length);
                        // (Where the gait's own leg falls short of the floor, its paw
                        // hovers over it.)
                        assert!(across < 1.0 && off.z < 1.0, "{}: {off}", tag(k));
                        assert!(along <= least + 1.0 && along >= -1.0, "{}: {off}", tag(k));
                    }
                    least = least.min(along);
                    on_spots += 1;
                    held += usize::from(along >= length - 1.0);
                }
            }
            let tag = format!(
                "{model} {}: {held} of {on_spots} rows held the offset",
                style.name
            );
            match held_most {
                true => assert!(10 * held >= 9 * on_spots, "{tag}"),
                false => assert!(held > 0 && held < on_spots, "{tag}"),
            }
            // No offsets, no change.
            let unmoved = gait()
                .standing_on([DVec2::ZERO; 4])
                .walk(&path, 0.016, None, None);
            assert_eq!(unmoved, walked);
        }
    }

    #[test]
    fn only_a_walk_facing_away_walks_on_longer_and_never_without_end() {
        // Swaying about the path's heading, the usual catch-up; facing away, the time the
        // turn takes at the allowed rate; however far away (or not a number), bounded.
        assert_eq!(catch_up_s(0.9), CATCH_UP_S);
        assert_eq!(catch_up_s(-0.9), CATCH_UP_S);
        assert!((catch_up_s(-2.0) - (CATCH_UP_S + 2.0 / TURN_CATCH_UP_RAD_S)).abs() < 1e-12);
        assert_eq!(catch_up_s(1e9), CATCH_UP_S + TURN_CATCH_UP_MAX_S);
        assert_eq!(catch_up_s(f64::INFINITY), CATCH_UP_S + TURN_CATCH_UP_MAX_S);
        assert_eq!(catch_up_s(f64::NAN), CATCH_UP_S);
    }

    #[test]
    fn a_walk_left_turns_behind_a_spinning_performer_turns_on_until_it_faces_their_end() {
        // The performer crosses 300 mm spinning round twice in 6 s, far faster than a trot
        // turns; on this floor the body turns half of what the strides reckon. By the
        // path's end (20 s late at most) the walk is still most of a turn behind, which
        // the [`CATCH_UP_S`] alone does not make up.
        let gait = Gait::styled(&Profile::builtin("ERS-7").unwrap(), Style::TROT).unwrap();
        let row_s = 0.016;
        let rows = (6.0 / row_s) as usize;
        let spins = -2.0 * std::f64::consts::TAU;
        let path: Vec<Place> = (0..=rows)
            .map(|k| {
                let done = k as f64 / rows as f64;
                Place {
                    at: DVec2::new(300.0 * done, 0.0),
                    heading: spins * done,
                }
            })
            .collect();
        let goal = *path.last().unwrap();
        let (mut body, mut was) = (Place::default(), Place::default());
        let mut feel = |_: &[[f64; 3]; 4], reckoned: Place| {
            let moved = DVec2::from_angle(-was.heading).rotate(reckoned.at - was.at);
            body.at += DVec2::from_angle(body.heading).rotate(moved);
            body.heading += (reckoned.heading - was.heading) / 2.0;
            was = reckoned;
            Some(body)
        };
        let walked = gait.walk(&path, row_s, None, Some(&mut feel));
        assert!(
            (body.heading - goal.heading).abs() < 20f64.to_radians(),
            "ends facing {:.0}° for {:.0}° after {} rows",
            body.heading.to_degrees(),
            goal.heading.to_degrees(),
            walked.legs.len()
        );
        // And it did so by walking on past the path's latest end and the usual catch-up.
        let latest_s = (rows as f64 * row_s) + WARP_S + CATCH_UP_S;
        assert!(
            walked.legs.len() as f64 * row_s > latest_s,
            "{}",
            walked.legs.len()
        );
    }

    /// A quarter circle to the left, `arc_mm` long over `seconds`, a place every `row_s`;
    /// and its radius.
    fn quarter_circle(arc_mm: f64, seconds: f64, row_s: f64) -> (Vec<Place>, f64) {
        let rows = (seconds / row_s) as usize;
        let radius = arc_mm / std::f64::consts::FRAC_PI_2;
        let path = (0..=rows)
            .map(|k| {
                let heading = std::f64::consts::FRAC_PI_2 * k as f64 / rows as f64;
                Place {
                    at: DVec2::new(heading.sin(), 1.0 - heading.cos()) * radius,
                    heading,
                }
            })
            .collect();
        (path, radius)
    }

    #[test]
    fn a_crawl_that_feels_its_body_turn_short_turns_on_until_it_faces_the_path_s_end() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        let row_s = 0.016;
        let (path, _) = quarter_circle(300.0, 8.0, row_s);
        let goal = *path.last().unwrap();
        // A floor on which the body turns 0.7 and goes 0.8 of what the crawl reckons, row
        // by row: where the body is, by each row's reckoned move.
        let slipping = || {
            let (mut body, mut was) = (Place::default(), Place::default());
            move |_: &[[f64; 3]; 4], reckoned: Place| {
                let turned = 0.7 * (reckoned.heading - was.heading);
                let moved = DVec2::from_angle(-was.heading).rotate(reckoned.at - was.at);
                body.at += DVec2::from_angle(body.heading).rotate(0.8 * moved);
                body.heading += turned;
                was = reckoned;
                Some(body)
            }
        };
        let ends = |felt: bool| {
            let mut floor = slipping();
            let mut last = Place::default();
            let mut feel = |legs: &[[f64; 3]; 4], reckoned: Place| {
                last = floor(legs, reckoned).unwrap();
                felt.then_some(last)
            };
            gait.walk(&path, row_s, None, Some(&mut feel));
            last
        };
        // Steering by its own reckoning, the body ends 0.7 of the way round.
        let open = ends(false);
        assert!((open.heading / goal.heading - 0.7).abs() < 0.05, "{open:?}");
        // Steering by the floor, it turns and walks on until the body is there.
        let closed = ends(true);
        assert!(
            (closed.heading - goal.heading).abs() < ARRIVED_RAD,
            "{closed:?}"
        );
        assert!(
            closed.at.distance(goal.at) < 2.0 * ARRIVED_MM,
            "{closed:?} {goal:?}"
        );
    }

    #[test]
    fn a_path_faster_than_the_walk_is_walked_later_all_of_it_not_cut_across() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        // 400 mm of arc in 4 s: twice what the crawl goes.
        let row_s = 0.016;
        let (path, radius) = quarter_circle(400.0, 4.0, row_s);
        // Where the walk reckons the body is, row by row (it steers by that here).
        let mut places = Vec::new();
        let mut reckoned = |_: &[[f64; 3]; 4], place: Place| {
            places.push(place);
            None
        };
        let walked = gait.walk(&path, row_s, None, Some(&mut reckoned));
        // It went at what it could, and took the longer for it.
        assert!(walked.slowed < 0.6, "{}", walked.slowed);
        assert!(
            walked.legs.len() as f64 * row_s > 6.0,
            "{}",
            walked.legs.len()
        );
        // Round the arc, not across it: chasing where the performer was cut the corner
        // by up to the arc's sagitta (75 mm here).
        let off_arc = |p: DVec2| (p - DVec2::new(0.0, radius)).length() - radius;
        let widest = places
            .iter()
            .map(|p| off_arc(p.at).abs())
            .fold(0.0, f64::max);
        assert!(widest < 20.0, "{widest} mm off the arc");
        let end = places.last().unwrap();
        let goal = path.last().unwrap();
        assert!(end.at.distance(goal.at) < ARRIVED_MM, "{end:?}");
        assert!((end.heading - goal.heading).abs() < ARRIVED_RAD, "{end:?}");
    }

    #[test]
    fn a_walk_cut_short_by_until_counts_the_path_it_left_unwalked() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        // 200 mm straight ahead in 8 s: 25 mm/s, which the crawl goes.
        let row_s = 0.016;
        let path = straight_ahead(200.0, 8.0, row_s);
        let whole = gait.walk(&path, row_s, None, None);
        assert!(whole.slowed > 0.99, "{}", whole.slowed);
        // Home in the stand by 6 s: it stops following in time to step home, with most
        // of the path still ahead. The share it made is the share of the path it went,
        // by its own reckoning (the path is even).
        let cut = home_by(&gait, &path, row_s, 6.0);
        says_it_went(&cut, cut.travel.0.x / 200.0, 0.7);
    }

    /// `path` walked by `gait` home in the stand by `until_s`, which it is.
    fn home_by(gait: &Gait, path: &[Place], row_s: f64, until_s: f64) -> Walked {
        let until = (until_s / row_s) as usize;
        let cut = gait.walk(path, row_s, Some(until), None);
        assert!(cut.legs.len() <= until, "{}", cut.legs.len());
        cut
    }

    /// A walk cut short, having gone `went` of the way (less than `most`), says so.
    fn says_it_went(cut: &Walked, went: f64, most: f64) {
        assert!(went < most, "{went}");
        assert!((cut.slowed - went).abs() < 0.1, "{} {went}", cut.slowed);
    }

    #[test]
    fn a_walk_along_no_path_or_one_place_ends_in_the_stand() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        let one = [Place::default()];
        for path in [&[][..], &one[..]] {
            for until in [None, Some(0), Some(3)] {
                let walked = gait.walk(path, 0.016, until, None);
                assert!(walked.slowed.is_finite(), "{}", walked.slowed);
                assert!(walked.steps.len() <= 4, "{}", walked.steps.len());
                assert!(walked.travel.0.length() < 1.0, "{:?}", walked.travel);
            }
        }
    }

    #[test]
    fn a_walk_hurried_home_by_until_counts_only_as_far_as_the_body_got() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        // 600 mm straight ahead in 3 s, far faster than the crawl goes, and home by 6 s:
        // the place it heads for hurries to the path's end to make the deadline, and the
        // body, left behind, stops short of it.
        let row_s = 0.016;
        let path = straight_ahead(600.0, 3.0, row_s);
        let cut = home_by(&gait, &path, row_s, 6.0);
        says_it_went(&cut, cut.travel.0.x / 600.0, 0.6);
        // Two turns on the spot in 3 s, home by 6 s: how far it turned, not where it
        // stands (which is where it started).
        let turns = 4.0 * std::f64::consts::PI;
        let rows = (3.0 / row_s) as usize;
        let spin: Vec<Place> = (0..=rows)
            .map(|k| Place {
                at: DVec2::ZERO,
                heading: turns * k as f64 / rows as f64,
            })
            .collect();
        let cut = home_by(&gait, &spin, row_s, 6.0);
        says_it_went(&cut, cut.travel.1 / turns, 0.6);
    }

    /// A trot that falls behind and finishes in the crawl: `model`'s, 300 mm straight
    /// ahead in 3 s (16 ms rows), on a floor where the body goes 0.7 of what the walk
    /// reckons, so that at the path's end it is behind and walks on to get there.
    struct Behind {
        gait: Gait,
        path: Vec<Place>,
        walked: Walked,
        /// Where the floor had the body last.
        last: Place,
        /// The steps in the order they start, and the first that swings alone (the
        /// crawl's; the trot's swing in diagonal pairs).
        steps: Vec<Lift>,
        first_alone: usize,
    }

    fn trot_behind(model: &str) -> Behind {
        trot_behind_in(model, Style::TROT)
    }

    /// [`trot_behind`], in `style`.
    fn trot_behind_in(model: &str, style: Style) -> Behind {
        let gait = Gait::styled(&Profile::builtin(model).unwrap(), style).unwrap();
        let row_s = 0.016;
        let path = straight_ahead(300.0, 3.0, row_s);
        let (mut body, mut was) = (Place::default(), Place::default());
        let mut last = Place::default();
        let mut slipping = |_: &[[f64; 3]; 4], reckoned: Place| {
            let moved = DVec2::from_angle(-was.heading).rotate(reckoned.at - was.at);
            body.at += DVec2::from_angle(body.heading).rotate(0.7 * moved);
            body.heading += reckoned.heading - was.heading;
            was = reckoned;
            last = body;
            Some(body)
        };
        let walked = gait.walk(&path, row_s, None, Some(&mut slipping));
        let mut steps = walked.steps.clone();
        steps.sort_by_key(|l| l.start);
        let first_alone = steps
            .iter()
            .position(|l| !paired(&steps, l))
            .expect("no crawl steps");
        Behind {
            gait,
            path,
            walked,
            last,
            steps,
            first_alone,
        }
    }

    /// Whether another paw is in the air while `l` swings.
    fn paired(steps: &[Lift], l: &Lift) -> bool {
        steps
            .iter()
            .any(|o| o.paw != l.paw && o.start < l.end && l.start < o.end)
    }

    #[test]
    fn a_trot_that_has_to_catch_up_finishes_in_the_crawl_and_gets_there() {
        let Behind {
            path,
            last,
            steps,
            first_alone,
            ..
        } = trot_behind("ERS-7");
        // Each swing either has a partner in the air with it (the trot's diagonal pair)
        // or is alone (the crawl's): the pairs first, then the crawl to the end.
        assert!(first_alone >= 8, "{steps:?}");
        // One paw at a time from there on, a crawl's cycle at least, stepping home last.
        assert!(
            steps[first_alone..].iter().all(|l| !paired(&steps, l)),
            "{steps:?}"
        );
        assert!(steps.len() - first_alone >= 4, "{steps:?}");
        let goal = path.last().unwrap();
        assert!(last.at.distance(goal.at) < 2.0 * ARRIVED_MM, "{last:?}");
    }

    /// How high the body stands over the lowest of `paws` (body frame, mm): the paw on
    /// the floor, as a walk keeps the body level.
    fn over_lowest(paws: impl IntoIterator<Item = DVec3>) -> f64 {
        -paws.into_iter().map(|p| p.z).fold(f64::INFINITY, f64::min)
    }

    /// How high the body stands in each row of `walked` (mm).
    fn heights(gait: &Gait, walked: &Walked) -> Vec<f64> {
        walked
            .legs
            .iter()
            .map(|row| over_lowest((0..4).map(|i| gait.legs[i].paw(row[i]))))
            .collect()
    }

    /// How high `gait`'s stand holds the body, mm.
    fn stand_height(gait: &Gait) -> f64 {
        over_lowest(gait.stand_paws)
    }

    #[test]
    fn a_crouched_walk_goes_down_and_up_smoothly_and_stays_down_into_the_crawl_it_ends_in() {
        let crouch = Profile::builtin("ERS-210").unwrap().walk.crouch;
        assert!(crouch > 0.0, "the ERS-210 walks crouched");
        let Behind {
            gait,
            walked,
            steps,
            first_alone,
            ..
        } = trot_behind("ERS-210");
        let stand = stand_height(&gait);
        let h = heights(&gait, &walked);
        // From the stand's height and back to it, with no jump between rows (a 15 mm
        // crouch eased over the sway's 0.4 s goes at most 0.9 mm a row).
        assert!((h[0] - stand).abs() < 1.0, "{} against {stand}", h[0]);
        assert!((h[h.len() - 1] - stand).abs() < 1.0, "{h:?}");
        let steepest = h
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        assert!(steepest < 1.5, "{steepest} mm in a row");
        // Down by the crouch from the first step to the last, the trot's and the crawl's
        // alike (within the few mm a paw's roll and a swing's landing move the lowest paw).
        let (first, last) = (steps[0].start, steps.last().unwrap().end);
        for (row, h) in h.iter().enumerate().take(last).skip(first) {
            assert!(
                (stand - crouch - h).abs() < 3.0,
                "row {row}: {h} mm, stand {stand}"
            );
        }
        assert!(first_alone >= 2, "{steps:?}");
        assert!(
            steps[first_alone..].iter().all(|l| !paired(&steps, l)),
            "{steps:?}"
        );
        // The upright trot keeps the stand's height throughout, whatever the profile's
        // crouch.
        let Behind { gait, walked, .. } = trot_behind_in("ERS-7", Style::UPRIGHT_TROT);
        let stand = stand_height(&gait);
        for h in heights(&gait, &walked) {
            assert!((h - stand).abs() < 3.0, "{h} against {stand}");
        }
    }

    #[test]
    fn a_trot_swings_the_diagonal_pairs_together_and_outpaces_the_crawl() {
        let profile = Profile::builtin("ERS-7").unwrap();
        let trot = Gait::styled(&profile, Style::TROT).unwrap();
        // 400 mm straight ahead in 3 s: faster than either can go.
        let row_s = 0.016;
        let path = straight_ahead(400.0, 3.0, row_s);
        let walked = trot.walk(&path, row_s, None, None);
        // Paws in plan order (lf, rf, lh, rh): each row's paws in the air are none, or
        // lf with rh, or rf with lh.
        for row in 0..walked.legs.len() {
            let mut up: Vec<usize> = walked
                .steps
                .iter()
                .filter(|l| (l.start..l.end).contains(&row))
                .map(|l| l.paw)
                .collect();
            up.sort();
            assert!(
                up.is_empty() || up == [0, 3] || up == [1, 2],
                "row {row}: {up:?}"
            );
        }
        let lifts = |paw: usize| walked.steps.iter().filter(|l| l.paw == paw).count();
        assert!((0..4).all(|p| lifts(p) >= 4), "{:?}", walked.steps);
        // Within the same reach, twice as many strides a second.
        let crawl = Gait::of(&profile).unwrap();
        let crawled = crawl.walk(&path, row_s, None, None);
        assert!(
            walked.slowed > 1.8 * crawled.slowed,
            "{} {}",
            walked.slowed,
            crawled.slowed
        );
        assert!(Style::TROT.fastest_mm_s() > 2.0 * Style::CRAWL.fastest_mm_s());
    }

    #[test]
    fn the_pace_slows_going_and_turning_alike_to_the_fastest_crawl() {
        let gait = Gait::of(&Profile::builtin("ERS-7").unwrap()).unwrap();
        // Slow enough: as asked, at a cycle within its bounds.
        let slow = gait.pace(Style::CRAWL, DVec2::new(20.0, 0.0), 0.0);
        assert_eq!((slow.linear, slow.turn), (DVec2::new(20.0, 0.0), 0.0));
        let crawl = Style::CRAWL;
        assert!((crawl.cycle_min_s..=crawl.cycle_max_s).contains(&slow.cycle));
        // Twice too fast, going and turning: both halved or more, the fastest paw at
        // the crawl's top speed, at its quickest cycle.
        let asked = (DVec2::new(200.0, 50.0), 0.8);
        let fast = gait.pace(Style::CRAWL, asked.0, asked.1);
        let share = fast.turn / asked.1;
        assert!(share < 0.5 && fast.linear.distance(asked.0 * share) < 1e-9);
        let paw = gait.paw_speed(fast.linear, fast.turn);
        assert!((paw - crawl.fastest_mm_s()).abs() < 1e-9, "{paw}");
        assert!(
            (fast.cycle - crawl.cycle_min_s).abs() < 1e-9,
            "{}",
            fast.cycle
        );
        // Standing still: the slowest cycle.
        assert_eq!(
            gait.pace(Style::CRAWL, DVec2::ZERO, 0.0).cycle,
            crawl.cycle_max_s
        );
    }
}
