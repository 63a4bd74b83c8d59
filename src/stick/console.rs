//! R-CODE's wireless console (TCP 21002): 8-bit text lines. On connection the robot sends
//! a banner, then `<READY>`; each line sent is an R-CODE command, run at once
//! (`PLAY:ACTION:dance`, `WAIT`, `STOP`, `QUIT`, `@DISS`), and the robot says `<READY>`
//! again when it takes the next. How the robot words anything else is not relied on: it
//! is passed on to the user as it comes. Untested against a robot.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// R-CODE's console port.
pub const PORT: u16 = 21002;

/// The prompt R-CODE sends when it takes a command.
pub const READY: &str = "<READY>";

/// The command that ends a console session: the robot hangs up.
pub const HANG_UP: &str = "@DISS";

/// The longest line R-CODE reads.
pub const MAX_LINE: usize = 127;

/// Longest line kept from the robot; a longer one is cut (no robot sends such).
const MAX_REPLY_LINE: usize = 4096;

/// Most banner lines kept; a console that talks on is still read, not stored.
const MAX_BANNER_LINES: usize = 64;

/// The longest a read waits before the deadline and the stop are looked at again.
const POLL: Duration = Duration::from_millis(100);

/// What can go wrong on the console.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error("cannot reach {address}: {why}")]
    Connect { address: String, why: String },
    #[error("{address} did not say {READY} within {seconds:.0} s ({waiting_for})")]
    Timeout {
        address: String,
        waiting_for: &'static str,
        seconds: f64,
    },
    #[error(
        "{0} asks for the owner's log-in: R-CODE on an ERS-7 does until the stick is set up \
         without it (`aibo-motion stick wifi STICK … --no-auth`)"
    )]
    LogIn(String),
    #[error("{0} closed the connection")]
    Closed(String),
    #[error("{0:?}: a console line is one line of at most {MAX_LINE} bytes")]
    BadLine(String),
}

/// An open console.
pub struct Console {
    address: String,
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    /// The line coming in, at most [`MAX_REPLY_LINE`] bytes.
    partial: Vec<u8>,
}

/// What one read brought.
enum Heard {
    /// Nothing whole yet.
    Nothing,
    /// A whole line (or one cut at [`MAX_REPLY_LINE`]).
    Line(String),
    /// `<READY>`.
    Ready,
}

/// `HOST` or `HOST:PORT` with R-CODE's port as the default.
fn with_port(host: &str) -> String {
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(_)) => return format!("[{host}]:{PORT}"),
        Ok(_) => return format!("{host}:{PORT}"),
        Err(_) => {}
    }
    let has_port = host.parse::<std::net::SocketAddr>().is_ok()
        || host
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.contains(':') && p.parse::<u16>().is_ok());
    if has_port {
        host.to_string()
    } else {
        format!("{host}:{PORT}")
    }
}

impl Console {
    /// Connects and waits for the first `<READY>`; returns the console and the banner.
    pub fn connect(host: &str, timeout: Duration) -> Result<(Console, Vec<String>), ConsoleError> {
        let address = with_port(host);
        let fail = |why: String| ConsoleError::Connect {
            address: address.clone(),
            why,
        };
        let target = address
            .to_socket_addrs()
            .map_err(|e| fail(e.to_string()))?
            .next()
            .ok_or_else(|| fail("no such address".into()))?;
        let stream = TcpStream::connect_timeout(&target, timeout).map_err(|e| {
            fail(match e.kind() {
                std::io::ErrorKind::ConnectionRefused => format!(
                    "{e}: nothing listens there. Is R-CODE's console on (WLANCONF.TXT, and `W 1` \
                     in its SYSTEM.CFG), and is this the robot's address?"
                ),
                _ => format!("{e}: check the robot's address and that it is on the network"),
            })
        })?;
        let reader = stream.try_clone().map_err(|e| fail(e.to_string()))?;
        let mut console = Console {
            address: address.clone(),
            writer: stream,
            reader: BufReader::new(reader),
            partial: Vec::new(),
        };
        let mut banner = Vec::new();
        console.until_ready(timeout, "the console's banner", &|| false, &mut |line| {
            if banner.len() < MAX_BANNER_LINES {
                banner.push(line.to_string());
            }
        })?;
        Ok((console, banner))
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) -> Result<(), ConsoleError> {
        if line.len() > MAX_LINE || line.contains(['\r', '\n']) {
            return Err(ConsoleError::BadLine(line.to_string()));
        }
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .map_err(|_| ConsoleError::Closed(self.address.clone()))
    }

