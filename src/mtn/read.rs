//! MTN decoding: strict about structure, tolerant of the quirks real files have.

use super::{Keyframe, Layout, Motion, MAGIC, MAX_FRAMES_BEFORE};
use crate::binary::{latin1_to_string, pad4, Cursor, FormatError};

/// A decoded motion and the oddities met on the way (each one usable, but worth saying).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub motion: Motion,
    pub warnings: Vec<String>,
}

const SECTION0_SIZE: u32 = 24;
const SECTION_COUNT: u32 = 4;
const SECTION_HEADER: usize = 8;

/// Decodes an MTN file. Structural damage (bad magic, truncation, section sizes or string
/// lengths that contradict the content, negative counts) is an error naming the offset;
/// a wrong Section 3 size is a warning and is kept in [`Layout`] for exact re-encoding.
pub fn decode(data: &[u8]) -> Result<Decoded, FormatError> {
    let mut warnings = Vec::new();
    let mut c = Cursor::new(data);

    let magic = c.take(4, "file magic")?;
    if magic != MAGIC {
        return Err(FormatError::new(
            0,
            "file magic",
            "\"OMTN\"",
            format!("{:?}", latin1_to_string(magic)),
        ));
    }

    // Section 0: fixed header.
    c.expect_u32(0, "Section 0 number")?;
    c.expect_u32(SECTION0_SIZE, "Section 0 size")?;
    c.expect_u32(SECTION_COUNT, "number of sections")?;
    let major_version = c.u16("major version")?;
    let minor_version = c.u16("minor version")?;
    let at = c.pos();
    let keyframe_count = c.u16("number of keyframes")?;
    if keyframe_count == 0 {
        return Err(FormatError::new(
            at,
            "number of keyframes",
            "at least 1",
            "0",
        ));
    }
    let frame_ms = c.u16("frame rate")?;
    let option = c.u32("reserved field")?;

    // Section 1: names.
    let s1 = Section::open(&mut c, 1)?;
    let name = s1.string(&mut c, "motion name")?;
    let creator = s1.string(&mut c, "creator")?;
    let design_label = s1.string(&mut c, "design label")?;
    s1.close(&mut c, &mut warnings)?;

    // Section 2: joint locators.
    let s2 = Section::open(&mut c, 2)?;
    let at = c.pos();
    let joint_count = c.u16("number of joints")?;
    s2.check_inside(at + 2, "number of joints")?;
    // Each locator needs at least its length byte, so a count beyond the section is absurd.
    if usize::from(joint_count) > s2.end.saturating_sub(c.pos()) {
        return Err(FormatError::new(
            at,
            "number of joints",
            format!(
                "at most {} in a Section 2 of {} bytes",
                s2.end.saturating_sub(c.pos()),
                s2.size
            ),
            joint_count.to_string(),
        ));
    }
    let mut locators = Vec::with_capacity(usize::from(joint_count));
    for i in 0..joint_count {
        locators.push(s2.string(&mut c, &format!("locator {i}"))?);
    }
    s2.close(&mut c, &mut warnings)?;

    // Section 3: keyframes. Its stored size is not trusted: K and J say where data is.
    let s3_start = c.pos();
    c.expect_u32(3, "Section 3 number")?;
    let stored_size = c.u32("Section 3 size")?;
    c.expect_u32(0, "Section 3 data type")?;
    let joints = usize::from(joint_count);
    let keyframes_n = usize::from(keyframe_count);
    // Fits easily in u64: K, J < 2^16.
    let expected_size = section3_size(keyframes_n, joints);
    let needed = expected_size - 12;
    if (c.remaining() as u64) < needed {
        return Err(FormatError::new(
            c.pos(),
            "Section 3 keyframe data",
            format!("{needed} bytes for {keyframes_n} keyframes of {joints} joints"),
            format!("end of file after {} bytes", c.remaining()),
        ));
    }
    let mut keyframes = Vec::with_capacity(keyframes_n);
    for k in 0..keyframes_n {
        let frames_before = if k == 0 {
            0
        } else {
            let at = c.pos();
            let n = c.i32("interpolation frame count")?;
            u32::try_from(n)
                .ok()
                .filter(|&n| n <= MAX_FRAMES_BEFORE)
                .ok_or_else(|| {
                    FormatError::new(
                        at,
                        format!("interpolation frame count before keyframe {k}"),
                        format!(
                            "a count from 0 to {MAX_FRAMES_BEFORE} (what Sony's player can play)"
                        ),
                        n.to_string(),
                    )
                })?
        };
        let roll = c.i32("body roll")?;
        let pitch = c.i32("body pitch")?;
        let yaw = c.i32("body yaw")?;
        let mut values = Vec::with_capacity(joints);
        for _ in 0..joints {
            values.push(c.i32("joint value")?);
        }
        keyframes.push(Keyframe {
            frames_before,
            roll,
            pitch,
            yaw,
            joints: values,
        });
    }

    let stored_section3_size = if u64::from(stored_size) == expected_size {
        None
    } else {
        warnings.push(format!(
            "Section 3 at byte {s3_start} says its size is {stored_size} bytes, but {keyframes_n} \
             keyframes of {joints} joints take {expected_size}; read by the counts, size kept as stored"
        ));
        Some(stored_size)
    };
    if c.remaining() > 0 {
        warnings.push(format!(
            "{} bytes after the last keyframe (byte {}) are not part of the motion and were ignored",
            c.remaining(),
            c.pos()
        ));
    }

    let motion = Motion {
        name,
        creator,
        design_label,
        frame_ms,
        locators,
        keyframes,
        layout: Layout {
            major_version,
            minor_version,
            option,
            stored_section3_size,
        },
    };
    warnings.extend(motion.advisories());
    Ok(Decoded { motion, warnings })
}

