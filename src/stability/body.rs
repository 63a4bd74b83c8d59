//! The robot as the stability judges see it: the profile's skeleton with its `[mass]`
//! model, and the points that can touch the floor: the paws and the elbows and knees
//! (round, with the profile's radii), the body's hull (belly, chest, rump, flanks) and
//! the head (nose, jaw).

use glam::DVec3;

use super::BalanceError;
use crate::robot::geometry::HullPart;
use crate::robot::profile::Profile;
use crate::robot::skeleton::{Pose, Skeleton};

/// What a point that can touch the floor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Paw,
    /// An elbow (front) or a knee (hind).
    Knee,
    Body(HullPart),
    Head,
}

impl Part {
    /// What people call it.
    pub fn word(self) -> &'static str {
        match self {
            Part::Paw => "paw",
            Part::Knee => "elbow or knee",
            Part::Body(HullPart::Belly) => "belly",
            Part::Body(HullPart::Chest) => "chest",
            Part::Body(HullPart::Rump) => "rump",
            Part::Body(HullPart::Flank) => "flank",
            Part::Head => "head",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Part::Paw => 1,
            Part::Knee => 2,
            Part::Body(HullPart::Belly) => 4,
            Part::Body(HullPart::Chest) => 8,
            Part::Body(HullPart::Rump) => 16,
            Part::Body(HullPart::Flank) => 32,
            Part::Head => 64,
        }
    }
}

/// How a standard posture rests: its body pitch (radians, nose up +) and the parts it
/// rests on there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resting {
    pub pitch: f64,
    pub rests: Parts,
}

impl Resting {
    /// The posture's attitude (level, at its pitch).
    pub fn attitude(&self) -> glam::DQuat {
        glam::DQuat::from_axis_angle(DVec3::NEG_Y, self.pitch)
    }
}

/// A set of kinds of [`Part`]: what a posture rests on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts(u8);

impl Parts {
    /// Standing: the paws only.
    pub const PAWS: Parts = Parts(1);

    pub fn contains(self, part: Part) -> bool {
        self.0 & part.bit() != 0
    }

    /// A posture that rests on its rump or its belly (a sit, a sleep) may rest on either:
    /// a sitting robot settles onto its belly, a lying one onto its rump.
    pub fn seated(self) -> Parts {
        let seat = Part::Body(HullPart::Rump).bit() | Part::Body(HullPart::Belly).bit();
        if self.0 & seat != 0 {
            Parts(self.0 | seat)
        } else {
            self
        }
    }

    pub fn with(self, part: Part) -> Parts {
        Parts(self.0 | part.bit())
    }
}

/// A point that can touch the floor.
#[derive(Debug, Clone)]
pub struct Contact {
    pub name: String,
    pub bone: usize,
    pub offset: DVec3,
    pub part: Part,
    /// Front (true) or hind (false), for a paw.
    pub front: bool,
    /// It is round: it touches this far below its point, whichever way it is turned.
    pub radius: f64,
}

impl Contact {
    /// Where its point is in `pose` (the centre, for a round one).
    pub fn centre(&self, pose: &Pose) -> DVec3 {
        pose.positions[self.bone] + pose.rotations[self.bone] * self.offset
    }
}

/// The robot as the static test sees it: skeleton, masses and the points that can touch.
#[derive(Debug, Clone)]
pub struct Body {
    pub skeleton: Skeleton,
    /// (bone, kg, centre of mass in the bone's frame).
    masses: Vec<(usize, f64, DVec3)>,
    pub total_kg: f64,
    pub contacts: Vec<Contact>,
    /// The profile's joints that place the legs.
    leg_joints: Vec<usize>,
    /// Each standard posture's leg joints (radians, `leg_joints` order), its body pitch,
    /// and what it rests on (paws always; a sit its rump, a sleep its elbows and belly).
    postures: Vec<(Vec<f64>, f64, Parts)>,
}

