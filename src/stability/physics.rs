//! `simulate`: the robot as rigid bodies on a floor, for the cases the static test
//! (`statics`) cannot judge: speed, momentum, slipping. The engine is rapier3d.
//!
//! The robot is the profile's skeleton: the body, the head chain and each leg's three
//! segments are rigid bodies, with the `[mass]` model's masses at their centres of mass,
//! joined by revolute joints on the skeleton's axes. Each joint is a position-controlled
//! servo: it follows the motion's dense playback (8 ms frames, one world step of 16
//! solver substeps each) no faster than the profile's speed for it, with a torque limit
//! of [`SERVO_TORQUE_NM`]. The ears, mouth and tail ride on their parents. The floor is
//! flat, with rubber-on-wood friction under the paws.
//!
//! A **fall** is judged against the attitude the motion means, as the static test
//! (`statics`) defines it for every frame: where the robot stands on what it is meant to
//! (its paws, and the rump, belly or elbows where its posture rests there; where the
//! static test rests a trot's frame on a swinging paw, also where the two paws that carry
//! it stand, whichever the body is nearer: [`Meant::upright_nearest`]). It falls when
//! the body tips more than [`FALL_TILT_DEG`] from that attitude, when the head strikes
//! the floor, or when it leans more than [`LEAN_DEG`] from it onto a part its posture does
//! not rest on: an elbow or knee, the chest, a flank, or the rump or belly of a robot
//! that is standing. Such a part that carries the robot, as the static test has it, must
//! also be within [`LEAN_DEG`] of the attitude the motion carries. [`Robot::fall`] is
//! that rule; `simulate` and `aibo-joint-server --physics` both use it.

use glam::{DQuat, DVec2, DVec3};
use rapier3d::prelude::*;
use serde::Serialize;

use super::body::{self, Body, Resting};
use super::slip;
use super::statics::{self, LEAN_DEG};
use super::support::Direction;
use super::{BalanceError, Columns};
use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::geometry::HullPart;
use crate::robot::profile::Profile;
use crate::robot::skeleton::Skeleton;

/// The servos' torque limit, N·m: the `maxTorque` of every leg and tail motor in Webots'
/// AiboErs7.proto (cyberbotics/webots), the one published model of the robot's servos.
pub const SERVO_TORQUE_NM: f64 = 5.4542;

/// Tipping further than this from the intended attitude is a fall, degrees.
pub const FALL_TILT_DEG: f64 = 45.0;

/// A part the floor pushes on with more than this share of the robot's weight carries it;
/// less, it grazes the floor (a contact the solver keeps a hair away carries nothing).
const CARRIES_SHARE: f64 = 0.02;

/// The floor's pull, m/s²: the world's gravity, and what a robot's weight is.
const GRAVITY_M_S2: f64 = 9.81;

/// The solver's substeps per 8 ms frame (0.5 ms each). One world step per frame with
/// its own substeps finds the contacts once per frame rather than at every substep: the
/// same verdict on every Sony sample and on every shared take built for every model with
/// and without the balance stage (194 motions, both torques) as four steps of four
/// substeps, 1.36× faster (`cargo bench --bench simulate`). Fewer substeps are not faithful: at 12 the Bandai dance tilts
/// 8° instead of 4°, and at 8 it falls. Eight substeps of two iterations each (rapier
/// rebuilds every joint's rows once per substep, over half the simulation's time) ran the
/// shared builds and Sony's motions 1.43× faster, but lost the fall that this solver and
/// the fine one both see in the one-arm wave built `--balance off` for the ERS-210 and
/// ERS-220, and felled the default ERS-210 build of test_freebvh at 1.5 s. Eight of
/// three and six of four (1.4–1.5× faster) kept the wave's fall but felled that build
/// too, which the fine solver keeps up (2026-12-02). What else was tried then, for the
/// speed of fewer substeps: servo armature (1–3·10⁻⁴ kg·m² more about each joint's axis)
/// did not let eight substeps hold the legs (cmu_01_03 and lambada sank onto their
/// elbows); rapier's reduced-coordinate multibody joints took 7× as long a substep;
/// and its SIMD joint path is no help, as it batches only colours of 64 joints or more
/// and (in 3D) no joint with a motor, so these fifteen servos always run one at a time.
/// Nor does warm-starting the joints (`warmstart_joints`): of 280 runs (the 120 shared
/// builds with and without the stage and Sony's motions, both torques), it changed no
/// verdict at 16 substeps but ran 6% slower, and changed 6, 26 and 90 verdicts at 12,
/// 10 and 8 substeps (cmu_01_03's walk fell at 12; without it, 88 at 8), 2026-12-02.
const SOLVER_SUBSTEPS: usize = 16;

/// How finely the solver resolves each 8 ms frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Solver {
    /// `SOLVER_SUBSTEPS` substeps of one iteration: what `build` steers its walks by
    /// and proves its motions on, and what the judges use.
    #[default]
    Standard,
    /// 64 substeps of two iterations, about four times slower (`simulate --fine`): a
    /// second opinion on a walk's path, which `build` steered on the standard solver's
    /// floor. The two agreed on every verdict compared (the shared walking takes' builds,
    /// the README example, Sony's ERS-7 motions) and roughly on a crawl's path; a trot's
    /// turn over tens of seconds they do not pin down, nor do finer solvers still (see
    /// docs/balance.md).
    Fine,
}

impl Solver {
    /// Substeps per frame, and iterations per substep.
    fn steps(self) -> (usize, usize) {
        match self {
            Solver::Standard => (SOLVER_SUBSTEPS, 1),
            Solver::Fine => (64, 2),
        }
    }
}

/// The servo's position loop: N·m per radian of error, and N·m·s per rad/s. Stiff enough
/// to hold the robot's weight within about a degree, damped to settle without ringing.
const STIFFNESS: f32 = 30.0;
const DAMPING: f32 = 0.3;

