//! A motion as a BVH of the AIBO's own skeleton, for Blender and mocap viewers.
//!
//! One BVH joint per robot joint, named by its semantic name, with one rotation channel
//! (its axis); the root `body` carries a position (the standing height, so the paws
//! meet the ground, and the body's travel over the floor where one is given: a walk
//! walks in Blender) and the MTN's body yaw, pitch and roll, the yaw turned as the body
//! turns. BVH axes are Y up with the
//! robot facing +Z and its left on +X: robot (x, y, z) ↦ BVH (y, z, x), a rotation, so
//! handedness is kept. Values are degrees with six decimals (the MTN's µrad are
//! 0.000057°).

use std::fmt::Write as _;

use glam::DVec3;

use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::profile::Profile;
use crate::robot::skeleton::{Skeleton, SkeletonError};
use crate::units::urad_to_deg;

/// Most frames an export writes (2.2 hours at 8 ms): past it the file would be gigabytes.
pub const MAX_FRAMES: u64 = 1_000_000;

/// Which frames to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// Every 8 ms frame the robot plays.
    Dense,
    /// The 16 ms grid MTN keyframes lie on.
    Grid,
}

/// Where the body is over the floor at one moment, from where it began.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Placement {
    pub forward_mm: f64,
    pub left_mm: f64,
    /// Degrees turned left (unwrapped).
    pub turn_deg: f64,
}

/// The body's travel over the floor (`simulate`'s path): placements at moments (ms
/// from the motion's first frame), in time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Travel {
    pub places: Vec<(u64, Placement)>,
}

impl Travel {
    /// The placement at `t_ms`: between two moments in a straight line; before the first
    /// or after the last, held.
    pub fn at(&self, t_ms: u64) -> Placement {
        let after = self.places.partition_point(|(t, _)| *t <= t_ms);
        match (
            self.places.get(after.wrapping_sub(1)),
            self.places.get(after),
        ) {
            (Some(&(t0, a)), Some(&(t1, b))) => {
                let s = (t_ms - t0) as f64 / (t1 - t0).max(1) as f64;
                Placement {
                    forward_mm: a.forward_mm + s * (b.forward_mm - a.forward_mm),
                    left_mm: a.left_mm + s * (b.left_mm - a.left_mm),
                    turn_deg: a.turn_deg + s * (b.turn_deg - a.turn_deg),
                }
            }
            (Some(&(_, a)), None) | (None, Some(&(_, a))) => a,
            (None, None) => Placement::default(),
        }
    }
}

/// Robot frame to BVH frame.
fn to_bvh(v: DVec3) -> DVec3 {
    DVec3::new(v.y, v.z, v.x)
}

/// The BVH channel of a joint turning about `axis` (a robot-frame unit axis), and the
/// sign that turns the joint's angle into the channel's value.
pub fn channel_of(axis: DVec3) -> (&'static str, f64) {
    let b = to_bvh(axis);
    if b.x.abs() > 0.5 {
        ("Xrotation", b.x.signum())
    } else if b.y.abs() > 0.5 {
        ("Yrotation", b.y.signum())
    } else {
        ("Zrotation", b.z.signum())
    }
}

/// Why a motion cannot be exported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error("the motion has {motion} joints and the {model} profile {profile}")]
    JointCount {
        motion: usize,
        model: String,
        profile: usize,
    },
    #[error("bone {bone:?} has children but no joint: BVH cannot hold it")]
    FixedParent { bone: String },
    #[error("the motion lasts {:.1} hours: {frames} frames, more than the {MAX_FRAMES} a BVH export writes", *frames as f64 * *frame_ms as f64 / 3.6e6)]
    TooLong { frames: u64, frame_ms: u64 },
}

