//! `build --legs ik`: the AIBO's paws follow the performer's hands and feet. The legs'
//! forward kinematics are checked against positions worked out by hand, inverse
//! kinematics against forward, and the paws of the retargeted (and of the written)
//! motion against a synthetic hand path.

use crate::common;

use aibo_motion::pipeline::{build, Balance, BuildOptions};
use aibo_motion::retarget::{self, retarget, LegMode};
use aibo_motion::robot::legs::{Leg, LegId};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::bvh;
use aibo_motion::source::kinematics::world_pose;
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
    // The keyframes' fidelity to the track, so without the balance stage (which changes
    // the track on purpose).
    let options = BuildOptions {
        retarget: ik(),
        balance: Balance::Off,
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

/// Joint angles spread over each joint's range, from a fixed seed.
struct Angles(u64);

impl Angles {
    fn next(&mut self, min: f64, max: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let unit = (self.0 >> 11) as f64 / (1u64 << 53) as f64;
        min + (max - min) * unit
    }

    /// Every joint of `profile` within its limits (±1 rad where it has none).
    fn pose(&mut self, profile: &Profile) -> Vec<f64> {
        profile
            .joints
            .iter()
            .map(|j| {
                j.limits
                    .map_or(self.next(-1.0, 1.0), |l| self.next(l.min, l.max))
            })
            .collect()
    }
}

#[test]
fn the_closed_form_finds_the_angles_back_and_agrees_with_ks_solver() {
    let mut random = Angles(7);
    let (mut tried, mut converged) = (0, 0);
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let profile = Profile::builtin(model).unwrap();
        for id in LegId::ALL {
            let leg = Leg::of(&profile, id).unwrap();
            for round in 0..200 {
                let pose = random.pose(&profile);
                let angles = leg.joints.map(|j| pose[j]);
                let paw = leg.paw(angles);
                // Started from the answer, the nearest solution is the answer.
                let solved = leg.solve(paw, angles).expect("a reachable paw");
                for (a, b) in solved.iter().zip(angles) {
                    assert!(
                        (a - b).abs() < 1e-9,
                        "{model} {id:?}: {solved:?} vs {angles:?}"
                    );
                }
                // From the stand, some solution that puts the paw there exactly.
                let from_stand = leg.solve(paw, [0.0, 0.2, 0.5]).unwrap();
                assert!(close(leg.paw(from_stand), paw, 1e-9), "{model} {id:?}");
                // k's iterative solver (slow unoptimized: one pose in ten), started near
                // the answer, reaches the same place within its 0.5 mm where it
                // converges; near a singular pose (a leg lifted to 90°, a straight knee)
                // it can stall where the closed form does not.
                if round % 10 == 0 {
                    tried += 1;
                    if let Some(by_k) = leg.reach_iteratively(paw, angles.map(|a| a + 0.1)) {
                        converged += 1;
                        assert!(close(leg.paw(by_k), paw, 0.5), "{model} {id:?}");
                    }
                }
            }
        }
    }
    println!("k converged on {converged} of {tried} poses");
    assert!(
        converged * 10 >= tried * 8,
        "k converged on {converged} of {tried}"
    );
}

#[test]
fn every_paw_is_in_one_place_in_the_chain_the_skeleton_and_the_bvh() {
    use aibo_motion::robot::skeleton::Skeleton;
    use aibo_motion::source::kinematics::end_positions;
    use aibo_motion::units::axis_rotation;
    use aibo_motion::view::export::{self, channel_of, Rate};

    let mut random = Angles(11);
    for model in ["ERS-210", "ERS-220", "ERS-7"] {
        let profile = Profile::builtin(model).unwrap();
        let skeleton = Skeleton::of(&profile).unwrap();
        // The exported hierarchy, read back; its frames are posed below with the exact
        // angles (the file's own numbers are rounded to a millionth of a degree).
        let motion = common::synthetic_motion(profile.joints.len(), &[10]);
        let motion = aibo_motion::mtn::Motion {
            design_label: profile.design_label.clone(),
            locators: profile.joints.iter().map(|j| j.locator.clone()).collect(),
            ..motion
        };
        let text = export::bvh(&motion, &profile, Rate::Grid, None).unwrap();
        let mut clip = bvh::read(text.as_bytes()).unwrap();
        for _ in 0..50 {
            let pose = random.pose(&profile);
            let robot = skeleton.pose(&pose, [0.0; 3]);
            // The BVH frame: each joint's one channel turned by its angle.
            let n = clip.joint_count();
            for (i, bone) in skeleton.bones.iter().enumerate() {
                let Some(j) = clip.skeleton.index_of(&bone.name) else {
                    // The body is the BVH's root by another name; tips are End Sites.
                    assert!(
                        i == 0 || bone.axis.is_none(),
                        "{} is not in the BVH",
                        bone.name
                    );
                    continue;
                };
                clip.rotations[j] = match (bone.axis, bone.joint) {
                    (Some(axis), Some(joint)) => {
                        let (channel, sign) = channel_of(axis);
                        let about = match channel {
                            "Xrotation" => 0,
                            "Yrotation" => 1,
                            _ => 2,
                        };
                        axis_rotation(about, sign * pose[joint])
                    }
                    _ => glam::DQuat::IDENTITY,
                };
            }
            assert!(n > 0);
            let bvh_pose = world_pose(&clip, 0);
            let tips = end_positions(&clip, &bvh_pose);
            let root = bvh_pose.positions[0];
            for id in LegId::ALL {
                let leg = Leg::of(&profile, id).unwrap();
                let by_chain = leg.paw(leg.joints.map(|j| pose[j]));
                let paw_bone = skeleton
                    .bones
                    .iter()
                    .position(|b| b.name == format!("{}_paw", id.prefix()))
                    .unwrap();
                let by_skeleton = robot.positions[paw_bone];
                // The paw is the knee joint's End Site in the BVH, in BVH axes (y, z, x).
                let knee = clip
                    .skeleton
                    .index_of(&format!("{}_j3", id.prefix()))
                    .unwrap();
                let b = tips[knee].unwrap() - root;
                let by_bvh = DVec3::new(b.z, b.x, b.y);
                assert!(
                    close(by_chain, by_skeleton, 1e-9),
                    "{model} {id:?}: chain {by_chain} skeleton {by_skeleton}"
                );
                assert!(
                    close(by_bvh, by_skeleton, 1e-9),
                    "{model} {id:?}: bvh {by_bvh} skeleton {by_skeleton}"
                );
            }
        }
    }
}