/// Friction of the paws' rubber and of the body's plastic on the floor.
const PAW_FRICTION: f32 = 0.9;
const BODY_FRICTION: f32 = 0.5;

/// A paw whose rubber slides further than this over one stay down has slipped, mm.
pub const SLIP_MM: f64 = 10.0;

/// A paw off the floor for longer than this has ended its stay down, ms.
const STAY_GAP_MS: u64 = 40;

/// How long the robot stands in the first frame's pose before the motion starts, s.
pub const SETTLE_S: f64 = 0.5;

/// How long the robot is watched holding the last frame's pose after the motion, ms: a
/// robot holds it (Sony's player and the bridge both do), so a motion that ends on its
/// way over falls all the same.
pub const HOLD_AFTER_MS: u64 = 500;

/// A paw's stay down in the simulation: how far its rubber has slid (mm, x and y), and
/// how far and how long (ms) it has moved since it last felt the floor.
#[derive(Debug, Clone, Copy, Default)]
struct Stay {
    slid: DVec2,
    off_floor: DVec2,
    off_ms: u64,
}

/// How it went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub duration_ms: u64,
    pub torque_limit_nm: f64,
    /// When and how it fell; `None` when it stayed up.
    pub fall: Option<Fall>,
    /// Paws that slid while down, and how far at most, mm.
    pub slipped: Vec<Slip>,
    /// Where a paw slid over [`SLIP_MM`]: the two paws down together whose rubber's spots
    /// the joint angles alone draw furthest apart or together, of which one must slide at
    /// least half that on any floor (a bound with no physics and no fit: [`slip`]).
    pub least_slip: Option<slip::PairDemand>,
    /// The body's centre every 100 ms (mm, from where it started) and its tilt from the
    /// intended attitude (degrees).
    pub path: Vec<PathPoint>,
    /// The mass model's figures are estimates.
    pub uncertain_masses: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fall {
    pub at_ms: u64,
    pub tilt_deg: f64,
    pub direction: Option<Direction>,
    /// The head struck the floor.
    pub head_struck: bool,
    /// What it went over onto: `head`, `chest`, `flank`, `elbow or knee`, `rump`,
    /// `belly`, or `body` (tipped past 45°).
    pub onto: String,
}

