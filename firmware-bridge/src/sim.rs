//! The simulated joint server: the bridge core against a simulated robot, on a real
//! 8 ms clock, over TCP, a serial device or a pseudo-terminal.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::bridge::{Bridge, Output, OutputKind, State};
use crate::model::Model;
use crate::TICK_US;

/// Servos that follow their commands at each joint's top speed.
#[derive(Debug, Clone)]
pub struct ServoModel {
    model: &'static Model,
    position: Vec<i32>,
}

impl ServoModel {
    pub fn new(model: &'static Model, start: &[i32]) -> ServoModel {
        ServoModel {
            model,
            position: start.to_vec(),
        }
    }

    pub fn position(&self) -> &[i32] {
        &self.position
    }

    /// One 8 ms step toward `command` (or none when the gains are off).
    pub fn follow(&mut self, output: &Output<'_>) {
        if output.kind == OutputKind::Relaxed {
            return;
        }
        for ((p, &c), j) in self
            .position
            .iter_mut()
            .zip(output.pose)
            .zip(self.model.joints)
        {
            let d = i64::from(c) - i64::from(*p);
            let step = if j.max_step == 0 {
                d
            } else {
                d.clamp(-i64::from(j.max_step), i64::from(j.max_step))
            };
            *p = (i64::from(*p) + step) as i32;
        }
    }
}

/// Writes every frame the bridge commands anew (played or ramped) as
/// `t_us,<locator>…` in µrad; `t_us` counts from the first such frame on the robot's
/// own clock (8 ms a tick), so a record says what the robot did whatever the machine's
/// load (how late the clock ran is [`RunReport::lateness`]). While the bridge holds
/// nothing changes and nothing is written, so a gap in `t_us` is a hold.
///
/// A recording is a log: rows go to the file as they happen and are flushed, so that it
/// survives the server being killed (rather than being written at the end, atomically).
pub struct Recorder {
    out: io::BufWriter<std::fs::File>,
    /// The bridge's tick of the first row.
    start: Option<u64>,
    pub rows: u64,
}

impl Recorder {
    pub fn create(path: &Path, model: &Model) -> io::Result<Recorder> {
        let mut out = io::BufWriter::new(std::fs::File::create(path)?);
        write!(out, "t_us")?;
        for j in model.joints {
            write!(out, ",{}", j.locator)?;
        }
        writeln!(out)?;
        out.flush()?;
        Ok(Recorder {
            out,
            start: None,
            rows: 0,
        })
    }

    pub fn record(&mut self, output: &Output<'_>) -> io::Result<()> {
        if !matches!(output.kind, OutputKind::Played | OutputKind::Ramped) {
            return Ok(());
        }
        let start = *self.start.get_or_insert(output.tick);
        write!(self.out, "{}", (output.tick - start) * TICK_US)?;
        for v in output.pose {
            write!(self.out, ",{v}")?;
        }
        writeln!(self.out)?;
        self.rows += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What the transport threads tell the clock loop.
/// Each carries the connection's number: only the newest connection is listened to.
pub enum LinkEvent {
    /// A peer connected; replies go to this writer.
    Connected(u64, Box<dyn Write + Send>, String),
    /// Bytes from the peer, and when they arrived: the clock loop hands them to the
    /// bridge at the tick they arrived in, even when it runs late.
    Bytes(u64, Vec<u8>, Instant),
    Disconnected(u64, String),
}

/// Accepts TCP clients one at a time (a new client replaces the old) and forwards bytes.
pub fn serve_tcp(listener: TcpListener, events: Sender<LinkEvent>, stop: Arc<AtomicBool>) {
    listener.set_nonblocking(true).ok();
    let mut id = 0;
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                stream.set_nonblocking(false).ok();
                stream.set_nodelay(true).ok();
                let Ok(writer) = stream.try_clone() else {
                    continue;
                };
                id += 1;
                if events
                    .send(LinkEvent::Connected(id, Box::new(writer), peer.to_string()))
                    .is_err()
                {
                    return;
                }
                let events = events.clone();
                let stop = stop.clone();
                thread::spawn(move || forward(id, stream, peer, events, stop));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(5))
            }
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn forward(
    id: u64,
    mut stream: TcpStream,
    peer: SocketAddr,
    events: Sender<LinkEvent>,
    stop: Arc<AtomicBool>,
) {
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .ok();
    let mut buf = [0u8; 4096];
    let why = loop {
        if stop.load(Ordering::Relaxed) {
            break "server stopping".to_string();
        }
        match stream.read(&mut buf) {
            Ok(0) => break "closed by the host".to_string(),
            Ok(n) => {
                if events
                    .send(LinkEvent::Bytes(id, buf[..n].to_vec(), Instant::now()))
                    .is_err()
                {
                    return;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => break e.to_string(),
        }
    };
    let _ = events.send(LinkEvent::Disconnected(id, format!("{peer}: {why}")));
}

/// Forwards bytes from a serial port or pty (which never "disconnects").
pub fn serve_port(
    mut port: Box<dyn serialport::SerialPort>,
    events: Sender<LinkEvent>,
    stop: Arc<AtomicBool>,
) {
    port.set_timeout(Duration::from_millis(100)).ok();
    let Ok(writer) = port.try_clone() else {
        let _ = events.send(LinkEvent::Disconnected(
            0,
            "the port cannot be written".into(),
        ));
        return;
    };
    let name = port.name().unwrap_or_else(|| "serial port".into());
    if events
        .send(LinkEvent::Connected(0, Box::new(PortWriter(writer)), name))
        .is_err()
    {
        return;
    }
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        match port.read(&mut buf) {
            Ok(0) => thread::sleep(Duration::from_millis(5)),
            Ok(n) => {
                let bytes = LinkEvent::Bytes(0, buf[..n].to_vec(), Instant::now());
                if events.send(bytes).is_err() {
                    return;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                ) => {}
            // A pty master reads EIO while no one has the other end open: wait for one.
            Err(_) => thread::sleep(Duration::from_millis(20)),
        }
    }
}

struct PortWriter(Box<dyn serialport::SerialPort>);

impl Write for PortWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// What a run of the clock loop saw.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub ticks: u64,
    pub recorded: u64,
    /// How late each tick ran against its 8 ms schedule.
    pub lateness: Lateness,
}

/// A histogram of lateness in 10 µs steps up to 10 ms (later ones share the last
/// step), so a server left running for days keeps a fixed size.
#[derive(Debug, Clone)]
pub struct Lateness {
    counts: Vec<u64>,
    max_us: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: vec![0; Self::STEPS],
            max_us: 0,
        }
    }
}

