//! Any BVH the reader accepts builds a motion for every model without panicking, and
//! the motion encodes and passes its own model's check.
#![no_main]

use aibo_motion::check::{check, Violation};
use aibo_motion::keyframes::{build_motion, Options};
use aibo_motion::mtn;
use aibo_motion::profile::Profile;
use aibo_motion::retarget::{retarget, Options as RetargetOptions};
use aibo_motion::source::bvh;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(clip) = bvh::read(data) else { return };
    // Keep each run short: long or wide clips are the readers' business.
    if clip.frames == 0 || clip.frames * clip.joint_count() > 20_000 || clip.frame_time > 10.0 {
        return;
    }
    for model in ["ERS-210", "ERS-7"] {
        let profile = Profile::builtin(model).unwrap();
        let Ok(tracks) = retarget(&clip, &profile, &RetargetOptions::default()) else {
            return;
        };
        let options = Options {
            frame_ms: 16,
            tolerance: 0.5f64.to_radians(),
            start_pose: "stand".into(),
            end_pose: "stand".into(),
            name: "fuzz".into(),
            creator: "fuzz".into(),
            body_attitude: true,
        };
        if let Ok(motion) = build_motion(&tracks, &profile, &options).map(|b| b.motion) {
            mtn::encode(&motion).unwrap();
            let report = check(&motion, &profile);
            assert!(
                !report
                    .violations
                    .iter()
                    .any(|v| matches!(v, Violation::Limit { .. } | Violation::Speed { .. })),
                "{:?}",
                &report.violations[..report.violations.len().min(2)]
            );
        }
    }
});
