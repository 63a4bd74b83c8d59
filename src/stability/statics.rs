//! Will the dog stay on its feet? The static test, for every 8 ms frame of a motion's
//! dense playback:
//!
//! 1. **Place.** Pose the robot (the profile's skeleton and `[mass]` model) at the body
//!    attitude the motion carries, over a flat floor at its lowest point. The points that
//!    can touch are the paws and the knees and elbows (round, with the profile's radii),
//!    the body's hull (belly, chest, rump, flanks) and the head (nose, jaw). Those within
//!    [`CONTACT_MM`] of the floor touch it.
//! 2. **Rest.** While the centre of mass is not over the support polygon (the convex hull
//!    of the touching points), turn the robot about the polygon's edge (or corner, or
//!    line) nearest the centre of mass, toward it, until another point touches; again,
//!    until it rests.
//!
//! **What a frame means to stand on.** The attitude a motion means is where it rests on
//! its intended supports, found by the same turning:
//! - its paws, reached within [`FIND_FLOOR_DEG`] of the carried attitude (the legs
//!   finding the floor: Sony's files approximate the body's attitude or leave it out);
//! - what the frame's posture rests on: the standard posture (stand, sit, sleep) nearest
//!   its legs is tested once, and a sit rests on its rump, a sleep on its elbows and
//!   belly (a robot on its rump may settle onto its belly, and back); these within
//!   [`LEAN_DEG`] of the posture's attitude or the carried one;
//! - any other part but the head (an elbow, a knee, the chest, a flank, or the rump or
//!   belly of a standing robot) only within [`LEAN_DEG`] of the carried attitude: a
//!   forearm settling, the chest grazing.
//!
//! A motion that `build` wrote carries the attitude its planned supports give, so its
//! placement already stands on them. The frame **tips** when, to rest, it comes down on
//! anything else (the head, or an elbow reached by rolling 40° off a raised paw), or goes
//! right over; its **margin** is then that of the support it tipped from (negative), in
//! the direction it went, and the **meant attitude** is where it stood on that support.
//! Otherwise it rests, the meant attitude is its rest, and its margin is the distance
//! from the centre of mass's projection to the edge of the support polygon, positive
//! inside.
//!
//! A frame that tips, or whose margin is negative, is **unstable**; one inside by less
//! than the required margin (10 mm unless told) is **marginal**. Tipping from two paws,
//! one front and one hind, is how a trot or pace moves (Sony's walks): **dynamic**,
//! reported but no fault. The simulation (`physics`) judges its falls against the same
//! meant attitude and the same parts.
//!
//! **Rocks.** A frame alone says where the robot would end up given time, not how far it
//! gets: tipping takes time, and the motion may bring the centre of mass back first.
//! Through each unstable stretch the robot is also turned as a rigid body pivoting on
//! the edge it tips over, from rest, with its inertia about that edge from the mass
//! model (`rocking`). A stretch longer than [`SPAN_FAULT_MS`] in which it turns at most
//! [`ROCK_DEG`] and comes back onto its support rocks: reported, no fault.

use glam::{DQuat, DVec2, DVec3};
use serde::Serialize;

use super::body::{Body, Contact, Part, Resting};
use super::support::{convex_hull, nearest_edge_direction, signed_distance, Direction};
use super::{attitude, testable_frames, BalanceError, Columns};
use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::profile::Profile;
use crate::robot::skeleton::Pose;

/// Points this close to the floor (mm) touch it: about what a paw's rubber pad and a
/// servo's give take up, so that four paws a few mm out of plane all bear weight.
pub const CONTACT_MM: f64 = 5.0;

/// Turning this far (degrees) from the attitude a motion carries onto an elbow, a knee or
/// the body is the legs finding the floor (a forearm settling, the chest grazing as the
/// robot lies down); further, where the posture does not rest there, it has gone over.
/// Sony's own motions settle by at most 14°.
pub const LEAN_DEG: f64 = 15.0;

/// Turning this far (degrees) from the attitude a motion carries onto the paws is the
/// legs finding the floor: Sony's files approximate the body's
/// attitude or leave it out, by up to 26° in the shared samples. Further, the robot has
/// gone over.
pub const FIND_FLOOR_DEG: f64 = 30.0;

/// The margin a frame needs by default, mm.
pub const DEFAULT_MARGIN_MM: f64 = 10.0;

/// An unstable span longer than this (ms) fails `check --balance`.
pub const SPAN_FAULT_MS: u64 = 100;

/// An unstable span longer than [`SPAN_FAULT_MS`] in which the robot turns no further
/// than this on its edge before the motion brings its centre of mass back (`rocking`)
/// rocks back; further, it tips (degrees: the simulation's bound for leaning onto
/// anything the motion does not mean to rest on).
pub const ROCK_DEG: f64 = 15.0;

/// How far the rock model follows a turn, radians: a quarter turn is over.
const ROCK_LIMIT_RAD: f64 = std::f64::consts::FRAC_PI_2;

/// Four paws this near one plane (mm) all stand on it ([`Body::paws_level`]): a paw
/// sliding or settling, not raised (a step lifts 20 mm).
const LEVEL_PAWS_MM: f64 = 15.0;

/// A pose with one paw raised stands on the other three with the body this near level
/// (degrees; [`Body::paws_level`]).
const RAISED_PAW_DEG: f64 = 10.0;

