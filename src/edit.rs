//! Motion operations on MTN motions: change model by joint meaning, mirror, reverse,
//! scale time.

use crate::check::check;
use crate::mtn::{Keyframe, Layout, Motion};
use crate::robot::profile::Profile;
use crate::units::rad_to_urad;

/// The motion on another model: each target joint takes the source joint of the same
/// meaning (semantic name; the tail's locators swap meaning between models, names do
/// not), joints the source lacks take the target's stand posture, and every value is
/// held within the target's limits. Says what it dropped, added and clamped.
pub fn change_model(motion: &Motion, from: &Profile, to: &Profile) -> (Motion, Vec<String>) {
    let mut notes = Vec::new();
    // Source column of each target joint, by meaning.
    let columns: Vec<Option<usize>> = to
        .joints
        .iter()
        .map(|t| {
            motion
                .locators
                .iter()
                .position(|loc| from.joint_by_locator(loc).is_some_and(|j| j.name == t.name))
        })
        .collect();
    let dropped: Vec<&str> = motion
        .locators
        .iter()
        .filter_map(|loc| from.joint_by_locator(loc))
        .filter(|j| to.joint_by_name(&j.name).is_none())
        .map(|j| j.name.as_str())
        .collect();
    if !dropped.is_empty() {
        notes.push(format!(
            "dropped (the {} has none): {}",
            to.model,
            dropped.join(", ")
        ));
    }
    let added: Vec<&str> = to
        .joints
        .iter()
        .zip(&columns)
        .filter(|(_, c)| c.is_none())
        .map(|(j, _)| j.name.as_str())
        .collect();
    if !added.is_empty() {
        notes.push(format!("added at the stand posture: {}", added.join(", ")));
    }
    let stand = to.postures.get("stand");
    let mut clamped = 0usize;
    let keyframes = motion
        .keyframes
        .iter()
        .map(|kf| Keyframe {
            joints: to
                .joints
                .iter()
                .zip(&columns)
                .enumerate()
                .map(|(i, (joint, column))| {
                    let value = match column {
                        Some(c) => kf.joints.get(*c).copied().unwrap_or(0),
                        None => stand.map_or(0, |p| rad_to_urad(p.joints[i])),
                    };
                    match joint.limits {
                        Some(l) => {
                            let (min, max) = l.urad();
                            let held = value.clamp(min, max);
                            clamped += usize::from(held != value);
                            held
                        }
                        None => value,
                    }
                })
                .collect(),
            ..kf.clone()
        })
        .collect();
    if clamped > 0 {
        notes.push(format!(
            "{clamped} values held within the {}'s limits",
            to.model
        ));
    }
    let converted = Motion {
        design_label: to.design_label.clone(),
        locators: to.joints.iter().map(|j| j.locator.clone()).collect(),
        keyframes,
        layout: Layout::default(),
        ..motion.clone()
    };
    (converted, notes)
}

/// The motion with every segment that moves a joint faster than `profile` allows made
/// just long enough (whole 16 ms frames) for its fastest joint, and the time that added,
/// in ms. A motion brought to another model (a slower one) keeps its joints' speeds so.
pub fn fit_speeds(motion: &Motion, profile: &Profile) -> Result<(Motion, u64), ScaleError> {
    let limits: Vec<Option<f64>> = motion
        .locators
        .iter()
        .map(|loc| profile.joint_by_locator(loc).and_then(|j| j.max_speed))
        .collect();
    let mut keyframes = motion.keyframes.clone();
    let mut added_ms = 0;
    for k in 1..keyframes.len() {
        let (before, rest) = keyframes.split_at_mut(k);
        let (from, to) = (&before[k - 1], &mut rest[0]);
        // The fewest whole frames in which every joint keeps to its speed.
        let frames_needed = from
            .joints
            .iter()
            .zip(&to.joints)
            .zip(&limits)
            .filter_map(|((&a, &b), limit)| {
                let change = (i64::from(b) - i64::from(a)).unsigned_abs() as f64 / 1e6;
                let seconds = change / (*limit)?;
                Some((seconds * 1000.0 / f64::from(crate::mtn::FRAME_MS)).ceil())
            })
            .fold(0.0, f64::max);
        let frames = f64::from(to.frames_before) + 1.0;
        if frames_needed > frames {
            let n = frames_needed - 1.0;
            if n > f64::from(crate::mtn::MAX_FRAMES_BEFORE) {
                return Err(ScaleError::TooLong { keyframe: k });
            }
            added_ms += (frames_needed - frames) as u64 * u64::from(crate::mtn::FRAME_MS);
            to.frames_before = n as u32;
        }
    }
    let fitted = Motion {
        keyframes,
        layout: Layout::default(),
        ..motion.clone()
    };
    Ok((fitted, added_ms))
}