impl Fall {
    /// The fall [`FallWatch`] found (`fallen`, since `since` ms), the body turned by
    /// `rotation` where the motion meant it upright along `meant_up`.
    fn of(rotation: DQuat, meant_up: DVec3, since: u64, fallen: Fallen) -> Fall {
        // Which way, in the body's own heading: toward what struck, or the lean.
        let up = rotation * DVec3::Z;
        let heading = rotation * DVec3::X;
        let unyaw = DQuat::from_axis_angle(DVec3::Z, -heading.y.atan2(heading.x));
        let lean = (unyaw * (up - meant_up)).truncate();
        let direction = match fallen.onto {
            Some(body::Part::Head) | Some(body::Part::Body(HullPart::Chest)) => {
                Some(Direction::Forward)
            }
            _ => (lean.length() > 1e-6).then(|| Direction::of(lean)),
        };
        Fall {
            at_ms: since,
            tilt_deg: fallen.tilt_deg,
            direction,
            head_struck: fallen.onto == Some(body::Part::Head),
            onto: fallen.onto_word().to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slip {
    pub paw: String,
    /// The most its rubber slid over the floor in one stay down, mm.
    pub max_mm: f64,
    /// The most the motion's own geometry makes it slide in one stay down, with no
    /// physics ([`slip::demanded`]), mm.
    pub demanded_mm: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathPoint {
    pub t_ms: u64,
    pub x_mm: f64,
    pub y_mm: f64,
    pub z_mm: f64,
    pub tilt_deg: f64,
    /// Where the body heads, degrees turned left since the start (unwrapped: two turns
    /// round are 720°).
    pub heading_deg: f64,
}

impl Report {
    pub fn summary(&self) -> String {
        let mut line = match &self.fall {
            Some(f) => format!(
                "falls at {:.2} s{}: {}{}",
                f.at_ms as f64 / 1000.0,
                if f.at_ms + DENSE_FRAME_MS > self.duration_ms {
                    " (after the motion, holding its last pose)"
                } else {
                    ""
                },
                match f.onto.as_str() {
                    "body" => format!("tipped {:.0}° from its intended attitude", f.tilt_deg),
                    part => format!(
                        "over onto its {part}, {:.0}° from its intended attitude",
                        f.tilt_deg
                    ),
                },
                f.direction
                    .map_or(String::new(), |d| format!(", {}", d.words()))
            ),
            None => {
                let worst = self.path.iter().map(|p| p.tilt_deg).fold(0.0, f64::max);
                format!("stays up: at most {worst:.0}° from its intended attitude")
            }
        };
        if !self.slipped.is_empty() {
            let paws: Vec<String> = self
                .slipped
                .iter()
                .map(|s| format!("{} {:.0} mm", s.paw, s.max_mm))
                .collect();
            let demanded: Vec<String> = self
                .slipped
                .iter()
                .map(|s| format!("{:.0}", s.demanded_mm))
                .collect();
            line.push_str(&format!(
                "; slipped: {} (its joint angles alone demand {} mm",
                paws.join(", "),
                demanded.join(", ")
            ));
            if let Some(pair) = &self.least_slip {
                line.push_str(&format!(
                    "; the distance between the {} and the {} changes by {:.0} mm while \
                     both are down: one of them slides at least {:.0} mm on any floor",
                    pair.paws[0],
                    pair.paws[1],
                    pair.change_mm,
                    pair.least_mm()
                ));
            }
            line.push(')');
        }
        if self.uncertain_masses {
            line.push_str(" (masses estimated)");
        }
        line
    }
}

/// Bones that move on their own in the simulation: the head chain and the legs. Every
/// other bone rides on its nearest such ancestor.
fn articulated(name: &str) -> bool {
    matches!(name, "head_tilt" | "head_pan" | "head_nod" | "head_roll")
        || ["_j1", "_j2", "_j3"].iter().any(|s| name.ends_with(s))
}

fn v3(v: DVec3) -> Vector {
    Vector::new(v.x as f32, v.y as f32, v.z as f32)
}

fn d3(v: Vector) -> DVec3 {
    DVec3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z))
}

fn quat(q: DQuat) -> Rotation {
    Rotation::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
}

fn dquat(q: &Rotation) -> DQuat {
    DQuat::from_xyzw(
        f64::from(q.x),
        f64::from(q.y),
        f64::from(q.z),
        f64::from(q.w),
    )
    .normalize()
}

/// One rigid body of the robot.
struct Part {
    bone: usize,
    handle: RigidBodyHandle,
    /// The joint that moves it (none for the body), with its profile joint.
    joint: Option<(ImpulseJointHandle, usize)>,
}

/// The robot in its world, one 8 ms frame at a time: what `simulate` plays a motion on,
/// and what `aibo-joint-server --physics` feeds the bridge's output to.
pub struct Robot {
    world: PhysicsWorld,
    floor: ColliderHandle,
    skeleton: Skeleton,
    /// The bone whose rigid body carries each bone.
    owner: Vec<usize>,
    /// `parts[0]` is the body.
    parts: Vec<Part>,
    /// The static test's view of the robot, to find the attitude a pose means.
    statics: Body,
    /// Every collider that can touch the floor but the paws, with what it is.
    parts_touching: Vec<(body::Part, ColliderHandle)>,
    paws: Vec<(String, ColliderHandle)>,
    /// Each joint's largest step in one physics step, rad.
    max_step: Vec<f64>,
    command: Vec<f64>,
    /// Where the body started, m.
    origin: DVec3,
}

/// Falls as they happen, frame by frame: the head striking or a tip past
/// [`FALL_TILT_DEG`] counts at once; leaning onto a part the posture does not rest on
/// counts once it has lasted longer than the static test's faults
/// ([`statics::SPAN_FAULT_MS`]), as a frame whose meant attitude flickers between two
/// supports is no fall.
#[derive(Debug, Clone, Default)]
pub struct FallWatch {
    /// Since when (ms) the robot has leant onto a part, and the first such finding.
    leaning: Option<(u64, Fallen)>,
}

impl FallWatch {
    /// What [`Robot::fall`] found at `t_ms`; a fall, with when it began, once it counts.
    pub fn observe(&mut self, t_ms: u64, found: Option<Fallen>) -> Option<(u64, Fallen)> {
        let Some(found) = found else {
            self.leaning = None;
            return None;
        };
        let at_once = matches!(found.onto, None | Some(body::Part::Head));
        if at_once {
            return Some((t_ms, found));
        }
        let (since, first) = *self.leaning.get_or_insert((t_ms, found));
        (t_ms - since > statics::SPAN_FAULT_MS).then_some((since, first))
    }
}

/// What a frame means, for [`Robot::fall`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meant {
    /// Where it stands on what it is meant to (the static test's meant attitude).
    pub attitude: DQuat,
    /// Where the static test rests the frame on a paw in its swing ([`statics::Swing`]):
    /// where the two paws that carry it stand.
    pub trot: Option<DQuat>,
    /// The attitude the motion carries.
    pub carried: DQuat,
    /// How its nearest standard posture rests.
    pub posture: Resting,
}

impl Meant {
    /// What a frame carrying the attitude `carried` means, the static test having found
    /// `stance` for it: where it stands on what it is meant to.
    pub fn of(stance: &statics::Stance, carried: DQuat) -> Meant {
        Meant {
            attitude: stance.meant * carried,
            trot: stance.swing.as_ref().map(|s| s.turn * carried),
            carried,
            posture: stance.posture,
        }
    }

    /// Which way is up for the body, meant upright, of the attitudes the frame means the
    /// one nearest `up`. The static test cannot rest a trot's frame on the two paws that
    /// carry it, and turns it onto a swinging paw (up to 11° on the shared builds); a
    /// trotting body stays near the pair (cmu_01_03 on the ERS-7: at most 14° from it, 23°
    /// from the rest), and a slow dance on diagonal pairs near the rest (Sony's
    /// twistdance1: 4° from it, 20° from the pair).
    pub fn upright_nearest(&self, up: DVec3) -> DVec3 {
        let rest = self.attitude * DVec3::Z;
        match self.trot.map(|t| t * DVec3::Z) {
            Some(pair) if up.angle_between(pair) < up.angle_between(rest) => pair,
            _ => rest,
        }
    }
}

/// What [`Robot::fall`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fallen {
    /// The part it went over onto (none: it tipped past [`FALL_TILT_DEG`]).
    pub onto: Option<body::Part>,
    pub tilt_deg: f64,
}

impl Fallen {
    /// `head`, `chest`, `elbow or knee`, …, or `body` when it tipped past the limit.
    pub fn onto_word(&self) -> &'static str {
        self.onto.map_or("body", body::Part::word)
    }
}

impl Robot {
    /// `profile`'s robot standing on the floor with its joints at `angles` (radians,
    /// profile order) and its body turned by `attitude`; `torque_nm` limits every servo.
    pub fn new(
        profile: &Profile,
        angles: &[f64],
        attitude: DQuat,
        torque_nm: f64,
    ) -> Result<Robot, BalanceError> {
        Robot::solved(profile, angles, attitude, torque_nm, Solver::Standard)
    }

