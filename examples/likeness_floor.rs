//! How low the balance stage's likeness cost could go with paws free to slide: a yardstick
//! for the stage, not a proof.
//!
//! The stage keeps the centre of mass inside the paws its contact plan has down, and
//! keeps those paws on their floor spots; where the performer's stance does not hold the
//! centre of mass, the support legs change. This takes the motion built without the
//! stage and, on every performance frame the likeness compares (not walking), makes the
//! least change it finds that stands the pose on the plan's paws, level:
//! - a paw the plan holds down that the pose has in the air goes straight down to the
//!   floor (the lowest paw's height), drawn in toward its hip where the leg cannot
//!   reach straight down;
//! - then none, one or several of the support paws slide together, in any of 24
//!   directions seen from above, by the least distance in 2 mm steps up to 100 mm that
//!   leaves every planned paw on the floor, every elbow, knee and the body clear of it,
//!   and the centre of mass (the moved legs' masses with it) the margin inside the
//!   planned paws; each leg reaches its paw's place by the legs' inverse kinematics, and
//!   of the ways found, the one that turns the joints least is taken.
//!
//! Where none is found, the stage's own pose stands in (the share is printed), as it does
//! where the robot rests (sits or lies down where the performer kneels: no standing to
//! measure there). The poses
//! it makes are put to the static test (`Body::stance`, level): it prints how many of
//! them do not stand on the planned paws with the margin.
//!
//! The margin is the one the build's stage kept (14 mm on the ERS-7, 22 mm on the
//! ERS-210/220 by default; `--margin` to ask for another, the judges' 10 mm for
//! instance): a yardstick at a narrower margin than the stage's measures the margin, not
//! the stage (the one-arm wave on the ERS-7: 18.4° at 10 mm, 22.3° at the stage's 14 mm,
//! where the stage scores 22.2°).
//!
//! What it leaves out makes it optimistic: the paws slide from frame to frame with no
//! step, dwell or speed limit. What it does not search (other ways of moving the legs, a
//! body that tilts) could be better still, and the stage sometimes is (it tilts the
//! body). So a rise it prints above 3° says the plan's contacts cost that much even with
//! sliding paws, as far as this search finds, and a stage far above it pays mostly for
//! keeping its paws on their spots.
//!
//! `cargo run --release --example likeness_floor -- TAKE PROFILE [--asf ASF] [--margin MM]`
//! prints the overall median likeness without the stage, with it, and at the yardstick.

mod common;

use aibo_motion::likeness::{likeness_of, played};
use aibo_motion::robot::legs::{Leg, LegId};
use aibo_motion::robot::skeleton::Skeleton;
use aibo_motion::stability::body::Body;
use aibo_motion::stability::support::convex_hull;
use glam::{DVec2, DVec3};

/// A paw this close above the lowest counts as down, mm (as the static test has it).
const TOUCH_MM: f64 = 5.0;