/// Four paws level at a body pitched up further than this (degrees) are no sit
/// ([`Body::paws_level`]; the profiles' sits pitch 37° at most).
const SIT_PITCH_DEG: f64 = 45.0;

/// Every three of `n` items, by index, in order.
fn triples(n: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..n).flat_map(move |i| (i + 1..n).flat_map(move |j| (j + 1..n).map(move |k| (i, j, k))))
}

/// Past this turn the robot has gone over (on its side or back); the search stops.
const OVER_DEG: f64 = 120.0;

impl Body {
    /// The static test of one pose: joint angles (radians, profile order) and the body's
    /// roll, pitch and yaw as the motion carries them (radians).
    pub fn stance(&self, joints: &[f64], attitude: [f64; 3]) -> Stance {
        let posture = self.nearest_posture(joints);
        self.stance_allowing(joints, attitude, posture)
    }

    /// The static test of one pose, whose posture rests as `posture` says.
    pub fn stance_allowing(&self, joints: &[f64], attitude: [f64; 3], posture: Resting) -> Stance {
        // Yaw turns the robot on the floor without changing its balance.
        let pose = self.skeleton.pose(joints, [attitude[0], attitude[1], 0.0]);
        self.rest(&pose, super::carried(attitude[0], attitude[1]), posture)
    }

    /// The body's roll and pitch (radians, as a motion carries them; no yaw) that stand a
    /// pose on its paws, for a pose that carries no attitude (a stream of joint angles):
    /// - all four paws level within `LEVEL_PAWS_MM`, pitched up as far as a sit
    ///   (`SIT_PITCH_DEG`: Sony's stand to sit pitches the body 28° on four paws), but
    ///   not rolled or pitched down further than `RAISED_PAW_DEG` (that is a pair of
    ///   paws raised together, both front or both left);
    /// - else three paws level and the fourth above them, where that leaves the body
    ///   within `RAISED_PAW_DEG` of level (one paw raised while standing);
    /// - else `None`: two paws raised (a trot, or both arms up) leave three paws level
    ///   only with a raised one among them, which a pose alone cannot tell.
    ///
    /// Of two such planes, the one nearer the body's level.
    pub fn paws_level(&self, joints: &[f64]) -> Option<[f64; 3]> {
        let pose = self.skeleton.pose(joints, [0.0; 3]);
        let paws: Vec<DVec3> = self
            .contacts
            .iter()
            .filter(|c| c.part == Part::Paw)
            .map(|c| c.centre(&pose))
            .collect();
        if paws.len() != 4 {
            return None;
        }
        let level_within = (RAISED_PAW_DEG.to_radians()).cos();
        // Each three paws' floor: the upward normal of their plane, where no paw is below,
        // and the roll and pitch that set it level.
        let mut four: Option<(DVec3, [f64; 3])> = None;
        let mut three: Option<(DVec3, [f64; 3])> = None;
        for (i, j, k) in triples(paws.len()) {
            let n = (paws[j] - paws[i]).cross(paws[k] - paws[i]);
            let Some(n) = n.try_normalize() else { continue };
            let n = if n.z < 0.0 { -n } else { n };
            let heights: Vec<f64> = paws.iter().map(|p| (*p - paws[i]).dot(n)).collect();
            if heights.iter().any(|&h| h < -0.5) {
                continue;
            }
            // Roll about x brings the normal into the x–z plane, then pitch about −y upright.
            let (roll, pitch) = (n.y.atan2(n.z), n.x.atan2(n.y.hypot(n.z)));
            let sitting = roll.abs() <= RAISED_PAW_DEG.to_radians()
                && (-RAISED_PAW_DEG..=SIT_PITCH_DEG).contains(&pitch.to_degrees());
            let best = if heights.iter().all(|&h| h < LEVEL_PAWS_MM) && sitting {
                &mut four
            } else if n.z >= level_within {
                &mut three
            } else {
                continue;
            };
            if best.is_none_or(|(b, _)| n.z > b.z) {
                *best = Some((n, [roll, pitch, 0.0]));
            }
        }
        four.or(three).map(|(_, attitude)| attitude)
    }