/// The BVH text of `motion` on `profile`'s skeleton. With a `travel`, the root goes
/// where it says; without, it stays over the origin.
pub fn bvh(
    motion: &Motion,
    profile: &Profile,
    rate: Rate,
    travel: Option<&Travel>,
) -> Result<String, ExportError> {
    let skeleton = Skeleton::of(profile)?;
    let joints = motion
        .keyframes
        .first()
        .map_or(profile.joints.len(), |k| k.joints.len());
    if joints != profile.joints.len() {
        return Err(ExportError::JointCount {
            motion: joints,
            model: profile.model.clone(),
            profile: profile.joints.len(),
        });
    }
    // A BVH joint without a channel cannot carry children (a profile with neither
    // head_nod nor head_roll has such a head).
    let fixed_parent = (1..skeleton.bones.len())
        .find(|&i| skeleton.bones[i].axis.is_none() && skeleton.children(i).next().is_some());
    if let Some(i) = fixed_parent {
        return Err(ExportError::FixedParent {
            bone: skeleton.bones[i].name.clone(),
        });
    }
    let mut out = String::from("HIERARCHY\n");
    write_bone(&mut out, &skeleton, 0, 0);
    let step = match rate {
        Rate::Dense => 1,
        Rate::Grid => 2,
    };
    let count = mtn::dense_frame_count(motion).div_ceil(step as u64);
    if count > MAX_FRAMES {
        return Err(ExportError::TooLong {
            frames: count,
            frame_ms: DENSE_FRAME_MS * step as u64,
        });
    }
    let height = standing_height(&skeleton, mtn::dense_frame_at(motion, 0).as_ref());
    let _ = writeln!(
        out,
        "MOTION\nFrames: {count}\nFrame Time: {:.6}",
        (DENSE_FRAME_MS * step as u64) as f64 / 1000.0
    );
    let order = channel_order(&skeleton);
    for (i, f) in mtn::dense_frames(motion).enumerate().step_by(step) {
        let [roll, pitch, yaw] = f.body.map(urad_to_deg);
        let placed = travel.map_or_else(Placement::default, |t| t.at(i as u64 * DENSE_FRAME_MS));
        // Root: position (the robot's left is BVH X, its forward Z), then Yrotation
        // Xrotation Zrotation = yaw, pitch (about −X: nose up), roll.
        let _ = write!(
            out,
            "{:.6} {height:.6} {:.6} {:.6} {:.6} {roll:.6}",
            placed.left_mm,
            placed.forward_mm,
            yaw + placed.turn_deg,
            -pitch
        );
        for &(joint, sign) in &order {
            let _ = write!(
                out,
                " {:.6}",
                sign * urad_to_deg(f.joints.get(joint).copied().unwrap_or(0))
            );
        }
        out.push('\n');
    }
    Ok(out)
}

/// The joints in the order their channels appear, with each channel's sign.
pub fn channel_order(s: &Skeleton) -> Vec<(usize, f64)> {
    let mut order = Vec::new();
    fn walk(s: &Skeleton, bone: usize, order: &mut Vec<(usize, f64)>) {
        if let (Some(axis), Some(joint)) = (s.bones[bone].axis, s.bones[bone].joint) {
            order.push((joint, channel_of(axis).1));
        }
        for c in s.children(bone) {
            walk(s, c, order);
        }
    }
    walk(s, 0, &mut order);
    order
}

fn write_bone(out: &mut String, s: &Skeleton, bone: usize, depth: usize) {
    let pad = "  ".repeat(depth);
    let b = &s.bones[bone];
    let o = to_bvh(b.offset);
    if bone == 0 {
        let _ = writeln!(
            out,
            "ROOT {}\n{{\n{pad}  OFFSET 0.000000 0.000000 0.000000",
            b.name
        );
        let _ = writeln!(
            out,
            "{pad}  CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation"
        );
    } else {
        let _ = writeln!(
            out,
            "{pad}JOINT {}\n{pad}{{\n{pad}  OFFSET {:.6} {:.6} {:.6}",
            b.name, o.x, o.y, o.z
        );
        if let Some(axis) = b.axis {
            let _ = writeln!(out, "{pad}  CHANNELS 1 {}", channel_of(axis).0);
        }
    }
    let children: Vec<usize> = s.children(bone).collect();
    let tips: Vec<usize> = children
        .iter()
        .copied()
        .filter(|&c| s.bones[c].axis.is_none())
        .collect();
    for &c in &children {
        if s.bones[c].axis.is_some() {
            write_bone(out, s, c, depth + 1);
        }
    }
    // A tip becomes the End Site of a joint with nothing else below it (BVH gives a
    // joint children or one End Site, not both).
    if let ([tip], true) = (tips.as_slice(), children.len() == 1) {
        let t = to_bvh(s.bones[*tip].offset);
        let _ = writeln!(
            out,
            "{pad}  End Site\n{pad}  {{\n{pad}    OFFSET {:.6} {:.6} {:.6}\n{pad}  }}",
            t.x, t.y, t.z
        );
    }
    let _ = writeln!(out, "{pad}}}");
}

/// How high the body must be for the lowest paw to touch the ground in `frame`.
fn standing_height(s: &Skeleton, frame: Option<&mtn::DenseFrame>) -> f64 {
    let Some(f) = frame else { return 0.0 };
    let angles: Vec<f64> = f.joints.iter().map(|&u| u as f64 * 1e-6).collect();
    let pose = s.pose(&angles, [0.0; 3]);
    let lowest = pose.positions.iter().map(|p| p.z).fold(0.0f64, f64::min);
    -lowest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn travel_is_straight_between_its_moments_and_held_outside_them() {
        let at = |forward_mm, turn_deg| Placement {
            forward_mm,
            left_mm: -forward_mm,
            turn_deg,
        };
        let travel = Travel {
            places: vec![
                (100, at(10.0, 0.0)),
                (200, at(30.0, 90.0)),
                (252, at(30.0, 360.0)),
            ],
        };
        assert_eq!(travel.at(0), at(10.0, 0.0));
        assert_eq!(travel.at(150), at(20.0, 45.0));
        assert_eq!(travel.at(200), at(30.0, 90.0));
        assert_eq!(travel.at(239), at(30.0, 292.5));
        assert_eq!(travel.at(9999), at(30.0, 360.0));
        assert_eq!(Travel::default().at(5), Placement::default());
    }
}
