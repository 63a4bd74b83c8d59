//! The finish of the command line: shell completions and manual pages generated from
//! the command definitions, and a version. (That every command's help shows examples is
//! tested inside the binary, in `src/cli/docs.rs`.)

mod common;

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
