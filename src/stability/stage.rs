//! The balance stage: `clip → retarget → keep balance → keyframes`. It changes the
//! retargeted joint angles as little as it can so that the robot stays on its feet.
//!
//! For every row of the keyframe grid it solves a small quadratic program over the
//! body's position, roll and pitch and the head's and legs' joints (about twenty
//! variables), linearised about the row before and solved again from its answer a few
//! times:
//! - **objective**: the joints as near the performer's as possible, weighted by what the
//!   performer shows (the head and a raised leg most, the planted legs least: they are
//!   the balance tool), the body near its standing pose, and every variable near the row
//!   before (smooth corrections);
//! - **planted paws** stay on their floor spots (equalities), as the contact plan
//!   (`plan.rs`) says which paws are down;
//! - **the centre of mass** stays at least the margin inside the planted paws' polygon;
//!   before a paw lifts, inside the other three's as well, by a margin that ramps up over
//!   the plan's weight shift, so the weight moves first;
//! - **a raised paw** clears the floor (rising and falling over the plan's lift and
//!   landing, coming down onto its spot), and no elbow, knee, body or head comes within
//!   a few mm of it;
//! - **every joint** stays within its limits, and moves no faster than its speed.
//!
//! On the rows whose legs a walk writes (`walking`) there is no program: the body stands
//! as the walk carries it, the head follows the performer's, and the program runs again
//! only over the walk's last second, to settle before the walk hands back.
//!
//! The margin is a soft constraint with a steep price, so a row where it cannot be had
//! still gets the nearest answer, reported as short; a row whose program has no solution
//! at all holds the row before (reported too). The motion it writes carries the body's
//! roll and pitch as they stand on the planned contacts, so the judges read the plan
//! from the file.

use glam::{DVec2, DVec3};

use super::body::{Body, Part};
use super::kinematics::{
    Evaluation, Kinematics, Segments, BODY_POSITION_VARIABLES, BODY_VARIABLES,
};
use super::plan::{Phase, Plan, PAWS};
use super::qp::{self, Bound, Constraint, Matrix, Problem};
use super::support::convex_hull;
use super::{solve3, BalanceError};
use crate::keyframes::{max_steps, Grid, BODY_ANGLES};
use crate::robot::legs::{Leg, LegId};
use crate::robot::profile::Profile;

/// The centre of mass's distance inside the support the stage keeps by default, mm: the
/// judges' 10 mm, and room for the keyframes' tolerance (0.5° on each joint moves a paw
/// by a few mm).
pub const DEFAULT_MARGIN_MM: f64 = 14.0;

/// The same where the profile's masses are estimates (the ERS-210/220).
pub const UNCERTAIN_MARGIN_MM: f64 = 22.0;

/// A raised paw clears the floor by this much, mm (the static test counts a paw within
/// 5 mm as down).
const PAW_CLEARANCE_MM: f64 = 14.0;

/// Elbows, knees and the body keep this far from the floor, mm; the head further.
const BODY_CLEARANCE_MM: f64 = 9.0;
const HEAD_CLEARANCE_MM: f64 = 20.0;

/// Objective weights: per rad² for joints and attitude, per mm² for positions.
const W_HEAD: f64 = 30.0;
const W_RAISED: f64 = 30.0;
const W_PLANTED: f64 = 1.0;
/// A planted leg's joints themselves, beside its segments' directions: little.
const W_PLANTED_ANGLES: f64 = 0.05;
const W_OTHER: f64 = 5.0;
const W_BODY_POSITION: f64 = 2e-4;
const W_BODY_ATTITUDE: f64 = 20.0;
/// Smoothness: against the row before.
const S_JOINT: f64 = 0.5;
const S_BODY_POSITION: f64 = 0.02;
const S_BODY_ATTITUDE: f64 = 20.0;
/// The margin's price, per mm² short.
const W_SHORT: f64 = 50.0;
/// A planted paw's pull onto its spot where it cannot be held there, per mm².
const W_SOFT_PLANT: f64 = 100.0;

/// A landing paw closes on its spot by at most this much per row, mm (0.3 m/s at 16 ms:
/// well within the legs' speed, so that the leg lands it and not the body).
const LANDING_STEP_MM: f64 = 5.0;

/// A raised paw starts landing when its slowest joint needs the rows left to reach its
/// angle on the spot at this share of its speed (and the final rows); each other joint
/// follows the performer until its own way there needs them (the boxer's guard on the
/// ERS-220: 20.9 → 19.9°; of the 60 shared builds 27 change, none for the worse, and
/// 20 rows without a solution become 2, 2026-12-02). Over the last rows the paw is held
/// to an approach onto the spot.
const LANDING_SPEED_SHARE: f64 = 0.6;
const LANDING_FINAL_ROWS: usize = 6;

/// A landing paw's pull onto its spot, per mm², divided by the rows it has left.
const W_LAND: f64 = 2.0;

/// A landing paw may miss its shrinking approach by this much, mm.
const LANDING_SLACK_MM: f64 = 0.3;

/// A planted leg's knee stays within this much less and this much more bend than the
/// stand's, radians: past it the leg carries the weight badly (a servo at 80% of its
/// torque lets a deeply bent support leg sag, and the paw slides).
const PLANTED_KNEE_LESS: f64 = 0.44;
const PLANTED_KNEE_MORE: f64 = 0.52;

/// The body may move this far from one row to the next, mm and rad, so that each
/// linearisation stays near what it describes.
const TRUST_MM: f64 = 3.0;
const TRUST_RAD: f64 = 0.08;

/// The program runs again over a walk's last this many seconds (see `Stage::balance`).
const WALK_SETTLE_S: f64 = 1.0;

/// Linearise-and-solve rounds per row, at most.
const ROUNDS: usize = 4;

/// A row is solved when a round moves no joint (nor the body's attitude) more than
/// this, rad, and the body no more than [`DONE_MM`]: each round's step is about the
/// square of the last's (lambada: 2.5e-2, 2e-4, 1e-5, 1e-6 rad, medians), so what is
/// left after it is a few µrad, the MTN's unit. A bound of 1e-5 ran nearly every row to
/// [`ROUNDS`].
const DONE_RAD: f64 = 1e-4;
/// The body's position step, mm, below which a row is solved (see [`DONE_RAD`]).
const DONE_MM: f64 = 0.01;

/// How one row came out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowReport {
    /// How far the centre of mass is from where it stands at rest, seen from above, mm.
    pub shift_mm: f64,
    /// How far short of the margin the centre of mass stayed, mm (0: it kept it).
    pub short_mm: f64,
    /// The program had no solution: the planted paws were pulled onto their spots, not
    /// held on them.
    pub held: bool,
    /// Where the body is against where it stands at rest, mm (x forward, y left, z up).
    pub body_mm: DVec3,
}

