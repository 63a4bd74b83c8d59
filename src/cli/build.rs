//! `aibo-motion build`: make an MTN file from motion capture (retargeted onto a robot
//! profile) or from the JSON form that `dump` writes.

use super::{detect, json_text, load_clip, print_stdout, to_places, FileKind, Outcome};
use aibo_motion::keyframes::Options;
use aibo_motion::likeness::{Figure, Likeness};
use aibo_motion::pipeline::{self, BuildOptions, Kept};
use aibo_motion::retarget::{self, LegMode};
use aibo_motion::robot::profile::{load_mappings, Profile};
use aibo_motion::stability::walking;

/// How the legs follow the limbs: [`LegMode`] on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Legs {
    /// Joint angles from the limbs' swing, abduction and bend (the profile's mappings).
    Angles,
    /// Paw positions: each hand and foot, relative to its shoulder or hip and scaled to
    /// the leg's length, moves the paw from its stand position; inverse kinematics
    /// finds the angles.
    Ik,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// Whether and how the robot walks: [`pipeline::Locomotion`] on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Gait {
    On,
    Crawl,
    Off,
}

/// What follows a walk the robot needs longer for: [`pipeline::Timing`] on the command
/// line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Timing {
    Keep,
    Fit,
    Wait,
}

impl From<Timing> for pipeline::Timing {
    fn from(timing: Timing) -> pipeline::Timing {
        match timing {
            Timing::Keep => pipeline::Timing::Keep,
            Timing::Wait => pipeline::Timing::Wait,
            Timing::Fit => pipeline::Timing::Fit,
        }
    }
}

