//! Any BVH the reader accepts builds a motion for every model without panicking, the
//! motion encodes and passes its own model's check, and its likeness figure is a set of
//! angles (0° to 180°, shares 0 to 1); the balance stage runs on it (the default) and
//! reports finite figures, with the take's timing kept or waiting for its walks, and a
//! T-pose at the take's ends played or left out (never the whole take).
#![no_main]

use aibo_motion::check::{check, Violation};
use aibo_motion::keyframes;
use aibo_motion::likeness::Figure;
use aibo_motion::mtn;
use aibo_motion::pipeline::{build, Balance, BuildOptions, Locomotion, TPose, Timing};
use aibo_motion::retarget::{self, Neutral};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::bvh;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // No skips: the readers' bounds on frame time and duration keep each run finite.
    let Ok(clip) = bvh::read(data) else { return };
    if clip.frames == 0 {
        return;
    }
    // The head's neutral: the typical relation, or a frame the input picks.
    let neutral = match data.last() {
        Some(&b) if b % 2 == 1 => Neutral::Frame(usize::from(b) % clip.frames),
        _ => Neutral::Typical,
    };
    let options = BuildOptions {
        retarget: retarget::Options {
            neutral,
            ..retarget::Options::default()
        },
        keyframes: keyframes::Options {
            name: "fuzz".into(),
            body_attitude: true,
            ..keyframes::Options::default()
        },
        // The balance stage, the walks and the proof too, as every default build runs them.
        balance: Balance::default(),
        locomotion: Locomotion::default(),
        // The take's timing, the performance waiting for its walks, or the last walk
        // home by the performance's end (a third of the inputs each, by length over 5, so
        // that they cross the T-pose's thirds).
        timing: match data.len() / 5 % 3 {
            0 => Timing::Keep,
            1 => Timing::Wait,
            _ => Timing::Fit,
        },
        // A T-pose at the ends played, or (a third of the inputs) left out.
        t_pose: match data.len() % 3 {
            0 => TPose::Skip,
            _ => TPose::Keep,
        },
    };
    for model in ["ERS-210", "ERS-7"] {
        let profile = Profile::builtin(model).unwrap();
        if let Ok(built) = build(&clip, &profile, &options) {
            assert!(
                built.t_pose.lead + built.t_pose.trail < clip.frames,
                "{:?}",
                built.t_pose
            );
            if let Some(l) = built.likeness(&profile) {
                let sane = |f: &Figure| {
                    (0.0..=180.0).contains(&f.median_deg)
                        && (0.0..=180.0).contains(&f.p90_deg)
                        && (0.0..=1.0).contains(&f.over_45)
                };
                assert!(sane(&l.overall), "{l:?}");
                assert!(l.segments.iter().all(|s| sane(&s.figure)), "{l:?}");
                assert!(l.head.as_ref().is_none_or(sane), "{l:?}");
            }
            if let Some(kept) = &built.balance {
                assert!(kept.margin_mm.is_finite() && kept.repairs <= 4, "{kept:?}");
                assert!(kept.rows.iter().all(|r| r.shift_mm.is_finite()), "{kept:?}");
                assert!(
                    kept.waits
                        .iter()
                        .all(|w| w.at_s.is_finite() && w.wait_s > 0.0 && w.wait_s.is_finite()),
                    "{:?}",
                    kept.waits
                );
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
