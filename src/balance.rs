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
//! The frame's **margin** is the distance from the centre of mass's projection to the
//! edge of the polygon it rests on, positive inside. It **tips** when, to rest, it turns
//! more than [`TILT_TOLERANCE_DEG`] over onto its chest or a flank (points it did not
//! stand on), or touches the floor with its head, or goes right over; its margin is then
//! that of the support it tipped from, in the direction it went. Turning onto all four
//! paws, the rump (sitting down) or the belly (lying down) is the legs finding the floor:
//! Sony's files often leave the body's attitude out.
//!
//! A frame that tips, or whose margin is negative, is **unstable**; one inside by less
//! than the required margin (10 mm unless told) is **marginal**. Tipping from two paws,
//! one front and one hind, is how a trot or pace moves (Sony's walks): **dynamic**,
//! reported but no fault.

use glam::{DQuat, DVec2, DVec3};
use serde::Serialize;

use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::geometry::HullPart;
use crate::robot::profile::Profile;
use crate::robot::skeleton::{Pose, Skeleton, SkeletonError};

/// Points this close to the floor (mm) touch it: about what a paw's rubber pad and a
/// servo's give take up, so that four paws a few mm out of plane all bear weight.
pub const CONTACT_MM: f64 = 5.0;

/// Turning this far (degrees) from the intended attitude to rest is the legs finding the
/// floor; further is tipping.
pub const TILT_TOLERANCE_DEG: f64 = 10.0;

/// The margin a frame needs by default, mm.
pub const DEFAULT_MARGIN_MM: f64 = 10.0;

/// The longest motion tested frame by frame (and simulated): an hour of 8 ms frames. A
/// longer one (a hostile file can last years) is refused rather than left to run.
pub const MAX_FRAMES: u64 = 450_000;

/// An unstable span longer than this (ms) fails `check --balance`.
pub const SPAN_FAULT_MS: u64 = 100;

/// Past this turn the robot has gone over (on its side or back); the search stops.
const OVER_DEG: f64 = 120.0;

/// Why a profile cannot be balanced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BalanceError {
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error("the {0} profile has no [mass] model")]
    NoMass(String),
    #[error(
        "the motion lasts {hours:.1} hours: too long to test frame by frame (at most {} hours)",
        MAX_FRAMES as f64 * DENSE_FRAME_MS as f64 / 3_600_000.0
    )]
    TooLong { hours: f64 },
    #[error("the {model} profile's [mass] names {link:?}, which is no bone of its skeleton")]
    UnknownLink { model: String, link: String },
    #[error(
        "the {0} profile's [mass] hull points must be numbers, and its paw and knee radii \
         from 0 to 100 mm"
    )]
    BadGeometry(String),
    #[error("the {model} profile's [mass] gives {link:?} {kg} kg; a mass is a positive number")]
    BadMass {
        model: String,
        link: String,
        kg: f64,
    },
}

/// What a point that touches the floor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Paw,
    Knee,
    Body(HullPart),
    Head,
}

impl Part {
    /// Going over onto it is a fall (the chest, a flank, the head); onto the rump is
    /// sitting down, onto the belly lying down, onto knees or elbows kneeling.
    fn falls_onto(self) -> bool {
        matches!(
            self,
            Part::Head | Part::Body(HullPart::Chest) | Part::Body(HullPart::Flank)
        )
    }
}

/// A point that can touch the floor.
#[derive(Debug, Clone)]
struct Contact {
    name: String,
    bone: usize,
    offset: DVec3,
    part: Part,
    /// Front (true) or hind (false), for a paw.
    front: bool,
    /// It is round: it touches this far below its point, whichever way it is turned.
    radius: f64,
}

/// The robot as the static test sees it: skeleton, masses and the points that can touch.
#[derive(Debug, Clone)]
pub struct Body {
    pub skeleton: Skeleton,
    /// (bone, kg, centre of mass in the bone's frame).
    masses: Vec<(usize, f64, DVec3)>,
    pub total_kg: f64,
    contacts: Vec<Contact>,
}