fn main() {
    let args = common::Args::read("likeness_floor", " [--margin MM]");
    let margin: Option<f64> = args.option("--margin").map(|m| {
        m.parse()
            .unwrap_or_else(|_| args.fail(format!("--margin {m}: not a number of mm")))
    });
    let (profile, built) = args.build();
    let kept = built.balance.as_ref().expect("the stage ran");
    let margin = margin.unwrap_or(kept.margin_mm);
    let walking = built.walking_s();
    let skeleton = Skeleton::of(&profile).expect("a skeleton");
    let body = Body::of(&profile).expect("a mass model");
    let legs: Vec<Leg> = LegId::ALL
        .iter()
        .map(|&id| Leg::in_skeleton(&skeleton, &profile, id).expect("four legs"))
        .collect();
    let bone = |suffix: &str| -> Vec<usize> {
        LegId::ALL
            .iter()
            .map(|id| {
                let name = format!("{}_{suffix}", id.prefix());
                let found = skeleton.bones.iter().position(|b| b.name == name);
                found.expect("a leg's bones")
            })
            .collect()
    };
    let (paw_bone, hip_bone) = (bone("paw"), bone("j1"));
    // The static test's names for the paws' contact points.
    let paw_names = LegId::ALL.map(|id| format!("{} paw", id.prefix()));
    // Both motions at each performance frame, as the likeness reads them.
    let frames = built.tracks.frames;
    let without: Vec<Vec<f64>> = (0..frames)
        .map_while(played(
            &kept.without,
            kept.without_source_start_ms,
            &built.tracks,
        ))
        .collect();
    let staged: Vec<Vec<f64>> = (0..frames)
        .map_while(played(&built.motion, built.source_start_ms, &built.tracks))
        .collect();
    let plan = &kept.plan;
    // The paws the plan has down at each frame (by `LegId::ALL` index).
    let downs: Vec<Vec<usize>> = (0..without.len())
        .map(|f| {
            let row = plan.row_at(f as f64 * built.tracks.frame_time);
            (0..4)
                .filter(|&p| row >= plan.rows || plan.down(row, p))
                .collect()
        })
        .collect();
    // The frames the limbs are compared on (not walking), as the likeness has them.
    let compared: Vec<bool> = (0..without.len())
        .map(|f| {
            let t_s = f as f64 * built.tracks.frame_time;
            !walking.iter().any(|&(a, b)| t_s >= a && t_s <= b)
        })
        .collect();
    // Where the robot rests (sits or lies down) the yardstick has no standing to
    // measure: the stage's pose stands in.
    let resting: Vec<bool> = (0..without.len())
        .map(|f| plan.resting(plan.row_at(f as f64 * built.tracks.frame_time)))
        .collect();
    let mut unreached = 0usize;
    let floor: Vec<Vec<f64>> = without
        .iter()
        .enumerate()
        .map(|(f, angles)| {
            let down = &downs[f];
            if resting[f] {
                return staged.get(f).cloned().unwrap_or_else(|| angles.clone());
            }
            if !compared[f] || down.len() < 3 {
                return angles.clone();
            }
            let pose = skeleton.pose(angles, [0.0; 3]);
            let com = body.centre_of_mass(&pose).truncate();
            let paws: Vec<DVec3> = paw_bone.iter().map(|&b| pose.positions[b]).collect();
            // A paw the plan holds down that the pose has in the air goes straight down
            // to the lowest paw's height.
            let lowest = paws.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
            let mut placed = paws.clone();
            let lowered: Vec<usize> = down
                .iter()
                .copied()
                .filter(|&p| paws[p].z > lowest + TOUCH_MM)
                .collect();
            for &p in &lowered {
                match on_floor(
                    &legs[p],
                    pose.positions[hip_bone[p]],
                    paws[p],
                    lowest,
                    angles,
                ) {
                    Some(spot) => placed[p] = spot,
                    None => {
                        unreached += 1;
                        return staged.get(f).cloned().unwrap_or_else(|| angles.clone());
                    }
                }
            }
            // Whether a pose stands, level: the paws the plan has down on the floor (within
            // the touch distance of the lowest point), every elbow, knee and the body clear
            // of it, and the centre of mass (with the legs' masses where they moved) the
            // margin inside those paws.
            let balanced = |angles: &[f64], down: &[usize]| {
                let pose = skeleton.pose(angles, [0.0; 3]);
                let (points, com) = body.touch_points(&pose);
                let lowest = points
                    .iter()
                    .map(|(_, p)| p.z)
                    .fold(f64::INFINITY, f64::min);
                let on_floor = |name: &str| {
                    points
                        .iter()
                        .any(|(n, q)| n == name && q.z <= lowest + TOUCH_MM)
                };
                let support: Vec<DVec2> = points
                    .iter()
                    .filter(|(n, _)| down.iter().any(|&p| *n == paw_names[p]))
                    .map(|(_, q)| q.truncate())
                    .collect();
                let clear = points
                    .iter()
                    .all(|(n, q)| n.ends_with(" paw") || q.z > lowest + TOUCH_MM);
                clear
                    && down.iter().all(|&p| on_floor(&paw_names[p]))
                    && nearest_inside(&support, com.truncate(), margin - 0.5)
                        == Some(com.truncate())
            };
            // The pose as it is (any held paw lowered), where that stands; else one or
            // several support paws slid together, in any of 24 directions, by the least
            // distance (2 mm steps, up to 100 mm) that stands it, their legs reaching.
            let unslid = (&down[..], &[][..], &lowered[..]);
            let as_it_is = slid(&legs, angles, &placed, unslid, com, margin, DVec2::ZERO)
                .filter(|out| balanced(out, down));
            let best = as_it_is.or_else(|| {
                (1..1usize << down.len())
                    .map(|mask| -> Vec<usize> {
                        (0..down.len())
                            .filter(|k| mask & (1 << k) != 0)
                            .map(|k| down[k])
                            .collect()
                    })
                    .flat_map(|moved| {
                        (0..24)
                            .filter_map(|d| {
                                let towards =
                                    DVec2::from_angle(d as f64 * std::f64::consts::TAU / 24.0);
                                (1..=50).find_map(|k| {
                                    let ways = (&down[..], &moved[..], &lowered[..]);
                                    let shift = towards * (2 * k) as f64;
                                    slid(&legs, angles, &placed, ways, com, margin, shift)
                                        .filter(|out| balanced(out, down))
                                })
                            })
                            .collect::<Vec<_>>()
                    })
                    .min_by(|a, b| changed(angles, a).total_cmp(&changed(angles, b)))
            });
            best.unwrap_or_else(|| {
                unreached += 1;
                staged.get(f).cloned().unwrap_or_else(|| angles.clone())
            })
        })
        .collect();

    // The static test's own word on the floor's poses, level as they stand: on the paws
    // the plan has down, with the margin.
    let (mut judged, mut unmet) = (0usize, 0usize);
    for (f, angles) in floor.iter().enumerate() {
        if !compared[f] || staged.get(f) == Some(angles) {
            continue;
        }
        let stance = body.stance(angles, [0.0; 3]);
        let on_plan = downs[f]
            .iter()
            .all(|&p| stance.stands_on_paw(LegId::ALL[p].prefix()));
        judged += 1;
        if stance.tips || stance.margin_mm < margin - 1.0 || !on_plan {
            unmet += 1;
        }
    }
    let raised = (0..floor.len())
        .filter(|&f| compared[f] && downs[f].len() < 4)
        .count();
    let compared = compared.iter().filter(|&&c| c).count();
    let stage = built.likeness(&profile).expect("a likeness");
    let before = built.likeness_without(&profile).expect("a likeness");
    let at_floor = likeness_of(&built.tracks, &profile, &walking, |f| floor.get(f).cloned())
        .expect("a likeness");
    common::say(format_args!(
        "{} {}: overall median without the stage {:.1}°, with it {:.1}°, yardstick {:.1}° at {margin} mm (rise {:+.1}° against {:+.1}°); a paw up on {:.0}% of the frames compared; the stage's pose where the yardstick's could not be found: {:.0}%; the static test finds {} of the yardstick's {} poses off their paws or short of the margin",
        args.take.file_name().unwrap_or_default().to_string_lossy(),
        args.model,
        before.overall.median_deg,
        stage.overall.median_deg,
        at_floor.overall.median_deg,
        at_floor.overall.median_deg - before.overall.median_deg,
        stage.overall.median_deg - before.overall.median_deg,
        100.0 * raised as f64 / compared.max(1) as f64,
        100.0 * unreached as f64 / compared.max(1) as f64,
        unmet,
        judged,
    ));
}

