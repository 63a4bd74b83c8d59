//! `aibo-motion check`: limit and speed violations of a motion against a robot profile.

use super::{deg, json_text, load_motion, print_stdout, seconds, to_places, Outcome};
use aibo_motion::check::{check, Violation};
use aibo_motion::stability::physics::{self, SERVO_TORQUE_NM};
use aibo_motion::stability::statics;
use anyhow::Result;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Report every keyframe value outside a joint's limits and every segment faster than
/// the joint can move; with --balance, also every stretch where the robot would not
/// stay on its feet, and whether it falls in the simulation (as `simulate` says). Exit
/// status 1 when anything is reported (for balance: a span longer than 100 ms or tipping
/// in the last pose, which the robot holds, or a fall), 0 when clean, 2 when the motion
/// has columns the profile does not know (a motion for another robot), unless --partial.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion check dance.mtn\n  \
                        aibo-motion check dance.mtn --profile ERS-7 --json\n  \
                        aibo-motion check dance.mtn --balance --margin 15\n\n\
                        Speeds are the angle change over a segment's duration, (n + 1) × 16 ms.\n\n\
                        Balance (static): each 8 ms frame is put on a flat floor at the body \
                        attitude the motion carries, and turns about the edge of its support \
                        until it rests. It is meant to stand on its paws (a sit also on its \
                        rump, a sleep on its elbows and belly). A frame is unstable when its \
                        centre of mass is outside that support, or when it must go over onto \
                        anything else to rest: an elbow or knee, the chest, a flank or the \
                        head; marginal when inside by less than --margin. Exit 1 when an \
                        unstable span lasts longer than 100 ms, unless it only rocks: turned \
                        as a rigid body pivoting on the edge it tips over (its inertia from \
                        the mass model), the robot turns at most 15° before the motion brings \
                        its centre of mass back. Tipping from two paws, one \
                        front and one hind, is how a trot or pace moves: reported as dynamic, \
                        not as a fault.\n\n\
                        Balance (simulated): the motion is also played on the simulated robot, \
                        as `simulate` plays it at its default torque; a fall there exits 1 \
                        too. It sees what no single frame shows: legs that drag planted paws \
                        until the body is carried off them.")]
pub struct Args {
    /// The MTN motion to check.
    pub file: PathBuf,
    /// ERS-210, ERS-220, ERS-7, a design label, or a profile .toml file. Default: the
    /// model of the motion's design label.
    #[arg(long, value_name = "MODEL|FILE.toml")]
    pub profile: Option<String>,
    /// One JSON object on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check only the joints the motion shares with the profile, when it has others.
    #[arg(long)]
    pub partial: bool,
    /// Also test whether the robot stays on its feet: statically, frame by frame, and
    /// in the simulation.
    #[arg(long)]
    pub balance: bool,
    /// The distance the centre of mass must keep inside the support polygon, mm.
    #[arg(long, value_name = "MM", default_value_t = aibo_motion::stability::statics::DEFAULT_MARGIN_MM,
          requires = "balance", value_parser = super::parse_margin, allow_negative_numbers = true)]
    pub margin: f64,
}