impl Body {
    pub fn of(profile: &Profile) -> Result<Body, BalanceError> {
        let skeleton = Skeleton::of(profile)?;
        let model = profile
            .mass
            .as_ref()
            .ok_or_else(|| BalanceError::NoMass(profile.model.clone()))?;
        let bone = |name: &str| skeleton.bones.iter().position(|b| b.name == name);
        let mut masses = Vec::new();
        for l in &model.links {
            let b = bone(&l.link).ok_or_else(|| BalanceError::UnknownLink {
                model: profile.model.clone(),
                link: l.link.clone(),
            })?;
            if !(l.kg.is_finite() && l.kg > 0.0 && l.com.iter().all(|v| v.is_finite())) {
                return Err(BalanceError::BadMass {
                    model: profile.model.clone(),
                    link: l.link.clone(),
                    kg: l.kg,
                });
            }
            masses.push((b, l.kg, DVec3::from(l.com)));
        }
        // A user's profile can hold anything: the points and radii must be lengths.
        let lengths_ok = model
            .hull
            .iter()
            .all(|h| h.at.iter().all(|v| v.is_finite()))
            && [model.paw_radius, model.knee_radius]
                .iter()
                .all(|r| r.is_finite() && (0.0..=100.0).contains(r));
        if !lengths_ok {
            return Err(BalanceError::BadGeometry(profile.model.clone()));
        }
        let mut contacts = Vec::new();
        for prefix in ["lf", "rf", "lh", "rh"] {
            let front = prefix.ends_with('f');
            if let Some(b) = bone(&format!("{prefix}_paw")) {
                contacts.push(Contact {
                    name: format!("{prefix} paw"),
                    bone: b,
                    offset: DVec3::ZERO,
                    part: Part::Paw,
                    front,
                    radius: model.paw_radius,
                });
            }
            if let Some(b) = bone(&format!("{prefix}_j3")) {
                let what = if front { "elbow" } else { "knee" };
                contacts.push(Contact {
                    name: format!("{prefix} {what}"),
                    bone: b,
                    offset: DVec3::ZERO,
                    part: Part::Knee,
                    front,
                    radius: model.knee_radius,
                });
            }
        }
        for h in &model.hull {
            let name = match h.part {
                HullPart::Belly => "belly",
                HullPart::Chest => "chest",
                HullPart::Rump => "rump",
                HullPart::Flank => "flank",
            };
            contacts.push(Contact {
                name: name.to_string(),
                bone: 0,
                offset: DVec3::from(h.at),
                part: Part::Body(h.part),
                front: false,
                radius: 0.0,
            });
        }
        for name in ["nose", "jaw_tip"] {
            if let Some(b) = bone(name) {
                contacts.push(Contact {
                    name: name.replace('_', " "),
                    bone: b,
                    offset: DVec3::ZERO,
                    part: Part::Head,
                    front: true,
                    radius: 0.0,
                });
            }
        }
        Ok(Body {
            total_kg: masses.iter().map(|m| m.1).sum(),
            skeleton,
            masses,
            contacts,
        })
    }

    /// The centre of mass of a pose (mm, the pose's frame).
    pub fn centre_of_mass(&self, pose: &Pose) -> DVec3 {
        let weighted: DVec3 = self
            .masses
            .iter()
            .map(|&(b, kg, com)| (pose.positions[b] + pose.rotations[b] * com) * kg)
            .sum();
        weighted / self.total_kg
    }

    /// The points that can touch the floor, by name, where they are for a pose (each
    /// round one at its lowest point), and the centre of mass: mm, the pose's frame.
    pub fn touch_points(&self, pose: &Pose) -> (Vec<(String, DVec3)>, DVec3) {
        let points = self
            .contacts
            .iter()
            .map(|c| {
                let p = pose.positions[c.bone] + pose.rotations[c.bone] * c.offset;
                (c.name.clone(), p - DVec3::Z * c.radius)
            })
            .collect();
        (points, self.centre_of_mass(pose))
    }

    /// The static test of one pose: joint angles (radians, profile order) and the body's
    /// roll, pitch and yaw (radians).
    pub fn stance(&self, joints: &[f64], attitude: [f64; 3]) -> Stance {
        // Yaw turns the robot on the floor without changing its balance.
        let pose = self.skeleton.pose(joints, [attitude[0], attitude[1], 0.0]);
        let points: Vec<DVec3> = self
            .contacts
            .iter()
            .map(|c| pose.positions[c.bone] + pose.rotations[c.bone] * c.offset)
            .collect();
        let com = self.centre_of_mass(&pose);
        self.rest(&points, com)
    }

