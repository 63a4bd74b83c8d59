//! The command line: one module per subcommand, nothing but argument handling and printing.

mod build;
mod check;
mod convert;
mod docs;
mod dump;
mod export;
mod gate;
mod info;
mod keep;
mod oda;
mod play;
mod plot;
mod preview;
mod rcode;
mod simulate;
mod stick;

use anyhow::{Context, Result};
use clap::{ArgAction, Parser, Subcommand};
use std::path::Path;

use aibo_motion::fsio;
use aibo_motion::mtn;
pub use aibo_motion::terminal::{shown, shown_lines};

/// Sony AIBO motion toolkit: turn motion capture into MTN motions for the ERS-210, ERS-220
/// and ERS-7; read, check, simulate, dump, convert and export MTN motions and ODA
/// archives; play them on a robot over serial or TCP, or as user actions on an R-CODE
/// memory stick.
#[derive(Debug, Parser)]
#[command(name = "aibo-motion", version, propagate_version = true)]
#[command(
    after_help = "Exit status: 0 success, 1 a negative finding (check found violations, \
                        play was not played as sent), 2 bad usage or unreadable input, 130 or \
                        143 interrupted (SIGINT, SIGTERM; Ctrl-C during play stops the robot \
                        first).\n\n\
                        Output files are written to a hidden .aibo-motion-*.tmp beside them and \
                        renamed into place when complete: an interrupted command removes it, but \
                        a SIGKILL cannot be caught and can leave one behind."
)]
pub struct Cli {
    /// More detail on stderr (-v, -vv).
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Only errors on stderr: no warnings.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Info(info::Args),
    Dump(dump::Args),
    Build(build::Args),
    Check(check::Args),
    Simulate(simulate::Args),
    Convert(convert::Args),
    Oda(oda::Args),
    Export(export::Args),
    Plot(plot::Args),
    Preview(preview::Args),
    Play(play::PlayArgs),
    Upload(play::UploadArgs),
    Ports(play::PortsArgs),
    Stick(stick::Args),
    Rcode(rcode::Args),
    Completions(docs::CompletionsArgs),
    Man(docs::ManArgs),
}

/// How a command that ran to the end came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command's negative finding (for `check`, violations).
    Finding,
    /// Exit 130, as shells expect of a command stopped by Ctrl-C.
    Interrupted,
}

pub fn run(cli: Cli) -> Result<Outcome> {
    // `--force` on a command that writes files lets it replace read-only ones.
    fsio::replace_read_only(match &cli.command {
        Command::Build(a) => a.force,
        Command::Dump(a) => a.force,
        Command::Convert(a) => a.force,
        Command::Export(a) => a.force,
        Command::Plot(a) => a.force,
        Command::Preview(a) => a.force,
        Command::Oda(a) => a.forces(),
        Command::Stick(a) => a.forces(),
        _ => false,
    });
    match cli.command {
        Command::Info(a) => info::run(a),
        Command::Dump(a) => dump::run(a),
        Command::Build(a) => build::run(a),
        Command::Check(a) => check::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Oda(a) => oda::run(a),
        Command::Export(a) => export::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Preview(a) => preview::run(a),
        Command::Play(a) => play::run_play(a),
        Command::Upload(a) => play::run_upload(a),
        Command::Ports(a) => play::run_ports(a),
        Command::Stick(a) => stick::run(a),
        Command::Rcode(a) => rcode::run(a),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a),
    }
}

use aibo_motion::source::probe::FileKind;

fn detect(data: &[u8], path: &Path) -> Result<FileKind> {
    Ok(aibo_motion::source::probe::probe(data, path)?)
}

/// Options for reading a motion source, shared by the commands that take one.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// The ASF skeleton of an AMC motion (default: the file its #!OML:ASF line names,
    /// else a same-named .asf beside it).
    #[arg(long, value_name = "FILE")]
    pub asf: Option<std::path::PathBuf>,
    /// Frames per second where the file does not say: AMC (default 120) and the
    /// sampling of MRTK recordings (default 60).
    #[arg(long, value_name = "N", value_parser = parse_fps)]
    pub fps: Option<f64>,
}

