//! Shell completion scripts and manual pages for both commands (`aibo-motion` and
//! `aibo-joint-server`), generated from their clap definitions so that they never drift
//! from the real flags; with two faults of the generators mended.

use clap::Command;
use std::io::Write;

/// The completion script for `shell`, for the command `bin`.
///
/// clap_complete's bash script names each subcommand's arm wrongly when the binary's name
/// holds a hyphen (it dispatches to `aibo__motion__subcmd__build` but its arm reads
/// `aibo__subcmd__motion__subcmd__build`), so nothing past the first word completed. The
/// arms are renamed to what the dispatch sets; once clap_complete is mended this does
/// nothing.
pub fn completion(shell: clap_complete::Shell, cmd: &mut Command, bin: &str) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, cmd, bin, &mut out);
    if shell != clap_complete::Shell::Bash || !bin.contains('-') {
        return out;
    }
    let dispatched = bin.replace('-', "__");
    let mangled = bin.replace('-', "__subcmd__");
    let text = String::from_utf8_lossy(&out).replace(
        &format!("{mangled}__subcmd__"),
        &format!("{dispatched}__subcmd__"),
    );
    text.into_bytes()
}

/// Every manual page of `cmd` (built, so that its subcommands know their full names):
/// `(file name, roff)`, the command's own page first, then `BIN-SUB.1` for each
/// subcommand.
pub fn manual_pages(mut cmd: Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    cmd.build();
    let bin = cmd.get_name().to_string();
    let mut pages = vec![(format!("{bin}.1"), page(&cmd, &bin)?)];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let title = format!("{bin}-{}", sub.get_name());
        pages.push((format!("{title}.1"), page(sub, &title)?));
    }
    Ok(pages)
}

/// One page, as clap_mangen renders it but for its synopsis: clap_mangen's leaves out
/// what each option takes (`[--profile]`) and names a subcommand `BIN-SUB`, which is no
/// command; this one is the usage line `--help` prints (`aibo-motion build [OPTIONS]
/// --profile <MODEL> …`).
fn page(cmd: &Command, title: &str) -> std::io::Result<Vec<u8>> {
    type Render = fn(&clap_mangen::Man, &mut dyn Write) -> std::io::Result<()>;
    let man = clap_mangen::Man::new(cmd.clone().display_name(title)).title(title.to_uppercase());
    let mut out = Vec::new();
    // Each part clap_mangen renders starts with the same two-line preamble: kept once.
    let part = |render: Render, out: &mut Vec<u8>| -> std::io::Result<()> {
        let mut text = Vec::new();
        render(&man, &mut text)?;
        let text = String::from_utf8_lossy(&text).into_owned();
        for line in text.lines() {
            let preamble = line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq");
            if !preamble || out.is_empty() {
                writeln!(out, "{line}")?;
            }
        }
        Ok(())
    };
    part(clap_mangen::Man::render_title, &mut out)?;
    part(clap_mangen::Man::render_name_section, &mut out)?;
    writeln!(out, ".SH SYNOPSIS")?;
    for line in synopsis(cmd).lines() {
        writeln!(out, "{}", roff_text(line))?;
        writeln!(out, ".br")?;
    }
    part(clap_mangen::Man::render_description_section, &mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        part(clap_mangen::Man::render_options_section, &mut out)?;
    }
    if cmd.has_subcommands() {
        part(clap_mangen::Man::render_subcommands_section, &mut out)?;
    }
    if cmd.get_after_long_help().is_some() || cmd.get_after_help().is_some() {
        part(clap_mangen::Man::render_extra_section, &mut out)?;
    }
    if cmd.get_version().is_some() {
        part(clap_mangen::Man::render_version_section, &mut out)?;
    }
    Ok(out)
}

/// The usage lines `--help` prints, without its `Usage:`.
pub fn synopsis(cmd: &Command) -> String {
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.strip_prefix("Usage:").unwrap_or(&usage);
    usage
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line of text safe in roff: a backslash doubled, a leading `.` or `'` escaped.
fn roff_text(line: &str) -> String {
    let line = line.replace('\\', "\\\\").replace('-', "\\-");
    if line.starts_with(['.', '\'']) {
        format!("\\&{line}")
    } else {
        line
    }
}
