//! The likeness figure: how far the built motion's limb segments point from the
//! performer's. Checked against angles worked out by hand, against a mapping known to be
//! wrong, and on every full-body motion capture sample in `../shared`.

use crate::common;

use aibo_motion::likeness::Likeness;
use aibo_motion::pipeline::{build, Balance, BuildOptions};
use aibo_motion::retarget::{self, retarget};
use aibo_motion::robot::profile::{Mapping, Profile};
use aibo_motion::source::{self, bvh, Clip, ReadOptions};
use std::path::{Path, PathBuf};

/// The figure of the motion built from `clip`, without the balance stage (the figure
/// measures the retargeting, whose angles these tests work out by hand) or with it.
fn figure_with(
    clip: &Clip,
    profile: &Profile,
    overrides: Vec<Mapping>,
    balance: Balance,
) -> Likeness {
    let options = BuildOptions {
        retarget: retarget::Options {
            overrides,
            ..retarget::Options::default()
        },
        balance,
        ..BuildOptions::default()
    };
    let built = build(clip, profile, &options).unwrap();
    built.likeness(profile).expect("a figure")
}

fn figure_of(clip: &Clip, profile: &Profile, overrides: Vec<Mapping>) -> Likeness {
    figure_with(clip, profile, overrides, Balance::Off)
}

fn segment<'a>(l: &'a Likeness, performer: &str) -> &'a aibo_motion::likeness::Figure {
    &l.segments
        .iter()
        .find(|s| s.performer == performer)
        .unwrap_or_else(|| panic!("no {performer}"))
        .figure
}

#[test]
fn a_performer_standing_still_scores_the_angles_of_the_mapped_stand() {
    // Straight limbs hanging down against the ERS-7's legs at the mappings' offsets:
    // J1 −10°, J2 3°, J3 25°. An upper leg turned a about the pitch axis and b outward
    // is cos θ = cos a·cos b from straight down; the lower leg, turned c further at the
    // knee, cos θ = cos a·cos b·cos c − sin a·sin c (the same sense as a, front and hind).
    let text = common::performer_bvh(&vec![vec![]; 30], 0.05);
    let clip = bvh::read(text.as_bytes()).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let l = figure_of(&clip, &profile, Vec::new());
    let (a, b, c) = ((-10f64).to_radians(), 3f64.to_radians(), 25f64.to_radians());
    let upper = (a.cos() * b.cos()).acos().to_degrees();
    let lower = (a.cos() * b.cos() * c.cos() - a.sin() * c.sin())
        .acos()
        .to_degrees();
    for limb in ["left", "right"] {
        for (segment_name, want) in [
            ("upper arm", upper),
            ("forearm", lower),
            ("thigh", upper),
            ("shin", lower),
        ] {
            let f = segment(&l, &format!("{limb} {segment_name}"));
            assert!(
                (f.median_deg - want).abs() < 0.05 && (f.p90_deg - want).abs() < 0.05,
                "{limb} {segment_name}: {f:?}, want {want:.2}°"
            );
            assert_eq!(f.over_45, 0.0);
        }
    }
    assert_eq!(l.segments.len(), 8);
    // Half the segments at each angle: the median lies between them.
    assert!((l.overall.median_deg - (upper + lower) / 2.0).abs() < 0.05);
    // The stand holds the nose 5° up (neck tilt −20°, nod 25°); the performer looks
    // straight ahead.
    let head = l.head.unwrap();
    assert!((head.median_deg - 5.0).abs() < 0.05, "{head:?}");
    assert!(l.beyond_limits.is_empty());
}

#[test]
fn a_leg_swung_the_wrong_way_scores_worse() {
    // The left arm swings forward and back; with the front leg's swing reversed by a
    // user mapping the robot swings it the other way, and the figure says so.
    let frames: Vec<Vec<(&str, char, f64)>> = (0..60)
        .map(|k| {
            let deg = -50.0 * (k as f64 / 59.0 * std::f64::consts::TAU).sin();
            vec![("LeftArm", 'x', deg)]
        })
        .collect();
    let clip = bvh::read(common::performer_bvh(&frames, 0.05).as_bytes()).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let right = figure_of(&clip, &profile, Vec::new());
    let reversed = Mapping {
        sign: -1.0,
        ..profile
            .mappings
            .iter()
            .find(|m| m.joint == "lf_j1")
            .unwrap()
            .clone()
    };
    let wrong = figure_of(&clip, &profile, vec![reversed]);
    let (r, w) = (
        segment(&right, "left upper arm"),
        segment(&wrong, "left upper arm"),
    );
    assert!(r.median_deg < 12.0, "{r:?}");
    assert!(w.p90_deg > 60.0, "{w:?}");
    // The other arm did not move: same figure either way.
    assert_eq!(
        segment(&right, "right upper arm"),
        segment(&wrong, "right upper arm")
    );
}