    /// Steps 1 and 2 of the module's test, from points and a centre of mass in the frame of
    /// the intended attitude.
    fn rest(&self, points: &[DVec3], com: DVec3) -> Stance {
        let mut turn = DQuat::IDENTITY;
        // Where it stood at the intended attitude, and how it first went from there.
        let mut first: Option<(Vec<usize>, f64, DVec2)> = None;
        let mut gone_over = false;
        // Each turn brings another point down; a few rounds more than there are points
        // bound it whatever the geometry.
        let mut rounds = 0;
        let (touching, margin, hull, c) = loop {
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
            let feet: Vec<DVec2> = touching.iter().map(|&i| world[i].truncate()).collect();
            let hull = convex_hull(&feet);
            let (margin, toward) = signed_distance(c.truncate(), &hull);
            if first.is_none() {
                first = Some((touching.clone(), margin, toward));
            }
            if margin > 0.0 || toward == DVec2::ZERO {
                break (touching, margin, hull, c);
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
                gone_over = true;
                break (touching, margin, hull, c);
            }
            turn = step * turn;
        };
        let tilt = turn_deg(turn);
        let (stood_on, first_margin, first_toward) = first.unwrap_or_default();
        let part = |i: &usize| self.contacts[*i].part;
        let on_head = touching.iter().any(|i| part(i) == Part::Head);
        // It went over onto its chest or a flank: not what it stood on, and reached by
        // turning further than the legs finding the floor.
        let fell = tilt > TILT_TOLERANCE_DEG
            && touching
                .iter()
                .any(|i| part(i).falls_onto() && !stood_on.contains(i));
        let mut resting_on: Vec<String> = touching
            .iter()
            .map(|&i| self.contacts[i].name.clone())
            .collect();
        resting_on.dedup();
        if on_head || fell || gone_over {
            let paws: Vec<&Contact> = stood_on
                .iter()
                .map(|&i| &self.contacts[i])
                .filter(|c| c.part == Part::Paw)
                .collect();
            let dynamic = stood_on.len() == 2
                && paws.len() == 2
                && paws.iter().filter(|c| c.front).count() == 1;
            return Stance {
                tips: true,
                margin_mm: first_margin.min(0.0),
                tilt_deg: tilt,
                direction: (first_toward != DVec2::ZERO).then(|| Direction::of(first_toward)),
                resting_on,
                dynamic,
                com: c.truncate(),
                support: hull,
                turn,
            };
        }
        // At rest on what it was meant to rest on: the way it would go is its nearest edge.
        Stance {
            tips: false,
            margin_mm: margin,
            tilt_deg: tilt,
            direction: nearest_edge_direction(c.truncate(), &hull).map(Direction::of),
            resting_on,
            dynamic: false,
            com: c.truncate(),
            support: hull,
            turn,
        }
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
    /// It falls: over onto its chest, a flank or its head, or right over.
    pub tips: bool,
    /// The centre of mass's distance inside the support polygon, mm (negative: outside).
    pub margin_mm: f64,
    /// How far the robot turned from the intended attitude to rest, degrees.
    pub tilt_deg: f64,
    /// Which way it tips (or, resting, which edge is nearest).
    pub direction: Option<Direction>,
    /// The points it rests on.
    pub resting_on: Vec<String>,
    /// Tipping from a trot's or a pace's two paws.
    pub dynamic: bool,
    /// The centre of mass and the support polygon seen from above, mm, at rest.
    #[serde(skip)]
    pub com: DVec2,
    #[serde(skip)]
    pub support: Vec<DVec2>,
    /// The turn from the intended attitude to rest (the body's attitude at rest is this
    /// times the intended one).
    #[serde(skip)]
    pub turn: DQuat,
}

impl Stance {
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

/// Which way the robot goes, in its own heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Forward,
    ForwardLeft,
    Left,
    BackLeft,
    Back,
    BackRight,
    Right,
    ForwardRight,
}

impl Direction {
    /// The direction of a horizontal vector in the robot's heading (x forward, y left).
    pub fn of(v: DVec2) -> Direction {
        let eighth = ((v.y.atan2(v.x).to_degrees() + 360.0 + 22.5) / 45.0).floor() as i64 % 8;
        [
            Direction::Forward,
            Direction::ForwardLeft,
            Direction::Left,
            Direction::BackLeft,
            Direction::Back,
            Direction::BackRight,
            Direction::Right,
            Direction::ForwardRight,
        ][eighth as usize]
    }

