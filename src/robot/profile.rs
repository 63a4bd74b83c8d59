//! Robot profiles: each model's joints (locator, shared semantic name, limits, speed),
//! standard postures and design label. The built-in ones are `profiles/*.toml`, embedded
//! at build time; a user may load another from a path.

use crate::units::{deg_to_rad, deg_to_urad};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;
use toml::Spanned;

/// The profiles shipped in the binary: (file name, text).
const BUILTIN: [(&str, &str); 3] = [
    ("ERS-210.toml", include_str!("../../profiles/ERS-210.toml")),
    ("ERS-220.toml", include_str!("../../profiles/ERS-220.toml")),
    ("ERS-7.toml", include_str!("../../profiles/ERS-7.toml")),
];

/// One robot model.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// `ERS-210`, `ERS-220`, `ERS-7`.
    pub model: String,
    /// The MTN design label (`DRX-910`, `DRX-900`, `DRX-1000`).
    pub design_label: String,
    pub description: String,
    /// Joints in MTN column order.
    pub joints: Vec<Joint>,
    /// Standard postures by name (`stand`, `sit`, `sleep`).
    pub postures: BTreeMap<String, Posture>,
    /// How motion capture drives the joints (see `retarget`); joints without one hold
    /// their posture.
    pub mappings: Vec<Mapping>,
    /// Leg geometry for `build --legs ik`; `None` when the profile gives none.
    pub legs: Option<crate::robot::geometry::LegGeometry>,
    /// Neck, head and tail geometry for `preview` and `export`; `None` when not given.
    pub body: Option<crate::robot::geometry::BodyGeometry>,
    /// Masses for `check --balance` and `simulate`; `None` when not given.
    pub mass: Option<crate::robot::geometry::MassModel>,
    /// How the robot walks (`build --gait`); the defaults where the profile says nothing.
    pub walk: crate::robot::geometry::WalkSettings,
}

/// One robot joint's source: a measure of the source body, and how it scales:
/// `joint = sign · scale · measure + offset`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// The robot joint's semantic name (`head_pan`, `lf_j1`, …).
    pub joint: String,
    /// `head.yaw|pitch|roll` or `<left_arm|right_arm|left_leg|right_leg>.swing|abduction|bend`.
    pub measure: String,
    #[serde(default = "one")]
    pub sign: f64,
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default)]
    pub offset_deg: f64,
}

fn one() -> f64 {
    1.0
}

impl Mapping {
    /// Whether the measure names a part and a measure this build knows.
    pub fn measure_is_known(&self) -> bool {
        let Some((part, what)) = self.measure.split_once('.') else {
            return false;
        };
        match part {
            "head" => ["yaw", "pitch", "roll"].contains(&what),
            "left_arm" | "right_arm" | "left_leg" | "right_leg" => {
                ["swing", "abduction", "bend"].contains(&what)
            }
            _ => false,
        }
    }
}

/// Mapping entries from a user's file (`--map FILE.toml`): `[[mapping]]` tables that
/// replace the profile's for the same joints.
pub fn load_mappings(path: &Path, profile: &Profile) -> Result<Vec<Mapping>, ProfileError> {
    let text = std::fs::read_to_string(path).map_err(|error| ProfileError::Io {
        path: path.display().to_string(),
        error,
    })?;
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        mapping: Vec<Spanned<Mapping>>,
    }
    let name = path.display().to_string();
    let file: File = toml::from_str(&text).map_err(|e| ProfileError::Invalid {
        source_name: name.clone(),
        line: line_of(&text, e.span().map_or(0, |s| s.start)),
        message: e.message().to_string(),
    })?;
    let joints: Vec<&str> = profile.joints.iter().map(|j| j.name.as_str()).collect();
    check_mappings(&file.mapping, &joints, &text, &name)
}

