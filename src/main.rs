mod cli;

use clap::Parser;
use cli::{Cli, Outcome};
use std::process::ExitCode;
use tracing::Level;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = if cli.quiet {
        Level::ERROR
    } else {
        match cli.verbose {
            0 => Level::WARN,
            1 => Level::INFO,
            2 => Level::DEBUG,
            _ => Level::TRACE,
        }
    };
    tracing_subscriber::fmt()
        .with_writer(aibo_motion::progress::Log)
        .with_max_level(level)
        .without_time()
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // `play` and `upload` answer Ctrl-C themselves (STOP to the robot); every other
    // command is stopped on SIGINT or SIGTERM, its temporary files removed first.
    if !matches!(cli.command, cli::Command::Play(_) | cli::Command::Upload(_)) {
        remove_temporaries_when_interrupted();
    }
    match cli::run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Finding) => ExitCode::from(1),
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(e) => {
            eprintln!("error: {}", cli::shown_lines(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// On SIGINT or SIGTERM: remove the temporary files of writes under way, then exit as
/// shells expect (128 + the signal: 130, 143).
fn remove_temporaries_when_interrupted() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            aibo_motion::progress::clear();
            aibo_motion::fsio::remove_pending();
            std::process::exit(128 + signal);
        }
    });
}
