//! MTN encoding in Sony's exact layout.

use super::read::section3_size;
use super::{Motion, MAGIC, MAX_FRAMES_BEFORE};
use crate::binary::{pad4, string_to_latin1};
use byteorder::{LittleEndian, WriteBytesExt};

/// Why a [`Motion`] cannot be written as an MTN file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("a motion needs at least one keyframe")]
    NoKeyframes,
    #[error("{0} keyframes: an MTN file holds at most 65535")]
    TooManyKeyframes(usize),
    #[error("{0} joints: an MTN file holds at most 65535")]
    TooManyJoints(usize),
    #[error("{what} is {len} bytes long: an MTN string holds at most 255")]
    StringTooLong { what: String, len: usize },
    #[error("{what} has a character outside ISO 8859-1, which an MTN string cannot hold")]
    NotEightBit { what: String },
    #[error("keyframe {keyframe} has {found} joint values for {expected} locators")]
    JointCount {
        keyframe: usize,
        expected: usize,
        found: usize,
    },
    #[error("keyframe 0 has {0} interpolation frames before it; the first keyframe has none")]
    FirstKeyframeInterpolated(u32),
    #[error("keyframe {keyframe} has {found} interpolation frames; at most {MAX_FRAMES_BEFORE}")]
    TooManyFrames { keyframe: usize, found: u32 },
    #[error("the motion is larger than an MTN file can describe (a section over 4 GiB)")]
    TooLarge,
}

/// Checks that `motion` can be written; [`encode`] runs this first.
pub fn validate(motion: &Motion) -> Result<(), EncodeError> {
    let k = motion.keyframes.len();
    if k == 0 {
        return Err(EncodeError::NoKeyframes);
    }
    if k > usize::from(u16::MAX) {
        return Err(EncodeError::TooManyKeyframes(k));
    }
    let j = motion.locators.len();
    if j > usize::from(u16::MAX) {
        return Err(EncodeError::TooManyJoints(j));
    }
    if motion.keyframes[0].frames_before != 0 {
        return Err(EncodeError::FirstKeyframeInterpolated(
            motion.keyframes[0].frames_before,
        ));
    }
    for (i, kf) in motion.keyframes.iter().enumerate() {
        if kf.joints.len() != j {
            return Err(EncodeError::JointCount {
                keyframe: i,
                expected: j,
                found: kf.joints.len(),
            });
        }
        if kf.frames_before > MAX_FRAMES_BEFORE {
            return Err(EncodeError::TooManyFrames {
                keyframe: i,
                found: kf.frames_before,
            });
        }
    }
    Ok(())
}

/// Encodes `motion` in Sony's layout: sections padded to 4 bytes with zeros, sizes that
/// include headers and padding, and Section 3's stored size kept when the motion was read
/// with a wrong one.
pub fn encode(motion: &Motion) -> Result<Vec<u8>, EncodeError> {
    validate(motion)?;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);

    // Section 0. Counts fit u16: checked by validate().
    put_u32(&mut out, 0);
    put_u32(&mut out, 24);
    put_u32(&mut out, 4);
    put_u16(&mut out, motion.layout.major_version);
    put_u16(&mut out, motion.layout.minor_version);
    put_u16(&mut out, motion.keyframes.len() as u16);
    put_u16(&mut out, motion.frame_ms);
    put_u32(&mut out, motion.layout.option);

    let mut names = Vec::new();
    put_string(&mut names, &motion.name, "motion name")?;
    put_string(&mut names, &motion.creator, "creator")?;
    put_string(&mut names, &motion.design_label, "design label")?;
    put_section(&mut out, 1, &names)?;

    let mut joints = Vec::new();
    put_u16(&mut joints, motion.locators.len() as u16);
    for (i, locator) in motion.locators.iter().enumerate() {
        put_string(&mut joints, locator, &format!("locator {i}"))?;
    }
    put_section(&mut out, 2, &joints)?;

    let size = match motion.layout.stored_section3_size {
        Some(stored) => stored,
        None => u32::try_from(section3_size(motion.keyframes.len(), motion.locators.len()))
            .map_err(|_| EncodeError::TooLarge)?,
    };
    put_u32(&mut out, 3);
    put_u32(&mut out, size);
    put_u32(&mut out, 0);
    for (k, kf) in motion.keyframes.iter().enumerate() {
        if k > 0 {
            // validate() keeps this within i32.
            put_i32(&mut out, kf.frames_before as i32);
        }
        for v in [kf.roll, kf.pitch, kf.yaw].iter().chain(&kf.joints) {
            put_i32(&mut out, *v);
        }
    }
    Ok(out)
}

fn put_section(out: &mut Vec<u8>, number: u32, body: &[u8]) -> Result<(), EncodeError> {
    let padding = pad4(8 + body.len());
    let size = u32::try_from(8 + body.len() + padding).map_err(|_| EncodeError::TooLarge)?;
    put_u32(out, number);
    put_u32(out, size);
    out.extend_from_slice(body);
    out.resize(out.len() + padding, 0);
    Ok(())
}

fn put_string(out: &mut Vec<u8>, text: &str, what: &str) -> Result<(), EncodeError> {
    let bytes = string_to_latin1(text).ok_or_else(|| EncodeError::NotEightBit {
        what: what.to_string(),
    })?;
    let len = u8::try_from(bytes.len()).map_err(|_| EncodeError::StringTooLong {
        what: what.to_string(),
        len: bytes.len(),
    })?;
    out.push(len);
    out.extend_from_slice(&bytes);
    Ok(())
}

// Writes into a Vec cannot fail; these wrappers say so once.
fn put_u16(out: &mut Vec<u8>, v: u16) {
    let _ = out.write_u16::<LittleEndian>(v);
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    let _ = out.write_u32::<LittleEndian>(v);
}

fn put_i32(out: &mut Vec<u8>, v: i32) {
    let _ = out.write_i32::<LittleEndian>(v);
}
