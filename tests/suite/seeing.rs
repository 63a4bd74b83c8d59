//! `plot` and `preview`: what they draw, checked in the SVG and HTML they write.

use crate::common;

use aibo_motion::mtn;
use std::path::{Path, PathBuf};

fn write_motion(dir: &Path, motion: &mtn::Motion, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, mtn::encode(motion).unwrap()).unwrap();
    path
}

fn run_ok(args: &[&str]) {
    let out = common::run(args);
    assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
}

#[test]
fn the_plot_labels_every_joint_and_marks_every_keyframe() {
    let dir = tempfile::tempdir().unwrap();
    let motion = common::link::ers7_motion();
    let file = write_motion(dir.path(), &motion, "m.mtn");
    let svg_path = dir.path().join("m.svg");
    run_ok(&[
        "plot",
        file.to_str().unwrap(),
        "-o",
        svg_path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let profile = aibo_motion::robot::profile::Profile::builtin("ERS-7").unwrap();
    for j in &profile.joints {
        assert!(
            svg.contains(&format!(">\n{}\n</text>", j.name)),
            "no label for {}",
            j.name
        );
    }
    for panel in [
        "Head",
        "Left front leg",
        "Right hind leg",
        "Tail",
        "time (s)",
        "degrees",
    ] {
        assert!(svg.contains(panel), "{panel}");
    }
    assert!(svg.contains("within every limit and speed"));
    // One marker per keyframe where a joint moves (its value differs from the keyframe
    // before or after; flat stretches are left bare), and nothing red.
    let moving: usize = (0..profile.joints.len())
        .map(|j| {
            let v: Vec<i32> = motion.keyframes.iter().map(|k| k.joints[j]).collect();
            (0..v.len())
                .filter(|&k| (k > 0 && v[k - 1] != v[k]) || (k + 1 < v.len() && v[k + 1] != v[k]))
                .count()
        })
        .sum();
    let circles = svg.matches("<circle").count();
    assert_eq!(circles, moving);
    assert!(moving < motion.keyframes.len() * profile.joints.len());
    assert!(!svg.contains("#FF0000"));
}

#[test]
fn values_past_a_limit_and_too_fast_segments_are_drawn_in_red() {
    let dir = tempfile::tempdir().unwrap();
    let mut motion = common::link::ers7_motion();
    // Head pan past its 88° limit, and so also too fast into that keyframe.
    motion.keyframes[3].joints[1] = 1_700_000;
    let file = write_motion(dir.path(), &motion, "bad.mtn");
    let out = dir.path().join("bad.svg");
    run_ok(&["plot", file.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let report = aibo_motion::check::check(
        &motion,
        &aibo_motion::robot::profile::Profile::builtin("ERS-7").unwrap(),
    );
    assert!(report.violations.len() >= 2);
    assert!(svg.contains(&format!(
        "{} limit or speed violations (red)",
        report.violations.len()
    )));
    assert!(
        svg.matches("#FF0000").count() >= report.violations.len(),
        "red marks"
    );
}

#[test]
fn motion_capture_plots_and_previews_through_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let bvh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh");
    let svg = dir.path().join("p.svg");
    run_ok(&[
        "plot",
        bvh.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "-o",
        svg.to_str().unwrap(),
    ]);
    let html = dir.path().join("p.html");
    run_ok(&[
        "preview",
        bvh.to_str().unwrap(),
        "--profile",
        "ERS-7",
        "-o",
        html.to_str().unwrap(),
    ]);
    let out = common::run(&["plot", bvh.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "motion capture needs --profile");
}

/// The `frames` array of a preview page.
fn html_frames(html: &str) -> Vec<Vec<f64>> {
    let line = html
        .lines()
        .find_map(|l| l.strip_prefix("const frames = "))
        .unwrap();
    serde_json::from_str(line.trim_end_matches(';')).unwrap()
}

#[test]
fn the_preview_animates_at_true_speed_and_a_still_does_not_move() {
    let dir = tempfile::tempdir().unwrap();
    let motion = common::link::ers7_motion();
    let file = write_motion(dir.path(), &motion, "m.mtn");
    let f = file.to_str().unwrap();
    let duration_s = (mtn::dense_frame_count(&motion) - 1) as f64 * 0.008;

    let svg_path = dir.path().join("a.svg");
    run_ok(&["preview", f, "-o", svg_path.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let lines = svg.matches("<line").count();
    let animates = svg.matches("<animate ").count();
    assert!(lines > 20);
    // Every moving line (two views; the backdrop's two and the legend's five are still)
    // animates its 4 ends, the clock's bar its width, the support polygon its points,
    // fill and stroke, the centre of mass its place and fill, and the ring on each paw
    // in each view its place and whether it shows (meant down); each footfall after the
    // first frame's shows from when it lands.
    let landings = svg.matches(r#"class="footfall""#).count();
    let later = svg
        .matches(r#"opacity="0"><animate attributeName="opacity""#)
        .count();
    assert!(landings >= 4 && later == landings - 4, "{landings} {later}");
    assert_eq!(
        animates,
        (lines - 2 - 5) * 4 + 1 + 3 + 3 + 4 * 2 * 3 + later
    );
    assert!(svg.contains(">paw meant down</text>"));
    assert!(
        svg.contains(&format!("dur=\"{duration_s:.3}s\"")),
        "true speed: {duration_s} s"
    );
    // A legend tells left from right, and the clock runs over the motion's length.
    for part in ["left legs", "right legs", "head", "tail"] {
        assert!(svg.contains(&format!(">{part}</text>")), "{part}");
    }
    assert!(svg.contains(&format!(
        "<animate attributeName=\"width\" dur=\"{duration_s:.3}s\""
    )));
    assert!(svg.contains(&format!(">{duration_s:.2} s</text>")));
    assert!(svg.contains("repeatCount=\"indefinite\""));

    let still = dir.path().join("s.svg");
    run_ok(&["preview", f, "--at", "1", "-o", still.to_str().unwrap()]);
    let still = std::fs::read_to_string(&still).unwrap();
    assert_eq!(still.matches("<animate").count(), 0);
    // A still says which moment it shows.
    assert!(
        still.contains(&format!(">1.00 s of {duration_s:.2} s</text>")),
        "{still}"
    );

    let html_path = dir.path().join("a.html");
    run_ok(&["preview", f, "-o", html_path.to_str().unwrap()]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    let frames = html_frames(&html);
    // The 16 ms grid: every second dense frame, the last one included.
    assert_eq!(
        frames.len() as u64,
        mtn::dense_frame_count(&motion).div_ceil(2)
    );
    assert!(frames
        .iter()
        .all(|f| f.len() == frames[0].len() && f.len() % 8 == 0));
    assert!(html.contains("const step = 0.016;"));
    // The figure moves: the head pan and the leg moves change some line ends.
    assert_ne!(frames[0], frames[frames.len() / 3]);
    assert_eq!(
        common::run(&["preview", f, "--at", "1", "-o", html_path.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
}

#[test]
#[cfg_attr(not(shared_mtn), ignore = "needs ../shared/mtn-samples")]
fn sony_samples_plot_and_preview_for_their_own_models() {
    let dir = common::shared("mtn-samples");
    let out = tempfile::tempdir().unwrap();
    for sub in [
        "sony-openr-monet-ers200/twistdance1.mtn",
        "sony-openr-monet-ers7/a_stand#stand_so0_makebow.mtn",
    ] {
        let file = dir.join(sub);
        let f = file.to_str().unwrap();
        run_ok(&["plot", f, "-o", out.path().join("p.svg").to_str().unwrap()]);
        run_ok(&[
            "preview",
            f,
            "-o",
            out.path().join("p.html").to_str().unwrap(),
        ]);
        run_ok(&[
            "preview",
            f,
            "-o",
            out.path().join("p.svg").to_str().unwrap(),
        ]);
    }
}

#[test]
fn a_motion_of_years_is_drawn_from_samples_and_export_refuses_it() {
    // A hostile (or absurd) file: the longest segment Sony's player can count, a
    // billion frames, 198 days of playback.
    let dir = tempfile::tempdir().unwrap();
    let mut motion = common::link::ers7_motion();
    motion.keyframes[2].frames_before = mtn::MAX_FRAMES_BEFORE;
    let file = write_motion(dir.path(), &motion, "long.mtn");
    let f = file.to_str().unwrap();
    let started = std::time::Instant::now();
    for out in ["p.svg", "p.html"] {
        run_ok(&["preview", f, "-o", dir.path().join(out).to_str().unwrap()]);
    }
    run_ok(&[
        "preview",
        f,
        "--at",
        "100000",
        "-o",
        dir.path().join("s.svg").to_str().unwrap(),
    ]);
    run_ok(&[
        "plot",
        f,
        "-o",
        dir.path().join("plot.svg").to_str().unwrap(),
    ]);
    let out = common::run(&[
        "export",
        f,
        "-o",
        dir.path().join("x.bvh").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("hours"),
        "{}",
        common::stderr(&out)
    );
    assert!(!dir.path().join("x.bvh").exists());
    // Sampling, not playing: well under a minute even unoptimized (no timing asserted
    // beyond "it finished"; the point is that it does not play 2 billion frames).
    println!("took {:?}", started.elapsed());
    let html = std::fs::read_to_string(dir.path().join("p.html")).unwrap();
    assert!(html_frames(&html).len() <= 1501);
}

/// Every figure line's ends, over every frame, in an animated preview: `(x, y)` pixels,
/// the side view's and the top view's apart (a line belongs to the view it starts in).
/// The figure's lines are the ones with `<animate>` children; the floor, the divider and
/// the legend are drawn once and closed at once.
fn figure_points(svg: &str) -> [Vec<(f64, f64)>; 2] {
    let number = |s: &str| s.parse::<f64>().unwrap();
    let attribute = |tag: &str, name: &str| {
        let tag = format!(" {tag}");
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        number(&tag[start..start + tag[start..].find('"').unwrap()])
    };
    let mut views = [Vec::new(), Vec::new()];
    for line in svg.split("<line ").skip(1) {
        let Some((tag, rest)) = line.split_once('>') else {
            continue;
        };
        if tag.ends_with('/') {
            continue;
        }
        let body = &rest[..rest.find("</line>").unwrap()];
        let values = |name: &str| {
            let mut all = vec![attribute(tag, name)];
            for animate in body.split("<animate ").skip(1) {
                if animate.contains(&format!("attributeName=\"{name}\"")) {
                    let list = animate.split("values=\"").nth(1).unwrap();
                    let list = &list[..list.find('"').unwrap()];
                    all.extend(list.split(';').filter(|v| !v.is_empty()).map(number));
                }
            }
            all
        };
        let (x1, y1, x2, y2) = (values("x1"), values("y1"), values("x2"), values("y2"));
        assert!(x1.len() > 1, "a figure line that never moves: {tag}");
        let view = usize::from(x1[0] >= 460.0);
        for i in 0..x1.len() {
            views[view].push((x1[i], y1[i]));
            views[view].push((x2[i], y2[i]));
        }
    }
    views
}

/// A simulated body slides, turns and falls: however far it travels, `preview --physics`
/// keeps it inside its own view of the 920 × 436 canvas, below the legend, and the top
/// view clear of the clock at its lower right (issue 22: the top view ran off the canvas
/// and under the clock).
fn assert_the_physics_preview_fits(mtn: &Path, svg: &Path) {
    run_ok(&[
        "preview",
        mtn.to_str().unwrap(),
        "--physics",
        "-o",
        svg.to_str().unwrap(),
    ]);
    let drawn = std::fs::read_to_string(svg).unwrap();
    let [side, top] = figure_points(&drawn);
    assert!(!side.is_empty() && !top.is_empty());
    let name = mtn.display();
    for &(x, y) in &side {
        assert!(
            (0.0..=460.0).contains(&x) && (36.0..=436.0).contains(&y),
            "{name}: the side view draws at ({x}, {y})"
        );
    }
    for &(x, y) in &top {
        assert!(
            (460.0..=920.0).contains(&x) && (36.0..=436.0).contains(&y),
            "{name}: the top view draws at ({x}, {y})"
        );
        // The clock: its bar and times span x 720–908 and y 404–436.
        assert!(
            !(x > 720.0 && y > 404.0),
            "{name}: the top view draws under the clock at ({x}, {y})"
        );
    }
}

#[test]
fn a_physics_preview_keeps_the_fallen_example_inside_its_views() {
    let dir = tempfile::tempdir().unwrap();
    // Unbalanced, the example tips forward onto its chest and slides.
    let mtn = dir.path().join("off.mtn");
    common::build_file(&common::example(), "ERS-7", &["--balance", "off"], &mtn);
    assert_the_physics_preview_fits(&mtn, &dir.path().join("off.svg"));
}

#[test]
#[cfg_attr(not(shared_mocap), ignore = "needs ../shared/mocap-samples")]
fn a_physics_preview_keeps_every_real_take_inside_its_views() {
    let dir = tempfile::tempdir().unwrap();
    let mut takes = 0;
    for entry in std::fs::read_dir(common::shared("mocap-samples").join("bvh")).unwrap() {
        let bvh = entry.unwrap().path();
        let Some(stem) = bvh
            .file_stem()
            .filter(|_| bvh.extension() == Some("bvh".as_ref()))
        else {
            continue;
        };
        // Most fall unbalanced, and the walks travel furthest.
        let mtn = dir.path().join(stem).with_extension("mtn");
        common::build_file(&bvh, "ERS-7", &["--balance", "off"], &mtn);
        assert_the_physics_preview_fits(&mtn, &dir.path().join("p.svg"));
        takes += 1;
    }
    assert!(takes >= 10, "{takes} takes");
}
