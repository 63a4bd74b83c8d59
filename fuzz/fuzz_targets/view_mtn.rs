//! Any MTN that decodes can be plotted, previewed (animated, still, HTML) and exported
//! without a panic, whatever its joint count, values or segment lengths.
#![no_main]

use aibo_motion::mtn;
use aibo_motion::robot::profile::Profile;
use aibo_motion::view::{export, plot, preview};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = mtn::decode(data) else {
        return;
    };
    let motion = decoded.motion;
    let profile = Profile::for_design_label(&motion.design_label)
        .or_else(|| Profile::builtin("ERS-7"))
        .expect("built-in profiles");
    let _ = plot::svg(&motion, &profile, "fuzz");
    let kinematic = preview::Figure::Kinematic;
    let _ = preview::svg(&motion, &profile, "fuzz", None, kinematic, &mut |_, _| {});
    let _ = preview::svg(
        &motion,
        &profile,
        "fuzz",
        Some(1.5),
        kinematic,
        &mut |_, _| {},
    );
    let _ = preview::html(&motion, &profile, "fuzz", kinematic, &mut |_, _| {});
    // Exports write every frame (up to a million, ~230 MB of text): only short ones
    // here, so the fuzzer spends its time on variety rather than on writing.
    if mtn::dense_frame_count(&motion) <= 20_000 {
        let _ = export::bvh(&motion, &profile, export::Rate::Grid, None);
    }
});
