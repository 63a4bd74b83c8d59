//! `aibo-motion simulate`: the motion played on the robot as rigid bodies on a floor.

use super::{detect, json_text, load_clip, load_motion, print_stdout, Outcome, SourceArgs};
use aibo_motion::fsio;
use aibo_motion::keyframes;
use aibo_motion::mtn::Motion;
use aibo_motion::pipeline;
use aibo_motion::progress;
use aibo_motion::retarget::{self, locomotion};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::probe::FileKind;
use aibo_motion::stability::gait::Gait;
use aibo_motion::stability::paths::PathFigures;
use aibo_motion::stability::physics::{self, SERVO_TORQUE_NM};
use aibo_motion::stability::walking;
use aibo_motion::stability::BalanceError;
use aibo_motion::units::signed;
use anyhow::{anyhow, bail, Context, Result};
use glam::DVec2;
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Play the motion on a simulated robot (rigid bodies on a flat floor, rapier3d), and
/// say whether and when it falls, which paws slip, and where the body goes. It falls when
/// the body tips more than 45° from the attitude the motion means (the static test's: where
/// it stands on its paws, or on a sit's rump or a sleep's elbows and belly; in a trot, also
/// where the two paws that carry it stand, whichever the body is nearer), when the head
/// strikes the floor, or when it leans over more than 15° onto anything else (an elbow or
/// knee, the chest, a flank) for longer than 100 ms; where that part carries the robot,
/// 15° from the body attitude the file carries. The last pose is held half a second
/// more, as a robot holds it. Exit status 1 when it falls (as `check` exits for a finding),
/// 0 when it stays up.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion simulate dance.mtn\n  \
                        aibo-motion simulate dance.mtn --json\n  \
                        aibo-motion simulate walk.mtn --take walk.bvh\n\n\
                        The servos follow the dense playback at the profile's speeds, with a \
                        torque limit of 5.45 N·m (Webots' AiboErs7 model); --torque changes it.")]
pub struct Args {
    /// The MTN motion.
    pub file: PathBuf,
    /// ERS-210, ERS-220, ERS-7, a design label, or a profile .toml file. Default: the
    /// model of the motion's design label.
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub profile: Option<String>,
    /// The servos' torque limit, N·m.
    #[arg(long, value_name = "NM", default_value_t = SERVO_TORQUE_NM, value_parser = super::parse_torque, allow_negative_numbers = true)]
    pub torque: f64,
    /// One JSON object on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// The motion capture the motion was built from (BVH, ASF/AMC, MRTK): the body's
    /// path is compared with the performer's where the build walks it (their travel,
    /// one walk after another, as `build` reports its walks), scaled by leg length: how
    /// far each went, where each ends and heads, how far apart the paths run.
    #[arg(long, value_name = "FILE")]
    pub take: Option<PathBuf>,
    /// The take's T-pose was played in the build (`build --keep-tpose`): compare with the
    /// take as a whole, not the performance without it.
    #[arg(long, requires = "take")]
    pub keep_tpose: bool,
    /// A finer, slower simulation (64 substeps of two iterations for each 8 ms frame,
    /// about four times the time): a second opinion on the body's path. `build` steers
    /// its walks by the standard simulation's floor. A crawl ends about where it did
    /// there; where the paths part (a trot turning over tens of seconds), the path hangs
    /// on details no simulation pins down, and the robot's will differ too.
    #[arg(long)]
    pub fine: bool,
    #[command(flatten)]
    pub source: SourceArgs,
}

pub fn run(args: Args) -> Result<Outcome> {
    let motion = load_motion(&args.file)?.motion;
    let profile = super::profile_of(&motion, args.profile.as_deref(), &args.file)?;
    // The take is read before the robot is simulated: a wrong file fails at once.
    let performer = match &args.take {
        Some(take) => Some(performer_path(
            take,
            &args.source,
            &profile,
            args.keep_tpose,
        )?),
        None => None,
    };
    let solver = match args.fine {
        true => physics::Solver::Fine,
        false => physics::Solver::Standard,
    };
    let report = simulated(&motion, &profile, args.torque, solver)?;
    let beside = match &performer {
        Some((points, heading)) => Some(
            PathFigures::compare(points, *heading, &report.path)
                .ok_or_else(|| anyhow!("the simulation has no path to compare"))?,
        ),
        None => None,
    };
    if args.json {
        print_stdout(&json_text(&json!({
            "file": args.file.display().to_string(),
            "profile": profile.model,
            "solver": if args.fine { "fine" } else { "standard" },
            "summary": report.summary(),
            "report": report,
            "performer_path": beside,
        })))?;
    } else {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{}: {:.2} s simulated on {}{}",
            args.file.display(),
            report.duration_ms as f64 / 1000.0,
            profile.title(),
            if args.fine {
                ", with the fine solver"
            } else {
                ""
            }
        );
        if let Some(last) = report.path.last() {
            let _ = writeln!(
                t,
                "  the body moved {}, {}, {}, and turned {}",
                signed(last.x_mm, 0, " mm", "forward", "back"),
                signed(last.y_mm, 0, " mm", "left", "right"),
                signed(last.z_mm, 0, " mm", "up", "down"),
                signed(last.heading_deg, 0, "°", "left", "right"),
            );
        }
        if let Some(p) = &beside {
            let _ = writeln!(t, "  beside the performer, {}", p.text());
        }
        let _ = writeln!(t, "{}", report.summary());
        print_stdout(&t)?;
    }
    Ok(if report.fall.is_some() {
        Outcome::Finding
    } else {
        Outcome::Success
    })
}

