//! `aibo-motion completions` and `aibo-motion man`: generated from the command
//! definitions, so they never drift from the real flags.

use super::{Cli, Outcome};
use aibo_motion::fsio;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// Print a shell completion script.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion completions bash > ~/.local/share/bash-completion/completions/aibo-motion\n  \
    aibo-motion completions zsh > ~/.zfunc/_aibo-motion      (with fpath+=~/.zfunc)\n  \
    aibo-motion completions fish > ~/.config/fish/completions/aibo-motion.fish")]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

/// Print the manual page (roff), or write one page per command into a folder.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion man | man -l -\n  \
    aibo-motion man --dir ~/.cargo/share/man/man1      (then: man aibo-motion-build)")]
pub struct ManArgs {
    /// Write aibo-motion.1 and aibo-motion-<command>.1 into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(args: CompletionsArgs) -> Result<Outcome> {
    let script = aibo_motion::docs::completion(args.shell, &mut Cli::command(), "aibo-motion");
    fsio::write_bytes(Path::new("-"), &[], &script)?;
    Ok(Outcome::Success)
}

pub fn man(args: ManArgs) -> Result<Outcome> {
    let pages = aibo_motion::docs::manual_pages(Cli::command())?;
    let Some(dir) = args.dir else {
        let (_, main) = &pages[0];
        fsio::write_bytes(Path::new("-"), &[], main)?;
        return Ok(Outcome::Success);
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    for (file, page) in &pages {
        fsio::write_bytes(&dir.join(file), &[], page)?;
    }
    super::print_stdout(&format!(
        "wrote {} manual pages into {} (aibo-motion.1 and aibo-motion-<command>.1)\n",
        pages.len(),
        dir.display()
    ))?;
    Ok(Outcome::Success)
}
