//! The simulated body's path beside the performer's: what `build` says of its walks
//! (and how it chooses between two ways of steering them) and `simulate --take` of a
//! motion and the take it was built from.

use super::physics;
use glam::DVec2;

/// The simulated body's travel beside the performer's (scaled by leg length, walks
/// only where `build` reports it): how far each went, where each ended, and how far apart
/// the paths run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PathFigures {
    pub performer_mm: f64,
    pub robot_mm: f64,
    /// The robot's distance as a share of the performer's (none where the performer
    /// does not travel: less than a millimetre scaled).
    pub share: Option<f64>,
    pub performer_heading_deg: f64,
    pub robot_heading_deg: f64,
    /// How far apart the two ends are, mm.
    pub end_gap_mm: f64,
    /// The largest distance from a point of either path to the other path, mm (the
    /// robot's path through its two-second means; whenever each gets there).
    pub widest_gap_mm: f64,
}

impl PathFigures {
    /// The simulated body's `path` beside the performer's (`performer`, mm from where
    /// the robot starts, in its first heading; ending `heading` radians turned left).
    pub fn compare(
        performer: &[DVec2],
        heading: f64,
        path: &[physics::PathPoint],
    ) -> Option<PathFigures> {
        let end = path.last()?;
        let &performer_end = performer.last()?;
        // The body sways over its paws at every step: its path is measured through the
        // mean of where it is over two seconds (more than a cycle), every half second.
        // (The path is in time order: each mean reads only its own two seconds.)
        let mean_at = |t: u64| {
            let from = path.partition_point(|p| p.t_ms + 1000 < t);
            let to = path.partition_point(|p| p.t_ms <= t + 1000);
            let near = &path[from..to.max(from)];
            let sum: DVec2 = near.iter().map(|p| DVec2::new(p.x_mm, p.y_mm)).sum();
            sum / near.len().max(1) as f64
        };
        let robot: Vec<DVec2> = (0..=end.t_ms / 500).map(|k| mean_at(k * 500)).collect();
        // (+ 0.0: an empty sum is −0.0, which would print as "-0".)
        let length = |line: &[DVec2]| -> f64 {
            line.windows(2).map(|w| w[0].distance(w[1])).sum::<f64>() + 0.0
        };
        // Through the means, a slow crawl still sways: its path is measured from point to
        // point of it at least [`STRIDE_MM`] apart, and the performer's alike.
        let (performer_mm, robot_mm) = (
            length(&thinned(performer, STRIDE_MM)),
            length(&thinned(&robot, STRIDE_MM)),
        );
        // Every point of one path against every segment of the other: the performer's
        // path (a point a row) thinned to a point every 10 mm keeps an hour's walk cheap.
        let thinned = thinned(performer, 10.0);
        let widest_gap_mm = robot
            .iter()
            .map(|&p| off_path(p, &thinned))
            .chain(thinned.iter().map(|&p| off_path(p, &robot)))
            .fold(0.0, f64::max);
        Some(PathFigures {
            performer_mm: performer_mm.round(),
            robot_mm: robot_mm.round(),
            share: (performer_mm >= 1.0).then(|| (robot_mm / performer_mm * 100.0).round() / 100.0),
            performer_heading_deg: heading.to_degrees().round(),
            robot_heading_deg: end.heading_deg.round(),
            end_gap_mm: (DVec2::new(end.x_mm, end.y_mm) - performer_end)
                .length()
                .round(),
            widest_gap_mm: widest_gap_mm.round(),
        })
    }

    /// How far the body's walk misses the performer's, in one figure: the gap between
    /// the ends in leg lengths (`leg_mm`), plus the difference of the final headings
    /// in units of 20°, plus how far short of or past the performer's distance it went,
    /// in units of 30% (the logarithm of the share over that of 1.3). A leg length off,
    /// 20° off and 30% further count alike. Whole turns count: a dog that spins three
    /// times where the dancer spun four faces their way but did not walk their walk (on
    /// Bandai's spins, the shorter way ranked a crawl that went a third of the distance
    /// over a trot that went four fifths).
    pub fn miss(&self, leg_mm: f64) -> f64 {
        let heading = self.robot_heading_deg - self.performer_heading_deg;
        let distance = self
            .share
            .filter(|s| *s > 0.0)
            .map_or(0.0, |s| s.ln().abs() / 1.3f64.ln());
        self.end_gap_mm / leg_mm.max(1.0) + heading.abs() / 20.0 + distance
    }