    /// Steps 1 and 2 of the module's test, of a pose in the frame of the attitude the
    /// motion carries (`carried`).
    fn rest(&self, pose: &Pose, carried: DQuat, posture: Resting) -> Stance {
        let points: Vec<DVec3> = self.contacts.iter().map(|c| c.centre(pose)).collect();
        let com = self.centre_of_mass(pose);
        let rests = posture.rests;
        let posture_up = posture.attitude() * DVec3::Z;
        // Whether the robot, turned by `turn` from the carried attitude, may rest on a
        // part of kind `part`: see the module's definition.
        let intended = |part: Part, turn: DQuat| {
            let from_carried = turn_deg(turn);
            let from_posture = (turn * carried * DVec3::Z)
                .angle_between(posture_up)
                .to_degrees();
            match part {
                Part::Paw => from_carried <= FIND_FLOOR_DEG,
                Part::Head => false,
                other if rests.contains(other) => from_carried.min(from_posture) <= LEAN_DEG,
                _ => from_carried <= LEAN_DEG,
            }
        };
        let mut turn = DQuat::IDENTITY;
        // The last support made only of what the motion means to rest on, and the one
        // it turned from.
        let mut meant: Option<Support> = None;
        let mut turned_from: Option<(Vec<usize>, DQuat)> = None;
        // Each turn brings another point down; a few rounds more than there are points
        // bound it whatever the geometry.
        let mut rounds = 0;
        let (end, touching) = loop {
            rounds += 1;
            // Each point's centre, turned; a round one touches `radius` below it.
            let centres: Vec<DVec3> = points.iter().map(|p| turn * *p).collect();
            let world: Vec<DVec3> = centres
                .iter()
                .zip(&self.contacts)
                .map(|(p, k)| *p - DVec3::Z * k.radius)
                .collect();
            let c = turn * com;
            let floor = world.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
            let touching: Vec<usize> = (0..world.len())
                .filter(|&i| world[i].z - floor < CONTACT_MM)
                .collect();
            if let Some(&i) = touching
                .iter()
                .find(|&&i| !intended(self.contacts[i].part, turn))
            {
                break (End::Onto(i), touching);
            }
            let feet: Vec<DVec2> = touching.iter().map(|&i| world[i].truncate()).collect();
            let hull = convex_hull(&feet);
            let (margin, toward) = signed_distance(c.truncate(), &hull);
            let here = Support {
                turn,
                floor,
                com_height: c.z - floor,
                touching: touching.clone(),
                margin,
                toward,
                com: c.truncate(),
                hull,
            };
            if let Some(before) = meant.replace(here) {
                turned_from = Some((before.touching, before.turn));
            }
            if margin > 0.0 || toward == DVec2::ZERO {
                break (End::Rests, touching);
            }
            // Turn about the support's nearest edge or corner, toward the centre of mass,
            // until the next point touches.
            let axis = DVec3::Z.cross(toward.extend(0.0)).normalize();
            let pivot = (c.truncate() + toward * margin).extend(floor);
            let next = centres
                .iter()
                .zip(&self.contacts)
                .enumerate()
                .filter(|(i, _)| !touching.contains(i))
                .filter_map(|(_, (p, k))| first_touch(*p - pivot, axis, k.radius))
                .fold(f64::INFINITY, f64::min);
            let step = DQuat::from_axis_angle(axis, next.min(std::f64::consts::PI));
            if !next.is_finite() || turn_deg(step * turn) > OVER_DEG || rounds > 4 * points.len() {
                break (End::Over, touching);
            }
            turn = step * turn;
        };
        let tilt = turn_deg(turn);
        let mut resting_on: Vec<String> = touching
            .iter()
            .map(|&i| self.contacts[i].name.clone())
            .collect();
        resting_on.dedup();
        let mut resting_parts: Vec<Part> =
            touching.iter().map(|&i| self.contacts[i].part).collect();
        resting_parts.dedup();
        // Where the head touches at the attitude the motion carries, nothing was meant.
        let meant = meant.unwrap_or(Support {
            turn: DQuat::IDENTITY,
            floor: 0.0,
            com_height: 0.0,
            touching: Vec::new(),
            margin: f64::NEG_INFINITY,
            toward: DVec2::ZERO,
            com: com.truncate(),
            hull: Vec::new(),
        });
        let stood_on: Vec<&Contact> = meant.touching.iter().map(|&i| &self.contacts[i]).collect();
        let (tips, onto) = match end {
            End::Rests => (false, None),
            End::Onto(i) => (true, Some(self.contacts[i].name.clone())),
            End::Over => (true, None),
        };
        // Two paws, one front and one hind: a trot's or a pace's support.
        let two_paws = |on: &[&Contact]| {
            on.len() == 2
                && on.iter().all(|c| c.part == Part::Paw)
                && on.iter().filter(|c| c.front).count() == 1
        };
        let dynamic = tips && two_paws(&stood_on);
        // Come to rest from such a support onto paws alone, those are in their swing.
        let swing = match (&end, turned_from) {
            (End::Rests, Some((from, turn))) => {
                let on: Vec<&Contact> = from.iter().map(|&i| &self.contacts[i]).collect();
                let onto_paws = meant
                    .touching
                    .iter()
                    .all(|&i| self.contacts[i].part == Part::Paw);
                (two_paws(&on) && onto_paws).then(|| Swing {
                    standing_on: on.iter().map(|c| c.name.clone()).collect(),
                    turn,
                })
            }
            _ => None,
        };
        let direction = if tips {
            (meant.toward != DVec2::ZERO).then(|| Direction::of(meant.toward))
        } else {
            // At rest: the way it would go is its nearest edge.
            nearest_edge_direction(meant.com, &meant.hull).map(Direction::of)
        };
        Stance {
            tips,
            margin_mm: if tips {
                meant.margin.min(0.0)
            } else {
                meant.margin
            },
            tilt_deg: tilt,
            direction,
            resting_on,
            onto,
            dynamic,
            com: meant.com,
            com_height_mm: meant.com_height,
            gyration_mm2: if meant.margin < 0.0 {
                meant.gyration(self.placed_masses(pose)) / self.total_kg
            } else {
                0.0
            },
            support: meant.hull,
            standing_on: stood_on.iter().map(|c| c.name.clone()).collect(),
            swing,
            meant: meant.turn,
            floor_mm: meant.floor,
            posture,
            resting_parts,
        }
    }
}

