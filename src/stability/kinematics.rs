//! The robot standing in the world, for the balance stage: where its centre of mass and
//! every point that can touch the floor are for a body pose and joint angles, and how
//! each moves with every variable (the Jacobians the stage linearises with).
//!
//! World frame: mm, x forward and y left as the robot first stands, z up from the floor.
//! The variables are the body's position (x, y, z), its roll and pitch (radians, as MTN
//! files and [`Skeleton::pose`] have them: pitch about −y then roll about the pitched x;
//! the yaw stays 0), then the chosen joints (radians). The Jacobians are exact: a
//! revolute joint moves a point by its world axis crossed with the point's offset from
//! the joint; the centre of mass by the same for the mass below the joint.

use glam::{DQuat, DVec3};

use super::body::{Body, Part};
use crate::robot::skeleton::Skeleton;

/// The body's position (x, y, z, mm) comes first among the variables, then its attitude
/// (roll and pitch, rad), then the joints.
pub const BODY_POSITION_VARIABLES: usize = 3;
pub const BODY_VARIABLES: usize = BODY_POSITION_VARIABLES + 2;

/// A point of the robot that can touch the floor, as the static test has it.
#[derive(Debug, Clone)]
pub struct Point {
    pub part: Part,
    /// The paw's index in `stability::plan::PAWS`, for a paw.
    pub paw: Option<usize>,
    bone: usize,
    offset: DVec3,
    /// It touches this far below its centre.
    pub radius: f64,
}

/// The robot's kinematics for the stage.
#[derive(Debug, Clone)]
pub struct Kinematics {
    skeleton: Skeleton,
    /// Mass (kg) and centre (bone frame) per bone, summed over the bone's links.
    masses: Vec<(f64, DVec3)>,
    total_kg: f64,
    /// The profile joints that are variables, in variable order (after the body's five).
    pub joints: Vec<usize>,
    /// For each bone, the variable (index among all variables) of the joint that turns it.
    turned_by: Vec<Option<usize>>,
    /// For each bone, whether each variable joint's bone is it or an ancestor.
    below: Vec<Vec<bool>>,
    pub points: Vec<Point>,
    /// Each leg's J1, J2, J3 and paw bones, by [`super::plan::PAWS`] index (found once:
    /// the stage asks for segments on every row).
    legs: [Option<[usize; 4]>; 4],
}

/// One evaluation: positions and Jacobians (one column per variable).
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub com: DVec3,
    pub com_columns: Vec<DVec3>,
    /// Each point's centre (world) and its columns.
    pub points: Vec<(DVec3, Vec<DVec3>)>,
}

/// A leg's two segments as directions in the body's frame (hip to knee, knee to paw),
/// and how each turns with the leg's joints.
#[derive(Debug, Clone, Copy)]
pub struct Segments {
    pub upper: DVec3,
    pub lower: DVec3,
    /// Per leg joint (J1, J2, J3): the change of `upper` and of `lower`.
    pub upper_columns: [DVec3; 3],
    pub lower_columns: [DVec3; 3],
}

impl Kinematics {
    /// The segments (see [`Segments`]) of the legs `wanted` says, by `PAWS` index, for
    /// every profile joint's angle in `angles`; `None` for a leg not wanted or one the
    /// profile lacks. The skeleton is posed once for all of them.
    pub fn segments(&self, angles: &[f64], wanted: [bool; 4]) -> [Option<Segments>; 4] {
        if !wanted
            .iter()
            .zip(&self.legs)
            .any(|(w, l)| *w && l.is_some())
        {
            return [None; 4];
        }
        let pose = self.skeleton.pose(angles, [0.0; 3]);
        std::array::from_fn(|paw| {
            let [j1, j2, j3, paw_bone] = self.legs[paw].filter(|_| wanted[paw])?;
            let (hip, knee, foot) = (
                pose.positions[j1],
                pose.positions[j3],
                pose.positions[paw_bone],
            );
            let (u, l) = (knee - hip, foot - knee);
            let (un, ln) = (u.length().max(1e-9), l.length().max(1e-9));
            let axis = |b: usize| {
                let bone = &self.skeleton.bones[b];
                let parent = bone.parent.unwrap_or(0);
                pose.rotations[parent] * bone.axis.unwrap_or(DVec3::ZERO)
            };
            let (a1, a2, a3) = (axis(j1), axis(j2), axis(j3));
            // A unit vector turned about an axis moves by the axis crossed with it; J3
            // turns only the lower segment.
            Some(Segments {
                upper: u / un,
                lower: l / ln,
                upper_columns: [a1.cross(u / un), a2.cross(u / un), DVec3::ZERO],
                lower_columns: [a1.cross(l / ln), a2.cross(l / ln), a3.cross(l / ln)],
            })
        })
    }

