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
        };
        let banner =
            console.until_ready(timeout, "the console's banner", &|| false, &mut |_| {})?;
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

    /// The robot's lines up to its next `<READY>`, each also handed to `each` as it
    /// comes. Gives up after `timeout`; returns early (with what came) once `stop` says so.
    pub fn until_ready(
        &mut self,
        timeout: Duration,
        waiting_for: &'static str,
        stop: &dyn Fn() -> bool,
        each: &mut dyn FnMut(&str),
    ) -> Result<Vec<String>, ConsoleError> {
        let end = Instant::now() + timeout;
        let mut lines = Vec::new();
        let mut raw = Vec::new();
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
                return Ok(lines);
            }
            // Short reads, so that a stop is seen at once.
            let _ = self
                .reader
                .get_ref()
                .set_read_timeout(Some(left.min(Duration::from_millis(100))));
            match self.reader.read_until(b'\n', &mut raw) {
                Ok(0) => return Err(ConsoleError::Closed(self.address.clone())),
                Ok(_) => {}
                // A read that timed out: look at what has come so far.
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return Err(ConsoleError::Closed(self.address.clone())),
            }
            let whole = raw.ends_with(b"\n") || raw.len() > MAX_REPLY_LINE;
            let text: String = raw.iter().map(|&b| char::from(b)).collect();
            let line = text.trim_end();
            // A prompt needs no line break: `<READY>` or a log-in prompt counts as it comes.
            if line == READY {
                raw.clear();
                return Ok(lines);
            }
            let lower = line.to_ascii_lowercase();
            if lower.contains("login") || lower.contains("password") {
                return Err(ConsoleError::LogIn(self.address.clone()));
            }
            if whole {
                each(line);
                lines.push(line.to_string());
                raw.clear();
            }
        }
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
