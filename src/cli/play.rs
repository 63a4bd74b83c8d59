//! `aibo-motion play`, `upload` and `ports`: motions to a robot over serial or TCP.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use firmware_bridge::{Key, State};
use serde_json::json;

use super::{json_text, load_motion, print_stdout, shown, Outcome};
use aibo_motion::edit;
use aibo_motion::link::{self, Ending, Endpoint, Mode, PlayOptions, PlayReport, Progress};
use aibo_motion::robot::profile::Profile;

/// How the motion gets to the bridge: [`Mode`] on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Delivery {
    /// The host sends each 16 ms frame on time.
    Stream,
    /// The whole motion goes first; the bridge plays it on its own clock.
    Upload,
}

impl From<Delivery> for Mode {
    fn from(delivery: Delivery) -> Mode {
        match delivery {
            Delivery::Stream => Mode::Stream,
            Delivery::Upload => Mode::Upload,
        }
    }
}

/// Where the robot is: one of --port or --tcp.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub struct Target {
    /// Serial device of the robot or its bridge (see `aibo-motion ports`).
    #[arg(long, value_name = "DEV")]
    pub port: Option<String>,
    /// TCP address of the robot or a simulated joint server.
    #[arg(long, value_name = "HOST:PORT")]
    pub tcp: Option<String>,
    /// A robot running R-CODE: play the user action NAME stored on its stick (`aibo-motion
    /// stick add`) through its wireless console, at HOST (port 21002) or HOST:PORT. Ctrl-C
    /// sends STOP (R-CODE ends the action first); a second Ctrl-C sends QUIT (at once).
    #[arg(long, value_name = "HOST[:PORT]")]
    pub rcode: Option<String>,
}

/// Settings shared by play and upload.
#[derive(Debug, clap::Args)]
pub struct LinkArgs {
    #[command(flatten)]
    pub target: Target,
    /// Baud rate for --port.
    #[arg(long, default_value_t = 115_200)]
    pub baud: u32,
    /// Sign every frame with this key (64 hex digits); the bridge must have the same key.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Send the motion even when it was made for another model than the robot's, or when
    /// `check --balance` says it (or the way into it from where the robot stands) tips
    /// for longer than 100 ms or falls in the simulation.
    #[arg(long)]
    pub force: bool,
}

/// Play a motion on a robot, or on `aibo-joint-server`, at its frame rate.
///
/// The host first learns the robot's model, joints and limits; a motion for another
/// model is refused unless --force, and so is one that the static test says would tip
/// the robot over for longer than 100 ms (or in its last pose, which the robot then
/// holds), or that falls in the simulation (`check --balance` tells when). The robot
/// side (firmware-bridge) never applies an angle past a limit or a step faster than the
/// joint can move, whatever it receives. A motion that starts away from where the robot
/// stands (sitting, say) is eased into first, at a quarter of each joint's speed,
/// streamed or stored; that way in, from the pose the robot reports, is tested for
/// balance as the motion is, and refused before anything moves if it tips (unless
/// --force).
/// Ctrl-C stops the motion: the robot holds, then goes to its rest posture. A dropped
/// link is retried for a few seconds and the stream resumes at the frame then due.
///
/// It ends with one line on stderr: how much of the motion the robot played, by its own
/// counters (all of them with --stats). Exit status 1 when the robot did not play the
/// motion as sent: it stalled and went to rest mid-motion, it did not end holding the
/// last pose, more than 1% of the motion's 8 ms frames never played (late or lost on
/// the way), or it answered nothing for 3 s mid-play though the link was up (another
/// host took it over, say): the rest is not sent, or a stored motion no longer waited on.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion play dance.mtn --port /dev/ttyUSB0\n  \
    aibo-motion play dance.mtn --tcp 192.168.0.20:7000 --key aibo.key --loop 3\n  \
    aibo-motion play dance.mtn --tcp 127.0.0.1:7000 --mode upload --stats\n  \
    aibo-motion play --name dance --tcp 127.0.0.1:7000      (a motion uploaded before)\n  \
    aibo-motion play --rcode 192.168.1.50 dance             (an action on an R-CODE stick)")]
