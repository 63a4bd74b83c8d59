//! Motions kept on the bridge: upload one (retried when keyframes go missing), and play
//! one the bridge holds, by name, watching its status.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use firmware_bridge::message::{ack, Angles, Message};
use firmware_bridge::State;

use super::client::{ack_text, BridgeInfo, Client, Reply};
use super::player::{reconnect, session, Ending, PlayOptions, PlayReport, Progress, SILENT_FOR};
use super::transport::Endpoint;
use super::LinkError;
use crate::mtn::Motion;

/// Uploads `motion` under `opts.name` without playing it.
pub fn upload(motion: &Motion, opts: &PlayOptions) -> Result<BridgeInfo, LinkError> {
    session(opts, Some(motion), false, |mut client, info| async move {
        upload_motion(&mut client, motion, &opts.name, &info).await?;
        Ok(info)
    })
}

/// Plays a motion the bridge already holds, by name.
pub fn play_named(
    opts: &PlayOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PlayReport, LinkError> {
    session(opts, None, true, |mut client, info| async move {
        play_stored(&mut client, 0, opts, info, progress).await
    })
}

/// How long `bytes` take to cross the link: 10 bits a byte on a serial line (8N1), and
/// a cautious 100 kB/s over TCP (an AIBO's 802.11b wireless).
fn transfer_time(endpoint: &Endpoint, bytes: usize) -> Duration {
    let bytes_per_s = match endpoint {
        Endpoint::Serial { baud, .. } => f64::from((*baud).max(300)) / 10.0,
        Endpoint::Tcp(_) => 100_000.0,
    };
    Duration::from_secs_f64(bytes as f64 / bytes_per_s)
}

/// Sends the motion's keyframes, with the body's roll and pitch to a bridge of protocol 2
/// or later; retries a few times when some go missing.
pub(super) async fn upload_motion(
    client: &mut Client,
    motion: &Motion,
    name: &str,
    info: &BridgeInfo,
) -> Result<(), LinkError> {
    let count = u16::try_from(motion.keyframes.len())
        .ok()
        .filter(|&n| n > 0 && n <= info.max_keyframes)
        .ok_or_else(|| {
            LinkError::Refused(format!(
                "the motion has {} keyframes; the bridge stores 1 to {}",
                motion.keyframes.len(),
                info.max_keyframes
            ))
        })?;
    let joints = info.joints.len() as u8;
    let timeout = Duration::from_secs(3);
    let mut last = ack::OK;
    for _attempt in 0..3 {
        let begin = Message::UploadBegin {
            name: name.as_bytes(),
            keyframes: count,
            joints,
        };
        match client.request(&begin, timeout).await? {
            ack::OK => {}
            code => return Err(LinkError::Refused(ack_text(code).into())),
        }
        let mut queued = 0usize;
        for (i, kf) in motion.keyframes.iter().enumerate() {
            let frames_before = u16::try_from(kf.frames_before).map_err(|_| {
                LinkError::Refused(format!(
                    "keyframe {i} comes {} frames after the one before; the protocol carries at most 65535 (17 minutes)",
                    kf.frames_before
                ))
            })?;
            let angles = Angles::from_slice(&kf.joints).ok_or_else(|| {
                LinkError::Mismatch("more joints than the protocol carries".into())
            })?;
            let bytes = client.encode(&Message::UploadKeyframe {
                index: i as u16,
                frames_before,
                angles,
                body: (info.protocol >= 2).then_some([kf.roll, kf.pitch]),
            });
            queued += bytes.len();
            client.send_bytes(bytes)?;
        }
        // The keyframes are queued, not yet sent: on a slow line the acknowledgement can
        // only come once they have all gone out.
        let timeout = timeout + transfer_time(client.endpoint(), queued);
        last = client
            .request(&Message::UploadEnd { keyframes: count }, timeout)
            .await?;
        if last == ack::OK {
            return Ok(());
        }
        tracing::warn!("upload of {name:?}: {}; sending it again", ack_text(last));
    }
    Err(LinkError::Refused(format!(
        "upload of {name:?}: {}",
        ack_text(last)
    )))
}

/// Plays the stored motion `opts.name`; `dense_frames` (8 ms, one pass; 0 if unknown)
/// is for the progress line.
pub(super) async fn play_stored(
    client: &mut Client,
    dense_frames: u64,
    opts: &PlayOptions,
    info: BridgeInfo,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PlayReport, LinkError> {
    let loops = u64::from(opts.loops.max(1));
    let frames8 = dense_frames * loops;
    let mut report = PlayReport::new(info, frames8.div_ceil(2), frames8);
    report.counters_before = client
        .status(opts.connect_timeout)
        .await?
        .map(|s| s.counters);
    let play = Message::Play {
        name: opts.name.as_bytes(),
        loops: opts.loops.max(1),
    };
    match client.request(&play, opts.connect_timeout).await? {
        ack::OK => {}
        ack::UNKNOWN_MOTION => {
            let names = client.stored_names(opts.connect_timeout).await?;
            let held = if names.is_empty() {
                "it holds none yet: store one with `aibo-motion upload FILE.mtn`".to_string()
            } else {
                let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                format!("it holds {}", quoted.join(", "))
            };
            return Err(LinkError::Refused(format!(
                "the robot holds no motion named {:?}; {held}",
                opts.name
            )));
        }
        code => return Err(LinkError::Refused(ack_text(code).into())),
    }
    let mut poll = tokio::time::interval(Duration::from_millis(100));
    let mut started = false;
    let mut answered = Instant::now();
    loop {
        if opts.interrupt.load(Ordering::Relaxed) {
            let _ = client.request(&Message::Stop, opts.connect_timeout).await;
            report.ending = Ending::Interrupted;
            report.status = client.last_status;
            return Ok(report);
        }
        // A reply waiting is read before the robot is taken for silent.
        tokio::select! {
            biased;
            reply = client.recv() => match reply {
                Ok(Reply::Status(s)) => {
                    answered = Instant::now();
                    report.status = Some(s);
                    let state = State::from_u8(s.state);
                    started |= state == Some(State::Playing);
                    progress(&Progress { frame: u64::from(s.position) / 2, frames: report.frames, status: Some(s), link: "ok".into() });
                    if started && state != Some(State::Playing) {
                        return Ok(report);
                    }
                    // A motion so short that it ended before the first status.
                    if !started && state == Some(State::Holding) {
                        return Ok(report);
                    }
                }
                Ok(_) => answered = Instant::now(),
                Err(_) => {
                    *client = reconnect(opts, &mut report, 0, progress).await?;
                    answered = Instant::now();
                }
            },
            _ = poll.tick() => {
                // Waited on for ever, a robot that no longer answers this link (another
                // host took it over, say) would hang the command.
                if answered.elapsed() > SILENT_FOR {
                    report.went_silent =
                        Some(report.status.map_or(0, |s| u64::from(s.position) / 2));
                    report.ending = Ending::RobotSilent;
                    return Ok(report);
                }
                if client.send(&Message::StatusRequest).is_err() {
                    // The bridge plays on by itself; only the monitoring is lost.
                    *client = reconnect(opts, &mut report, 0, progress).await?;
                    answered = Instant::now();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uploads_wait_as_long_as_the_line_needs() {
        let serial = Endpoint::Serial {
            path: "/dev/ttyUSB0".into(),
            baud: 115_200,
        };
        // 8N1: ten bits a byte, so 11,520 bytes take one second at 115,200 baud.
        assert_eq!(transfer_time(&serial, 11_520), Duration::from_secs(1));
        assert_eq!(
            transfer_time(&Endpoint::Tcp("aibo:7000".into()), 200_000),
            Duration::from_secs(2)
        );
    }
}
