//! Finding an AMC's ASF skeleton on disk. An AMC names its skeleton only loosely, so
//! it is looked for in this order: `--asf FILE`, the `#!OML:ASF <path>` line (as
//! written, then its file name beside the AMC), a same-named `.asf` beside the AMC, then
//! CMU's naming (`01_01.amc` → `01.asf`).

use super::text::{strip_bom, Lines};
use super::{ReadError, ReadOptions};
use std::path::{Path, PathBuf};

/// The ASF for the AMC at `path` (whose text is `data`), and how it was found.
pub fn find_asf(
    path: &Path,
    data: &[u8],
    options: &ReadOptions,
) -> Result<(PathBuf, &'static str), ReadError> {
    if let Some(asf) = &options.asf {
        return Ok((asf.clone(), "--asf"));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tried = Vec::new();
    if let Some(named) = oml_asf_path(data) {
        // The file names the path; it may only lead below the AMC's own folder (a
        // hostile AMC must not make a command open /etc/passwd). `--asf` goes anywhere.
        let as_written = within(dir, &named);
        // Exporters wrote their own machine's path (often Windows): try its file name too.
        let file_name = named
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&named)
            .to_string();
        let candidates = [as_written, within(dir, &file_name)];
        for candidate in candidates.into_iter().flatten() {
            if candidate.is_file() {
                return Ok((candidate, "named by its #!OML:ASF line"));
            }
            tried.push(candidate);
        }
    }
    let beside = path.with_extension("asf");
    if beside.is_file() {
        return Ok((beside, "same name beside the AMC"));
    }
    tried.push(beside);
    if let Some(found) = asf_by_prefix(path) {
        return Ok((
            found,
            "the .asf beside it whose name begins the AMC's, as CMU names them",
        ));
    }
    Err(ReadError::NoSkeleton {
        path: path.to_path_buf(),
        tried,
    })
}

/// `relative` below `dir`, when it is a relative path without `..` (or a root, a drive
/// or a prefix).
fn within(dir: &Path, relative: &str) -> Option<PathBuf> {
    use std::path::Component;
    let path = Path::new(relative);
    let plain = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    (plain && !relative.is_empty()).then(|| dir.join(path))
}

/// CMU names takes `01_01.amc`, `01_02.amc` … for the skeleton `01.asf`: the `.asf`
/// beside `path` whose name is the longest prefix of the AMC's name.
fn asf_by_prefix(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?.to_ascii_lowercase();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("asf")))
        .filter_map(|p| {
            let asf_stem = p.file_stem()?.to_str()?.to_ascii_lowercase();
            stem.starts_with(&asf_stem).then_some((asf_stem.len(), p))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, p)| p)
}

/// The path on a `#!OML:ASF <path>` line, if the file has one before its data.
fn oml_asf_path(data: &[u8]) -> Option<String> {
    let mut lines = Lines::new(strip_bom(data));
    while let Some((_, line)) = lines.next_line() {
        let line = line.trim_ascii();
        if let Some(rest) = line.strip_prefix(b"#!OML:ASF") {
            return Some(String::from_utf8_lossy(rest.trim_ascii()).into_owned());
        }
        if !(line.is_empty() || line[0] == b'#' || line[0] == b':') {
            return None;
        }
    }
    None
}
