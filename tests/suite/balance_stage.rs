//! The balance stage (`build`, on by default): performers who raise both arms, wave one
//! with the other elbow bent, and walk in place become motions that stay up, judged on
//! the written motion by the static test and by the simulation (not by the stage's own
//! plan); the README's example falls in all three judges without it and stays up in all
//! three with it; a performer who only stands and nods gets the motion `--balance off`
//! makes (the least change is none); and `--balance off` is byte for byte the build from
//! before the stage.

use crate::common;

use aibo_motion::likeness::Likeness;
use aibo_motion::mtn::{self, Motion};
use aibo_motion::pipeline::{build, Balance, BuildOptions, Built, Spots};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::bvh;
use aibo_motion::stability::{physics, statics};
use aibo_motion::units::urad_to_deg;
use std::path::Path;

const RATE: f64 = 1.0 / 30.0;

/// `frames` of the test performer at 30 fps, built for `model`.
fn built(model: &str, frames: &[Vec<(&str, char, f64)>], balance: Balance) -> (Profile, Built) {
    let text = common::performer_bvh(frames, RATE);
    let clip = bvh::read(text.as_bytes()).unwrap();
    let profile = Profile::builtin(model).unwrap();
    let options = BuildOptions {
        balance,
        ..BuildOptions::default()
    };
    let built = build(&clip, &profile, &options).unwrap();
    (profile, built)
}

/// What the robot stands on in each dense 8 ms frame, by the static test.
fn standing_on(motion: &Motion, profile: &Profile) -> Vec<Vec<String>> {
    statics::stances(motion, profile)
        .unwrap()
        .into_iter()
        .map(|s| s.standing_on)
        .collect()
}

/// Both judges on the written motion: the static test finds no tip over 100 ms, and the
/// simulation at 80% of the servos' torque stays up.
fn assert_stays_up(motion: &Motion, profile: &Profile, what: &str) {
    let report = statics::check(motion, profile, 0.0).unwrap();
    assert_eq!(report.faults().count(), 0, "{what}: {}", report.summary());
    let sim = physics::simulate(motion, profile, 0.8 * physics::SERVO_TORQUE_NM).unwrap();
    assert!(sim.fall.is_none(), "{what}: {}", sim.summary());
    let check = aibo_motion::check::check(motion, profile);
    assert!(
        check.violations.is_empty(),
        "{what}: {:?}",
        check.violations
    );
}

/// The frames from `from` s to `to` s of the performance, in the motion's dense frames.
fn dense_range(built: &Built, from: f64, to: f64) -> std::ops::Range<usize> {
    let at = |s: f64| ((built.source_start_ms as f64 + s * 1000.0) / 8.0) as usize;
    at(from)..at(to)
}

fn down(frame: &[String], paw: &str) -> bool {
    frame.iter().any(|p| p == &format!("{paw} paw"))
}

/// The front paws off the floor in every one of `frames` (what the static test stands
/// the robot on, as [`standing_on`]).
fn front_paws_up_throughout(frames: &[Vec<String>]) -> Vec<&'static str> {
    ["lf", "rf"]
        .into_iter()
        .filter(|paw| frames.iter().all(|f| !down(f, paw)))
        .collect()
}

