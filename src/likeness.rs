//! How much a built motion looks like the performer's.
//!
//! Each of the eight limb segments is compared as a direction in its own body frame
//! (x forward, y left, z up): the performer's, from world positions (see
//! [`crate::retarget::Performer`]), against the AIBO segment that plays it, from the
//! robot skeleton's forward kinematics over the written motion's own playback. The pairs:
//! upper arm and front upper leg, forearm and front lower leg, thigh and hind upper leg,
//! shin and hind lower leg. The head's direction (where the face points) is compared
//! too. A figure is the angle between the two directions, over every frame of the
//! performance.
//!
//! A dog is not a person: at the stand posture the AIBO's knees are bent (about 30°)
//! where a standing person's are straight, so a performer standing still already scores
//! about 15°. Poses past a joint's limits (arms straight overhead) cannot be played; the
//! figure says on how many frames each limb asked for one.

use crate::mtn::{dense_frames, Motion};
use crate::retarget::{Limb, Tracks};
use crate::robot::profile::Profile;
use crate::robot::skeleton::Skeleton;
use crate::units::urad_to_rad;
use glam::DVec3;

/// Angles between the performer's and the robot's directions over a performance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub median_deg: f64,
    pub p90_deg: f64,
    /// The share of samples (0 to 1) over 45°.
    pub over_45: f64,
    pub samples: usize,
}

impl Figure {
    /// The figure of `angles` (degrees); `None` for no samples.
    pub fn of(angles: &[f64]) -> Option<Figure> {
        let mut v: Vec<f64> = angles.iter().copied().filter(|a| a.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        // Linear between the nearest ranks, so that the median of an even count is the
        // mean of the middle two.
        let at = |q: f64| {
            let x = (v.len() - 1) as f64 * q;
            let (i, t) = (x.floor() as usize, x.fract());
            v[i] + (v[(i + 1).min(v.len() - 1)] - v[i]) * t
        };
        Some(Figure {
            median_deg: at(0.5),
            p90_deg: at(0.9),
            over_45: v.iter().filter(|&&a| a > 45.0).count() as f64 / v.len() as f64,
            samples: v.len(),
        })
    }
}

/// One performer segment and the robot segment that plays it.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// `left upper arm`, `right shin`, …
    pub performer: String,
    /// `lf upper leg`, `rh lower leg`, …
    pub robot: String,
    pub figure: Figure,
}

/// A limb whose poses the robot's joint limits could not reach on some frames.
#[derive(Debug, Clone, PartialEq)]
pub struct BeyondLimits {
    /// `left_arm`, …
    pub limb: String,
    /// The share of frames (0 to 1) on which any of its leg's joints was asked past a
    /// limit (by more than a degree).
    pub share: f64,
    /// Each such joint, with its own share.
    pub joints: Vec<(String, f64)>,
}

/// The likeness of a built motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Likeness {
    /// Every limb segment on every frame, together.
    pub overall: Figure,
    pub segments: Vec<Segment>,
    /// Where the face points.
    pub head: Option<Figure>,
    pub beyond_limits: Vec<BeyondLimits>,
    /// How long the robot walks where the performer travels (and the performance waits
    /// for a walk to finish), s: there the limbs are not compared (the gait moves the
    /// legs, or stands them home between two walks), and the head and the path figures
    /// stand for the likeness.
    pub walking_s: f64,
    /// How long the limbs were compared, s: the frames of the limb sampled longest, which
    /// is the performance less `walking_s` where the performer has limbs (none where they
    /// have none). Beside a take that walks most of the time it can be short, and the
    /// limbs' figures rest on that alone.
    pub limbs_s: f64,
}

/// Which robot leg plays each limb.
const LEGS: [(Limb, &str, [&str; 2]); 4] = [
    (Limb::LeftArm, "lf", ["left upper arm", "left forearm"]),
    (Limb::RightArm, "rf", ["right upper arm", "right forearm"]),
    (Limb::LeftLeg, "lh", ["left thigh", "left shin"]),
    (Limb::RightLeg, "rh", ["right thigh", "right shin"]),
];

/// How much `motion` (made from `tracks` for `profile`, the tracks' first frame playing
/// `source_start_ms` into it) looks like the performance the tracks were measured from;
/// `None` when the profile has no skeleton to pose or the performer no limb or head to
/// compare.
pub fn likeness(
    tracks: &Tracks,
    profile: &Profile,
    motion: &Motion,
    source_start_ms: u64,
    walking: &[(f64, f64)],
) -> Option<Likeness> {
    likeness_of(
        tracks,
        profile,
        walking,
        played(motion, source_start_ms, tracks),
    )
}

