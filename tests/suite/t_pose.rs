//! The T-pose a take starts or ends in, the capture's calibration, is found, and
//! `build` leaves it out unless `--keep-tpose`: a take with one then builds exactly as its
//! performance alone does; CMU's BVH conversion of take 01_01 opens on one T-pose frame
//! that its ASF/AMC original does not have; `info` and the summary say what was found.

use crate::common;

use aibo_motion::mtn;
use aibo_motion::pipeline::{self, build, BuildOptions, TPose};
use aibo_motion::retarget::calibration::Ends;
use aibo_motion::retarget::locomotion;
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{self, bvh, ReadOptions};

const RATE: f64 = 1.0 / 30.0;

type Frame = Vec<(&'static str, char, f64)>;

/// Both arms straight out to the sides; `droop` bends the right forearm down, degrees.
fn t_pose(droop: f64) -> Frame {
    vec![
        ("LeftArm", 'z', 90.0),
        ("RightArm", 'z', -90.0),
        ("RightForeArm", 'z', droop),
    ]
}

/// Three seconds of a performance: the right arm swings forward and back, the head nods.
fn performance() -> Vec<Frame> {
    (0..90)
        .map(|f| {
            let t = f as f64 * RATE;
            let swing = 40.0 * (std::f64::consts::TAU * t / 1.5).sin();
            vec![
                ("RightArm", 'x', -30.0 + swing),
                ("Head", 'x', 10.0 * (std::f64::consts::TAU * t).sin()),
            ]
        })
        .collect()
}

fn ers7() -> Profile {
    Profile::builtin("ERS-7").unwrap()
}

fn built(frames: &[Frame], t_pose: TPose) -> pipeline::Built {
    let clip = bvh::read(common::performer_bvh(frames, RATE).as_bytes()).unwrap();
    let options = BuildOptions {
        t_pose,
        ..BuildOptions::default()
    };
    build(&clip, &ers7(), &options).unwrap()
}

#[test]
fn a_take_opening_and_closing_in_a_t_pose_builds_as_its_performance_alone() {
    let alone = built(&performance(), TPose::default());
    assert_eq!(alone.t_pose, Ends::default());
    let alone_bytes = mtn::encode(&alone.motion).unwrap();
    // Held still, and held loosely (the right forearm drooping 25°).
    for droop in [0.0, -25.0] {
        let mut frames = vec![t_pose(droop); 30];
        frames.extend(performance());
        frames.extend(vec![t_pose(droop); 15]);
        // Left out (the default).
        let skipped = built(&frames, TPose::default());
        assert_eq!(
            skipped.t_pose,
            Ends {
                lead: 30,
                trail: 15
            },
            "droop {droop}"
        );
        assert_eq!(
            mtn::encode(&skipped.motion).unwrap(),
            alone_bytes,
            "droop {droop}"
        );
        // Kept (`--keep-tpose`), it is played: the motion is longer by at least the 45
        // frames.
        let kept = built(&frames, TPose::Keep);
        assert_eq!(kept.t_pose, Ends::default());
        let longer_ms = kept.motion.duration_ms() - alone.motion.duration_ms();
        assert!(
            longer_ms as f64 >= 45.0 * RATE * 1000.0 - 16.0,
            "{longer_ms} ms"
        );
    }
}

#[test]
fn arms_raised_above_level_or_a_whole_take_in_the_pose_are_not_left_out() {
    // Arms up at 45° above level as the take opens: a gesture, not the T-pose.
    let mut frames = vec![vec![("LeftArm", 'z', 135.0), ("RightArm", 'z', -135.0)]; 30];
    frames.extend(performance());
    assert_eq!(built(&frames, TPose::Skip).t_pose, Ends::default());
    // A take that is nothing but the T-pose is played as it is.
    let only = bvh::read(common::performer_bvh(&vec![t_pose(0.0); 60], RATE).as_bytes()).unwrap();
    let performed = pipeline::performed(&only, &ers7(), &Default::default(), TPose::Skip).unwrap();
    let ends = performed.t_pose;
    assert!(
        performed.tracks.frames == only.frames && ends == Ends::default(),
        "{ends:?}"
    );
}

/// CMU's BVH conversion of take 01_01 opens on a T-pose frame, and its frame k+1 is the
/// ASF/AMC original's frame k (`mocap_cross_check`). Left out, the BVH's performance is
/// the AMC's, frame for frame: its length, and where the performer's travel begins and
/// ends. The AMC has no T-pose to leave out.
#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn the_cmu_bvh_conversion_less_its_t_pose_frame_is_the_amc_original() {
    let samples = common::shared("mocap-samples");
    let read = |path: std::path::PathBuf| {
        let data = std::fs::read(&path).unwrap();
        source::read(&path, &data, &ReadOptions::default()).unwrap()
    };
    let bvh = read(samples.join("bvh/assimp__cmu_01_01.bvh"));
    let amc = read(samples.join("asf-amc/cmu_01_01.amc"));
    let performed = |clip: &source::Clip| {
        pipeline::performed(clip, &ers7(), &Default::default(), TPose::Skip).unwrap()
    };
    let (performance, original) = (performed(&bvh), performed(&amc));
    let ends = performance.t_pose;
    assert_eq!(ends, Ends { lead: 1, trail: 0 });
    assert_eq!(performance.tracks.frames, amc.frames);
    assert_eq!(original.t_pose, Ends::default());
    let travel = |tracks: &aibo_motion::retarget::Tracks| {
        locomotion::spans(&tracks.performer, tracks.frame_time)
    };
    let (from_bvh, from_amc) = (travel(&performance.tracks), travel(&original.tracks));
    assert_eq!(from_bvh.len(), from_amc.len(), "{from_bvh:?}\n{from_amc:?}");
    for (b, a) in from_bvh.iter().zip(&from_amc) {
        assert!(
            (b.start_s - a.start_s).abs() < 0.05 && (b.end_s - a.end_s).abs() < 0.05,
            "{b:?}\n{a:?}"
        );
        assert!((b.turn_deg - a.turn_deg).abs() < 5.0, "{b:?}\n{a:?}");
    }
}

