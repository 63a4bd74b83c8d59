//! ODA archives: how Sony's MoNet packs many MTN (and sound) files into one.
//!
//! ```text
//! Header, 64 bytes: "ODAR" | u32 version 0x00030000 | u32 count | u32 entry size 144 | 48 zeros
//! Entry, 144 bytes: 4-byte type | 128-byte NUL-padded name | u32 offset | u32 size | u32 0
//! Payloads back to back after the table, in entry order.
//! ```
//! Sony's archives sort entries by name (byte order) and start the first payload right
//! after the table; [`Archive::encode`] writes exactly that.

use crate::binary::{latin1_to_string, string_to_latin1, Cursor, FormatError};
use byteorder::{LittleEndian, WriteBytesExt};

pub const MAGIC: &[u8; 4] = b"ODAR";
pub const VERSION: u32 = 0x0003_0000;
pub const HEADER_SIZE: usize = 64;
pub const ENTRY_SIZE: usize = 144;
pub const NAME_SIZE: usize = 128;

/// One archived file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Four-byte type: `OMTN` for motions; `OSND`, `WAVE`, `MIDI`, `LED\0`, `SYN\0` for others.
    pub kind: [u8; 4],
    /// The name Sony's runtime looks the entry up by; it may differ from a motion's own name.
    pub name: String,
    pub data: Vec<u8>,
}

impl Entry {
    /// The type as text, with trailing NULs dropped (`LED\0` → `LED`).
    pub fn kind_str(&self) -> String {
        latin1_to_string(&self.kind)
            .trim_end_matches('\0')
            .to_string()
    }
}

/// The order an archive's entries are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Sorted by name, as Sony's MoNet archives are.
    ByName,
    /// As they stand: R-CODE sticks keep a user's entries in the order they were added.
    AsGiven,
}

/// An archive's entries, in stored order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Archive {
    pub entries: Vec<Entry>,
}

/// Why an archive cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    #[error("entry name {name:?} is {len} bytes; an ODA name holds at most {max}", max = NAME_SIZE - 1)]
    NameTooLong { name: String, len: usize },
    #[error("entry name {0:?} is empty, has a NUL, or a character outside ISO 8859-1")]
    BadName(String),
    #[error("two entries are named {0:?}")]
    DuplicateName(String),
    #[error("the archive would exceed 4 GiB, which ODA offsets cannot address")]
    TooLarge,
}

/// A decoded archive with the oddities met on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub archive: Archive,
    pub warnings: Vec<String>,
}