    /// [`Robot::new`], its world stepped by `solver`.
    pub fn solved(
        profile: &Profile,
        angles: &[f64],
        attitude: DQuat,
        torque_nm: f64,
        solver: Solver,
    ) -> Result<Robot, BalanceError> {
        let judge = Body::of(profile)?;
        let model = profile
            .mass
            .as_ref()
            .ok_or_else(|| BalanceError::NoMass(profile.model.clone()))?;
        let skeleton = judge.skeleton.clone();
        // Where every bone is: the pose, turned, its lowest point 1 mm over the floor.
        let pose = skeleton.pose(angles, [0.0; 3]);
        let (touch, _) = judge.touch_points(&pose);
        let lowest = touch
            .iter()
            .map(|(_, p)| (attitude * *p).z)
            .fold(f64::INFINITY, f64::min);
        let lift = DVec3::Z * (1.0 - lowest);
        let place = |i: usize| {
            (
                attitude * pose.positions[i] + lift,
                attitude * pose.rotations[i],
            )
        };

        let mut world = PhysicsWorld::new();
        world.gravity = Vector::new(0.0, 0.0, -GRAVITY_M_S2 as f32);
        world.integration_parameters.dt = DENSE_FRAME_MS as f32 / 1000.0;
        let (substeps, iterations) = solver.steps();
        world.integration_parameters.num_solver_iterations = substeps;
        world.integration_parameters.num_internal_pgs_iterations = iterations;
        // Rapier's position stabilisation pass makes a robot that stands still creep: the
        // stand held for 2.4 s walked 20 mm forward on all four paws with it, and stays
        // within 3 mm without it. Checked against a converged solution (8 substeps, 8
        // iterations, 8 inner iterations): the same verdict on every Sony sample and every
        // motion built from the shared takes.
        world
            .integration_parameters
            .num_internal_stabilization_iterations = 0;
        let robot =
            InteractionGroups::new(Group::GROUP_1, Group::GROUP_2, InteractionTestMode::And);
        let ground =
            InteractionGroups::new(Group::GROUP_2, Group::GROUP_1, InteractionTestMode::And);
        let (_, floor) = world.insert(
            RigidBodyBuilder::fixed().translation(Vector::new(0.0, 0.0, -0.05)),
            ColliderBuilder::cuboid(20.0, 20.0, 0.05)
                .friction(PAW_FRICTION)
                .collision_groups(ground),
        );
        let mut owner = vec![0; skeleton.bones.len()];
        for (i, b) in skeleton.bones.iter().enumerate() {
            owner[i] = if i == 0 || articulated(&b.name) {
                i
            } else {
                b.parent.map_or(0, |p| owner[p])
            };
        }
        let mut parts: Vec<Part> = Vec::new();
        let (mut parts_touching, mut paws) = (Vec::new(), Vec::new());
        for (i, bone) in skeleton.bones.iter().enumerate() {
            if owner[i] != i {
                continue;
            }
            // The masses this body carries, in its frame (riders at their rest offsets).
            let (mut kg, mut moment) = (0.0, DVec3::ZERO);
            for l in &model.links {
                let Some(b) = skeleton.bones.iter().position(|x| x.name == l.link) else {
                    continue;
                };
                if owner[b] != i {
                    continue;
                }
                let mut at = DVec3::from(l.com);
                let mut k = b;
                while k != i {
                    at += skeleton.bones[k].offset;
                    k = skeleton.bones[k].parent.unwrap_or(i);
                }
                kg += l.kg;
                moment += at * l.kg;
            }
            // A link the model gives no mass still needs some to be simulated.
            let kg = kg.max(0.005);
            let com = moment / kg;
            // Inertia of a solid about its centre: a box for the body, a rod for a limb.
            let (a, b2, c) = if i == 0 {
                (0.2, 0.09, 0.09)
            } else if bone.name.starts_with("head") {
                (0.06, 0.06, 0.06)
            } else {
                (0.03, 0.03, 0.07)
            };
            let inertia = Vector::new(
                (kg * (b2 * b2 + c * c) / 12.0) as f32,
                (kg * (a * a + c * c) / 12.0) as f32,
                (kg * (a * a + b2 * b2) / 12.0) as f32,
            );
            let (at, rot) = place(i);
            let handle = world.insert_body(
                RigidBodyBuilder::dynamic()
                    .pose(Pose::from_parts(v3(at / 1000.0), quat(rot)))
                    .additional_mass_properties(MassProperties::new(
                        v3(com / 1000.0),
                        kg as f32,
                        inertia,
                    ))
                    .can_sleep(false)
                    .build(),
            );
            // Shapes that can touch the floor, massless (the masses are above).
            // Each shape, and what it is when it touches the floor (none: the body's hull,
            // which the inset balls below tell apart).
            let mut shapes: Vec<(ColliderBuilder, Option<body::Part>)> = Vec::new();
            if i == 0 {
                // The body: the hull the static test uses, closed by a flat top.
                let mut points: Vec<Vector> = model
                    .hull
                    .iter()
                    .map(|h| v3(DVec3::from(h.at) / 1000.0))
                    .collect();
                for (x, y) in [(0.1, 0.04), (0.1, -0.04), (-0.1, 0.04), (-0.1, -0.04)] {
                    points.push(Vector::new(x, y, 0.04));
                }
                let hull = ColliderBuilder::convex_hull(&points).unwrap_or_else(|| {
                    ColliderBuilder::cuboid(0.1, 0.045, 0.0425)
                        .translation(Vector::new(0.0, 0.0, -0.0025))
                });
                shapes.push((hull, None));
                // Small balls just inside the hull at each of its points (belly, chest,
                // rump, flanks) tell which part the robot is lying on.
                for h in &model.hull {
                    let at = DVec3::from(h.at);
                    let inward = DVec3::new(at.x, at.y, at.z + 2.5).normalize_or_zero() * 6.0;
                    shapes.push((
                        ColliderBuilder::ball(0.006).translation(v3((at - inward) / 1000.0)),
                        Some(body::Part::Body(h.part)),
                    ));
                }
            } else if bone.name.starts_with("head")
                && skeleton
                    .children(i)
                    .all(|c| !articulated(&skeleton.bones[c].name))
            {
                let length = skeleton
                    .bones
                    .iter()
                    .find(|x| x.name == "nose")
                    .map_or(0.07, |n| n.offset.length() / 1000.0);
                shapes.push((
                    ColliderBuilder::ball(0.03).translation(Vector::new(
                        0.5 * length as f32,
                        0.0,
                        0.0,
                    )),
                    Some(body::Part::Head),
                ));
            } else if bone.name.ends_with("_j2") || bone.name.ends_with("_j3") {
                let end = skeleton
                    .children(i)
                    .map(|c| skeleton.bones[c].offset)
                    .find(|o| o.length() > 1.0)
                    .unwrap_or(DVec3::new(0.0, 0.0, -65.0));
                // The segment, stopping short of the paw's ball so that a paw on the floor
                // is not taken for the shin lying on it.
                let paw_end = bone.name.ends_with("_j3");
                let reach = if paw_end {
                    end * (1.0 - (model.paw_radius + 5.0) / end.length().max(1.0)).max(0.0)
                } else {
                    end
                };
                shapes.push((
                    ColliderBuilder::capsule_from_endpoints(
                        Vector::ZERO,
                        v3(reach / 1000.0),
                        0.015,
                    ),
                    Some(body::Part::Knee),
                ));
                if paw_end {
                    shapes.push((
                        ColliderBuilder::ball((model.paw_radius / 1000.0) as f32)
                            .translation(v3(end / 1000.0)),
                        Some(body::Part::Paw),
                    ));
                }
            }
            for (shape, kind) in shapes {
                let friction = if kind == Some(body::Part::Paw) {
                    PAW_FRICTION
                } else {
                    BODY_FRICTION
                };
                let c = world.colliders.insert_with_parent(
                    shape
                        .density(0.0)
                        .friction(friction)
                        .collision_groups(robot),
                    handle,
                    &mut world.bodies,
                );
                match kind {
                    Some(body::Part::Paw) => {
                        paws.push((bone.name.trim_end_matches("_j3").to_string() + " paw", c))
                    }
                    Some(part) => parts_touching.push((part, c)),
                    None => {}
                }
            }
            // The servo that turns it, from its parent's body.
            let joint = match (bone.parent, bone.axis, bone.joint) {
                (Some(p), Some(axis), Some(j)) => {
                    let parent = parts
                        .iter()
                        .find(|x| x.bone == owner[p])
                        .map_or(parts[0].handle, |x| x.handle);
                    let mut anchor = bone.offset;
                    let mut k = p;
                    while k != owner[p] {
                        anchor += skeleton.bones[k].offset;
                        k = skeleton.bones[k].parent.unwrap_or(0);
                    }
                    let target = angles.get(j).copied().unwrap_or(0.0) as f32;
                    let data = RevoluteJointBuilder::new(v3(axis))
                        .local_anchor1(v3(anchor / 1000.0))
                        .local_anchor2(Vector::ZERO)
                        .contacts_enabled(false)
                        .motor_model(MotorModel::ForceBased)
                        .motor_position(target, STIFFNESS, DAMPING)
                        .motor_max_force(torque_nm as f32);
                    Some((world.insert_impulse_joint(parent, handle, data), j))
                }
                _ => None,
            };
            parts.push(Part {
                bone: i,
                handle,
                joint,
            });
        }
        let dt = f64::from(world.integration_parameters.dt);
        let origin = d3(world.bodies[parts[0].handle].translation());
        Ok(Robot {
            floor,
            skeleton,
            owner,
            statics: judge,
            parts_touching,
            paws,
            max_step: profile
                .joints
                .iter()
                .map(|j| j.max_speed.map_or(f64::INFINITY, |s| s * dt))
                .collect(),
            command: angles.to_vec(),
            origin,
            parts,
            world,
        })
    }

