//! The gate before a robot: `play`, `upload` and `stick add` run the static test and
//! the simulation, and refuse a motion that tips for longer than [`SPAN_FAULT_MS`] (or
//! in its last pose, which the robot holds) or falls in the simulation, naming when,
//! unless `--force`. `play` tests the way in from where the robot stands the same way,
//! once the robot has said where that is, and with --loop the way back between passes. A twenty-year-old robot has no spare parts;
//! the tests cost about a second a minute of motion.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Result};

use aibo_motion::link::{WayIn, WayInCheck};
use aibo_motion::mtn::Motion;
use aibo_motion::robot::profile::Profile;
use aibo_motion::stability::statics::SPAN_FAULT_MS;
use aibo_motion::stability::BalanceError;

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
    let found = match findings(motion, profile, true) {
        Ok(found) => found,
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

/// What `play` asks of the ways into `file`'s motion (the bridge eases along a straight
/// line at a quarter of joint speed): from where the robot stands, as it reports its
/// pose, to the first pose; and with --loop, from the last pose back to the first
/// between passes. The same judges as [`refuse_if_it_tips`]. One that tips stops the
/// play before anything moves, unless `force`, which lets it pass with a warning.
pub fn way_in_check(profile: Profile, file: &Path, force: bool) -> WayInCheck {
    let file = file.display().to_string();
    WayInCheck(Arc::new(move |way: &Motion, kind: WayIn| {
        let seconds = way.duration_ms() as f64 / 1000.0;
        let which = match kind {
            WayIn::FromWhereItStands => {
                "the way in from where the robot stands to the motion's first pose"
            }
            WayIn::BetweenLoops => {
                "the way back from the motion's last pose to its first, between loops"
            }
        };
        // The pose it ends in is the motion's first, which the motion's own test holds.
        let what = match findings(way, &profile, false) {
            Ok(found) if found.is_empty() => return Ok(()),
            Ok(found) => format!(
                "{file}: on {which} ({seconds:.2} s at a quarter of joint speed), the {} {}",
                profile.model,
                found.join(", and ")
            ),
            Err(e) => format!(
                "{file}: cannot test whether the {} stays on its feet on {which} ({e})",
                profile.model
            ),
        };
        if force {
            tracing::warn!("{what}; going ahead as --force asks");
            return Ok(());
        }
        let instead = match kind {
            WayIn::FromWhereItStands => {
                "Bring the robot near the motion's first pose first (a motion that ends there)"
            }
            WayIn::BetweenLoops => {
                "Play it once at a time, or loop a motion that ends where it starts"
            }
        };
        Err(format!(
            "{what}; nothing was sent to the robot. {instead}, or use --force if the robot is held"
        ))
    }))
}

/// What the static test and the simulation find against `motion` on `profile`: each a
/// phrase ("would tip over …"); none where it stays up. With `held`, the robot holds
/// the last pose, and a tip or fall there counts.
fn findings(motion: &Motion, profile: &Profile, held: bool) -> Result<Vec<String>, BalanceError> {
    let (report, simulation) = super::check::judged(motion, profile, 0.0)?;
    let (at_the_end, faults): (Vec<_>, Vec<_>) = report.faults().partition(|s| s.held);
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
    if let Some(s) = at_the_end.first().filter(|_| held) {
        found.push(format!(
            "would tip over in its last pose, which it holds, from {:.2} s",
            s.start_ms as f64 / 1000.0
        ));
    }
    let end_ms = motion.duration_ms();
    if simulation
        .fall
        .as_ref()
        .is_some_and(|f| held || f.at_ms <= end_ms)
    {
        found.push(format!("in the simulation, {}", simulation.summary()));
    }
    Ok(found)
}
