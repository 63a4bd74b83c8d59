//! Any BVH the reader accepts builds a motion for every model without panicking, the
//! motion encodes and passes its own model's check, and its likeness figure is a set of
//! angles (0° to 180°, shares 0 to 1).
#![no_main]

use aibo_motion::check::{check, Violation};
use aibo_motion::keyframes::{build_motion, Options};
use aibo_motion::likeness::{likeness, Figure};
use aibo_motion::mtn;
use aibo_motion::profile::Profile;
use aibo_motion::retarget::{retarget, Neutral, Options as RetargetOptions};
use aibo_motion::source::bvh;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(clip) = bvh::read(data) else { return };
    // Keep each run short: long or wide clips are the readers' business.
    if clip.frames == 0 || clip.frames * clip.joint_count() > 20_000 || clip.frame_time > 10.0 {
        return;
    }
    // The head's neutral: the typical relation, or a frame the input picks.
    let neutral = match data.last() {
        Some(&b) if b % 2 == 1 => Neutral::Frame(usize::from(b) % clip.frames),
        _ => Neutral::Typical,
    };
    for model in ["ERS-210", "ERS-7"] {
        let profile = Profile::builtin(model).unwrap();
        let retarget_options = RetargetOptions {
            neutral,
            ..RetargetOptions::default()
        };
        let Ok(tracks) = retarget(&clip, &profile, &retarget_options) else {
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
        if let Ok(built) = build_motion(&tracks, &profile, &options) {
            if let Some(l) = likeness(&tracks, &profile, &built) {
                let sane = |f: &Figure| {
                    (0.0..=180.0).contains(&f.median_deg)
                        && (0.0..=180.0).contains(&f.p90_deg)
                        && (0.0..=1.0).contains(&f.over_45)
                };
                assert!(sane(&l.overall), "{l:?}");
                assert!(l.segments.iter().all(|s| sane(&s.figure)), "{l:?}");
                assert!(l.head.as_ref().map_or(true, sane), "{l:?}");
            }
            let motion = built.motion;
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