/// How the search for a rest ended.
enum End {
    /// On what the motion means it to rest on.
    Rests,
    /// Over onto a part it is not meant to rest on (this contact).
    Onto(usize),
    /// Right over: no point comes down within half a turn.
    Over,
}

/// A support the robot stands on while turning toward its rest.
struct Support {
    turn: DQuat,
    /// The floor's height in the turned frame, mm.
    floor: f64,
    /// The centre of mass's height over it, mm.
    com_height: f64,
    touching: Vec<usize>,
    margin: f64,
    toward: DVec2,
    com: DVec2,
    hull: Vec<DVec2>,
}

impl Support {
    /// The robot's inertia about the edge it tips over (the centre of mass outside the
    /// support), kg·mm²: its masses (kg, and where each is at the carried attitude)
    /// times their squared distances from that line.
    fn gyration(&self, masses: impl Iterator<Item = (f64, DVec3)>) -> f64 {
        if !self.margin.is_finite() {
            return 0.0;
        }
        let pivot = (self.com - self.toward * self.margin.abs()).extend(self.floor);
        let along = DVec3::Z.cross(self.toward.extend(0.0));
        masses
            .map(|(kg, p)| {
                let r = self.turn * p - pivot;
                kg * (r.length_squared() - r.dot(along).powi(2))
            })
            .sum()
    }
}

/// The least turn about `axis` (horizontal, through a point of the floor) that brings a
/// point at `v` from that point, round with `radius`, down to the floor: its height
/// `a cos θ + b sin θ` falls to `radius`.
fn first_touch(v: DVec3, axis: DVec3, radius: f64) -> Option<f64> {
    let (a, b) = (v.z, axis.cross(v).z);
    let r = a.hypot(b);
    if r <= radius {
        return None;
    }
    let phase = b.atan2(a);
    let half = (radius / r).acos();
    let tau = std::f64::consts::TAU;
    [phase - half, phase + half]
        .into_iter()
        .map(|t| t.rem_euclid(tau))
        .filter(|&t| t > 1e-9)
        .min_by(f64::total_cmp)
}

/// How far a rotation turns, degrees.
fn turn_deg(q: DQuat) -> f64 {
    2.0 * q.w.abs().min(1.0).acos().to_degrees()
}

/// One frame's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stance {
    /// It falls: over onto a part it is not meant to rest on, or right over.
    pub tips: bool,
    /// The centre of mass's distance inside the support polygon it is meant to stand on,
    /// mm (negative: outside).
    pub margin_mm: f64,
    /// How far the robot turned from the carried attitude to rest (or to go over),
    /// degrees.
    pub tilt_deg: f64,
    /// Which way it tips (or, standing, which edge is nearest).
    pub direction: Option<Direction>,
    /// The points it comes to rest on (where it tips: what it went over onto).
    pub resting_on: Vec<String>,
    /// What it went over onto, where it tips onto a part.
    pub onto: Option<String>,
    /// Tipping from a trot's or a pace's two paws.
    pub dynamic: bool,
    /// The centre of mass and the support polygon seen from above, mm, at the meant
    /// attitude.
    #[serde(skip)]
    pub com: DVec2,
    /// The centre of mass's height over the floor at the meant attitude, mm.
    #[serde(skip)]
    pub com_height_mm: f64,
    /// Where the centre of mass is outside the support: the robot's inertia per kg about
    /// the edge it tips over, mm² (0 where it is inside).
    #[serde(skip)]
    pub gyration_mm2: f64,
    #[serde(skip)]
    pub support: Vec<DVec2>,
    /// The points that carry the robot at the meant attitude.
    pub standing_on: Vec<String>,
    /// Where it came to rest on a paw in its swing (see [`Swing`]).
    #[serde(skip)]
    pub swing: Option<Swing>,
    /// The turn from the carried attitude to the meant one: where the robot stands on
    /// what it is meant to (the meant attitude is this times the carried one).
    #[serde(skip)]
    pub meant: DQuat,
    /// Where the floor is at the meant attitude, mm (the support polygon lies on it).
    #[serde(skip)]
    pub floor_mm: f64,
    /// How the frame's nearest standard posture rests.
    #[serde(skip)]
    pub posture: Resting,
    /// The kinds of part it comes to rest on.
    #[serde(skip)]
    pub resting_parts: Vec<Part>,
}

/// A trot's or a pace's support: two paws, one front and one hind, from which the static
/// test turned the robot down onto a third paw, one the motion has in the air (a swing).
/// The static test rests the frame there; the motion means the two. Told by the contact
/// band alone ([`CONTACT_MM`]), so a crawl has such frames too, where a paw meant down
/// stands a few millimetres above the band (mass__walk on the ERS-7: 184 frames, 164 of
/// them from one side's pair; the paw turned onto 5–10 mm up, the stepping paw on about
/// half of them). So the planted paws that `preview` and `plot` draw
/// ([`Stance::stands_on_paw`]) do not read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Swing {
    /// The two paws.
    pub standing_on: Vec<String>,
    /// The turn from the carried attitude to where they carry the robot.
    pub turn: DQuat,
}