    /// The robot of `body` with `joints` (profile indices) as variables.
    pub fn new(body: &Body, joints: Vec<usize>) -> Kinematics {
        let skeleton = body.skeleton.clone();
        let n = skeleton.bones.len();
        let mut masses = vec![(0.0, DVec3::ZERO); n];
        for &(bone, kg, com) in body.masses() {
            let (m, c) = masses[bone];
            let total = m + kg;
            masses[bone] = (total, (c * m + com * kg) / total);
        }
        let turned_by: Vec<Option<usize>> = skeleton
            .bones
            .iter()
            .map(|b| {
                let j = b.joint.filter(|_| b.axis.is_some())?;
                joints
                    .iter()
                    .position(|&v| v == j)
                    .map(|v| v + BODY_VARIABLES)
            })
            .collect();
        let variables = BODY_VARIABLES + joints.len();
        let mut below = vec![vec![false; variables]; n];
        for (i, bone) in skeleton.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                below[i] = below[p].clone();
            }
            if let Some(v) = turned_by[i] {
                below[i][v] = true;
            }
        }
        let paw_index = |name: &str| {
            super::plan::PAWS
                .iter()
                .position(|p| name.starts_with(&format!("{p} ")) && name.ends_with("paw"))
        };
        let points = body
            .contacts
            .iter()
            .map(|c| Point {
                part: c.part,
                paw: (c.part == Part::Paw).then(|| paw_index(&c.name)).flatten(),
                bone: c.bone,
                offset: c.offset,
                radius: c.radius,
            })
            .collect();
        let legs = std::array::from_fn(|p| {
            let prefix = super::plan::PAWS[p];
            let bone = |part: &str| {
                let name = format!("{prefix}_{part}");
                skeleton.bones.iter().position(|b| b.name == name)
            };
            Some([bone("j1")?, bone("j2")?, bone("j3")?, bone("paw")?])
        });
        Kinematics {
            legs,
            skeleton,
            masses,
            total_kg: body.total_kg,
            joints,
            turned_by,
            below,
            points,
        }
    }

    pub fn variables(&self) -> usize {
        BODY_VARIABLES + self.joints.len()
    }

    /// The point of paw `paw` (its index in `plan::PAWS`).
    pub fn paw_point(&self, paw: usize) -> Option<usize> {
        self.points.iter().position(|p| p.paw == Some(paw))
    }

    /// Positions and Jacobians for variables `x` (see the module), with every profile
    /// joint's angle in `angles` (the variables' overridden by `x`).
    pub fn evaluate(&self, x: &[f64], angles: &mut [f64]) -> Evaluation {
        for (v, &j) in self.joints.iter().enumerate() {
            if let Some(a) = angles.get_mut(j) {
                *a = x[BODY_VARIABLES + v];
            }
        }
        let origin = DVec3::new(x[0], x[1], x[2]);
        let (roll, pitch) = (x[3], x[4]);
        let pose = self.skeleton.pose(angles, [roll, pitch, 0.0]);
        let at = |b: usize| origin + pose.positions[b];
        let variables = self.variables();
        // Each variable's motion: a translation (the body's position) or a turn about a
        // world axis through a point.
        let pitch_axis = DVec3::NEG_Y;
        let roll_axis = DQuat::from_axis_angle(DVec3::NEG_Y, pitch) * DVec3::X;
        let mut turns: Vec<Option<(DVec3, DVec3)>> = vec![None; variables];
        turns[3] = Some((roll_axis, origin));
        turns[4] = Some((pitch_axis, origin));
        for (b, bone) in self.skeleton.bones.iter().enumerate() {
            if let (Some(v), Some(axis), Some(parent)) = (self.turned_by[b], bone.axis, bone.parent)
            {
                turns[v] = Some((pose.rotations[parent] * axis, at(b)));
            }
        }
        let columns = |bone: usize, point: DVec3| -> Vec<DVec3> {
            (0..variables)
                .map(|v| match v {
                    0 => DVec3::X,
                    1 => DVec3::Y,
                    2 => DVec3::Z,
                    _ if v < BODY_VARIABLES || self.below[bone][v] => {
                        turns[v].map_or(DVec3::ZERO, |(axis, o)| axis.cross(point - o))
                    }
                    _ => DVec3::ZERO,
                })
                .collect()
        };
        // The centre of mass, and per bone the mass-weighted sum of everything at and
        // below it (bones come parents first, so a reverse pass gathers subtrees).
        let n = self.skeleton.bones.len();
        let mut kg = vec![0.0; n];
        let mut moment = vec![DVec3::ZERO; n];
        for b in 0..n {
            let (m, c) = self.masses[b];
            kg[b] = m;
            moment[b] = (at(b) + pose.rotations[b] * c) * m;
        }
        for b in (1..n).rev() {
            if let Some(p) = self.skeleton.bones[b].parent {
                let (m, below) = (kg[b], moment[b]);
                kg[p] += m;
                moment[p] += below;
            }
        }
        let total = self.total_kg.max(1e-12);
        let com = moment[0] / total;
        let mut com_columns = vec![DVec3::ZERO; variables];
        com_columns[0] = DVec3::X;
        com_columns[1] = DVec3::Y;
        com_columns[2] = DVec3::Z;
        for v in BODY_POSITION_VARIABLES..BODY_VARIABLES {
            if let Some((axis, o)) = turns[v] {
                com_columns[v] = axis.cross(com - o);
            }
        }
        for b in 0..n {
            if let (Some(v), Some((axis, o))) =
                (self.turned_by[b], self.turned_by[b].and_then(|v| turns[v]))
            {
                com_columns[v] = axis.cross(moment[b] - o * kg[b]) / total;
            }
        }
        let points = self
            .points
            .iter()
            .map(|p| {
                let centre = at(p.bone) + pose.rotations[p.bone] * p.offset;
                (centre, columns(p.bone, centre))
            })
            .collect();
        Evaluation {
            com,
            com_columns,
            points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robot::profile::Profile;

    /// Every column agrees with a finite difference of the positions it describes.
    #[test]
    fn the_jacobians_are_the_positions_derivatives() {
        for model in ["ERS-7", "ERS-210"] {
            let profile = Profile::builtin(model).unwrap();
            let body = Body::of(&profile).unwrap();
            let joints: Vec<usize> = (0..profile.joints.len())
                .filter(|&j| !profile.joints[j].binary)
                .collect();
            let k = Kinematics::new(&body, joints.clone());
            let mut angles = profile.postures["stand"].joints.clone();
            let mut x = vec![3.0, -2.0, 120.0, 0.1, -0.2];
            x.extend(
                joints
                    .iter()
                    .enumerate()
                    .map(|(i, &j)| angles[j] + 0.05 * i as f64),
            );
            let e = k.evaluate(&x, &mut angles);
            let h = 1e-6;
            for v in 0..k.variables() {
                let mut y = x.clone();
                y[v] += h;
                let f = k.evaluate(&y, &mut angles.clone());
                let com = (f.com - e.com) / h;
                assert!(
                    (com - e.com_columns[v]).length() < 1e-3,
                    "{model} variable {v}: centre of mass {com} vs {}",
                    e.com_columns[v]
                );
                for (p, (q, _)) in e.points.iter().zip(&f.points) {
                    let d = (*q - p.0) / h;
                    assert!(
                        (d - p.1[v]).length() < 1e-3,
                        "{model} variable {v}: point {d} vs {}",
                        p.1[v]
                    );
                }
            }
            // The centre of mass is the static test's.
            let pose = body.skeleton.pose(&angles, [x[3], x[4], 0.0]);
            let want = body.centre_of_mass(&pose) + DVec3::new(x[0], x[1], x[2]);
            assert!((e.com - want).length() < 1e-9, "{} vs {want}", e.com);
        }
    }
}