/// The simulation of `motion` by `solver`, with a progress bar once it has taken a
/// second.
pub(super) fn simulated(
    motion: &Motion,
    profile: &Profile,
    torque_nm: f64,
    solver: physics::Solver,
) -> Result<physics::Report, BalanceError> {
    showing(|progress| physics::simulate_showing(motion, profile, torque_nm, solver, progress))
}

/// `simulation`, run with a progress bar once it has taken a second.
pub(super) fn showing<T>(simulation: impl FnOnce(&mut dyn FnMut(physics::Progress)) -> T) -> T {
    let mut bar = Bar::after_a_second();
    let out = simulation(&mut |p| bar.show(p));
    bar.done();
    out
}

/// A progress bar on stderr for a simulation that has taken more than a second (hidden,
/// as indicatif hides it, when stderr is no terminal).
struct Bar {
    started: Instant,
    bar: Option<progress::Shown>,
}

impl Bar {
    fn after_a_second() -> Bar {
        Bar {
            started: Instant::now(),
            bar: None,
        }
    }

    fn show(&mut self, progress: physics::Progress) {
        let physics::Progress::Simulated { done_ms, total_ms } = progress else {
            return;
        };
        if self.bar.is_none() && self.started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            progress::Shown::new(
                indicatif::ProgressBar::new(total_ms).with_style(
                    indicatif::ProgressStyle::with_template(
                        "simulating {bar:30} {msg} of the motion, {eta} left",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                ),
            )
        });
        let bar = bar.bar();
        bar.set_position(done_ms);
        bar.set_message(format!(
            "{:.0} s of {:.0} s",
            done_ms as f64 / 1000.0,
            total_ms as f64 / 1000.0
        ));
    }

    fn done(self) {
        // Dropped, the bar is cleared.
        drop(self.bar);
    }
}

/// The performer's path over the walks the build makes of `take` (as
/// [`walking::walked_path`]), scaled to the robot's legs (mm from where they start, in
/// their first heading), and the heading they end in (radians turned left).
fn performer_path(
    take: &Path,
    source: &SourceArgs,
    profile: &Profile,
    keep_tpose: bool,
) -> Result<(Vec<DVec2>, f64)> {
    let data = fsio::read_input(take)?;
    if !matches!(detect(&data, take)?, FileKind::Source(_)) {
        bail!(
            "{}: --take wants motion capture (BVH, ASF/AMC, MRTK)",
            take.display()
        );
    }
    let clip = load_clip(take, &data, source)?;
    if clip.frames == 0 {
        bail!("{}: the take holds no frames", take.display());
    }
    // The performance, as `build` played it.
    let t_pose = match keep_tpose {
        true => pipeline::TPose::Keep,
        false => pipeline::TPose::Skip,
    };
    let tracks = pipeline::performed(&clip, profile, &retarget::Options::default(), t_pose)
        .with_context(|| format!("{}: cannot follow the performer", take.display()))?
        .tracks;
    let gait = Gait::of(profile)
        .ok_or_else(|| anyhow!("the {} profile has no legs to walk on", profile.model))?;
    let velocities = locomotion::velocities(&tracks.performer, tracks.frame_time);
    if velocities.is_empty() {
        bail!(
            "{}: the performer's legs are not in the take",
            take.display()
        );
    }
    // What the build walks of the take, on its rows: the same figures as its own.
    let travel = locomotion::spans(&tracks.performer, tracks.frame_time);
    let row_s = f64::from(keyframes::Options::default().frame_ms) / 1000.0;
    Ok(walking::walked_path(
        &travel,
        &tracks,
        &velocities,
        gait.leg_mm,
        row_s,
    ))
}