pub fn run(args: Args) -> Result<Outcome> {
    let decoded = load_motion(&args.file)?;
    let motion = decoded.motion;
    let profile = super::profile_of(&motion, args.profile.as_deref(), &args.file)?;
    let report = check(&motion, &profile);
    let columns = motion.locators.len();
    if report.unchecked.len() == columns && columns > 0 {
        anyhow::bail!(
            "{}: none of its {columns} columns is a joint of the {} (the motion is \
             labelled {}): nothing to check; name its own model with --profile, or convert \
             it with `aibo-motion convert {} --to {}`",
            args.file.display(),
            profile.title(),
            motion.design_label,
            args.file.display(),
            profile.model
        );
    }
    if !report.complete() && !args.partial {
        anyhow::bail!(
            "{}: {} of its {columns} columns are not joints of the {} ({}): check it \
             against its own model ({}), convert it with `aibo-motion convert {} --to {}`, \
             or pass --partial to check only the {} joints they share",
            args.file.display(),
            report.unchecked.len(),
            profile.title(),
            super::shown(&abridged(&report.unchecked, ", ")),
            motion.design_label,
            args.file.display(),
            profile.model,
            columns - report.unchecked.len()
        );
    }
    super::log_warnings(&report.warnings);
    let balance = if args.balance {
        // Frame by frame, the static test cannot see legs that drag planted paws until
        // the body is carried off them, nor a tip too brief to fall: the simulation plays
        // it too, as `simulate` does, and `check` says what both say.
        Some(judged(&motion, &profile, args.margin)?)
    } else {
        None
    };
    let mut warnings = decoded.warnings;
    warnings.extend(report.warnings.iter().cloned());

    if args.json {
        let value = json!({
            "file": args.file.display().to_string(),
            "profile": profile.model,
            "design_label": profile.design_label,
            "keyframes": motion.keyframes.len(),
            "violations": report.violations,
            "warnings": warnings,
        });
        let mut value = value;
        if let Some((b, simulation)) = &balance {
            value["balance"] = balance_json(b);
            value["balance"]["simulation"] = simulation_json(simulation);
        }
        print_stdout(&json_text(&value))?;
    } else {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{}: {} keyframes checked against {}",
            args.file.display(),
            motion.keyframes.len(),
            profile.title()
        );
        for v in &report.violations {
            let _ = writeln!(t, "  {}", describe(v));
        }
        let count =
            |kind: fn(&Violation) -> bool| report.violations.iter().filter(|v| kind(v)).count();
        let limits = count(|v| matches!(v, Violation::Limit { .. }));
        let states = count(|v| matches!(v, Violation::State { .. }));
        let speeds = count(|v| matches!(v, Violation::Speed { .. }));
        let states = if states > 0 {
            format!(", {states} not a binary output's state")
        } else {
            String::new()
        };
        let _ = match report.violations.len() {
            0 => writeln!(t, "no violations"),
            n => writeln!(
                t,
                "{n} violation{} ({limits} beyond limits, {speeds} too fast{states})",
                if n == 1 { "" } else { "s" }
            ),
        };
        if let Some((b, simulation)) = &balance {
            for s in &b.spans {
                let _ = writeln!(t, "  {}", describe_span(s));
            }
            let _ = writeln!(t, "balance: {}", b.summary());
            let _ = writeln!(t, "simulation: {}", simulation.summary());
        }
        print_stdout(&t)?;
    }
    let falls = balance
        .as_ref()
        .is_some_and(|(b, simulation)| b.faults().next().is_some() || simulation.fall.is_some());
    Ok(if report.violations.is_empty() && !falls {
        Outcome::Success
    } else {
        Outcome::Finding
    })
}

/// The static test's report as `check --json` and `build --json` give it.
pub fn balance_json(b: &aibo_motion::stability::statics::Report) -> serde_json::Value {
    json!({
        "summary": b.summary(),
        "required_margin_mm": b.required_margin_mm,
        "least_margin_mm": rounded(b.least_margin_mm),
        "frames": b.frames,
        "unstable_frames": b.unstable_frames,
        "marginal_frames": b.marginal_frames,
        "dynamic_frames": b.dynamic_frames,
        "uncertain_masses": b.uncertain_masses,
        "spans": b.spans.iter().map(|s| json!({
            "start_ms": s.start_ms,
            "end_ms": s.end_ms,
            "verdict": s.verdict,
            "worst_margin_mm": rounded(s.worst_margin_mm),
            "direction": s.direction,
            "dynamic": s.dynamic,
            "held": s.held,
            "rock_deg": rounded(s.rock_deg),
            "fault": s.fault(),
            "resting_on": s.resting_on,
        })).collect::<Vec<_>>(),
    })
}

