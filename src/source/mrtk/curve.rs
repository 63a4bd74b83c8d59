//! MRTK's curves as Unity evaluates them: keys with tangents and weights, wrap modes,
//! Hermite segments and weighted Bézier ones, and a pose's position and rotation curves.

use glam::{DQuat, DVec3};

/// One key of a float curve, in the file's f32 (a recording holds it as compactly as
/// the file does; evaluation is in f64). Simple curves have zero tangents and weights
/// and the "both" weighted mode, which evaluates as a straight line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    pub time: f32,
    pub value: f32,
    pub in_tangent: f32,
    pub out_tangent: f32,
    pub in_weight: f32,
    pub out_weight: f32,
    /// 0 none, 1 in, 2 out, 3 both.
    pub weighted_mode: i32,
}

impl Key {
    /// A key as MRTK's recorder writes it: zero tangents and weights in mode "both",
    /// which makes the curve a straight line to the next key.
    pub fn linear(time: f32, value: f32) -> Key {
        Key {
            time,
            value,
            in_tangent: 0.0,
            out_tangent: 0.0,
            in_weight: 0.0,
            out_weight: 0.0,
            weighted_mode: 3,
        }
    }
}

/// Unity wrap modes: 2 loop, 4 ping-pong, anything else clamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Clamp,
    Loop,
    PingPong,
}

impl Wrap {
    pub(super) fn from_unity(mode: i32) -> Wrap {
        match mode {
            2 => Wrap::Loop,
            4 => Wrap::PingPong,
            _ => Wrap::Clamp,
        }
    }
}

/// A float curve (bool curves are float curves read as steps).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub pre_wrap: Wrap,
    pub post_wrap: Wrap,
    pub keys: Vec<Key>,
}

impl Curve {
    /// The value at time `t`, or `None` for a curve without keys.
    pub fn evaluate(&self, t: f64) -> Option<f64> {
        let first = self.keys.first()?;
        let last = self.keys.last()?;
        let (start, end) = (f64::from(first.time), f64::from(last.time));
        if self.keys.len() == 1 || end <= start {
            return Some(f64::from(if t < end { first.value } else { last.value }));
        }
        let t = wrap_time(t, start, end, self.pre_wrap, self.post_wrap);
        if t >= end {
            return Some(f64::from(last.value));
        }
        // The segment holding t: the last key at or before it.
        let i = self
            .keys
            .partition_point(|k| f64::from(k.time) <= t)
            .clamp(1, self.keys.len() - 1);
        Some(segment(&self.keys[i - 1], &self.keys[i], t))
    }

    /// A bool curve's state at `t`: `value > 0.5` of the last key at or before `t`
    /// (the first key's before it); false without keys.
    pub fn state(&self, t: f64) -> bool {
        let i = self.keys.partition_point(|k| f64::from(k.time) <= t);
        self.keys
            .get(i.saturating_sub(1))
            .is_some_and(|k| k.value > 0.5)
    }
}

fn wrap_time(t: f64, start: f64, end: f64, pre: Wrap, post: Wrap) -> f64 {
    let mode = if t < start {
        pre
    } else if t > end {
        post
    } else {
        return t;
    };
    let length = end - start;
    match mode {
        Wrap::Clamp => t.clamp(start, end),
        Wrap::Loop => start + (t - start).rem_euclid(length),
        Wrap::PingPong => {
            let phase = (t - start).rem_euclid(2.0 * length);
            start
                + if phase > length {
                    2.0 * length - phase
                } else {
                    phase
                }
        }
    }
}

/// Evaluates between two keys as Unity does: Hermite when neither side is weighted,
/// else a weighted cubic Bézier; an infinite tangent holds the first value.
fn segment(k0: &Key, k1: &Key, t: f64) -> f64 {
    let (t0, v0, t1, v1) = (
        f64::from(k0.time),
        f64::from(k0.value),
        f64::from(k1.time),
        f64::from(k1.value),
    );
    let dt = t1 - t0;
    if dt <= 0.0 || t >= t1 {
        return v1;
    }
    if t <= t0 {
        return v0;
    }
    let (m0, m1) = (f64::from(k0.out_tangent), f64::from(k1.in_tangent));
    if m0.is_infinite() || m1.is_infinite() {
        return v0;
    }
    let out_weighted = k0.weighted_mode & 2 != 0;
    let in_weighted = k1.weighted_mode & 1 != 0;
    if !out_weighted && !in_weighted {
        let s = (t - t0) / dt;
        let (s2, s3) = (s * s, s * s * s);
        let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
        let h10 = s3 - 2.0 * s2 + s;
        let h01 = -2.0 * s3 + 3.0 * s2;
        let h11 = s3 - s2;
        return h00 * v0 + h10 * dt * m0 + h01 * v1 + h11 * dt * m1;
    }
    let w0 = if out_weighted {
        f64::from(k0.out_weight)
    } else {
        1.0 / 3.0
    };
    let w1 = if in_weighted {
        f64::from(k1.in_weight)
    } else {
        1.0 / 3.0
    };
    let x = [t0, t0 + w0 * dt, t1 - w1 * dt, t1];
    let y = [v0, v0 + w0 * dt * m0, v1 - w1 * dt * m1, v1];
    let u = solve_bezier(&x, t);
    bezier(&y, u)
}

fn bezier(p: &[f64; 4], u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * p[0] + 3.0 * v * v * u * p[1] + 3.0 * v * u * u * p[2] + u * u * u * p[3]
}

/// The parameter u in [0, 1] where the Bézier's time reaches `t`, by bisection (the time
/// polynomial rises monotonically for weights in [0, 1]).
fn solve_bezier(x: &[f64; 4], t: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if bezier(x, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Position and rotation curves of one tracked pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseCurves {
    pub position: [Curve; 3],
    pub rotation: [Curve; 4],
}

impl PoseCurves {
    pub(super) fn has_data(&self) -> bool {
        self.position
            .iter()
            .chain(&self.rotation)
            .any(|c| !c.keys.is_empty())
    }

    pub(super) fn curves(&self) -> impl Iterator<Item = &Curve> {
        self.position.iter().chain(&self.rotation)
    }

    /// The pose at `t` in Unity's axes; the quaternion normalized.
    pub(super) fn evaluate(&self, t: f64) -> (DVec3, DQuat) {
        let p = self
            .position
            .each_ref()
            .map(|c| c.evaluate(t).unwrap_or(0.0));
        let r = self
            .rotation
            .each_ref()
            .map(|c| c.evaluate(t).unwrap_or(0.0));
        let q = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
        let q = if q.length_squared() > 1e-12 && q.is_finite() {
            q.normalize()
        } else {
            DQuat::IDENTITY
        };
        (DVec3::from_array(p), q)
    }
}
