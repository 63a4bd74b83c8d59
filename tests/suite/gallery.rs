//! The README's gallery is what the program draws today: `scripts/gallery.sh`, run with
//! this build into a fresh folder, gives every committed picture byte for byte (the
//! drawings are deterministic). When it fails, run `scripts/gallery.sh` and commit.

#[test]
#[cfg_attr(not(has_bash), ignore = "needs bash")]
fn the_committed_gallery_is_what_the_program_draws() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg(manifest.join("scripts/gallery.sh"))
        .env("BIN", env!("CARGO_BIN_EXE_aibo-motion"))
        .env("OUT", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut compared = Vec::new();
    for entry in std::fs::read_dir(manifest.join("docs/gallery")).unwrap() {
        let committed = entry.unwrap().path();
        let name = committed.file_name().unwrap().to_owned();
        let drawn = dir.path().join(&name);
        // The Bandai Namco frames are drawn only where the shared samples are.
        if !drawn.exists() && name.to_string_lossy().starts_with("bandai") {
            continue;
        }
        assert!(
            std::fs::read(&committed).unwrap() == std::fs::read(&drawn).unwrap(),
            "docs/gallery/{} is not what the program draws now: run scripts/gallery.sh \
             and commit it",
            name.to_string_lossy()
        );
        compared.push(name);
    }
    assert!(compared.len() >= 3, "{compared:?}");
}