/// Still for a second, `pose` reached over half a second and held for `hold` seconds
/// (with `extra(t)` added at t seconds into the hold), then back and still again.
fn performance(
    pose: &[(&'static str, char, f64)],
    hold: f64,
    extra: impl Fn(f64) -> Vec<(&'static str, char, f64)>,
) -> Vec<Vec<(&'static str, char, f64)>> {
    let count = |s: f64| (s / RATE).round() as usize;
    let scaled = |k: f64| pose.iter().map(|&(j, a, d)| (j, a, d * k)).collect();
    let mut frames: Vec<Vec<(&str, char, f64)>> = vec![vec![]; count(1.0)];
    for i in 0..count(0.5) {
        frames.push(scaled(i as f64 / count(0.5) as f64));
    }
    for i in 0..count(hold) {
        let mut f: Vec<(&str, char, f64)> = scaled(1.0);
        f.extend(extra(i as f64 * RATE));
        frames.push(f);
    }
    for i in 0..count(0.5) {
        frames.push(scaled(1.0 - i as f64 / count(0.5) as f64));
    }
    frames.extend(vec![vec![]; count(1.0)]);
    frames
}

#[test]
fn a_performer_who_raises_both_arms_gets_one_front_paw_up_and_stays_up() {
    let both_up = [("LeftArm", 'x', -130.0), ("RightArm", 'x', -130.0)];
    for model in ["ERS-7", "ERS-210"] {
        let (profile, built) = built(
            model,
            &performance(&both_up, 3.0, |_| vec![]),
            Balance::default(),
        );
        assert_stays_up(&built.motion, &profile, model);
        let frames = standing_on(&built.motion, &profile);
        // In the hold's middle second and a half: exactly one front paw up, always the
        // same one, and both hind paws down.
        let hold = &frames[dense_range(&built, 2.25, 3.75)];
        let raised = front_paws_up_throughout(hold);
        assert_eq!(raised.len(), 1, "{model}: {:?}", hold[0]);
        let planted = if raised[0] == "lf" { "rf" } else { "lf" };
        for f in hold {
            assert!(
                down(f, planted) && down(f, "lh") && down(f, "rh"),
                "{model}: {f:?}"
            );
        }
        // Standing still before and after: all four down.
        for f in frames[dense_range(&built, 0.0, 0.8)].iter() {
            assert_eq!(f.len(), 4, "{model}: {f:?}");
        }
    }
}

#[test]
fn of_two_raised_arms_the_paw_rises_for_the_one_a_leg_can_show() {
    // The left arm reaches forward and a little out, the elbow a little bent: a front
    // leg can play that. The right hand goes higher, overhead and out to the side, past
    // the reach of a front leg's joints.
    let overhead = [("RightArm", 'x', -155.0), ("RightArm", 'z', -90.0)];
    let reach = [
        ("LeftArm", 'x', -85.0),
        ("LeftArm", 'z', 35.0),
        ("LeftForeArm", 'x', -20.0),
    ];
    let both = [&reach[..], &overhead[..]].concat();
    let raised_in = |built: &Built, profile: &Profile| {
        let frames = standing_on(&built.motion, profile);
        front_paws_up_throughout(&frames[dense_range(built, 2.25, 3.75)])
    };
    for model in ["ERS-7", "ERS-210"] {
        let (profile, chosen) = built(
            model,
            &performance(&both, 3.0, |_| vec![]),
            Balance::default(),
        );
        assert_stays_up(&chosen.motion, &profile, model);
        assert_eq!(raised_in(&chosen, &profile), ["lf"], "{model}");
        // The other choice, made by the same stage for a performer whose left arm hangs,
        // and measured against the one who raised both: it looks less like them.
        let (_, other) = built(
            model,
            &performance(&overhead, 3.0, |_| vec![]),
            Balance::default(),
        );
        assert_eq!(raised_in(&other, &profile), ["rf"], "{model}");
        let like = |b: &Built| {
            aibo_motion::likeness::likeness(
                &chosen.tracks,
                &profile,
                &b.motion,
                b.source_start_ms,
                &[],
            )
            .unwrap()
            .overall
            .median_deg
        };
        let (chosen, other) = (like(&chosen), like(&other));
        assert!(
            chosen + 2.0 < other,
            "{model}: {chosen:.1}° with the left paw up, {other:.1}° with the right"
        );
    }
}

#[test]
fn a_one_arm_wave_keeps_the_idle_paw_down_and_the_wave() {
    // The right arm up and waving from the elbow; the left arm hangs with its elbow bent.
    let pose = [
        ("RightArm", 'x', -130.0),
        ("LeftArm", 'x', -10.0),
        ("LeftForeArm", 'x', -35.0),
    ];
    let wave = |t: f64| {
        vec![(
            "RightForeArm",
            'z',
            35.0 * (t * std::f64::consts::TAU * 1.5).sin(),
        )]
    };
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let frames = performance(&pose, 4.0, wave);
        let (profile, kept) = built(model, &frames, Balance::default());
        assert_stays_up(&kept.motion, &profile, model);
        let on = standing_on(&kept.motion, &profile);
        for (i, f) in on.iter().enumerate() {
            assert!(
                down(f, "lf"),
                "{model}: the idle paw left the floor at {} ms",
                i * 8
            );
        }
        let hold = &on[dense_range(&kept, 2.0, 5.0)];
        let up = hold.iter().filter(|f| !down(f, "rf")).count();
        assert!(
            up * 10 >= hold.len() * 9,
            "{model}: the waving paw up {up} of {}",
            hold.len()
        );
        // The wave itself: the waving forearm looks as it does without the stage.
        let (_, free) = built(model, &frames, Balance::Off);
        let free = free.likeness(&profile).unwrap();
        assert_looks_as_without(&kept, &profile, &free, &["right forearm"], model);
    }
}

/// A segment's median likeness, degrees: the first whose performer's name holds `name`.
fn segment_median(likeness: &Likeness, name: &str) -> f64 {
    likeness
        .segments
        .iter()
        .find(|s| s.performer.contains(name))
        .unwrap()
        .figure
        .median_deg
}

/// The shared BVH take `name` (in `../shared/mocap-samples/bvh`), read.
fn shared_bvh(name: &str) -> aibo_motion::source::Clip {
    let take = common::shared("mocap-samples").join("bvh").join(name);
    bvh::read(&std::fs::read(take).unwrap()).unwrap()
}

/// A segment's median likeness in `built`, degrees.
fn built_median(built: &Built, profile: &Profile, name: &str) -> f64 {
    segment_median(&built.likeness(profile).unwrap(), name)
}

/// Each of `segments` looks in `kept` (the balance stage's build for `model`) within
/// 5° of how it looks without the stage (`free`), medians: the stage kept what the
/// performer shows with it.
fn assert_looks_as_without(
    kept: &Built,
    profile: &Profile,
    free: &Likeness,
    segments: &[&str],
    model: &str,
) {
    for segment in segments {
        let (with, without) = (
            built_median(kept, profile, segment),
            segment_median(free, segment),
        );
        assert!(
            with <= without + 5.0,
            "{model}: the {segment} {with:.1}° against {without:.1}°"
        );
    }
}

#[test]
fn a_wave_from_the_first_frame_to_the_last_keeps_the_wave() {
    // The take starts and ends mid-wave: the weight shift before the lift and the
    // landing after it have no room inside it, so the plan holds the performer's first
    // and last poses around it.
    let wave = |i: usize| {
        let t = i as f64 * RATE;
        vec![
            ("RightArm", 'x', -130.0),
            (
                "RightForeArm",
                'z',
                35.0 * (t * std::f64::consts::TAU * 1.5).sin(),
            ),
        ]
    };
    let frames: Vec<_> = (0..(2.0 / RATE) as usize).map(wave).collect();
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let (profile, kept) = built(model, &frames, Balance::default());
        assert_stays_up(&kept.motion, &profile, model);
        let (lead_ms, tail_ms) = kept.balance.as_ref().unwrap().padding_ms();
        assert!(
            lead_ms >= 400 && tail_ms >= 200,
            "{model}: {lead_ms} {tail_ms}"
        );
        // The paw is up over the whole performance but the first rise.
        let on = standing_on(&kept.motion, &profile);
        let performed = &on[dense_range(&kept, 0.15, 1.95)];
        let up = performed.iter().filter(|f| !down(f, "rf")).count();
        assert_eq!(up, performed.len(), "{model}: the waving paw up {up}");
        let (_, free) = built(model, &frames, Balance::Off);
        let free = free.likeness(&profile).unwrap();
        let segments = ["right upper arm", "right forearm"];
        assert_looks_as_without(&kept, &profile, &free, &segments, model);
    }
}

#[test]
fn a_performer_who_stands_and_nods_is_built_as_without_the_stage() {
    // The least change that keeps it up: a pose the robot already holds on its four paws
    // needs none. A performer standing still and nodding gets, joint for joint, the
    // motion `--balance off` makes, within the two files' keyframe tolerances (0.5°
    // each). Aiming the planted legs at the performer's own segment directions instead
    // of the retargeted pose's (tried and dropped 2026-11-29) straightened this
    // performer's legs by some 10°: the likeness went from 12.9° to 3.8° on the ERS-7,
    // a change no balance asked for.
    let nod = |i: usize| vec![("Head", 'x', 20.0 * (i as f64 * RATE * 3.0).sin())];
    let frames: Vec<_> = (0..(3.0 / RATE) as usize).map(nod).collect();
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let (profile, kept) = built(model, &frames, Balance::default());
        let (_, free) = built(model, &frames, Balance::Off);
        // The performance's frames in each (the ramps from and to the postures aside).
        let performed = |b: &Built| -> Vec<mtn::DenseFrame> {
            let range = dense_range(b, 0.0, frames.len() as f64 * RATE);
            let all: Vec<_> = mtn::dense_frames(&b.motion).collect();
            all[range].to_vec()
        };
        let (on, off) = (performed(&kept), performed(&free));
        let mut widest = (0.0f64, 0, 0);
        for (f, (a, b)) in on.iter().zip(&off).enumerate() {
            for (j, (x, y)) in a.joints.iter().zip(&b.joints).enumerate() {
                let deg = urad_to_deg(x - y).abs();
                if deg > widest.0 {
                    widest = (deg, f, j);
                }
            }
        }
        let (deg, frame, joint) = widest;
        assert!(
            deg <= 1.0 + 1e-3,
            "{model}: {} {deg:.2}° apart at {} ms",
            profile.joints[joint].name,
            frame * 8
        );
        // And the nod is there: the head tilts through most of its 40°.
        let tilt = profile.joint_index("head_tilt").unwrap();
        let (lo, hi) = on.iter().fold((i32::MAX, i32::MIN), |(lo, hi), f| {
            (lo.min(f.joints[tilt]), hi.max(f.joints[tilt]))
        });
        let tilts = urad_to_deg(hi - lo);
        assert!(tilts > 30.0, "{model}: the head tilts {tilts:.1}°");
    }
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn the_bandai_wave_keeps_its_waving_arm_on_every_model() {
    // A 0.6 s take: the left arm rises, waves and comes down.
    let clip = shared_bvh("bandai2__wave-left-hand_active_011.bvh");
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let profile = Profile::builtin(model).unwrap();
        let kept = build(&clip, &profile, &BuildOptions::default()).unwrap();
        assert_stays_up(&kept.motion, &profile, model);
        let free = kept.likeness_without(&profile).unwrap();
        let segments = ["left upper arm", "left forearm"];
        assert_looks_as_without(&kept, &profile, &free, &segments, model);
    }
}

