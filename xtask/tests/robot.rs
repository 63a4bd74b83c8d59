//! `cargo xtask robot` end to end: the core builds for the AIBO's CPU and passes every
//! check (ELF flags, MIPS I/II instructions, relocations, sections, undefined symbols,
//! stack). Ignored where the cross binutils or rust-src are missing (`.ci/run` installs
//! them).

#[test]
#[cfg_attr(
    not(can_build_robot),
    ignore = "needs binutils-mipsel-linux-gnu and rust-src (.ci/run installs them)"
)]
fn the_core_builds_for_the_robot_and_passes_every_check() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("robot")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(printed.contains("o32, pic, cpic, MIPS II"), "{printed}");
    assert!(printed.contains("all MIPS I/II integer"), "{printed}");
    // Every entry point has its figure, each within the budget the report states.
    let budget: u32 = printed
        .split("(budget ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the budget");
    for entry in [
        "aibo_bridge_new",
        "aibo_bridge_receive",
        "aibo_bridge_tick",
        "aibo_bridge_free",
    ] {
        let bytes: u32 = printed
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{entry} ")))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no stack figure for {entry}: {printed}"));
        assert!(bytes <= budget, "{entry}: {bytes}");
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/robot");
    for file in ["aibo_bridge.o", "libaibo_bridge.a", "aibo_bridge.h"] {
        assert!(root.join(file).is_file(), "{file}");
    }
}
