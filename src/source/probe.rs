//! What kind of file this is, from its content first and its name last: the one probe
//! for all five kinds (MTN, ODA, BVH, ASF/AMC, MRTK).

use super::{mrtk, text, Format};
use std::path::{Path, PathBuf};

/// A file this toolkit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Mtn,
    Oda,
    Source(Format),
}

/// A file of no kind this build reads, with how it starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: at byte 0: not a file this build reads (it starts with {head:?}; MTN files start with \
     \"OMTN\", ODA archives with \"ODAR\", BVH with HIERARCHY, ASF/AMC with a :keyword or \
     #!OML, MRTK recordings with their magic or end in .bin)",
    path.display()
)]
pub struct UnknownKind {
    pub path: PathBuf,
    /// The first four bytes, printable ones as they are and others as `.`.
    pub head: String,
}

/// The kind of `data` (read from `path`).
pub fn probe(data: &[u8], path: &Path) -> Result<FileKind, UnknownKind> {
    if data.starts_with(crate::mtn::MAGIC) {
        Ok(FileKind::Mtn)
    } else if data.starts_with(crate::oda::MAGIC) {
        Ok(FileKind::Oda)
    } else if let Some(format) = source_format(data, path) {
        Ok(FileKind::Source(format))
    } else {
        let head = data
            .iter()
            .take(4)
            .map(|&b| {
                if b.is_ascii_graphic() {
                    char::from(b)
                } else {
                    '.'
                }
            })
            .collect();
        Err(UnknownKind {
            path: path.to_path_buf(),
            head,
        })
    }
}

/// Tells the motion capture formats apart by content: MRTK's magic, an ASF `:` keyword,
/// an AMC frame layout, BVH's `HIERARCHY`; then by extension for a headerless MRTK
/// recording.
pub fn source_format(data: &[u8], path: &Path) -> Option<Format> {
    if data.starts_with(&mrtk::MAGIC) {
        return Some(Format::Mrtk);
    }
    let head = text::first_keyword(data);
    match head.as_deref() {
        Some(k) if k.eq_ignore_ascii_case("HIERARCHY") => return Some(Format::Bvh),
        Some(k) if k.starts_with(':') || k.starts_with("#!OML") => return Some(Format::AsfAmc),
        _ => {}
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "bvh" => Some(Format::Bvh),
        "asf" | "amc" => Some(Format::AsfAmc),
        "bin" => Some(Format::Mrtk),
        _ => None,
    }
}
