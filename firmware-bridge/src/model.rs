//! The robot models the bridge knows: joints with limits and speeds, and postures.
//!
//! Generated at build time from the repository's `profiles/*.toml`, the same files the
//! host embeds, so the guard and the host cannot disagree about a joint.

/// One joint as the guard sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointSpec {
    /// Semantic name (`head_tilt`, `lf_j1`, …).
    pub name: &'static str,
    /// OPEN-R locator (`PRM:/r1/c1-Joint2:11`).
    pub locator: &'static str,
    /// Lowest allowed angle, µrad (for a binary output, its lowest legal value).
    pub min: i32,
    /// Highest allowed angle, µrad (for a binary output, its highest legal value).
    pub max: i32,
    /// Largest step in one 8 ms servo frame, µrad, rounded up; 0 = no speed limit.
    pub max_step: u32,
    /// A binary output (ears), not an angle.
    pub binary: bool,
    /// A binary output's legal values, sorted (OPEN-R's states 0 and 1); empty for angles.
    pub values: &'static [i32],
}

impl JointSpec {
    /// The legal value nearest `v` for a binary output (the lower on a tie); `v` itself
    /// for an angle, whose limits the guard applies separately.
    pub fn legal_value(&self, v: i64) -> i64 {
        self.values
            .iter()
            .map(|&x| i64::from(x))
            .min_by_key(|&x| (x - v).unsigned_abs())
            .unwrap_or(v)
    }
}

/// A standard posture: one angle per joint, µrad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostureSpec {
    pub name: &'static str,
    pub angles: &'static [i32],
}

/// A robot model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// `ERS-7`, `ERS-210`, `ERS-220`.
    pub name: &'static str,
    /// Sony's design label (`DRX-1000`, …), as MTN files carry it.
    pub design_label: &'static str,
    pub joints: &'static [JointSpec],
    pub postures: &'static [PostureSpec],
}

include!(concat!(env!("OUT_DIR"), "/models.rs"));

impl Model {
    /// A model by name or design label, case-insensitive (`ers-7`, `DRX-1000`).
    pub fn find(name: &str) -> Option<&'static Model> {
        MODELS.iter().find(|m| {
            m.name.eq_ignore_ascii_case(name) || m.design_label.eq_ignore_ascii_case(name)
        })
    }

    pub fn posture(&self, name: &str) -> Option<&'static PostureSpec> {
        self.postures.iter().find(|p| p.name == name)
    }

    /// Where the watchdog takes the robot before relaxing: lying down (`sleep`) is the
    /// one posture a robot can be let go limp in without falling.
    pub fn rest_posture(&self) -> Option<&'static PostureSpec> {
        self.posture("sleep").or(self.postures.first())
    }
}
