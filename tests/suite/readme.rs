//! The README shows what the commands print on the repository's own example. Those
//! transcripts, and the figures its prose quotes from them, are checked against what the
//! commands print now, so the README never shows an old program.

use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The README's ```` ```text ```` blocks, each as its lines.
fn text_blocks(readme: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == "```text" {
            blocks.push(lines.by_ref().take_while(|l| *l != "```").collect());
        }
    }
    blocks
}

/// A folder laid out as a checkout for the README's relative paths: the example under
/// `examples/`, and `target/` for what the commands write.
fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    std::fs::create_dir(dir.path().join("target")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh"),
        dir.path().join("examples/nod-and-wave.bvh"),
    )
    .unwrap();
    dir
}

/// What `aibo-motion ARGS` prints, standard output then standard error, run in `dir`.
fn printed(dir: &Path, command_line: &str) -> String {
    let args: Vec<&str> = command_line.split_whitespace().skip(1).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(&args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command_line}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// `shown` is the README's excerpt of `actual`: its lines in order, where a line `…` stands
/// for any number of left-out lines, and a line ending in `…` for any line it begins.
fn assert_excerpt(shown: &[&str], actual: &str, what: &str) {
    let actual: Vec<&str> = actual.lines().collect();
    let mut next = 0;
    let mut gap = true; // the excerpt may start anywhere
    for expected in shown {
        if expected.trim() == "…" {
            gap = true;
            continue;
        }
        let matches = |line: &&str| match expected.strip_suffix('…') {
            Some(start) => line.starts_with(start),
            None => line == expected,
        };
        let found = if gap {
            actual[next..].iter().position(matches).map(|i| next + i)
        } else {
            actual.get(next).filter(|l| matches(l)).map(|_| next)
        };
        let Some(at) = found else {
            panic!(
                "the README shows, for {what}:\n{expected}\nbut it printed:\n{}",
                actual.join("\n")
            );
        };
        next = at + 1;
        gap = false;
    }
}

/// The figure after `before` in `text`, up to the first character that is not part of a
/// number: `12.8` in `… scores 12.8° as …`.
fn figure_after(text: &str, before: &str) -> f64 {
    let start = text.find(before).unwrap_or_else(|| panic!("no {before:?}")) + before.len();
    let rest = text[start..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap();
    rest[..end].parse().unwrap()
}

#[test]
fn the_readmes_transcripts_of_the_example_are_what_the_commands_print() {
    let readme = readme();
    let dir = checkout();
    let mut transcripts = 0;
    for block in text_blocks(&readme) {
        // Only transcripts of the repository's own example: the others read shared files.
        if !block
            .first()
            .is_some_and(|l| l.starts_with("$ aibo-motion build examples/"))
        {
            continue;
        }
        let mut rest = &block[..];
        while let Some((command, after)) = rest.split_first() {
            let end = after
                .iter()
                .position(|l| l.starts_with("$ "))
                .unwrap_or(after.len());
            let actual = printed(dir.path(), command.strip_prefix("$ ").unwrap());
            assert_excerpt(&after[..end], &actual, command);
            transcripts += 1;
            rest = &after[end..];
        }
    }
    assert!(transcripts >= 2, "{transcripts} transcripts checked");
}

#[test]
fn the_readmes_balance_summary_and_likeness_figures_are_the_examples() {
    let readme = readme();
    let dir = checkout();
    let built = printed(
        dir.path(),
        "aibo-motion build examples/nod-and-wave.bvh --profile ERS-7 -o target/nod-and-wave.mtn",
    );
    let summary = text_blocks(&readme)
        .into_iter()
        .find(|b| b.first().is_some_and(|l| l.starts_with("  balance:")))
        .expect("the README's balance summary");
    assert_excerpt(&summary, &built, "the example's balance summary");

    // The prose quotes the overall median with the stage and without it.
    let with_stage = figure_after(&built, "from the performer's segments): median");
    let without = figure_after(&built, "(without balancing: median");
    assert_eq!(
        figure_after(&readme, "the example scores"),
        with_stage,
        "the README's likeness with the stage"
    );
    assert_eq!(
        figure_after(&readme, "The example above scores"),
        without,
        "the README's likeness without the stage"
    );
}

/// The repository paths that `text` names in backticks (`src/…`, `docs/…`, `scripts/…`
/// and the other top-level folders), each with the line it is on. Inline code may run
/// over a line break, as Markdown allows; fenced blocks are left out.
fn repository_paths(text: &str) -> Vec<(usize, &str)> {
    const FOLDERS: &str = "src/ docs/ scripts/ tests/ examples/ profiles/ firmware-bridge/ \
                           xtask/ udev/ benches/ fuzz/ .ci/";
    let mut paths = Vec::new();
    let mut fenced = false;
    let mut quoted = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (i, piece) in line.split('`').enumerate() {
            if i > 0 {
                quoted = !quoted;
            }
            let is_path = quoted
                && !piece.contains(char::is_whitespace)
                && FOLDERS.split_whitespace().any(|f| piece.starts_with(f));
            if is_path {
                paths.push((n + 1, piece));
            }
        }
        // A paragraph's end closes whatever its backticks left open.
        if line.trim().is_empty() {
            quoted = false;
        }
    }
    paths
}

#[test]
fn the_files_the_readme_and_the_docs_name_are_in_the_repository() {
    // The README sends a reader to docs/ for the measurements, and both name source files
    // and scripts: a file moved or renamed must not leave them pointing at nothing.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut documents = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    assert!(documents.len() > 1, "no Markdown under docs/");
    let mut missing = Vec::new();
    let mut checked = 0;
    for document in &documents {
        let text = std::fs::read_to_string(document).unwrap();
        for (line, path) in repository_paths(&text) {
            // A glob names a folder's files; an example is named as cargo runs it.
            let path = path.split('*').next().unwrap();
            let found = root.join(path).exists()
                || (path.starts_with("examples/") && root.join(format!("{path}.rs")).exists());
            checked += 1;
            if !found {
                let name = document.strip_prefix(root).unwrap().display();
                missing.push(format!("{name}:{line}: `{path}`"));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "named but not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_repository_paths_in_backticks_and_nothing_else() {
    let text = "see `src/stability/plan.rs` and `docs/gone.md`, not `cargo test` or `src dir`\n\
                `cargo run\n\
                --example x`, then `docs/speed.md`\n\
                ```sh\n\
                `src/in-a-fence.rs`\n\
                ```\n\
                and `src/lib.rs`";
    assert_eq!(
        repository_paths(text),
        vec![
            (1, "src/stability/plan.rs"),
            (1, "docs/gone.md"),
            (3, "docs/speed.md"),
            (7, "src/lib.rs")
        ]
    );
}
