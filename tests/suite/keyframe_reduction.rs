//! The keyframe reduction's two promises: the written motion's dense playback stays
//! within the tolerance of the track at every 8 ms frame, and no solution has fewer
//! keyframes (checked against an exhaustive search on small cases).

use crate::common;

use aibo_motion::keyframes::{effective_tolerance, reduce, to_keyframes};
use aibo_motion::mtn::{self, Layout, Motion};

use common::Rng;

/// Random walks with bounded steps and occasional holds: like joint tracks.
fn tracks(rng: &mut Rng, samples: usize, channels: usize, step: i64) -> Vec<Vec<i32>> {
    let mut rows = vec![vec![0i32; channels]; samples];
    for c in 0..channels {
        let mut v = rng.range(-500_000, 500_000);
        let mut velocity = 0;
        for row in rows.iter_mut() {
            if rng.range(0, 9) == 0 {
                velocity = rng.range(-step, step);
            }
            v += velocity;
            row[c] = v as i32;
        }
    }
    rows
}

fn motion(rows: &[Vec<i32>], keys: &[usize], spf: usize) -> Motion {
    Motion {
        name: "t".into(),
        creator: "t".into(),
        design_label: "DRX-1000".into(),
        frame_ms: 16,
        locators: (3..rows[0].len()).map(|c| format!("c{c}")).collect(),
        keyframes: to_keyframes(rows, keys, spf),
        layout: Layout::default(),
    }
}

/// The grid track at 8 ms frame d, linearly interpolated.
fn track_at(rows: &[Vec<i32>], d: u64, spf: usize) -> Vec<f64> {
    let per = 2 * spf as u64;
    let (k, r) = ((d / per) as usize, (d % per) as f64 / per as f64);
    let a = &rows[k];
    let b = rows.get(k + 1).unwrap_or(a);
    a.iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x) + (f64::from(y) - f64::from(x)) * r)
        .collect()
}

#[test]
fn dense_playback_stays_within_the_tolerance() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..60 {
        let spf = 1 + case % 2;
        let samples = rng.range(2, 300) as usize;
        let channels = 3 + rng.range(1, 8) as usize;
        let tol = rng.range(500, 20_000);
        let step = rng.range(10, 40_000);
        let rows = tracks(&mut rng, samples, channels, step);
        let keys = reduce(&rows, tol, spf);
        assert_eq!(keys.first(), Some(&0));
        assert_eq!(keys.last(), Some(&(samples - 1)));
        let m = motion(&rows, &keys, spf);
        assert_eq!(
            mtn::dense_frame_count(&m),
            (2 * spf * (samples - 1) + 1) as u64
        );
        let mut worst = 0.0f64;
        for frame in mtn::dense_frames(&m) {
            let want = track_at(&rows, frame.index, spf);
            let got = frame
                .body
                .iter()
                .chain(&frame.joints)
                .map(|&v| f64::from(v));
            for (g, w) in got.zip(&want) {
                worst = worst.max((g - w).abs());
            }
        }
        assert!(worst <= tol as f64, "case {case}: error {worst} > {tol}");
        // And the file round-trips.
        let bytes = mtn::encode(&m).unwrap();
        assert_eq!(mtn::decode(&bytes).unwrap().motion, m);
    }
}

/// Whether every sample between a and b lies within `tol` of the straight line.
fn segment_fits(rows: &[Vec<i32>], a: usize, b: usize, tol: f64) -> bool {
    (a + 1..b).all(|i| {
        let s = (i - a) as f64 / (b - a) as f64;
        rows[i].iter().enumerate().all(|(c, &v)| {
            let line = f64::from(rows[a][c]) + (f64::from(rows[b][c]) - f64::from(rows[a][c])) * s;
            (f64::from(v) - line).abs() <= tol + 1e-6
        })
    })
}

/// The fewest keyframes by trying every subset of the inner samples.
fn exhaustive_minimum(rows: &[Vec<i32>], tol: f64, max_steps: usize) -> usize {
    let inner = rows.len() - 2;
    (0u32..1 << inner)
        .filter_map(|mask| {
            let mut keys = vec![0];
            keys.extend((0..inner).filter(|i| mask & (1 << i) != 0).map(|i| i + 1));
            keys.push(rows.len() - 1);
            let ok = keys
                .windows(2)
                .all(|w| w[1] - w[0] <= max_steps && segment_fits(rows, w[0], w[1], tol));
            ok.then_some(keys.len())
        })
        .min()
        .unwrap_or(usize::MAX)
}

#[test]
fn no_solution_has_fewer_keyframes() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for case in 0..300 {
        let samples = rng.range(3, 13) as usize;
        let channels = 3 + rng.range(1, 3) as usize;
        let tol = rng.range(1_000, 30_000);
        let step = rng.range(1_000, 20_000);
        let rows = tracks(&mut rng, samples, channels, step);
        let keys = reduce(&rows, tol, 1);
        let eff = effective_tolerance(tol, 1);
        for w in keys.windows(2) {
            assert!(
                segment_fits(&rows, w[0], w[1], eff),
                "case {case}: {keys:?}"
            );
        }
        let best = exhaustive_minimum(&rows, eff, samples);
        assert_eq!(keys.len(), best, "case {case}: {keys:?}");
    }
}