/// A number within `low..=high` (an exclusive low end when `above`), with a message that
/// gives the range: what the value parsers below share.
fn number_in(
    text: &str,
    low: f64,
    high: f64,
    above: bool,
    what: &str,
) -> std::result::Result<f64, String> {
    let within = |v: f64| (if above { v > low } else { v >= low }) && v <= high;
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && within(v) => Ok(v),
        _ => Err(format!(
            "expected {what} {} {low} and at most {high}",
            if above { "above" } else { "from" }
        )),
    }
}

/// A figure for JSON, rounded to `places` decimals.
fn to_places(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// `--tolerance-deg`: above 0, at most 45 degrees.
fn parse_tolerance(text: &str) -> std::result::Result<f64, String> {
    number_in(text, 0.0, 45.0, true, "degrees")
}

/// The profile `--profile` names, or else the built-in one of the motion's design label.
fn profile_of(
    motion: &mtn::Motion,
    named: Option<&str>,
    path: &std::path::Path,
) -> Result<aibo_motion::robot::profile::Profile> {
    use aibo_motion::robot::profile::Profile;
    match named {
        Some(p) => Ok(Profile::resolve(p)?),
        None => Profile::for_design_label(&motion.design_label).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: design label {:?} has no built-in profile; name one with --profile",
                path.display(),
                motion.design_label
            )
        }),
    }
}

/// `--margin`: millimetres, from 0 to 100 (more than a robot's half width).
fn parse_margin(text: &str) -> std::result::Result<f64, String> {
    number_in(text, 0.0, 100.0, false, "mm")
}

/// `--torque`: N·m, above 0 and at most 100.
fn parse_torque(text: &str) -> std::result::Result<f64, String> {
    number_in(text, 0.0, 100.0, true, "N·m")
}

/// `--speed`: a factor above 0 and at most 100.
fn parse_speed(text: &str) -> std::result::Result<f64, String> {
    number_in(text, 0.0, 100.0, true, "a speed factor")
}

/// `--retry`: from 0 to an hour.
fn parse_retry(text: &str) -> std::result::Result<f64, String> {
    number_in(text, 0.0, 3600.0, false, "seconds")
}

/// `--at`: seconds from the start, 0 or more (the motion's length is checked later).
fn parse_moment(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("expected seconds from the start, 0 or more".into()),
    }
}

/// `--frame-ms`: Sony's 16 ms grid or a multiple of it, up to a second.
fn parse_frame_ms(text: &str) -> std::result::Result<u32, String> {
    match text.parse::<u32>() {
        Ok(v) if v % 16 == 0 && (16..=1008).contains(&v) => Ok(v),
        _ => Err("expected 16 or a multiple of it, up to 1008 (ms)".into()),
    }
}

/// What `--start-pose` or `--end-pose` may name, model by model, for `--help`.
fn posture_help(which: &str) -> String {
    let models: Vec<String> = aibo_motion::robot::profile::Profile::builtins()
        .iter()
        .map(|p| {
            let names: Vec<&str> = p.postures.keys().map(String::as_str).collect();
            format!("{}: {}", p.model, names.join(", "))
        })
        .collect();
    format!(
        "The standard posture the motion {which} in (R-CODE and Sony's player walk the robot \
         there). {}",
        models.join("; ")
    )
}

fn parse_fps(text: &str) -> std::result::Result<f64, String> {
    use aibo_motion::source::{MAX_FRAME_TIME_S, MIN_FRAME_TIME_S};
    let (low, high) = (1.0 / MAX_FRAME_TIME_S, 1.0 / MIN_FRAME_TIME_S);
    match text.parse::<f64>() {
        Ok(v) if (low..=high).contains(&v) => Ok(v),
        _ => Err(format!("expected frames per second, from {low} to {high}")),
    }
}

/// Reads a motion source, logging its warnings.
fn load_clip(path: &Path, data: &[u8], args: &SourceArgs) -> Result<aibo_motion::source::Clip> {
    let options = aibo_motion::source::ReadOptions {
        asf: args.asf.clone(),
        fps: args.fps,
    };
    let clip = aibo_motion::source::read(path, data, &options)?;
    log_warnings(&clip.warnings);
    for note in &clip.notes {
        tracing::info!("{note}");
    }
    Ok(clip)
}