/// Both judges on `motion` (the static test requiring `margin_mm`, and the simulation
/// at `simulate`'s default torque), with `simulate`'s progress bar: what `check
/// --balance` and the gate before a robot say.
pub(super) fn judged(
    motion: &aibo_motion::mtn::Motion,
    profile: &aibo_motion::robot::profile::Profile,
    margin_mm: f64,
) -> Result<(statics::Report, physics::Report), aibo_motion::stability::BalanceError> {
    super::simulate::showing(|progress| {
        physics::judged(motion, profile, margin_mm, SERVO_TORQUE_NM, progress)
    })
}

/// The simulation's verdict as `check --json` gives it beside the static test's: what
/// `simulate` says, and when and how it falls (`null`: it stays up).
fn simulation_json(r: &physics::Report) -> serde_json::Value {
    json!({
        "summary": r.summary(),
        "torque_limit_nm": r.torque_limit_nm,
        "fall": r.fall,
    })
}

/// A length (mm) or an angle (degrees) for JSON, to a tenth (and null where there is
/// none).
fn rounded(figure: f64) -> Option<f64> {
    figure.is_finite().then(|| to_places(figure, 1))
}

/// One unstable span, for the text report (and `build`'s warnings).
pub fn describe_span(s: &aibo_motion::stability::statics::Span) -> String {
    use aibo_motion::stability::statics::Verdict;
    let kind: String = match s.verdict {
        Verdict::Unstable if s.held => "unstable to the end, where the robot holds the pose".into(),
        Verdict::Unstable if s.dynamic => "dynamic (two paws down, as a trot or pace)".into(),
        Verdict::Unstable if s.fault() => "unstable".into(),
        Verdict::Unstable if s.rocks() => format!(
            "unstable, but rocks (it turns at most {:.0}° on its edge, and comes back)",
            s.rock_deg
        ),
        Verdict::Unstable => "briefly unstable".into(),
        _ => "marginal".into(),
    };
    let way = match (s.direction, s.verdict) {
        (None, _) => String::new(),
        (Some(d), Verdict::Unstable) => format!(", tipping {}", d.words()),
        (Some(d), _) => format!(", nearest edge {}", d.words()),
    };
    let margin = if s.worst_margin_mm.is_finite() {
        format!("{:.0} mm", s.worst_margin_mm)
    } else {
        "none".into()
    };
    format!(
        "{} to {}: {kind}, worst margin {margin}{way}",
        seconds(s.start_ms),
        seconds(s.end_ms),
    )
}

/// The first few of a list, for a message, `sep` between them.
pub(super) fn abridged(items: &[String], sep: &str) -> String {
    match items {
        [a, b, c, _, ..] => format!("{a}{sep}{b}{sep}{c} and {} more", items.len() - 3),
        _ => items.join(sep),
    }
}

fn describe(v: &Violation) -> String {
    match v {
        Violation::Limit {
            keyframe,
            time_ms,
            joint,
            value_urad,
            limit_urad,
            bound,
            ..
        } => format!(
            "keyframe {keyframe} at {}: {joint} = {} is {} its {bound}imum {}",
            seconds(*time_ms),
            deg(*value_urad),
            if *bound == "max" { "above" } else { "below" },
            deg(*limit_urad)
        ),
        Violation::State {
            keyframe,
            time_ms,
            joint,
            value,
            legal,
            ..
        } => format!(
            "keyframe {keyframe} at {}: {joint} = {value} is not one of its states ({})",
            seconds(*time_ms),
            legal
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Violation::Speed {
            keyframe,
            time_ms,
            joint,
            from_urad,
            to_urad,
            duration_ms,
            speed_rad_s,
            limit_rad_s,
            ..
        } => format!(
            "keyframe {keyframe} at {}: {joint} moves {} → {} in {} = {speed_rad_s:.2} rad/s, over its {limit_rad_s:.2} rad/s",
            seconds(*time_ms),
            deg(*from_urad),
            deg(*to_urad),
            seconds(*duration_ms)
        ),
    }
}
