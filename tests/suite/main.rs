//! Every integration test of `aibo-motion`, in one binary: the test build compiles the
//! library's imports and links once instead of forty times, and the tests that wait on a
//! link's clock run beside those that compute, not in a binary of their own after them.
//! Each module is one subject, as its file was; `cargo test --test suite gate::` runs
//! one of them.

mod common;

mod asf_amc_quirks;
mod balance;
mod balance_stage;
mod bounded_work;
mod bridge_models;
mod bvh_quirks;
mod cli;
mod cli_docs;
mod codec_properties;
mod edit;
mod export;
mod gallery;
mod gate;
mod hostile_console;
mod hostile_input;
mod hostile_sticks;
mod joint_server_cli;
mod keyframe_reduction;
mod leg_ik;
mod likeness;
mod link;
mod link_vectors;
mod locomotion;
mod mocap_cross_check;
mod mocap_samples;
mod mrtk_format;
mod output_paths;
mod qp;
mod ramps;
mod rcode_console;
mod rcode_samples;
mod readme;
mod real_samples;
mod retarget_conventions;
mod retarget_senses;
mod seeing;
mod spec_example;
mod stick;
mod stick_bridge;
mod t_pose;
mod wifi_link;

/// A file added here without its `mod` line above would never compile nor run.
#[test]
fn every_file_of_the_suite_is_one_of_its_modules() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let main = std::fs::read_to_string(here.join("main.rs")).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(&here).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let module = match path.extension().and_then(|e| e.to_str()) {
            Some("rs") if name != "main" => name,
            None if path.join("mod.rs").is_file() => name,
            _ => continue,
        };
        assert!(
            main.lines().any(|l| l == format!("mod {module};")),
            "tests/suite/main.rs lacks `mod {module};`"
        );
        files += 1;
    }
    assert!(files >= 40, "{files} modules");
}

/// The shared sample folders this build saw (`build.rs`, which sets a `shared_…` cfg for
/// each) are the ones there now. Cargo runs `build.rs` again only when a folder it
/// watches is newer than its last run, so a folder that appears with older times (a
/// symlink to it, or one unpacked or moved into place) would leave its tests ignored
/// unnoticed; one that goes away, failing unclearly.
#[test]
fn the_shared_folders_this_build_saw_are_the_ones_there() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let folders: Vec<&str> = env!("SHARED_FOLDERS_SEEN").split(',').collect();
    assert!(folders.len() >= 5, "{folders:?}");
    // The list agrees with the cfgs the tests are ignored by.
    assert!(folders.contains(&if cfg!(shared_mocap) {
        "mocap-samples=1"
    } else {
        "mocap-samples=0"
    }));
    for entry in folders {
        let (folder, seen) = entry.split_once('=').unwrap();
        let (seen, there) = (seen == "1", shared.join(folder).is_dir());
        assert_eq!(
            seen,
            there,
            "../shared/{folder} is {}there, but this build {}: run `touch build.rs` (or \
             `cargo clean -p aibo-motion`) and test again",
            if there { "" } else { "not " },
            if seen {
                "saw it"
            } else {
                "did not see it, and ignored its tests"
            }
        );
    }
}
