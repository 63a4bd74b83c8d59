//! A built motion eases into and out of its postures: the ramps from the start posture
//! and to the end posture move no joint faster than a quarter of its top speed, measured
//! on the written file's own dense playback (Sony's rule, 8 ms frames).

use crate::common;

use aibo_motion::keyframes::RAMP_SPEED_SHARE;
use aibo_motion::mtn;
use aibo_motion::pipeline::{build, Balance, BuildOptions};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::bvh;

#[test]
fn the_ramps_to_and_from_the_postures_move_at_a_quarter_of_joint_speed() {
    // A performer who holds its head turned and its arms raised from the first frame to
    // the last: the motion must ramp from stand into that pose and back out of it.
    let pose = vec![
        ("Head", 'y', 40.0),
        ("LeftArm", 'x', -70.0),
        ("RightArm", 'x', -70.0),
    ];
    let text = common::performer_bvh(&vec![pose; 60], 1.0 / 30.0);
    let clip = bvh::read(text.as_bytes()).unwrap();
    // The balance stage starts and ends its rows with every paw down near the stand, so
    // with it on the ramps are short and the raise happens inside the rows; the ramps'
    // pace is measured on the performer's own pose, and bounded with the stage on too.
    for (model, balance) in [
        ("ERS-7", Balance::Off),
        ("ERS-210", Balance::Off),
        ("ERS-7", Balance::default()),
        ("ERS-210", Balance::default()),
    ] {
        let profile = Profile::builtin(model).unwrap();
        let options = BuildOptions {
            balance,
            ..BuildOptions::default()
        };
        let built = build(&clip, &profile, &options).unwrap();
        let balanced = built.balance.is_some();
        let motion = &built.motion;
        let columns: Vec<Option<f64>> = motion
            .locators
            .iter()
            .map(|l| profile.joint_by_locator(l).and_then(|j| j.max_speed))
            .collect();
        let frames: Vec<mtn::DenseFrame> = mtn::dense_frames(motion).collect();
        let end_ms = motion.duration_ms();
        if !balanced {
            assert!(built.source_start_ms >= 200, "{model}: a ramp in");
            assert!(built.ramp_out_ms >= 200, "{model}: a ramp out");
        }
        // The stage may hold the performer's first and last poses while the weight moves
        // (its padding): those rows are the stage's, so the ramps end where they begin.
        let (lead_ms, tail_ms) = built.balance.as_ref().map_or((0, 0), |k| k.padding_ms());
        let ramp_in_end_ms = built.source_start_ms - lead_ms;
        let ramp_out_ms = built.ramp_out_ms - tail_ms;
        let in_ramp = |t_ms: u64| t_ms <= ramp_in_end_ms || t_ms >= end_ms - ramp_out_ms;
        let mut fastest_share = 0.0f64;
        for pair in frames.windows(2) {
            if !(in_ramp(pair[0].index * 8) && in_ramp(pair[1].index * 8)) {
                continue;
            }
            for ((a, b), limit) in pair[0].joints.iter().zip(&pair[1].joints).zip(&columns) {
                let Some(limit) = limit else { continue };
                let speed = (i64::from(*b) - i64::from(*a)).unsigned_abs() as f64 / 1e6 / 0.008;
                fastest_share = fastest_share.max(speed / limit);
            }
        }
        // Sony's integer steps put up to a few µrad more into a segment's last step.
        assert!(
            fastest_share <= RAMP_SPEED_SHARE * 1.01,
            "{model}: a ramp moves a joint at {:.0}% of its speed",
            100.0 * fastest_share
        );
        assert!(
            balanced || fastest_share >= RAMP_SPEED_SHARE * 0.9,
            "{model}: the slowest joint sets the ramp's pace: {:.0}%",
            100.0 * fastest_share
        );
    }
}
