//! `build --legs ik`: the AIBO's paws follow the performer's hands and feet. The legs'
//! forward kinematics are checked against positions worked out by hand, inverse
//! kinematics against forward, and the paws of the retargeted (and of the written)
//! motion against a synthetic hand path.

mod common;

use aibo_motion::kinematics::world_pose;
use aibo_motion::pipeline::{build, BuildOptions};
use aibo_motion::retarget::{self, retarget, LegMode};
use aibo_motion::robot::legs::{Leg, LegId};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::bvh;
use glam::DVec3;

/// Retargeting with the legs following the paws.
fn ik() -> retarget::Options {
    retarget::Options {
        legs: LegMode::Ik,
        ..retarget::Options::default()
    }
}

fn close(a: DVec3, b: DVec3, tol: f64) -> bool {
    (a - b).length() <= tol
}

#[test]
fn leg_forward_kinematics_by_hand() {
    let p = Profile::builtin("ERS-7").unwrap();
    let lf = Leg::of(&p, LegId::LeftFront).unwrap();
    let rf = Leg::of(&p, LegId::RightFront).unwrap();
    let lh = Leg::of(&p, LegId::LeftHind).unwrap();
    // Straight down from the hip: 69.5 + 65.434 mm.
    assert!(close(
        lf.paw([0.0; 3]),
        DVec3::new(65.0, 62.5, -134.934),
        1e-9
    ));
    assert!(close(
        rf.paw([0.0; 3]),
        DVec3::new(65.0, -62.5, -134.934),
        1e-9
    ));
    assert!(close(
        lh.paw([0.0; 3]),
        DVec3::new(-65.0, 62.5, -137.147),
        1e-9
    ));
    // J1 = 90°: the leg points forward.
    let q = std::f64::consts::FRAC_PI_2;
    assert!(close(
        lf.paw([q, 0.0, 0.0]),
        DVec3::new(65.0 + 134.934, 62.5, 0.0),
        1e-9
    ));
    // Front knee 90°: the lower leg points forward (Tekkotsu's ERS-7.kin chains; the
    // hind legs turn the other way, so their J1 = 90° points the leg back).
    assert!(close(
        lf.paw([0.0, 0.0, q]),
        DVec3::new(65.0 + 65.434, 62.5, -69.5),
        1e-9
    ));
    assert!(close(
        lh.paw([q, 0.0, 0.0]),
        DVec3::new(-65.0 - 137.147, 62.5, 0.0),
        1e-9
    ));
    // J2 lifts each leg outward: +y on the left, −y on the right (88° is its limit).
    assert!(lf.paw([0.0, 1.0, 0.0]).y > 62.5 + 100.0);
    assert!(rf.paw([0.0, 1.0, 0.0]).y < -62.5 - 100.0);
}

#[test]
fn inverse_kinematics_returns_to_the_forward_position() {
    let p = Profile::builtin("ERS-7").unwrap();
    for id in LegId::ALL {
        let leg = Leg::of(&p, id).unwrap();
        let stand = leg.joints.map(|j| p.postures["stand"].joints[j]);
        for angles in [
            [0.3, 0.1, 0.6],
            [-0.5, 0.4, 1.2],
            [1.0, 0.0, 0.2],
            [-1.2, 0.8, 1.8],
        ] {
            let target = leg.paw(angles);
            let solved = leg
                .reach(target, stand)
                .unwrap_or_else(|| panic!("{id:?} {angles:?}"));
            assert!(
                close(leg.paw(solved), target, 0.5),
                "{id:?} {angles:?} → {solved:?}"
            );
            for (k, &j) in leg.joints.iter().enumerate() {
                let l = p.joints[j].limits.unwrap();
                assert!(solved[k] >= l.min - 1e-9 && solved[k] <= l.max + 1e-9);
            }
        }
    }
}

/// The performer swings the left arm forward and bends the elbow, frame by frame.
fn arm_path() -> Vec<Vec<(&'static str, char, f64)>> {
    (0..=30)
        .map(|i| {
            let s = i as f64 / 30.0;
            vec![
                ("LeftArm", 'x', -50.0 * s),
                ("LeftForeArm", 'x', -40.0 * s * s),
            ]
        })
        .collect()
}

