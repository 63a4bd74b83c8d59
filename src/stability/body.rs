//! The robot as the stability judges see it: the profile's skeleton with its `[mass]`
//! model, and the points that can touch the floor: the paws and the elbows and knees
//! (round, with the profile's radii), the body's hull (belly, chest, rump, flanks) and
//! the head (nose, jaw).

use glam::DVec3;

use super::BalanceError;
use crate::robot::geometry::HullPart;
use crate::robot::profile::Profile;
use crate::robot::skeleton::{Pose, Skeleton};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Paw,
    Knee,
    Body(HullPart),
    Head,
}

impl Part {
    /// Going over onto it is a fall (the chest, a flank, the head); onto the rump is
    /// sitting down, onto the belly lying down, onto knees or elbows kneeling.
    pub fn falls_onto(self) -> bool {
        matches!(
            self,
            Part::Head | Part::Body(HullPart::Chest) | Part::Body(HullPart::Flank)
        )
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

/// The robot as the static test sees it: skeleton, masses and the points that can touch.
#[derive(Debug, Clone)]
pub struct Body {
    pub skeleton: Skeleton,
    /// (bone, kg, centre of mass in the bone's frame).
    masses: Vec<(usize, f64, DVec3)>,
    pub total_kg: f64,
    pub contacts: Vec<Contact>,
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
