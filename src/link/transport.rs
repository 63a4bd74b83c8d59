//! Byte transports to a bridge: TCP (tokio) and serial ports (serialport, on threads,
//! since it has no async interface), behind one pair of channels.

use std::io::{Read, Write};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::LinkError;

/// Where a bridge is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Serial { path: String, baud: u32 },
    Tcp(String),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Serial { path, baud } => write!(f, "{path} at {baud} baud"),
            Endpoint::Tcp(addr) => write!(f, "tcp://{addr}"),
        }
    }
}

/// An open link: bytes to send go in `tx`; received bytes come out of `rx`, which ends
/// (`None`) when the link drops.
pub struct Connection {
    pub tx: mpsc::UnboundedSender<Vec<u8>>,
    pub rx: mpsc::UnboundedReceiver<Vec<u8>>,
}

/// Opens a link (within `timeout` for TCP).
pub async fn connect(endpoint: &Endpoint, timeout: Duration) -> Result<Connection, LinkError> {
    let fail = |reason: String| LinkError::Connect {
        endpoint: endpoint.to_string(),
        reason,
    };
    match endpoint {
        Endpoint::Tcp(addr) => {
            let stream =
                tokio::time::timeout(timeout, tokio::net::TcpStream::connect(addr.as_str()))
                    .await
                    .map_err(|_| {
                        fail(format!(
                            "no answer within {:.1} s: check the robot's address and that it \
                             is on the network",
                            timeout.as_secs_f64()
                        ))
                    })?
                    .map_err(|e| fail(tcp_hint(&e)))?;
            stream.set_nodelay(true).map_err(|e| fail(e.to_string()))?;
            Ok(tcp(stream))
        }
        Endpoint::Serial { path, baud } => {
            let port = serialport::new(path, *baud)
                .timeout(Duration::from_millis(50))
                .open()
                .map_err(|e| fail(serial_hint(&e)))?;
            serial(port).map_err(|e| fail(e.to_string()))
        }
    }
}

/// A refused or failed TCP connection, with what to try.
fn tcp_hint(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => format!(
            "{e}: nothing listens there. Start the simulated robot with `aibo-joint-server \
             --tcp ADDR --profile MODEL`, or check the robot's address and port"
        ),
        _ => format!("{e}: check the robot's address and port"),
    }
}

/// A serial port that would not open, with what to try.
fn serial_hint(e: &serialport::Error) -> String {
    // serialport opens a port for itself alone (TIOCEXCL, and an flock that root's
    // opens meet too). Another holder fails the open as NoDevice, told apart by its
    // description: EBUSY's "Device or resource busy", or the flock's.
    let busy = matches!(
        e.kind(),
        serialport::ErrorKind::Io(std::io::ErrorKind::ResourceBusy)
    ) || ["busy", "exclusive lock"]
        .iter()
        .any(|said| e.description.contains(said));
    if busy {
        return format!(
            "{e}: another program has the port open (another `aibo-motion play` or \
             `upload`, a serial terminal such as screen or minicom, or ModemManager, which \
             udev/README.md's rules keep away): close it and try again"
        );
    }
    match e.kind() {
        serialport::ErrorKind::NoDevice
        | serialport::ErrorKind::Io(std::io::ErrorKind::NotFound) => {
            format!(
                "{e}: no such device. `aibo-motion ports` lists the serial ports there are; \
                 udev/README.md tells how a USB-serial adapter gets its name and permissions"
            )
        }
        serialport::ErrorKind::Io(std::io::ErrorKind::PermissionDenied) => format!(
            "{e}: not allowed. Join the dialout group or install the udev rules \
             (udev/README.md)"
        ),
        _ => format!("{e}: `aibo-motion ports` lists the serial ports there are"),
    }
}

fn tcp(stream: tokio::net::TcpStream) -> Connection {
    let (mut reader, mut writer) = stream.into_split();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let read_task = tokio::spawn(async move {
        let mut buf = vec![0u8; 4096];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if in_tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        while let Some(bytes) = out_rx.recv().await {
            if writer.write_all(&bytes).await.is_err() {
                // A failed write is a dropped link: end the reader too, so `rx` says so.
                read_task.abort();
                break;
            }
        }
    });
    Connection {
        tx: out_tx,
        rx: in_rx,
    }
}

fn serial(port: Box<dyn serialport::SerialPort>) -> std::io::Result<Connection> {
    let mut reader = port.try_clone().map_err(std::io::Error::other)?;
    let mut writer = port;
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => std::thread::sleep(Duration::from_millis(2)),
                Ok(n) => {
                    if in_tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    if in_tx.is_closed() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });
    std::thread::spawn(move || {
        while let Some(bytes) = out_rx.blocking_recv() {
            if writer
                .write_all(&bytes)
                .and_then(|()| writer.flush())
                .is_err()
            {
                break;
            }
        }
    });
    Ok(Connection {
        tx: out_tx,
        rx: in_rx,
    })
}
