//! What the balance stage costs a build, on two shared takes (`../shared/mocap-samples`;
//! without them the benchmark says so and measures nothing): the build without the stage,
//! the stage alone (plan, per-row QP, keyframes), its proof (the static test's stances,
//! its report and the simulation at 80% torque), and the whole default build (stage,
//! proof and any repairs). The gait's share: the walks planned and laid on the grid
//! alone (steered by reckoning; the crawl and the trot felt on the simulated floor),
//! and the default build with `--gait off` (both takes travel); and the default build
//! with `--timing wait` (the performance waiting for the walks: longer motions).
//!
//! Run with `cargo bench --bench balance`; the ratios are the stage's and the proof's
//! times over the build's without them.

use aibo_motion::keyframes;
use aibo_motion::pipeline::{self, build, Balance, BuildOptions};
use aibo_motion::retarget::{self, locomotion};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{read, Clip, ReadOptions};
use aibo_motion::stability::gait::Style;
use aibo_motion::stability::walking::{self, Steering, Way};
use aibo_motion::stability::{physics, plan, stage::Stage, statics};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;

const TAKES: [&str; 2] = [
    "assimp__cmu_01_03.bvh",
    "bandai1__dance-short_normal_001.bvh",
];

fn clip(name: &str) -> Option<Clip> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/mocap-samples/bvh")
        .join(name);
    let data = std::fs::read(&path).ok()?;
    read(&path, &data, &ReadOptions::default()).ok()
}

fn balance(c: &mut Criterion) {
    let profile = Profile::builtin("ERS-7").unwrap();
    let off = BuildOptions {
        balance: Balance::Off,
        ..BuildOptions::default()
    };
    let on = BuildOptions::default();
    for name in TAKES {
        let Some(clip) = clip(name) else {
            eprintln!("{name}: not found under ../shared/mocap-samples/bvh; nothing measured");
            continue;
        };
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.bench_function("build without the stage", |b| {
            b.iter(|| build(black_box(&clip), &profile, &off).unwrap())
        });
        // The stage's own parts, on the same grid as the build.
        let tracks = retarget::retarget(&clip, &profile, &on.retarget).unwrap();
        let travel = locomotion::spans(&tracks.performer, tracks.frame_time);
        let grid = keyframes::grid(&tracks, &profile, &on.keyframes).unwrap();
        let neutral = retarget::neutral_pose(&profile, &on.retarget, &tracks);
        let margin = pipeline::default_margin(&profile);
        let velocities = locomotion::velocities(&tracks.performer, tracks.frame_time);
        let gains = plan::gains(&tracks, &profile);
        let balancing = pipeline::Balancing {
            tracks: &tracks,
            gains: &gains,
            velocities: &velocities,
            waits: &[],
            travel: &travel,
            grid: &grid,
            profile: &profile,
            options: &on,
            margin,
        };
        let planned = |stage: &Stage| pipeline::planned(stage, &balancing, Way::RECKONED_CRAWL);
        group.bench_function("the stage (plan, QP per row, keyframes)", |b| {
            b.iter(|| {
                let stage = Stage::new(&profile, grid.frame_ms, &neutral).unwrap();
                let pipeline::Planned { plan, grid, .. } = planned(&stage);
                let balanced = stage.balance(&grid, &plan, &vec![margin; grid.rows.len()]);
                keyframes::finish(&balanced.grid, &profile, &on.keyframes).unwrap()
            })
        });
        let stage = Stage::new(&profile, grid.frame_ms, &neutral).unwrap();
        let pipeline::Planned {
            plan, grid: padded, ..
        } = planned(&stage);
        let balanced = stage.balance(&padded, &plan, &vec![margin; padded.rows.len()]);
        let motion = keyframes::finish(&balanced.grid, &profile, &on.keyframes)
            .unwrap()
            .motion;
        group.bench_function("its proof (static test and simulation)", |b| {
            b.iter(|| {
                let stances = statics::stances(black_box(&motion), &profile).unwrap();
                let report = statics::report(&stances, &profile, margin);
                let torque = 0.8 * physics::SERVO_TORQUE_NM;
                let sim = physics::simulate_judged(&motion, &profile, torque, &stances).unwrap();
                (report, sim)
            })
        });
        group.bench_function("the gait alone (walks planned and laid on the grid)", |b| {
            b.iter(|| {
                let lead = plan.padding.lead;
                let walks = walking::plan(
                    walking::Performance {
                        travel: &travel,
                        tracks: &tracks,
                        velocities: &velocities,
                        waits: &[],
                        home_by_end: false,
                    },
                    &profile,
                    &padded,
                    lead,
                    Style::CRAWL,
                    // On the stance's spots, as `--stance-spots` walks.
                    [glam::DVec2::ZERO; 4],
                );
                let mut walked = balanced.grid.clone();
                walking::apply(&mut walked, black_box(&walks), &profile);
                walked
            })
        });
        // Felt, each walk plays on the simulated floor after the motion before it, which
        // the stage makes as far as the walk: the plan with it.
        for (name, style) in [
            (
                "the crawl felt on the simulated floor, planned",
                Style::CRAWL,
            ),
            ("the trot felt on the simulated floor, planned", Style::TROT),
        ] {
            let way = Way {
                style,
                steering: Steering::Felt,
            };
            group.bench_function(name, |b| {
                b.iter(|| {
                    let stage = Stage::new(&profile, grid.frame_ms, &neutral).unwrap();
                    pipeline::planned(&stage, &balancing, way)
                })
            });
        }
        group.bench_function("build with the stage (default)", |b| {
            b.iter(|| build(black_box(&clip), &profile, &on).unwrap())
        });
        let in_place = BuildOptions {
            locomotion: pipeline::Locomotion::InPlace,
            ..BuildOptions::default()
        };
        group.bench_function("build with the stage, --gait off", |b| {
            b.iter(|| build(black_box(&clip), &profile, &in_place).unwrap())
        });
        let waiting = BuildOptions {
            timing: pipeline::Timing::Wait,
            ..BuildOptions::default()
        };
        group.bench_function("build with the stage, --timing wait", |b| {
            b.iter(|| build(black_box(&clip), &profile, &waiting).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, balance);
criterion_main!(benches);