/// The joint angles (radians, profile order) `motion` holds at each of `tracks`' frames
/// in turn, its first frame playing `source_start_ms` into the motion: the dense frame
/// due at the frame's time (the last one past the motion's end; `None` for a motion
/// with no frames). Call it for frames 0, 1, 2, … in order.
pub fn played<'a>(
    motion: &'a Motion,
    source_start_ms: u64,
    tracks: &'a Tracks,
) -> impl FnMut(usize) -> Option<Vec<f64>> + 'a {
    let mut playback = dense_frames(motion).peekable();
    let ms_per_dense = crate::mtn::DENSE_FRAME_MS as f64;
    move |f| {
        let t_ms = source_start_ms as f64 + f as f64 * tracks.frame_time * 1000.0;
        let index = (t_ms / ms_per_dense).round() as u64;
        let mut due = None;
        while let Some(frame) = playback.next_if(|d| d.index <= index) {
            due = Some(frame);
        }
        let due = due.or_else(|| playback.peek().cloned())?;
        Some(due.joints.iter().map(|&u| urad_to_rad(u)).collect())
    }
}

/// How much the robot's poses look like the performance: `pose(f)` gives the joint
/// angles (radians, profile order) the robot holds at the tracks' frame `f`, called for
/// each frame in order (`None`: the robot's motion has ended, and the comparison with
/// it). See [`likeness`].
pub fn likeness_of(
    tracks: &Tracks,
    profile: &Profile,
    walking: &[(f64, f64)],
    mut pose: impl FnMut(usize) -> Option<Vec<f64>>,
) -> Option<Likeness> {
    let skeleton = Skeleton::of(profile).ok()?;
    let bone = |name: &str| skeleton.bones.iter().position(|b| b.name == name);
    let performer = &tracks.performer;
    // (limb track, hip, knee, paw bones) for each limb both sides have.
    let pairs: Vec<_> = LEGS
        .iter()
        .filter_map(|&(limb, prefix, names)| {
            let track = performer.limb(limb)?;
            let hip = bone(&format!("{prefix}_j1"))?;
            let knee = bone(&format!("{prefix}_j3"))?;
            let paw = bone(&format!("{prefix}_paw"))?;
            Some((track, [hip, knee, paw], prefix, names))
        })
        .collect();
    let nose = bone("nose");
    let head_bone = nose.and_then(|n| skeleton.bones[n].parent);
    let head = performer.head.as_ref().zip(nose.zip(head_bone));

    let mut limb_angles: Vec<Vec<f64>> = vec![Vec::new(); pairs.len() * 2];
    let mut head_angles = Vec::new();
    let mut walking_frames = 0usize;
    for f in 0..tracks.frames {
        let Some(angles) = pose(f) else {
            break;
        };
        let pose = skeleton.pose(&angles, [0.0; 3]);
        let p = &pose.positions;
        let t_s = f as f64 * tracks.frame_time;
        let walks = walking.iter().any(|&(a, b)| t_s >= a && t_s <= b);
        if walks {
            walking_frames += 1;
        }
        for (k, (track, [hip, knee, paw], _, _)) in pairs.iter().enumerate() {
            if walks {
                // The gait moves the legs, not the performer's limbs.
                continue;
            }
            let Some(&(upper, lower)) = track.bones.get(f) else {
                continue;
            };
            limb_angles[2 * k].push(angle_deg(upper, p[*knee] - p[*hip]));
            limb_angles[2 * k + 1].push(angle_deg(lower, p[*paw] - p[*knee]));
        }
        if let Some((track, (nose, head))) = head {
            if let Some(&(forward, _)) = track.axes.get(f) {
                head_angles.push(angle_deg(forward, p[nose] - p[head]));
            }
        }
    }
    let segments: Vec<Segment> = pairs
        .iter()
        .enumerate()
        .flat_map(|(k, (_, _, prefix, names))| {
            let angles = &limb_angles;
            [(0, "upper leg"), (1, "lower leg")]
                .into_iter()
                .filter_map(move |(s, robot)| {
                    Some(Segment {
                        performer: names[s].to_string(),
                        robot: format!("{prefix} {robot}"),
                        figure: Figure::of(&angles[2 * k + s])?,
                    })
                })
        })
        .collect();
    // The limbs' figures rest on the frames of the limb sampled longest.
    let limb_frames = limb_angles.iter().map(Vec::len).max().unwrap_or(0);
    let all: Vec<f64> = limb_angles.concat();
    let head = Figure::of(&head_angles);
    let overall = Figure::of(&all).or(head)?;
    Some(Likeness {
        overall,
        segments,
        head,
        beyond_limits: beyond_limits(tracks, profile),
        walking_s: walking_frames as f64 * tracks.frame_time,
        limbs_s: limb_frames as f64 * tracks.frame_time,
    })
}