/// Left and right swapped: left legs take the right legs' values and the reverse (their
/// angles mean the same on both sides), ears swap, and head pan and roll, tail pan and
/// body roll and yaw change sign.
pub fn mirror(motion: &Motion, profile: &Profile) -> Motion {
    let name_of = |loc: &str| profile.joint_by_locator(loc).map(|j| j.name.as_str());
    let partner = |name: &str| -> Option<String> {
        let swapped = if let Some(rest) = name.strip_prefix("lf_") {
            format!("rf_{rest}")
        } else if let Some(rest) = name.strip_prefix("rf_") {
            format!("lf_{rest}")
        } else if let Some(rest) = name.strip_prefix("lh_") {
            format!("rh_{rest}")
        } else if let Some(rest) = name.strip_prefix("rh_") {
            format!("lh_{rest}")
        } else if name == "l_ear" {
            "r_ear".to_string()
        } else if name == "r_ear" {
            "l_ear".to_string()
        } else {
            return None;
        };
        Some(swapped)
    };
    let columns: Vec<(usize, i32)> = motion
        .locators
        .iter()
        .enumerate()
        .map(|(c, loc)| {
            let Some(name) = name_of(loc) else {
                return (c, 1);
            };
            if let Some(other) = partner(name) {
                let source = motion
                    .locators
                    .iter()
                    .position(|l| name_of(l) == Some(other.as_str()))
                    .unwrap_or(c);
                (source, 1)
            } else if ["head_pan", "head_roll", "tail_pan"].contains(&name) {
                (c, -1)
            } else {
                (c, 1)
            }
        })
        .collect();
    let keyframes = motion
        .keyframes
        .iter()
        .map(|kf| Keyframe {
            roll: kf.roll.saturating_neg(),
            yaw: kf.yaw.saturating_neg(),
            joints: columns
                .iter()
                .map(|&(c, sign)| kf.joints.get(c).copied().unwrap_or(0).saturating_mul(sign))
                .collect(),
            ..kf.clone()
        })
        .collect();
    Motion {
        keyframes,
        layout: Layout::default(),
        ..motion.clone()
    }
}

/// The motion played backwards, each segment keeping its duration.
pub fn reverse(motion: &Motion) -> Motion {
    let k = motion.keyframes.len();
    let keyframes = (0..k)
        .map(|i| {
            let source = &motion.keyframes[k - 1 - i];
            Keyframe {
                // Segment i−1 → i of the reversed motion is segment k−1−i → k−i of the original.
                frames_before: if i == 0 {
                    0
                } else {
                    motion.keyframes[k - i].frames_before
                },
                ..source.clone()
            }
        })
        .collect();
    Motion {
        keyframes,
        layout: Layout::default(),
        ..motion.clone()
    }
}

/// Why a motion cannot be played at another speed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScaleError {
    #[error("speed factor {factor}: it must be above 0")]
    Factor { factor: f64 },
    /// A segment would last longer than Sony's player can count.
    #[error("keyframe {keyframe}: its segment would last more than {} interpolation frames, which Sony's player cannot play", crate::mtn::MAX_FRAMES_BEFORE)]
    TooLong { keyframe: usize },
    /// A joint that kept up before would not: the first such, and how fast it would go.
    #[error("keyframe {keyframe}: {joint} would move at {speed_rad_s:.2} rad/s, over its {limit_rad_s:.2} rad/s")]
    TooFast {
        keyframe: usize,
        joint: String,
        speed_rad_s: f64,
        limit_rad_s: f64,
    },
}

/// Every segment's duration divided by `factor` (2 plays twice as fast), to the nearest
/// 16 ms frame and at least one. With `profile`, refuses a result that moves a joint
/// faster than it can where the original did not (naming the first), so that slowing
/// down one of Sony's brisk walks still works.
pub fn scale_time(
    motion: &Motion,
    factor: f64,
    profile: Option<&Profile>,
) -> Result<(Motion, Vec<String>), ScaleError> {
    if !(factor.is_finite() && factor > 0.0) {
        return Err(ScaleError::Factor { factor });
    }
    let keyframes = motion
        .keyframes
        .iter()
        .enumerate()
        .map(|(i, kf)| {
            let frames = (f64::from(kf.frames_before) + 1.0) / factor;
            let n = frames.round().max(1.0) - 1.0;
            if i > 0 && n > f64::from(crate::mtn::MAX_FRAMES_BEFORE) {
                return Err(ScaleError::TooLong { keyframe: i });
            }
            Ok(Keyframe {
                frames_before: if i == 0 { 0 } else { n as u32 },
                ..kf.clone()
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scaled = Motion {
        keyframes,
        layout: Layout::default(),
        ..motion.clone()
    };
    let mut notes = Vec::new();
    let floor = (1..motion.keyframes.len())
        .filter(|&i| {
            let (before, after) = (&motion.keyframes[i], &scaled.keyframes[i]);
            factor > 1.0 && before.frames_before == after.frames_before
        })
        .count();
    if floor > 0 {
        notes.push(format!(
            "{floor} segments already last one 16 ms frame and cannot get shorter"
        ));
    }
    if let Some(profile) = profile {
        let too_fast = |m: &Motion| -> Vec<(usize, String, f64, f64)> {
            check(m, profile)
                .violations
                .into_iter()
                .filter_map(|v| match v {
                    crate::check::Violation::Speed {
                        keyframe,
                        joint,
                        speed_rad_s,
                        limit_rad_s,
                        ..
                    } => Some((keyframe, joint, speed_rad_s, limit_rad_s)),
                    _ => None,
                })
                .collect()
        };
        let before = too_fast(motion);
        let new = too_fast(&scaled)
            .into_iter()
            .find(|(k, j, ..)| !before.iter().any(|(bk, bj, ..)| bk == k && bj == j));
        if let Some((keyframe, joint, speed_rad_s, limit_rad_s)) = new {
            return Err(ScaleError::TooFast {
                keyframe,
                joint,
                speed_rad_s,
                limit_rad_s,
            });
        }
    }
    Ok((scaled, notes))
}