/// Section 3's size: header, data type, K keyframes and K − 1 interpolation counts.
pub(super) fn section3_size(keyframes: usize, joints: usize) -> u64 {
    let (k, j) = (keyframes as u64, joints as u64);
    12 + k * (12 + 4 * j) + 4 * k.saturating_sub(1)
}

/// A variable-length section (1 or 2) whose stored size must match its content.
struct Section {
    number: u32,
    start: usize,
    size: u32,
    end: usize,
}

impl Section {
    fn open(c: &mut Cursor, number: u32) -> Result<Section, FormatError> {
        let start = c.pos();
        c.expect_u32(number, &format!("Section {number} number"))?;
        let at = c.pos();
        let size = c.u32(&format!("Section {number} size"))?;
        let end = start
            .checked_add(size as usize)
            .filter(|&end| end <= c.pos() + c.remaining() && size as usize >= SECTION_HEADER);
        match end {
            Some(end) => Ok(Section {
                number,
                start,
                size,
                end,
            }),
            None => Err(FormatError::new(
                at,
                format!("Section {number} size"),
                format!(
                    "between {SECTION_HEADER} and the {} bytes left in the file",
                    c.remaining() + SECTION_HEADER
                ),
                size.to_string(),
            )),
        }
    }

    fn check_inside(&self, pos: usize, what: &str) -> Result<(), FormatError> {
        if pos <= self.end {
            Ok(())
        } else {
            Err(FormatError::new(
                self.start + 4,
                format!("Section {} size", self.number),
                format!("room for the {what}"),
                format!("{} bytes, ending at byte {}", self.size, self.end),
            ))
        }
    }

    /// A length-prefixed string that must lie inside this section.
    fn string(&self, c: &mut Cursor, what: &str) -> Result<String, FormatError> {
        let at = c.pos();
        self.check_inside(at + 1, &format!("{what} length byte"))?;
        let len = usize::from(c.u8(what)?);
        if at + 1 + len > self.end {
            return Err(FormatError::new(
                at,
                format!("{what} length"),
                format!(
                    "at most {} (Section {} of {} bytes ends at byte {})",
                    self.end - at - 1,
                    self.number,
                    self.size,
                    self.end
                ),
                len.to_string(),
            ));
        }
        Ok(latin1_to_string(c.take(len, what)?))
    }

    /// The rest must be 0–3 padding bytes up to a 4-byte boundary.
    fn close(&self, c: &mut Cursor, warnings: &mut Vec<String>) -> Result<(), FormatError> {
        let content = c.pos() - self.start;
        let expected = content + pad4(content);
        if self.size as usize != expected {
            return Err(FormatError::new(
                self.start + 4,
                format!("Section {} size", self.number),
                format!("{expected} ({content} bytes of content, padded to 4)"),
                self.size.to_string(),
            ));
        }
        let padding = c.take(expected - content, "padding")?;
        if padding.iter().any(|&b| b != 0) {
            warnings.push(format!(
                "Section {} padding at byte {} is not zero; it is not kept",
                self.number,
                self.start + content
            ));
        }
        Ok(())
    }
}