impl Archive {
    /// Reads an archive. Every entry's payload must lie inside the file.
    pub fn decode(data: &[u8]) -> Result<Decoded, FormatError> {
        let mut warnings = Vec::new();
        let mut c = Cursor::new(data);
        let magic = c.take(4, "archive magic")?;
        if magic != MAGIC {
            return Err(FormatError::new(
                0,
                "archive magic",
                "\"ODAR\"",
                format!("{:?}", latin1_to_string(magic)),
            ));
        }
        let version = c.u32("archive version")?;
        if version != VERSION {
            warnings.push(format!(
                "archive version is {version:#010x}; Sony's archives are {VERSION:#010x}"
            ));
        }
        let at = c.pos();
        let count = c.u32("number of entries")? as usize;
        c.expect_u32(ENTRY_SIZE as u32, "entry size")?;
        let table_end = (count as u64) * ENTRY_SIZE as u64 + HEADER_SIZE as u64;
        if table_end > data.len() as u64 {
            return Err(FormatError::new(
                at,
                "number of entries",
                format!(
                    "at most {} entries in a file of {} bytes",
                    data.len().saturating_sub(HEADER_SIZE) / ENTRY_SIZE,
                    data.len()
                ),
                count.to_string(),
            ));
        }
        let mut c = Cursor::at(data, HEADER_SIZE);
        // The table first; payloads are copied only once none overlaps another, so the
        // entries never hold more than the file.
        let mut table = Vec::with_capacity(count);
        let mut expected_offset = table_end;
        for i in 0..count {
            let entry_at = c.pos();
            let mut kind = [0u8; 4];
            kind.copy_from_slice(c.take(4, "entry type")?);
            let raw_name = c.take(NAME_SIZE, "entry name")?;
            let name_len = raw_name.iter().position(|&b| b == 0).unwrap_or(NAME_SIZE);
            let name = latin1_to_string(&raw_name[..name_len]);
            if name_len == NAME_SIZE {
                warnings.push(format!(
                    "entry {i} at byte {entry_at}: its name fills all {NAME_SIZE} bytes with no NUL to end it"
                ));
            }
            let offset = c.u32("entry offset")?;
            let size = c.u32("entry size")?;
            let reserved = c.u32("entry reserved field")?;
            let end = u64::from(offset) + u64::from(size);
            if u64::from(offset) < table_end || end > data.len() as u64 {
                return Err(FormatError::new(
                    entry_at + 4 + NAME_SIZE,
                    format!("entry {i} ({name:?}) offset and size"),
                    format!(
                        "a payload between byte {table_end} and the end of the file ({} bytes)",
                        data.len()
                    ),
                    format!("offset {offset}, size {size}"),
                ));
            }
            if u64::from(offset) != expected_offset {
                warnings.push(format!(
                    "entry {i} ({name:?}) starts at byte {offset}, not right after the previous one \
                     ({expected_offset}); packing again lays it out as Sony does"
                ));
            }
            expected_offset = end;
            if reserved != 0 {
                warnings.push(format!(
                    "entry {i} ({name:?}) has {reserved} in its reserved field; it is not kept"
                ));
            }
            table.push((entry_at, kind, name, offset as usize, end as usize));
        }
        // Sony's archives never share a payload between entries.
        let mut by_offset: Vec<usize> = (0..table.len()).collect();
        by_offset.sort_by_key(|&i| (table[i].3, table[i].4));
        let mut reach: Option<usize> = None; // the entry reaching furthest so far
        for &i in &by_offset {
            let (at, _, name, start, end) = &table[i];
            if start == end {
                continue;
            }
            if let Some(r) = reach {
                let (_, _, before, _, before_end) = &table[r];
                if start < before_end {
                    return Err(FormatError::new(
                        at + 4 + NAME_SIZE,
                        format!("entry {i} ({name:?}) offset"),
                        format!(
                            "a payload of its own, after entry {r} ({before:?}) ends at byte \
                             {before_end}"
                        ),
                        format!("bytes {start} to {end}, overlapping it"),
                    ));
                }
            }
            if reach.is_none_or(|r| *end > table[r].4) {
                reach = Some(i);
            }
        }
        // Bounds checked above; the payloads together are at most the file.
        let entries: Vec<Entry> = table
            .into_iter()
            .map(|(_, kind, name, start, end)| Entry {
                kind,
                name,
                data: data[start..end].to_vec(),
            })
            .collect();
        if !entries.windows(2).all(|w| w[0].name <= w[1].name) {
            warnings.push("entries are not sorted by name as in Sony's archives".to_string());
        }
        if expected_offset < data.len() as u64 {
            warnings.push(format!(
                "{} bytes after the last payload are ignored",
                data.len() as u64 - expected_offset
            ));
        }
        // Sony's runtime finds an entry by name: a second of the same name is never found.
        let mut first_of: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let first = *first_of.entry(e.name.as_str()).or_insert(i);
            if first != i {
                warnings.push(format!(
                    "entry {i} is named {:?} like entry {first}: lookups by name find only the first",
                    e.name
                ));
            }
        }
        Ok(Decoded {
            archive: Archive { entries },
            warnings,
        })
    }

    /// Writes the archive in Sony's layout: entries sorted by name (byte order), payloads
    /// back to back right after the table.
    pub fn encode(&self) -> Result<Vec<u8>, PackError> {
        self.encode_in(Order::ByName)
    }

    /// The archive's bytes with its entries in `order`.
    pub fn encode_in(&self, order_of_entries: Order) -> Result<Vec<u8>, PackError> {
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        let mut names = Vec::with_capacity(entries.len());
        for e in &entries {
            let bytes = string_to_latin1(&e.name)
                .filter(|b| !b.is_empty() && !b.contains(&0))
                .ok_or_else(|| PackError::BadName(e.name.clone()))?;
            if bytes.len() >= NAME_SIZE {
                return Err(PackError::NameTooLong {
                    name: e.name.clone(),
                    len: bytes.len(),
                });
            }
            names.push(bytes);
        }
        // Sorted by the bytes as stored, which is how Sony's archives are ordered (and
        // how a repeated name shows).
        let mut sorted: Vec<usize> = (0..entries.len()).collect();
        sorted.sort_by(|&a, &b| names[a].cmp(&names[b]));
        if let Some(w) = sorted.windows(2).find(|w| names[w[0]] == names[w[1]]) {
            return Err(PackError::DuplicateName(entries[w[0]].name.clone()));
        }
        let order = match order_of_entries {
            Order::ByName => sorted,
            Order::AsGiven => (0..entries.len()).collect(),
        };
        entries = order.iter().map(|&i| entries[i]).collect();
        let names: Vec<&Vec<u8>> = order.iter().map(|&i| &names[i]).collect();

        let table_end = HEADER_SIZE + ENTRY_SIZE * entries.len();
        let total = table_end as u64 + entries.iter().map(|e| e.data.len() as u64).sum::<u64>();
        if total > u64::from(u32::MAX) {
            return Err(PackError::TooLarge);
        }
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, VERSION);
        put_u32(&mut out, entries.len() as u32);
        put_u32(&mut out, ENTRY_SIZE as u32);
        out.resize(HEADER_SIZE, 0);
        let mut offset = table_end as u32;
        for (e, name) in entries.iter().zip(&names) {
            out.extend_from_slice(&e.kind);
            out.extend_from_slice(name);
            out.resize(out.len() + NAME_SIZE - name.len(), 0);
            put_u32(&mut out, offset);
            put_u32(&mut out, e.data.len() as u32);
            put_u32(&mut out, 0);
            offset += e.data.len() as u32;
        }
        for e in &entries {
            out.extend_from_slice(&e.data);
        }
        Ok(out)
    }
}