pub struct PlayArgs {
    /// The MTN motion to play (omit it with --name to play a motion the robot holds).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub link: LinkArgs,
    /// stream: the host sends each 16 ms frame on time. upload: the motion goes first and
    /// the robot plays it on its own clock (for slow or jittery links).
    #[arg(long, value_enum, default_value_t = Delivery::Stream)]
    pub mode: Delivery,
    /// Name the motion is stored under on the robot (upload), or the stored motion to play.
    #[arg(long)]
    pub name: Option<String>,
    /// Play the motion this many times. A motion that ends away from where it starts is
    /// eased back to its start between passes, at a quarter of each joint's speed (and
    /// that way back is tested for balance first, as the way in is).
    #[arg(long = "loop", default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub loops: u16,
    /// Play faster (2) or slower (0.5); refused where a joint could not keep up, unless --force.
    #[arg(long, default_value_t = 1.0, value_name = "F", value_parser = super::parse_speed, allow_negative_numbers = true)]
    pub speed: f64,
    /// Seconds to keep retrying a dropped link before giving up.
    #[arg(long, default_value_t = 5.0, value_name = "S", value_parser = super::parse_retry, allow_negative_numbers = true)]
    pub retry: f64,
    /// Print timing figures at the end: how late frames left against their schedule.
    #[arg(long)]
    pub stats: bool,
}

/// Upload a motion to the robot's store without playing it (play it later with
/// `aibo-motion play --name NAME`).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion upload dance.mtn --tcp 127.0.0.1:7000\n  \
    aibo-motion upload dance.mtn --port /dev/ttyUSB0 --name party")]
pub struct UploadArgs {
    pub file: PathBuf,
    #[command(flatten)]
    pub link: LinkArgs,
    /// Name to store it under (default: the file name without `.mtn`, up to 32 bytes).
    #[arg(long)]
    pub name: Option<String>,
}

/// List serial ports with their USB vendor and product ids and serial numbers.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion ports\n  aibo-motion ports --json")]
pub struct PortsArgs {
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

fn options(args: &LinkArgs) -> Result<PlayOptions> {
    let endpoint = match (&args.target.port, &args.target.tcp) {
        (Some(path), _) => Endpoint::Serial {
            path: path.clone(),
            baud: args.baud,
        },
        (None, Some(addr)) => Endpoint::Tcp(addr.clone()),
        (None, None) => bail!("say where the robot is: --port DEV or --tcp HOST:PORT"),
    };
    let mut opts = PlayOptions::new(endpoint);
    opts.force = args.force;
    opts.catch_ctrl_c = true;
    if let Some(path) = &args.key {
        warn_if_others_can_read(path);
        let bytes =
            std::fs::read(path).with_context(|| format!("reading key {}", path.display()))?;
        opts.key = Some(
            Key::from_file_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
        );
    }
    Ok(opts)
}

/// The name a motion is stored under: given, or the file's stem, cut to 32 bytes.
fn store_name(given: Option<&str>, file: &Path) -> String {
    let mut name = given
        .map(str::to_owned)
        .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "motion".into());
    while name.len() > firmware_bridge::message::MAX_NAME {
        name.pop();
    }
    name
}