    /// One line for people.
    pub fn text(&self) -> String {
        let share = self
            .share
            .map_or_else(String::new, |s| format!("{:.0}% of ", s * 100.0));
        format!(
            "the body travels {:.0} mm, {share}the performer's {:.0} mm scaled to its legs; \
             it ends heading {:.0}° (the performer {:.0}°), {:.0} mm from the performer's scaled end; \
             the paths are at most {:.0} mm apart",
            self.robot_mm,
            self.performer_mm,
            self.robot_heading_deg,
            self.performer_heading_deg,
            self.end_gap_mm,
            self.widest_gap_mm
        )
    }
}

/// Travel is measured in steps at least this long, mm: the crawl sways its body 30 mm
/// to either side, and through its two-second means a slow crawl's sway stays in (round
/// a circle, walked at a third of the performer's pace, it measured 143% of the
/// performer's distance with its means within 15 mm of the performer's path; in 30 mm
/// steps, 100%).
const STRIDE_MM: f64 = 30.0;

/// The points of `path` at least `mm` from the last one kept, and its end.
fn thinned(path: &[DVec2], mm: f64) -> Vec<DVec2> {
    let mut kept: Vec<DVec2> = Vec::new();
    for &p in path {
        if kept.last().is_none_or(|k| k.distance(p) >= mm) {
            kept.push(p);
        }
    }
    if let (Some(&end), Some(last)) = (path.last(), kept.last_mut()) {
        if *last != end {
            kept.push(end);
        }
    }
    kept
}

/// How far `p` is from the nearest point of the polyline `path`.
fn off_path(p: DVec2, path: &[DVec2]) -> f64 {
    let to_segment = |a: DVec2, b: DVec2| {
        let ab = b - a;
        let along = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
        p.distance(a + ab * along)
    };
    match path {
        [] => f64::INFINITY,
        [only] => p.distance(*only),
        _ => path
            .windows(2)
            .map(|w| to_segment(w[0], w[1]))
            .fold(f64::INFINITY, f64::min),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_path_is_the_distance_to_the_nearest_segment() {
        let path = [
            DVec2::ZERO,
            DVec2::new(100.0, 0.0),
            DVec2::new(100.0, 100.0),
        ];
        assert_eq!(off_path(DVec2::new(50.0, 30.0), &path), 30.0);
        assert_eq!(off_path(DVec2::new(130.0, 50.0), &path), 30.0);
        assert_eq!(off_path(DVec2::new(-30.0, -40.0), &path), 50.0);
        assert_eq!(off_path(DVec2::new(3.0, 4.0), &path[..1]), 5.0);
        assert_eq!(off_path(DVec2::ZERO, &[]), f64::INFINITY);
    }

    #[test]
    fn a_miss_weighs_a_leg_length_off_as_twenty_degrees_turned_the_shorter_way() {
        let ends = |gap: f64, robot: f64, performer: f64| PathFigures {
            performer_mm: 500.0,
            robot_mm: 500.0,
            share: Some(1.0),
            performer_heading_deg: performer,
            robot_heading_deg: robot,
            end_gap_mm: gap,
            widest_gap_mm: gap,
        };
        assert_eq!(ends(0.0, 10.0, 10.0).miss(80.0), 0.0);
        assert_eq!(ends(80.0, 10.0, 10.0).miss(80.0), 1.0);
        assert_eq!(ends(0.0, 30.0, 10.0).miss(80.0), 1.0);
        // Whole turns count: 350° is 18 units from −10°, though it faces the same way.
        assert!((ends(0.0, 350.0, -10.0).miss(80.0) - 18.0).abs() < 1e-9);
        assert!((ends(40.0, 200.0, 10.0).miss(80.0) - 10.0).abs() < 1e-9);
        // 30% further, or as much shorter (1 / 1.3 as far), counts as a leg length.
        let further = PathFigures {
            robot_mm: 650.0,
            share: Some(1.3),
            ..ends(0.0, 0.0, 0.0)
        };
        assert!((further.miss(80.0) - 1.0).abs() < 1e-9);
        let shorter = PathFigures {
            share: Some(1.0 / 1.3),
            ..further.clone()
        };
        assert!((shorter.miss(80.0) - 1.0).abs() < 1e-9);
        let still = PathFigures {
            share: None,
            ..further
        };
        assert_eq!(still.miss(80.0), 0.0);
    }

    #[test]
    fn a_thinned_path_keeps_its_ends_and_a_point_every_so_often() {
        let path: Vec<DVec2> = (0..=100).map(|k| DVec2::new(k as f64, 0.0)).collect();
        let kept = thinned(&path, 10.0);
        assert_eq!(kept.len(), 11);
        assert_eq!((kept[0], kept[10]), (path[0], path[100]));
        let ragged = thinned(&path[..96], 10.0);
        assert_eq!(ragged.last(), Some(&path[95]));
        assert!(thinned(&[], 10.0).is_empty());
    }
}