impl Stance {
    /// Whether the paw `prefix` (`lf`, `rf`, `lh`, `rh`) is among what it is meant to
    /// stand on.
    pub fn stands_on_paw(&self, prefix: &str) -> bool {
        self.standing_on
            .iter()
            .any(|n| n.strip_suffix(" paw") == Some(prefix))
    }

    pub fn verdict(&self, required_mm: f64) -> Verdict {
        if self.tips || self.margin_mm < 0.0 {
            Verdict::Unstable
        } else if self.margin_mm < required_mm {
            Verdict::Marginal
        } else {
            Verdict::Stable
        }
    }
}

/// How a frame stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The centre of mass is at least the required margin inside the support.
    Stable,
    /// Inside the support, but nearer its edge than the required margin.
    Marginal,
    /// It tips.
    Unstable,
}

/// A stretch of frames that are not statically stable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    pub start_ms: u64,
    pub end_ms: u64,
    /// The worst frame's: unstable where any frame tips, marginal otherwise.
    pub verdict: Verdict,
    pub worst_margin_mm: f64,
    /// Which way it goes at the worst frame.
    pub direction: Option<Direction>,
    /// Every frame of it that tips does so from a trot's or pace's two paws: a walk.
    pub dynamic: bool,
    /// What it would rest on at the worst frame.
    pub resting_on: Vec<String>,
    /// It runs to the motion's end, tipping in the last frame, whose pose the robot then
    /// holds (Sony's player and the bridge both do): it tips however short it looks.
    pub held: bool,
    /// The most the robot turns on its edge, from the span's start until it is back on
    /// its support, pivoting from rest as `rocking` models it, degrees.
    pub rock_deg: f64,
}

impl Span {
    pub fn duration_ms(&self) -> u64 {
        self.end_ms - self.start_ms
    }

    /// A span that fails the check: it tips, not as a walk does, for longer than
    /// [`SPAN_FAULT_MS`] and further than it rocks back, or in the last pose, which the
    /// robot holds.
    pub fn fault(&self) -> bool {
        self.verdict == Verdict::Unstable && (self.held || self.long() && self.rock_deg > ROCK_DEG)
    }

    /// Unstable for longer than [`SPAN_FAULT_MS`], yet the robot turns at most
    /// [`ROCK_DEG`] on its edge and comes back onto its support: it rocks, no fault.
    pub fn rocks(&self) -> bool {
        self.verdict == Verdict::Unstable && !self.held && self.long() && self.rock_deg <= ROCK_DEG
    }

    /// Unstable for longer than [`SPAN_FAULT_MS`], not as a walk is.
    fn long(&self) -> bool {
        !self.dynamic && self.duration_ms() > SPAN_FAULT_MS
    }
}

/// The static test of a whole motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub required_margin_mm: f64,
    pub frames: u64,
    pub unstable_frames: u64,
    pub marginal_frames: u64,
    /// Unstable frames that tip from two paws, as a walk does.
    pub dynamic_frames: u64,
    /// The lowest margin of any frame, mm.
    pub least_margin_mm: f64,
    pub spans: Vec<Span>,
    /// The mass model's figures are estimates.
    pub uncertain_masses: bool,
}

impl Report {
    pub fn faults(&self) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(|s| s.fault())
    }

    /// One line: how the motion stands.
    pub fn summary(&self) -> String {
        let count = |f: &dyn Fn(&Span) -> bool| self.spans.iter().filter(|s| f(s)).count();
        let faults = count(&|s| s.fault());
        let tipping = count(&|s| s.verdict == Verdict::Unstable && (!s.dynamic || s.held));
        let dynamic = count(&|s| s.verdict == Verdict::Unstable && s.dynamic && !s.held);
        let marginal = count(&|s| s.verdict == Verdict::Marginal);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut parts = Vec::new();
        if tipping > 0 {
            let rocking: Vec<f64> = self
                .spans
                .iter()
                .filter(|s| s.rocks())
                .map(|s| s.rock_deg)
                .collect();
            let rocks = match rocking.len() {
                0 => String::new(),
                n => format!(
                    "; {n} longer that rock{}, turning at most {:.0}° on {} edge",
                    if n == 1 { "s" } else { "" },
                    rocking.iter().fold(0.0, |a: f64, &b| a.max(b)),
                    if n == 1 { "its" } else { "their" }
                ),
            };
            let tip = if rocking.is_empty() { "" } else { " that tip" };
            parts.push(format!(
                "{tipping} unstable span{} ({faults} longer than {SPAN_FAULT_MS} ms{tip}{}{rocks})",
                plural(tipping),
                if self.spans.iter().any(|s| s.held) {
                    " or held at the end"
                } else {
                    ""
                }
            ));
        }
        if dynamic > 0 {
            parts.push(format!(
                "{dynamic} dynamic span{} (two paws down, as a trot or pace)",
                plural(dynamic)
            ));
        }
        if marginal > 0 {
            parts.push(format!(
                "{marginal} marginal span{} (inside the support, by less than {:.0} mm)",
                plural(marginal),
                self.required_margin_mm
            ));
        }
        let mut line = if parts.is_empty() {
            format!(
                "statically stable throughout: the centre of mass stays at least {:.0} mm inside the support",
                self.least_margin_mm
            )
        } else {
            format!(
                "{}; least margin {:.0} mm",
                parts.join(", "),
                self.least_margin_mm
            )
        };
        if self.uncertain_masses {
            line.push_str(" (masses estimated)");
        }
        line
    }
}