#[test]
fn info_and_the_summary_say_what_was_found_and_keep_tpose_plays_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut frames = vec![t_pose(0.0); 30];
    frames.extend(performance());
    let input = dir.path().join("calibrated.bvh");
    std::fs::write(&input, common::performer_bvh(&frames, RATE)).unwrap();
    let out = dir.path().join("out.mtn");
    let found = |extra: &[&str]| {
        let printed = common::build_file(&input, "ERS-7", &[&["--json"], extra].concat(), &out);
        let summary: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
        let t = &summary["t_pose_s"];
        let (start, end) = (t["start"].as_f64().unwrap(), t["end"].as_f64().unwrap());
        assert!((start - 30.0 * RATE).abs() < 1e-9 && end == 0.0, "{t}");
        (
            t["left_out"].as_bool().unwrap(),
            summary["duration_s"].as_f64().unwrap(),
        )
    };
    let (played, played_s) = found(&["--keep-tpose"]);
    let (skipped, skipped_s) = found(&[]);
    assert!(!played && skipped);
    assert!(
        played_s - skipped_s >= 30.0 * RATE - 0.016,
        "{played_s} {skipped_s}"
    );
    // `info` says what build will leave out.
    let info = common::run(&["info", input.to_str().unwrap(), "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        info["t_pose_frames"],
        serde_json::json!({"start": 30, "end": 0})
    );
    // In words, in the summary a single build prints.
    for (extra, done) in [
        (&["--keep-tpose"][..], "played"),
        (&[][..], "left out (--keep-tpose plays it)"),
    ] {
        let text = common::stdout(&common::build_file(&input, "ERS-7", extra, &out));
        let said = format!(
            "the take starts in a T-pose (1.000 s), the capture's calibration rather than \
             the performance: {done}\n"
        );
        assert!(text.contains(&said), "{text}");
    }
}