pub fn run_play(args: PlayArgs) -> Result<Outcome> {
    if let Some(host) = &args.link.target.rcode {
        // The action is named by --name, or in FILE's place.
        let name = match (&args.name, &args.file) {
            (Some(n), _) => n.clone(),
            (None, Some(f)) => f.to_string_lossy().into_owned(),
            (None, None) => bail!("name the action to play: play --rcode HOST NAME"),
        };
        // An action lasts seconds to minutes; ten minutes without an end is a lost robot.
        return super::rcode::play(host, &name, Duration::from_secs(600));
    }
    let mut opts = options(&args.link)?;
    opts.mode = args.mode.into();
    opts.loops = args.loops;
    opts.retry_for = Duration::from_secs_f64(args.retry);
    // Shown from when the robot is reached: `before_sending`'s balance gate shows the
    // simulation's bar of its own first.
    let mut bar: Option<ProgressLine> = None;
    let mut show = |p: &Progress| bar.get_or_insert_with(ProgressLine::new).show(p);
    let report = match &args.file {
        None => {
            let Some(name) = &args.name else {
                bail!("name a motion file to play, or --name NAME for one the robot holds");
            };
            opts.name = name.clone();
            link::play_named(&opts, &mut show)?
        }
        Some(file) => {
            let mut motion = load_motion(file)?.motion;
            if args.speed != 1.0 {
                let profile = Profile::for_design_label(&motion.design_label);
                let (scaled, notes) = edit::scale_time(
                    &motion,
                    args.speed,
                    profile.as_ref().filter(|_| !args.link.force),
                )
                .map_err(|e| anyhow::anyhow!("--speed {}: {e}", args.speed))?;
                for n in notes {
                    tracing::info!("{n}");
                }
                motion = scaled;
            }
            // The way in from where the robot stands (and back, looped) is tested once
            // the bridge says where that is.
            if let Some(profile) =
                before_sending(&motion, file, args.link.force, "sent to the robot")?
            {
                opts.way_in_check = Some(super::gate::way_in_check(profile, file, args.link.force));
            }
            opts.name = store_name(args.name.as_deref(), file);
            link::play(&motion, &opts, &mut show).map_err(anyhow::Error::from)?
        }
    };
    if let Some(bar) = bar {
        bar.finish();
    }
    if report.lead_in_ticks > 0 {
        tracing::info!(
            "eased from where the robot stood into the motion's first pose over {:.2} s (a quarter of joint speed)",
            (report.lead_in_ticks * aibo_motion::mtn::DENSE_FRAME_MS) as f64 / 1000.0
        );
    }
    if args.stats {
        print_stdout(&stats_text(&report))?;
    }
    if report.ending == Ending::Interrupted {
        eprintln!(
            "aibo-motion: stopped by Ctrl-C: the robot holds its pose, then goes to its rest posture"
        );
        return Ok(Outcome::Interrupted);
    }
    // The robot's own counters say whether it played what was sent.
    match report.shortfall() {
        Some(why) => {
            eprintln!("aibo-motion: {why}");
            Ok(Outcome::Finding)
        }
        None => {
            let times = match opts.loops {
                1 => String::new(),
                n => format!(" {n} times"),
            };
            let robot = report.bridge.as_ref().map_or_else(
                || format!("robot at {}", opts.endpoint),
                |b| format!("{} at {}", shown(&b.model), opts.endpoint),
            );
            let asked = match &args.file {
                Some(file) => format!(
                    "sent {}{times} to the {robot}",
                    shown(&file.display().to_string())
                ),
                None => format!(
                    "asked the {robot} to play its stored motion {}{times}",
                    shown(&opts.name)
                ),
            };
            eprintln!("{asked}: {}", report.played());
            Ok(Outcome::Success)
        }
    }
}

pub fn run_upload(args: UploadArgs) -> Result<Outcome> {
    let mut opts = options(&args.link)?;
    let motion = load_motion(&args.file)?.motion;
    before_sending(&motion, &args.file, args.link.force, "uploaded")?;
    opts.name = store_name(args.name.as_deref(), &args.file);
    let info = link::upload(&motion, &opts)?;
    eprintln!(
        "uploaded {:?} ({} keyframes) to the {} at {}; play it with `aibo-motion play --name {}`",
        opts.name,
        motion.keyframes.len(),
        info.model,
        opts.endpoint,
        opts.name
    );
    Ok(Outcome::Success)
}

pub fn run_ports(args: PortsArgs) -> Result<Outcome> {
    let ports = link::ports::list().map_err(|e| anyhow::anyhow!("listing serial ports: {e}"))?;
    if args.json {
        print_stdout(&json_text(&json!({ "ports": ports })))?;
        return Ok(Outcome::Success);
    }
    if ports.is_empty() {
        print_stdout("no serial ports found (a USB-serial adapter shows up as /dev/ttyUSB* or /dev/ttyACM*)\n")?;
    }
    let mut text = String::new();
    for p in &ports {
        let ids = match (&p.vendor_id, &p.product_id) {
            (Some(v), Some(d)) => format!(" {v}:{d}"),
            _ => String::new(),
        };
        let extra: Vec<&str> = [&p.manufacturer, &p.product, &p.serial_number]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        text.push_str(&format!(
            "{}  {}{}  {}\n",
            p.path,
            p.kind,
            ids,
            extra.join(" ")
        ));
    }
    print_stdout(&text)?;
    Ok(Outcome::Success)
}

