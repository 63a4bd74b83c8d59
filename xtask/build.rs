//! Tells the tests whether the robot build can run here: it needs the cross binutils
//! (Debian's binutils-mipsel-linux-gnu) and rust-src. Without them the test that runs it
//! shows as ignored, never as passed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(can_build_robot)");
    println!("cargo::rerun-if-env-changed=PATH");
    let binutils = std::process::Command::new("mipsel-linux-gnu-objdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rust_src = std::process::Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .is_some_and(|root| {
            std::path::Path::new(&root)
                .join("lib/rustlib/src/rust/library/core")
                .is_dir()
        });
    if binutils && rust_src {
        println!("cargo::rustc-cfg=can_build_robot");
    }
}
