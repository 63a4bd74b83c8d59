//! Frames on the wire: header, payload, optional signature, CRC, COBS.
//!
//! ```text
//! offset  size  field
//! 0       1     protocol version (1)
//! 1       1     flags: bit 0 = signed; any other bit set = refuse (incompatible)
//! 2       2     sequence number, u16 little-endian, per sender
//! 4       1     message id
//! 5       2     payload length L, u16 LE, at most MAX_PAYLOAD
//! 7       L     payload
//! signed only:
//! 7+L     1     link id
//! 8+L     6     timestamp, u48 LE, 10 µs units, strictly increasing per link
//! 14+L    8     HMAC-SHA256(key, bytes 0 .. 14+L), first 8 bytes
//! end     2     CRC-16/IBM-3740 of every byte before it, u16 LE
//! ```
//!
//! The whole is COBS-encoded and ends with one zero byte, so a receiver that joins
//! mid-stream, or loses bytes, resynchronises at the next zero.

use crate::sign::{Key, ReplayGuard, SIGNATURE_LEN};

/// The frame layout's version, every frame's first byte; frames of any other are rejected.
pub const WIRE_VERSION: u8 = 1;

/// The protocol version spoken by this crate, in `HELLO` and `IDENTITY`: which messages
/// and flags it knows. 2 added the body attitude to `FRAME` (flag 0x08).
pub const PROTOCOL_VERSION: u8 = 2;

/// The oldest protocol version a host may still speak to: a version-1 bridge is sent
/// frames without the body attitude.
pub const OLDEST_PROTOCOL_VERSION: u8 = 1;

/// Most joints a model may have (the AIBOs have 15 to 20): what a frame can carry.
pub const MAX_JOINTS: usize = 32;

pub const HEADER_LEN: usize = 7;
/// Largest payload: a status with 32 joints fits with room to spare.
pub const MAX_PAYLOAD: usize = 320;
/// Link id, timestamp and signature.
pub const SIGNATURE_BLOCK_LEN: usize = 1 + 6 + SIGNATURE_LEN;
pub const CRC_LEN: usize = 2;
/// Largest frame before COBS.
pub const MAX_FRAME: usize = HEADER_LEN + MAX_PAYLOAD + SIGNATURE_BLOCK_LEN + CRC_LEN;
/// Largest frame on the wire, COBS overhead and the closing zero included.
pub const MAX_ENCODED: usize = corncobs::max_encoded_len(MAX_FRAME);

pub const FLAG_SIGNED: u8 = 0x01;
const KNOWN_FLAGS: u8 = FLAG_SIGNED;

/// Largest timestamp a frame can carry (48 bits).
pub const MAX_TIMESTAMP: u64 = (1 << 48) - 1;

const CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_IBM_3740);

/// CRC-16/IBM-3740 ("CCITT-FALSE"): poly 0x1021, init 0xFFFF, check value 0x29B1.
pub fn crc16(bytes: &[u8]) -> u16 {
    CRC.checksum(bytes)
}

/// Why received bytes were not a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// Bytes between two zeros that are not valid COBS.
    Cobs,
    /// More bytes than any frame has before the next zero.
    Oversize,
    /// Shorter than a header and a CRC.
    Truncated,
    /// The CRC does not match.
    Crc { expected: u16, found: u16 },
    /// Another protocol version.
    Version(u8),
    /// Flags this version does not know.
    Flags(u8),
    /// The payload length disagrees with the frame's size.
    Length { declared: usize, available: usize },
}

/// Why a well-formed frame was not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthError {
    /// A key is configured and the frame is not signed.
    Unsigned,
    /// The signature is wrong.
    Forged,
    /// The timestamp is not newer than the last one from that link.
    Replayed,
}

/// The signature block of a signed frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature<'a> {
    pub link: u8,
    pub timestamp: u64,
    pub mac: &'a [u8],
    /// The bytes the MAC covers.
    pub covered: &'a [u8],
}

/// A frame checked for framing and CRC (not yet for its signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub seq: u16,
    pub msg: u8,
    pub payload: &'a [u8],
    pub signature: Option<Signature<'a>>,
}

/// What a sender signs with.
#[derive(Debug, Clone, Copy)]
pub struct Signing<'a> {
    pub key: &'a Key,
    pub link: u8,
    pub timestamp: u64,
}

/// Encodes one frame, COBS and closing zero included, into `out`; returns its length.
/// A payload over [`MAX_PAYLOAD`] is refused (`None`): that is a bug in the sender.
pub fn encode_frame(
    seq: u16,
    msg: u8,
    payload: &[u8],
    signing: Option<Signing<'_>>,
    out: &mut [u8; MAX_ENCODED],
) -> Option<usize> {
    if payload.len() > MAX_PAYLOAD {
        return None;
    }
    let mut raw = [0u8; MAX_FRAME];
    raw[0] = WIRE_VERSION;
    raw[1] = if signing.is_some() { FLAG_SIGNED } else { 0 };
    raw[2..4].copy_from_slice(&seq.to_le_bytes());
    raw[4] = msg;
    raw[5..7].copy_from_slice(&(payload.len() as u16).to_le_bytes());
    let mut end = HEADER_LEN + payload.len();
    raw[HEADER_LEN..end].copy_from_slice(payload);
    if let Some(s) = signing {
        raw[end] = s.link;
        raw[end + 1..end + 7].copy_from_slice(&(s.timestamp & MAX_TIMESTAMP).to_le_bytes()[..6]);
        end += 7;
        let mac = s.key.sign(&raw[..end]);
        raw[end..end + SIGNATURE_LEN].copy_from_slice(&mac);
        end += SIGNATURE_LEN;
    }
    let crc = crc16(&raw[..end]);
    raw[end..end + CRC_LEN].copy_from_slice(&crc.to_le_bytes());
    end += CRC_LEN;
    Some(corncobs::encode_buf(&raw[..end], out))
}