/// Each dense frame's stance, in order (8 ms apart).
pub fn stances(motion: &Motion, profile: &Profile) -> Result<Vec<Stance>, BalanceError> {
    let count = testable_frames(motion)?;
    stances_at(motion, profile, 0..count)
}

/// The stances of the dense frames `indices` only (a long motion's samples, for pictures).
pub fn stances_at(
    motion: &Motion,
    profile: &Profile,
    indices: impl IntoIterator<Item = u64>,
) -> Result<Vec<Stance>, BalanceError> {
    let body = Body::of(profile)?;
    let columns = Columns::of(motion, profile);
    let mut frames = mtn::dense_frames(motion).peekable();
    let mut out = Vec::new();
    let mut at = 0u64;
    for index in indices {
        // In order, the iterator is cheapest; out of order (or far apart), look it up.
        let frame = if index >= at && index - at < 64 {
            let mut f = None;
            while at <= index {
                f = frames.next();
                at += 1;
            }
            f
        } else {
            frames = mtn::dense_frames(motion).peekable();
            at = 0;
            mtn::dense_frame_at(motion, index)
        };
        let Some(f) = frame else { break };
        out.push(body.stance(&columns.angles(profile, &f), attitude(&f)));
    }
    Ok(out)
}

/// The static test of `motion` on `profile`, requiring `required_mm` of margin.
pub fn check(motion: &Motion, profile: &Profile, required_mm: f64) -> Result<Report, BalanceError> {
    let all = stances(motion, profile)?;
    Ok(report(&all, profile, required_mm))
}

/// The static test's report from every dense frame's stance (as [`stances`] gives them),
/// requiring `required_mm` of margin.
pub fn report(all: &[Stance], profile: &Profile, required_mm: f64) -> Report {
    let verdicts: Vec<Verdict> = all.iter().map(|s| s.verdict(required_mm)).collect();
    let turned = rocking(all);
    let mut spans: Vec<Span> = Vec::new();
    let mut first = 0;
    while first < all.len() {
        if verdicts[first] == Verdict::Stable {
            first += 1;
            continue;
        }
        let end = (first..all.len())
            .find(|&i| verdicts[i] == Verdict::Stable)
            .unwrap_or(all.len());
        let frames = first..end;
        let worst = frames
            .clone()
            .min_by(|&a, &b| all[a].margin_mm.total_cmp(&all[b].margin_mm))
            .unwrap_or(first);
        let verdict = frames
            .clone()
            .map(|i| verdicts[i])
            .max()
            .unwrap_or(Verdict::Marginal);
        let tipping: Vec<usize> = frames
            .clone()
            .filter(|&i| verdicts[i] == Verdict::Unstable)
            .collect();
        // The rock runs on past the span until the robot is back on its support.
        let rocked = (first..all.len())
            .take_while(|&i| i < end || turned[i] > 0.0)
            .map(|i| turned[i])
            .fold(0.0, f64::max);
        spans.push(Span {
            start_ms: first as u64 * DENSE_FRAME_MS,
            end_ms: end as u64 * DENSE_FRAME_MS,
            verdict,
            worst_margin_mm: all[worst].margin_mm,
            direction: all[worst].direction,
            dynamic: !tipping.is_empty() && tipping.iter().all(|&i| all[i].dynamic),
            resting_on: all[worst].resting_on.clone(),
            held: end == all.len() && verdicts[end - 1] == Verdict::Unstable,
            rock_deg: rocked.to_degrees(),
        });
        first = end;
    }
    let count = |v: Verdict| verdicts.iter().filter(|&&x| x == v).count() as u64;
    Report {
        required_margin_mm: required_mm,
        frames: all.len() as u64,
        unstable_frames: count(Verdict::Unstable),
        marginal_frames: count(Verdict::Marginal),
        dynamic_frames: all
            .iter()
            .zip(&verdicts)
            .filter(|(s, v)| **v == Verdict::Unstable && s.dynamic)
            .count() as u64,
        least_margin_mm: all
            .iter()
            .map(|s| s.margin_mm)
            .fold(f64::INFINITY, f64::min),
        spans,
        uncertain_masses: profile.mass.as_ref().is_some_and(|m| m.uncertain),
    }
}