/// Every full-body sample (all four limbs and a head) with the ASF its AMC needs.
fn full_body_samples() -> Vec<(PathBuf, Option<PathBuf>)> {
    let dir = common::shared("mocap-samples");
    let partial = ["bvh_anim__test_simple.bvh", "fairmotion__sinusoidal.bvh"];
    let mut out: Vec<(PathBuf, Option<PathBuf>)> = std::fs::read_dir(dir.join("bvh"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !partial.iter().any(|n| p.ends_with(n)))
        .map(|p| (p, None))
        .collect();
    out.extend(common::amc_takes(&dir.join("asf-amc")));
    out.sort();
    assert_eq!(out.len(), 20);
    out
}

fn read(path: &Path, asf: Option<PathBuf>) -> Clip {
    let data = std::fs::read(path).unwrap();
    let options = ReadOptions { asf, fps: None };
    source::read(path, &data, &options).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn every_full_body_sample_looks_like_its_performer() {
    let samples = full_body_samples();
    let profiles: Vec<Profile> = ["ERS-7", "ERS-210"]
        .iter()
        .map(|m| Profile::builtin(m).unwrap())
        .collect();
    let results: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .iter()
            .map(|(path, asf)| {
                let profiles = &profiles;
                scope.spawn(move || {
                    let clip = read(path, asf.clone());
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    profiles
                        .iter()
                        .map(|profile| {
                            // The retargeting's figure (the balance stage's cost is
                            // measured in tests/suite/balance_stage.rs).
                            let l = figure_of(&clip, profile, Vec::new());
                            assert_eq!(l.segments.len(), 8, "{name}");
                            assert!(l.head.is_some(), "{name}: no head figure");
                            assert!(
                                l.overall.median_deg <= 20.0,
                                "{name} on the {}: likeness median {:.1}°",
                                profile.model,
                                l.overall.median_deg
                            );
                            format!("{name} {}: {:.1}°", profile.model, l.overall.median_deg)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), 40);
    println!("{}", results.join("\n"));
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn the_same_take_in_two_formats_builds_the_same_tracks() {
    // CMU 01_01 as ASF/AMC and as an independently converted BVH, whose frame k + 1 is
    // AMC frame k (it adds a rest pose first): the tracks must agree frame for frame.
    // Not exactly: the converter kept every bone's direction (tests/suite/mocap_cross_check.rs)
    // but not the trunk's length (hips to shoulders is 1.30 thighs in the ASF, 1.02 in
    // the BVH), which tips the body's up by up to 3°. The head differs more: bone
    // directions do not pin its twist about its own axis, and its neutral, the mean over
    // frames, moves a little with the BVH's extra frame.
    let dir = common::shared("mocap-samples");
    let amc = read(
        &dir.join("asf-amc/cmu_01_01.amc"),
        Some(dir.join("asf-amc/cmu_01.asf")),
    );
    let bvh = read(&dir.join("bvh/assimp__cmu_01_01.bvh"), None);
    for model in ["ERS-7", "ERS-210"] {
        let profile = Profile::builtin(model).unwrap();
        let options = retarget::Options::default();
        let (a, b) = (
            retarget(&amc, &profile, &options).unwrap(),
            retarget(&bvh, &profile, &options).unwrap(),
        );
        let mut worst = (0.0f64, String::new());
        let mut worst_head = worst.clone();
        let (mut sum, mut count) = (0.0, 0);
        for (i, joint) in profile.joints.iter().enumerate() {
            let (Some(x), Some(y)) = (&a.joints[i], &b.joints[i]) else {
                assert_eq!(a.joints[i].is_some(), b.joints[i].is_some());
                continue;
            };
            for (k, v) in x.iter().enumerate() {
                let d = (v - y[k + 1]).to_degrees().abs();
                (sum, count) = (sum + d, count + 1);
                let slot = if joint.name.starts_with("head") {
                    &mut worst_head
                } else {
                    &mut worst
                };
                if d > slot.0 {
                    *slot = (d, format!("{} on frame {k}", joint.name));
                }
            }
        }
        let mean = sum / f64::from(count);
        println!(
            "{model}: mean {mean:.3}°, worst {:.3}° at {}, head {:.3}° at {}",
            worst.0, worst.1, worst_head.0, worst_head.1
        );
        assert!(worst.0 < 5.0, "{model}: {:.3}° at {}", worst.0, worst.1);
        assert!(worst_head.0 < 10.0, "{model}: {worst_head:?}");
        assert!(mean < 2.0, "{model}: mean difference {mean:.3}°");
    }
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn build_reports_the_figure_for_the_bandai_namco_dance() {
    let dir = common::shared("mocap-samples");
    let input = dir.join("bvh/bandai1__dance-short_normal_001.bvh");
    let json = &common::shared_build(&input, "ERS-7", &[]).json;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d.mtn");
    let (input, out) = (input.to_str().unwrap(), out.to_str().unwrap());
    // The figure without the balance stage (the retargeting's) beside the one with it.
    let without = &json["balance_stage"]["likeness_without"];
    assert!(without["median_deg"].as_f64().unwrap() <= 20.0, "{without}");
    assert_eq!(without["segments"].as_array().unwrap().len(), 8);
    // With it, as issue 20 bounds it: no more than 3° further from the performer.
    let l = &json["likeness"];
    let rise = l["median_deg"].as_f64().unwrap() - without["median_deg"].as_f64().unwrap();
    assert!(rise <= 3.0, "{rise}° more than without the stage");
    assert_eq!(l["segments"].as_array().unwrap().len(), 8);
    assert!(l["head"]["median_deg"].as_f64().unwrap() < 20.0, "{l}");
    // The dancer's arms go where the front legs cannot: the figure says which.
    let beyond = l["beyond_limits"].as_array().unwrap();
    assert!(beyond.iter().any(|b| b["limb"] == "left_arm"), "{l}");

    let run = common::run(&["build", input, "--profile", "ERS-7", "-o", out]);
    let text = common::stdout(&run);
    assert!(text.contains("likeness") && text.contains("left forearm ~ lf lower leg"));
    assert!(text.contains("out of reach: the left arm"), "{text}");

    // The head's neutral can be named, and a frame past the end is refused.
    let run = common::run(&[
        "build",
        input,
        "--profile",
        "ERS-7",
        "-o",
        out,
        "--neutral-frame",
        "99999",
    ]);
    assert_eq!(run.status.code(), Some(2), "{}", common::stderr(&run));
    assert!(common::stderr(&run).contains("--neutral-frame 99999"));
}
