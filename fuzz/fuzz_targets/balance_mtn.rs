//! Any MTN that decodes can be tested for balance, statically and (short ones) in the
//! simulation, without a panic, a hang or a non-finite report (its slips and what the
//! joint angles demand of them included), whatever its joint values, body attitude or
//! segment lengths.
#![no_main]

use aibo_motion::mtn;
use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::{physics, statics as balance};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = mtn::decode(data) else {
        return;
    };
    let motion = decoded.motion;
    let profile = Profile::for_design_label(&motion.design_label)
        .or_else(|| Profile::builtin("ERS-7"))
        .expect("built-in profiles");
    // Every frame is tested: keep the fuzzer on variety rather than on length.
    let frames = mtn::dense_frame_count(&motion);
    if frames > 5_000 {
        return;
    }
    if let Ok(report) = balance::check(&motion, &profile, balance::DEFAULT_MARGIN_MM) {
        assert!(report.spans.iter().all(|s| s.start_ms <= s.end_ms));
        // The rock is an angle from 0 to a quarter turn, whatever the poses.
        assert!(report
            .spans
            .iter()
            .all(|s| (0.0..=90.0).contains(&s.rock_deg)));
        let _ = report.summary();
    }
    if frames <= 500 {
        if let Ok(report) = physics::simulate(&motion, &profile, physics::SERVO_TORQUE_NM) {
            assert!(report
                .path
                .iter()
                .all(|p| p.x_mm.is_finite() && p.z_mm.is_finite()));
            // What each paw slid, and what its joint angles demand of it (the slide
            // shared by load): distances, whatever the poses.
            assert!(report.slipped.iter().all(|s| {
                s.max_mm.is_finite() && s.demanded_mm.is_finite() && s.demanded_mm >= 0.0
            }));
        }
    }
});
