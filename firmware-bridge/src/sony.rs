//! Sony's interpolation rule, the one definition both ends use.
//!
//! A segment of `n` 16 ms interpolation frames is played as `n8 = 2n + 1` in-between
//! 8 ms frames. Each value moves by `(v1 − v0) / (n8 + 1)` per frame, truncated toward
//! zero, for frames `f = 0 ..= n8`; the segment's end value comes exactly at the next
//! segment's `f = 0`.

/// Number of 8 ms in-between frames for a segment of `frames_before` 16 ms frames.
/// (MTN allows up to `i32::MAX` frames, which gives at most `u32::MAX`.)
pub fn in_between_frames(frames_before: u32) -> u32 {
    frames_before.saturating_mul(2).saturating_add(1)
}

/// The value at 8 ms frame `f` (0 ..= n8) of a segment from `v0` to `v1`.
/// Never overflows: the result lies between `v0` and `v1`.
pub fn interpolate(v0: i32, v1: i32, f: u32, n8: u32) -> i32 {
    let delta = (i64::from(v1) - i64::from(v0)) / (i64::from(n8) + 1);
    (i64::from(v0) + i64::from(f.min(n8)) * delta) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_truncate_toward_zero_and_stay_between_the_ends() {
        // 1 frame → 3 in-betweens, step 10/4 = 2 (truncated), so 0, 2, 4, 6 then 10.
        let n8 = in_between_frames(1);
        let got: [i32; 4] = core::array::from_fn(|f| interpolate(0, 10, f as u32, n8));
        assert_eq!(got, [0, 2, 4, 6]);
        // Negative direction truncates toward zero too: −10/4 = −2.
        assert_eq!(interpolate(0, -10, 3, n8), -6);
        // Extremes cannot overflow.
        assert_eq!(interpolate(i32::MIN, i32::MAX, 0, 1), i32::MIN);
        assert!(interpolate(i32::MIN, i32::MAX, 1, 1) < i32::MAX);
    }
}
