//! `aibo-joint-server`: the simulated joint server. See `--help`.

mod physics;
mod rcode;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::thread;

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, Parser};
use firmware_bridge::sim::{self, Recorder, ServoModel};
use firmware_bridge::{Bridge, Config, Key, Model};

/// A simulated AIBO: the firmware bridge's core on a real 8 ms clock, with servos that
/// follow their commands at each joint's speed.
///
/// It speaks the aibo-motion link protocol (firmware-bridge/PROTOCOL.md) over TCP, a
/// serial device, or a pseudo-terminal it creates; or, with --rcode, R-CODE's wireless
/// console, playing the user actions of an R-CODE stick as a robot running R-CODE would.
/// The first line it prints on stdout is where to connect (the TCP address, or the pty's
/// path).
#[derive(Parser)]
#[command(
    name = "aibo-joint-server",
    group(clap::ArgGroup::new("transport").args(["tcp", "serial", "pty", "rcode"])),
    override_usage = "aibo-joint-server <--tcp <ADDR>|--serial <DEV>|--pty> --profile <MODEL> [OPTIONS]\n       \
                      aibo-joint-server --rcode <ADDR> --stick <DIR> [OPTIONS]\n       \
                      aibo-joint-server --completions <SHELL> | --man",
    version,
    after_help = "Examples:\n  \
    aibo-joint-server --pty --profile ERS-7 --record out.csv\n  \
    aibo-joint-server --tcp 127.0.0.1:7000 --profile ERS-210\n  \
    aibo-joint-server --serial /dev/ttyUSB0 --baud 115200 --profile ERS-7 --key aibo.key\n  \
    aibo-joint-server --rcode 127.0.0.1:21002 --stick /media/MEMSTICK --record out.csv"
)]
struct Args {
    /// Listen on this TCP address (port 0 picks a free port; the address is printed).
    /// One host at a time: a host that connects takes the robot over from the one before,
    /// which is answered no more (the robot holds its pose, as when a link drops).
    #[arg(long, value_name = "ADDR")]
    tcp: Option<SocketAddr>,
    /// Use this serial device.
    #[arg(long, value_name = "DEV")]
    serial: Option<String>,
    /// Create a pseudo-terminal pair and print the path a host connects to.
    #[arg(long)]
    pty: bool,
    /// Be a robot running R-CODE: its wireless console on this TCP address (a robot's is
    /// port 21002), playing the user actions of the stick at --stick (PLAY:ACTION,
    /// PLAY:MWCID, WAIT, STOP, QUIT, @DISS).
    #[arg(long, value_name = "ADDR", requires = "stick")]
    rcode: Option<SocketAddr>,
    /// The R-CODE stick (its root, or a folder holding OPEN-R) whose actions --rcode
    /// plays; it gives the model.
    #[arg(long, value_name = "DIR", requires = "rcode")]
    stick: Option<PathBuf>,
    /// Baud rate for --serial.
    #[arg(long, default_value_t = 115_200)]
    baud: u32,
    /// Robot model: ERS-210, ERS-220, ERS-7 or a design label (DRX-910, DRX-900, DRX-1000).
    /// With --stick, the stick's model unless given.
    #[arg(long, value_name = "MODEL", required_unless_present_any = ["stick", "completions", "man"])]
    profile: Option<String>,
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
    /// Also move a simulated body on a floor (rigid bodies, as `aibo-motion simulate`)
    /// with the servos' commands, and say when the robot falls and gets up.
    #[arg(long)]
    physics: bool,
    /// Run the bridge as the OPEN-R object does on a robot: four 8 ms frames back to back
    /// every 32 ms (one command vector per Ready()), with the object's settings (a 512 ms
    /// jitter buffer, 4 stored motions of up to 2048 keyframes). The record is what the
    /// robot's effectors would receive.
    #[arg(long)]
    openr_timing: bool,
    /// Listen on a non-loopback TCP address without a key.
    #[arg(long)]
    allow_remote: bool,
    /// Print only errors (not links coming and going, nor state changes).
    #[arg(short, long)]
    quiet: bool,
    /// Print a shell completion script for aibo-joint-server and exit (install it as the
    /// README shows for aibo-motion's).
    #[arg(long, value_name = "SHELL", exclusive = true)]
    completions: Option<clap_complete::Shell>,
    /// Print the manual page (roff) and exit: `aibo-joint-server --man >
    /// ~/.cargo/share/man/man1/aibo-joint-server.1`.
    #[arg(long, exclusive = true)]
    man: bool,
}

