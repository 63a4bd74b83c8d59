//! `--rcode`: the simulated robot as an owner reaches a real one, through R-CODE's wireless
//! console. Lines in, one `<READY>` per command taken:
//!
//! - `PLAY:ACTION:<name>` (or `PLAY:ACTION+:<name>`), `PLAY:MWCID:<n>`: look the action up
//!   on the stick as R-CODE does, walk to its start posture, and play it. The command is
//!   taken at once; the action plays on.
//! - `WAIT`: answers when the action has ended. `STOP`: the same (R-CODE stops after the
//!   current action). `QUIT`: stops the action at once (the bridge holds, then rests).
//! - `@DISS`: hangs up; an action under way plays on, as on the robot.
//!
//! Anything else, or an action the stick cannot play, gets an `ERROR:` line and then
//! `<READY>`. Sessions are served side by side (at most eight; one that sends nothing for
//! ten minutes is hung up), one action plays at a time, and every line a session reads
//! ahead is bounded. Actions play through the same bridge core as `--tcp` (uploaded by
//! aibo-motion's own player over loopback), so `--record` holds what the robot did.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use aibo_motion::link::player::{self, Ending, Mode, PlayOptions};
use aibo_motion::link::transport::Endpoint;
use aibo_motion::mtn::Motion;
use aibo_motion::stick::console::{HANG_UP, MAX_LINE, READY};
use aibo_motion::stick::skit::{posture_walk, Skit};
use aibo_motion::stick::tree::Stick;
use aibo_motion::terminal::shown;
use firmware_bridge::{Key, Model};

/// The robot behind the console.
pub struct Robot {
    pub stick: PathBuf,
    pub model: &'static Model,
    /// The bridge core's own link, on loopback.
    pub bridge: SocketAddr,
    pub key: Option<Key>,
    /// Where the robot stands after the last action, one angle per joint (model order).
    pub pose: Mutex<Vec<i32>>,
    pub quiet: bool,
}

impl Robot {
    fn log(&self, line: &str) {
        // Names and lines come from the network and the stick: escaped, never sent raw.
        if !self.quiet {
            eprintln!("aibo-joint-server: R-CODE: {}", shown(line));
        }
    }
}

/// Console sessions served side by side; one more is told so and hung up.
const MAX_SESSIONS: usize = 8;
/// Lines read ahead of the session taking them: a client that sends and never reads the
/// answers is held up by TCP, not queued in memory.
const QUEUED_LINES: usize = 64;
/// A session that sends nothing for this long, with no action to wait for, is hung up.
const IDLE: Duration = Duration::from_secs(600);
/// An answer the client does not take in this long ends the session.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The action under way, shared by every session: it outlives the connection that started
/// it, as on the robot, and one plays at a time.
type Stage = Arc<Mutex<Option<Performance>>>;