/// Where [`Stage::advance`] left off: the rows balanced so far and their reports, and
/// what the next row starts from.
#[derive(Debug, Clone)]
pub struct Progress {
    rows: Vec<Vec<f64>>,
    reports: Vec<RowReport>,
    prev: Vec<f64>,
    /// The weight shift in progress (see [`Stage::balance`]).
    shift: Option<(usize, Vec<f64>)>,
}

impl Progress {
    /// The rows balanced so far (body roll, pitch, yaw, then every joint).
    pub fn rows(&self) -> &[Vec<f64>] {
        &self.rows
    }
}

/// The balanced rows and how they came about.
#[derive(Debug, Clone, PartialEq)]
pub struct Balanced {
    pub grid: Grid,
    pub plan: Plan,
    pub rows: Vec<RowReport>,
}

/// The robot standing, as the stage starts from.
#[derive(Clone)]
struct Standing {
    /// The variables of the stand posture on the floor.
    x: Vec<f64>,
    /// Each paw's floor spot (its centre's x and y), by `PAWS` index.
    spots: [Option<DVec2>; 4],
    /// Where the centre of mass is, seen from above.
    com: DVec2,
}

/// The stage's fixed parts for one profile.
pub struct Stage {
    kin: Kinematics,
    /// Per variable (after the body's): is it a head joint, and its leg's paw.
    head: Vec<bool>,
    leg_of: Vec<Option<usize>>,
    /// Each leg's J1, J2, J3 among all the variables.
    leg_variables: [Option<[usize; 3]>; 4],
    /// Each leg as a chain, for the angles that put its paw on its spot.
    legs: [Option<Leg>; 4],
    limits: Vec<(f64, f64)>,
    /// Largest step per grid row, by variable joint.
    steps: Vec<f64>,
    standing: Standing,
    /// The stand posture's angles, every profile joint.
    stand: Vec<f64>,
}

impl Stage {
    /// The stage for `profile` on a grid of `frame_ms`, its paws planted where the
    /// `stance` (every profile joint's angle) puts them: the motion starts from its
    /// posture and ramps into its first row in joint space, which keeps the paws where
    /// they are only if that row stands on the same spots.
    pub fn new(profile: &Profile, frame_ms: u32, stance: &[f64]) -> Result<Stage, BalanceError> {
        let body = Body::of(profile)?;
        let leg_prefix = |name: &str| PAWS.iter().position(|p| name.starts_with(&format!("{p}_")));
        let head_joint = |name: &str| name.starts_with("head_");
        let joints: Vec<usize> = profile
            .joints
            .iter()
            .enumerate()
            .filter(|(_, j)| !j.binary && (head_joint(&j.name) || leg_prefix(&j.name).is_some()))
            .filter(|(i, _)| body.skeleton.bones.iter().any(|b| b.joint == Some(*i)))
            .map(|(i, _)| i)
            .collect();
        let kin = Kinematics::new(&body, joints.clone());
        let max = max_steps(profile, frame_ms);
        let stand: Vec<f64> = (0..profile.joints.len())
            .map(|j| stance.get(j).copied().unwrap_or(0.0))
            .collect();
        let pitch = profile.postures.get("stand").map_or(0.0, |p| p.body_pitch);
        let variable = |name: String| {
            joints
                .iter()
                .position(|&j| profile.joints[j].name == name)
                .map(|v| BODY_VARIABLES + v)
        };
        let leg_variables = std::array::from_fn(|p| {
            let prefix = PAWS[p];
            Some([
                variable(format!("{prefix}_j1"))?,
                variable(format!("{prefix}_j2"))?,
                variable(format!("{prefix}_j3"))?,
            ])
        });
        let legs =
            std::array::from_fn(|p| Leg::in_skeleton(&body.skeleton, profile, LegId::ALL[p]));
        let mut stage = Stage {
            legs,
            leg_variables,
            head: joints
                .iter()
                .map(|&j| head_joint(&profile.joints[j].name))
                .collect(),
            leg_of: joints
                .iter()
                .map(|&j| leg_prefix(&profile.joints[j].name))
                .collect(),
            limits: joints
                .iter()
                .map(|&j| {
                    profile.joints[j]
                        .limits
                        .map_or((f64::NEG_INFINITY, f64::INFINITY), |l| (l.min, l.max))
                })
                .collect(),
            steps: joints
                .iter()
                .map(|&j| max[j].map_or(f64::INFINITY, |s| s * 0.98))
                .collect(),
            kin,
            standing: Standing {
                x: Vec::new(),
                spots: [None; 4],
                com: DVec2::ZERO,
            },
            stand,
        };
        stage.standing = stage.stand_on_floor(pitch);
        Ok(stage)
    }

    /// The stand posture with its paws on the floor: the body's height, roll and pitch
    /// that put the paws' centres at their radius above it (least squares, a few
    /// Gauss-Newton steps from the posture's pitch).
    fn stand_on_floor(&self, pitch: f64) -> Standing {
        let mut x = vec![0.0, 0.0, 0.0, 0.0, pitch];
        x.extend(self.kin.joints.iter().map(|&j| self.stand[j]));
        let paws: Vec<usize> = (0..4).filter_map(|p| self.kin.paw_point(p)).collect();
        let mut angles = self.stand.clone();
        for _ in 0..6 {
            let e = self.kin.evaluate(&x, &mut angles);
            // Unknowns z, roll, pitch (variables 2, 3, 4): J δ = −residual.
            let mut jtj = [[0.0; 3]; 3];
            let mut jtr = [0.0; 3];
            for &i in &paws {
                let (c, cols) = &e.points[i];
                let r = c.z - self.kin.points[i].radius;
                let row = [cols[2].z, cols[3].z, cols[4].z];
                for a in 0..3 {
                    jtr[a] += row[a] * r;
                    for b in 0..3 {
                        jtj[a][b] += row[a] * row[b];
                    }
                }
            }
            let Some(step) = solve3(jtj, jtr) else { break };
            for a in 0..3 {
                x[2 + a] -= step[a];
            }
        }
        let e = self.kin.evaluate(&x, &mut angles);
        let mut spots = [None; 4];
        for (p, spot) in spots.iter_mut().enumerate() {
            *spot = self.kin.paw_point(p).map(|i| e.points[i].0.truncate());
        }
        Standing {
            x,
            spots,
            com: e.com.truncate(),
        }
    }

