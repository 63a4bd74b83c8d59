//! `aibo-motion export`: a motion as a BVH of the robot's own skeleton.

use super::{motion_to_view, Outcome, ViewArgs};
use aibo_motion::view::export::{self, Placement, Rate, Travel};

/// Which frames to write: [`Rate`] on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportRate {
    /// Every 8 ms frame the robot plays.
    Dense,
    /// The 16 ms grid MTN keyframes lie on.
    Grid,
}

impl From<ExportRate> for Rate {
    fn from(frames: ExportRate) -> Rate {
        match frames {
            ExportRate::Dense => Rate::Dense,
            ExportRate::Grid => Rate::Grid,
        }
    }
}
use aibo_motion::fsio;
use aibo_motion::mtn::{self, Motion};
use aibo_motion::robot::profile::Profile;
use anyhow::{anyhow, Result};
use std::path::PathBuf;

/// Write a motion as a BVH of the AIBO's own skeleton (one joint per robot joint, named
/// by its semantic name, one rotation channel each), for Blender and any mocap viewer.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion export dance.mtn -o dance.bvh\n  \
    aibo-motion export dance.mtn --rate grid -o dance16.bvh\n  \
    aibo-motion export walk.mtn --in-place -o treading.bvh\n\n\
    BVH axes: Y up, the robot facing +Z, its left on +X; millimetres. Joint senses are \
    the profile's (for example a positive head_tilt lifts the nose). The root travels as \
    the simulated body does (`simulate`'s path), so a walk walks in Blender; --in-place \
    keeps it over the origin.")]
pub struct Args {
    /// An MTN motion, or motion capture (BVH, ASF/AMC, MRTK) with --profile (built with
    /// `build`'s defaults, so the BVH shows what the robot would do).
    pub file: PathBuf,
    /// Output BVH file (`-` for stdout).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
    /// dense: every 8 ms frame the robot plays; grid: the keyframes' 16 ms grid.
    #[arg(long, value_enum, default_value_t = ExportRate::Dense)]
    pub rate: ExportRate,
    /// Keep the root over the origin: the robot treads where it stands, as the MTN's
    /// joints alone show it.
    #[arg(long)]
    pub in_place: bool,
    #[command(flatten)]
    pub view: ViewArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let (motion, profile) = motion_to_view(&args.file, &args.view)?;
    let travel = if args.in_place {
        None
    } else {
        travel(&motion, &profile)
    };
    let text = export::bvh(&motion, &profile, args.rate.into(), travel.as_ref())
        .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    fsio::write_bytes(&args.output, &[&args.file], text.as_bytes())?;
    Ok(Outcome::Success)
}

/// Where the simulated body goes (`simulate`'s path); none for a motion too long to
/// export (the export says so), or where there is no simulation (it stays in place).
fn travel(motion: &Motion, profile: &Profile) -> Option<Travel> {
    if mtn::dense_frame_count(motion) > export::MAX_FRAMES {
        return None;
    }
    #[cfg(feature = "physics")]
    {
        use aibo_motion::stability::physics::{Solver, SERVO_TORQUE_NM};
        match super::simulate::simulated(motion, profile, SERVO_TORQUE_NM, Solver::Standard) {
            Ok(report) => {
                if let Some(fall) = &report.fall {
                    tracing::warn!(
                        "the simulated robot falls at {:.2} s: the BVH travels as far as it got",
                        fall.at_ms as f64 / 1000.0
                    );
                }
                let places = report
                    .path
                    .iter()
                    .map(|p| {
                        let placed = Placement {
                            forward_mm: p.x_mm,
                            left_mm: p.y_mm,
                            turn_deg: p.heading_deg,
                        };
                        (p.t_ms, placed)
                    })
                    .collect();
                Some(Travel { places })
            }
            Err(e) => {
                tracing::warn!("the body stays over the origin: {e}");
                None
            }
        }
    }
    #[cfg(not(feature = "physics"))]
    {
        let _ = profile;
        tracing::warn!(
            "the body stays over the origin: this build has no physics (the `physics` feature)"
        );
        None
    }
}
