//! Bounds-checked little-endian reading for the binary formats (MTN, ODA).
//!
//! Every read names what it was reading, so a short or corrupt file turns into a
//! [`FormatError`] that says where, what was expected and what was found, never a panic.

use byteorder::{ByteOrder, LittleEndian};

/// A binary input that does not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {context}: expected {expected}, found {found}")]
pub struct FormatError {
    /// Offset from the start of the file where the problem was found.
    pub offset: usize,
    /// What was being read.
    pub context: String,
    pub expected: String,
    pub found: String,
}

impl FormatError {
    pub fn new(
        offset: usize,
        context: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        FormatError {
            offset,
            context: context.into(),
            expected: expected.into(),
            found: found.into(),
        }
    }
}

/// A read position in a byte slice. Offsets are absolute within `data`.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data, pos: 0 }
    }

    pub fn at(data: &'a [u8], pos: usize) -> Self {
        Cursor { data, pos }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left from the current position to the end of the data.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The next `n` bytes, or an error naming `what` when the data ends first.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], FormatError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.data.len());
        match end {
            Some(end) => {
                let bytes = &self.data[self.pos..end];
                self.pos = end;
                Ok(bytes)
            }
            None => Err(FormatError::new(
                self.pos,
                what,
                format!("{n} bytes"),
                format!("end of data after {} bytes", self.remaining()),
            )),
        }
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, FormatError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, FormatError> {
        Ok(LittleEndian::read_u16(self.take(2, what)?))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, FormatError> {
        Ok(LittleEndian::read_u32(self.take(4, what)?))
    }

    pub fn i32(&mut self, what: &str) -> Result<i32, FormatError> {
        Ok(LittleEndian::read_i32(self.take(4, what)?))
    }

    /// Reads a u32 and fails unless it equals `expected`.
    pub fn expect_u32(&mut self, expected: u32, what: &str) -> Result<(), FormatError> {
        let at = self.pos;
        let found = self.u32(what)?;
        if found == expected {
            Ok(())
        } else {
            Err(FormatError::new(
                at,
                what,
                expected.to_string(),
                found.to_string(),
            ))
        }
    }
}

/// Bytes to text, one byte per character (ISO 8859-1). MTN and ODA strings are 8-bit
/// with no declared encoding; this mapping keeps every byte, so a file re-encodes exactly.
pub fn latin1_to_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The inverse of [`latin1_to_string`]; `None` when a character has no 8-bit form.
pub fn string_to_latin1(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// Zero bytes needed after `len` bytes to reach a multiple of four.
pub fn pad4(len: usize) -> usize {
    (4 - len % 4) % 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_past_end_is_an_error_with_offset() {
        let mut c = Cursor::new(&[1, 2, 3]);
        assert_eq!(c.u16("a").unwrap(), 0x0201);
        let err = c.u32("the thing").unwrap_err();
        assert_eq!(err.offset, 2);
        assert!(err.to_string().contains("the thing"), "{err}");
        assert!(err.to_string().contains("1 bytes"), "{err}");
    }

    #[test]
    fn latin1_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(string_to_latin1(&latin1_to_string(&all)).unwrap(), all);
        assert_eq!(string_to_latin1("\u{263a}"), None);
    }

    #[test]
    fn pad4_known_values() {
        assert_eq!([0, 1, 2, 3, 4, 5].map(pad4), [0, 3, 2, 1, 0, 3]);
    }
}