#[test]
fn paws_follow_the_hand_within_a_millimetre() {
    let text = common::performer_bvh(&arm_path(), 1.0 / 30.0);
    let clip = bvh::read(text.as_bytes()).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let tracks = retarget(&clip, &profile, &ik()).unwrap();
    let leg = Leg::of(&profile, LegId::LeftFront).unwrap();
    assert!(tracks
        .drivers
        .iter()
        .any(|d| d.joint == "lf_j1" && d.measure == "left_arm.ik"));

    // The expected paw, worked out independently: the hand's offset from the shoulder
    // (the performer faces +z with its left on +x, so robot x = z, y = x, z = y), less
    // hanging straight down (28 + 25 = 53 long), scaled to the leg (134.934 mm),
    // added to the paw's stand position.
    let stand = leg.joints.map(|j| profile.postures["stand"].joints[j]);
    let stand_paw = leg.paw(stand);
    let (shoulder, hand) = (
        clip.skeleton.index_of("LeftArm").unwrap(),
        clip.skeleton.index_of("LeftHand").unwrap(),
    );
    let scale = 134.934 / 53.0;
    for frame in 0..clip.frames {
        let pose = world_pose(&clip, frame);
        let d = pose.positions[hand] - pose.positions[shoulder];
        let expected =
            stand_paw + (DVec3::new(d.z, d.x, d.y) - DVec3::new(0.0, 0.0, -53.0)) * scale;
        let angles = [0, 1, 2].map(|k| tracks.joints[leg.joints[k]].as_ref().unwrap()[frame]);
        let paw = leg.paw(angles);
        // Where the hand asks for more than the leg's length (most of this swing: the
        // stand paw already sits forward, under the forward-bent elbow), the paw goes
        // to the nearest point it can reach (`Leg::reach` clamps to 0.5 mm short).
        let hip = leg.paw([0.0; 3]) + DVec3::new(0.0, 0.0, leg.length);
        let offset = expected - hip;
        let reachable = hip + offset.normalize() * offset.length().min(leg.length - 0.5);
        assert!(
            close(paw, reachable, 1.0),
            "frame {frame}: {paw} vs {reachable} (asked {expected})"
        );
    }
    // The hind legs stand still: the performer's legs did not move.
    let lh = Leg::of(&profile, LegId::LeftHind).unwrap();
    let lh_stand = lh.paw(lh.joints.map(|j| profile.postures["stand"].joints[j]));
    let last = clip.frames - 1;
    let angles = [0, 1, 2].map(|k| tracks.joints[lh.joints[k]].as_ref().unwrap()[last]);
    assert!(close(lh.paw(angles), lh_stand, 0.5));
}

#[test]
fn the_written_motion_keeps_the_paw_on_the_path() {
    let text = common::performer_bvh(&arm_path(), 1.0 / 30.0);
    let clip = bvh::read(text.as_bytes()).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let options = BuildOptions {
        retarget: ik(),
        ..BuildOptions::default()
    };
    let built = build(&clip, &profile, &options).unwrap();
    let (motion, tracks) = (built.motion, built.tracks);
    let leg = Leg::of(&profile, LegId::LeftFront).unwrap();
    let columns = leg.joints.map(|j| {
        motion
            .locators
            .iter()
            .position(|l| *l == profile.joints[j].locator)
            .unwrap()
    });
    // Every keyframe of the file puts the paw within 5 mm (0.5° per joint over a
    // 135 mm leg) of where the unreduced track puts it at the same time.
    let track_paw = |t: f64| {
        let x = (t / tracks.frame_time).clamp(0.0, (clip.frames - 1) as f64);
        let (i, f) = (x.floor() as usize, x.fract());
        let at = |k: usize| {
            let v = tracks.joints[leg.joints[k]].as_ref().unwrap();
            let b = v.get(i + 1).copied().unwrap_or(v[i]);
            v[i] + (b - v[i]) * f
        };
        leg.paw([at(0), at(1), at(2)])
    };
    // The motion starts with the ramp from stand (which is where the track starts too).
    let ramp_ms = motion.keyframe_times_ms()[0];
    let times = motion.keyframe_times_ms();
    let span = (clip.frames - 1) as f64 * tracks.frame_time * 1000.0;
    let mut checked = 0;
    for (kf, &t_ms) in motion.keyframes.iter().zip(&times) {
        let t = (t_ms - ramp_ms) as f64;
        if t > span {
            break; // the ramp back to stand
        }
        let angles = columns.map(|c| f64::from(kf.joints[c]) / 1e6);
        assert!(
            close(leg.paw(angles), track_paw(t / 1000.0), 5.0),
            "at {t_ms} ms"
        );
        checked += 1;
    }
    assert!(checked >= 2);
}
