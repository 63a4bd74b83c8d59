//! The finish of the command line: shell completions and manual pages generated from
//! the command definitions, every command's help with examples, and a version.

use crate::common;

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

/// `script` (a completion script for `bin`) in a fresh `shell`: the commands, then what the
/// shell printed.
fn in_shell(shell: &str, bin: &str, script: &str, commands: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("_{bin}"));
    std::fs::write(&file, script).unwrap();
    let mut cmd = std::process::Command::new(shell);
    match shell {
        "bash" => cmd.args(["--norc", "--noprofile", "-c"]),
        "zsh" => cmd.args(["-f", "-c"]),
        _ => cmd.args(["--no-config", "-c"]),
    };
    // zsh's scripts register through compdef, which compinit defines.
    let prelude = if shell == "zsh" {
        "autoload -U compinit; compinit -u -D; "
    } else {
        ""
    };
    let out = cmd
        .arg(format!("{prelude}source {}; {commands}", file.display()))
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What bash completes after `line` (the words so far, the last one being typed), with
/// the completion function `function`.
fn bash_completes(bin: &str, script: &str, function: &str, line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let commands = format!(
        "COMP_WORDS=({}); COMP_CWORD={}; {function} {bin} '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len().saturating_sub(2)]
    );
    in_shell("bash", bin, script, &commands)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
#[cfg_attr(not(has_bash), ignore = "needs bash")]
fn bash_completes_past_the_first_word_for_both_commands() {
    let script = common::stdout(&common::run(&["completions", "bash"]));
    let completes = |line: &str| bash_completes("aibo-motion", &script, "_aibo__motion", line);
    assert!(completes("aibo-motion bu").contains(&"build".to_string()));
    assert_eq!(completes("aibo-motion build --pro"), ["--profile"]);
    assert_eq!(
        completes("aibo-motion build x.bvh --legs "),
        ["angles", "ik"]
    );
    for sub in ["add", "remove", "wifi", "check"] {
        assert!(completes("aibo-motion stick ").contains(&sub.to_string()));
    }
    assert_eq!(completes("aibo-motion stick add --na"), ["--name"]);
    let server = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .args(["--completions", "bash"])
        .output()
        .unwrap();
    assert!(server.status.success());
    let script = String::from_utf8(server.stdout).unwrap();
    let completes =
        |line: &str| bash_completes("aibo-joint-server", &script, "_aibo__joint__server", line);
    assert_eq!(completes("aibo-joint-server --rc"), ["--rcode"]);
    assert!(completes("aibo-joint-server --completions ").contains(&"zsh".to_string()));
}

#[test]
#[cfg_attr(not(has_fish), ignore = "needs fish")]
fn fish_completes_past_the_first_word() {
    let script = common::stdout(&common::run(&["completions", "fish"]));
    let said = in_shell(
        "fish",
        "aibo-motion",
        &script,
        "complete -C 'aibo-motion build --pro'; complete -C 'aibo-motion stick a'",
    );
    let words: Vec<&str> = said.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(words, ["--profile", "add", "autoplay"], "{said}");
}

#[test]
#[cfg_attr(not(has_zsh), ignore = "needs zsh")]
fn zsh_loads_the_completion_function() {
    let script = common::stdout(&common::run(&["completions", "zsh"]));
    let said = in_shell(
        "zsh",
        "aibo-motion",
        &script,
        "whence -w _aibo-motion; echo $_comps[aibo-motion]",
    );
    assert_eq!(said.trim(), "_aibo-motion: function\n_aibo-motion");
}

#[test]
fn the_manual_is_roff_with_a_page_per_command() {
    let out = common::run(&["man"]);
    let page = common::stdout(&out);
    assert!(
        page.contains(".TH AIBO-MOTION 1") && page.contains(".SH SUBCOMMANDS"),
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

/// A page's SYNOPSIS as text: its lines, roff escapes undone.
fn synopsis_of(page: &str) -> String {
    page.split(".SH SYNOPSIS\n")
        .nth(1)
        .unwrap()
        .split("\n.SH")
        .next()
        .unwrap()
        .lines()
        .filter(|l| *l != ".br")
        .map(|l| l.replace("\\-", "-").replace("\\\\", "\\"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The usage lines `--help` prints, without `Usage:`.
fn usage_of(help: &str) -> String {
    help.split("Usage:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_manual_page_gives_the_synopsis_help_gives() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::run(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("manual pages into"));
    let mut pages = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let words: Vec<&str> = name
            .strip_prefix("aibo-motion")
            .unwrap()
            .split('-')
            .skip(1)
            .collect();
        let mut args = words.clone();
        args.push("--help");
        let help = common::stdout(&common::run(&args));
        let page = std::fs::read_to_string(&path).unwrap();
        let synopsis = synopsis_of(&page);
        assert_eq!(synopsis, usage_of(&help), "{name}");
        let command = std::iter::once("aibo-motion")
            .chain(words.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            synopsis.starts_with(&format!("{command} ")),
            "{name}: {synopsis}"
        );
        // Every option that takes a value shows it.
        assert!(!synopsis.contains("[--profile]"), "{name}: {synopsis}");
        // Every command's help ends with examples that use it.
        if !words.is_empty() {
            let examples = help.split_once("Examples:").map(|(_, e)| e);
            assert!(
                examples.is_some_and(|e| e.contains(&format!("{command} "))),
                "{name}: `{command} --help` shows no examples of it:\n{help}"
            );
        }
        pages += 1;
    }
    assert!(pages >= 18, "{pages} pages");
    let server = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .arg("--man")
        .output()
        .unwrap();
    assert!(server.status.success());
    let page = String::from_utf8(server.stdout).unwrap();
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(
        synopsis_of(&page),
        usage_of(&String::from_utf8_lossy(&help.stdout))
    );
    assert!(page.contains(".TH AIBO-JOINT-SERVER 1"));
}
