//! `aibo-joint-server`: the simulated joint server. See `--help`.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::thread;

use anyhow::{bail, Context, Result};
use clap::Parser;
use firmware_bridge::sim::{self, Recorder, ServoModel};
use firmware_bridge::{Bridge, Config, Key, Model};

/// A simulated AIBO: the firmware bridge's core on a real 8 ms clock, with servos that
/// follow their commands at each joint's speed.
///
/// It speaks the aibo-motion link protocol (firmware-bridge/PROTOCOL.md) over TCP, a
/// serial device, or a pseudo-terminal it creates. The first line it prints on stdout
/// is where to connect (the TCP address, or the pty's path).
#[derive(Parser)]
#[command(
    group(clap::ArgGroup::new("transport").required(true).args(["tcp", "serial", "pty"])),
    version,
    after_help = "Examples:\n  \
    aibo-joint-server --pty --profile ERS-7 --record out.csv\n  \
    aibo-joint-server --tcp 127.0.0.1:7000 --profile ERS-210\n  \
    aibo-joint-server --serial /dev/ttyUSB0 --baud 115200 --profile ERS-7 --key aibo.key"
)]
struct Args {
    /// Listen on this TCP address (port 0 picks a free port; the address is printed).
    #[arg(long, value_name = "ADDR")]
    tcp: Option<SocketAddr>,
    /// Use this serial device.
    #[arg(long, value_name = "DEV")]
    serial: Option<String>,
    /// Create a pseudo-terminal pair and print the path a host connects to.
    #[arg(long)]
    pty: bool,
    /// Baud rate for --serial.
    #[arg(long, default_value_t = 115_200)]
    baud: u32,
    /// Robot model: ERS-210, ERS-220, ERS-7 or a design label (DRX-910, DRX-900, DRX-1000).
    #[arg(long, value_name = "MODEL")]
    profile: String,
    /// Write every 8 ms frame commanded anew as `t_us,<locator>…` in µrad; `t_us` is on
    /// the robot's clock (8 ms a tick), and holds write nothing.
    #[arg(long, value_name = "FILE.csv")]
    record: Option<PathBuf>,
    /// Accept only frames signed with this key (64 hex digits); replies are signed too.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// Posture the simulated servos start in.
    #[arg(long, default_value = "stand", value_name = "NAME")]
    start_posture: String,
    /// How long the watchdog holds the last pose before ramping to rest, ms.
    #[arg(long, default_value_t = 504, value_name = "MS")]
    hold_ms: u32,
    /// Listen on a non-loopback TCP address without a key.
    #[arg(long)]
    allow_remote: bool,
    /// Print only errors (not links coming and going, nor state changes).
    #[arg(short, long)]
    quiet: bool,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = serve(args) {
        eprintln!("aibo-joint-server: error: {e:#}");
        std::process::exit(2);
    }
}

fn serve(args: Args) -> Result<()> {
    let model = Model::find(&args.profile).with_context(|| {
        let known: Vec<_> = firmware_bridge::MODELS
            .iter()
            .map(|m| format!("{} ({})", m.name, m.design_label))
            .collect();
        format!(
            "unknown model {:?}; known: {}",
            args.profile,
            known.join(", ")
        )
    })?;
    let key = match &args.key {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading key {}", path.display()))?;
            Some(
                Key::from_file_bytes(&bytes)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
            )
        }
        None => None,
    };
    let start = model
        .posture(&args.start_posture)
        .with_context(|| {
            let names: Vec<_> = model.postures.iter().map(|p| p.name).collect();
            format!(
                "{} has no posture {:?}; it has {}",
                model.name,
                args.start_posture,
                names.join(", ")
            )
        })?
        .angles;
    // Fresh at every start, so a session recorded before cannot be played again.
    let mut entropy = [0u8; 32];
    getrandom::fill(&mut entropy).map_err(|e| anyhow::anyhow!("no random source: {e}"))?;
    let config = Config {
        key: key.clone(),
        entropy,
        hold_ticks: args.hold_ms.div_ceil(8),
        ..Config::default()
    };
    let mut bridge = Bridge::new(model, config, start);
    let mut servos = ServoModel::new(model, start);
    let recorder = match &args.record {
        Some(path) => Some(
            Recorder::create(path, model)
                .with_context(|| format!("creating {}", path.display()))?,
        ),
        None => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    if let Some(addr) = args.tcp {
        if !addr.ip().is_loopback() && key.is_none() && !args.allow_remote {
            bail!("{addr} is reachable from other machines and no --key is set: anyone on the network could move the robot. Use a key, a loopback address, or --allow-remote");
        }
        let listener = TcpListener::bind(addr).with_context(|| format!("listening on {addr}"))?;
        println!("{}", listener.local_addr()?);
        let stop = stop.clone();
        thread::spawn(move || sim::serve_tcp(listener, tx, stop));
    } else if let Some(dev) = &args.serial {
        let port = serialport::new(dev, args.baud)
            .open()
            .with_context(|| format!("opening {dev}"))?;
        println!("{dev}");
        let stop = stop.clone();
        thread::spawn(move || sim::serve_port(port, tx, stop));
    } else {
        let (master, slave) = serialport::TTYPort::pair().context("creating a pseudo-terminal")?;
        let path =
            serialport::SerialPort::name(&slave).context("the pseudo-terminal has no path")?;
        println!("{path}");
        let stop = stop.clone();
        // The slave end stays open here so the master never sees the pty hang up.
        thread::spawn(move || {
            let _slave = slave;
            sim::serve_port(Box::new(master), tx, stop)
        });
    }
    let quiet = args.quiet;
    let mut log = |line: &str| {
        if !quiet {
            eprintln!("aibo-joint-server: {line}");
        }
    };
    log(&format!(
        "{} ({}), {} joints, start posture {}, {}",
        model.name,
        model.design_label,
        model.joints.len(),
        args.start_posture,
        if key.is_some() {
            "signed frames only"
        } else {
            "no key"
        }
    ));
    let report = sim::run(&mut bridge, &mut servos, rx, recorder, stop, &mut log)?;
    log(&format!(
        "stopped after {} ticks, {} frames recorded",
        report.ticks, report.recorded
    ));
    Ok(())
}