    /// One 8 ms frame: each servo moves its command toward `target` (radians, profile
    /// order) no faster than its joint can, and the world steps.
    pub fn step(&mut self, target: &[f64]) {
        for (c, (t, m)) in self
            .command
            .iter_mut()
            .zip(target.iter().zip(&self.max_step))
        {
            *c += (t - *c).clamp(-m, *m);
        }
        for p in &self.parts {
            if let Some((h, j)) = p.joint {
                if let Some(joint) = self.world.impulse_joints.get_mut(h, false) {
                    joint.data.set_motor_position(
                        JointAxis::AngX,
                        self.command[j] as f32,
                        STIFFNESS,
                        DAMPING,
                    );
                }
            }
        }
        self.world.step();
    }

    /// Holds the current commands for `seconds`.
    pub fn hold(&mut self, seconds: f64) {
        let target = self.command.clone();
        for _ in 0..(seconds * 1000.0 / DENSE_FRAME_MS as f64).round() as u32 {
            self.step(&target);
        }
    }

    fn touching(&self, c: ColliderHandle) -> bool {
        self.world
            .narrow_phase
            .contact_pair(c, self.floor)
            .is_some_and(|p| p.has_any_active_contact())
    }

    /// How hard the floor pushes on a collider, N (zero where it does not).
    fn load(&self, c: ColliderHandle) -> f64 {
        let dt = f64::from(self.world.integration_parameters.dt);
        self.world
            .narrow_phase
            .contact_pair(c, self.floor)
            .filter(|pair| pair.has_any_active_contact())
            .map_or(0.0, |pair| f64::from(pair.total_impulse_magnitude()) / dt)
    }

    /// Whether a part of kind `part` carries the robot: the floor pushes on it with more
    /// than [`CARRIES_SHARE`] of the robot's weight.
    fn carried_by(&self, part: body::Part) -> bool {
        let weight = self.statics.total_kg * GRAVITY_M_S2;
        self.parts_touching
            .iter()
            .any(|(p, c)| *p == part && self.load(*c) > CARRIES_SHARE * weight)
    }