#[test]
fn with_no_margin_the_proof_finds_the_fall_and_the_repair_keeps_it_up() {
    // The README's example with the stage keeping no margin: the first motion falls in
    // the proof, and the stage runs again with a wider margin around the fall.
    let text = std::fs::read(common::example()).unwrap();
    let clip = bvh::read(&text).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let options = BuildOptions {
        balance: Balance::On {
            margin_mm: Some(0.0),
            stance_spots: false,
        },
        ..BuildOptions::default()
    };
    let built = build(&clip, &profile, &options).unwrap();
    let kept = built.balance.as_ref().unwrap();
    assert!(kept.repairs >= 1, "{}", kept.repairs);
    assert_eq!(kept.falls(), None);
    assert_stays_up(&built.motion, &profile, "repaired");
    // Repaired, not flattened: the wave still raises its paw.
    assert_eq!(kept.plan.lift_count(1), 1, "{:?}", kept.plan.lifts);
}

#[test]
fn a_walk_in_place_stays_up() {
    // Two steps a second, thighs up 40° and knees bent 60° in turn, arms swinging.
    let step = |t: f64| {
        let phase = (t * std::f64::consts::TAU).sin();
        let (l, r) = (phase.max(0.0), (-phase).max(0.0));
        vec![
            ("LeftUpLeg", 'x', -40.0 * l),
            ("LeftLeg", 'x', 60.0 * l),
            ("RightUpLeg", 'x', -40.0 * r),
            ("RightLeg", 'x', 60.0 * r),
            ("LeftArm", 'x', 25.0 * phase),
            ("RightArm", 'x', -25.0 * phase),
        ]
    };
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let (profile, kept) = built(model, &performance(&[], 6.0, step), Balance::default());
        assert_stays_up(&kept.motion, &profile, model);
    }
}

