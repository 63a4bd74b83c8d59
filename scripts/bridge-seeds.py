#!/usr/bin/env python3
"""Seeds for the bridge_receive fuzz target: whole host sessions as the bridge reads
them, behind the target's control byte (model, key, chunking). Random bytes rarely make
a frame whose CRC holds; from these the fuzzer reaches the message decoder, the stream
and the store. Each model gets a session with its own joint count (from profiles/, in
the order the bridge's build sorts them): hello, a stream of frames with and without
the body attitude, an upload whose keyframes carry it, and a play. Frames are encoded
as firmware-bridge/PROTOCOL.md says; its test vectors check the encoder first.

    scripts/bridge-seeds.py DIR
"""
import os
import re
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..")


def crc16(data):
    """CRC-16/IBM-3740: poly 0x1021, init 0xFFFF, no reflection."""
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def cobs(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += bytes([255]) + block
                block = bytearray()
    out += bytes([len(block) + 1]) + block
    return bytes(out) + b"\0"


def frame(seq, msg, payload):
    raw = struct.pack("<BBHBH", 1, 0, seq, msg, len(payload)) + payload
    return cobs(raw + struct.pack("<H", crc16(raw)))


def angles(values):
    return bytes([len(values)]) + b"".join(struct.pack("<i", v) for v in values)


def session(joints):
    seq = iter(range(1, 1 << 16))
    out = frame(next(seq), 0x01, bytes([2]))  # HELLO, protocol 2
    out += frame(next(seq), 0x10, struct.pack("<HI", 1, 0))  # STREAM_START
    for k in range(6):
        pose = [(k * 20_000) % 300_000] * joints
        flags = 0x01 | (0x08 if k % 2 else 0) | (0x02 if k == 5 else 0)
        payload = struct.pack("<IB", 2 * k, flags) + angles(pose)
        payload += b"".join(struct.pack("<h", 100) for _ in range(joints))
        if flags & 0x08:
            payload += struct.pack("<ii", 3_000 * k, -17_453)
        out += frame(next(seq), 0x11, payload)  # FRAME
    name = b"seed"
    out += frame(next(seq), 0x20, struct.pack("<HB", 3, joints) + bytes([len(name)]) + name)
    for i in range(3):
        payload = struct.pack("<HHii", i, 0 if i == 0 else 10, 10_000 * i, 50_000)
        out += frame(next(seq), 0x24, payload + angles([i * 30_000] * joints))
    out += frame(next(seq), 0x22, struct.pack("<H", 3))  # UPLOAD_END
    out += frame(next(seq), 0x23, struct.pack("<H", 1) + bytes([len(name)]) + name)  # PLAY
    return out


def main(out):
    # The encoder against PROTOCOL.md's vectors.
    text = open(os.path.join(root, "firmware-bridge", "PROTOCOL.md")).read()
    vectors = {m.group(1): bytes(int(b, 16) for b in m.group(2).split())
               for m in re.finditer(r"^vector ([\w-]+): (.*)$", text, re.M)}
    assert frame(1, 0x01, bytes([1])) == vectors["hello"], "the encoder disagrees with PROTOCOL.md"
    body = struct.pack("<IB", 6, 0x0A) + angles([-349_066, 0, 1_000_000]) + struct.pack("<ii", -87_266, 523_599)
    assert frame(4, 0x11, body) == vectors["frame-body"], "the encoder disagrees with PROTOCOL.md"
    profiles = sorted(f for f in os.listdir(os.path.join(root, "profiles")) if f.endswith(".toml"))
    os.makedirs(out, exist_ok=True)
    for index, name in enumerate(profiles):
        toml = open(os.path.join(root, "profiles", name)).read()
        joints = len(re.findall(r"^\[\[joints\]\]", toml, re.M))
        # Control byte: model in bits 0-1, a key in bit 2 (every frame then refused),
        # chunk size - 1 in bits 3-7.
        for chunk in (0x00, 0x38, 0xF8):
            with open(os.path.join(out, f"session-{name[:-5]}-{chunk:02x}"), "wb") as f:
                f.write(bytes([index | chunk]) + session(joints))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "corpus/bridge_receive")