    /// Where the performer's own legs would plant the paws: for each paw, the median of
    /// where the rows of `grid` put it with the body as it stands, over the rows the
    /// robot stands on (`standing(row)`: not walking) and `counted(row, paw)`. A paw
    /// counted on fewer than a third of the standing rows keeps its spot (the few poses
    /// left where an arm gestures most of the time are no stance).
    pub fn performers_spots(
        &self,
        grid: &Grid,
        standing: impl Fn(usize) -> bool,
        counted: impl Fn(usize, usize) -> bool,
    ) -> [Option<DVec2>; 4] {
        let mut xs: [Vec<f64>; 4] = Default::default();
        let mut ys: [Vec<f64>; 4] = Default::default();
        let mut angles = self.stand.clone();
        let mut stood = 0;
        for (r, row) in grid.rows.iter().enumerate() {
            if !standing(r) {
                continue;
            }
            stood += 1;
            let mut x = self.standing.x.clone();
            for (v, &j) in self.kin.joints.iter().enumerate() {
                if let (Some(_), Some(&a)) = (self.leg_of[v], row.get(BODY_ANGLES + j)) {
                    x[BODY_VARIABLES + v] = a;
                }
            }
            let e = self.kin.evaluate(&x, &mut angles);
            for p in (0..4).filter(|&p| counted(r, p)) {
                if let Some(i) = self.kin.paw_point(p) {
                    xs[p].push(e.points[i].0.x);
                    ys[p].push(e.points[i].0.y);
                }
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        std::array::from_fn(|p| {
            let spot = self.standing.spots[p]?;
            if xs[p].is_empty() || 3 * xs[p].len() < stood {
                return Some(spot);
            }
            Some(DVec2::new(median(&mut xs[p]), median(&mut ys[p])))
        })
    }

    /// The stage standing on `spots` (by `PAWS` index), or as near them as each leg
    /// reaches from its stance spot toward them, with the body as it stands (on its own,
    /// or [`Stage::lowered`]):
    /// each leg's angles there (inverse kinematics) are the stance the planted legs keep
    /// their knees near and a held paw stands in.
    pub fn planted_toward(mut self, spots: [Option<DVec2>; 4]) -> Stage {
        let mut x = self.standing.x.clone();
        let mut angles = self.stand.clone();
        for (p, &to) in spots.iter().enumerate() {
            let (Some(vars), Some(i), Some(from), Some(to)) = (
                self.leg_variables[p],
                self.kin.paw_point(p),
                self.standing.spots[p],
                to,
            ) else {
                continue;
            };
            let mut onto =
                |spot: DVec2| self.leg_reaching(p, self.on_floor(i, spot), &x, &mut angles);
            // The spot, or the farthest share of the way to it the leg reaches (bisected
            // to 1/256; none: the stance spot stays).
            let mut found = onto(to).map(|a| (to, a));
            if found.is_none() {
                let (mut near, mut far) = (0.0, 1.0);
                for _ in 0..8 {
                    let mid = (near + far) / 2.0;
                    let spot = from.lerp(to, mid);
                    match onto(spot) {
                        Some(a) => (near, found) = (mid, Some((spot, a))),
                        None => far = mid,
                    }
                }
            }
            let Some((spot, reached)) = found else {
                continue;
            };
            self.standing.spots[p] = Some(spot);
            self.stand_leg(&mut x, vars, reached);
        }
        self.standing.com = self.kin.evaluate(&x, &mut angles).com.truncate();
        self.standing.x = x;
        self
    }

    /// The stage with its body `mm` lower, every paw on its spot: each leg's angles
    /// there (inverse kinematics) are its new stance. Where a leg does not reach its
    /// spot (within 1 mm) from there, `None`; lowered by 0, the stage as it is.
    pub fn lowered(mut self, mm: f64) -> Option<Stage> {
        if mm == 0.0 {
            return Some(self);
        }
        let mut x = self.standing.x.clone();
        // The body's height.
        x[2] -= mm;
        let mut angles = self.stand.clone();
        for p in 0..4 {
            let (Some(vars), Some((_, at))) = (self.leg_variables[p], self.spot(p)) else {
                continue;
            };
            let reached = self.leg_reaching(p, at, &x, &mut angles)?;
            self.stand_leg(&mut x, vars, reached);
        }
        self.standing.com = self.kin.evaluate(&x, &mut angles).com.truncate();
        self.standing.x = x;
        Some(self)
    }

    /// The angles of leg `paw` that put its paw's centre at `at` with the body and the
    /// other legs as `x` has them, where they do (within 1 mm, by forward kinematics:
    /// the leg's inverse kinematics can fall short of a spot it does not reach).
    fn leg_reaching(
        &self,
        paw: usize,
        at: DVec3,
        x: &[f64],
        angles: &mut [f64],
    ) -> Option<[f64; 3]> {
        let (vars, i) = (self.leg_variables[paw]?, self.kin.paw_point(paw)?);
        let reached = self.leg_onto(paw, at, x)?;
        let mut y = x.to_vec();
        for (&v, a) in vars.iter().zip(reached) {
            y[v] = a;
        }
        let e = self.kin.evaluate(&y, angles);
        (e.points[i].0.distance(at) <= 1.0).then_some(reached)
    }

    /// The leg whose variables are `vars` standing at `reached`: in `x`, and as the
    /// stance's angles.
    fn stand_leg(&mut self, x: &mut [f64], vars: [usize; 3], reached: [f64; 3]) {
        for (&v, a) in vars.iter().zip(reached) {
            x[v] = a;
            self.stand[self.kin.joints[v - BODY_VARIABLES]] = a;
        }
    }

    /// This stage standing as `other` does (its body, spots and stance angles): a stage
    /// for another frame time, on a stand already found.
    pub fn standing_as(mut self, other: &Stage) -> Stage {
        self.standing = other.standing.clone();
        self.stand = other.stand.clone();
        self
    }

    /// The stance's angles, every profile joint: where the planted legs stand (on the
    /// spots, at the body's height), and a held paw stands.
    pub fn stance(&self) -> &[f64] {
        &self.stand
    }

    /// Each paw's floor spot (its centre's x and y, mm), by `PAWS` index.
    pub fn spots(&self) -> [Option<DVec2>; 4] {
        self.standing.spots
    }

    /// Balances `grid` as `plan` says, keeping `margin[row]` mm inside the support.
    pub fn balance(&self, grid: &Grid, plan: &Plan, margin: &[f64]) -> Balanced {
        let mut progress = self.begin();
        self.advance(grid, plan, margin, &mut progress, grid.rows.len());
        Balanced {
            grid: Grid {
                rows: progress.rows,
                frame_ms: grid.frame_ms,
            },
            plan: plan.clone(),
            rows: progress.reports,
        }
    }

    /// Nothing balanced yet: the first row starts from the stand.
    pub fn begin(&self) -> Progress {
        Progress {
            rows: Vec::new(),
            reports: Vec::new(),
            prev: self.standing.x.clone(),
            shift: None,
        }
    }

    /// Balances the rows from where `progress` left off up to row `end` (as
    /// [`Stage::balance`]; a row depends only on the rows before it and on the plan up to
    /// it, so a plan that changes only after `progress` may go on from there).
    pub fn advance(
        &self,
        grid: &Grid,
        plan: &Plan,
        margin: &[f64],
        progress: &mut Progress,
        end: usize,
    ) {
        let Progress {
            rows,
            reports,
            prev,
            shift,
        } = progress;
        // The rows whose legs a walk writes, but for its last stretch: there the program
        // runs again, so that the stage's legs have settled where they follow the
        // performer by the time the walk blends back into them.
        let settle = (WALK_SETTLE_S * 1000.0 / f64::from(grid.frame_ms)).ceil() as usize;
        let walked: Vec<std::ops::Range<usize>> = plan
            .walks
            .iter()
            .map(|w| {
                let rows = w.rows();
                rows.start..rows.end.saturating_sub(settle)
            })
            .collect();
        let done = rows.len();
        for (k, grid_row) in grid.rows.iter().enumerate().take(end).skip(done) {
            let mut angles: Vec<f64> = grid_row.iter().skip(BODY_ANGLES).copied().collect();
            if walked.iter().any(|w| w.contains(&k)) {
                // A walk writes the legs here, from the stand: no program to solve. The
                // body stands as the walk carries it (the stand's height and attitude,
                // which the judges read), the head after the performer's.
                let x = self.follow_head(prev, &angles, k == 0);
                let e = self.kin.evaluate(&x, &mut angles);
                reports.push(RowReport {
                    shift_mm: e.com.truncate().distance(self.standing.com),
                    short_mm: 0.0,
                    held: false,
                    body_mm: body_offset(&x, &self.standing.x),
                });
                rows.push(self.row_out(&x, grid_row, &angles));
                *shift = None;
                *prev = x;
                continue;
            }
            let phases: [Phase; 4] = std::array::from_fn(|p| plan.phase(k, p));
            // A paw held down while its limb gestures stands as it stood: following the
            // raised arm would drag the body after it.
            let mut targets = angles.clone();
            for (p, phase) in phases.iter().enumerate() {
                if phase.planted() && plan.wanted(k, p) {
                    for j in self.leg_joints(p) {
                        targets[j] = self.stand[j];
                    }
                }
            }
            match phases.iter().position(|p| matches!(p, Phase::Shifting(_))) {
                Some(paw) if shift.as_ref().is_none_or(|(p, _)| *p != paw) => {
                    // A shift starting: where the centre of mass stands against the
                    // three paws that will carry it.
                    let e = self.kin.evaluate(prev, &mut angles.clone());
                    let start = self
                        .edges(&self.three_without(paw))
                        .iter()
                        .map(|(n, h)| n.dot(e.com.truncate()) - h)
                        .collect();
                    *shift = Some((paw, start));
                }
                Some(_) => {}
                None => *shift = None,
            }
            // A raised paw comes down in time: over the plan's landing, or earlier where
            // its leg needs longer, at a share of its joints' speed, to reach the angles
            // that put it on its spot from where the body is.
            let landing = phases
                .iter()
                .position(|p| matches!(p, Phase::Up | Phase::Landing(_)))
                .and_then(|paw| {
                    let left = plan.rows_until_down(k, paw);
                    let onto = self.leg_onto_spot(paw, prev)?;
                    let vars = self.leg_variables[paw]?;
                    let needed = self.landing_rows(paw, vars.map(|v| prev[v]), onto);
                    (matches!(phases[paw], Phase::Landing(_)) || left <= needed)
                        .then_some(Landing { paw, left, onto })
                });
            let mut row = Row {
                prev,
                targets: &targets,
                phases,
                margin: margin.get(k).copied().unwrap_or(DEFAULT_MARGIN_MM),
                shift: shift.as_ref(),
                first: k == 0,
                landing,
                soft: false,
            };
            let mut held = false;
            let mut solved = self.solve_row(&row, &mut angles);
            if solved.is_none() {
                // No solution: the planted paws pulled onto their spots, not held there.
                row.soft = true;
                held = true;
                solved = self.solve_row(&row, &mut angles);
            }
            let (x, short) = solved.unwrap_or_else(|| (prev.clone(), 0.0));
            let e = self.kin.evaluate(&x, &mut angles);
            reports.push(RowReport {
                shift_mm: e.com.truncate().distance(self.standing.com),
                short_mm: short,
                held,
                body_mm: body_offset(&x, &self.standing.x),
            });
            rows.push(self.row_out(&x, grid_row, &angles));
            *prev = x;
        }
    }

    /// A grid row from variables `x`: the body's roll and pitch, the grid's yaw, then
    /// every joint.
    fn row_out(&self, x: &[f64], grid_row: &[f64], angles: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(grid_row.len());
        out.push(x[3]);
        out.push(x[4]);
        out.push(grid_row.get(2).copied().unwrap_or(0.0));
        out.extend(angles.iter().copied());
        out
    }

    /// The stand on its spots, with the head's joints moved from `prev` toward `targets`
    /// (every profile joint) as far as their speed (unbounded on the `first` row, which
    /// the ramp from the posture leads into) and limits allow.
    fn follow_head(&self, prev: &[f64], targets: &[f64], first: bool) -> Vec<f64> {
        let mut x = self.standing.x.clone();
        for (v, &j) in self.kin.joints.iter().enumerate() {
            if !self.head[v] {
                continue;
            }
            let i = BODY_VARIABLES + v;
            let (min, max) = self.limits[v];
            let step = if first { f64::INFINITY } else { self.steps[v] };
            x[i] = targets[j]
                .min(prev[i] + step)
                .max(prev[i] - step)
                .min(max)
                .max(min);
        }
        x
    }

    /// Rows leg `paw` needs to come down from angles `from` to `onto` (J1, J2, J3) at the
    /// landing's share of its joints' speed, and the final approach.
    fn landing_rows(&self, paw: usize, from: [f64; 3], onto: [f64; 3]) -> usize {
        let Some(vars) = self.leg_variables[paw] else {
            return LANDING_FINAL_ROWS;
        };
        let travel = (0..3)
            .map(|a| self.joint_landing_rows(vars[a], from[a], onto[a]))
            .max()
            .unwrap_or(0);
        travel + LANDING_FINAL_ROWS
    }

    /// Rows the joint that is variable `v` needs from `from` to `onto` at the landing's
    /// share of its speed.
    fn joint_landing_rows(&self, v: usize, from: f64, onto: f64) -> usize {
        let step = self.steps[v - BODY_VARIABLES] * LANDING_SPEED_SHARE;
        ((from - onto).abs() / step).ceil() as usize
    }

    /// Rows leg `paw` needs to land from the angles of `grid_row` (a grid row: the body's
    /// attitude, then every profile joint), were the body standing: the plan's estimate,
    /// so that a lift lasts until its paw can be down.
    pub fn landing_rows_from(&self, grid_row: &[f64], paw: usize) -> usize {
        let Some(vars) = self.leg_variables[paw] else {
            return 0;
        };
        let joint = |v: usize| self.kin.joints[v - BODY_VARIABLES];
        let from = vars.map(|v| grid_row.get(BODY_ANGLES + joint(v)).copied().unwrap_or(0.0));
        let onto = vars.map(|v| self.stand[joint(v)]);
        self.landing_rows(paw, from, onto)
    }

    /// The angles of leg `paw` (J1, J2, J3) that put its paw on its spot with the body
    /// where `x` has it (closed-form inverse kinematics, the solution nearest the leg's
    /// angles in `x`).
    fn leg_onto_spot(&self, paw: usize, x: &[f64]) -> Option<[f64; 3]> {
        let (_, spot) = self.spot(paw)?;
        self.leg_onto(paw, spot, x)
    }

    /// The angles of leg `paw` that put its paw's centre at `at` (or the nearest it
    /// reaches), as [`Stage::leg_onto_spot`].
    fn leg_onto(&self, paw: usize, at: DVec3, x: &[f64]) -> Option<[f64; 3]> {
        let leg = self.legs[paw].as_ref()?;
        let vars = self.leg_variables[paw]?;
        // The paw's centre in the body's frame: undo the body's position and attitude.
        let attitude = glam::DQuat::from_axis_angle(DVec3::NEG_Y, x[4])
            * glam::DQuat::from_axis_angle(DVec3::X, x[3]);
        let local = attitude.inverse() * (at - DVec3::new(x[0], x[1], x[2]));
        leg.reach(local, vars.map(|v| x[v]))
    }

    /// The profile joints of leg `paw`.
    fn leg_joints(&self, paw: usize) -> Vec<usize> {
        self.leg_variables[paw]
            .map(|vars| vars.map(|v| self.kin.joints[v - BODY_VARIABLES]).to_vec())
            .unwrap_or_default()
    }

    /// The spots of the three paws other than `paw`.
    fn three_without(&self, paw: usize) -> Vec<DVec2> {
        (0..4)
            .filter(|&p| p != paw)
            .filter_map(|p| self.standing.spots[p])
            .collect()
    }

    /// The support polygon's edges as inward normals and offsets: inside is n·c ≥ h.
    fn edges(&self, spots: &[DVec2]) -> Vec<(DVec2, f64)> {
        let hull = convex_hull(spots);
        if hull.len() < 3 {
            return Vec::new();
        }
        (0..hull.len())
            .map(|i| {
                let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
                let n = (b - a).perp().normalize_or_zero();
                (n, n.dot(a))
            })
            .collect()
    }

    /// Every profile joint's angle: the variables' from `x`, the others' from `targets`.
    fn angles_of(&self, x: &[f64], targets: &[f64]) -> Vec<f64> {
        let mut angles = targets.to_vec();
        for (v, &j) in self.kin.joints.iter().enumerate() {
            angles[j] = x[BODY_VARIABLES + v];
        }
        angles
    }

    /// A paw's spot on the floor, as its centre's position.
    fn spot(&self, paw: usize) -> Option<(usize, DVec3)> {
        let i = self.kin.paw_point(paw)?;
        Some((i, self.on_floor(i, self.standing.spots[paw]?)))
    }

    /// Where the centre of paw point `i` is, standing on the floor at `spot`.
    fn on_floor(&self, i: usize, spot: DVec2) -> DVec3 {
        DVec3::new(spot.x, spot.y, self.kin.points[i].radius)
    }

    /// One row's program, solved from the row before: the variables and how far short
    /// of the margin the centre of mass is; `None` where there is no solution.
    fn solve_row(&self, row: &Row<'_>, angles: &mut [f64]) -> Option<(Vec<f64>, f64)> {
        let nv = self.kin.variables();
        let planted: Vec<usize> = (0..4)
            .filter(|&p| row.phases[p].planted() && self.standing.spots[p].is_some())
            .collect();
        let support: Vec<DVec2> = planted
            .iter()
            .filter_map(|&p| self.standing.spots[p])
            .collect();
        let mut edges: Vec<(DVec2, f64, f64)> = self
            .edges(&support)
            .into_iter()
            .map(|(n, h)| (n, h, row.margin))
            .collect();
        let shifting = row.phases.iter().find_map(|p| match p {
            Phase::Shifting(s) => Some(*s),
            _ => None,
        });
        if let (Some((paw, start)), Some(s)) = (row.shift, shifting) {
            for ((n, h), d0) in self.edges(&self.three_without(*paw)).into_iter().zip(start) {
                let from = d0.min(row.margin);
                edges.push((n, h, from + (row.margin - from) * s));
            }
        }
        // Targets and weights per variable.
        let mut want = self.standing.x.clone();
        let mut weight = vec![0.0; nv];
        let mut smooth = vec![0.0; nv];
        for i in 0..BODY_VARIABLES {
            let position = i < BODY_POSITION_VARIABLES;
            weight[i] = if position {
                W_BODY_POSITION
            } else {
                W_BODY_ATTITUDE
            };
            smooth[i] = if position {
                S_BODY_POSITION
            } else {
                S_BODY_ATTITUDE
            };
        }
        for (v, &j) in self.kin.joints.iter().enumerate() {
            let i = BODY_VARIABLES + v;
            want[i] = row.targets[j];
            weight[i] = match (self.head[v], self.leg_of[v]) {
                (true, _) => W_HEAD,
                // A planted leg is the balance tool, kept near the performer's by its
                // segments' directions (below).
                (_, Some(p)) if row.phases[p].planted() => W_PLANTED_ANGLES,
                (_, Some(_)) => W_RAISED,
                _ => W_OTHER,
            };
            smooth[i] = S_JOINT;
        }
        // The first row is solved from the stand posture (the ramp from the posture
        // comes before it, so it need not move slowly from there).
        let mut x = row.prev.to_vec();
        // A landing leg heads for the angles that put its paw on its spot, each joint
        // once its own way there at the landing's pace needs the rows left: until then
        // it follows the performer.
        if let Some(landing) = &row.landing {
            if let Some(vars) = self.leg_variables[landing.paw] {
                for a in 0..3 {
                    let needed =
                        self.joint_landing_rows(vars[a], row.prev[vars[a]], landing.onto[a]);
                    if landing.left <= needed + LANDING_FINAL_ROWS {
                        want[vars[a]] = landing.onto[a];
                    }
                }
            }
        }
        // The planted legs' segments as the performer's pose has them.
        let wanted_segments: [Option<Segments>; 4] = self.kin.segments(
            row.targets,
            std::array::from_fn(|p| row.phases[p].planted()),
        );
        let weights = Weights {
            want: &want,
            weight: &weight,
            smooth: &smooth,
            segments: &wanted_segments,
        };
        let mut short = 0.0;
        let rounds = if row.first { 4 * ROUNDS } else { ROUNDS };
        for _ in 0..rounds {
            let e = self.kin.evaluate(&x, angles);
            let problem = self.program(&e, &x, row, &weights, &planted, &edges);
            let solution = qp::solve(&problem).ok()?;
            let d = &solution.x;
            for i in 0..nv {
                x[i] += d[i];
            }
            short = d[nv].max(0.0);
            let (position, rotations) = d[..nv].split_at(BODY_POSITION_VARIABLES);
            if position.iter().all(|v| v.abs() < DONE_MM)
                && rotations.iter().all(|v| v.abs() < DONE_RAD)
            {
                break;
            }
        }
        // Planted paws must really be on their spots after the last linearisation (or,
        // pulled there, no further off than they were).
        let e = self.kin.evaluate(&x, angles);
        let before = self.kin.evaluate(row.prev, &mut angles.to_vec());
        for &p in &planted {
            let (i, spot) = self.spot(p)?;
            let off = (spot - e.points[i].0).length();
            let was = (spot - before.points[i].0).length();
            if off > 0.5 && !(row.soft && off <= was + 0.5) {
                return None;
            }
        }
        Some((x, short))
    }

    /// The quadratic program in the step d (then the shortfall σ) from `x`.
    fn program(
        &self,
        e: &Evaluation,
        x: &[f64],
        row: &Row<'_>,
        weights: &Weights<'_>,
        planted: &[usize],
        edges: &[(DVec2, f64, f64)],
    ) -> Problem {
        let nv = self.kin.variables();
        let n = nv + 1;
        let mut h = Matrix::zeros(n, n);
        let mut g = vec![0.0; n];
        for i in 0..nv {
            let s = if row.first { 0.0 } else { weights.smooth[i] };
            let w = weights.weight[i];
            h.set(i, i, 2.0 * (w + s));
            g[i] = 2.0 * (w * (x[i] - weights.want[i]) + s * (x[i] - row.prev[i]));
        }
        h.set(nv, nv, 2.0 * W_SHORT);
        // Planted legs: each segment's direction near the performer's pose's,
        // w|s + Σ ∂s/∂q Δq − s*|² over the leg's three joints.
        let segments_now = self.kin.segments(
            &self.angles_of(x, row.targets),
            std::array::from_fn(|p| weights.segments[p].is_some()),
        );
        for (p, (wanted, now)) in weights.segments.iter().zip(segments_now).enumerate() {
            let (Some(wanted), Some(now), Some(vars)) = (wanted, now, self.leg_variables[p]) else {
                continue;
            };
            for (s, cols, goal) in [
                (now.upper, now.upper_columns, wanted.upper),
                (now.lower, now.lower_columns, wanted.lower),
            ] {
                let r = s - goal;
                for a in 0..3 {
                    g[vars[a]] += 2.0 * W_PLANTED * cols[a].dot(r);
                    for b in 0..3 {
                        h.add(vars[a], vars[b], 2.0 * W_PLANTED * cols[a].dot(cols[b]));
                    }
                }
            }
        }
        let column = |cols: &[DVec3], axis: usize| -> Vec<f64> {
            let mut a: Vec<f64> = cols.iter().map(|c| c[axis]).collect();
            a.push(0.0);
            a
        };
        // A pull w|c + Jd − target|² on a point, into the objective.
        let pull = |h: &mut Matrix, g: &mut Vec<f64>, cols: &[DVec3], off: DVec3, w: f64| {
            for axis in 0..3 {
                for (u, cu) in cols.iter().enumerate().take(nv) {
                    g[u] += 2.0 * w * cu[axis] * off[axis];
                    for (v, cv) in cols.iter().enumerate().take(nv) {
                        h.add(u, v, 2.0 * w * cu[axis] * cv[axis]);
                    }
                }
            }
        };
        let mut equalities = Vec::new();
        let mut inequalities = Vec::new();
        let prev_points = row
            .landing
            .as_ref()
            .map(|_| self.kin.evaluate(row.prev, &mut row.targets.to_vec()));
        for (p, phase) in row.phases.iter().enumerate() {
            let Some((i, spot)) = self.spot(p) else {
                continue;
            };
            let (c, cols) = &e.points[i];
            let radius = self.kin.points[i].radius;
            if planted.contains(&p) {
                if row.soft {
                    pull(&mut h, &mut g, cols, *c - spot, W_SOFT_PLANT);
                    inequalities.push(Constraint {
                        a: column(cols, 2),
                        b: radius - c.z,
                    });
                } else {
                    for axis in 0..3 {
                        equalities.push(Constraint {
                            a: column(cols, axis),
                            b: spot[axis] - c[axis],
                        });
                    }
                }
                continue;
            }
            // Rising, it clears the floor by more and more; coming down, the approach
            // below brings it in, and only the floor bounds it.
            let landing = row.landing.as_ref().filter(|l| l.paw == p).map(|l| l.left);
            let clearance = match (phase, landing) {
                (_, Some(_)) => 0.0,
                (Phase::Lifting(s), _) => PAW_CLEARANCE_MM * s,
                _ => PAW_CLEARANCE_MM,
            };
            inequalities.push(Constraint {
                a: column(cols, 2),
                b: radius + clearance - c.z,
            });
            if let (Some(left), Some(before)) = (landing, prev_points.as_ref()) {
                // Over its last rows, coming down onto its spot: its distance from it
                // shrinks in proportion to the rows left (or by the pace a landing may
                // close), measured along the line from the spot to where it was; a pull
                // brings it onto the line.
                let was = before.points[i].0 - spot;
                let far = was.length();
                if far > LANDING_SLACK_MM && left <= LANDING_FINAL_ROWS {
                    let along = was / far;
                    let f = (left - 1) as f64 / left as f64;
                    let bound = (far * f).max(far - LANDING_STEP_MM) + LANDING_SLACK_MM;
                    let mut a: Vec<f64> = cols.iter().map(|c| -along.dot(*c)).collect();
                    a.push(0.0);
                    inequalities.push(Constraint {
                        a,
                        b: along.dot(*c - spot) - bound,
                    });
                }
                // Only over the final rows: before them the leg heads for its angles,
                // and a pull on the paw from afar would move the body instead (the
                // ERS-210 slid back 90 mm and sank 35 mm bringing down a raised paw).
                if left <= LANDING_FINAL_ROWS {
                    let w = W_LAND / left as f64;
                    pull(&mut h, &mut g, cols, *c - spot, w);
                }
            }
        }
        // Nothing else comes near the floor.
        for (i, point) in self.kin.points.iter().enumerate() {
            let clearance = match point.part {
                Part::Paw => continue,
                Part::Head => HEAD_CLEARANCE_MM,
                _ => BODY_CLEARANCE_MM,
            };
            let (c, cols) = &e.points[i];
            inequalities.push(Constraint {
                a: column(cols, 2),
                b: point.radius + clearance - c.z,
            });
        }
        // The centre of mass inside each edge by its margin, less the shortfall σ.
        for (normal, offset, m) in edges {
            let mut a: Vec<f64> = e
                .com_columns
                .iter()
                .map(|c| normal.x * c.x + normal.y * c.y)
                .collect();
            a.push(1.0);
            inequalities.push(Constraint {
                a,
                b: offset + m - normal.dot(e.com.truncate()),
            });
        }
        // σ ≥ 0; joints within limits and speed; the body within its trust region.
        let mut bounds = vec![Bound {
            variable: nv,
            sign: 1.0,
            b: 0.0,
        }];
        for (i, &xi) in x.iter().enumerate().take(nv) {
            let (lo, hi) = if i < BODY_VARIABLES {
                let trust = if i < BODY_POSITION_VARIABLES {
                    TRUST_MM
                } else {
                    TRUST_RAD
                };
                (xi - trust, xi + trust)
            } else {
                let v = i - BODY_VARIABLES;
                let (mut min, mut max) = self.limits[v];
                // A planted leg's knee bears weight: it stays near the stand's bend (never
                // pushed there faster than its speed from where it was).
                if let (Some(p), Some(vars)) = (
                    self.leg_of[v],
                    self.leg_of[v].and_then(|p| self.leg_variables[p]),
                ) {
                    if row.phases[p].planted() && vars[2] == i {
                        let stand = self.standing.x[i];
                        min = min.max((stand - PLANTED_KNEE_LESS).min(row.prev[i]));
                        max = max.min((stand + PLANTED_KNEE_MORE).max(row.prev[i]));
                    }
                }
                if row.first {
                    let trust = 0.3;
                    ((xi - trust).max(min), (xi + trust).min(max))
                } else {
                    let step = self.steps[v];
                    let lo = (row.prev[i] - step).max(min);
                    let hi = (row.prev[i] + step).min(max);
                    (lo.min(hi), hi.max(lo))
                }
            };
            if lo.is_finite() {
                bounds.push(Bound {
                    variable: i,
                    sign: 1.0,
                    b: lo - xi,
                });
            }
            if hi.is_finite() {
                bounds.push(Bound {
                    variable: i,
                    sign: -1.0,
                    b: xi - hi,
                });
            }
        }
        Problem {
            hessian: h,
            linear: g,
            equalities,
            inequalities,
            bounds,
        }
    }
}

/// One row's inputs.
struct Row<'a> {
    /// The variables of the row before.
    prev: &'a [f64],
    /// The performer's angles, every profile joint.
    targets: &'a [f64],
    phases: [Phase; 4],
    margin: f64,
    /// The weight shift in progress (see [`Stage::balance`]).
    shift: Option<&'a (usize, Vec<f64>)>,
    /// The first row: no smoothness against, nor speed from, the standing pose.
    first: bool,
    /// A paw coming down.
    landing: Option<Landing>,
    /// Planted paws pulled onto their spots rather than held on them (the fallback
    /// where the program has no solution).
    soft: bool,
}

/// A raised paw coming down onto its spot.
struct Landing {
    paw: usize,
    /// Rows until it is down, counting this one.
    left: usize,
    /// Its leg's angles that put it there from where the body was on the row before.
    onto: [f64; 3],
}

/// The objective's targets, weights and smoothness per variable, and the planted legs'
/// wanted segments.
struct Weights<'a> {
    want: &'a [f64],
    weight: &'a [f64],
    smooth: &'a [f64],
    segments: &'a [Option<Segments>; 4],
}

