//! The physics check (`simulate`) on a 60 s motion: it must run faster than the motion
//! lasts. The motion is made here (no shared samples needed): an ERS-7 that shifts its
//! weight and steps with each leg in turn, nods, and comes back to standing, over and
//! over for a minute.
//!
//! Run with `cargo bench --bench simulate`; the ratio is 60 s over the time it reports.

use aibo_motion::mtn::{Keyframe, Layout, Motion};
use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::physics::{simulate, SERVO_TORQUE_NM};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// A minute of stepping: 30 rounds of four keyframes about half a second apart.
fn minute_of_steps(profile: &Profile) -> Motion {
    let stand: Vec<f64> = profile.postures["stand"].joints.clone();
    let at = |name: &str| profile.joint_index(name).unwrap();
    let urad = |joints: &[f64]| joints.iter().map(|r| (r * 1e6).round() as i32).collect();
    let mut keyframes = Vec::new();
    let mut push = |joints: &[f64], frames: u32| {
        keyframes.push(Keyframe {
            frames_before: frames,
            roll: 0,
            pitch: -17453,
            yaw: 0,
            joints: urad(joints),
        })
    };
    push(&stand, 0);
    let legs = ["lf", "rh", "rf", "lh"];
    for k in 0..30 {
        let leg = legs[k % 4];
        let front = leg.ends_with('f');
        let left = leg.starts_with('l');
        // Weight away from the leg: every J1 swung toward it, the far side in.
        let mut shifted = stand.clone();
        for l in ["lf", "rf", "lh", "rh"] {
            let toward = if front { 1.0 } else { -1.0 } * if l.ends_with('f') { 1.0 } else { -1.0 };
            shifted[at(&format!("{l}_j1"))] += 0.26 * toward;
            let out = if l.starts_with('l') == left {
                0.26
            } else {
                -0.1
            };
            shifted[at(&format!("{l}_j2"))] += out;
        }
        shifted[at("head_tilt")] = -0.5;
        let mut lifted = shifted.clone();
        lifted[at(&format!("{leg}_j1"))] += if front { 0.5 } else { -0.5 };
        lifted[at(&format!("{leg}_j3"))] += 0.6;
        push(&shifted, 30);
        push(&lifted, 30);
        push(&shifted, 30);
        push(&stand, 30);
    }
    Motion {
        name: "a_stand#stand_steps".into(),
        creator: "aibo-motion bench".into(),
        design_label: profile.design_label.clone(),
        frame_ms: 16,
        locators: profile.joints.iter().map(|j| j.locator.clone()).collect(),
        keyframes,
        layout: Layout::default(),
    }
}

fn minute(c: &mut Criterion) {
    let profile = Profile::builtin("ERS-7").unwrap();
    let motion = minute_of_steps(&profile);
    let seconds = motion.duration_ms() as f64 / 1000.0;
    assert!((59.0..=62.0).contains(&seconds), "{seconds} s");
    let report = simulate(&motion, &profile, SERVO_TORQUE_NM).unwrap();
    println!("the bench's motion: {seconds:.1} s; {}", report.summary());
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.bench_function(format!("ERS-7, {seconds:.0} s of stepping"), |b| {
        b.iter(|| simulate(black_box(&motion), &profile, SERVO_TORQUE_NM).unwrap())
    });
    group.finish();
}

criterion_group!(benches, minute);
criterion_main!(benches);
