//! MWC catalogues (`OPEN-R/MW/CONF/ERS-210.MWC`, `ERS-220.MWC`, `ERS-7.MWC`): R-CODE's
//! table from a number (MWCID) to the motion, sound and LED entries an action plays.
//!
//! Little-endian. A 16-byte header (`MWCM`, version 1, the number of blocks, the total
//! number of chunks), then blocks back to back: `MCID`, the MWCID, its chunk count, then
//! each chunk: `CMAC`, type, repeat, start, a fourth field (meaning unknown; 0 on the
//! ERS-210), synchronize (i16), special (i16), a name length byte and the name. The
//! ERS-7's file is gzip-compressed. A read checks the header's counts against what it
//! finds and consumes every byte, so that writing a catalogue back gives the same bytes.

use std::io::{Read, Write};

use crate::binary::{latin1_to_string, string_to_latin1, Cursor, FormatError};

/// Chunk types Sony's treats use for a user action.
pub mod kind {
    /// A motion of every joint (an `OMTN` entry of `MOTION.ODA`).
    pub const MOTION: i32 = 0x1010;
    /// A sound (an entry of `AUDIO.ODA`).
    pub const SOUND: i32 = 0x2010;
    /// LED patterns (entries of `LED.ODA`); the treats name one pattern under all three.
    pub const LEDS: [i32; 3] = [0x3000, 0x3030, 0x3050];

    /// The archive (file name in `OPEN-R/MW/DATA/P`) the entries of a chunk type live
    /// in; `None` for types a user action does not use.
    pub fn archive(kind: i32) -> Option<&'static str> {
        match kind {
            MOTION => Some("MOTION.ODA"),
            SOUND => Some("AUDIO.ODA"),
            k if LEDS.contains(&k) => Some("LED.ODA"),
            _ => None,
        }
    }
}

/// Largest catalogue a stick holds: Sony's are 15–225 kB. A gzip file that inflates
/// past this is refused rather than followed (a few bytes can inflate to gigabytes).
pub const MAX_MWC_BYTES: usize = 16 * 1024 * 1024;

/// The first MWCID of a user action (Sony's own go up to 24000, its `echo_back`).
pub const FIRST_USER_MWCID: i32 = 24001;

/// One chunk: something an action plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub kind: i32,
    /// 1, or −1 to loop.
    pub repeat: i32,
    pub start: i32,
    /// Meaning unknown: 0 on the ERS-210, often `0x01000000` on the ERS-7.
    pub fourth: i32,
    pub synchronize: i16,
    pub special: i16,
    /// The ODA entry it plays (ISO 8859-1 bytes, kept as they are).
    pub name: String,
}

impl Chunk {
    /// A chunk as Sony's treats write a user action's: played once, from the start,
    /// synchronized, the fourth field and special 0.
    pub fn user(kind: i32, name: &str) -> Chunk {
        Chunk {
            kind,
            repeat: 1,
            start: 0,
            fourth: 0,
            synchronize: 1,
            special: 0,
            name: name.to_string(),
        }
    }
}

/// An action: its MWCID and the chunks it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub id: i32,
    pub chunks: Vec<Chunk>,
}

/// A whole catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    pub version: i32,
    pub blocks: Vec<Block>,
}

/// How a catalogue was stored: plain (ERS-210/220) or gzip (ERS-7), with the gzip
/// header's file name and time kept so that a rewrite looks like Sony's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packing {
    Plain,
    Gzip { name: Option<Vec<u8>>, mtime: u32 },
}

/// A catalogue as read, and how it was packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub catalogue: Catalogue,
    pub packing: Packing,
}

/// Why a catalogue could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MwcError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("the gzip stream is damaged: {0}")]
    Gzip(String),
    #[error("it inflates past {MAX_MWC_BYTES} bytes, more than any catalogue holds")]
    TooLarge,
}

impl Catalogue {
    /// The block of action `id`.
    pub fn block(&self, id: i32) -> Option<&Block> {
        self.blocks.iter().find(|b| b.id == id)
    }

    /// The number of chunks in every block together, as the header counts them.
    pub fn chunk_count(&self) -> usize {
        self.blocks.iter().map(|b| b.chunks.len()).sum()
    }

    /// The next MWCID free for a user action: one past the highest in use, 24001 at least.
    pub fn next_user_id(&self) -> i32 {
        self.blocks
            .iter()
            .map(|b| b.id.saturating_add(1))
            .max()
            .unwrap_or(FIRST_USER_MWCID)
            .max(FIRST_USER_MWCID)
    }
}

