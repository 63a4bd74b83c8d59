//! The robot's measurements as the profiles give them: data only, read from
//! `profiles/*.toml` (their sources are cited there). The skeleton (`skeleton.rs`) is
//! built from them.

use serde::Deserialize;

/// Leg geometry of one model, millimetres, for the left legs (right legs mirror y).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegGeometry {
    pub front_hip: [f64; 3],
    pub hind_hip: [f64; 3],
    pub upper: f64,
    pub front_lower: f64,
    pub hind_lower: f64,
}

/// Neck, head and tail geometry, kept in the profiles (with its sources).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyGeometry {
    /// Where the neck tilt and pan axes meet.
    pub neck: [f64; 3],
    /// From the neck joint up to the head joint (nod or roll).
    pub neck_length: f64,
    /// From the head joint forward to the camera (the nose, for drawing).
    pub head_length: f64,
    /// The jaw hinge from the head joint: forward, up.
    pub mouth: [f64; 2],
    pub jaw_length: f64,
    /// Each ear's root from the head joint, sideways.
    pub ear_offset: f64,
    pub ear_length: f64,
    /// Where the tail's axes meet.
    pub tail: [f64; 3],
    pub tail_length: f64,
}

/// How the robot's mass is spread, for `check --balance` and `simulate`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MassModel {
    /// The figures are estimates (spread from a total), not a model's own.
    #[serde(default)]
    pub uncertain: bool,
    /// One entry per link that carries mass, named by the skeleton bone it moves with.
    pub links: Vec<LinkMass>,
    /// Points of the body's hull that can touch the floor.
    pub hull: Vec<HullPoint>,
    /// The paws' and the knees' (and elbows') round ends, mm: they touch the floor this
    /// far below their points in the skeleton.
    pub paw_radius: f64,
    pub knee_radius: f64,
}

/// A point of the body's hull that can touch the floor.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HullPoint {
    /// mm, body frame.
    pub at: [f64; 3],
    pub part: HullPart,
}

/// Which part of the body a hull point is: what touching the floor there means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HullPart {
    Belly,
    Chest,
    Rump,
    Flank,
}

/// One link's mass.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkMass {
    /// A skeleton bone (`body`, `head_nod`, `lf_j2`, …).
    pub link: String,
    pub kg: f64,
    /// Centre of mass in the bone's frame, mm (the bone's joint when left out).
    #[serde(default)]
    pub com: [f64; 3],
}

/// Largest length or coordinate a profile may give, mm: an AIBO is about 300 mm long, and
/// a figure past this is a typo (or `1e300`), which would break the balance tests.
pub const MAX_MM: f64 = 1000.0;

/// Smallest mass of one link, kg (the lightest, the ERS-7's tail tilt, is 1 g): lighter
/// makes the physics meaningless.
pub const MIN_KG: f64 = 1e-4;

/// How a model walks, beyond its legs' geometry: the `[walk]` section.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkSettings {
    /// How much lower than the stand the body walks, mm (the paws raised toward the hips
    /// by as much). A leg near straight lifts its paw only by turning its knee fast, so
    /// legs with slow joints walk better crouched.
    #[serde(default)]
    pub crouch: f64,
}

/// The deepest crouch a profile may ask, mm: about a fifth of the legs' length.
pub const MAX_CROUCH_MM: f64 = 25.0;

/// Largest mass of one link, kg (a whole AIBO weighs 1.4 to 1.6 kg).
pub const MAX_KG: f64 = 10.0;

/// The first figure out of range, by its name in the profile, and what it must be.
fn first_bad(figures: &[(String, f64, std::ops::RangeInclusive<f64>, &str)]) -> Option<String> {
    figures.iter().find_map(|(name, v, range, what)| {
        (!(v.is_finite() && range.contains(v))).then(|| format!("{name} = {v}: {what}"))
    })
}

fn coordinates(
    table: &str,
    name: &str,
    v: &[f64],
) -> Vec<(String, f64, std::ops::RangeInclusive<f64>, &'static str)> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            (
                format!("{table} {name}[{i}]"),
                x,
                -MAX_MM..=MAX_MM,
                "a coordinate in mm, at most 1000 either way",
            )
        })
        .collect()
}

fn length(
    table: &str,
    name: &str,
    v: f64,
) -> (String, f64, std::ops::RangeInclusive<f64>, &'static str) {
    (
        format!("{table} {name}"),
        v,
        0.0..=MAX_MM,
        "a length in mm, from 0 to 1000",
    )
}

impl LegGeometry {
    /// The first figure that is no length or coordinate, named, or `None`.
    pub fn problem(&self) -> Option<String> {
        let mut f = coordinates("[legs]", "front_hip", &self.front_hip);
        f.extend(coordinates("[legs]", "hind_hip", &self.hind_hip));
        f.push(length("[legs]", "upper", self.upper));
        f.push(length("[legs]", "front_lower", self.front_lower));
        f.push(length("[legs]", "hind_lower", self.hind_lower));
        first_bad(&f)
    }
}

impl BodyGeometry {
    /// The first figure that is no length or coordinate, named, or `None`.
    pub fn problem(&self) -> Option<String> {
        let mut f = coordinates("[body]", "neck", &self.neck);
        f.push(length("[body]", "neck_length", self.neck_length));
        f.push(length("[body]", "head_length", self.head_length));
        f.extend(coordinates("[body]", "mouth", &self.mouth));
        f.push(length("[body]", "jaw_length", self.jaw_length));
        f.extend(coordinates("[body]", "ear_offset", &[self.ear_offset]));
        f.push(length("[body]", "ear_length", self.ear_length));
        f.extend(coordinates("[body]", "tail", &self.tail));
        f.push(length("[body]", "tail_length", self.tail_length));
        first_bad(&f)
    }
}

impl WalkSettings {
    /// The first figure out of range, named, or `None`.
    pub fn problem(&self) -> Option<String> {
        first_bad(&[(
            "[walk] crouch".to_string(),
            self.crouch,
            0.0..=MAX_CROUCH_MM,
            "a depth in mm, from 0 to 25",
        )])
    }
}

impl MassModel {
    /// The first figure that is no mass, centre, point or radius, named, or `None`.
    pub fn problem(&self) -> Option<String> {
        let mut f = Vec::new();
        for l in &self.links {
            f.push((
                format!("[mass] {} kg", l.link),
                l.kg,
                MIN_KG..=MAX_KG,
                "a mass in kg, from 0.0001 to 10",
            ));
            f.extend(coordinates("[mass]", &format!("{} com", l.link), &l.com));
        }
        for (i, h) in self.hull.iter().enumerate() {
            f.extend(coordinates("[mass]", &format!("hull[{i}] at"), &h.at));
        }
        for (name, r) in [
            ("paw_radius", self.paw_radius),
            ("knee_radius", self.knee_radius),
        ] {
            f.push((
                format!("[mass] {name}"),
                r,
                0.0..=100.0,
                "a radius in mm, from 0 to 100",
            ));
        }
        first_bad(&f)
    }
}
