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