/// Checks a COBS-decoded frame: size, CRC, version, flags, length.
pub fn parse_frame(raw: &[u8]) -> Result<Frame<'_>, FrameError> {
    if raw.len() < HEADER_LEN + CRC_LEN {
        return Err(FrameError::Truncated);
    }
    let (body, crc_bytes) = raw.split_at(raw.len() - CRC_LEN);
    let found = u16::from_le_bytes([crc_bytes[0], crc_bytes[1]]);
    let expected = crc16(body);
    if found != expected {
        return Err(FrameError::Crc { expected, found });
    }
    if body[0] != WIRE_VERSION {
        return Err(FrameError::Version(body[0]));
    }
    let flags = body[1];
    if flags & !KNOWN_FLAGS != 0 {
        return Err(FrameError::Flags(flags));
    }
    let seq = u16::from_le_bytes([body[2], body[3]]);
    let msg = body[4];
    let declared = usize::from(u16::from_le_bytes([body[5], body[6]]));
    let signed = flags & FLAG_SIGNED != 0;
    let trailer = if signed { SIGNATURE_BLOCK_LEN } else { 0 };
    let available = body.len() - HEADER_LEN;
    if declared > MAX_PAYLOAD || declared + trailer != available {
        return Err(FrameError::Length {
            declared,
            available,
        });
    }
    let payload_end = HEADER_LEN + declared;
    let payload = &body[HEADER_LEN..payload_end];
    let signature = signed.then(|| {
        let block = &body[payload_end..];
        let mut ts = [0u8; 8];
        ts[..6].copy_from_slice(&block[1..7]);
        Signature {
            link: block[0],
            timestamp: u64::from_le_bytes(ts),
            mac: &block[7..],
            covered: &body[..payload_end + 7],
        }
    });
    Ok(Frame {
        seq,
        msg,
        payload,
        signature,
    })
}

/// Checks a frame's signature against `key` (when one is configured) and its timestamp
/// against `replay`. Without a key every frame passes, signed or not.
pub fn authenticate(
    frame: &Frame<'_>,
    key: Option<&Key>,
    replay: &mut ReplayGuard,
) -> Result<(), AuthError> {
    let Some(key) = key else { return Ok(()) };
    let Some(sig) = frame.signature else {
        return Err(AuthError::Unsigned);
    };
    if !key.verify(sig.covered, sig.mac) {
        return Err(AuthError::Forged);
    }
    if !replay.accept(sig.link, sig.timestamp) {
        return Err(AuthError::Replayed);
    }
    Ok(())
}

/// Splits a byte stream into COBS-decoded frames, in bounded memory.
///
/// Bytes accumulate until a zero; more than [`MAX_ENCODED`] bytes without one are
/// discarded (reported once as [`FrameError::Oversize`]) and the decoder waits for the
/// next zero. Empty frames (zeros in a row) are ignored: a sender may send zeros to
/// make a receiver resynchronise.
#[derive(Debug, Clone)]
pub struct Decoder {
    /// Room for a whole encoded frame and its closing zero.
    encoded: [u8; MAX_ENCODED + 1],
    len: usize,
    overflowed: bool,
    raw: [u8; MAX_ENCODED],
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            encoded: [0; MAX_ENCODED + 1],
            len: 0,
            overflowed: false,
            raw: [0; MAX_ENCODED],
        }
    }
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets a partly received frame, as a new link starts.
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflowed = false;
    }

    /// Feeds bytes; calls `on_frame` with each complete frame's decoded bytes (not yet
    /// checked: see [`parse_frame`]) or the error that ended it.
    pub fn feed(&mut self, bytes: &[u8], mut on_frame: impl FnMut(Result<&[u8], FrameError>)) {
        for &b in bytes {
            if b != 0 {
                if self.len < MAX_ENCODED {
                    self.encoded[self.len] = b;
                    self.len += 1;
                } else {
                    self.overflowed = true;
                }
                continue;
            }
            let len = core::mem::take(&mut self.len);
            if core::mem::take(&mut self.overflowed) {
                on_frame(Err(FrameError::Oversize));
                continue;
            }
            if len == 0 {
                continue;
            }
            // The closing zero is part of what the COBS decoder expects.
            self.encoded[len] = 0;
            match corncobs::decode_buf(&self.encoded[..=len], &mut self.raw) {
                Ok(n) => on_frame(Ok(&self.raw[..n])),
                Err(_) => on_frame(Err(FrameError::Cobs)),
            }
        }
    }
}
