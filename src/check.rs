//! Checks a motion against a robot profile: every keyframe value outside a joint's
//! software limits (or, for a binary output, not one of its states), and every segment
//! that moves a joint faster than its maximum speed.

use crate::mtn::Motion;
use crate::robot::profile::Profile;
use serde::Serialize;

/// How far past a limit a value may sit before it counts. Sony's tools turned degrees
/// into micro-radians with π ≈ 3.1416 (their 122° is 2129306 µrad, 4 above the exact
/// 2129302), which puts their own values up to about 6 µrad past an exact limit.
pub const LIMIT_TOLERANCE_URAD: i32 = 10;

/// One broken limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Violation {
    /// A keyframe value beyond the joint's software range.
    Limit {
        keyframe: usize,
        time_ms: u64,
        joint: String,
        locator: String,
        value_urad: i32,
        /// The bound that was crossed.
        limit_urad: i32,
        /// `min` or `max`.
        bound: &'static str,
    },
    /// A binary output (an ear) given a value that is not one of its states.
    State {
        keyframe: usize,
        time_ms: u64,
        joint: String,
        locator: String,
        value: i32,
        /// The output's legal values.
        legal: Vec<i32>,
    },
    /// The segment into `keyframe` moves the joint faster than it can.
    Speed {
        keyframe: usize,
        time_ms: u64,
        joint: String,
        locator: String,
        from_urad: i32,
        to_urad: i32,
        duration_ms: u64,
        speed_rad_s: f64,
        limit_rad_s: f64,
    },
}

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub violations: Vec<Violation>,
    /// Columns that could not be checked, and other doubts.
    pub warnings: Vec<String>,
    /// The locators of the motion's columns that are no joint of the profile: they
    /// were not checked.
    pub unchecked: Vec<String>,
}

impl Report {
    /// Whether every column of the motion was checked.
    pub fn complete(&self) -> bool {
        self.unchecked.is_empty()
    }
}

/// Checks every keyframe and segment of `motion` against `profile`. Joints are matched
/// by locator; a locator the profile does not know is reported as a warning.
pub fn check(motion: &Motion, profile: &Profile) -> Report {
    let mut violations = Vec::new();
    let mut warnings = Vec::new();
    let mut unchecked = Vec::new();
    if !motion
        .design_label
        .eq_ignore_ascii_case(&profile.design_label)
    {
        warnings.push(format!(
            "the motion is for {}, checked against {}",
            motion.design_label,
            profile.title()
        ));
    }
    let times = motion.keyframe_times_ms();
    for (col, locator) in motion.locators.iter().enumerate() {
        let Some(joint) = profile.joint_by_locator(locator) else {
            warnings.push(format!(
                "column {col} ({locator}) is not a joint of the {}: not checked",
                profile.model
            ));
            unchecked.push(locator.clone());
            continue;
        };
        let values = motion
            .keyframes
            .iter()
            .map(|kf| kf.joints.get(col).copied());
        let mut previous: Option<i32> = None;
        for (k, value) in values.enumerate() {
            let Some(value) = value else { continue };
            let time_ms = times.get(k).copied().unwrap_or_default();
            if joint.binary && !joint.values.contains(&value) {
                violations.push(Violation::State {
                    keyframe: k,
                    time_ms,
                    joint: joint.name.clone(),
                    locator: locator.clone(),
                    value,
                    legal: joint.values.clone(),
                });
            }
            if let Some(limits) = joint.limits {
                let (min, max) = limits.urad();
                let crossed = if value < min.saturating_sub(LIMIT_TOLERANCE_URAD) {
                    Some((min, "min"))
                } else if value > max.saturating_add(LIMIT_TOLERANCE_URAD) {
                    Some((max, "max"))
                } else {
                    None
                };
                if let Some((limit_urad, bound)) = crossed {
                    violations.push(Violation::Limit {
                        keyframe: k,
                        time_ms,
                        joint: joint.name.clone(),
                        locator: locator.clone(),
                        value_urad: value,
                        limit_urad,
                        bound,
                    });
                }
            }
            if let (Some(from), Some(limit), Some(kf)) =
                (previous, joint.max_speed, motion.keyframes.get(k))
            {
                let duration_ms = Motion::segment_ms(kf);
                let change = (i64::from(value) - i64::from(from)).unsigned_abs() as f64 / 1e6;
                let speed = change / (duration_ms as f64 / 1000.0);
                if speed > limit {
                    violations.push(Violation::Speed {
                        keyframe: k,
                        time_ms,
                        joint: joint.name.clone(),
                        locator: locator.clone(),
                        from_urad: from,
                        to_urad: value,
                        duration_ms,
                        speed_rad_s: speed,
                        limit_rad_s: limit,
                    });
                }
            }
            previous = Some(value);
        }
    }
    violations.sort_by_key(|v| match v {
        Violation::Limit { keyframe, .. }
        | Violation::State { keyframe, .. }
        | Violation::Speed { keyframe, .. } => *keyframe,
    });
    Report {
        violations,
        warnings,
        unchecked,
    }
}