/// On each of `tracks`' frames, how much more the robot leg that plays `limb` looks like
/// the limb (degrees, its two segments' angles summed, as [`likeness_of`] measures them)
/// following the limb's tracks, within the joints' limits, than held in the stand
/// posture: what raising that leg's paw buys. `None` where the profile has no skeleton
/// or stand posture to pose, or the performer not the limb.
pub fn lift_gains(tracks: &Tracks, profile: &Profile, limb: Limb) -> Option<Vec<f64>> {
    let skeleton = Skeleton::of(profile).ok()?;
    let stand = profile.postures.get("stand")?;
    let &(_, prefix, _) = LEGS.iter().find(|(l, _, _)| *l == limb)?;
    let bone = |name: String| skeleton.bones.iter().position(|b| b.name == name);
    let hip = bone(format!("{prefix}_j1"))?;
    let knee = bone(format!("{prefix}_j3"))?;
    let paw = bone(format!("{prefix}_paw"))?;
    let segments = |angles: &[f64]| {
        let p = skeleton.pose(angles, [0.0; 3]).positions;
        (p[knee] - p[hip], p[paw] - p[knee])
    };
    let (stand_upper, stand_lower) = segments(&stand.joints);
    let leg: Vec<usize> = (1..=3)
        .filter_map(|k| {
            let name = format!("{prefix}_j{k}");
            profile.joints.iter().position(|j| j.name == name)
        })
        .collect();
    let track = tracks.performer.limb(limb)?;
    let mut angles = stand.joints.clone();
    let gains = track.bones.iter().enumerate().map(|(f, &(upper, lower))| {
        for &j in &leg {
            let wanted = tracks.joints[j].as_ref().and_then(|t| t.get(f)).copied();
            let wanted = wanted.unwrap_or(stand.joints[j]);
            angles[j] = profile.joints[j]
                .limits
                .map_or(wanted, |l| wanted.clamp(l.min, l.max));
        }
        let (free_upper, free_lower) = segments(&angles);
        let held = angle_deg(upper, stand_upper) + angle_deg(lower, stand_lower);
        let free = angle_deg(upper, free_upper) + angle_deg(lower, free_lower);
        // NaN (a zero-length segment) gains nothing.
        (held - free).max(0.0)
    });
    Some(gains.collect())
}

/// The angle between two directions, degrees; NaN where either is zero.
fn angle_deg(a: DVec3, b: DVec3) -> f64 {
    match (a.try_normalize(), b.try_normalize()) {
        (Some(a), Some(b)) => a.dot(b).clamp(-1.0, 1.0).acos().to_degrees(),
        _ => f64::NAN,
    }
}

/// Limbs whose tracks asked a leg joint past its limits, before the build held them.
fn beyond_limits(tracks: &Tracks, profile: &Profile) -> Vec<BeyondLimits> {
    let slack = 1f64.to_radians();
    let frames = tracks.frames.max(1) as f64;
    LEGS.iter()
        .filter_map(|&(limb, prefix, _)| {
            let mut any = vec![false; tracks.frames];
            let mut joints = Vec::new();
            for (i, joint) in profile.joints.iter().enumerate() {
                let (Some(limits), Some(Some(track))) = (joint.limits, tracks.joints.get(i)) else {
                    continue;
                };
                if !joint.name.starts_with(&format!("{prefix}_")) {
                    continue;
                }
                let mut count = 0;
                for (flag, &v) in any.iter_mut().zip(track) {
                    if v < limits.min - slack || v > limits.max + slack {
                        *flag = true;
                        count += 1;
                    }
                }
                if count > 0 {
                    joints.push((joint.name.clone(), count as f64 / frames));
                }
            }
            let share = any.iter().filter(|&&b| b).count() as f64 / frames;
            (share > 0.0).then(|| BeyondLimits {
                limb: limb.name().to_string(),
                share,
                joints,
            })
        })
        .collect()
}