/// Reads a catalogue, plain or gzip-compressed.
pub fn decode(bytes: &[u8]) -> Result<Decoded, MwcError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let (inner, packing) = gunzip(bytes)?;
        let catalogue = decode_plain(&inner)?;
        return Ok(Decoded { catalogue, packing });
    }
    Ok(Decoded {
        catalogue: decode_plain(bytes)?,
        packing: Packing::Plain,
    })
}

/// The inflated bytes, and the gzip header's name and time.
fn gunzip(bytes: &[u8]) -> Result<(Vec<u8>, Packing), MwcError> {
    let mut reader = flate2::read::GzDecoder::new(bytes);
    let mut out = Vec::new();
    (&mut reader)
        .take(MAX_MWC_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| MwcError::Gzip(e.to_string()))?;
    if out.len() > MAX_MWC_BYTES {
        return Err(MwcError::TooLarge);
    }
    let header = reader
        .header()
        .ok_or_else(|| MwcError::Gzip("no gzip header".into()))?;
    let packing = Packing::Gzip {
        name: header.filename().map(<[u8]>::to_vec),
        mtime: header.mtime(),
    };
    Ok((out, packing))
}

/// Reads an uncompressed catalogue.
pub fn decode_plain(bytes: &[u8]) -> Result<Catalogue, FormatError> {
    let mut c = Cursor::new(bytes);
    expect_tag(&mut c, b"MWCM", "catalogue magic")?;
    let version = c.i32("catalogue version")?;
    let blocks_at = c.pos();
    let block_count = c.i32("number of blocks")?;
    let chunks_at = c.pos();
    let chunk_total = c.i32("number of chunks")?;
    let block_count = believable(&c, blocks_at, block_count, 12, "number of blocks")?;
    let mut blocks = Vec::with_capacity(block_count);
    let mut chunks_seen = 0usize;
    for _ in 0..block_count {
        expect_tag(&mut c, b"MCID", "block tag")?;
        let id = c.i32("MWCID")?;
        let count_at = c.pos();
        let count = c.i32("number of chunks in the block")?;
        let count = believable(
            &c,
            count_at,
            count,
            25,
            &format!("number of chunks in block {id}"),
        )?;
        let mut chunks = Vec::with_capacity(count);
        for _ in 0..count {
            chunks.push(read_chunk(&mut c)?);
        }
        chunks_seen += chunks.len();
        blocks.push(Block { id, chunks });
    }
    if usize::try_from(chunk_total).ok() != Some(chunks_seen) {
        return Err(FormatError::new(
            chunks_at,
            "number of chunks in the header",
            format!("{chunks_seen}, the chunks the blocks hold"),
            chunk_total.to_string(),
        ));
    }
    if c.remaining() > 0 {
        return Err(FormatError::new(
            c.pos(),
            "end of the catalogue",
            "nothing after the last block",
            format!("{} more bytes", c.remaining()),
        ));
    }
    Ok(Catalogue { version, blocks })
}

/// A count read at `at`, believed only as far as the bytes left could hold that many
/// items of at least `size` bytes each (so no count allocates beyond the input).
fn believable(
    c: &Cursor<'_>,
    at: usize,
    count: i32,
    size: usize,
    what: &str,
) -> Result<usize, FormatError> {
    let most = c.remaining() / size;
    usize::try_from(count)
        .ok()
        .filter(|&n| n <= most)
        .ok_or_else(|| {
            FormatError::new(
                at,
                what,
                format!("0 to {most} ({size} bytes each at least)"),
                count.to_string(),
            )
        })
}

fn expect_tag(c: &mut Cursor<'_>, tag: &[u8; 4], what: &str) -> Result<(), FormatError> {
    let at = c.pos();
    let got = c.take(4, what)?;
    if got != tag {
        return Err(FormatError::new(
            at,
            what,
            format!("{:?}", String::from_utf8_lossy(tag)),
            format!("{:?}", latin1_to_string(got)),
        ));
    }
    Ok(())
}

fn read_chunk(c: &mut Cursor<'_>) -> Result<Chunk, FormatError> {
    expect_tag(c, b"CMAC", "chunk tag")?;
    let kind = c.i32("chunk type")?;
    let repeat = c.i32("chunk repeat")?;
    let start = c.i32("chunk start")?;
    let fourth = c.i32("chunk's fourth field")?;
    let synchronize = c.u16("chunk synchronize")? as i16;
    let special = c.u16("chunk special")? as i16;
    let len = c.u8("chunk name length")?;
    let name = c.take(usize::from(len), "chunk name")?;
    Ok(Chunk {
        kind,
        repeat,
        start,
        fourth,
        synchronize,
        special,
        name: latin1_to_string(name),
    })
}

