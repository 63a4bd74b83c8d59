//! Tells the tests whether the robot build can run here: it needs the cross binutils
//! (Debian's binutils-mipsel-linux-gnu) and rust-src; the differential test also needs
//! gcc, gcc-mipsel-linux-gnu and qemu-user. Without them those tests show as ignored,
//! never as passed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(can_build_robot)");
    println!("cargo::rustc-check-cfg=cfg(can_replay_on_mips)");
    println!("cargo::rustc-check-cfg=cfg(can_build_openr_host)");
    println!("cargo::rerun-if-env-changed=PATH");
    // Installing a tool (or rust-src) into a folder already on PATH changes no variable:
    // the folders themselves are watched, so the tests stop being ignored once the
    // tools are there (and cargo looks again only when something in them changes).
    // Cargo scans a watched folder whole: only flat ones, as tool folders are (a PATH
    // that names a whole tree, `/usr` or a home folder, is not scanned at every build).
    let flat = |dir: &std::path::Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .all(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        })
    };
    for dir in std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if dir.is_absolute() && flat(&dir) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    let runs = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let binutils = runs("mipsel-linux-gnu-objdump");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rust_src = std::process::Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .is_some_and(|root| {
            let rustlib = std::path::Path::new(&root).join("lib/rustlib");
            let found = rustlib.join("src/rust/library/core").is_dir();
            // Until it is added (the folder holds little else until then).
            if !found && rustlib.is_dir() {
                println!("cargo::rerun-if-changed={}", rustlib.display());
            }
            found
        });
    if rust_src && runs("c++") {
        println!("cargo::rustc-cfg=can_build_openr_host");
    }
    if binutils && rust_src {
        println!("cargo::rustc-cfg=can_build_robot");
        if runs("cc") && runs("mipsel-linux-gnu-gcc") && runs("qemu-mipsel") {
            println!("cargo::rustc-cfg=can_replay_on_mips");
        }
    }
}
