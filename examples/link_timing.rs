//! Link timing: plays a long motion to an in-process simulated joint server over TCP
//! loopback and reports how late the host sent each 16 ms frame against its schedule,
//! and how late the bridge's 8 ms clock ran.
//!
//! cargo run --release --example link_timing -- [SECONDS, default 40]

use aibo_motion::link::{self, Endpoint, PlayOptions};
use aibo_motion::mtn::{Keyframe, Layout, Motion};
use firmware_bridge::sim::{self, Recorder, ServoModel};
use firmware_bridge::{Bridge, Config, Model};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

/// p50, p99, max in milliseconds.
fn percentiles_ms(v: &[u64]) -> (f64, f64, f64) {
    let (a, b, c) = link::percentiles(v).expect("samples");
    (a as f64 / 1e3, b as f64 / 1e3, c as f64 / 1e3)
}

fn main() {
    let seconds: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let model = Model::find("ERS-7").unwrap();
    let stand = model.posture("stand").unwrap().angles;
    // Head pan swings ±30° once a second (62 frames of 16 ms per segment).
    let keyframes = (0..=seconds)
        .map(|s| {
            let mut joints = stand.to_vec();
            joints[1] = if s == 0 || s == seconds {
                0
            } else if s % 2 == 0 {
                523_599
            } else {
                -523_599
            };
            Keyframe {
                frames_before: if s == 0 { 0 } else { 61 },
                roll: 0,
                pitch: 0,
                yaw: 0,
                joints,
            }
        })
        .collect();
    let motion = Motion {
        name: "a_stand#stand_timing".into(),
        creator: "link_timing".into(),
        design_label: model.design_label.into(),
        frame_ms: 16,
        locators: model.joints.iter().map(|j| j.locator.to_string()).collect(),
        keyframes,
        layout: Layout::default(),
    };

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.csv");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    {
        let stop = stop.clone();
        std::thread::spawn(move || sim::serve_tcp(listener, tx, stop));
    }
    let server = {
        let stop = stop.clone();
        let recorder = Recorder::create(&record, model).unwrap();
        std::thread::spawn(move || {
            let mut bridge = Bridge::new(model, Config::default(), stand);
            let mut servos = ServoModel::new(model, stand);
            sim::run(
                &mut bridge,
                &mut servos,
                rx,
                Some(recorder),
                stop,
                &mut |_| {},
            )
            .unwrap()
        })
    };

    let report = link::play(
        &motion,
        &PlayOptions::new(Endpoint::Tcp(address)),
        &mut |_| {},
    )
    .unwrap();
    stop.store(true, Ordering::Relaxed);
    let run = server.join().unwrap();

    let (p50, p99, max) = percentiles_ms(&report.lateness_us);
    println!(
        "host: {} frames of 16 ms sent, {} skipped; lateness against the schedule p50 {p50:.3} ms, p99 {p99:.3} ms, max {max:.3} ms",
        report.frames_sent, report.frames_skipped
    );
    let n = report.lateness_us.len();
    let tenth = n / 10;
    let mean = |s: &[u64]| s.iter().sum::<u64>() as f64 / s.len().max(1) as f64 / 1e3;
    println!(
        "host drift: mean lateness {:.3} ms over the first tenth, {:.3} ms over the last",
        mean(&report.lateness_us[..tenth]),
        mean(&report.lateness_us[n - tenth..])
    );
    // The record is on the robot's clock (8 ms a tick); how late the clock itself ran
    // is the server's own measure.
    let rows = std::fs::read_to_string(&record).unwrap().lines().count() - 1;
    let late = |q: f64| run.lateness.percentile_us(q).unwrap_or(0) as f64 / 1e3;
    println!(
        "bridge: {rows} frames applied, {} ticks of 8 ms; each tick late against its schedule p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        run.ticks,
        late(0.5),
        late(0.99),
        run.lateness.max_us() as f64 / 1e3
    );
}