/// The point nearest `c` at least `margin` inside the convex polygon of `points`; `None`
/// when the polygon is too small to have one.
fn nearest_inside(points: &[DVec2], c: DVec2, margin: f64) -> Option<DVec2> {
    let hull = convex_hull(points);
    if hull.len() < 3 {
        return None;
    }
    // The edges as inward half-planes n·x ≥ d + margin.
    let planes: Vec<(DVec2, f64)> = (0..hull.len())
        .map(|i| {
            let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
            let n = (b - a).perp().normalize();
            (n, n.dot(a) + margin)
        })
        .collect();
    let inside = |p: DVec2| planes.iter().all(|&(n, d)| n.dot(p) >= d - 1e-9);
    if inside(c) {
        return Some(c);
    }
    let mut candidates: Vec<DVec2> = planes
        .iter()
        .map(|&(n, d)| c + n * (d - n.dot(c)))
        .collect();
    for i in 0..planes.len() {
        for j in i + 1..planes.len() {
            let ((n1, d1), (n2, d2)) = (planes[i], planes[j]);
            let det = n1.perp_dot(n2);
            if det.abs() > 1e-12 {
                candidates.push(DVec2::new(d1 * n2.y - d2 * n1.y, n1.x * d2 - n2.x * d1) / det);
            }
        }
    }
    candidates
        .into_iter()
        .filter(|&p| inside(p))
        .min_by(|a, b| a.distance(c).total_cmp(&b.distance(c)))
}

/// The angles with the `moved` paws slid from where `placed` has them by `shift`, and the
/// `lowered` ones put there, each leg reaching its paw's new place; `None` where a leg
/// does not reach, or where the centre of mass `com` (of the pose before: the caller
/// checks the new one) is not then the margin inside.
fn slid(
    legs: &[Leg],
    angles: &[f64],
    placed: &[DVec3],
    (down, moved, lowered): (&[usize], &[usize], &[usize]),
    com: DVec2,
    margin: f64,
    shift: DVec2,
) -> Option<Vec<f64>> {
    let by = |p: usize| {
        if moved.contains(&p) {
            shift
        } else {
            DVec2::ZERO
        }
    };
    let at: Vec<DVec2> = down.iter().map(|&p| placed[p].truncate() + by(p)).collect();
    if nearest_inside(&at, com, margin) != Some(com) {
        return None;
    }
    let mut out = angles.to_vec();
    for &p in moved.iter().chain(lowered) {
        let leg = &legs[p];
        let start = leg.joints.map(|j| angles[j]);
        let target = placed[p] + by(p).extend(0.0);
        let reached = leg.reach(target, start)?;
        if leg.paw(reached).distance(target) > 1.0 {
            return None;
        }
        for (k, j) in leg.joints.iter().enumerate() {
            out[*j] = reached[k];
        }
    }
    Some(out)
}

/// The floor spot nearest below `paw` (at height `floor`) that `leg`, whose hip is at
/// `hip`, reaches within its limits: straight below, else drawn in toward the hip.
fn on_floor(leg: &Leg, hip: DVec3, paw: DVec3, floor: f64, angles: &[f64]) -> Option<DVec3> {
    let start = leg.joints.map(|j| angles[j]);
    let out = (paw - hip).truncate();
    (0..=20).find_map(|k| {
        let target = (hip.truncate() + out * (1.0 - k as f64 / 20.0)).extend(floor);
        let reached = leg.reach(target, start)?;
        (leg.paw(reached).distance(target) <= 1.0).then_some(target)
    })
}

/// How far `b`'s joints are from `a`'s in all, radians.
fn changed(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}
