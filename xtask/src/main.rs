//! `cargo xtask robot`: builds the bridge core for the AIBO's CPU and checks it.
//!
//! The core (`firmware-bridge` behind `firmware-bridge-capi`'s C interface) is built with
//! the stable toolchain's `build-std` for `firmware-bridge/robot/mipsel-sony-openr.json`
//! (little-endian MIPS II, o32, position-independent, soft float, panic = abort), linked
//! into one relocatable object with only what the C interface reaches, stripped of what
//! Sony's link tool refuses, and checked: the ELF flags, every instruction MIPS I/II, every
//! relocation on the tool's list, the section names, the undefined symbols, and each
//! entry point's worst stack use against the budget. It writes
//! `target/robot/aibo_bridge.o`, the library `libaibo_bridge.a` and `aibo_bridge.h` beside it.

mod checks;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The C interface's functions: the entry points whose stack use is checked.
pub const ENTRY_POINTS: [&str; 11] = [
    "aibo_bridge_new",
    "aibo_bridge_joint_locator",
    "aibo_bridge_joint_binary",
    "aibo_bridge_free",
    "aibo_bridge_joints",
    "aibo_bridge_receive",
    "aibo_bridge_tick",
    "aibo_bridge_state",
    "aibo_bridge_counters",
    "aibo_bridge_set_measured",
    "aibo_bridge_link_lost",
];

/// The share of the object's stack (its `.ocf`) a bridge call may use: the rest is the
/// object's own frames, the reply callback and the C library's `memcpy` and the like,
/// none of which the count includes.
pub const BRIDGE_STACK_SHARE: u32 = 2;

/// The stack the OPEN-R object declares in `firmware-bridge/openr/BRIDGE.OCF`
/// (`object NAME STACK HEAP PRIORITY …`), bytes.
fn object_stack(root: &Path) -> Result<u32, String> {
    let path = root.join("firmware-bridge/openr/BRIDGE.OCF");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("object")).then(|| words.nth(1))?
        })
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("{}: no `object NAME STACK …` line", path.display()))
}

/// Symbols the object leaves to the embedder: its allocation and abort (`aibo_bridge.h`),
/// the C library's memory functions, and the linker's `_gp_disp`.
const UNDEFINED_ALLOWED: [&str; 9] = [
    "_gp_disp",
    "aibo_bridge_alloc",
    "aibo_bridge_dealloc",
    "aibo_bridge_abort",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "strlen",
];

