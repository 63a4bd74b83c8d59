//! What the likeness tools share: their command line (`TAKE PROFILE [--asf ASF]` and
//! options of their own) and the take built for the profile with `build`'s defaults.

use aibo_motion::pipeline::{self, BuildOptions, Built};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{self, ReadOptions};
use std::io::Write;
use std::path::PathBuf;

/// A tool's command line.
pub struct Args {
    /// The tool's name, for its messages.
    pub tool: &'static str,
    pub take: PathBuf,
    pub model: String,
    words: Vec<String>,
}

impl Args {
    /// The command line; exits with status 2 and the usage line (`usage` follows
    /// `TAKE PROFILE [--asf ASF]` in it) where the take or the profile is missing.
    pub fn read(tool: &'static str, usage: &str) -> Args {
        let words: Vec<String> = std::env::args().skip(1).collect();
        let (Some(take), Some(model)) = (words.first(), words.get(1)) else {
            eprintln!("usage: {tool} TAKE PROFILE [--asf ASF]{usage}");
            std::process::exit(2);
        };
        Args {
            tool,
            take: PathBuf::from(take),
            model: model.clone(),
            words,
        }
    }

    /// The value after option `name`, if given.
    pub fn option(&self, name: &str) -> Option<&str> {
        let at = self.words.iter().position(|w| w == name)?;
        self.words.get(at + 1).map(String::as_str)
    }

    /// The profile named and the take built for it with `build`'s defaults; exits with
    /// status 2 and a message where either cannot be had.
    pub fn build(&self) -> (Profile, Built) {
        let shown = self.take.display();
        let asf = self.option("--asf").map(PathBuf::from);
        let data = std::fs::read(&self.take).unwrap_or_else(|e| self.fail(format!("{shown}: {e}")));
        let clip = source::read(&self.take, &data, &ReadOptions { asf, fps: None })
            .unwrap_or_else(|e| self.fail(e.to_string()));
        let profile = Profile::builtin(&self.model).unwrap_or_else(|| {
            self.fail(format!(
                "{}: not a built-in profile (ERS-7, ERS-210, ERS-220)",
                self.model
            ))
        });
        let built = pipeline::build(&clip, &profile, &BuildOptions::default())
            .unwrap_or_else(|e| self.fail(format!("{shown}: cannot build: {e}")));
        (profile, built)
    }

    /// Says why on stderr and exits with status 2.
    pub fn fail(&self, why: String) -> ! {
        eprintln!("{}: {why}", self.tool);
        std::process::exit(2)
    }
}

/// Writes a line on stdout; a reader that has gone (`| head`) ends the tool quietly.
pub fn say(line: std::fmt::Arguments) {
    if writeln!(std::io::stdout().lock(), "{line}").is_err() {
        std::process::exit(0);
    }
}