/// Before anything moves, for a model we know: the robot's guard will hold back what
/// `check` would report, so say so; and a motion that tips does not go unless `force`.
/// The model's profile, where there is one.
fn before_sending(
    motion: &aibo_motion::mtn::Motion,
    file: &Path,
    force: bool,
    doing: &str,
) -> Result<Option<Profile>> {
    // No model to test it on: the robot refuses a motion for another model anyway.
    let Some(profile) = Profile::for_design_label(&motion.design_label) else {
        return Ok(None);
    };
    let found = aibo_motion::check::check(motion, &profile).violations.len();
    if found > 0 {
        tracing::warn!(
            "{} goes past the {}'s limits or speeds in {found} places; the robot will hold those joints back \
             (`aibo-motion check {}` lists them)",
            file.display(),
            profile.model,
            file.display()
        );
    }
    super::gate::refuse_if_it_tips(motion, &profile, file, force, doing)?;
    Ok(Some(profile))
}

fn stats_text(r: &PlayReport) -> String {
    // Stored motions play on the robot's clock: no send times to report, and a motion
    // played by name has a length only the robot knows.
    let mut t = if r.lateness_us.is_empty() {
        let length = match r.frames {
            0 => "the stored motion".to_string(),
            n => format!("{n} frames of 16 ms"),
        };
        format!(
            "{length} played on the robot's clock, {} reconnects\n",
            r.reconnects
        )
    } else {
        format!(
            "frames: {} of {} sent, {} skipped, {} reconnects\n",
            r.frames_sent, r.frames, r.frames_skipped, r.reconnects
        )
    };
    if let Some((p50, p99, max)) = link::percentiles(&r.lateness_us) {
        t.push_str(&format!(
            "host lateness against the 16 ms schedule: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms\n",
            p50 as f64 / 1e3,
            p99 as f64 / 1e3,
            max as f64 / 1e3
        ));
    }
    if let Some(s) = &r.status {
        t.push_str(&format!(
            "bridge: {}; {}\n",
            State::from_u8(s.state).map_or("unknown", State::name),
            s.counters
        ));
    }
    if let Some(c) = r.counted() {
        let of = match r.expected_ticks {
            0 => String::new(),
            n => format!(" of {n}"),
        };
        let others: Vec<String> = c
            .named()
            .iter()
            .filter(|(name, _)| *name != "played")
            .map(|(name, v)| format!("{name} {v}"))
            .collect();
        t.push_str(&format!(
            "this play: {}{of} frames of 8 ms played, {} stalls; {}\n",
            c.played,
            r.stalls,
            others.join(", ")
        ));
    }
    t
}

/// One live line on stderr: time, frame, link quality (hidden when not a terminal).
struct ProgressLine {
    shown: aibo_motion::progress::Shown,
}

impl ProgressLine {
    fn new() -> ProgressLine {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        ProgressLine {
            shown: aibo_motion::progress::Shown::new(bar),
        }
    }

    fn show(&mut self, p: &Progress) {
        let t = p.frame as f64 * 0.016;
        let total = p.frames as f64 * 0.016;
        let bridge = p.status.map_or(String::new(), |s| {
            // Short enough for an 80-column terminal: only the counters that moved.
            let trouble: Vec<String> = s
                .counters
                .named()
                .iter()
                .filter(|(name, v)| *v > 0 && *name != "played")
                .map(|(name, v)| format!("{name} {v}"))
                .collect();
            format!(
                "  robot {}, buffer {}, {}",
                State::from_u8(s.state).map_or("?", State::name),
                s.buffered,
                if trouble.is_empty() {
                    "no errors".to_string()
                } else {
                    trouble.join(" ")
                }
            )
        });
        self.shown.bar().set_message(format!(
            "{t:6.2}/{total:.2} s  frame {}/{}  link {}{bridge}",
            p.frame, p.frames, p.link
        ));
    }

    /// Cleared from the terminal.
    fn finish(self) {
        drop(self.shown);
    }
}

/// A key others can read is no secret: say so, as ssh does of its keys.
fn warn_if_others_can_read(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            let mode = meta.permissions().mode();
            if mode & 0o077 != 0 {
                tracing::warn!(
                    "key {} can be read by others (mode {:o}): anyone who can read it can \
                     drive the robot; chmod 600 it",
                    path.display(),
                    mode & 0o777
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}