/// Takes console clients, side by side, for as long as the process runs.
pub fn serve(listener: TcpListener, robot: Arc<Robot>) {
    let stage: Stage = Arc::new(Mutex::new(None));
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let who = stream
            .peer_addr()
            .map_or_else(|_| "?".into(), |a| a.to_string());
        if open.load(Ordering::SeqCst) >= MAX_SESSIONS {
            robot.log(&format!(
                "console: {who} refused: {MAX_SESSIONS} sessions are open"
            ));
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = write!(
                stream,
                "ERROR: busy: {MAX_SESSIONS} console sessions are open\r\n"
            );
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let (robot, stage, open) = (robot.clone(), stage.clone(), open.clone());
        thread::spawn(move || {
            robot.log(&format!("console: {who} connected"));
            let why = match session(stream, &robot, &stage) {
                Ok(()) => "hung up".to_string(),
                Err(e) => e.to_string(),
            };
            robot.log(&format!("console: {who} {why}"));
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// An action under way.
struct Performance {
    name: String,
    interrupt: Arc<AtomicBool>,
    handle: JoinHandle<Result<(), String>>,
}

impl Performance {
    /// Waits for the action to end; its failure, if any.
    fn join(self) -> Option<String> {
        match self.handle.join() {
            Ok(Ok(())) => None,
            Ok(Err(why)) => Some(format!("{}: {why}", self.name)),
            Err(_) => Some(format!("{}: the player failed", self.name)),
        }
    }
}

/// The stage's action once it has ended (and the stage then empty), its failure if any;
/// `Err(())` while one plays.
fn take_ended(stage: &Stage) -> Result<Option<String>, ()> {
    let mut playing = stage.lock().unwrap_or_else(|p| p.into_inner());
    match playing.as_ref() {
        Some(p) if !p.handle.is_finished() => Err(()),
        _ => Ok(playing.take().and_then(Performance::join)),
    }
}

enum Command<'a> {
    PlayAction(&'a str),
    PlayMwcid(&'a str),
    Wait,
    Stop,
    Quit,
    Hangup,
    Unknown,
}

fn command(line: &str) -> Command<'_> {
    // A `//` comment ends a line, as in an R-CODE program.
    let line = line.split("//").next().unwrap_or("").trim();
    let words: Vec<&str> = line.split(':').collect();
    match words.as_slice() {
        ["PLAY", "ACTION" | "ACTION+", name] => Command::PlayAction(name),
        ["PLAY", "MWCID", n] => Command::PlayMwcid(n),
        ["WAIT"] => Command::Wait,
        ["STOP"] => Command::Stop,
        ["QUIT"] => Command::Quit,
        [HANG_UP] => Command::Hangup,
        _ => Command::Unknown,
    }
}

/// One console connection; the connection is shut when it ends, so its reader ends too.
fn session(stream: TcpStream, robot: &Arc<Robot>, stage: &Stage) -> std::io::Result<()> {
    let out = stream.try_clone()?;
    out.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let result = converse(stream, out.try_clone()?, robot, stage);
    let _ = out.shutdown(Shutdown::Both);
    result
}

fn converse(
    stream: TcpStream,
    mut out: TcpStream,
    robot: &Arc<Robot>,
    stage: &Stage,
) -> std::io::Result<()> {
    write!(
        out,
        "R-CODE console (simulated by aibo-joint-server): an {} stick\r\n{READY}\r\n",
        robot.model.name
    )?;
    let lines = read_lines(stream);
    let mut later: VecDeque<String> = VecDeque::new();
    loop {
        let line = match later.pop_front() {
            Some(l) => l,
            None => match lines.recv_timeout(IDLE) {
                Ok(Some(l)) => l,
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Ok(()),
                Err(RecvTimeoutError::Timeout) => {
                    write!(out, "ERROR: idle for {} s; hanging up\r\n", IDLE.as_secs())?;
                    return Ok(());
                }
            },
        };
        if line.trim().is_empty() {
            continue;
        }
        let mut readies = 1;
        let mut errors = Vec::new();
        match command(&line) {
            Command::PlayAction(_) | Command::PlayMwcid(_) => {
                match lookup(robot, &command(&line)) {
                    Err(why) => errors.push(why),
                    Ok(action) => {
                        // One action at a time: the one under way, any session's, finishes first.
                        let mut action = Some(action);
                        while let Some((name, skit)) = action.take() {
                            let ended = until_ended(stage, &lines, &mut later);
                            if ended.closed {
                                return Ok(());
                            }
                            readies += ended.owed;
                            errors.extend(ended.failure);
                            let mut playing = stage.lock().unwrap_or_else(|p| p.into_inner());
                            if playing.is_none() {
                                *playing = Some(perform(robot, name, skit));
                            } else {
                                // Another session's PLAY came in between.
                                action = Some((name, skit));
                            }
                        }
                    }
                }
            }
            Command::Wait | Command::Stop => {
                let ended = until_ended(stage, &lines, &mut later);
                if ended.closed {
                    return Ok(());
                }
                readies += ended.owed;
                errors.extend(ended.failure);
            }
            Command::Quit => {
                interrupt(stage);
                let ended = until_ended(stage, &lines, &mut later);
                if ended.closed {
                    return Ok(());
                }
                readies += ended.owed;
                errors.extend(ended.failure);
            }
            Command::Hangup => return Ok(()),
            Command::Unknown => errors.push(format!(
                "{}: the simulated console knows PLAY:ACTION:<name>, PLAY:MWCID:<n>, WAIT, STOP, \
                 QUIT and @DISS",
                line.trim()
            )),
        }
        for e in errors {
            robot.log(&format!("error: {e}"));
            write!(out, "ERROR: {}\r\n", shown(&e))?;
        }
        for _ in 0..readies {
            write!(out, "{READY}\r\n")?;
        }
    }
}

/// Asks the action under way, if any, to stop at once.
fn interrupt(stage: &Stage) {
    let playing = stage.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = playing.as_ref() {
        p.interrupt.store(true, Ordering::Relaxed);
    }
}

/// The connection's lines, as they come, at most [`QUEUED_LINES`] ahead; `None` when it
/// closes. A line longer than R-CODE reads is cut there (the rest is read as the next).
fn read_lines(stream: TcpStream) -> Receiver<Option<String>> {
    let (tx, rx) = mpsc::sync_channel(QUEUED_LINES);
    thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        loop {
            let mut raw = Vec::new();
            match (&mut reader)
                .take(MAX_LINE as u64 + 2)
                .read_until(b'\n', &mut raw)
            {
                Ok(0) | Err(_) => {
                    let _ = tx.send(None);
                    return;
                }
                Ok(_) => {
                    let line: String = raw.iter().map(|&b| char::from(b)).collect();
                    if tx.send(Some(line.trim_end().to_string())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// What waiting for the action under way came to.
struct Ended {
    /// `<READY>`s owed to the `STOP`s and `QUIT`s taken meanwhile.
    owed: usize,
    /// The action's failure, if any.
    failure: Option<String>,
    /// The connection closed meanwhile.
    closed: bool,
}

/// Waits for the action under way (any session's) to end, taking `STOP` and `QUIT`
/// meanwhile (each is answered when it ends) and keeping up to [`QUEUED_LINES`] other
/// lines for after.
fn until_ended(
    stage: &Stage,
    lines: &Receiver<Option<String>>,
    later: &mut VecDeque<String>,
) -> Ended {
    let mut owed = 0;
    loop {
        match take_ended(stage) {
            Ok(failure) => {
                return Ended {
                    owed,
                    failure,
                    closed: false,
                }
            }
            // Lines beyond these wait in the connection, not here.
            Err(()) if later.len() >= QUEUED_LINES => thread::sleep(Duration::from_millis(10)),
            Err(()) => match lines.recv_timeout(Duration::from_millis(10)) {
                Ok(Some(line)) => match command(&line) {
                    Command::Quit => {
                        interrupt(stage);
                        owed += 1;
                    }
                    Command::Stop => owed += 1,
                    _ => later.push_back(line),
                },
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    return Ended {
                        owed,
                        failure: None,
                        closed: true,
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            },
        }
    }
}

/// The action a PLAY command names, read from the stick as it is now.
fn lookup(robot: &Robot, play: &Command<'_>) -> Result<(String, Skit), String> {
    let stick = Stick::open(&robot.stick).map_err(|e| e.to_string())?;
    let (name, mwcid) = match *play {
        Command::PlayAction(name) => (
            name.to_string(),
            stick.mwcid_of(name).map_err(|e| e.to_string())?,
        ),
        Command::PlayMwcid(n) => {
            let mwcid = n
                .parse()
                .map_err(|_| format!("PLAY:MWCID:{n}: not a number"))?;
            (format!("MWCID {mwcid}"), mwcid)
        }
        _ => return Err("not a PLAY command".to_string()),
    };
    let skit = stick.skit(mwcid).map_err(|e| e.to_string())?;
    if let Some(motion) = &skit.motion {
        let start = skit.start.as_deref().unwrap_or("");
        if robot.model.posture(start).is_none() {
            return Err(format!(
                "{name}: the motion {:?} names no start posture the {} has, so R-CODE cannot \
                 walk to it",
                motion.name, robot.model.name
            ));
        }
    }
    Ok((name, skit))
}

/// Starts an action: the walk to its start posture, then its motion.
fn perform(robot: &Arc<Robot>, name: String, skit: Skit) -> Performance {
    let interrupt = Arc::new(AtomicBool::new(false));
    let handle = {
        let robot = robot.clone();
        let interrupt = interrupt.clone();
        let name = name.clone();
        thread::spawn(move || {
            let Some(motion) = skit.motion else {
                robot.log(&format!("{name}: no motion (the simulator has no speaker)"));
                return Ok(());
            };
            let start = skit
                .start
                .as_deref()
                .and_then(|s| robot.model.posture(s))
                .map(|p| p.angles)
                .ok_or("no start posture")?;
            let from = robot.pose.lock().map_err(|_| "poisoned")?.clone();
            if let Some(walk) = posture_walk(robot.model, &from, start) {
                robot.log(&format!(
                    "{name}: walking to {}",
                    skit.start.as_deref().unwrap_or("")
                ));
                if !play(&robot, &walk, &interrupt)? {
                    robot.log(&format!("{name}: stopped by QUIT"));
                    return Ok(());
                }
            }
            robot.log(&format!("{name}: playing {}", motion.name));
            let ended = if play(&robot, &motion, &interrupt)? {
                "ended"
            } else {
                "stopped by QUIT"
            };
            robot.log(&format!("{name}: {ended}"));
            Ok(())
        })
    };
    Performance {
        name,
        interrupt,
        handle,
    }
}

/// Plays one motion on the bridge core, stored and then played on its own clock, and
/// notes where the robot ends. `false`: stopped by QUIT.
fn play(robot: &Robot, motion: &Motion, interrupt: &Arc<AtomicBool>) -> Result<bool, String> {
    if interrupt.load(Ordering::Relaxed) {
        return Ok(false);
    }
    let mut opts = PlayOptions::new(Endpoint::Tcp(robot.bridge.to_string()));
    opts.mode = Mode::Upload;
    opts.name = "rcode".into();
    opts.key = robot.key.clone();
    opts.interrupt = interrupt.clone();
    let report = player::play(motion, &opts, &mut |_| {}).map_err(|e| e.to_string())?;
    let mut pose = robot.pose.lock().map_err(|_| "poisoned")?;
    match report.ending {
        Ending::Completed => {
            if let Some(status) = &report.status {
                *pose = status.applied.as_slice().to_vec();
            }
            match report.shortfall() {
                Some(why) => Err(why),
                None => Ok(true),
            }
        }
        // Only a stream goes silent (this plays uploads): a failure, said as `play` says it.
        Ending::RobotSilent => Err(report
            .shortfall()
            .unwrap_or_else(|| "the robot stopped answering".into())),
        // The bridge holds, then ramps to its rest posture.
        Ending::Interrupted | Ending::RobotGaveUp => {
            if let Some(rest) = robot.model.rest_posture() {
                *pose = rest.angles.to_vec();
            }
            Ok(false)
        }
    }
}