/// Where the body of variables `x` is against `standing`'s, mm.
fn body_offset(x: &[f64], standing: &[f64]) -> DVec3 {
    DVec3::new(x[0], x[1], x[2]) - DVec3::new(standing[0], standing[1], standing[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lowered_body_keeps_the_paws_on_their_spots_and_the_legs_reach_wider() {
        for model in ["ERS-7", "ERS-210"] {
            let profile = Profile::builtin(model).unwrap();
            let stand = profile.postures["stand"].joints.clone();
            let stage = || Stage::new(&profile, 16, &stand).unwrap();
            let high = stage();
            // Lowered by nothing, the same stage.
            let same = stage().lowered(0.0).unwrap();
            assert_eq!((same.spots(), &same.stand), (high.spots(), &high.stand));
            let low = stage().lowered(10.0).unwrap();
            assert!((low.standing.x[2] - (high.standing.x[2] - 10.0)).abs() < 1e-9);
            assert_eq!(low.spots(), high.spots(), "{model}");
            // Its stand's angles put every paw's centre on its spot, forward kinematics
            // says, and they are other angles than the stand's.
            let mut angles = low.stand.clone();
            let e = low.kin.evaluate(&low.standing.x, &mut angles);
            for p in 0..4 {
                let (i, spot) = low.spot(p).unwrap();
                assert!(e.points[i].0.distance(spot) < 1.0, "{model} paw {p}");
            }
            assert_ne!(low.stand, high.stand);
            // A hind paw wanted 60 mm further out and back than the stance's (where a
            // performer standing with the legs apart puts it): the leg of the lowered
            // body reaches further toward it.
            let mut wanted = high.spots();
            wanted[3] = wanted[3].map(|s| s + DVec2::new(-30.0, -52.0));
            let reached = |s: Stage| {
                let got = s.planted_toward(wanted).spots()[3].unwrap();
                got.distance(high.spots()[3].unwrap())
            };
            let (from_high, from_low) = (reached(stage()), reached(stage().lowered(10.0).unwrap()));
            assert!(
                from_low > from_high + 5.0,
                "{model}: {from_low:.1} against {from_high:.1} mm"
            );
            // So low that the hips are at the floor, the legs no longer stand it.
            let hips = high.standing.x[2];
            assert!(stage().lowered(hips).is_none(), "{model}");
        }
    }

    #[test]
    fn paws_plant_on_spots_the_legs_reach_and_the_rows_give_them_back() {
        let profile = Profile::builtin("ERS-7").unwrap();
        let stand = profile.postures["stand"].joints.clone();
        let stance = Stage::new(&profile, 16, &stand).unwrap();
        let at_stance = stance.spots();
        // The left hind paw 8 mm back and 10 mm out (within reach); the right front a
        // metre out (beyond it).
        let mut wanted = at_stance;
        wanted[2] = wanted[2].map(|s| s + DVec2::new(-8.0, 10.0));
        wanted[1] = wanted[1].map(|s| s + DVec2::new(0.0, -1000.0));
        let moved = Stage::new(&profile, 16, &stand)
            .unwrap()
            .planted_toward(wanted);
        let spots = moved.spots();
        assert!(
            spots[2].unwrap().distance(wanted[2].unwrap()) < 1e-9,
            "{spots:?} {wanted:?}"
        );
        assert_eq!(spots[0], at_stance[0]);
        assert_eq!(spots[3], at_stance[3]);
        // The right front as far out as the leg reaches: on the way, well short of it.
        let (from, to, got) = (at_stance[1].unwrap(), wanted[1].unwrap(), spots[1].unwrap());
        assert!((got.x - from.x).abs() < 1e-9 && got.y < from.y - 5.0 && got.y > to.y + 800.0);
        // The stance's angles put every paw's centre on its spot, on the floor.
        let mut angles = moved.stand.clone();
        let e = moved.kin.evaluate(&moved.standing.x, &mut angles);
        for p in 0..4 {
            let (i, spot) = moved.spot(p).unwrap();
            assert!(e.points[i].0.distance(spot) < 1.0, "paw {p}");
        }
        // Rows holding the stance's angles give back its spots.
        let row: Vec<f64> = [0.0; 3].into_iter().chain(moved.stand.clone()).collect();
        let grid = Grid {
            rows: vec![row; 10],
            frame_ms: 16,
        };
        let back = stance.performers_spots(&grid, |_| true, |_, _| true);
        for p in 0..4 {
            assert!(
                back[p].unwrap().distance(spots[p].unwrap()) < 1.0,
                "paw {p}"
            );
        }
    }

    #[test]
    fn balancing_in_stretches_gives_the_rows_one_pass_gives() {
        let profile = Profile::builtin("ERS-7").unwrap();
        let stand = profile.postures["stand"].joints.clone();
        let stage = Stage::new(&profile, 16, &stand).unwrap();
        // The stand, the head turning and the left front leg swinging forward and back
        // (planted: the stage holds it and leans the body instead).
        let column = |name: &str| profile.joint_index(name).unwrap();
        let (pan, lf_j1) = (column("head_pan"), column("lf_j1"));
        let rows: Vec<Vec<f64>> = (0..150)
            .map(|k| {
                let t = k as f64 * 0.016;
                let mut joints = stand.clone();
                joints[pan] = 0.6 * (2.0 * t).sin();
                joints[lf_j1] += 0.4 * (3.0 * t).sin();
                [0.0, 0.0, 0.0].into_iter().chain(joints).collect()
            })
            .collect();
        let grid = Grid { rows, frame_ms: 16 };
        let plan = Plan::standing(grid.rows.len(), 0.016);
        let margin = vec![DEFAULT_MARGIN_MM; grid.rows.len()];
        let whole = stage.balance(&grid, &plan, &margin);
        let mut progress = stage.begin();
        // A copy goes on where the original stopped (the pipeline keeps one at each
        // walk's start); stretches that end where they began or past the grid are none.
        for end in [1, 40, 40, 97, 150, 200] {
            let mut copy = progress.clone();
            stage.advance(&grid, &plan, &margin, &mut copy, end);
            progress = copy;
        }
        assert_eq!(progress.rows(), &whole.grid.rows[..]);
        assert_eq!(progress.reports, whole.rows);
        // The stage did something: the body leaned as the leg swung.
        assert!(whole.rows.iter().any(|r| r.body_mm.length() > 1.0));
    }

    #[test]
    fn a_landing_leg_s_quick_joint_follows_the_performer_until_its_own_way_down_needs_the_rows() {
        use super::super::plan::Lift;
        let profile = Profile::builtin("ERS-7").unwrap();
        let stand = profile.postures["stand"].joints.clone();
        let stage = Stage::new(&profile, 16, &stand).unwrap();
        let column = |name: &str| profile.joint_index(name).unwrap();
        let (j1, j2) = (column("rf_j1"), column("rf_j2"));
        // The right arm raised far forward over rows 40..210 (a long way down for J1),
        // its abduction swaying a little out from the stand's (a short way for J2).
        let target_j2 = |k: usize| stand[j2] + 0.2 + 0.1 * (k as f64 * 0.1).sin();
        let rows: Vec<Vec<f64>> = (0..260)
            .map(|k| {
                let mut joints = stand.clone();
                if (40..210).contains(&k) {
                    joints[j1] += 1.6;
                    joints[j2] = target_j2(k);
                }
                [0.0, 0.0, 0.0].into_iter().chain(joints).collect()
            })
            .collect();
        let grid = Grid { rows, frame_ms: 16 };
        let mut plan = Plan::standing(grid.rows.len(), 0.016);
        plan.lifts = vec![Lift {
            paw: 1,
            start: 60,
            end: 200,
        }];
        let margin = vec![DEFAULT_MARGIN_MM; grid.rows.len()];
        let out = stage.balance(&grid, &plan, &margin);
        let at = |k: usize, j: usize| out.grid.rows[k][BODY_ANGLES + j];
        // J1 is on its way down well before the lift ends (the plan's own landing is
        // its last 13 rows) ...
        let up = at(150, j1);
        assert!(up > stand[j1] + 1.4, "J1 up at {up:.2}");
        assert!(at(180, j1) < up - 0.3, "J1 {:.2} at row 180", at(180, j1));
        // ... while J2 still follows the performer there, and heads down only over the
        // last rows.
        for k in 150..180 {
            assert!(
                (at(k, j2) - target_j2(k)).abs() < 0.03,
                "row {k}: J2 {:.3} against the performer's {:.3}",
                at(k, j2),
                target_j2(k)
            );
        }
        // By the lift's end it has left the performer for its angle on the spot, and
        // every row had a solution.
        assert!((at(200, j2) - target_j2(200)).abs() > 0.05);
        assert!(out.rows.iter().all(|r| !r.held));
    }
}
