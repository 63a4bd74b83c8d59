//! What the bridge's tests share.

use firmware_bridge::message::Message;
use firmware_bridge::wire::{self, MAX_ENCODED};
use firmware_bridge::Bridge;

/// A host that numbers the unsigned frames it sends a bridge.
#[derive(Debug, Default)]
pub struct Host {
    seq: u16,
}

impl Host {
    /// Sends `m` to `bridge` as the next frame; what the bridge replied, as bytes.
    pub fn send(&mut self, bridge: &mut Bridge, m: &Message<'_>) -> Vec<u8> {
        self.seq = self.seq.wrapping_add(1);
        let mut replies = Vec::new();
        bridge.receive(&encode(self.seq, m), &mut |r| replies.extend_from_slice(r));
        replies
    }
}

/// `m` as an unsigned frame on the wire, numbered `seq`.
pub fn encode(seq: u16, m: &Message<'_>) -> Vec<u8> {
    let mut payload = [0u8; wire::MAX_PAYLOAD];
    let n = m.encode(&mut payload);
    let mut out = [0u8; MAX_ENCODED];
    let len = wire::encode_frame(seq, m.id(), &payload[..n], None, &mut out).unwrap();
    out[..len].to_vec()
}

/// The acknowledgements (message id, code) among a bridge's unsigned `replies`, every
/// one of which must be a well-formed frame.
pub fn acks(replies: &[u8]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    wire::Decoder::new().feed(replies, |raw| {
        let frame = wire::parse_frame(raw.unwrap()).unwrap();
        if let Ok(Message::Ack { msg, code, .. }) = Message::decode(frame.msg, frame.payload) {
            out.push((msg, code));
        }
    });
    out
}