fn main() {
    let args = Args::parse();
    if let Some(shell) = args.completions {
        let script =
            aibo_motion::docs::completion(shell, &mut Args::command(), "aibo-joint-server");
        print_and_exit(&script);
    }
    // One of them is required; not as a clap group, which would hold for --man too.
    let transport = args.tcp.is_some() || args.serial.is_some() || args.pty || args.rcode.is_some();
    if !(transport || args.man) {
        Args::command()
            .error(
                clap::error::ErrorKind::MissingRequiredArgument,
                "one of --tcp ADDR, --serial DEV, --pty or --rcode ADDR is needed",
            )
            .exit();
    }
    if args.man {
        match aibo_motion::docs::manual_pages(Args::command()) {
            Ok(pages) => print_and_exit(&pages[0].1),
            Err(e) => {
                eprintln!("aibo-joint-server: error: {e}");
                std::process::exit(2);
            }
        }
    }
    if let Err(e) = serve(args) {
        eprintln!("aibo-joint-server: error: {e:#}");
        std::process::exit(2);
    }
}

/// Writes `bytes` to stdout and exits (0, or 2 when stdout fails but for a closed pipe).
fn print_and_exit(bytes: &[u8]) -> ! {
    match aibo_motion::fsio::write_bytes(std::path::Path::new("-"), &[], bytes) {
        Ok(_) => std::process::exit(0),
        Err(e) => {
            eprintln!("aibo-joint-server: error: {e}");
            std::process::exit(2);
        }
    }
}

fn serve(args: Args) -> Result<()> {
    let stick = match &args.stick {
        Some(dir) => Some(aibo_motion::stick::tree::Stick::open(dir)?),
        None => None,
    };
    let profile = match (&args.profile, &stick) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => s.model.clone(),
        (None, None) => bail!("--profile MODEL is needed"),
    };
    let model = Model::find(&profile).with_context(|| {
        let known: Vec<_> = firmware_bridge::MODELS
            .iter()
            .map(|m| format!("{} ({})", m.name, m.design_label))
            .collect();
        format!("unknown model {profile:?}; known: {}", known.join(", "))
    })?;
    if let Some(s) = &stick {
        if Model::find(&s.model) != Some(model) {
            bail!(
                "the stick at {} is an {} stick, not an {}",
                s.root.display(),
                s.model,
                model.name
            );
        }
    }
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
    let (timing, base) = if args.openr_timing {
        (sim::Timing::Openr, Config::robot())
    } else {
        (sim::Timing::Servo, Config::default())
    };
    let config = Config {
        key: key.clone(),
        entropy,
        hold_ticks: args.hold_ms.div_ceil(8),
        ..base
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
    if let (Some(console), Some(stick)) = (args.rcode, &stick) {
        if !console.ip().is_loopback() && !args.allow_remote {
            bail!("{console} is reachable from other machines, and R-CODE's console has no key: anyone on the network could move the robot. Use a loopback address, or --allow-remote");
        }
        let console =
            TcpListener::bind(console).with_context(|| format!("listening on {console}"))?;
        // The bridge core's own link, which the console's player uses, stays on loopback.
        let link = TcpListener::bind("127.0.0.1:0").context("listening on loopback")?;
        let robot = Arc::new(rcode::Robot {
            stick: stick.root.clone(),
            model,
            bridge: link.local_addr()?,
            key: key.clone(),
            pose: std::sync::Mutex::new(start.to_vec()),
            quiet: args.quiet,
        });
        println!("{}", console.local_addr()?);
        let stop = stop.clone();
        thread::spawn(move || sim::serve_tcp(link, tx, stop));
        thread::spawn(move || rcode::serve(console, robot));
    } else if let Some(addr) = args.tcp {
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
            eprintln!("aibo-joint-server: {}", aibo_motion::terminal::shown(line));
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
    let mut body = if args.physics {
        let body = physics::Body::new(model.name, &args.start_posture, start)?;
        log("physics: the servos move a simulated body on a floor");
        Some(body)
    } else {
        None
    };
    let report = sim::run_watching(
        &mut bridge,
        &mut servos,
        rx,
        recorder,
        stop,
        timing,
        &mut log,
        &mut |output, log| {
            if let Some(b) = body.as_mut() {
                b.tick(output, log);
            }
        },
    )?;
    log(&format!(
        "stopped after {} ticks, {} frames recorded",
        report.ticks, report.recorded
    ));
    if let Some(b) = &body {
        log(&match b.falls {
            0 => "physics: the robot stayed on its feet".to_string(),
            n => format!(
                "physics: the robot fell {n} time{}",
                if n == 1 { "" } else { "s" }
            ),
        });
    }
    Ok(())
}
