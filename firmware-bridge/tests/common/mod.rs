//! What the bridge's tests share.

use firmware_bridge::message::Message;
use firmware_bridge::wire::{self, MAX_ENCODED};

/// `m` as an unsigned frame on the wire, numbered `seq`.
pub fn encode(seq: u16, m: &Message<'_>) -> Vec<u8> {
    let mut payload = [0u8; wire::MAX_PAYLOAD];
    let n = m.encode(&mut payload);
    let mut out = [0u8; MAX_ENCODED];
    let len = wire::encode_frame(seq, m.id(), &payload[..n], None, &mut out).unwrap();
    out[..len].to_vec()
}