impl Body {
    pub fn of(profile: &Profile) -> Result<Body, BalanceError> {
        let skeleton = Skeleton::of(profile)?;
        let model = profile
            .mass
            .as_ref()
            .ok_or_else(|| BalanceError::NoMass(profile.model.clone()))?;
        // A profile made in code skips the file's checks; a figure out of range would give
        // margins of NaN, or a simulated body that never moves.
        let problem = [
            profile.legs.as_ref().and_then(|l| l.problem()),
            profile.body.as_ref().and_then(|b| b.problem()),
            model.problem(),
        ];
        if let Some(why) = problem.into_iter().flatten().next() {
            return Err(BalanceError::BadFigure {
                model: profile.model.clone(),
                why,
            });
        }
        let bone = |name: &str| skeleton.bones.iter().position(|b| b.name == name);
        let mut masses = Vec::new();
        for l in &model.links {
            let b = bone(&l.link).ok_or_else(|| BalanceError::UnknownLink {
                model: profile.model.clone(),
                link: l.link.clone(),
            })?;
            masses.push((b, l.kg, DVec3::from(l.com)));
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
        let leg_joints: Vec<usize> = skeleton
            .bones
            .iter()
            .filter(|b| ["_j1", "_j2", "_j3"].iter().any(|s| b.name.ends_with(s)))
            .filter_map(|b| b.joint)
            .collect();
        let mut body = Body {
            total_kg: masses.iter().map(|m| m.1).sum(),
            skeleton,
            masses,
            contacts,
            leg_joints,
            postures: Vec::new(),
        };
        // What each standard posture rests on, found by the static test itself with
        // every part but the head allowed.
        let anything = body
            .contacts
            .iter()
            .filter(|c| c.part != Part::Head)
            .fold(Parts::PAWS, |set, c| set.with(c.part));
        body.postures = profile
            .postures
            .values()
            .filter(|p| p.joints.len() == profile.joints.len())
            .map(|p| {
                let own = Resting {
                    pitch: p.body_pitch,
                    rests: anything,
                };
                let rests = body
                    .stance_allowing(&p.joints, [0.0, p.body_pitch, 0.0], own)
                    .resting_parts
                    .iter()
                    .fold(Parts::PAWS, |set, &part| set.with(part))
                    .seated();
                let legs = body.leg_joints.iter().map(|&j| p.joints[j]).collect();
                (legs, p.body_pitch, rests)
            })
            .collect();
        Ok(body)
    }

    /// The standard posture whose legs are nearest `joints` (radians, profile order):
    /// its body pitch and what it rests on. Standing on the paws, level, without postures.
    pub fn nearest_posture(&self, joints: &[f64]) -> Resting {
        let distance = |legs: &[f64]| -> f64 {
            self.leg_joints
                .iter()
                .zip(legs)
                .map(|(&j, p)| (joints.get(j).copied().unwrap_or(0.0) - p).powi(2))
                .sum()
        };
        self.postures
            .iter()
            .min_by(|a, b| distance(&a.0).total_cmp(&distance(&b.0)))
            .map_or(
                Resting {
                    pitch: 0.0,
                    rests: Parts::PAWS,
                },
                |(_, pitch, rests)| Resting {
                    pitch: *pitch,
                    rests: *rests,
                },
            )
    }

    /// Each mass: its bone, kg, and its centre in the bone's frame (mm).
    pub fn masses(&self) -> &[(usize, f64, DVec3)] {
        &self.masses
    }

    /// The centre of mass of a pose (mm, the pose's frame).
    pub fn centre_of_mass(&self, pose: &Pose) -> DVec3 {
        let weighted: DVec3 = self.placed_masses(pose).map(|(kg, p)| p * kg).sum();
        weighted / self.total_kg
    }

    /// Each mass, kg, and where its centre is for a pose (mm, the pose's frame).
    pub fn placed_masses<'a>(&'a self, pose: &'a Pose) -> impl Iterator<Item = (f64, DVec3)> + 'a {
        self.masses
            .iter()
            .map(|&(b, kg, com)| (kg, pose.positions[b] + pose.rotations[b] * com))
    }

    /// The points that can touch the floor, by name, where they are for a pose (each
    /// round one at its lowest point), and the centre of mass: mm, the pose's frame.
    pub fn touch_points(&self, pose: &Pose) -> (Vec<(String, DVec3)>, DVec3) {
        let points = self
            .contacts
            .iter()
            .map(|c| (c.name.clone(), c.centre(pose) - DVec3::Z * c.radius))
            .collect();
        (points, self.centre_of_mass(pose))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_whose_mass_model_is_not_lengths_and_masses_is_refused() {
        let good = Profile::builtin("ERS-7").unwrap();
        assert!(Body::of(&good).is_ok());
        let mut p = good.clone();
        p.mass.as_mut().unwrap().hull[0].at[0] = f64::NAN;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadFigure { .. })));
        let mut p = good.clone();
        p.mass.as_mut().unwrap().paw_radius = -1.0;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadFigure { .. })));
        let mut p = good.clone();
        p.mass.as_mut().unwrap().links[0].kg = 0.0;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadFigure { .. })));
        let mut p = good.clone();
        p.mass.as_mut().unwrap().links[0].com[1] = f64::NAN;
        assert!(matches!(Body::of(&p), Err(BalanceError::BadFigure { .. })));
        let mut p = good;
        p.mass.as_mut().unwrap().links[0].link = "wing".into();
        assert!(matches!(
            Body::of(&p),
            Err(BalanceError::UnknownLink { .. })
        ));
    }
}