const TOOLS: [&str; 4] = [
    "mipsel-linux-gnu-ld",
    "mipsel-linux-gnu-objcopy",
    "mipsel-linux-gnu-objdump",
    "mipsel-linux-gnu-readelf",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(task @ ("robot" | "replay" | "openr-host")) => {
            let done = match task {
                "robot" => robot(),
                "replay" => replay(),
                _ => openr_host(),
            };
            match done {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: cargo xtask robot|replay|openr-host\n\n  robot   build the bridge core for the AIBO's CPU (target/robot/) and check it:\n          ELF flags, MIPS I/II instructions, relocations, sections, stack use.\n          Needs rust-src (rustup component add rust-src) and Debian's\n          binutils-mipsel-linux-gnu.\n  replay  build the replay harness twice: natively, and as a static mipsel Linux\n          executable linked with the object `robot` checked (run it under\n          qemu-mipsel). Needs gcc and Debian's gcc-mipsel-linux-gnu.\n  openr-host\n          build the OPEN-R object (firmware-bridge/openr) on the host against\n          our stand-ins for the SDK, with a driver the tests script. Needs g++\n          and rust-src."
            );
            ExitCode::from(2)
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs a tool and returns what it printed; an error says what failed.
fn output(command: &mut Command) -> Result<String, String> {
    let out = command
        .output()
        .map_err(|e| format!("{:?} could not run: {e}", command.get_program()))?;
    if !out.status.success() {
        return Err(format!(
            "{:?} failed: {}",
            command,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn robot() -> Result<(), String> {
    for tool in TOOLS {
        if Command::new(tool).arg("--version").output().is_err() {
            return Err(format!(
                "{tool} is missing: install Debian's binutils-mipsel-linux-gnu"
            ));
        }
    }
    let root = root();
    let out_dir = root.join("target/robot");
    let spec = root.join("firmware-bridge/robot/mipsel-sony-openr.json");
    println!("building the core for {} …", spec.display());
    // Sony's linker refuses R_MIPS_JALR; unwind tables are of no use with panic = abort;
    // `ld -r` breaks GP-relative jump tables (the differential test caught it).
    build_core(
        spec.as_os_str(),
        &["-Zjson-target-spec"],
        "-Cllvm-args=-mips-jalr-reloc=false\x1f-Cforce-unwind-tables=no\x1f-Cjump-tables=no",
    )
    .map_err(|e| format!("{e} (is rust-src installed? `rustup component add rust-src`)"))?;
    let library = out_dir.join("mipsel-sony-openr/release/libaibo_bridge.a");
    let object = out_dir.join("aibo_bridge.o");
    let mut link = Command::new("mipsel-linux-gnu-ld");
    link.args(["-r", "--gc-sections"]);
    for entry in ENTRY_POINTS {
        link.args(["-u", entry]);
    }
    output(link.arg("-o").arg(&object).arg(&library))?;
    output(
        Command::new("mipsel-linux-gnu-objcopy")
            // Sony's link tool expects exactly two program headers, which these add to.
            .args(["--remove-section", ".note.GNU-stack"])
            .args(["--remove-section", ".MIPS.abiflags"])
            // Unwind tables: with panic = abort nothing reads them (core's prebuilt
            // parts carry some whatever the flags).
            .args(["--remove-section", ".eh_frame"])
            .args(["--remove-section", ".rel.eh_frame"])
            .arg(&object),
    )?;
    std::fs::copy(&library, out_dir.join("libaibo_bridge.a")).map_err(|e| e.to_string())?;
    std::fs::copy(
        root.join("firmware-bridge/capi/aibo_bridge.h"),
        out_dir.join("aibo_bridge.h"),
    )
    .map_err(|e| e.to_string())?;
    check(&object, object_stack(&root)?)
}

/// The replay harness (`firmware-bridge/capi/harness/replay.c`), twice: natively, over the
/// core built `no_std` for the host as for the robot, and for mipsel Linux, over the very
/// object `robot` checked. `target/robot/replay-native` and `target/robot/replay-mipsel`.
fn replay() -> Result<(), String> {
    robot()?;
    let root = root();
    let out_dir = root.join("target/robot");
    let host_library = host_library()?;
    let harness = root.join("firmware-bridge/capi/harness/replay.c");
    let include = root.join("firmware-bridge/capi");
    for (compiler, library, exe, extra) in [
        ("cc", host_library, "replay-native", None),
        (
            "mipsel-linux-gnu-gcc",
            out_dir.join("aibo_bridge.o"),
            "replay-mipsel",
            Some("-static"),
        ),
    ] {
        let mut cc = Command::new(compiler);
        cc.args(["-O2", "-Wall", "-Wextra", "-Werror", "-std=c99"])
            .arg("-I")
            .arg(&include)
            .arg(&harness)
            .arg(&library)
            .arg("-o")
            .arg(out_dir.join(exe));
        cc.args(extra);
        output(&mut cc)
            .map_err(|e| format!("{compiler}: {e} (Debian: gcc, gcc-mipsel-linux-gnu)"))?;
        println!("built {}", out_dir.join(exe).display());
    }
    Ok(())
}

/// The OPEN-R object (`firmware-bridge/openr/BridgeObject.cc`) built on the host against
/// our stand-in for the SDK (`openr/host/openr_standin.h`), with the driver the tests script, as C++98
/// (the SDK's gcc 3.3 takes no later C++): `target/robot/openr-host`.
fn openr_host() -> Result<(), String> {
    let root = root();
    let library = host_library()?;
    let openr = root.join("firmware-bridge/openr");
    let exe = root.join("target/robot/openr-host");
    std::fs::create_dir_all(root.join("target/robot")).map_err(|e| e.to_string())?;
    let mut cxx = Command::new("c++");
    cxx.args(["-std=c++98", "-O1", "-Wall", "-Wextra", "-Werror"])
        .arg("-DAIBO_BRIDGE_STANDIN");
    for include in ["openr/host", "openr", "capi"] {
        cxx.arg("-I")
            .arg(root.join("firmware-bridge").join(include));
    }
    cxx.arg(openr.join("BridgeObject.cc"))
        .arg(openr.join("host/standin.cc"))
        .arg(openr.join("host/drive.cc"))
        .arg(&library)
        .arg("-o")
        .arg(&exe);
    output(&mut cxx).map_err(|e| format!("c++: {e}"))?;
    println!("built {}", exe.display());
    Ok(())
}

/// The core built `no_std` for the host as for the robot (the embedder's allocation and
/// abort, panic = abort): the library the native harnesses link.
fn host_library() -> Result<PathBuf, String> {
    let host = host_triple()?;
    build_core(host.as_ref(), &[], "-Cpanic=abort")?;
    Ok(root().join(format!("target/robot/{host}/release/libaibo_bridge.a")))
}

/// Builds the core `no_std` behind its C interface (the `robot` feature) for `target`,
/// with `build-std`, into `target/robot`.
fn build_core(target: &std::ffi::OsStr, extra: &[&str], rustflags: &str) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(&cargo)
        .current_dir(root())
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags)
        .args(["build", "--release", "-p", "firmware-bridge-capi"])
        .args(["--features", "robot", "-Zbuild-std=core,alloc"])
        // The workspace's release profile links the desktop tool whole (LTO); the robot's
        // object keeps the profile it was proven with (`ld -r`, Sony's linker).
        .args(["--config", "profile.release.lto=false"])
        .args(["--config", "profile.release.codegen-units=16"])
        .args(extra)
        .arg("--target")
        .arg(target)
        .arg("--target-dir")
        .arg(root().join("target/robot"))
        .status()
        .map_err(|e| format!("cargo could not run: {e}"))?;
    if built.success() {
        Ok(())
    } else {
        Err(format!(
            "the core's build for {} failed",
            target.to_string_lossy()
        ))
    }
}

/// The host's target triple, as rustc names it.
fn host_triple() -> Result<String, String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(Command::new(rustc).arg("-vV"))?;
    version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV names no host".into())
}

/// Every check of the object; prints what it found, and fails on the first fault class.
fn check(object: &Path, object_stack: u32) -> Result<(), String> {
    let budget = object_stack / BRIDGE_STACK_SHARE;
    let bytes = std::fs::read(object).map_err(|e| format!("{}: {e}", object.display()))?;
    println!("{}: {} bytes", object.display(), bytes.len());
    println!("  ELF         {}", checks::elf_header(&bytes)?);

    let readelf = |flag: &str| {
        output(
            Command::new("mipsel-linux-gnu-readelf")
                .arg(flag)
                .arg(object),
        )
    };
    let relocs = readelf("-rW")?;
    let census = checks::relocations(&relocs)?;
    println!(
        "  relocations {}",
        census
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let section_list = readelf("-SW")?;
    let names = checks::sections(&section_list)?;
    println!(
        "  sections    {} (text, data, rodata, their relocations, symbols)",
        names.len()
    );

    let symbols = readelf("-sW")?;
    let undefined: Vec<&str> = symbols
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 8 && w[6] == "UND" && !w[7].is_empty()).then(|| w[7])
        })
        .collect();
    let unexpected: Vec<&&str> = undefined
        .iter()
        .filter(|s| !UNDEFINED_ALLOWED.contains(s))
        .collect();
    if !unexpected.is_empty() {
        return Err(format!(
            "undefined symbols the embedder does not supply: {unexpected:?}"
        ));
    }
    println!("  undefined   {}", undefined.join(", "));

    let dis = output(
        Command::new("mipsel-linux-gnu-objdump")
            // Disassembled as MIPS32r2, a superset, so that an instruction past MIPS II
            // shows by name and the census catches it.
            .args(["-dr", "-M", "no-aliases", "-m", "mips:isa32r2"])
            .arg(object),
    )?;
    let code = checks::disassembly(&dis)?;
    let beyond = checks::beyond_mips2(&code.census);
    if !beyond.is_empty() {
        return Err(format!(
            "instructions beyond MIPS II's integer set: {}",
            beyond.join(", ")
        ));
    }
    println!(
        "  code        {} instructions of {} kinds, all MIPS I/II integer, in {} functions",
        code.census.values().sum::<usize>(),
        code.census.len(),
        code.functions.len()
    );

    let tables = checks::data_references(&relocs);
    let sections = checks::symbol_sections(&symbols, &section_list);
    let graph = checks::CallGraph::new(&code.functions, &tables, &sections);
    println!(
        "  stack       worst use per entry point (budget {budget} of the object's {object_stack}, BRIDGE.OCF):"
    );
    let mut over = Vec::new();
    for entry in ENTRY_POINTS {
        let used = graph.worst(entry)?;
        println!("    {entry:26} {:5} bytes", used.bytes);
        if used.bytes > budget {
            let chain: Vec<String> = used
                .path
                .iter()
                .map(|(f, n)| format!("{f} ({n})"))
                .collect();
            over.push(format!(
                "{entry}: {} bytes through {}",
                used.bytes,
                chain.join(" → ")
            ));
        }
    }
    if !over.is_empty() {
        return Err(format!("over the stack budget: {}", over.join("; ")));
    }
    println!("robot build ok: {}", object.display());
    Ok(())
}
