//! Properties of the MTN codec on random motions, and dense playback against a
//! straightforward reference written from Sony's rule: a segment of n interpolation
//! frames becomes 2n + 1 in-between 8 ms frames, stepping by the truncated delta.

use crate::common;

use aibo_motion::mtn::{self, Keyframe, Layout, Motion};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    // Any 8-bit characters, up to the 255-byte string limit.
    proptest::collection::vec(any::<u8>(), 0..=255)
        .prop_map(|b| b.into_iter().map(char::from).collect())
}

fn motion() -> impl Strategy<Value = Motion> {
    (0usize..24, 1usize..12).prop_flat_map(|(joints, keyframes)| {
        let keyframe = (
            0u32..300,
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            proptest::collection::vec(any::<i32>(), joints),
        )
            .prop_map(|(n, roll, pitch, yaw, joints)| Keyframe {
                frames_before: n,
                roll,
                pitch,
                yaw,
                joints,
            });
        (
            text(),
            text(),
            text(),
            any::<u16>(),
            proptest::collection::vec(text(), joints),
            proptest::collection::vec(keyframe, keyframes),
            (
                any::<u16>(),
                any::<u16>(),
                any::<u32>(),
                proptest::option::of(any::<u32>()),
            ),
        )
            .prop_map(
                |(name, creator, design_label, frame_ms, locators, mut keyframes, layout)| {
                    keyframes[0].frames_before = 0;
                    Motion {
                        name,
                        creator,
                        design_label,
                        frame_ms,
                        locators,
                        keyframes,
                        layout: Layout {
                            major_version: layout.0,
                            minor_version: layout.1,
                            option: layout.2,
                            stored_section3_size: layout.3,
                        },
                    }
                },
            )
    })
}

/// One 8 ms frame by the rule as written: for segment k with n interpolation frames,
/// frames f = 0..=2n+1 hold v0 + f·trunc((v1 − v0)/(2n + 2)); then the last keyframe.
fn reference_dense(m: &Motion) -> Vec<Vec<i64>> {
    let row = |kf: &Keyframe| -> Vec<i64> {
        [kf.roll, kf.pitch, kf.yaw]
            .iter()
            .chain(&kf.joints)
            .map(|&v| i64::from(v))
            .collect()
    };
    let mut frames = Vec::new();
    for pair in m.keyframes.windows(2) {
        let (a, b) = (row(&pair[0]), row(&pair[1]));
        let steps = 2 * i64::from(pair[1].frames_before) + 2;
        for f in 0..steps {
            frames.push(
                a.iter()
                    .zip(&b)
                    .map(|(&v0, &v1)| {
                        // Truncation toward zero, spelled out with magnitudes.
                        let diff = v1 - v0;
                        let magnitude = diff.abs() / steps;
                        v0 + f * diff.signum() * magnitude
                    })
                    .collect(),
            );
        }
    }
    frames.push(row(m.keyframes.last().unwrap()));
    frames
}

fn library_dense(m: &Motion) -> Vec<Vec<i64>> {
    mtn::dense_frames(m)
        .enumerate()
        .map(|(i, f)| {
            assert_eq!(f.index, i as u64);
            f.body
                .iter()
                .chain(&f.joints)
                .map(|&v| i64::from(v))
                .collect()
        })
        .collect()
}

proptest! {
    #[test]
    fn write_read_write_is_unchanged(m in motion()) {
        let bytes = mtn::encode(&m).unwrap();
        prop_assert_eq!(bytes.len() % 4, 0);
        let decoded = mtn::decode(&bytes).unwrap();
        prop_assert_eq!(&decoded.motion, &m);
        prop_assert_eq!(mtn::encode(&decoded.motion).unwrap(), bytes.clone());
        let via_json = mtn::from_json(&mtn::to_json(&m)).unwrap();
        prop_assert_eq!(mtn::encode(&via_json).unwrap(), bytes);
    }

    #[test]
    fn dense_playback_follows_sonys_rule(m in motion()) {
        let dense = library_dense(&m);
        prop_assert_eq!(dense.len() as u64, mtn::dense_frame_count(&m));
        prop_assert_eq!(dense, reference_dense(&m));
    }

    #[test]
    fn any_dense_frame_alone_equals_the_played_one(m in motion()) {
        let played: Vec<mtn::DenseFrame> = mtn::dense_frames(&m).collect();
        for f in &played {
            prop_assert_eq!(mtn::dense_frame_at(&m, f.index), Some(f.clone()));
        }
        prop_assert_eq!(mtn::dense_frame_at(&m, played.len() as u64), None);
    }
}

#[test]
fn dense_known_answer() {
    // One joint from 0 to 10 with n = 1: n8 = 3, delta = 10 / 4 = 2 (truncated).
    // Then to -5 with n = 0: n8 = 1, delta = -15 / 2 = -7 (toward zero).
    let mut m = common::synthetic_motion(1, &[1, 0]);
    m.keyframes[0].joints = vec![0];
    m.keyframes[1].joints = vec![10];
    m.keyframes[2].joints = vec![-5];
    let joint: Vec<i32> = mtn::dense_frames(&m).map(|f| f.joints[0]).collect();
    assert_eq!(joint, [0, 2, 4, 6, 10, 3, -5]);
    assert_eq!(mtn::dense_frame_count(&m), 7);
}

#[test]
fn single_keyframe_plays_one_frame() {
    let m = common::synthetic_motion(3, &[]);
    let frames: Vec<_> = mtn::dense_frames(&m).collect();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].joints, m.keyframes[0].joints);
}

#[test]
fn extreme_values_do_not_overflow() {
    let mut m = common::synthetic_motion(1, &[3]);
    m.keyframes[0].joints = vec![i32::MIN];
    m.keyframes[1].joints = vec![i32::MAX];
    let dense = library_dense(&m);
    assert_eq!(dense, reference_dense(&m));
    assert_eq!(*dense.last().unwrap().last().unwrap(), i64::from(i32::MAX));
}