    /// Whether every part's place and speed is still a number (a solver fed figures out
    /// of range can leave NaN, or a body frozen where it started).
    pub fn is_finite(&self) -> bool {
        self.parts.iter().all(|p| {
            let b = &self.world.bodies[p.handle];
            let (t, r) = (b.translation(), b.rotation());
            let (v, w) = (b.linvel(), b.angvel());
            [
                t.x, t.y, t.z, r.x, r.y, r.z, r.w, v.x, v.y, v.z, w.x, w.y, w.z,
            ]
            .iter()
            .all(|x| x.is_finite())
        })
    }

    /// The body's attitude.
    pub fn attitude(&self) -> DQuat {
        dquat(self.world.bodies[self.parts[0].handle].rotation())
    }

    /// Where the body's centre is, mm from where it started.
    pub fn position_mm(&self) -> DVec3 {
        (d3(self.world.bodies[self.parts[0].handle].translation()) - self.origin) * 1000.0
    }

    /// The parts other than the paws that touch the floor.
    pub fn touching_parts(&self) -> Vec<body::Part> {
        let mut parts: Vec<body::Part> = self
            .parts_touching
            .iter()
            .filter(|(_, c)| self.touching(*c))
            .map(|(part, _)| *part)
            .collect();
        parts.dedup();
        parts
    }

    /// What a pose (joint angles, radians, profile order) means, for a stream. Where
    /// the stream says the body's roll and pitch (`carried`, radians), that is what
    /// `simulate` reads from the file, and the meaning is the one it finds. A stream
    /// without them (a version-1 host) carries joint angles only, so the pose may mean
    /// two things: the attitude the static test finds from the body pitch of the nearest
    /// standard posture, and, where the pose stands on its paws
    /// (`statics::Body::paws_level`), the one from the attitude that sets them level.
    /// Midway from a stand to Sony's sit the nearest posture is the sit, 33° from the
    /// body's pitch, where the paws say it right; with both front paws up, the paws say
    /// nothing and the posture says it right. Such a stream has fallen only where it
    /// has fallen by both.
    pub fn meant(&self, angles: &[f64], carried: Option<[f64; 2]>) -> Vec<Meant> {
        let posture = self.statics.nearest_posture(angles);
        let from = |attitude: [f64; 3]| {
            let stance = self.statics.stance_allowing(angles, attitude, posture);
            Meant::of(&stance, super::carried(attitude[0], attitude[1]))
        };
        if let Some([roll, pitch]) = carried {
            return vec![from([roll, pitch, 0.0])];
        }
        std::iter::once(from([0.0, posture.pitch, 0.0]))
            .chain(self.statics.paws_level(angles).map(from))
            .collect()
    }

    /// Whether the robot has fallen, judged as the module defines it against what the
    /// motion means: what it went over onto, and how far it leans from the meant
    /// attitude (degrees). As in the static test, a part other than a paw may carry the
    /// robot while the body is within [`LEAN_DEG`] of the carried attitude, or, where the
    /// posture rests on it, of the meant or the posture's own; a part that only grazes
    /// the floor, within [`LEAN_DEG`] of the meant attitude too.
    pub fn fall(&self, meant: &Meant) -> Option<Fallen> {
        let up = self.attitude() * DVec3::Z;
        let from = |q: DQuat| up.angle_between(q * DVec3::Z).to_degrees();
        let tilt = up.angle_between(meant.upright_nearest(up)).to_degrees();
        let from_carried = from(meant.carried);
        let lean = tilt.min(from_carried);
        let seated = lean.min(from(meant.posture.attitude()));
        let rests = meant.posture.rests;
        let parts = self.touching_parts();
        let onto = if parts.contains(&body::Part::Head) {
            Some(body::Part::Head)
        } else {
            // Name the part that tells most: going forward, the chest strikes with the
            // front of the belly.
            let telling = [
                body::Part::Body(HullPart::Chest),
                body::Part::Body(HullPart::Flank),
                body::Part::Knee,
                body::Part::Body(HullPart::Belly),
                body::Part::Body(HullPart::Rump),
            ];
            telling.into_iter().find(|p| {
                parts.contains(p)
                    && if rests.contains(*p) {
                        seated > LEAN_DEG
                    } else {
                        // The meant attitude of a frame that tips is where it stood on
                        // the support it tipped from, partway over: resting on an elbow
                        // there is the tip itself (test_mocapbank on the ERS-210, 15–19°
                        // from the attitude it carries, 9–13° from that).
                        lean > LEAN_DEG || (from_carried > LEAN_DEG && self.carried_by(*p))
                    }
            })
        };
        (onto.is_some() || tilt > FALL_TILT_DEG).then_some(Fallen {
            onto,
            tilt_deg: tilt,
        })
    }

    /// Each paw: its name, where it is over the floor (mm, x and y), and whether it is down.
    pub fn paws(&self) -> impl Iterator<Item = (&str, DVec2, bool)> + '_ {
        self.paws.iter().map(|(name, c)| {
            let at = d3(self.world.colliders[*c].translation()) * 1000.0;
            (name.as_str(), at.truncate(), self.touching(*c))
        })
    }

    /// Each paw's load on the floor (N: zero when the floor does not push on it), where
    /// the centre of its ball is (mm, world), and how its ball is turned.
    pub fn paw_contacts(&self) -> Vec<(f64, DVec3, DQuat)> {
        self.paws
            .iter()
            .map(|(_, c)| {
                let load = self.load(*c);
                let collider = &self.world.colliders[*c];
                (
                    load,
                    d3(collider.translation()) * 1000.0,
                    dquat(&collider.rotation()),
                )
            })
            .collect()
    }

    /// Every bone of the skeleton where the simulation has it (mm: x and y from where the
    /// body started, z above the floor); `angles` place the bones that ride on others
    /// (ears, mouth, tail) as the motion has them.
    pub fn bones_mm(&self, angles: &[f64]) -> Vec<DVec3> {
        let pose = self.skeleton.pose(angles, [0.0; 3]);
        let origin = DVec3::new(self.origin.x, self.origin.y, 0.0);
        (0..self.skeleton.bones.len())
            .map(|i| {
                let o = self.owner[i];
                let part = self
                    .parts
                    .iter()
                    .find(|p| p.bone == o)
                    .unwrap_or(&self.parts[0]);
                let rb = &self.world.bodies[part.handle];
                let (at, rot) = (d3(rb.translation()), dquat(rb.rotation()));
                let relative =
                    pose.rotations[o].inverse() * (pose.positions[i] - pose.positions[o]);
                (at + rot * (relative / 1000.0) - origin) * 1000.0
            })
            .collect()
    }
}