/// Mappings that name a joint of the profile and a known measure, each once.
fn check_mappings(
    entries: &[Spanned<Mapping>],
    joints: &[&str],
    text: &str,
    source_name: &str,
) -> Result<Vec<Mapping>, ProfileError> {
    let mut out: Vec<Mapping> = Vec::with_capacity(entries.len());
    for e in entries {
        let m = e.get_ref();
        let problem = if !joints.contains(&m.joint.as_str()) {
            Some(format!("mapping for {:?}: no such joint", m.joint))
        } else if !m.measure_is_known() {
            Some(format!(
                "mapping for {:?}: unknown measure {:?} (head.yaw|pitch|roll, or \
                 left_arm|right_arm|left_leg|right_leg .swing|abduction|bend)",
                m.joint, m.measure
            ))
        } else if out.iter().any(|o| o.joint == m.joint) {
            Some(format!("joint {:?} is mapped twice", m.joint))
        } else if !(m.sign.is_finite() && m.scale.is_finite() && m.offset_deg.is_finite()) {
            Some(format!(
                "mapping for {:?}: sign, scale and offset must be numbers",
                m.joint
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            return Err(ProfileError::Invalid {
                source_name: source_name.to_string(),
                line: line_of(text, e.span().start),
                message,
            });
        }
        out.push(m.clone());
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Semantic name shared across models (`head_tilt`, `lf_j1`, `tail_pan`, …).
    pub name: String,
    /// OPEN-R primitive locator, as in MTN Section 2.
    pub locator: String,
    /// What the joint does, for people.
    pub meaning: String,
    /// Software limits in radians; `None` for binary ears.
    pub limits: Option<Limits>,
    /// Maximum speed in rad/s; `None` for binary ears.
    pub max_speed: Option<f64>,
    /// A binary output (ear plunger), not an angle.
    pub binary: bool,
    /// A binary output's legal values, sorted (OPEN-R's states 0 and 1); empty for angles.
    pub values: Vec<i32>,
}

/// A joint's software range, in radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub min: f64,
    pub max: f64,
}

impl Limits {
    /// The range in micro-radians, as MTN values are compared.
    pub fn urad(&self) -> (i32, i32) {
        (
            crate::units::rad_to_urad(self.min),
            crate::units::rad_to_urad(self.max),
        )
    }
}

/// A standard posture: body pitch and one angle per joint, in radians.
#[derive(Debug, Clone, PartialEq)]
pub struct Posture {
    pub body_pitch: f64,
    pub joints: Vec<f64>,
}

/// A profile file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{source_name}, line {line}: {message}")]
    Invalid {
        source_name: String,
        line: usize,
        message: String,
    },
    #[error("cannot read profile {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("no built-in profile named {0:?}; known models: ERS-210 (DRX-910), ERS-220 (DRX-900), ERS-7 (DRX-1000), or give a path to a .toml profile")]
    Unknown(String),
}

impl Profile {
    /// Every built-in profile, parsed once per process.
    pub fn builtins() -> &'static [Profile] {
        static PARSED: OnceLock<Vec<Profile>> = OnceLock::new();
        PARSED.get_or_init(|| {
            BUILTIN
                .iter()
                // The embedded profiles are checked by this crate's tests, so they parse.
                .filter_map(|(name, text)| Profile::parse(text, name).ok())
                .collect()
        })
    }

    /// A built-in profile by model name or design label, case-insensitive.
    /// `DRX-900` is the ERS-210/220 common set, which the ERS-220 profile describes.
    pub fn builtin(name: &str) -> Option<Profile> {
        let wanted = name.trim();
        Profile::builtins()
            .iter()
            .find(|p| {
                p.model.eq_ignore_ascii_case(wanted) || p.design_label.eq_ignore_ascii_case(wanted)
            })
            .cloned()
    }

    /// The built-in profile for an MTN design label.
    pub fn for_design_label(label: &str) -> Option<Profile> {
        Profile::builtins()
            .iter()
            .find(|p| p.design_label.eq_ignore_ascii_case(label.trim()))
            .cloned()
    }

    /// A model name, a design label, or a path to a `.toml` profile.
    pub fn resolve(arg: &str) -> Result<Profile, ProfileError> {
        if let Some(p) = Profile::builtin(arg) {
            return Ok(p);
        }
        let path = Path::new(arg);
        if arg.ends_with(".toml") || path.exists() {
            return Profile::load(path);
        }
        Err(ProfileError::Unknown(arg.to_string()))
    }

    /// Loads a profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|error| ProfileError::Io {
            path: path.display().to_string(),
            error,
        })?;
        Profile::parse(&text, &path.display().to_string())
    }

    /// Parses a profile's TOML text; `source_name` names it in errors.
    pub fn parse(text: &str, source_name: &str) -> Result<Profile, ProfileError> {
        let invalid = |offset: usize, message: String| ProfileError::Invalid {
            source_name: source_name.to_string(),
            line: line_of(text, offset),
            message,
        };
        let raw: RawProfile = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            invalid(offset, e.message().to_string())
        })?;

        let mut joints = Vec::with_capacity(raw.joints.len());
        for spanned in &raw.joints {
            let at = spanned.span().start;
            let j = spanned.get_ref();
            let valid_name = !j.name.is_empty()
                && j.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !valid_name {
                return Err(invalid(
                    at,
                    format!(
                        "joint name {:?}: use lower-case letters, digits and _",
                        j.name
                    ),
                ));
            }
            if joints.iter().any(|o: &Joint| o.name == j.name) {
                return Err(invalid(
                    at,
                    format!("joint name {:?} appears twice", j.name),
                ));
            }
            if joints.iter().any(|o: &Joint| o.locator == j.locator) {
                return Err(invalid(
                    at,
                    format!("locator {:?} appears twice", j.locator),
                ));
            }
            let values = binary_values(j).map_err(|e| invalid(at, e))?;
            let (limits, max_speed) = match (j.binary, j.min_deg, j.max_deg, j.max_speed_rad_s) {
                (true, None, None, None) => (None, None),
                (true, ..) => {
                    return Err(invalid(
                        at,
                        format!(
                            "joint {:?} is binary: it takes no min_deg, max_deg or max_speed_rad_s",
                            j.name
                        ),
                    ))
                }
                (false, Some(min), Some(max), Some(speed)) => {
                    if !(min.is_finite() && max.is_finite() && min < max) {
                        return Err(invalid(
                            at,
                            format!(
                                "joint {:?}: min_deg {min} must be below max_deg {max}",
                                j.name
                            ),
                        ));
                    }
                    if !(speed.is_finite() && speed > 0.0) {
                        return Err(invalid(
                            at,
                            format!("joint {:?}: max_speed_rad_s must be positive", j.name),
                        ));
                    }
                    (
                        Some(Limits {
                            min: deg_to_rad(min),
                            max: deg_to_rad(max),
                        }),
                        Some(speed),
                    )
                }
                (false, ..) => {
                    return Err(invalid(
                        at,
                        format!(
                        "joint {:?} needs min_deg, max_deg and max_speed_rad_s (or binary = true)",
                        j.name
                    ),
                    ))
                }
            };
            joints.push(Joint {
                name: j.name.clone(),
                locator: j.locator.clone(),
                meaning: j.meaning.clone().unwrap_or_default(),
                limits,
                max_speed,
                binary: j.binary,
                values,
            });
        }
        if joints.is_empty() {
            return Err(invalid(
                0,
                "a profile needs at least one [[joints]] entry".into(),
            ));
        }

        let mut postures = BTreeMap::new();
        for (name, spanned) in &raw.postures {
            let at = spanned.span().start;
            let p = spanned.get_ref();
            if p.joints_deg.len() != joints.len() {
                return Err(invalid(
                    at,
                    format!(
                        "posture {name:?} has {} joint values for {} joints",
                        p.joints_deg.len(),
                        joints.len()
                    ),
                ));
            }
            for (j, &deg) in joints.iter().zip(&p.joints_deg) {
                let outside = j.limits.is_some_and(|l| {
                    let (lo, hi) = l.urad();
                    let v = deg_to_urad(deg);
                    v < lo || v > hi
                });
                if outside || !deg.is_finite() {
                    return Err(invalid(
                        at,
                        format!(
                            "posture {name:?}: {} = {deg}° is outside its limits",
                            j.name
                        ),
                    ));
                }
            }
            if !(p.body_pitch_deg.is_finite() && (-90.0..=90.0).contains(&p.body_pitch_deg)) {
                return Err(invalid(
                    at,
                    format!(
                        "posture {name:?}: body_pitch_deg = {}: an angle from -90° to 90°",
                        p.body_pitch_deg
                    ),
                ));
            }
            postures.insert(
                name.clone(),
                Posture {
                    body_pitch: deg_to_rad(p.body_pitch_deg),
                    joints: p.joints_deg.iter().map(|&d| deg_to_rad(d)).collect(),
                },
            );
        }

        // Every figure the balance tests and the pictures use, named where it is wrong.
        let problems = [
            raw.legs
                .as_ref()
                .map(|l| (l.span().start, l.get_ref().problem())),
            raw.body
                .as_ref()
                .map(|b| (b.span().start, b.get_ref().problem())),
            raw.mass
                .as_ref()
                .map(|m| (m.span().start, m.get_ref().problem())),
            raw.walk
                .as_ref()
                .map(|w| (w.span().start, w.get_ref().problem())),
        ];
        if let Some((at, why)) = problems
            .into_iter()
            .flatten()
            .find_map(|(at, problem)| problem.map(|why| (at, why)))
        {
            return Err(invalid(at, why));
        }

        let names: Vec<&str> = joints.iter().map(|j| j.name.as_str()).collect();
        let mappings = check_mappings(&raw.mapping, &names, text, source_name)?;
        Ok(Profile {
            model: raw.model,
            design_label: raw.design_label,
            description: raw.description.unwrap_or_default(),
            joints,
            postures,
            mappings,
            legs: raw.legs.map(Spanned::into_inner),
            body: raw.body.map(Spanned::into_inner),
            mass: raw.mass.map(Spanned::into_inner),
            walk: raw.walk.map(Spanned::into_inner).unwrap_or_default(),
        })
    }

    pub fn joint_by_locator(&self, locator: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.locator == locator)
    }

    pub fn joint_by_name(&self, name: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.name == name)
    }

    /// Where the joint named `name` is in [`Profile::joints`]: its column in a pose.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// `ERS-7 (DRX-1000)`.
    pub fn title(&self) -> String {
        format!("{} ({})", self.model, self.design_label)
    }
}

