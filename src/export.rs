//! A motion as a BVH of the AIBO's own skeleton, for Blender and mocap viewers.
//!
//! One BVH joint per robot joint, named by its semantic name, with one rotation channel
//! (its axis); the root `body` carries a position (the standing height, so the paws
//! meet the ground) and the MTN's body yaw, pitch and roll. BVH axes are Y up with the
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

/// The BVH text of `motion` on `profile`'s skeleton.
pub fn bvh(motion: &Motion, profile: &Profile, rate: Rate) -> Result<String, ExportError> {
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
    for f in mtn::dense_frames(motion).step_by(step) {
        let [roll, pitch, yaw] = f.body.map(urad_to_deg);
        // Root: position, then Yrotation Xrotation Zrotation = yaw, pitch (about −X:
        // nose up), roll.
        let _ = write!(
            out,
            "0.000000 {height:.6} 0.000000 {yaw:.6} {:.6} {roll:.6}",
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
