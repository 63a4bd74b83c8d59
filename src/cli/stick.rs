//! `aibo-motion stick`: the user actions on an R-CODE memory stick.

use super::{json_text, print_stdout, shown, Outcome};
use aibo_motion::stick::tree::{Severity, Stick};
use anyhow::Result;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Read and check the user actions on a Memory Stick running Sony's R-CODE (its mounted
/// root, or a folder holding an owner's R-CODE tree). Only the plain user files are
/// read: the model's MWC catalogue, ACTION.CFG, the MOTION, AUDIO and LED archives and
/// R-CODE.R; Sony's encrypted files are never touched.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion stick list /media/MEMSTICK\n  \
    aibo-motion stick check /media/MEMSTICK --json")]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Each user action: its MWCID, motion (keyframes, duration, postures), sound and LED.
    List {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Check the whole stick: every name an action plays is in its archive, the
    /// catalogue's counts are right, ACTION.CFG reads and clashes with none of Sony's
    /// actions, R-CODE.R's lines fit 127 bytes. Exit status 1 when anything is wrong.
    Check {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: Args) -> Result<Outcome> {
    match args.action {
        Action::List { stick, json } => list(&stick, json),
        Action::Check { stick, json } => check(&stick, json),
    }
}

fn list(path: &std::path::Path, as_json: bool) -> Result<Outcome> {
    let stick = Stick::open(path)?;
    let actions = stick.list();
    if as_json {
        print_stdout(&json_text(&json!({
            "stick": path.display().to_string(),
            "model": stick.model,
            "actions": actions,
        })))?;
        return Ok(Outcome::Success);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: an {} stick, {} user action{}",
        path.display(),
        stick.model,
        actions.len(),
        if actions.len() == 1 { "" } else { "s" }
    );
    for a in &actions {
        let motion = a.motion.as_ref().map_or("no motion".to_string(), |m| {
            let postures = match (&m.start, &m.end) {
                (Some(s), Some(e)) => format!(", {} → {}", shown(s), shown(e)),
                _ => String::new(),
            };
            format!(
                "motion {} ({} keyframes, {:.2} s{postures})",
                shown(&m.entry),
                m.keyframes,
                m.duration_s
            )
        });
        let _ = write!(t, "  {:<16} {:>6}  {motion}", shown(&a.name), a.mwcid);
        if let Some(s) = &a.sound {
            let _ = write!(t, ", sound {}", shown(s));
        }
        if let Some(l) = &a.led {
            let _ = write!(t, ", lights {}", shown(l));
        }
        t.push('\n');
    }
    print_stdout(&t)?;
    Ok(Outcome::Success)
}

fn check(path: &std::path::Path, as_json: bool) -> Result<Outcome> {
    let stick = Stick::open(path)?;
    let findings = stick.check();
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if as_json {
        print_stdout(&json_text(&json!({
            "stick": path.display().to_string(),
            "model": stick.model,
            "user_actions": stick.user_blocks().count(),
            "findings": findings,
        })))?;
    } else {
        let mut t = format!(
            "{}: an {} stick, {} user action{} in the catalogue\n",
            path.display(),
            stick.model,
            stick.user_blocks().count(),
            if stick.user_blocks().count() == 1 {
                ""
            } else {
                "s"
            }
        );
        for f in &findings {
            let _ = writeln!(
                t,
                "  {}: {}",
                match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                shown(&f.message)
            );
        }
        let _ = match errors {
            0 => writeln!(t, "no errors"),
            n => writeln!(t, "{n} error{}", if n == 1 { "" } else { "s" }),
        };
        print_stdout(&t)?;
    }
    Ok(if errors == 0 {
        Outcome::Success
    } else {
        Outcome::Finding
    })
}
