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
mod wifi_link;
