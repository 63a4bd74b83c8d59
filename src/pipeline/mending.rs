//! Where the proof's repairs have been made, so that each place where the motion falls
//! climbs the ladder of repairs on its own (`keep_planned`).

/// A fall within this long of one already mended is the same place falling again, ms:
/// the widest repair reaches a second either side of its fall.
pub const MEND_NEAR_MS: u64 = 1000;

/// A place mended: its rows of the grid, the repairs it has had, and the proof's attempt
/// that last found it falling.
#[derive(Debug)]
struct Place {
    rows: (usize, usize),
    repairs: usize,
    attempt: usize,
}

/// The falls mended so far.
#[derive(Debug, Default)]
pub struct Mended {
    places: Vec<Place>,
}

impl Mended {
    /// The repair a fall over rows `fell`, found on the proof's `attempt`, is due: 1 at a
    /// new place, one more than a place within `near` rows of it has had on an earlier
    /// attempt, and what that place is due already where this attempt found it falling
    /// before (the static test and the simulation both see one fall). The place grows to
    /// take the fall in.
    pub fn step(&mut self, fell: (usize, usize), near: usize, attempt: usize) -> usize {
        let (from, to) = fell;
        let same = self
            .places
            .iter_mut()
            .find(|p| from < p.rows.1 + near && p.rows.0.saturating_sub(near) < to.max(from + 1));
        match same {
            Some(place) => {
                place.rows = (place.rows.0.min(from), place.rows.1.max(to));
                if place.attempt != attempt {
                    place.attempt = attempt;
                    place.repairs += 1;
                }
                place.repairs
            }
            None => {
                self.places.push(Place {
                    rows: fell,
                    repairs: 1,
                    attempt,
                });
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fall_climbs_the_ladder_only_where_a_later_attempt_falls_again() {
        let mut mended = Mended::default();
        // A second is 62 rows of 16 ms.
        let near = 62;
        // The first attempt: the static test's tip and the simulation's fall over it.
        assert_eq!(mended.step((400, 440), near, 1), 1);
        assert_eq!(mended.step((380, 450), near, 1), 1);
        // Further on than a second past the first place: a new place.
        assert_eq!(mended.step((512, 540), near, 2), 1);
        // Within a second of the first (its end is row 450): the same place again, and
        // then the place reaches back to row 330.
        assert_eq!(mended.step((480, 490), near, 3), 2);
        assert_eq!(mended.step((330, 350), near, 4), 3);
        // A fall that ends a second before that place is not near it; a row later it is.
        assert_eq!(mended.step((200, 268), near, 5), 1);
        assert_eq!(mended.step((260, 269), near, 6), 4);
        // The new place's own second fall.
        assert_eq!(mended.step((120, 150), near, 7), 2);
    }
}