/// Why a catalogue could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MwcWriteError {
    #[error("chunk name {name:?} in block {block}: at most 255 ISO 8859-1 characters")]
    Name { block: i32, name: String },
    #[error("more blocks or chunks than the header can count")]
    TooMany,
}

/// The catalogue's bytes, uncompressed.
pub fn encode_plain(catalogue: &Catalogue) -> Result<Vec<u8>, MwcWriteError> {
    let count = |n: usize| i32::try_from(n).map_err(|_| MwcWriteError::TooMany);
    let mut out = Vec::new();
    out.extend_from_slice(b"MWCM");
    out.extend_from_slice(&catalogue.version.to_le_bytes());
    out.extend_from_slice(&count(catalogue.blocks.len())?.to_le_bytes());
    out.extend_from_slice(&count(catalogue.chunk_count())?.to_le_bytes());
    for block in &catalogue.blocks {
        out.extend_from_slice(b"MCID");
        out.extend_from_slice(&block.id.to_le_bytes());
        out.extend_from_slice(&count(block.chunks.len())?.to_le_bytes());
        for chunk in &block.chunks {
            let name = string_to_latin1(&chunk.name)
                .filter(|n| n.len() <= 255)
                .ok_or_else(|| MwcWriteError::Name {
                    block: block.id,
                    name: chunk.name.clone(),
                })?;
            out.extend_from_slice(b"CMAC");
            for v in [chunk.kind, chunk.repeat, chunk.start, chunk.fourth] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&chunk.synchronize.to_le_bytes());
            out.extend_from_slice(&chunk.special.to_le_bytes());
            out.push(name.len() as u8);
            out.extend_from_slice(&name);
        }
    }
    Ok(out)
}

/// The catalogue's bytes, packed as `packing` says (gzip for the ERS-7).
pub fn encode(catalogue: &Catalogue, packing: &Packing) -> Result<Vec<u8>, MwcWriteError> {
    let plain = encode_plain(catalogue)?;
    match packing {
        Packing::Plain => Ok(plain),
        Packing::Gzip { name, mtime } => {
            let mut builder = flate2::GzBuilder::new().mtime(*mtime);
            if let Some(name) = name {
                builder = builder.filename(name.clone());
            }
            let mut encoder = builder.write(Vec::new(), flate2::Compression::best());
            // Writing into memory cannot fail.
            let written = encoder.write_all(&plain).and_then(|()| encoder.finish());
            Ok(written.unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Catalogue {
        let chunk = Chunk::user;
        Catalogue {
            version: 1,
            blocks: vec![
                Block {
                    id: 24000,
                    chunks: vec![chunk(kind::MOTION, "echo")],
                },
                Block {
                    id: 24001,
                    chunks: vec![chunk(kind::MOTION, "boo"), chunk(kind::SOUND, "amssound0")],
                },
            ],
        }
    }

    #[test]
    fn a_catalogue_round_trips_plain_and_gzip() {
        let c = sample();
        let plain = encode_plain(&c).unwrap();
        // Header 16, blocks 12 each, chunks 25 + name each.
        assert_eq!(plain.len(), 16 + 2 * 12 + 3 * 25 + 4 + 3 + 9);
        assert_eq!(decode(&plain).unwrap().catalogue, c);
        let packing = Packing::Gzip {
            name: Some(b"ERS-7.MWC".to_vec()),
            mtime: 1_077_864_855,
        };
        let packed = encode(&c, &packing).unwrap();
        let d = decode(&packed).unwrap();
        assert_eq!((d.catalogue, d.packing), (c.clone(), packing));
        assert_eq!(c.next_user_id(), 24002);
    }

    #[test]
    fn damage_is_refused_with_its_place() {
        let plain = encode_plain(&sample()).unwrap();
        for cut in 0..plain.len() {
            assert!(decode(&plain[..cut]).is_err(), "cut at {cut}");
        }
        let mut wrong = plain.clone();
        wrong[12] = 9; // total chunks
        let e = decode(&wrong).unwrap_err().to_string();
        assert!(
            e.starts_with("at byte 12: number of chunks in the header"),
            "{e}"
        );
        let mut extra = plain.clone();
        extra.push(0);
        let e = decode(&extra).unwrap_err().to_string();
        assert!(e.contains("1 more bytes"), "{e}");
        let mut huge = plain;
        huge[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(decode(&huge).is_err());
        // Gzip that is not: refused, not a panic.
        assert!(matches!(
            decode(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff]),
            Err(MwcError::Gzip(_))
        ));
    }
}