/// How far the robot has turned on the edge it tips over at each frame, radians: a rigid
/// body pivoting from rest on that edge, I θ'' = m g (e + h θ), with its inertia about
/// the edge from the mass model's point masses, while the motion carries the centre of
/// mass out past it (e, the frame's negative margin, at height h) and back (a positive
/// margin, the distance to the nearest edge, pulls it down again no harder than the edge
/// it went over would); back on its support, it rests. What it leaves out: the joints'
/// own swing (their momentum), the paws sliding, and a robot still moving from a rock
/// before, which it starts again from rest.
fn rocking(all: &[Stance]) -> Vec<f64> {
    const G_MM_S2: f64 = 9810.0;
    const SUBSTEPS: u32 = 8;
    let dt = DENSE_FRAME_MS as f64 / 1000.0 / f64::from(SUBSTEPS);
    let (mut angle, mut rate) = (0.0f64, 0.0f64);
    // Coming back, it turns about the edge it went over: that edge's inertia.
    let mut pivoting = 0.0f64;
    all.iter()
        .map(|s| {
            // Nothing meant to stand on (the head down where the motion puts it): over at
            // once. Once over, the span that took it there is judged; the model starts
            // again from the next frame that stands.
            if !s.margin_mm.is_finite() {
                (angle, rate) = (ROCK_LIMIT_RAD, 0.0);
                return angle;
            }
            if angle >= ROCK_LIMIT_RAD {
                if s.margin_mm < 0.0 {
                    return angle;
                }
                (angle, rate) = (0.0, 0.0);
            }
            // On its support with the weight inside: at rest, nothing to follow (most
            // frames of most motions).
            if angle <= 0.0 && s.margin_mm >= 0.0 {
                return 0.0;
            }
            let out = -s.margin_mm;
            let height = s.com_height_mm.max(1.0);
            if s.margin_mm < 0.0 {
                pivoting = s.gyration_mm2;
            }
            let gyration = pivoting.max(height * height + out * out);
            for _ in 0..SUBSTEPS {
                let pull = G_MM_S2 * (out + height * angle) / gyration;
                if angle <= 0.0 && pull <= 0.0 {
                    (angle, rate) = (0.0, 0.0);
                    continue;
                }
                angle += (rate + 0.5 * pull * dt) * dt;
                rate += pull * dt;
                if angle <= 0.0 {
                    (angle, rate) = (0.0, 0.0);
                }
            }
            angle = angle.min(ROCK_LIMIT_RAD);
            angle
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paws_level_stands_a_pose_on_its_paws_and_not_on_a_raised_pair() {
        for model in ["ERS-7", "ERS-210"] {
            let profile = Profile::builtin(model).unwrap();
            let body = Body::of(&profile).unwrap();
            let joint = |name: &str| profile.joint_index(name).unwrap();
            // Posed at the attitude it gives, three or four paws are level and none is
            // below them.
            let stands = |angles: &[f64], what: &str| {
                let attitude = body.paws_level(angles).unwrap_or_else(|| panic!("{what}"));
                let pose = body.skeleton.pose(angles, attitude);
                let z: Vec<f64> = body
                    .contacts
                    .iter()
                    .filter(|c| c.part == Part::Paw)
                    .map(|c| c.centre(&pose).z)
                    .collect();
                let floor = z.iter().copied().fold(f64::INFINITY, f64::min);
                let down = z.iter().filter(|z| *z - floor < LEVEL_PAWS_MM).count();
                assert!(down >= 3, "{what} {attitude:?} {z:?}");
                (attitude, z.iter().map(|z| z - floor).collect::<Vec<_>>())
            };
            for name in ["stand", "sit"] {
                stands(&profile.postures[name].joints, &format!("{model} {name}"));
            }
            // One paw swung up from the stand: the other three, level.
            let mut one = profile.postures["stand"].joints.clone();
            one[joint("rf_j1")] += 1.2;
            let (attitude, up) = stands(&one, &format!("{model} rf raised"));
            assert!(up[1] > LEVEL_PAWS_MM, "{model} {up:?}");
            assert!(attitude[1].abs().max(attitude[0].abs()) < RAISED_PAW_DEG.to_radians());
            // Both front paws up: no telling which paws the pose stands on.
            let mut both = one.clone();
            both[joint("lf_j1")] += 1.2;
            assert_eq!(body.paws_level(&both), None, "{model}");
        }
        // The ERS-7's sit: its body pitched up, as Sony's sit motions carry it (28°).
        let profile = Profile::builtin("ERS-7").unwrap();
        let body = Body::of(&profile).unwrap();
        let pitch = body.paws_level(&profile.postures["sit"].joints).unwrap()[1].to_degrees();
        assert!((20.0..45.0).contains(&pitch), "{pitch}");
    }

    #[test]
    fn a_point_turned_about_a_floor_line_touches_where_trigonometry_says() {
        // A point 100 mm ahead of the line and 100 mm up, turned forward about y (which
        // lowers what is ahead): it reaches the floor at 45 degrees; a ball of radius
        // 10 mm around it touches earlier, when its centre is 10 mm up.
        let v = DVec3::new(100.0, 0.0, 100.0);
        let axis = DVec3::Y;
        let t = first_touch(v, axis, 0.0).unwrap();
        assert!((t.to_degrees() - 45.0).abs() < 1e-9, "{}", t.to_degrees());
        let t = first_touch(v, axis, 10.0).unwrap();
        let centre = DQuat::from_axis_angle(axis, t) * v;
        assert!((centre.z - 10.0).abs() < 1e-9, "{centre}");
        // A point behind the line rises first and comes down only past the top.
        let t = first_touch(DVec3::new(-100.0, 0.0, 10.0), axis, 0.0).unwrap();
        assert!(t.to_degrees() > 90.0);
        // Too near the axis to reach the floor: never.
        assert_eq!(first_touch(DVec3::new(0.0, 0.0, 5.0), axis, 10.0), None);
    }

    /// A frame whose centre of mass is `margin_mm` inside its support (outside where
    /// negative), 100 mm up, with 20 000 mm² of inertia per kg about the edge.
    fn at_margin(margin_mm: f64) -> Stance {
        Stance {
            tips: margin_mm < 0.0,
            margin_mm,
            tilt_deg: 0.0,
            direction: None,
            resting_on: Vec::new(),
            onto: None,
            dynamic: false,
            com: DVec2::ZERO,
            com_height_mm: 100.0,
            gyration_mm2: 20_000.0,
            support: Vec::new(),
            standing_on: Vec::new(),
            swing: None,
            meant: DQuat::IDENTITY,
            floor_mm: 0.0,
            posture: Resting {
                pitch: 0.0,
                rests: super::super::body::Parts::PAWS,
            },
            resting_parts: Vec::new(),
        }
    }

    #[test]
    fn the_rock_turns_as_a_body_pivoting_on_its_edge_and_comes_back_with_its_weight() {
        // Held 5 mm out, a body pivoting on its edge turns as θ'' = g (e + h θ) / k²:
        // θ(t) = (e / h) (cosh ωt − 1), ω² = g h / k².
        let (e, h, k2): (f64, f64, f64) = (5.0, 100.0, 20_000.0);
        let omega = (9810.0 * h / k2).sqrt();
        let frames: Vec<Stance> = (0..10).map(|_| at_margin(-e)).collect();
        let turned = rocking(&frames);
        for (i, angle) in turned.iter().enumerate() {
            let t = (i + 1) as f64 * DENSE_FRAME_MS as f64 / 1000.0;
            let expected = e / h * ((omega * t).cosh() - 1.0);
            assert!(
                (angle - expected).abs() <= 0.02 * expected,
                "{t} s: {angle} rad, {expected} rad expected"
            );
        }
        // Inside its support from the start, it never turns.
        assert!(rocking(&vec![at_margin(5.0); 10]).iter().all(|&a| a == 0.0));

        // 120 ms 5 mm out, then the weight 30 mm back in: it rocks and comes down.
        let profile = Profile::builtin("ERS-7").unwrap();
        let mut rock: Vec<Stance> = vec![at_margin(40.0); 10];
        rock.extend(vec![at_margin(-5.0); 15]);
        rock.extend(vec![at_margin(30.0); 40]);
        let report = report(&rock, &profile, DEFAULT_MARGIN_MM);
        let span = &report.spans[0];
        assert_eq!((span.start_ms, span.end_ms), (80, 200));
        assert!(span.rocks() && !span.fault(), "{span:?}");
        assert!((0.1..ROCK_DEG).contains(&span.rock_deg), "{span:?}");
        assert!(
            report.summary().contains("1 longer that rocks"),
            "{}",
            report.summary()
        );

        // 400 ms 20 mm out: it goes over before the weight comes back.
        let mut over: Vec<Stance> = vec![at_margin(40.0); 10];
        over.extend(vec![at_margin(-20.0); 50]);
        over.extend(vec![at_margin(30.0); 40]);
        let report = super::report(&over, &profile, DEFAULT_MARGIN_MM);
        let span = &report.spans[0];
        assert!(span.fault() && !span.rocks(), "{span:?}");
        assert_eq!(span.rock_deg, 90.0);
    }

    #[test]
    fn the_inertia_about_the_edge_is_the_parallel_axis_theorem_s() {
        // Both front legs raised from the stand: the robot tips forward over the line of
        // its hind paws. The inertia per kg about that line is that about the parallel
        // line through the centre of mass plus the squared distance between the two.
        for model in ["ERS-7", "ERS-210", "ERS-220"] {
            let profile = Profile::builtin(model).unwrap();
            let body = Body::of(&profile).unwrap();
            let joint = |name: &str| profile.joint_index(name).unwrap();
            let mut joints = profile.postures["stand"].joints.clone();
            for (name, deg) in [
                ("lf_j1", 130.0),
                ("rf_j1", 130.0),
                ("lf_j3", 0.0),
                ("rf_j3", 0.0),
            ] {
                joints[joint(name)] = f64::to_radians(deg);
            }
            let stance = body.stance(&joints, [0.0; 3]);
            assert!(stance.tips && stance.margin_mm < 0.0, "{model}: {stance:?}");
            let hull = &stance.support;
            assert_eq!(hull.len(), 2, "{model}: {:?}", stance.standing_on);
            let along = (hull[1] - hull[0]).normalize().extend(0.0);
            let pose = body.skeleton.pose(&joints, [0.0; 3]);
            let placed: Vec<(f64, DVec3)> = body
                .placed_masses(&pose)
                .map(|(kg, p)| (kg / body.total_kg, stance.meant * p))
                .collect();
            let com: DVec3 = placed.iter().map(|(w, p)| *p * *w).sum();
            let across = |r: DVec3| r.length_squared() - r.dot(along).powi(2);
            let about_com: f64 = placed.iter().map(|(w, p)| w * across(*p - com)).sum();
            let between = across(com - hull[0].extend(stance.floor_mm));
            let expected = about_com + between;
            assert!(
                (stance.gyration_mm2 - expected).abs() < 1e-6 * expected,
                "{model}: {} mm², {expected} mm² expected",
                stance.gyration_mm2
            );
            // And the distance between the lines is the margin and the height.
            let d2 = stance.margin_mm.powi(2) + stance.com_height_mm.powi(2);
            assert!((between - d2).abs() < 1e-6 * d2, "{model}: {between} {d2}");
        }
    }
}