// Writes into a Vec cannot fail.
fn put_u32(out: &mut Vec<u8>, v: u32) {
    let _ = out.write_u32::<LittleEndian>(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, data: &[u8]) -> Entry {
        Entry {
            kind: *b"OMTN",
            name: name.into(),
            data: data.to_vec(),
        }
    }

    #[test]
    fn layout_matches_the_description() {
        let a = Archive {
            entries: vec![entry("b", b"BBBBBB"), entry("a", b"AAAA")],
        };
        let bytes = a.encode().unwrap();
        assert_eq!(bytes.len(), 64 + 2 * 144 + 10);
        assert_eq!(&bytes[0..4], b"ODAR");
        assert_eq!(&bytes[4..8], &[0, 0, 3, 0]);
        assert_eq!(&bytes[8..12], &[2, 0, 0, 0]);
        assert_eq!(&bytes[12..16], &[144, 0, 0, 0]);
        assert!(bytes[16..64].iter().all(|&b| b == 0));
        // First entry is "a", sorted, payload right after the table.
        assert_eq!(&bytes[64..68], b"OMTN");
        assert_eq!(bytes[68], b'a');
        assert!(bytes[69..196].iter().all(|&b| b == 0));
        assert_eq!(&bytes[196..200], &352u32.to_le_bytes());
        assert_eq!(&bytes[200..204], &4u32.to_le_bytes());
        assert_eq!(&bytes[208 + 132..208 + 136], &356u32.to_le_bytes());
        assert_eq!(&bytes[352..], b"AAAABBBBBB");

        let back = Archive::decode(&bytes).unwrap();
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.archive.entries[0], entry("a", b"AAAA"));
        assert_eq!(back.archive.entries[1], entry("b", b"BBBBBB"));
        assert_eq!(back.archive.encode().unwrap(), bytes);
    }

    #[test]
    fn payload_outside_the_file_is_an_error() {
        let mut bytes = Archive {
            entries: vec![entry("a", b"AAAA")],
        }
        .encode()
        .unwrap();
        bytes[64 + 4 + 128 + 4] = 200; // size 200 > file
        let err = Archive::decode(&bytes).unwrap_err();
        assert_eq!(err.offset, 64 + 4 + 128);
        assert!(err.to_string().contains("offset 208, size 200"), "{err}");
    }

    #[test]
    fn overlapping_payloads_are_refused_with_their_offsets() {
        // Many entries pointing at one payload would each copy it: a 1 MB archive took
        // 1.84 GB. Sony's archives never overlap.
        let big = vec![7u8; 4096];
        let mut bytes = Archive {
            entries: vec![entry("a", &big), entry("b", &big), entry("c", b"")],
        }
        .encode()
        .unwrap();
        let table = 64 + 3 * 144;
        let offset_of = |i: usize| 64 + i * 144 + 4 + 128;
        // b points into a's payload.
        bytes[offset_of(1)..offset_of(1) + 4].copy_from_slice(&(table as u32 + 100).to_le_bytes());
        let err = Archive::decode(&bytes).unwrap_err();
        assert_eq!(err.offset, offset_of(1));
        assert!(err.to_string().contains("overlapping"), "{err}");
        assert!(
            err.to_string().contains("entry 0 (\"a\") ends at byte"),
            "{err}"
        );
        // An empty entry anywhere overlaps nothing.
        let mut bytes = Archive {
            entries: vec![entry("a", &big), entry("b", b""), entry("c", b"C")],
        }
        .encode()
        .unwrap();
        bytes[offset_of(1)..offset_of(1) + 4].copy_from_slice(&(table as u32 + 10).to_le_bytes());
        let decoded = Archive::decode(&bytes).unwrap();
        let total: usize = decoded.archive.entries.iter().map(|e| e.data.len()).sum();
        assert!(total <= bytes.len());
    }

    #[test]
    fn absurd_count_is_an_error_before_any_allocation() {
        let mut bytes = Archive::default().encode().unwrap();
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = Archive::decode(&bytes).unwrap_err();
        assert_eq!(err.offset, 8);
    }

    #[test]
    fn duplicate_and_bad_names_are_refused() {
        let dup = Archive {
            entries: vec![entry("a", b""), entry("a", b"x")],
        };
        assert_eq!(dup.encode(), Err(PackError::DuplicateName("a".into())));
        let long = Archive {
            entries: vec![entry(&"n".repeat(128), b"")],
        };
        assert!(matches!(long.encode(), Err(PackError::NameTooLong { .. })));
        let empty = Archive {
            entries: vec![entry("", b"")],
        };
        assert!(matches!(empty.encode(), Err(PackError::BadName(_))));
    }
}