/// Reads and decodes an MTN file, logging its warnings.
fn load_motion(path: &Path) -> Result<mtn::Decoded> {
    let data = fsio::read_input(path)?;
    let decoded = decode_motion(&data, path)?;
    log_warnings(&decoded.warnings);
    Ok(decoded)
}

fn decode_motion(data: &[u8], path: &Path) -> Result<mtn::Decoded> {
    mtn::decode(data).with_context(|| format!("{} is not a readable MTN file", path.display()))
}

fn log_warnings(warnings: &[String]) {
    for w in warnings {
        tracing::warn!("{}", shown(w));
    }
}

/// JSON text of a serializable value, with a trailing newline.
fn json_text(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Says on stdout what a command wrote, as `build` does (nothing when it wrote to stdout).
fn say_written(output: &Path, what: &str) -> Result<()> {
    if fsio::is_stdio(output) {
        return Ok(());
    }
    print_stdout(&format!("wrote {}: {what}\n", output.display()))
}

/// Prints to stdout, treating a closed pipe as the reader's choice.
fn print_stdout(text: &str) -> Result<()> {
    fsio::write_bytes(Path::new("-"), &[], text.as_bytes())?;
    Ok(())
}

/// The extension of `output` (lower case) when it is one of `known`; `None` for `-`
/// (standard output). Any other is refused before anything is read: a picture written
/// under a name that promises another format would not open.
fn output_kind(output: &Path, known: &[&str]) -> Result<Option<String>> {
    if fsio::is_stdio(output) {
        return Ok(None);
    }
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext {
        Some(e) if known.contains(&e.as_str()) => Ok(Some(e)),
        _ => {
            let names: Vec<String> = known.iter().map(|k| format!(".{k}")).collect();
            let kinds = match names.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            anyhow::bail!(
                "{}: this command writes {kinds} files; for a PNG, open the SVG in a browser, \
                 or convert it (e.g. `rsvg-convert f.svg -o f.png`)",
                output.display()
            )
        }
    }
}

fn deg(urad: i32) -> String {
    format!("{:.1}°", aibo_motion::units::urad_to_deg(urad))
}

fn seconds(ms: u64) -> String {
    format!("{:.3} s", ms as f64 / 1000.0)
}

/// How `plot`, `preview` and `export` get a motion and its robot.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// ERS-210, ERS-220, ERS-7, a design label, or a profile .toml file. Default for an
    /// MTN: the model of its design label; motion capture needs one.
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub profile: Option<String>,
    #[command(flatten)]
    pub source: SourceArgs,
}

/// A motion to look at, and its robot: an MTN file (its own model unless `--profile`
/// says otherwise), or motion capture built for `--profile` with `build`'s defaults.
fn motion_to_view(
    path: &Path,
    view: &ViewArgs,
) -> Result<(mtn::Motion, aibo_motion::robot::profile::Profile)> {
    use aibo_motion::robot::profile::Profile;
    let (profile, source) = (view.profile.as_deref(), &view.source);
    let data = fsio::read_input(path)?;
    match detect(&data, path)? {
        FileKind::Mtn => {
            let decoded = decode_motion(&data, path)?;
            log_warnings(&decoded.warnings);
            let motion = decoded.motion;
            let profile = profile_of(&motion, profile, path)?;
            Ok((motion, profile))
        }
        FileKind::Source(_) => {
            let profile = Profile::resolve(profile.ok_or_else(|| {
                anyhow::anyhow!(
                    "motion capture needs a robot: add --profile ERS-210, ERS-220 or ERS-7"
                )
            })?)?;
            let clip = load_clip(path, &data, source)?;
            let mut options = aibo_motion::pipeline::BuildOptions::default();
            options.keyframes.name = path
                .file_stem()
                .map_or_else(|| "motion".into(), |s| s.to_string_lossy().into_owned());
            let built = aibo_motion::pipeline::build(&clip, &profile, &options)
                .with_context(|| format!("{}: cannot build a motion", path.display()))?;
            Ok((built.motion, profile))
        }
        FileKind::Oda => anyhow::bail!(
            "{}: an ODA archive holds several motions: extract one with `aibo-motion oda extract`",
            path.display()
        ),
    }
}