/// The body's attitude a frame gives, without its yaw (which turns the robot on the
/// floor without changing its balance).
fn attitude_of(f: &mtn::DenseFrame) -> DQuat {
    let [roll, pitch, _] = super::attitude(f);
    super::carried(roll, pitch)
}

/// `motion`'s robot, standing in its first frame after settling (resting as the static
/// test has it, `first`, unless that frame tips).
fn start(
    motion: &Motion,
    profile: &Profile,
    columns: &Columns,
    first: Option<&statics::Stance>,
    torque_nm: f64,
    solver: Solver,
) -> Result<Option<Robot>, BalanceError> {
    let Some(frame) = mtn::dense_frame_at(motion, 0) else {
        return Ok(None);
    };
    let turn = first.map_or(DQuat::IDENTITY, |s| s.meant);
    let mut robot = Robot::solved(
        profile,
        &columns.angles(profile, &frame),
        turn * attitude_of(&frame),
        torque_nm,
        solver,
    )?;
    robot.hold(SETTLE_S);
    Ok(Some(robot))
}

/// Runs `motion` on `profile`'s robot; `torque_nm` limits every servo.
pub fn simulate(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
) -> Result<Report, BalanceError> {
    simulate_showing(motion, profile, torque_nm, Solver::Standard, &mut |_| {})
}

/// How far a simulation has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The static test's stances are being found (they say what attitude each frame means).
    Stances,
    /// This much of the motion has been simulated, of so much in all (ms).
    Simulated { done_ms: u64, total_ms: u64 },
}