    /// Sends one command line and hands the robot's answer to `each`, up to its next
    /// `<READY>`. `false`: the line was `@DISS`, and the robot hangs up rather than answer.
    pub fn command(
        &mut self,
        line: &str,
        timeout: Duration,
        each: &mut dyn FnMut(&str),
    ) -> Result<bool, ConsoleError> {
        self.send(line)?;
        if line.trim() == HANG_UP {
            return Ok(false);
        }
        self.until_ready(timeout, "an answer to the line sent", &|| false, each)?;
        Ok(true)
    }

    /// The robot's lines up to its next `<READY>`, each handed to `each` as it comes (and
    /// not kept: a console that talks on costs no memory). Gives up after `timeout`;
    /// returns early once `stop` says so. Both are looked at after every read, so a peer
    /// that trickles bytes holds neither up.
    pub fn until_ready(
        &mut self,
        timeout: Duration,
        waiting_for: &'static str,
        stop: &dyn Fn() -> bool,
        each: &mut dyn FnMut(&str),
    ) -> Result<(), ConsoleError> {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ConsoleError::Timeout {
                    address: self.address.clone(),
                    waiting_for,
                    seconds: timeout.as_secs_f64(),
                });
            }
            if stop() {
                return Ok(());
            }
            match self.hear(left.min(POLL))? {
                Heard::Nothing => {}
                Heard::Line(line) => each(&line),
                Heard::Ready => return Ok(()),
            }
        }
    }

    /// Reads what is pending for `quiet` (or until `most` has passed), each line handed to
    /// `each` and every `<READY>` dropped: prompts nobody asked for must not answer the
    /// next command.
    pub fn drain(
        &mut self,
        quiet: Duration,
        most: Duration,
        each: &mut dyn FnMut(&str),
    ) -> Result<(), ConsoleError> {
        let end = Instant::now() + most;
        let mut heard_at = Instant::now();
        while Instant::now() < end && heard_at.elapsed() < quiet {
            match self.hear(quiet.min(POLL))? {
                Heard::Nothing => {}
                Heard::Line(line) => {
                    each(&line);
                    heard_at = Instant::now();
                }
                Heard::Ready => heard_at = Instant::now(),
            }
        }
        Ok(())
    }

    /// One read (waiting at most `wait`), and the line or prompt it completes.
    fn hear(&mut self, wait: Duration) -> Result<Heard, ConsoleError> {
        let _ = self.reader.get_ref().set_read_timeout(Some(wait));
        let came = match self.reader.fill_buf() {
            Ok([]) => return Err(ConsoleError::Closed(self.address.clone())),
            Ok(bytes) => bytes,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                &[]
            }
            Err(_) => return Err(ConsoleError::Closed(self.address.clone())),
        };
        // Up to the first line end; what is past the cap of a long line is dropped.
        let (used, ended) = match came.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (came.len(), false),
        };
        let room = MAX_REPLY_LINE - self.partial.len();
        self.partial.extend_from_slice(&came[..used.min(room)]);
        self.reader.consume(used);
        let whole = ended || self.partial.len() >= MAX_REPLY_LINE;
        let text: String = self.partial.iter().map(|&b| char::from(b)).collect();
        let line = text.trim_end();
        // A prompt needs no line break: `<READY>` or a log-in prompt counts as it comes.
        if line == READY {
            self.partial.clear();
            return Ok(Heard::Ready);
        }
        let lower = line.to_ascii_lowercase();
        if lower.contains("login") || lower.contains("password") {
            return Err(ConsoleError::LogIn(self.address.clone()));
        }
        if !whole {
            return Ok(Heard::Nothing);
        }
        let line = line.to_string();
        self.partial.clear();
        Ok(Heard::Line(line))
    }
}

#[cfg(test)]
mod tests {
    use super::with_port;

    #[test]
    fn the_console_port_is_the_default() {
        assert_eq!(with_port("aibo.local"), "aibo.local:21002");
        assert_eq!(with_port("192.168.1.50"), "192.168.1.50:21002");
        assert_eq!(with_port("192.168.1.50:4000"), "192.168.1.50:4000");
        assert_eq!(with_port("[::1]:4000"), "[::1]:4000");
        assert_eq!(with_port("::1"), "[::1]:21002");
    }
}