/// 1-based line number of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    model: String,
    design_label: String,
    description: Option<String>,
    joints: Vec<Spanned<RawJoint>>,
    #[serde(default)]
    postures: BTreeMap<String, Spanned<RawPosture>>,
    #[serde(default)]
    mapping: Vec<Spanned<Mapping>>,
    legs: Option<Spanned<crate::robot::geometry::LegGeometry>>,
    body: Option<Spanned<crate::robot::geometry::BodyGeometry>>,
    mass: Option<Spanned<crate::robot::geometry::MassModel>>,
    walk: Option<Spanned<crate::robot::geometry::WalkSettings>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJoint {
    name: String,
    locator: String,
    meaning: Option<String>,
    min_deg: Option<f64>,
    max_deg: Option<f64>,
    max_speed_rad_s: Option<f64>,
    #[serde(default)]
    binary: bool,
    values: Option<Vec<i32>>,
}

/// A binary joint's legal values (required, distinct, sorted here); an angle has none.
fn binary_values(j: &RawJoint) -> Result<Vec<i32>, String> {
    match (j.binary, &j.values) {
        (true, Some(values)) if !values.is_empty() => {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != values.len() {
                return Err(format!(
                    "joint {:?}: a value appears twice in values",
                    j.name
                ));
            }
            Ok(sorted)
        }
        (true, _) => Err(format!(
            "joint {:?} is binary: it needs its legal values, e.g. values = [0, 1]",
            j.name
        )),
        (false, Some(_)) => Err(format!(
            "joint {:?}: values are for binary outputs; an angle has min_deg and max_deg",
            j.name
        )),
        (false, None) => Ok(Vec::new()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPosture {
    body_pitch_deg: f64,
    joints_deg: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_profile_parses() {
        for (name, text) in BUILTIN {
            let p = Profile::parse(text, name).unwrap_or_else(|e| panic!("{e}"));
            for posture in ["stand", "sit", "sleep"] {
                assert!(p.postures.contains_key(posture), "{name} lacks {posture}");
            }
        }
        assert_eq!(Profile::builtins().len(), 3);
    }

    #[test]
    fn lookup_by_model_or_label_ignores_case() {
        assert_eq!(Profile::builtin("ers-7").unwrap().design_label, "DRX-1000");
        assert_eq!(Profile::builtin("drx-910").unwrap().model, "ERS-210");
        assert_eq!(Profile::builtin("DRX-900").unwrap().joints.len(), 15);
        assert_eq!(
            Profile::builtin(" ERS-220 ").unwrap().design_label,
            "DRX-900"
        );
        assert!(Profile::builtin("ERS-110").is_none());
    }

    #[test]
    fn joint_tables_match_robots_md() {
        let ers7 = Profile::builtin("ERS-7").unwrap();
        assert_eq!(ers7.joints.len(), 20);
        let knee = ers7.joint_by_name("lh_j3").unwrap();
        assert_eq!(knee.locator, "PRM:/r3/c1/c2/c3-Joint2:33");
        assert_eq!(knee.limits.unwrap().urad().1, 2_129_302); // 122°
        assert_eq!(ers7.joints[0].name, "head_tilt");
        assert_eq!(ers7.joints[2].name, "head_nod");
        assert_eq!(ers7.joints[18].name, "tail_tilt");
        assert_eq!(
            ers7.joint_by_name("rh_j1")
                .unwrap()
                .limits
                .unwrap()
                .urad()
                .0,
            -2_268_928
        ); // -130°
        assert!(ers7.joint_by_name("l_ear").unwrap().binary);

        let ers210 = Profile::builtin("ERS-210").unwrap();
        assert_eq!(ers210.joints.len(), 20);
        assert_eq!(ers210.joints[18].name, "tail_pan");
        assert_eq!(ers210.joints[18].locator, "PRM:/r6/c1-Joint2:j1");
        assert_eq!(
            ers210.joint_by_name("head_tilt").unwrap().max_speed,
            Some(2.1053)
        );

        let ers220 = Profile::builtin("ERS-220").unwrap();
        let names: Vec<&str> = ers220.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(&names[..4], ["head_tilt", "head_pan", "head_roll", "lf_j1"]);
        // The common set is the ERS-210 without mouth, ears and tail, in the same order.
        let common: Vec<&Joint> = ers210
            .joints
            .iter()
            .filter(|j| ers220.joint_by_locator(&j.locator).is_some())
            .collect();
        assert_eq!(common.len(), 15);
        for (a, b) in common.iter().zip(&ers220.joints) {
            assert_eq!(a.locator, b.locator);
        }
    }

    #[test]
    fn malformed_profiles_name_the_line() {
        let bad_toml = "model = \"X\"\ndesign_label = \"Y\"\njoints = [\n";
        let err = Profile::parse(bad_toml, "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad.toml, line "), "{err}");

        let text =
            "model = \"X\"\ndesign_label = \"Y\"\n\n[[joints]]\nname = \"a\"\nlocator = \"L\"\n\
                    min_deg = 10.0\nmax_deg = 5.0\nmax_speed_rad_s = 1.0\n";
        let err = Profile::parse(text, "p.toml").unwrap_err().to_string();
        assert!(err.starts_with("p.toml, line 4:"), "{err}");
        assert!(err.contains("below max_deg"), "{err}");

        let text = "model = \"X\"\ndesign_label = \"Y\"\n[[joints]]\nname = \"a\"\nlocator = \"L\"\nbinary = true\n\
                    values = [0, 1]\n[postures.stand]\nbody_pitch_deg = 0.0\njoints_deg = [1, 2]\n";
        let err = Profile::parse(text, "p.toml").unwrap_err().to_string();
        assert!(err.contains("line 8"), "{err}");
        assert!(err.contains("2 joint values for 1 joints"), "{err}");

        // A binary output needs its legal values; an angle takes none.
        let text = "model = \"X\"\ndesign_label = \"Y\"\n[[joints]]\nname = \"a\"\nlocator = \"L\"\nbinary = true\n";
        let err = Profile::parse(text, "p.toml").unwrap_err().to_string();
        assert!(err.contains("needs its legal values"), "{err}");
        let text =
            "model = \"X\"\ndesign_label = \"Y\"\n[[joints]]\nname = \"a\"\nlocator = \"L\"\n\
                    min_deg = -1.0\nmax_deg = 1.0\nmax_speed_rad_s = 1.0\nvalues = [0, 1]\n";
        let err = Profile::parse(text, "p.toml").unwrap_err().to_string();
        assert!(err.contains("values are for binary outputs"), "{err}");

        let text = "model = \"X\"\ndesign_label = \"Y\"\nspeed = 3\n[[joints]]\nname = \"a\"\nlocator = \"L\"\nbinary = true\n";
        let err = Profile::parse(text, "p.toml").unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