/// [`simulate`], the world stepped by `solver`, telling `progress` how far it has come:
/// once before the stances, then about once a simulated second (an hour-long motion
/// takes a minute or more).
pub fn simulate_showing(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
    solver: Solver,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, BalanceError> {
    progress(Progress::Stances);
    let stances = statics::stances(motion, profile)?;
    run(motion, profile, torque_nm, &stances, solver, progress)
}

/// Both judges on `motion`: the static test (requiring `required_mm` of margin) and the
/// simulation at `torque_nm`, the stances of every dense frame found once for both (the
/// simulation judges its falls by them): what a build's proof, `check --balance` and the
/// gate before a robot run.
pub fn judged(
    motion: &Motion,
    profile: &Profile,
    required_mm: f64,
    torque_nm: f64,
    progress: &mut dyn FnMut(Progress),
) -> Result<(statics::Report, Report), BalanceError> {
    progress(Progress::Stances);
    let stances = statics::stances(motion, profile)?;
    let report = statics::report(&stances, profile, required_mm);
    let simulated = run(
        motion,
        profile,
        torque_nm,
        &stances,
        Solver::Standard,
        progress,
    )?;
    Ok((report, simulated))
}

/// [`simulate`], with the static test's stances of every dense frame already found (as
/// [`judged`] finds them once for both judges).
pub fn simulate_judged(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
    stances: &[statics::Stance],
) -> Result<Report, BalanceError> {
    run(
        motion,
        profile,
        torque_nm,
        stances,
        Solver::Standard,
        &mut |_| {},
    )
}

fn run(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
    stances: &[statics::Stance],
    solver: Solver,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, BalanceError> {
    let frames = mtn::dense_frame_count(motion);
    if stances.len() as u64 != frames {
        return Err(BalanceError::StanceCount {
            given: stances.len(),
            frames,
        });
    }
    let uncertain_masses = profile.mass.as_ref().is_some_and(|m| m.uncertain);
    let columns = Columns::of(motion, profile);
    let Some(mut robot) = start(
        motion,
        profile,
        &columns,
        stances.first(),
        torque_nm,
        solver,
    )?
    else {
        return Ok(Report {
            duration_ms: 0,
            torque_limit_nm: torque_nm,
            fall: None,
            slipped: Vec::new(),
            least_slip: None,
            path: Vec::new(),
            uncertain_masses,
        });
    };
    let frames = mtn::dense_frame_count(motion) as usize;
    let mut fall: Option<Fall> = None;
    let mut path = Vec::new();
    let paw_count = robot.paws().count();
    let mut stays: Vec<Option<Stay>> = vec![None; paw_count];
    let start_heading = robot.attitude() * DVec3::X;
    let mut heading_was = start_heading.y.atan2(start_heading.x).to_degrees();
    let mut heading = 0.0;
    let paw_radius = profile.mass.as_ref().map_or(0.0, |m| m.paw_radius);
    let mut paw_before = robot.paw_contacts();
    let mut slipped: Vec<f64> = vec![0.0; paw_count];
    let mut end = frames;
    let mut watch = FallWatch::default();
    let total_ms = (frames.saturating_sub(1) as u64) * DENSE_FRAME_MS;
    for (k, f) in mtn::dense_frames(motion).enumerate() {
        robot.step(&columns.angles(profile, &f));
        let t_ms = k as u64 * DENSE_FRAME_MS;
        if t_ms.is_multiple_of(1000) {
            progress(Progress::Simulated {
                done_ms: t_ms,
                total_ms,
            });
        }
        if !robot.is_finite() {
            // A profile's figures or the solver went wrong: no verdict can be given.
            return Err(BalanceError::Diverged { t_ms });
        }
        let rotation = robot.attitude();
        // The attitude the motion means: where it stands on what it is meant to.
        let meant = Meant::of(&stances[k], attitude_of(&f));
        let up = rotation * DVec3::Z;
        let meant_up = meant.upright_nearest(up);
        let tilt = up.angle_between(meant_up).to_degrees();
        if fall.is_none() {
            if let Some((since, fallen)) = watch.observe(t_ms, robot.fall(&meant)) {
                fall = Some(Fall::of(rotation, meant_up, since, fallen));
                // Half a second more shows where it ends up.
                end = (k + (500 / DENSE_FRAME_MS) as usize).min(frames);
            }
        }
        // A paw slips where its rubber slides over the floor while the floor pushes on it:
        // its ball's centre moves further than its turn rolls it. A stay down ends when
        // the paw has been off the floor for a while: a sliding paw chatters, losing the
        // floor for a frame at a time.
        let contacts = robot.paw_contacts();
        for (n, &(load, centre, turned)) in contacts.iter().enumerate() {
            let (_, before, was) = paw_before[n];
            let slide = (centre - before).truncate() - slip::rolled(was, turned, paw_radius);
            if load > 0.0 {
                let stay = stays[n].get_or_insert_with(Stay::default);
                stay.slid += stay.off_floor + slide;
                stay.off_floor = DVec2::ZERO;
                stay.off_ms = 0;
                slipped[n] = slipped[n].max(stay.slid.length());
            } else if let Some(stay) = stays[n].as_mut() {
                // Off the floor for a moment: it counts only if the paw comes down again.
                stay.off_floor += slide;
                stay.off_ms += DENSE_FRAME_MS;
                if stay.off_ms > STAY_GAP_MS {
                    stays[n] = None;
                }
            }
        }
        paw_before = contacts;
        let forward = rotation * DVec3::X;
        let yaw = forward.y.atan2(forward.x).to_degrees();
        heading += (yaw - heading_was + 180.0).rem_euclid(360.0) - 180.0;
        heading_was = yaw;
        if k % (100 / DENSE_FRAME_MS as usize) == 0 {
            let at = robot.position_mm();
            path.push(PathPoint {
                t_ms,
                x_mm: at.x,
                y_mm: at.y,
                z_mm: at.z,
                tilt_deg: tilt,
                heading_deg: heading,
            });
        }
        if k + 1 >= end {
            break;
        }
    }
    // The last pose held, watched for a fall only (the path and the slips are the motion's).
    if let (None, Some(f), Some(stance)) = (
        &fall,
        mtn::dense_frame_at(motion, frames.saturating_sub(1) as u64),
        stances.last(),
    ) {
        let angles = columns.angles(profile, &f);
        let meant = Meant::of(stance, attitude_of(&f));
        for k in frames..frames + (HOLD_AFTER_MS / DENSE_FRAME_MS) as usize {
            robot.step(&angles);
            if !robot.is_finite() {
                return Err(BalanceError::Diverged {
                    t_ms: k as u64 * DENSE_FRAME_MS,
                });
            }
            if let Some((since, fallen)) =
                watch.observe(k as u64 * DENSE_FRAME_MS, robot.fall(&meant))
            {
                let rotation = robot.attitude();
                let meant_up = meant.upright_nearest(rotation * DVec3::Z);
                fall = Some(Fall::of(rotation, meant_up, since, fallen));
                break;
            }
        }
    }
    // What the joint angles alone demand, beside a paw that slipped (a second pass over
    // the motion: only when one did).
    let demand = if slipped.iter().any(|&mm| mm > SLIP_MM) {
        Some(slip::demanded(motion, profile, stances)?)
    } else {
        None
    };
    Ok(Report {
        duration_ms: frames as u64 * DENSE_FRAME_MS,
        torque_limit_nm: torque_nm,
        fall,
        slipped: robot
            .paws()
            .zip(&slipped)
            .filter(|(_, &mm)| mm > SLIP_MM)
            .map(|((name, ..), &mm)| Slip {
                paw: name.to_string(),
                max_mm: mm,
                demanded_mm: demand
                    .iter()
                    .flat_map(|d| &d.by_paw)
                    .find(|(paw, _)| paw == name)
                    .map_or(0.0, |(_, d)| *d),
            })
            .collect(),
        least_slip: demand.and_then(|d| d.pair),
        path,
        uncertain_masses,
    })
}

/// The skeleton's bones where the simulation has them (mm, as [`Robot::bones_mm`]) at the
/// dense frames `indices` (in order), for `preview --physics`; `progress` hears how far
/// the simulation has come, each whole second, as [`simulate_showing`]'s does.
pub fn bones_at(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
    indices: &[u64],
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<Vec<DVec3>>, BalanceError> {
    // Played frame by frame up to the last index: as long as the static test allows.
    super::testable_frames(motion)?;
    let columns = Columns::of(motion, profile);
    let first = statics::stances_at(motion, profile, [0])?;
    let standard = Solver::Standard;
    let Some(mut robot) = start(
        motion,
        profile,
        &columns,
        first.first(),
        torque_nm,
        standard,
    )?
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(indices.len());
    let mut wanted = indices.iter().peekable();
    let total_ms = indices.last().map_or(0, |&last| last * DENSE_FRAME_MS);
    for (k, f) in mtn::dense_frames(motion).enumerate() {
        let angles = columns.angles(profile, &f);
        robot.step(&angles);
        let t_ms = k as u64 * DENSE_FRAME_MS;
        if t_ms.is_multiple_of(1000) {
            progress(Progress::Simulated {
                done_ms: t_ms,
                total_ms,
            });
        }
        while wanted.peek() == Some(&&(k as u64)) {
            out.push(robot.bones_mm(&angles));
            wanted.next();
        }
        if wanted.peek().is_none() {
            break;
        }
    }
    Ok(out)
}
