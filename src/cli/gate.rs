//! The gate before a robot: `play`, `upload` and `stick add` run the static test and
//! the simulation, and refuse a motion that tips for longer than [`SPAN_FAULT_MS`] (or
//! in its last pose, which the robot holds) or falls in the simulation, naming when,
//! unless `--force`. A twenty-year-old robot has no spare parts; the tests cost about a
//! second a minute of motion.

use std::path::Path;

use anyhow::{bail, Result};

use aibo_motion::mtn::Motion;
use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::statics::SPAN_FAULT_MS;

/// Refuses `motion` (read from `file`) when it tips on `profile` for longer than
/// [`SPAN_FAULT_MS`], or falls in the simulation (as `simulate` plays it), and `force`
/// is not given; with `force`, says so and lets it pass. `doing` names what would have
/// been done ("sent to the robot", "added to the stick").
pub fn refuse_if_it_tips(
    motion: &Motion,
    profile: &Profile,
    file: &Path,
    force: bool,
    doing: &str,
) -> Result<()> {
    let (report, simulation) = match super::check::judged(motion, profile, 0.0) {
        Ok(tested) => tested,
        Err(e) if force => {
            tracing::warn!("{}: not tested for balance ({e}); --force", file.display());
            return Ok(());
        }
        Err(e) => bail!(
            "{}: cannot test whether the {} stays on its feet ({e}); nothing was {doing}; \
             use --force to go ahead untested",
            file.display(),
            profile.model
        ),
    };
    let (held, faults): (Vec<_>, Vec<_>) = report.faults().partition(|s| s.held);
    let faults: Vec<String> = faults
        .into_iter()
        .map(|s| {
            let way = match s.direction {
                Some(d) => format!(", tipping {}", d.words()),
                None => String::new(),
            };
            format!(
                "{:.2} s to {:.2} s{way}",
                s.start_ms as f64 / 1000.0,
                s.end_ms as f64 / 1000.0
            )
        })
        .collect();
    let mut found = Vec::new();
    if !faults.is_empty() {
        // Each stretch says ", tipping …" itself: semicolons keep them apart.
        let when = super::check::abridged(&faults, "; ");
        found.push(format!(
            "would tip over for longer than {SPAN_FAULT_MS} ms: {when}"
        ));
    }
    if let Some(s) = held.first() {
        found.push(format!(
            "would tip over in its last pose, which it holds, from {:.2} s",
            s.start_ms as f64 / 1000.0
        ));
    }
    if simulation.fall.is_some() {
        found.push(format!("in the simulation, {}", simulation.summary()));
    }
    if found.is_empty() {
        return Ok(());
    }
    let what = format!(
        "{}: the {} {} (`aibo-motion check --balance {}` tells more)",
        file.display(),
        profile.model,
        found.join(", and "),
        file.display()
    );
    if force {
        tracing::warn!("{what}; going ahead as --force asks");
        return Ok(());
    }
    bail!(
        "{what}; nothing was {doing}. Build it again (`build` keeps the balance by default), \
         or use --force if the robot is held or lying down"
    )
}
