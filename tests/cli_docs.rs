//! The finish of the command line: examples in every command's help, shell completions
//! and manual pages generated from the same definitions, a version.

mod common;

use aibo_motion::cli::Cli;
use clap::CommandFactory;

/// Every command and subcommand path, e.g. ["oda", "pack"].
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands() {
            let mut path = prefix.clone();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(sub, path, out);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), Vec::new(), &mut out);
    out
}

#[test]
fn every_command_shows_examples_in_its_help() {
    let paths = command_paths();
    assert!(paths.len() >= 15, "{paths:?}");
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = common::run(&args);
        assert!(out.status.success(), "{path:?}");
        let help = common::stdout(&out);
        assert!(
            help.contains("Examples:"),
            "{path:?} --help has no examples:\n{help}"
        );
        assert!(
            help.contains(&format!("aibo-motion {}", path.join(" "))),
            "{path:?}: its examples use it"
        );
    }
}

#[test]
fn completions_cover_every_command_in_three_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let out = common::run(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = common::stdout(&out);
        for command in ["build", "play", "export", "legs", "tolerance-deg"] {
            assert!(
                script.contains(command),
                "{shell} completion lacks {command}"
            );
        }
    }
    assert_eq!(common::run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_manual_is_roff_with_a_page_per_command() {
    let out = common::run(&["man"]);
    let page = common::stdout(&out);
    assert!(
        page.contains(".TH aibo-motion 1") && page.contains(".SH SUBCOMMANDS"),
        "{page}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = common::run(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success());
    for name in [
        "aibo-motion.1",
        "aibo-motion-build.1",
        "aibo-motion-play.1",
        "aibo-motion-export.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{name}");
    }
}

#[test]
fn version_names_the_release() {
    let out = common::run(&["--version"]);
    assert_eq!(
        common::stdout(&out).trim(),
        format!("aibo-motion {}", env!("CARGO_PKG_VERSION"))
    );
}