    pub fn words(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::ForwardLeft => "forward and left",
            Direction::Left => "to the left",
            Direction::BackLeft => "back and left",
            Direction::Back => "backward",
            Direction::BackRight => "back and right",
            Direction::Right => "to the right",
            Direction::ForwardRight => "forward and right",
        }
    }
}

/// The convex hull of points, counter-clockwise, without repeats (Andrew's monotone chain).
pub fn convex_hull(points: &[DVec2]) -> Vec<DVec2> {
    let mut p: Vec<DVec2> = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup_by(|a, b| a.distance(*b) < 1e-9);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<DVec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 1e-9
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

/// The distance from `c` to the edge of the polygon `hull` (counter-clockwise), positive
/// inside; and, outside, the unit direction from the nearest point of the polygon to `c`
/// (zero inside, or exactly on a line of support).
pub fn signed_distance(c: DVec2, hull: &[DVec2]) -> (f64, DVec2) {
    let nearest = nearest_on_boundary(c, hull);
    let Some(q) = nearest else {
        return (f64::NEG_INFINITY, DVec2::ZERO);
    };
    let d = c.distance(q);
    let inside = hull.len() >= 3
        && (0..hull.len()).all(|i| {
            let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
            (b - a).perp_dot(c - a) > 0.0
        });
    if inside {
        (d, DVec2::ZERO)
    } else if d < 1e-9 {
        (0.0, DVec2::ZERO)
    } else {
        (-d, (c - q) / d)
    }
}

/// The point of the polygon's boundary (or segment, or point) nearest `c`.
fn nearest_on_boundary(c: DVec2, hull: &[DVec2]) -> Option<DVec2> {
    match hull.len() {
        0 => None,
        1 => Some(hull[0]),
        n => (0..n)
            .map(|i| {
                let (a, b) = (hull[i], hull[(i + 1) % n]);
                let t = ((c - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                a + (b - a) * t
            })
            .min_by(|p, q| c.distance(*p).total_cmp(&c.distance(*q))),
    }
}

/// From the centre of mass toward the nearest edge of the polygon it is inside.
fn nearest_edge_direction(c: DVec2, hull: &[DVec2]) -> Option<DVec2> {
    let q = nearest_on_boundary(c, hull)?;
    let v = q - c;
    (v.length() > 1e-9).then(|| v.normalize())
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
}

impl Span {
    pub fn duration_ms(&self) -> u64 {
        self.end_ms - self.start_ms
    }

    /// A span that fails the check: it tips, not as a walk does, for longer than
    /// [`SPAN_FAULT_MS`].
    pub fn fault(&self) -> bool {
        self.verdict == Verdict::Unstable && !self.dynamic && self.duration_ms() > SPAN_FAULT_MS
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
        let tipping = count(&|s| s.verdict == Verdict::Unstable && !s.dynamic);
        let dynamic = count(&|s| s.verdict == Verdict::Unstable && s.dynamic);
        let marginal = count(&|s| s.verdict == Verdict::Marginal);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut parts = Vec::new();
        if tipping > 0 {
            parts.push(format!(
                "{tipping} unstable span{} ({faults} longer than {SPAN_FAULT_MS} ms)",
                plural(tipping)
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

/// Where each of a profile's joints is among a motion's columns, to read its frames in
/// the profile's order (the static test, the simulation and the pictures all do).
#[derive(Debug, Clone)]
pub struct Columns(Vec<Option<usize>>);

impl Columns {
    pub fn of(motion: &Motion, profile: &Profile) -> Columns {
        Columns(
            profile
                .joints
                .iter()
                .map(|j| motion.locators.iter().position(|l| *l == j.locator))
                .collect(),
        )
    }

    /// A dense frame's joints in the profile's order, radians; a joint the motion lacks
    /// holds the profile's stand posture (or 0).
    pub fn angles(&self, profile: &Profile, frame: &mtn::DenseFrame) -> Vec<f64> {
        let stand = profile.postures.get("stand");
        self.0
            .iter()
            .enumerate()
            .map(|(j, col)| match col {
                Some(c) => frame.joints.get(*c).map_or(0.0, |&u| f64::from(u) * 1e-6),
                None => stand.and_then(|p| p.joints.get(j)).copied().unwrap_or(0.0),
            })
            .collect()
    }
}

/// A dense frame's body roll, pitch and yaw, radians.
pub fn attitude(frame: &mtn::DenseFrame) -> [f64; 3] {
    frame.body.map(|u| f64::from(u) * 1e-6)
}

/// The motion's dense frame count, or an error where it is too long to test frame by frame.
pub fn testable_frames(motion: &Motion) -> Result<u64, BalanceError> {
    let count = mtn::dense_frame_count(motion);
    if count > MAX_FRAMES {
        return Err(BalanceError::TooLong {
            hours: count as f64 * DENSE_FRAME_MS as f64 / 3_600_000.0,
        });
    }
    Ok(count)
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
    let verdicts: Vec<Verdict> = all.iter().map(|s| s.verdict(required_mm)).collect();
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
        spans.push(Span {
            start_ms: first as u64 * DENSE_FRAME_MS,
            end_ms: end as u64 * DENSE_FRAME_MS,
            verdict,
            worst_margin_mm: all[worst].margin_mm,
            direction: all[worst].direction,
            dynamic: !tipping.is_empty() && tipping.iter().all(|&i| all[i].dynamic),
            resting_on: all[worst].resting_on.clone(),
        });
        first = end;
    }
    let count = |v: Verdict| verdicts.iter().filter(|&&x| x == v).count() as u64;
    Ok(Report {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hull_and_the_distance_to_it_are_what_geometry_says() {
        // A 100 mm square with an inner point and a repeated corner: the hull is the
        // four corners, counter-clockwise.
        let sq: Vec<DVec2> = [
            (0.0, 0.0),
            (100.0, 0.0),
            (100.0, 100.0),
            (0.0, 100.0),
            (50.0, 50.0),
            (0.0, 0.0),
        ]
        .iter()
        .map(|&(x, y)| DVec2::new(x, y))
        .collect();
        let hull = convex_hull(&sq);
        assert_eq!(hull.len(), 4);
        let area: f64 = (0..4)
            .map(|i| hull[i].perp_dot(hull[(i + 1) % 4]))
            .sum::<f64>()
            / 2.0;
        assert!((area - 10_000.0).abs() < 1e-9, "counter-clockwise: {area}");
        // Inside: the distance to the nearest edge; outside: negative, pointing out.
        let (d, toward) = signed_distance(DVec2::new(30.0, 50.0), &hull);
        assert!((d - 30.0).abs() < 1e-9 && toward == DVec2::ZERO);
        let (d, toward) = signed_distance(DVec2::new(130.0, 50.0), &hull);
        assert!((d + 30.0).abs() < 1e-9 && (toward - DVec2::X).length() < 1e-9);
        let (d, _) = signed_distance(DVec2::new(103.0, 104.0), &hull);
        assert!((d + 5.0).abs() < 1e-9, "to the corner: {d}");
        // A line of support: on it, zero; off it, negative.
        let line = convex_hull(&[DVec2::new(0.0, 0.0), DVec2::new(0.0, 100.0)]);
        assert_eq!(signed_distance(DVec2::new(0.0, 40.0), &line).0, 0.0);
        assert!((signed_distance(DVec2::new(7.0, 40.0), &line).0 + 7.0).abs() < 1e-9);
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

    #[test]
    fn a_profile_whose_mass_model_is_not_lengths_and_masses_is_refused() {
        let good = Profile::builtin("ERS-7").unwrap();
        assert!(Body::of(&good).is_ok());
        let mut p = good.clone();
        p.mass.as_mut().unwrap().hull[0].at[0] = f64::NAN;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadGeometry(_))));
        let mut p = good.clone();
        p.mass.as_mut().unwrap().paw_radius = -1.0;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadGeometry(_))));
        let mut p = good.clone();
        p.mass.as_mut().unwrap().links[0].kg = 0.0;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadMass { .. })));
        let mut p = good;
        p.mass.as_mut().unwrap().links[0].link = "wing".into();
        assert!(matches!(
            Body::of(&p),
            Err(BalanceError::UnknownLink { .. })
        ));
    }
}