/// A performer who is only a spine, a neck and a head, nodding for three seconds (as an
/// MRTK recording has no legs).
fn nodding_head() -> String {
    let mut text = String::from(
        "HIERARCHY\nROOT Hips { OFFSET 0 0 0 CHANNELS 6 Xposition Yposition Zposition \
         Zrotation Xrotation Yrotation\n JOINT Spine { OFFSET 0 20 0 CHANNELS 3 Zrotation \
         Xrotation Yrotation\n  JOINT Neck { OFFSET 0 25 0 CHANNELS 3 Zrotation Xrotation \
         Yrotation\n   JOINT Head { OFFSET 0 10 0 CHANNELS 3 Zrotation Xrotation Yrotation \
         End Site { OFFSET 0 15 0 } }\n  }\n }\n}\nMOTION\nFrames: 90\nFrame Time: 0.0333333\n",
    );
    for f in 0..90 {
        let nod = 20.0 * (std::f64::consts::TAU * f as f64 / 45.0).sin();
        text.push_str(&format!("0 95 0 0 0 0 0 0 0 0 0 0 0 {nod} 0\n"));
    }
    text
}

#[test]
fn a_take_without_limbs_stands_the_legs_as_the_stand_posture_does() {
    // The stage stood such a take's legs where a performer's neutral limbs would put
    // them, 7° from the stand (ERS-7 and ERS-210 alike): the paws slid there and back,
    // 19 mm each by the joint angles. Now the legs stay in the posture, up to the paws
    // settling onto one flat floor (the ERS-210/220's stand, as the profile has it, is
    // a few tenths of a degree off that).
    let settle = 0.5f64.to_radians();
    let clip = bvh::read(nodding_head().as_bytes()).unwrap();
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let profile = Profile::builtin(model).unwrap();
        let with = |balance| {
            let options = BuildOptions {
                balance,
                ..BuildOptions::default()
            };
            build(&clip, &profile, &options).unwrap().motion
        };
        let (kept, unbalanced) = (with(Balance::default()), with(Balance::Off));
        let legs: Vec<usize> = (profile.joints.iter().enumerate())
            .filter(|(_, j)| {
                ["lf_", "rf_", "lh_", "rh_"]
                    .iter()
                    .any(|p| j.name.starts_with(p))
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(legs.len(), 12, "{model}");
        let posture = &profile.postures["stand"].joints;
        // Without the stage the legs hold the start posture throughout; with it, within
        // the settling.
        for (what, motion, within) in [
            ("--balance off", &unbalanced, 1e-6),
            ("the stage", &kept, settle),
        ] {
            for frame in mtn::dense_frames(motion) {
                for &j in &legs {
                    let off = (f64::from(frame.joints[j]) * 1e-6 - posture[j]).abs();
                    assert!(
                        off <= within,
                        "{model}, {what}: {} {:.2}° from the posture at frame {}",
                        profile.joints[j].name,
                        off.to_degrees(),
                        frame.index
                    );
                }
            }
        }
        let sim = physics::simulate(&kept, &profile, 0.8 * physics::SERVO_TORQUE_NM).unwrap();
        assert!(
            sim.fall.is_none() && sim.slipped.is_empty(),
            "{model}: {}",
            sim.summary()
        );
    }
    // From a sit the stage stands the robot on its paws as ever, and the head nods as
    // without it (a stance in the sit, which the stage cannot stand on, left the head
    // behind: 34° off at p90).
    let profile = Profile::builtin("ERS-7").unwrap();
    let from_sit = |balance| {
        let mut options = BuildOptions {
            balance,
            ..BuildOptions::default()
        };
        options.keyframes.start_pose = "sit".into();
        build(&clip, &profile, &options).unwrap()
    };
    let head = |built: &Built| built.likeness(&profile).unwrap().head.unwrap();
    let (kept, unbalanced) = (from_sit(Balance::default()), from_sit(Balance::Off));
    let (with, without) = (head(&kept), head(&unbalanced));
    assert!(
        with.median_deg <= without.median_deg + 1.0 && with.p90_deg <= without.p90_deg + 1.0,
        "the head from a sit: {with:?}, without the stage {without:?}"
    );
    assert_stays_up(&kept.motion, &profile, "from a sit");
}

/// FNV-1a, 64 bits: a file's fingerprint with no dependency.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `--balance off` (with `extra` arguments) against the files the build before the
/// stage (commit 7d2302b) wrote, by their fingerprints and lengths.
fn assert_unchanged_without_the_stage(
    input: &Path,
    extra: &[&str],
    expected: &[(&str, u64, usize)],
) {
    let dir = tempfile::tempdir().unwrap();
    for &(model, fingerprint, len) in expected {
        let out = dir.path().join(format!("{model}.mtn"));
        common::build_file(input, model, &[&["--balance", "off"], extra].concat(), &out);
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!((fnv(&bytes), bytes.len()), (fingerprint, len), "{model}");
    }
}

#[test]
fn balance_off_writes_the_example_as_the_build_before_the_stage_did() {
    assert_unchanged_without_the_stage(
        &common::example(),
        &[],
        &[
            ("ERS-7", 0x3ef6_a657_f54c_081e, 7604),
            ("ERS-210", 0x122b_182e_bd86_d559, 5876),
            ("ERS-220", 0xd0aa_9768_e0ea_3bee, 4644),
        ],
    );
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn balance_off_writes_shared_takes_as_the_build_before_the_stage_did() {
    let bvh = common::shared("mocap-samples").join("bvh");
    assert_unchanged_without_the_stage(
        &bvh.join("assimp__cmu_01_03.bvh"),
        // It opens on a T-pose frame, which the build before the stage played.
        &["--keep-tpose"],
        &[("ERS-7", 0x321d_04d6_a675_5986, 199_804)],
    );
    assert_unchanged_without_the_stage(
        &bvh.join("bandai2__wave-left-hand_active_011.bvh"),
        &[],
        &[("ERS-220", 0x24c1_155a_a84c_bcd3, 2160)],
    );
}

#[test]
fn a_built_motion_rebuilt_from_its_json_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("wave.mtn");
    common::build_file(&common::example(), "ERS-7", &[], &first);
    let json = dir.path().join("wave.json");
    std::fs::write(
        &json,
        mtn::to_json(&mtn::decode(&std::fs::read(&first).unwrap()).unwrap().motion),
    )
    .unwrap();
    let again = dir.path().join("again.mtn");
    common::build_file(&json, "ERS-7", &[], &again);
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn the_readme_example_falls_in_all_three_judges_without_the_stage_and_stays_up_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    for (balance, falls) in [("off", true), ("on", false)] {
        let file = dir.path().join(format!("wave-{balance}.mtn"));
        common::build_file(&common::example(), "ERS-7", &["--balance", balance], &file);
        let motion = mtn::decode(&std::fs::read(&file).unwrap()).unwrap().motion;
        let statics = statics::check(&motion, &profile, 0.0).unwrap();
        assert_eq!(
            statics.faults().next().is_some(),
            falls,
            "{balance}: {}",
            statics.summary()
        );
        let sim = physics::simulate(&motion, &profile, physics::SERVO_TORQUE_NM).unwrap();
        assert_eq!(sim.fall.is_some(), falls, "{balance}: {}", sim.summary());
        let log = common::played_on_the_physics_server(&file, "ERS-7");
        assert!(log.contains("physics: the servos move"), "{log}");
        assert_eq!(
            log.contains("physics: the robot fell"),
            falls,
            "{balance}: {log}"
        );
        if !falls {
            // It stays up with its paw raised: the wave is still there.
            let on = standing_on(&motion, &profile);
            let up = on.iter().filter(|f| !down(f, "rf")).count();
            assert!(up as f64 * 8.0 >= 1000.0, "the rf paw up for {} ms", up * 8);
        }
    }
}

/// The numbers of attribute `name` in each element of `svg` that starts with `tag`.
fn attributes(svg: &str, tag: &str, name: &str) -> Vec<String> {
    svg.split(tag)
        .skip(1)
        .filter_map(|e| {
            let e = e.split('>').next()?;
            let at = e.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(e[at..].split('"').next()?.to_string())
        })
        .collect()
}

#[test]
fn preview_rings_the_paws_meant_down_and_lays_the_support_under_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wave.mtn");
    common::build_file(&common::example(), "ERS-7", &[], &file);
    let motion = mtn::decode(&std::fs::read(&file).unwrap()).unwrap().motion;
    let profile = Profile::builtin("ERS-7").unwrap();
    // A moment with the rf paw up, by the static test.
    let on = standing_on(&motion, &profile);
    let frame = on.iter().position(|f| !down(f, "rf")).unwrap() + 40;
    assert!(!down(&on[frame], "rf"));
    let at = format!("{:.3}", frame as f64 * 0.008);
    let svg_file = dir.path().join("still.svg");
    let out = common::run(&[
        "preview",
        file.to_str().unwrap(),
        "--at",
        &at,
        "-o",
        svg_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let svg = std::fs::read_to_string(&svg_file).unwrap();
    // Rings: four paws in two views (the legend's has no opacity, the footfalls' dots
    // are their own class); three of each shown.
    let tag = |e: &str| e.split('>').next().unwrap().to_string();
    let paw_rings: String = svg
        .split("<circle")
        .filter(|e| tag(e).contains("opacity=") && !tag(e).contains("class=\"footfall\""))
        .map(|e| format!("<circle{e}"))
        .collect();
    let footfalls: String = svg
        .split("<circle")
        .filter(|e| tag(e).contains("class=\"footfall\""))
        .map(|e| format!("<circle{e}"))
        .collect();
    let rings: Vec<(f64, f64, String)> = attributes(&paw_rings, "<circle", "cx")
        .iter()
        .zip(attributes(&paw_rings, "<circle", "cy"))
        .zip(attributes(&paw_rings, "<circle", "opacity"))
        .map(|((x, y), o)| (x.parse().unwrap(), y.parse().unwrap(), o))
        .collect();
    let shown: Vec<&(f64, f64, String)> = rings.iter().filter(|r| r.2 == "1").collect();
    assert_eq!((rings.len(), shown.len()), (8, 6), "{rings:?}");
    // A still's footfalls are the paws down in it: one dot under each shown ring of the
    // top view.
    let dots: Vec<(f64, f64)> = attributes(&footfalls, "<circle", "cx")
        .iter()
        .zip(attributes(&footfalls, "<circle", "cy"))
        .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
        .collect();
    assert_eq!(dots.len(), 3, "{dots:?}");
    for (x, y) in &dots {
        assert!(
            shown.iter().any(|r| (r.0 - x).hypot(r.1 - y) < 0.5),
            "{dots:?} {shown:?}"
        );
    }
    // The support polygon's corners lie under the shown rings of the top view.
    let polygon = attributes(&svg, "<polygon", "points");
    let corners: Vec<(f64, f64)> = polygon[0]
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(corners.len(), 3, "{corners:?}");
    for (x, y) in &corners {
        let nearest = shown
            .iter()
            .map(|r| (r.0 - x).hypot(r.1 - y))
            .fold(f64::INFINITY, f64::min);
        assert!(
            nearest < 4.0,
            "a corner {nearest:.1} px from any ring: {corners:?} {shown:?}"
        );
    }

    // The simulated robot, standing, has its paws on the ground line as the still does.
    // The lowest end of the figure's lines (4 px wide; the floor and divider are 1 px).
    let ground = |svg: &str| {
        let figure: String = svg
            .split("<line")
            .filter(|e| e.contains("stroke-width=\"4\""))
            .map(|e| format!("<line{e}"))
            .collect();
        attributes(&figure, "<line", "y2")
            .iter()
            .chain(&attributes(&figure, "<line", "y1"))
            .map(|v| v.parse::<f64>().unwrap())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let physics_file = dir.path().join("physics.svg");
    let out = common::run(&[
        "preview",
        file.to_str().unwrap(),
        "--at",
        "0.2",
        "--physics",
        "-o",
        physics_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let lowest = ground(&std::fs::read_to_string(&physics_file).unwrap());
    let still_file = dir.path().join("still0.svg");
    let out = common::run(&[
        "preview",
        file.to_str().unwrap(),
        "--at",
        "0.2",
        "-o",
        still_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let still = ground(&std::fs::read_to_string(&still_file).unwrap());
    assert!(
        (lowest - still).abs() < 3.0,
        "physics {lowest} px, still {still} px"
    );

    // The plot's balance panel has a lane per paw for where it is meant down.
    let plot_file = dir.path().join("plot.svg");
    let out = common::run(&[
        "plot",
        file.to_str().unwrap(),
        "-o",
        plot_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let plot = std::fs::read_to_string(&plot_file).unwrap();
    assert!(plot.contains("bars: the paws meant down"));
    for paw in ["lf", "rf", "lh", "rh"] {
        assert!(plot.contains(&format!(">\n{paw}\n</text>")), "{paw}");
    }
}

#[test]
fn a_performer_standing_wide_has_the_paws_planted_where_the_legs_stand() {
    // The legs spread wide throughout; the right arm rises and waves. On the stance's
    // spots (a performer at rest, legs together) the planted hind legs would bend away
    // from the performer's spread thighs.
    let wide = [("LeftUpLeg", 'z', 18.0), ("RightUpLeg", 'z', -18.0)];
    let frames: Vec<Vec<(&str, char, f64)>> = (0..(5.0 / RATE) as usize)
        .map(|i| {
            let t = i as f64 * RATE;
            let raised = ((t - 1.0) / 0.5).clamp(0.0, 1.0) * ((4.5 - t) / 0.5).clamp(0.0, 1.0);
            let mut f = wide.to_vec();
            f.push(("RightArm", 'x', -130.0 * raised));
            f.push(("RightForeArm", 'z', 35.0 * raised * (t * 9.0).sin()));
            f
        })
        .collect();
    for model in ["ERS-7", "ERS-210"] {
        let (profile, kept) = built(model, &frames, Balance::default());
        assert_stays_up(&kept.motion, &profile, model);
        // Both hind paws moved out toward where the spread legs stand.
        let moved = kept.balance.as_ref().unwrap().spots_moved;
        let moved = moved.unwrap_or_else(|| panic!("{model}: the paws on the stance's spots"));
        let moved = moved.mm;
        assert!(moved[2] > 15.0 && moved[3] > 15.0, "{model}: {moved:?}");
        // The bound holds: the overall likeness rises by at most 3° against the
        // build without the stage.
        let (_, free) = built(model, &frames, Balance::Off);
        let overall = |b: &Built| b.likeness(&profile).unwrap().overall.median_deg;
        let (with, without) = (overall(&kept), overall(&free));
        assert!(
            with <= without + 3.0,
            "{model}: the likeness {with:.1}° against {without:.1}°"
        );
        // The choice, made on the stage's rows, holds on the written motions: the paws
        // kept on the stance's spots (`--stance-spots`) look less like the performer.
        let on_stance = Balance::On {
            margin_mm: None,
            stance_spots: true,
        };
        let (_, stance) = built(model, &frames, on_stance);
        assert_eq!(stance.balance.as_ref().unwrap().spots_moved, None);
        let on_stance = overall(&stance);
        assert!(
            with < on_stance,
            "{model}: the likeness {with:.1}° against {on_stance:.1}° on the stance's spots"
        );
    }
}

/// How far the centre of mass stands from the hind paws' midpoint, seen from above, in
/// each dense frame, by the static test (the hind paws: the two rearmost points of the
/// support polygon, which all four paws or a front paw and both hind paws make).
fn from_the_hind_paws(motion: &Motion, profile: &Profile) -> Vec<glam::DVec2> {
    statics::stances(motion, profile)
        .unwrap()
        .into_iter()
        .map(|s| {
            let mut support = s.support.clone();
            support.sort_by(|a, b| a.x.total_cmp(&b.x));
            s.com - (support[0] + support[1]) / 2.0
        })
        .collect()
}

#[test]
fn with_a_front_paw_up_the_front_paws_planted_forward_shift_the_weight_less() {
    // Both arms raised, the right one higher and waving, for most of the take: the right
    // front paw lifts, the left is held down, and the centre of mass must cross the
    // diagonal from the left front paw to the right hind paw. Planted further forward,
    // the left front paw turns that diagonal toward the raised paw, so the body need not
    // travel as far over it. (With both arms equally high, the left paw rises now, whose
    // still arm a leg shows better than the right's sideways wave: 15.4° against 19.4°
    // with the right paw up, and there the stance's spots serve best.)
    let pose = [("RightArm", 'x', -130.0), ("LeftArm", 'x', -110.0)];
    let wave = |t: f64| vec![("RightForeArm", 'z', 35.0 * (t * 9.0).sin())];
    let frames = performance(&pose, 8.0, wave);
    let model = "ERS-7";
    let (profile, kept) = built(model, &frames, Balance::default());
    assert_stays_up(&kept.motion, &profile, model);
    let moved = kept.balance.as_ref().unwrap().spots_moved;
    let moved = moved.expect("the paws on the stance's spots");
    assert!(
        matches!(
            moved.to,
            Spots::FrontForward | Spots::PerformersFrontForward
        ),
        "{moved:?}"
    );
    assert!(moved.mm[0] > 20.0 && moved.mm[1] > 20.0, "{moved:?}");
    let on_stance = Balance::On {
        margin_mm: None,
        stance_spots: true,
    };
    let (_, stance) = built(model, &frames, on_stance);
    assert_stays_up(&stance.motion, &profile, model);
    // The weight's shift, by the static test on the written motions: from where it
    // stands still before the performance to the furthest in the hold's middle.
    let shift = |b: &Built| {
        let com = from_the_hind_paws(&b.motion, &profile);
        let still = com[dense_range(b, 0.2, 0.8)][0];
        let hold = &com[dense_range(b, 3.0, 7.0)];
        hold.iter().map(|c| c.distance(still)).fold(0.0, f64::max)
    };
    // (24.0 mm against 27.3 mm when written; the stage's own figure, 20 against 27 mm.)
    let (forward, on_stance) = (shift(&kept), shift(&stance));
    assert!(
        forward + 2.0 < on_stance,
        "the weight shifted {forward:.1} mm against {on_stance:.1} mm on the stance's spots"
    );
    // The choice, made on the stage's rows, holds on the written motions.
    let overall = |b: &Built| b.likeness(&profile).unwrap().overall.median_deg;
    let (with, on_stance) = (overall(&kept), overall(&stance));
    assert!(
        with < on_stance,
        "the likeness {with:.1}° against {on_stance:.1}° on the stance's spots"
    );
}

/// What the robot rests on in each of `frames` besides its paws (the static test's
/// points other than `… paw`).
fn resting_on(frames: &[Vec<String>]) -> Vec<String> {
    let mut parts: Vec<String> = frames
        .iter()
        .flatten()
        .filter(|p| !p.ends_with(" paw"))
        .cloned()
        .collect();
    parts.sort();
    parts.dedup();
    parts
}

#[test]
fn a_performer_who_squats_gets_the_robot_resting_on_its_body_and_it_stays_up() {
    // Still for a second, down into a squat over half a second (thighs level, shins
    // upright: the hips 42 of their 87 lower), three seconds there, and back up.
    let squat = [
        ("LeftUpLeg", 'x', -90.0),
        ("LeftLeg", 'x', 90.0),
        ("RightUpLeg", 'x', -90.0),
        ("RightLeg", 'x', 90.0),
    ];
    let frames = performance(&squat, 3.0, |_| vec![]);
    let depth = |f: usize| {
        let t = f as f64 * RATE;
        42.0 * ((t - 1.0) / 0.5).clamp(0.0, 1.0) * ((5.0 - t) / 0.5).clamp(0.0, 1.0)
    };
    let lowered: Vec<f64> = (0..frames.len()).map(depth).collect();
    let text = common::performer_bvh_lowered(&frames, &lowered, RATE);
    let clip = bvh::read(text.as_bytes()).unwrap();
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let profile = Profile::builtin(model).unwrap();
        let kept = build(&clip, &profile, &BuildOptions::default()).unwrap();
        assert_stays_up(&kept.motion, &profile, model);
        let plan = &kept.balance.as_ref().unwrap().plan;
        assert_eq!(plan.rests.len(), 1, "{model}: {:?}", plan.rests);
        assert!(plan.lifts.is_empty(), "{model}: {:?}", plan.lifts);
        // Down in the squat, the static test finds the robot resting on its body (the
        // rump or belly its posture rests on), and standing on its paws alone before
        // and after.
        let on = standing_on(&kept.motion, &profile);
        let parts = resting_on(&on[dense_range(&kept, 2.5, 3.5)]);
        assert!(
            parts.iter().any(|p| p == "rump" || p == "belly"),
            "{model}: {parts:?}"
        );
        for (from, to) in [(0.0, 0.5), (5.5, 5.9)] {
            let parts = resting_on(&on[dense_range(&kept, from, to)]);
            assert!(parts.is_empty(), "{model}, {from}–{to} s: {parts:?}");
        }
        // The thighs fold as the performer's do: within 5° of what `--balance off` gives
        // them (standing through the squat, the ERS-7's were 50° from them).
        let free = kept.likeness_without(&profile).unwrap();
        let thighs = ["left thigh", "right thigh"];
        assert_looks_as_without(&kept, &profile, &free, &thighs, model);
    }
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn the_mocapbank_kneel_is_played_resting_where_the_hips_are_down() {
    // bvh-python's test_mocapbank kneels on one knee and leans over, its hips about half
    // their standing height, from about 4 s to 12 s.
    let clip = shared_bvh("bvh-python__test_mocapbank.bvh");
    // Where the hips are down, by their world height (the root joint's): below the
    // middle of their highest and lowest.
    let heights: Vec<f64> = (0..clip.frames)
        .map(|f| aibo_motion::source::kinematics::world_pose(&clip, f).positions[0].y)
        .collect();
    let (lo, hi) = heights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &h| {
            (a.min(h), b.max(h))
        });
    let down: Vec<usize> = (0..heights.len())
        .filter(|&f| heights[f] < (lo + hi) / 2.0)
        .collect();
    let frame_s = clip.frame_time;
    let (first, last) = (
        down[0] as f64 * frame_s,
        *down.last().unwrap() as f64 * frame_s,
    );
    assert!(first > 3.0 && last < 13.0, "{first:.1}–{last:.1} s");
    for model in ["ERS-7", "ERS-210", "ERS-220"] {
        let profile = Profile::builtin(model).unwrap();
        let kept = build(&clip, &profile, &BuildOptions::default()).unwrap();
        assert_stays_up(&kept.motion, &profile, model);
        let balance = kept.balance.as_ref().unwrap();
        let [rest] = &balance.plan.rests[..] else {
            panic!("{model}: {:?}", balance.plan.rests)
        };
        // The rest covers the kneel, its ramps within a second and a half either side.
        let (from, to) = (
            balance.plan.seconds_at(rest.start),
            balance.plan.seconds_at(rest.end),
        );
        assert!(
            from <= first && from >= first - 1.5 && to >= last && to <= last + 1.5,
            "{model}: rests {from:.1}–{to:.1} s, the hips down {first:.1}–{last:.1} s"
        );
        let on = standing_on(&kept.motion, &profile);
        let parts = resting_on(&on[dense_range(&kept, first + 1.5, last - 1.5)]);
        assert!(
            parts.iter().any(|p| p == "rump" || p == "belly"),
            "{model}: {parts:?}"
        );
        // Within the 20°: standing through the kneel, the stage had the take at
        // 24.8° (ERS-7) and 26.1° (ERS-210/220); resting, 18.4° and 18.6° (2026-12-07).
        let overall = kept.likeness(&profile).unwrap().overall.median_deg;
        assert!(overall <= 20.0, "{model}: {overall:.1}°");
    }
}
