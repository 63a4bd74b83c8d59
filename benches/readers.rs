//! Reader throughput on real files from `../shared/mocap-samples` (skipped with a notice
//! when that folder is absent): our BVH reader against the `bvh_anim` crate on the
//! largest BVH, our AMC reader on CMU 01_01, and the whole `build` of the largest BVH
//! against reading it alone.
//!
//! Run with `cargo bench --bench readers`.

use aibo_motion::keyframes::Options;
use aibo_motion::mtn;
use aibo_motion::pipeline::{build, BuildOptions};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{amc, asf, bvh};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::Path;

fn samples() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap-samples");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: ../shared/mocap-samples not found");
        None
    }
}

fn bvh_readers(c: &mut Criterion) {
    let Some(dir) = samples() else { return };
    let data = std::fs::read(dir.join("bvh/assimp__cmu_01_03.bvh")).unwrap();
    let mut group = c.benchmark_group("bvh cmu_01_03 (3.4 MB)");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(30);
    group.bench_function("aibo-motion", |b| {
        b.iter(|| bvh::read(black_box(&data)).unwrap())
    });
    group.bench_function("bvh_anim 0.4", |b| {
        b.iter(|| bvh_anim::from_bytes(black_box(&data[..])).unwrap())
    });
    group.finish();
}

fn amc_reader(c: &mut Criterion) {
    let Some(dir) = samples() else { return };
    let skeleton = asf::read(&std::fs::read(dir.join("asf-amc/cmu_01.asf")).unwrap()).unwrap();
    let data = std::fs::read(dir.join("asf-amc/cmu_01_01.amc")).unwrap();
    let mut group = c.benchmark_group("amc cmu_01_01 (2.2 MB)");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(30);
    group.bench_function("aibo-motion", |b| {
        b.iter(|| amc::read(&skeleton, black_box(&data), 120.0).unwrap())
    });
    group.finish();
}

/// The whole `build` (read, retarget, keyframes, encode) against reading alone.
fn build_end_to_end(c: &mut Criterion) {
    let Some(dir) = samples() else { return };
    let data = std::fs::read(dir.join("bvh/assimp__cmu_01_03.bvh")).unwrap();
    let profile = Profile::builtin("ERS-7").unwrap();
    let options = BuildOptions {
        keyframes: Options {
            name: "a_stand#stand_cmu_01_03".into(),
            ..Options::default()
        },
        ..BuildOptions::default()
    };
    let mut group = c.benchmark_group("build cmu_01_03 for the ERS-7");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(20);
    group.bench_function("parse only", |b| {
        b.iter(|| bvh::read(black_box(&data)).unwrap())
    });
    group.bench_function("build", |b| {
        b.iter(|| {
            let clip = bvh::read(black_box(&data)).unwrap();
            let built = build(&clip, &profile, &options).unwrap();
            mtn::encode(&built.motion).unwrap()
        })
    });
    // The legs following the paws by inverse kinematics, against the angles above.
    let ik = BuildOptions {
        retarget: aibo_motion::retarget::Options {
            legs: aibo_motion::retarget::LegMode::Ik,
            ..Default::default()
        },
        ..options.clone()
    };
    group.bench_function("build --legs ik", |b| {
        b.iter(|| {
            let clip = bvh::read(black_box(&data)).unwrap();
            let built = build(&clip, &profile, &ik).unwrap();
            mtn::encode(&built.motion).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bvh_readers, amc_reader, build_end_to_end);
criterion_main!(benches);
