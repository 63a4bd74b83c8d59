//! Any byte stream, in any chunking, with or without a key: the bridge core never
//! panics, and every pose it outputs is within the model's limits and speeds.
#![no_main]

use firmware_bridge::bridge::{LIMIT_SLACK_URAD, STEP_SLACK_URAD};
use firmware_bridge::{Bridge, Config, Key, Model, MODELS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, bytes)) = data.split_first() else {
        return;
    };
    let model: &'static Model = &MODELS[usize::from(control & 3) % MODELS.len()];
    let key = (control & 4 != 0).then(|| Key::new([0x5a; 32]));
    let chunk = usize::from(control >> 3) + 1;
    let config = Config {
        key,
        hold_ticks: 3,
        max_keyframes: 64,
        ..Config::default()
    };
    let mut bridge = Bridge::new(model, config, &[]);
    let mut previous = bridge.applied().to_vec();
    let check = |pose: &[i32], previous: &mut Vec<i32>| {
        for ((v, p), j) in pose.iter().zip(previous.iter()).zip(model.joints) {
            assert!(i64::from(*v) >= i64::from(j.min) - i64::from(LIMIT_SLACK_URAD));
            assert!(i64::from(*v) <= i64::from(j.max) + i64::from(LIMIT_SLACK_URAD));
            if j.max_step > 0 {
                assert!(v.abs_diff(*p) <= j.max_step + STEP_SLACK_URAD);
            }
            if j.binary {
                assert!(j.values.contains(v), "{} = {v}", j.name);
            }
        }
        previous.copy_from_slice(pose);
    };
    for piece in bytes.chunks(chunk) {
        bridge.receive(piece, &mut |_| {});
        let out = bridge.tick(&mut |_| {});
        check(out.pose, &mut previous);
    }
    // Then let it run down: stall, ramp, relax.
    for _ in 0..400 {
        let out = bridge.tick(&mut |_| {});
        check(out.pose, &mut previous);
    }
});