impl From<Legs> for LegMode {
    fn from(legs: Legs) -> LegMode {
        match legs {
            Legs::Angles => LegMode::Angles,
            Legs::Ik => LegMode::Ik,
        }
    }
}
use aibo_motion::{fsio, mtn, progress, terminal};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::json;
use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Build an MTN motion from motion capture (BVH, ASF/AMC, MRTK) or from its JSON form.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  aibo-motion build dance.bvh --profile ERS-210 -o dance.mtn\n  \
                        aibo-motion build 01_01.amc --asf 01.asf --profile ERS-7 -o walk.mtn\n  \
                        aibo-motion build sit.json -o sit.mtn\n  \
                        aibo-motion build takes/*.bvh --profile ERS-7 -o motions/\n\n\
                        The head follows the performer's head, the front legs the arms, the hind \
                        legs the legs; other joints hold the start posture. Every joint stays \
                        within its limits and speed, the motion starts and ends in a standard \
                        posture, and the written file's playback stays within --tolerance-deg \
                        of the limited track with as few keyframes as that allows. A JSON dump \
                        rebuilds its original file byte for byte."
)]
pub struct Args {
    /// Motion capture, or the JSON form of a motion (`aibo-motion dump FILE.mtn`). Several
    /// inputs build in parallel into the folder `-o` names.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The MTN file to write (`-` is stdout), or a folder for several inputs (or one, with
    /// a trailing `/`). The file or that folder is made; the folders above it must exist.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an output file even when it is read-only (it stays read-only).
    #[arg(long)]
    pub force: bool,
    /// ERS-210, ERS-220, ERS-7, a design label, or a profile .toml (motion capture input).
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub profile: Option<String>,
    /// Keyframe grid in ms (16 or a multiple).
    #[arg(long, default_value_t = Options::default().frame_ms, value_parser = super::parse_frame_ms, allow_negative_numbers = true)]
    pub frame_ms: u32,
    /// Largest difference between the file's playback and the limited track, degrees
    /// (above 0, at most 45).
    #[arg(long, default_value_t = 0.5, value_parser = super::parse_tolerance, allow_negative_numbers = true)]
    pub tolerance_deg: f64,
    /// `[[mapping]]` entries that replace the profile's for the same joints.
    #[arg(long, value_name = "FILE.toml")]
    pub map: Option<PathBuf>,
    /// Motion name (default `a_<start>#<end>_<input stem>`).
    #[arg(long)]
    pub name: Option<String>,
    /// Who made the motion, as the MTN file records it (Sony's own files say "SONY").
    #[arg(long, default_value_t = Options::default().creator)]
    pub creator: String,
    #[arg(long, default_value_t = Options::default().start_pose, value_name = "POSTURE", help = super::posture_help("starts"))]
    pub start_pose: String,
    #[arg(long, default_value_t = Options::default().end_pose, value_name = "POSTURE", help = super::posture_help("ends"))]
    pub end_pose: String,
    /// How the legs follow the limbs: joint angles, or paw positions by inverse kinematics.
    #[arg(long, value_enum, default_value_t = Legs::Angles)]
    pub legs: Legs,
    /// Body roll, pitch and yaw from the performer's pelvis (default: the posture's).
    #[arg(long)]
    pub body_attitude: bool,
    /// Keep the robot on its feet (on by default): the balance stage plans which paws
    /// carry it, shifts its weight before a paw lifts, changes the performer's angles as
    /// little as that needs, and proves the motion with both judges before writing it.
    /// `off` writes the retargeted motion as it is.
    #[arg(long, value_enum, default_value_t = OnOff::On, value_name = "on|off")]
    pub balance: OnOff,
    /// Walk where the performer travels (on by default, with the balance stage): a
    /// statically stable crawl, one paw up at a time, along the performer's path scaled
    /// by leg length (robot leg over human leg), steered by where the simulated body
    /// goes; where the performer goes faster than it can, it walks their path later (up
    /// to 20 s after them, their gestures meanwhile giving way: see --timing) rather
    /// than cutting across. Where the performer outpaces the crawl, a trot instead if
    /// it follows the performer better and the proof keeps it up with its walks (the
    /// summary names a way passed over, and why). A profile's `[walk] crouch` lowers
    /// the body while it walks (15 mm on all three built-in models); where that follows
    /// the performer badly, the trot is tried upright too. `crawl` never trots:
    /// two paws carry a trot, so its turn hangs on how they slip, and over tens of
    /// seconds no simulation pins down where it ends (`simulate --fine` is a second
    /// opinion); a crawl's path holds, at up to half the speed. `off` has the legs
    /// follow the performer's, treading in place.
    #[arg(long, value_enum, default_value_t = Gait::On, value_name = "on|crawl|off")]
    pub gait: Gait,
    /// What follows a walk (--gait) the robot needs longer for than the performer took.
    /// `keep` (the default) keeps the take's timing: the walk walks on over the gestures
    /// after it, and the last walk finishes the performer's path after the performance,
    /// the last pose held meanwhile (up to 20 s behind the performer, then up to 5 s to
    /// get where they got to, 25 s where it still faces away, and its steps home; the
    /// summary says how long). `fit` keeps the timing and the length too, for a motion
    /// played to its music: the last walk is home by the performance's end, having gone
    /// as far along the path as it could. `wait` holds the performer's pose at the walk's
    /// end until the robot has finished it (and up to 5 s more it may take to arrive):
    /// every gesture plays, later, and the motion runs longer.
    #[arg(long, value_enum, default_value_t = Timing::Keep, value_name = "keep|fit|wait")]
    pub timing: Timing,
    /// How far inside the support the balance stage keeps the centre of mass, mm
    /// (default 14 on the ERS-7; 22 on the ERS-210/220, whose masses are estimates).
    #[arg(long, value_name = "MM", value_parser = super::parse_margin, allow_negative_numbers = true)]
    pub balance_margin: Option<f64>,
    /// Keep the planted paws on the spots of the profile's neutral stance (where a
    /// performer standing at rest would put them). By default the balance stage also
    /// tries them where the performer's own legs stand (where the robot walks, as they
    /// stand between the walks) and, where a front paw lifts, both with the front paws
    /// further forward (the weight then shifts less while one is up), and keeps
    /// whichever looks most like the performer; the ramp from the start posture then
    /// slides the paws there, and the ramp to the end posture back (the summary says
    /// where and how far), and each walk steps off them and back onto them.
    #[arg(long)]
    pub stance_spots: bool,
    /// A source frame (from 0, counting every frame of the file, a T-pose the build
    /// leaves out included) on which the performer looks straight ahead. The head's
    /// turns, nods and tilts are measured relative to the body, against this frame's
    /// relation of head to body; the default is the take's typical relation (its mean
    /// over every frame), which assumes the performer mostly looks ahead. A headset
    /// (MRTK) knows where it looks and ignores this.
    #[arg(long, value_name = "N")]
    pub neutral_frame: Option<usize>,
    /// Play the T-pose a take starts or ends in. By default it is left out: a performer
    /// standing with both arms straight out to the sides on the first frames (or the
    /// last) is the capture system's calibration pose, not the performance (CMU's BVH
    /// conversions open on one such frame, some takes on a second or more), and the
    /// robot would spread its front legs sideways for it; the motion then starts that
    /// much earlier than the take. The summary says what it found, left out or played.
    #[arg(long)]
    pub keep_tpose: bool,
    /// A JSON summary on stdout (keyframes, duration, mapping used, warnings).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub source: super::SourceArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let batch = args.inputs.len() > 1
        || args.output.is_dir()
        || args.output.to_string_lossy().ends_with('/');
    if !batch {
        // A long take builds for seconds (balanced, its walks felt and the motion proved
        // on the simulated robot): a spinner says it is under way.
        let input = &args.inputs[0];
        let spinner = progress::Shown::new(
            ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} {elapsed:>3} building {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        );
        spinner
            .bar()
            .set_message(terminal::shown(&input.display().to_string()));
        spinner.bar().enable_steady_tick(Duration::from_millis(100));
        let built = build_one(&args, input, &args.output);
        drop(spinner);
        report(&args, &built?)?;
        return Ok(Outcome::Success);
    }
    if fsio::is_stdio(&args.output) {
        anyhow::bail!("several inputs need a folder for -o, not stdout");
    }
    // -o's own target is made (a file, or this folder); the folders above it must exist,
    // as for a single output.
    if !args.output.is_dir() {
        std::fs::create_dir(&args.output).with_context(|| {
            format!(
                "cannot create the folder {}{}",
                args.output.display(),
                match args.output.parent() {
                    Some(p) if !p.as_os_str().is_empty() && !p.is_dir() =>
                        format!(": the folder {} does not exist", p.display()),
                    _ => String::new(),
                }
            )
        })?;
    }
    let outputs: Vec<PathBuf> = args
        .inputs
        .iter()
        .map(|input| {
            let stem = input
                .file_stem()
                .map_or_else(|| "motion".into(), |s| s.to_string_lossy().into_owned());
            args.output.join(format!("{stem}.mtn"))
        })
        .collect();
    if let Some(clash) = outputs
        .iter()
        .enumerate()
        .find(|(i, o)| outputs[..*i].contains(o))
    {
        anyhow::bail!(
            "two inputs would both write {}; give them different names",
            clash.1.display()
        );
    }
    let shown = progress::Shown::new(
        ProgressBar::new(args.inputs.len() as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
    );
    let progress = shown.bar();
    // Each input on rayon's pool; a build that panics is caught and counted as failed,
    // so a batch never drops an input without a word.
    let results: Vec<Result<Summary>> = args
        .inputs
        .par_iter()
        .zip(&outputs)
        .map(|(input, output)| {
            progress.set_message(terminal::shown(&input.display().to_string()));
            let result =
                std::panic::catch_unwind(AssertUnwindSafe(|| build_one(&args, input, output)))
                    .unwrap_or_else(|panic| {
                        Err(anyhow::anyhow!(
                            "{}: the build crashed ({}); please report it with this file",
                            input.display(),
                            panic_message(panic.as_ref())
                        ))
                    });
            progress.inc(1);
            result
        })
        .collect();
    drop(shown);

    let mut failed = Vec::new();
    let mut built = Vec::new();
    for (input, result) in args.inputs.iter().zip(results) {
        match result {
            Ok(summary) => built.push(summary),
            Err(e) => failed.push((input.display().to_string(), format!("{e:#}"))),
        }
    }
    if args.json {
        let summaries: Vec<_> = built.iter().map(Summary::to_json).collect();
        let failures: Vec<_> = failed
            .iter()
            .map(|(f, e)| json!({"input": f, "error": e}))
            .collect();
        print_stdout(&json_text(&json!({"built": summaries, "failed": failures})))?;
    } else {
        let lines: String = built.iter().map(|s| s.text(false)).collect();
        print_stdout(&lines)?;
    }
    if failed.is_empty() {
        return Ok(Outcome::Success);
    }
    for (file, error) in &failed {
        let error = super::shown_lines(error);
        if error.starts_with(file.as_str()) {
            eprintln!("error: {error}");
        } else {
            eprintln!("error: {file}: {error}");
        }
    }
    anyhow::bail!("{} of {} inputs failed", failed.len(), args.inputs.len())
}

/// The text a panic carried, if it was text.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

/// What one build made, for people and for `--json`.
struct Summary {
    input: PathBuf,
    output: PathBuf,
    /// Model name, and the title with its design label.
    profile: String,
    profile_title: String,
    keyframes: usize,
    duration_s: f64,
    /// The ramps from the start posture and to the end posture, s (zero for a motion
    /// rebuilt from JSON).
    ramps_s: (f64, f64),
    /// The T-pose the take starts and ends in, s, and whether it was left out (the
    /// default) or played (`--keep-tpose`).
    t_pose_s: (f64, f64),
    t_pose_skipped: bool,
    drivers: Vec<aibo_motion::retarget::Driver>,
    held: Vec<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
    likeness: Option<Likeness>,
    /// Where the performer travels (walks, runs, turns); empty from JSON.
    locomotion: Vec<aibo_motion::retarget::locomotion::Span>,
    /// Whether the build walks where the performer travels (the balance stage, and the
    /// gait on or crawl).
    walking: bool,
    /// Whether it stays on its feet (the static test; none without a mass model).
    balance: Option<aibo_motion::stability::statics::Report>,
    /// What the balance stage did (none with `--balance off` or from JSON).
    stage: Option<super::keep::Stage>,
}

impl Summary {
    fn to_json(&self) -> serde_json::Value {
        let mapping: Vec<_> = self
            .drivers
            .iter()
            .map(|d| json!({"joint": d.joint, "measure": d.measure, "source": d.source}))
            .collect();
        json!({
            "input": self.input.display().to_string(),
            "output": self.output.display().to_string(),
            "profile": self.profile,
            "keyframes": self.keyframes,
            "duration_s": self.duration_s,
            "ramp_in_s": self.ramps_s.0,
            "ramp_out_s": self.ramps_s.1,
            "t_pose_s": {
                "start": self.t_pose_s.0,
                "end": self.t_pose_s.1,
                "left_out": self.t_pose_skipped,
            },
            "mapping": mapping,
            "held": self.held,
            "warnings": self.warnings,
            "notes": self.notes,
            "likeness": self.likeness.as_ref().map(likeness_json),
            "locomotion": self.locomotion,
            "balance": self.balance.as_ref().map(super::check::balance_json),
            "balance_stage": self.stage.as_ref().map(super::keep::Stage::to_json),
        })
    }

    /// The one balance line, and the spans that count (longer than 100 ms).
    fn balance_text(&self, t: &mut String) {
        let Some(b) = &self.balance else { return };
        match &self.stage {
            Some(stage) => {
                let verdict = match &stage.falls {
                    None => "kept on its feet",
                    Some(_) => "still falls",
                };
                let _ = writeln!(
                    t,
                    "  balance: {verdict}: {}; simulated with {:.0}% of the servos' torque, {}",
                    b.summary(),
                    100.0 * aibo_motion::pipeline::PROOF_TORQUE,
                    stage.physics
                );
                stage.text(t);
            }
            None => {
                let _ = writeln!(t, "  balance (not kept: --balance off): {}", b.summary());
            }
        }
        for span in b.faults() {
            let _ = writeln!(t, "    {}", super::check::describe_span(span));
        }
    }

    fn text(&self, detailed: bool) -> String {
        let mut t = String::new();
        let _ = write!(
            t,
            "{}: {} keyframes, {:.3} s, for the {}",
            self.output.display(),
            self.keyframes,
            self.duration_s,
            self.profile_title
        );
        match (&self.likeness, detailed) {
            (Some(l), false) => {
                let _ = write!(t, "; likeness {:.1}° median", l.overall.median_deg);
                if let Some(w) = self.stage.as_ref().and_then(|s| s.without.as_ref()) {
                    let _ = write!(t, " ({:.1}° without balancing)", w.overall.median_deg);
                }
                match self.stage.as_ref().map(|s| s.falls.is_none()) {
                    Some(true) => t.push_str("; stays up\n"),
                    Some(false) => t.push_str("; STILL FALLS\n"),
                    None => t.push('\n'),
                }
            }
            _ => t.push('\n'),
        }
        if detailed && self.ramps_s != (0.0, 0.0) {
            let _ = writeln!(
                t,
                "  ramps at a quarter of joint speed: {:.3} s from the start posture, {:.3} s \
                 to the end posture",
                self.ramps_s.0, self.ramps_s.1
            );
        }
        for (s, at) in [(self.t_pose_s.0, "starts"), (self.t_pose_s.1, "ends")] {
            if detailed && s > 0.0 {
                let done = match self.t_pose_skipped {
                    true => "left out (--keep-tpose plays it)",
                    false => "played",
                };
                let _ = writeln!(
                    t,
                    "  the take {at} in a T-pose ({s:.3} s), the capture's calibration rather \
                     than the performance: {done}"
                );
            }
        }
        if detailed {
            for d in &self.drivers {
                let _ = writeln!(
                    t,
                    "  {:<10} ← {} ({})",
                    d.joint,
                    d.measure,
                    super::shown(&d.source.join(" → "))
                );
            }
            if !self.held.is_empty() {
                let _ = writeln!(t, "  held at the posture: {}", self.held.join(", "));
            }
            let walks: &[super::keep::Walked] = self.stage.as_ref().map_or(&[], |s| &s.walks);
            for span in &self.locomotion {
                let walked = walks
                    .iter()
                    .any(|w| w.from_s < span.end_s && span.start_s < w.to_s);
                let why = if walked {
                    None
                } else if let Some(gesture) = walking::not_walked(span) {
                    Some(gesture)
                } else if !self.walking {
                    Some("the gait needs the balance stage and --gait on or crawl")
                } else {
                    Some("its walk was dropped where the simulation found a fall")
                };
                let _ = writeln!(
                    t,
                    "  the performer travels: {}{}",
                    span.describe(),
                    why.map_or(String::new(), |w| format!(
                        " (the robot treads in place: {w})"
                    ))
                );
            }
            self.balance_text(&mut t);
            if let Some(l) = &self.likeness {
                let without = self.stage.as_ref().and_then(|s| s.without.as_ref());
                likeness_text(&mut t, l, without);
            }
        }
        t
    }
}

fn figure_json(f: &Figure) -> serde_json::Value {
    json!({
        "median_deg": to_places(f.median_deg, 2),
        "p90_deg": to_places(f.p90_deg, 2),
        "over_45_share": to_places(f.over_45, 4),
    })
}

pub(super) fn likeness_json(l: &Likeness) -> serde_json::Value {
    let segments: Vec<_> = l
        .segments
        .iter()
        .map(|s| {
            let mut v = figure_json(&s.figure);
            v["performer"] = json!(s.performer);
            v["robot"] = json!(s.robot);
            v
        })
        .collect();
    let beyond: Vec<_> = l
        .beyond_limits
        .iter()
        .map(|b| {
            let joints: serde_json::Map<String, serde_json::Value> = b
                .joints
                .iter()
                .map(|(j, share)| (j.clone(), json!(to_places(*share, 4))))
                .collect();
            json!({"limb": b.limb, "share": to_places(b.share, 4), "joints": joints})
        })
        .collect();
    let mut v = figure_json(&l.overall);
    v["segments"] = json!(segments);
    v["head"] = l.head.as_ref().map_or(serde_json::Value::Null, figure_json);
    v["beyond_limits"] = json!(beyond);
    v["walking_s"] = json!(to_places(l.walking_s, 4));
    v["limbs_s"] = json!(to_places(l.limbs_s, 4));
    v
}

/// The likeness block of a build's summary; `without`: the same built without the
/// balance stage, shown beside each figure.
fn likeness_text(t: &mut String, l: &Likeness, without: Option<&Likeness>) {
    let line = |f: &Figure, w: Option<&Figure>| {
        let mut s = format!(
            "median {:5.1}°  p90 {:5.1}°  {:5.1}% > 45°",
            f.median_deg,
            f.p90_deg,
            100.0 * f.over_45
        );
        if let Some(w) = w {
            let _ = write!(s, "   (without balancing: median {:5.1}°)", w.median_deg);
        }
        s
    };
    let _ = writeln!(
        t,
        "  likeness (angle from the performer's segments): {}",
        line(&l.overall, without.map(|w| &w.overall))
    );
    if l.walking_s > 0.0 {
        let compared = match l.limbs_s > 0.0 {
            true => format!(
                "limbs compared over the {:.1} s where the robot does not walk",
                l.limbs_s
            ),
            false => "no limbs compared: the robot walks throughout".to_string(),
        };
        let _ = writeln!(
            t,
            "    {compared}: over the {:.1} s it walks (and the performance waits for it), the \
             head and the path figures stand for them",
            l.walking_s
        );
    }
    for s in &l.segments {
        let pair = format!("{} ~ {}", s.performer, s.robot);
        let w = without.and_then(|w| {
            w.segments
                .iter()
                .find(|x| x.performer == s.performer)
                .map(|x| &x.figure)
        });
        let _ = writeln!(t, "    {pair:<31} {}", line(&s.figure, w));
    }
    if let Some(head) = &l.head {
        let w = without.and_then(|w| w.head.as_ref());
        let _ = writeln!(t, "    {:<31} {}", "head direction", line(head, w));
    }
    for b in &l.beyond_limits {
        let joints: Vec<String> = b
            .joints
            .iter()
            .map(|(j, s)| format!("{j} {:.0}%", 100.0 * s))
            .collect();
        let _ = writeln!(
            t,
            "    out of reach: the {} asks past the joint limits on {:.0}% of frames ({})",
            b.limb.replace('_', " "),
            100.0 * b.share,
            joints.join(", ")
        );
    }
}

/// Prints one build's summary on stdout (JSON or text), or on stderr when the motion
/// itself went to stdout.
fn report(args: &Args, summary: &Summary) -> Result<()> {
    let text = if args.json {
        json_text(&summary.to_json())
    } else {
        summary.text(true)
    };
    if fsio::is_stdio(&args.output) {
        eprint!("{text}");
    } else {
        print_stdout(&text)?;
    }
    Ok(())
}

fn build_one(args: &Args, input: &Path, output: &Path) -> Result<Summary> {
    // Tests make one input's build panic, to see that a batch reports it (debug builds
    // only: a release binary has no such hook).
    #[cfg(debug_assertions)]
    if let Some(name) = std::env::var_os("AIBO_MOTION_TEST_PANIC_ON") {
        if input.file_name() == Some(name.as_os_str()) {
            panic!("test hook: a build that panics");
        }
    }
    let data = fsio::read_input(input)?;
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return build_from_json(input, output, &data);
    }
    if !matches!(detect(&data, input)?, FileKind::Source(_)) {
        anyhow::bail!(
            "{}: build reads motion capture (BVH, ASF/AMC, MRTK) or a motion's JSON form",
            input.display()
        );
    }
    let profile_arg = args.profile.as_deref().ok_or_else(|| {
        anyhow::anyhow!("motion capture needs a robot: add --profile ERS-210, ERS-220 or ERS-7")
    })?;
    let profile = Profile::resolve(profile_arg)?;
    let overrides = match &args.map {
        Some(path) => load_mappings(path, &profile)?,
        None => Vec::new(),
    };
    let clip = load_clip(input, &data, &args.source)?;
    if clip.frames == 0 {
        anyhow::bail!(
            "{}: the file holds no frames to build from",
            input.display()
        );
    }
    let neutral = match args.neutral_frame {
        Some(n) if n >= clip.frames => anyhow::bail!(
            "--neutral-frame {n}: {} has frames 0 to {}",
            input.display(),
            clip.frames - 1
        ),
        Some(n) => retarget::Neutral::Frame(n),
        None => retarget::Neutral::Typical,
    };
    let options = BuildOptions {
        retarget: retarget::Options {
            overrides,
            legs: args.legs.into(),
            neutral,
        },
        keyframes: Options {
            frame_ms: args.frame_ms,
            tolerance: args.tolerance_deg.to_radians(),
            start_pose: args.start_pose.clone(),
            end_pose: args.end_pose.clone(),
            name: args
                .name
                .clone()
                .unwrap_or_else(|| default_name(args, input)),
            creator: args.creator.clone(),
            body_attitude: args.body_attitude,
        },
        balance: match args.balance {
            OnOff::On => pipeline::Balance::On {
                margin_mm: args.balance_margin,
                stance_spots: args.stance_spots,
            },
            OnOff::Off => pipeline::Balance::Off,
        },
        locomotion: match args.gait {
            Gait::On => pipeline::Locomotion::Walk,
            Gait::Crawl => pipeline::Locomotion::Crawl,
            Gait::Off => pipeline::Locomotion::InPlace,
        },
        timing: args.timing.into(),
        t_pose: match args.keep_tpose {
            true => pipeline::TPose::Keep,
            false => pipeline::TPose::Skip,
        },
    };
    // A timing other than keep matters only to walks.
    let idle = match args.timing {
        Timing::Keep => None,
        Timing::Fit => Some("--timing fit has no walk to fit"),
        Timing::Wait => Some("--timing wait has no walk to wait for"),
    };
    if let Some(timing) = idle.filter(|_| args.balance == OnOff::Off || args.gait == Gait::Off) {
        tracing::warn!(
            "{}: {timing}: the robot walks only with the balance stage and --gait on or crawl",
            input.display()
        );
    }
    let built = pipeline::build(&clip, &profile, &options)
        .with_context(|| format!("{}: cannot build a motion", input.display()))?;
    let likeness = built.likeness(&profile);
    let stage = built
        .balance
        .as_ref()
        .map(|kept| super::keep::Stage::of(kept, built.likeness_without(&profile)));
    let proved = built.balance.as_ref().map(|kept| kept.statics.clone());
    let (lead_ms, tail_ms) = built.balance.as_ref().map_or((0, 0), Kept::padding_ms);
    let ramps_s = (
        (built.source_start_ms - lead_ms) as f64 / 1000.0,
        (built.ramp_out_ms - tail_ms) as f64 / 1000.0,
    );
    let t_pose = built.t_pose_found;
    let frame_s = clip.frame_time;
    let t_pose_s = (t_pose.lead as f64 * frame_s, t_pose.trail as f64 * frame_s);
    if let Some(n) = args.neutral_frame.filter(|&n| n < built.t_pose.lead) {
        tracing::warn!(
            "{}: --neutral-frame {n} is in the T-pose left out at the start (frames 0 to {}): \
             the head's neutral is the performance's first frame (--keep-tpose plays the T-pose)",
            input.display(),
            built.t_pose.lead - 1
        );
    }
    let (motion, tracks, built_locomotion) = (built.motion, built.tracks, built.locomotion);
    let bytes = mtn::encode(&motion)?;
    fsio::write_bytes(output, &[input], &bytes)?;

    let held = profile
        .joints
        .iter()
        .zip(&tracks.joints)
        .filter(|(_, t)| t.is_none())
        .map(|(j, _)| j.name.clone())
        .collect();
    let mut warnings = clip.warnings.clone();
    if tracks.drivers.is_empty() {
        let w = "no joint of the source matched the profile's mappings: the motion only holds the posture";
        tracing::warn!("{}: {w}", input.display());
        warnings.push(w.to_string());
    } else {
        // A part of the body the mappings want but the source lacks: say what holds still.
        // One the format can never hold (an MRTK recording's legs) is no news: said at
        // -v rather than warned on every build.
        for ((part, _), w) in tracks.unmeasured.iter().zip(tracks.unmeasured_sentences()) {
            if let Some(why) = clip.format.never_holds(part) {
                tracing::info!("{}: {why}: {}", input.display(), super::shown(&w));
                continue;
            }
            tracing::warn!("{}: {}", input.display(), super::shown(&w));
            warnings.push(w);
        }
    }
    // The stage proved it already (and said nothing of a fall yet); without the stage,
    // the static test says whether it stands.
    let balance = match proved {
        Some(report) => Some(report),
        None => balance_warned(&motion, &profile, output),
    };
    if let Some(falls) = stage.as_ref().and_then(|s| s.falls.clone()) {
        let w = format!(
            "the balance stage could not keep it on its feet: {falls}; do not play it on a \
             robot (`check --balance` and `simulate` say more)"
        );
        tracing::warn!("{}: {w}", output.display());
        warnings.push(w);
    }
    Ok(Summary {
        input: input.to_path_buf(),
        output: output.to_path_buf(),
        profile: profile.model.clone(),
        profile_title: profile.title(),
        keyframes: motion.keyframes.len(),
        duration_s: motion.duration_ms() as f64 / 1000.0,
        ramps_s,
        t_pose_s,
        t_pose_skipped: !args.keep_tpose,
        drivers: tracks.drivers,
        held,
        warnings,
        notes: clip.notes,
        likeness,
        locomotion: built_locomotion,
        walking: args.balance == OnOff::On && args.gait != Gait::Off,
        balance,
        stage,
    })
}

/// Will it stay on its feet? The static test, with one warning when it tips for longer
/// than 100 ms (the summary lists those spans); `None` for a profile without a mass
/// model.
fn balance_warned(
    motion: &mtn::Motion,
    profile: &Profile,
    output: &Path,
) -> Option<aibo_motion::stability::statics::Report> {
    use aibo_motion::stability::statics;
    let report = statics::check(motion, profile, statics::DEFAULT_MARGIN_MM).ok()?;
    if report.faults().next().is_some() {
        tracing::warn!(
            "{}: balance: {} (`check --balance` lists every span)",
            output.display(),
            report.summary()
        );
    }
    Some(report)
}

/// `a_<start>#<end>_<input stem>`, Sony's naming.
fn default_name(args: &Args, input: &Path) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "motion".to_string());
    format!("a_{}#{}_{stem}", args.start_pose, args.end_pose)
}

fn build_from_json(input: &Path, output: &Path, data: &[u8]) -> Result<Summary> {
    let text = std::str::from_utf8(data)
        .with_context(|| format!("{} is not UTF-8 text", input.display()))?;
    let motion = mtn::from_json(text)
        .with_context(|| format!("{} is not a motion in JSON form", input.display()))?;
    let warnings = motion.advisories();
    for note in &warnings {
        tracing::warn!("{note}");
    }
    let bytes = mtn::encode(&motion)?;
    fsio::write_bytes(output, &[input], &bytes)?;
    let profile = Profile::for_design_label(&motion.design_label);
    let balance = profile
        .as_ref()
        .and_then(|p| balance_warned(&motion, p, output));
    Ok(Summary {
        input: input.to_path_buf(),
        output: output.to_path_buf(),
        profile: profile
            .as_ref()
            .map_or_else(|| motion.design_label.clone(), |p| p.model.clone()),
        profile_title: profile.map_or_else(|| motion.design_label.clone(), |p| p.title()),
        keyframes: motion.keyframes.len(),
        duration_s: motion.duration_ms() as f64 / 1000.0,
        ramps_s: (0.0, 0.0),
        t_pose_s: (0.0, 0.0),
        t_pose_skipped: false,
        drivers: Vec::new(),
        held: Vec::new(),
        warnings,
        notes: Vec::new(),
        likeness: None,
        locomotion: Vec::new(),
        walking: false,
        balance,
        stage: None,
    })
}
