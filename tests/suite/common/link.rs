//! A simulated joint server in-process (the firmware-bridge core on a real 8 ms clock)
//! and the motions the link tests play to it.

use aibo_motion::mtn::{self, Keyframe, Layout, Motion};
use aibo_motion::robot::profile::Profile;
use firmware_bridge::sim::{self, LinkEvent, Recorder, RunReport, ServoModel};
use firmware_bridge::{Bridge, Config, Model};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Link tests measure time: one server runs at a time, so that a busy machine running
/// many tests at once does not starve their clocks.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub struct Server {
    /// Where to connect: `host:port`, or the pty's path.
    pub address: String,
    pub record: PathBuf,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<(Bridge, RunReport)>>,
    pub log: Arc<Mutex<Vec<String>>>,
    /// The body attitude the bridge passed on with each pose it played (protocol 2).
    pub bodies: Arc<Mutex<Vec<Option<[i32; 2]>>>>,
    _dir: tempfile::TempDir,
    _turn: MutexGuard<'static, ()>,
}

pub enum Transport {
    Tcp,
    Pty,
}

impl Server {
    pub fn start(model: &str, config: Config, transport: Transport) -> Server {
        Server::start_timed(model, config, transport, sim::Timing::Servo)
    }

    /// [`Server::start`] with the clock woken as `timing` says (`Timing::Openr`: four
    /// ticks every 32 ms, as the robot's OPEN-R object runs).
    pub fn start_timed(
        model: &str,
        config: Config,
        transport: Transport,
        timing: sim::Timing,
    ) -> Server {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let model = Model::find(model).expect("known model");
        let stand = model.posture("stand").unwrap().angles;
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("record.csv");
        let recorder = Recorder::create(&record, model).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel::<LinkEvent>();
        let address = match transport {
            Transport::Tcp => {
                let listener = TcpListener::bind("127.0.0.1:0").unwrap();
                let address = listener.local_addr().unwrap().to_string();
                let stop = stop.clone();
                std::thread::spawn(move || sim::serve_tcp(listener, tx, stop));
                address
            }
            Transport::Pty => {
                let (master, slave) = serialport::TTYPort::pair().unwrap();
                let path = serialport::SerialPort::name(&slave).unwrap();
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let _slave = slave;
                    sim::serve_port(Box::new(master), tx, stop)
                });
                path
            }
        };
        let log = Arc::new(Mutex::new(Vec::new()));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let handle = {
            let stop = stop.clone();
            let log = log.clone();
            let bodies = bodies.clone();
            std::thread::spawn(move || {
                let mut bridge = Bridge::new(model, config, stand);
                let mut servos = ServoModel::new(model, stand);
                let report = sim::run_watching(
                    &mut bridge,
                    &mut servos,
                    rx,
                    Some(recorder),
                    stop,
                    timing,
                    &mut |l| log.lock().unwrap().push(l.to_string()),
                    &mut |output, _| {
                        if output.kind == firmware_bridge::bridge::OutputKind::Played {
                            bodies.lock().unwrap().push(output.body);
                        }
                    },
                )
                .unwrap();
                (bridge, report)
            })
        };
        Server {
            address,
            record,
            stop,
            handle: Some(handle),
            log,
            bodies,
            _dir: dir,
            _turn: turn,
        }
    }

    /// Stops the clock; returns the bridge as it ended and the recorded rows.
    pub fn stop(mut self) -> (Bridge, RunReport, Vec<Row>) {
        self.stop.store(true, Ordering::Relaxed);
        let (bridge, report) = self.handle.take().unwrap().join().unwrap();
        let rows = read_record(&self.record);
        (bridge, report, rows)
    }
}

/// One recorded frame: when (µs from the first) and the angles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub t_us: u64,
    pub pose: Vec<i32>,
}

pub fn read_record(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let mut v = l.split(',');
            let t_us = v.next().unwrap().parse().unwrap();
            Row {
                t_us,
                pose: v.map(|x| x.parse().unwrap()).collect(),
            }
        })
        .collect()
}

/// A two-second ERS-7 motion from and back to the stand posture (where the simulated
/// servos start), within every limit and speed, with segments whose interpolation
/// leaves truncation remainders.
pub fn ers7_motion() -> Motion {
    let profile = Profile::builtin("ERS-7").unwrap();
    let stand: Vec<i32> = profile.postures["stand"]
        .joints
        .iter()
        .map(|&r| (r * 1e6).round() as i32)
        .collect();
    let moved = |changes: &[(&str, i32)]| {
        let mut joints = stand.clone();
        for (name, urad) in changes {
            let i = profile.joint_index(name).unwrap();
            joints[i] += urad;
        }
        joints
    };
    // Each keyframe's body attitude its own, for the stream to carry (protocol 2).
    let attitude = std::cell::Cell::new(0);
    let kf = |frames_before: u32, joints: Vec<i32>| {
        attitude.set(attitude.get() + 1);
        Keyframe {
            frames_before,
            roll: 3_001 * attitude.get(),
            pitch: -17_453 - 5_003 * attitude.get(),
            yaw: 0,
            joints,
        }
    };
    Motion {
        name: "a_stand#stand_link".into(),
        creator: "aibo-motion tests".into(),
        design_label: "DRX-1000".into(),
        frame_ms: 16,
        locators: profile.joints.iter().map(|j| j.locator.clone()).collect(),
        keyframes: vec![
            kf(0, stand.clone()),
            kf(20, moved(&[("head_pan", 523_597), ("lf_j1", -300_001)])),
            kf(
                7,
                moved(&[
                    ("head_pan", 400_003),
                    ("head_tilt", -200_017),
                    ("tail_pan", 100_000),
                ]),
            ),
            kf(0, moved(&[("head_pan", 390_000), ("head_tilt", -200_000)])),
            kf(30, moved(&[("rf_j1", -412_345), ("rf_j3", 333_331)])),
            kf(25, stand.clone()),
        ],
        layout: Layout::default(),
    }
}

/// The motion's dense 8 ms frames, `loops` times over: what the robot must apply.
pub fn dense(motion: &Motion, loops: usize) -> Vec<Vec<i32>> {
    let once: Vec<Vec<i32>> = mtn::dense_frames(motion).map(|f| f.joints).collect();
    once.iter()
        .cycle()
        .take(once.len() * loops)
        .cloned()
        .collect()
}
