//! Frame signing, in the manner of MAVLink 2: a shared secret, a link id, a 48-bit
//! timestamp that only goes up, and a truncated keyed hash over the whole frame.
//!
//! The signature is HMAC-SHA256(key, header ‖ payload ‖ link ‖ timestamp), first
//! [`SIGNATURE_LEN`] bytes. A receiver accepts a signed frame only when its timestamp is
//! above the last one it accepted from the same link, so a recorded frame cannot be
//! played again.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::message::CHALLENGE_LEN;

/// Bytes of the truncated HMAC carried in a frame.
pub const SIGNATURE_LEN: usize = 8;

/// Links whose last timestamp a receiver remembers (a host and a spare or two).
const REMEMBERED_LINKS: usize = 8;

/// Timestamps count 10 µs units (48 bits last 89 years, as MAVLink's do).
pub const TIMESTAMP_UNITS_PER_S: u64 = 100_000;

/// A link not seen before must not be older than this behind the newest accepted
/// timestamp, so forgetting a link (only 8 are remembered) cannot reopen old frames.
const NEW_LINK_WINDOW: u64 = 60 * TIMESTAMP_UNITS_PER_S;

/// A shared 32-byte secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; 32]);

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Key(…)")
    }
}

/// Why a key file's text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyError {
    /// Not 64 hexadecimal digits (whitespace aside) nor exactly 32 raw bytes.
    Malformed,
    /// All bytes zero: almost certainly not a secret anyone chose.
    AllZero,
}

impl core::fmt::Display for KeyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            KeyError::Malformed => {
                "a key file holds 64 hexadecimal digits (32 bytes), e.g. from \
                 `head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'`"
            }
            KeyError::AllZero => "the key is all zeros",
        })
    }
}

impl Key {
    pub fn new(bytes: [u8; 32]) -> Key {
        Key(bytes)
    }

    /// A key from a key file's bytes: 64 hex digits (whitespace ignored) or 32 raw bytes.
    pub fn from_file_bytes(bytes: &[u8]) -> Result<Key, KeyError> {
        let mut key = [0u8; 32];
        let mut digits = 0usize;
        let mut hex_ok = true;
        for &b in bytes {
            if b.is_ascii_whitespace() {
                continue;
            }
            let v = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => {
                    hex_ok = false;
                    break;
                }
            };
            if digits >= 64 {
                hex_ok = false;
                break;
            }
            key[digits / 2] |= v << if digits % 2 == 0 { 4 } else { 0 };
            digits += 1;
        }
        if !(hex_ok && digits == 64) {
            key = bytes.try_into().map_err(|_| KeyError::Malformed)?;
        }
        if key.iter().all(|&b| b == 0) {
            return Err(KeyError::AllZero);
        }
        Ok(Key(key))
    }

    /// The truncated signature of `signed` (everything in the frame before the signature).
    pub fn sign(&self, signed: &[u8]) -> [u8; SIGNATURE_LEN] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(signed);
        let full = mac.finalize().into_bytes();
        let mut out = [0u8; SIGNATURE_LEN];
        out.copy_from_slice(&full[..SIGNATURE_LEN]);
        out
    }

    /// The `count`th challenge of a bridge started with `entropy`: a keyed hash, so it
    /// cannot be foretold without the key, and differs at every handshake and, given
    /// fresh entropy, at every start.
    pub fn challenge(&self, entropy: &[u8; 32], count: u64) -> [u8; CHALLENGE_LEN] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(b"aibo-motion challenge");
        mac.update(entropy);
        mac.update(&count.to_le_bytes());
        let full = mac.finalize().into_bytes();
        let mut out = [0u8; CHALLENGE_LEN];
        out.copy_from_slice(&full[..CHALLENGE_LEN]);
        out
    }

    /// Whether `signature` is right for `signed`, compared in constant time.
    pub fn verify(&self, signed: &[u8], signature: &[u8]) -> bool {
        let expected = self.sign(signed);
        expected.len() == signature.len()
            && expected
                .iter()
                .zip(signature)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// The last accepted timestamp of each link, to refuse replays.
#[derive(Debug, Clone, Default)]
pub struct ReplayGuard {
    links: [Option<(u8, u64)>; REMEMBERED_LINKS],
    /// Round-robin slot to reuse when all are taken.
    next_slot: usize,
}

impl ReplayGuard {
    /// Accepts `timestamp` from `link` if it is newer than the last one accepted.
    pub fn accept(&mut self, link: u8, timestamp: u64) -> bool {
        if let Some(entry) = self.links.iter_mut().flatten().find(|(l, _)| *l == link) {
            if timestamp <= entry.1 {
                return false;
            }
            entry.1 = timestamp;
            return true;
        }
        if timestamp.saturating_add(NEW_LINK_WINDOW) <= self.newest() {
            return false;
        }
        let slot = match self.links.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                let s = self.next_slot % REMEMBERED_LINKS;
                self.next_slot = s + 1;
                s
            }
        };
        self.links[slot] = Some((link, timestamp));
        true
    }

    /// The highest timestamp accepted from any link.
    pub fn newest(&self) -> u64 {
        self.links
            .iter()
            .flatten()
            .map(|&(_, t)| t)
            .max()
            .unwrap_or(0)
    }
}