impl Lateness {
    const STEP_US: u64 = 10;
    const STEPS: usize = 1_001;

    pub fn add(&mut self, late: Duration) {
        let us = late.as_micros().min(u128::from(u64::MAX)) as u64;
        let step = ((us / Self::STEP_US) as usize).min(Self::STEPS - 1);
        self.counts[step] += 1;
        self.max_us = self.max_us.max(us);
    }

    /// The lateness (µs, to 10 µs) that a share `q` (0 to 1) of the ticks did not
    /// exceed; `None` before any tick.
    pub fn percentile_us(&self, q: f64) -> Option<u64> {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((total as f64 * q.clamp(0.0, 1.0)).ceil() as u64).max(1);
        let mut seen = 0;
        for (step, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some((step as u64 * Self::STEP_US).min(self.max_us));
            }
        }
        Some(self.max_us)
    }

    pub fn max_us(&self) -> u64 {
        self.max_us
    }
}

/// How the clock wakes the bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// One tick every 8 ms, as a microcontroller's timer runs it.
    Servo,
    /// Four ticks back to back every 32 ms, as the OPEN-R object runs it: OVirtualRobotComm
    /// asks for a vector of four 8 ms frames at a time (`firmware-bridge/openr`). Bytes
    /// reach the bridge as they arrive, between the wake-ups.
    Openr,
}

impl Timing {
    /// Ticks run at each wake-up.
    pub fn ticks_per_wakeup(self) -> u64 {
        match self {
            Timing::Servo => 1,
            Timing::Openr => 4,
        }
    }
}

/// Runs the bridge on an 8 ms clock until `stop` is set; returns what it saw.
/// State changes are logged through `log` (a line each).
pub fn run(
    bridge: &mut Bridge,
    servos: &mut ServoModel,
    events: Receiver<LinkEvent>,
    recorder: Option<Recorder>,
    stop: Arc<AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> io::Result<RunReport> {
    run_watching(
        bridge,
        servos,
        events,
        recorder,
        stop,
        Timing::Servo,
        log,
        &mut |_, _| {},
    )
}

/// What [`run_watching`] hands each tick's output to, with the log.
pub type Watcher<'a> = dyn FnMut(&Output<'_>, &mut dyn FnMut(&str)) + 'a;

