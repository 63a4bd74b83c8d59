//! Angle units. The library works in f64 radians; MTN files and the wire use i32
//! micro-radians, rounded to nearest.

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
