//! `aibo-motion rcode` and `play --rcode`: R-CODE's wireless console on a real robot.

use std::io::BufRead;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::{shown, Outcome};
use aibo_motion::stick::console::Console;
use anyhow::Result;

/// Talk to R-CODE's console on a robot (TCP 21002): wait for its <READY>, send each
/// LINE, and print what the robot answers. With no LINE, type commands (PLAY:ACTION:NAME,
/// WAIT, STOP, QUIT, @DISS); the robot's answers print as they come. Untested against a
/// robot.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion rcode 192.168.1.50 PLAY:ACTION:dance WAIT\n  \
    aibo-motion rcode aibo.local      (type commands; Ctrl-D ends)")]
pub struct Args {
    /// The robot: HOST or HOST:PORT (port 21002 by default).
    pub host: String,
    /// Command lines to send, in turn (each waits for the robot's next <READY>).
    pub lines: Vec<String>,
    /// Seconds to wait for the robot's <READY> after a line (a WAIT lasts the action).
    #[arg(long, default_value_t = 120.0, value_parser = super::parse_retry, allow_negative_numbers = true)]
    pub timeout: f64,
}

pub fn run(args: Args) -> Result<Outcome> {
    let timeout = Duration::from_secs_f64(args.timeout.max(1.0));
    let (mut console, banner) = Console::connect(&args.host, Duration::from_secs(5))?;
    for line in banner {
        println!("{}", shown(&line));
    }
    let print = &mut |line: &str| println!("{}", shown(line));
    // The lines given, or else each line typed; the robot's answers print as they come.
    let typed: Box<dyn Iterator<Item = std::io::Result<String>>> = if args.lines.is_empty() {
        Box::new(std::io::stdin().lock().lines())
    } else {
        Box::new(args.lines.iter().cloned().map(Ok))
    };
    for line in typed {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if !console.command(line.trim(), timeout, print)? {
            break;
        }
    }
    Ok(Outcome::Success)
}

/// `play --rcode HOST --name NAME`: `PLAY:ACTION:NAME`, then `WAIT` until the action has
/// ended. The first Ctrl-C sends `STOP` (R-CODE stops after the current action), a second
/// `QUIT` (at once; the posture is then undefined).
pub fn play(host: &str, name: &str, timeout: Duration) -> Result<Outcome> {
    let (mut console, _) = Console::connect(host, Duration::from_secs(5))?;
    let presses = Arc::new(AtomicU8::new(0));
    {
        let presses = presses.clone();
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])
        {
            std::thread::spawn(move || {
                for _ in signals.forever() {
                    presses.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    }
    // The robot's lines print as they come; only its error lines are kept, and few.
    let failures = std::cell::RefCell::new(Vec::<String>::new());
    let first_failure = || failures.borrow().first().cloned();
    let mut heard = |line: &str| {
        if line.trim().is_empty() {
            return;
        }
        eprintln!("robot: {}", shown(line));
        let mut kept = failures.borrow_mut();
        if is_error(line) && kept.len() < MAX_FAILURES {
            kept.push(line.to_string());
        }
    };
    // A prompt sent after the banner must not pass for the answer to PLAY or WAIT.
    console.drain(DRAIN_QUIET, DRAIN_MOST, &mut heard)?;
    console.send(&format!("PLAY:ACTION:{name}"))?;
    console.until_ready(
        Duration::from_secs(10),
        "the play command taken",
        &|| false,
        &mut heard,
    )?;
    // What else it says about the PLAY comes before the WAIT.
    console.drain(DRAIN_QUIET, DRAIN_MOST, &mut heard)?;
    if let Some(refusal) = first_failure() {
        anyhow::bail!(
            "{} did not take PLAY:ACTION:{name}: {}",
            console.address(),
            shown(&refusal)
        );
    }
    console.send("WAIT")?;
    let started = std::time::Instant::now();
    // Wait for the action to end; each Ctrl-C meanwhile sends STOP, then QUIT.
    let mut sent = 0;
    loop {
        let seen = sent;
        let pressed = || presses.load(Ordering::Relaxed) > seen;
        console.until_ready(timeout, "the action to end", &pressed, &mut heard)?;
        let now = presses.load(Ordering::Relaxed);
        if now == sent {
            break;
        }
        sent = now;
        let (word, what) = if sent == 1 {
            (
                "STOP",
                format!(
                    "R-CODE lets the action play to its end first (it has played {:.0} s; \
                     the console does not say how long it runs). Press Ctrl-C again to send \
                     QUIT and stop it now",
                    started.elapsed().as_secs_f64()
                ),
            )
        } else {
            (
                "QUIT",
                "it stops at once; its posture is then undefined".to_string(),
            )
        };
        console.send(word)?;
        eprintln!(
            "aibo-motion: Ctrl-C: sent {word} to {}: {what}",
            console.address()
        );
    }
    if sent > 0 {
        return Ok(Outcome::Interrupted);
    }
    if let Some(failure) = first_failure() {
        eprintln!(
            "aibo-motion: the action ended, but the robot reported: {}",
            shown(&failure)
        );
        return Ok(Outcome::Finding);
    }
    eprintln!(
        "played {name} on {}: the action has ended",
        console.address()
    );
    Ok(Outcome::Success)
}

/// Error lines kept from the robot while an action plays (the first is reported).
const MAX_FAILURES: usize = 16;

/// Before PLAY and WAIT, what the robot sent unasked is read until it is quiet this long
/// (at most `DRAIN_MOST`).
const DRAIN_QUIET: Duration = Duration::from_millis(300);
const DRAIN_MOST: Duration = Duration::from_secs(2);

/// A line in which the robot reports a failure. How a real R-CODE words one is unverified;
/// the simulated robot starts it with `ERROR:`.
fn is_error(line: &str) -> bool {
    line.to_ascii_lowercase().contains("error")
}
