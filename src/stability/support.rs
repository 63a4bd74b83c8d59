//! The support polygon seen from above: the convex hull of the points that carry the
//! robot, the centre of mass's signed distance to its edge, and which way that is.

use glam::DVec2;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Forward,
    ForwardLeft,
    Left,
    BackLeft,
    Back,
    BackRight,
    Right,
    ForwardRight,
}

impl Direction {
    /// The direction of a horizontal vector in the robot's heading (x forward, y left).
    pub fn of(v: DVec2) -> Direction {
        let eighth = ((v.y.atan2(v.x).to_degrees() + 360.0 + 22.5) / 45.0).floor() as i64 % 8;
        [
            Direction::Forward,
            Direction::ForwardLeft,
            Direction::Left,
            Direction::BackLeft,
            Direction::Back,
            Direction::BackRight,
            Direction::Right,
            Direction::ForwardRight,
        ][eighth as usize]
    }

    pub fn words(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::ForwardLeft => "forward and left",
            Direction::Left => "to the left",
            Direction::BackLeft => "back and left",
            Direction::Back => "backward",
            Direction::BackRight => "back and right",
            Direction::Right => "to the right",
            Direction::ForwardRight => "forward and right",
        }
    }
}

/// The convex hull of points, counter-clockwise, without repeats (Andrew's monotone chain).
pub fn convex_hull(points: &[DVec2]) -> Vec<DVec2> {
    let mut p: Vec<DVec2> = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup_by(|a, b| a.distance(*b) < 1e-9);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<DVec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 1e-9
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

/// The distance from `c` to the edge of the polygon `hull` (counter-clockwise), positive
/// inside; and, outside, the unit direction from the nearest point of the polygon to `c`
/// (zero inside, or exactly on a line of support).
pub fn signed_distance(c: DVec2, hull: &[DVec2]) -> (f64, DVec2) {
    let nearest = nearest_on_boundary(c, hull);
    let Some(q) = nearest else {
        return (f64::NEG_INFINITY, DVec2::ZERO);
    };
    let d = c.distance(q);
    let inside = hull.len() >= 3
        && (0..hull.len()).all(|i| {
            let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
            (b - a).perp_dot(c - a) > 0.0
        });
    if inside {
        (d, DVec2::ZERO)
    } else if d < 1e-9 {
        (0.0, DVec2::ZERO)
    } else {
        (-d, (c - q) / d)
    }
}

/// The point of the polygon's boundary (or segment, or point) nearest `c`.
fn nearest_on_boundary(c: DVec2, hull: &[DVec2]) -> Option<DVec2> {
    match hull.len() {
        0 => None,
        1 => Some(hull[0]),
        n => (0..n)
            .map(|i| {
                let (a, b) = (hull[i], hull[(i + 1) % n]);
                let t = ((c - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                a + (b - a) * t
            })
            .min_by(|p, q| c.distance(*p).total_cmp(&c.distance(*q))),
    }
}

/// From the centre of mass toward the nearest edge of the polygon it is inside.
pub fn nearest_edge_direction(c: DVec2, hull: &[DVec2]) -> Option<DVec2> {
    let q = nearest_on_boundary(c, hull)?;
    let v = q - c;
    (v.length() > 1e-9).then(|| v.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hull_and_the_distance_to_it_are_what_geometry_says() {
        // A 100 mm square with an inner point and a repeated corner: the hull is the
        // four corners, counter-clockwise.
        let sq: Vec<DVec2> = [
            (0.0, 0.0),
            (100.0, 0.0),
            (100.0, 100.0),
            (0.0, 100.0),
            (50.0, 50.0),
            (0.0, 0.0),
        ]
        .iter()
        .map(|&(x, y)| DVec2::new(x, y))
        .collect();
        let hull = convex_hull(&sq);
        assert_eq!(hull.len(), 4);
        let area: f64 = (0..4)
            .map(|i| hull[i].perp_dot(hull[(i + 1) % 4]))
            .sum::<f64>()
            / 2.0;
        assert!((area - 10_000.0).abs() < 1e-9, "counter-clockwise: {area}");
        // Inside: the distance to the nearest edge; outside: negative, pointing out.
        let (d, toward) = signed_distance(DVec2::new(30.0, 50.0), &hull);
        assert!((d - 30.0).abs() < 1e-9 && toward == DVec2::ZERO);
        let (d, toward) = signed_distance(DVec2::new(130.0, 50.0), &hull);
        assert!((d + 30.0).abs() < 1e-9 && (toward - DVec2::X).length() < 1e-9);
        let (d, _) = signed_distance(DVec2::new(103.0, 104.0), &hull);
        assert!((d + 5.0).abs() < 1e-9, "to the corner: {d}");
        // A line of support: on it, zero; off it, negative.
        let line = convex_hull(&[DVec2::new(0.0, 0.0), DVec2::new(0.0, 100.0)]);
        assert_eq!(signed_distance(DVec2::new(0.0, 40.0), &line).0, 0.0);
        assert!((signed_distance(DVec2::new(7.0, 40.0), &line).0 + 7.0).abs() < 1e-9);
    }
}