/// [`run`], handing every tick's output to `watch` as well (with the log), as a simulated
/// body that the servos move does.
#[allow(clippy::too_many_arguments)]
pub fn run_watching(
    bridge: &mut Bridge,
    servos: &mut ServoModel,
    events: Receiver<LinkEvent>,
    mut recorder: Option<Recorder>,
    stop: Arc<AtomicBool>,
    timing: Timing,
    log: &mut dyn FnMut(&str),
    watch: &mut Watcher<'_>,
) -> io::Result<RunReport> {
    let mut link = Link {
        id: u64::MAX,
        writer: None,
        outbox: Vec::new(),
    };
    let mut report = RunReport::default();
    let tick = Duration::from_micros(TICK_US);
    let start = Instant::now();
    let mut last_state = bridge.state();
    // An event that arrived after the tick at hand, kept for its own tick.
    let mut waiting: Option<LinkEvent> = None;
    let batch = timing.ticks_per_wakeup();
    while !stop.load(Ordering::Relaxed) {
        let deadline = start + tick * report.ticks as u32;
        // Hand over what has arrived up to this tick's deadline. On a busy machine this
        // loop can run late, but bytes still reach the bridge at the tick they arrived
        // in, so what the robot does depends on when bytes came, not on when this thread
        // got to run.
        loop {
            let e = match waiting.take() {
                Some(e) => e,
                None => match next_event(&events, deadline) {
                    Next::Event(e) => e,
                    Next::Tick => break,
                    Next::Closed => return Ok(report),
                },
            };
            if let LinkEvent::Bytes(_, _, at) = &e {
                if *at > deadline && Instant::now() >= deadline {
                    waiting = Some(e);
                    break;
                }
            }
            handle_event(e, bridge, &mut link, log);
        }
        report
            .lateness
            .add(Instant::now().saturating_duration_since(deadline));
        for _ in 0..batch {
            let output = bridge.tick(&mut |bytes| link.outbox.extend_from_slice(bytes));
            servos.follow(&output);
            watch(&output, log);
            if let Some(r) = &mut recorder {
                let before = r.rows;
                r.record(&output)?;
                if r.rows != before {
                    r.flush()?;
                }
            }
            bridge.set_measured(servos.position());
            report.ticks += 1;
            let state = bridge.state();
            if state != last_state {
                log(&format!("state: {}", state.name()));
                if state == State::Relaxed {
                    log("relaxed: gains off at the rest posture");
                }
                last_state = state;
            }
        }
        link.send_outbox();
    }
    if let Some(r) = &mut recorder {
        r.flush()?;
        report.recorded = r.rows;
    }
    Ok(report)
}

enum Next {
    Event(LinkEvent),
    /// Nothing more before the deadline: time to tick.
    Tick,
    /// Every transport has gone.
    Closed,
}

/// The next event, waiting for one until `deadline` (sleeping, then spinning for the
/// last 0.7 ms); past the deadline, only what has already arrived.
fn next_event(events: &Receiver<LinkEvent>, deadline: Instant) -> Next {
    loop {
        let now = Instant::now();
        let wait = deadline
            .saturating_duration_since(now)
            .saturating_sub(Duration::from_micros(700));
        let got = if wait.is_zero() {
            events.try_recv().map_err(|e| match e {
                mpsc::TryRecvError::Empty => RecvTimeoutError::Timeout,
                mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
            })
        } else {
            events.recv_timeout(wait)
        };
        match got {
            Ok(e) => return Next::Event(e),
            Err(RecvTimeoutError::Disconnected) => return Next::Closed,
            Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => return Next::Tick,
            Err(RecvTimeoutError::Timeout) => {
                if wait.is_zero() {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

/// The connection replies go to.
struct Link {
    id: u64,
    writer: Option<Box<dyn Write + Send>>,
    /// Replies waiting to be written, reused from tick to tick.
    outbox: Vec<u8>,
}

impl Link {
    /// Writes and empties the outbox (a link that fails to write is dropped).
    fn send_outbox(&mut self) {
        if self.outbox.is_empty() {
            return;
        }
        if let Some(w) = &mut self.writer {
            if w.write_all(&self.outbox).and_then(|()| w.flush()).is_err() {
                self.writer = None;
            }
        }
        self.outbox.clear();
    }
}

fn handle_event(e: LinkEvent, bridge: &mut Bridge, link: &mut Link, log: &mut dyn FnMut(&str)) {
    match e {
        LinkEvent::Connected(id, w, who) => {
            log(&format!("link up: {who}"));
            bridge.link_lost();
            link.id = id;
            link.writer = Some(w);
        }
        LinkEvent::Bytes(id, bytes, _) if id == link.id => {
            bridge.receive(&bytes, &mut |b| link.outbox.extend_from_slice(b));
            link.send_outbox();
        }
        LinkEvent::Disconnected(id, why) if id == link.id => {
            log(&format!("link down: {why}"));
            bridge.link_lost();
            link.writer = None;
        }
        LinkEvent::Bytes(..) | LinkEvent::Disconnected(..) => {}
    }
}
