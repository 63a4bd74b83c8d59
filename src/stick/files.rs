//! A stick's files as every stick command reaches them: each one a regular file below
//! the stick's root, reached through no symbolic link, read through a bound; a lock so
//! that two commands never change one stick at once; and the name of the folder a
//! change keeps the files it replaces in.
//!
//! An unzipped treat or a copied tree is exactly where links turn up: a `WLANCONF.TXT`
//! linked to an owner's file would have that file overwritten, a linked `DATA` folder
//! would send the archives elsewhere, a link to `/dev/zero` or a FIFO would be read
//! forever. Links and special files are refused by name instead.

use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use super::tree::StickError;

/// Largest archive read whole (and written: a stick the tool writes, it must read again).
/// Sony's sound archives run to a few MB.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Largest text file read (action lists, boot script, set-up files); Sony's are a few kB.
pub const MAX_TEXT_BYTES: u64 = 4 * 1024 * 1024;

/// How long a second writing command waits for the first before it refuses.
const LOCK_WAIT: Duration = Duration::from_secs(5);

fn fail(path: &Path, why: impl Into<String>) -> StickError {
    StickError::File {
        path: path.display().to_string(),
        why: why.into(),
    }
}

/// What a path holds, in words, for a refusal.
fn what_it_is(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// The path of `relative` below `root`, checked component by component: no link, no
/// `..`, every folder on the way a folder. `Ok(None)` where part of it does not exist
/// (nothing there to read; what is missing is created when writing).
fn walk(root: &Path, relative: &str) -> Result<(PathBuf, bool), StickError> {
    walk_to(root, relative, false)
}

/// [`walk`], to a regular file or (`folder`) a folder.
fn walk_to(root: &Path, relative: &str, folder: bool) -> Result<(PathBuf, bool), StickError> {
    let mut at = root.to_path_buf();
    let parts: Vec<Component> = Path::new(relative).components().collect();
    for (i, part) in parts.iter().enumerate() {
        let Component::Normal(name) = part else {
            return Err(fail(
                &root.join(relative),
                "not a path below the stick's root",
            ));
        };
        at.push(name);
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // The rest is missing too.
                at.extend(parts[i + 1..].iter());
                return Ok((at, false));
            }
            Err(e) => return Err(fail(&at, e.to_string())),
        };
        let last = i + 1 == parts.len();
        if meta.file_type().is_symlink() {
            return Err(fail(
                &at,
                "a symbolic link: a stick's files are read and written only as themselves, \
                 never through a link (replace the link with what it points to)",
            ));
        }
        if last && !folder && !meta.is_file() {
            return Err(fail(
                &at,
                format!(
                    "{}, where a stick holds a regular file: refused",
                    what_it_is(&meta)
                ),
            ));
        }
        if (!last || folder) && !meta.is_dir() {
            return Err(fail(
                &at,
                format!("{}, where a stick holds a folder", what_it_is(&meta)),
            ));
        }
    }
    Ok((at, true))
}

/// Reads `relative` below `root`, at most `max` bytes: `Ok(None)` where it is absent. A
/// link, a special file, anything larger than `max` is an error naming it.
pub fn read(root: &Path, relative: &str, max: u64) -> Result<Option<Vec<u8>>, StickError> {
    let (path, exists) = walk(root, relative)?;
    if !exists {
        return Ok(None);
    }
    read_regular(&path, max).map(Some)
}

/// Reads the regular file at `path` (already walked), at most `max` bytes.
fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, StickError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Swapped for a link or a FIFO since it was looked at: fail rather than follow
        // or hang.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file: File = options.open(path).map_err(|e| fail(path, e.to_string()))?;
    let meta = file.metadata().map_err(|e| fail(path, e.to_string()))?;
    if !meta.is_file() {
        return Err(fail(path, format!("{}: refused", what_it_is(&meta))));
    }
    if meta.len() > max {
        return Err(fail(
            path,
            format!(
                "{} bytes, more than the {max} a stick's file of this kind holds",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(path, e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(fail(path, format!("more than the {max} bytes it may hold")));
    }
    Ok(bytes)
}

/// Whether `relative` below `root` is there, checked as [`read`] and [`writable`] do
/// (nothing is read, nothing made).
pub fn check(root: &Path, relative: &str) -> Result<bool, StickError> {
    walk(root, relative).map(|(_, exists)| exists)
}

/// Where to write `relative` below `root`: its folders exist (created where missing,
/// none through a link), and it is absent or a regular file that is no link.
pub fn writable(root: &Path, relative: &str) -> Result<PathBuf, StickError> {
    let (path, exists) = walk(root, relative)?;
    if !exists {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail(dir, e.to_string()))?;
        }
        // The folders made now are checked like the rest.
        walk(root, relative)?;
    }
    Ok(path)
}

/// Copies the stick's file `relative` to `to` (a path from [`writable`]), reading it as
/// [`read`] does: no link followed, at most [`MAX_FILE_BYTES`].
pub fn copy(root: &Path, relative: &str, to: &Path) -> Result<bool, StickError> {
    let Some(bytes) = read(root, relative, MAX_FILE_BYTES)? else {
        return Ok(false);
    };
    crate::fsio::write_bytes(to, &[], &bytes).map_err(|e| fail(to, e.to_string()))?;
    Ok(true)
}

/// The hidden temporary files (`.aibo-motion-*.tmp`) that a write killed half-way left in
/// the stick's folders `folders`, by path below the root, sorted. A folder that is missing,
/// or reached through a link, is not looked in (the commands that read it say so).
pub fn leftover_temporaries(root: &Path, folders: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for folder in folders {
        let Ok((path, true)) = walk_to(root, folder, true) else {
            continue;
        };
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(crate::fsio::TEMPORARY_PREFIX)
                && name.ends_with(crate::fsio::TEMPORARY_SUFFIX)
            {
                found.push(format!("{folder}/{name}"));
            }
        }
    }
    found.sort();
    found
}

/// An exclusive hold on a stick while a command reads, changes and writes it.
pub struct Lock {
    _file: File,
}

/// Takes the stick's lock (an advisory lock on its root folder), waiting up to a few
/// seconds for another command to finish.
pub fn lock(root: &Path) -> Result<Lock, StickError> {
    let file = File::open(root).map_err(|e| fail(root, e.to_string()))?;
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(fail(root, format!("cannot lock the stick: {e}")))
            }
        }
        if started.elapsed() >= LOCK_WAIT {
            return Err(fail(
                root,
                format!(
                    "another command is changing this stick (waited {} s); try again once it \
                     has finished",
                    LOCK_WAIT.as_secs()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A UTC time as a backup folder's name, `2026-11-23T20-31-52Z` (no `:`, which FAT, a
/// Memory Stick's file system, does not allow).
pub fn utc_stamp(unix_seconds: u64) -> String {
    let (days, rest) = (unix_seconds / 86_400, unix_seconds % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm, for the proleptic Gregorian
    // calendar from 1970 on).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}-{:02}-{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc_stamp;

    #[test]
    fn backup_folders_are_named_by_a_readable_utc_time() {
        // Known answers (Python's datetime.fromtimestamp(t, UTC)).
        for (t, want) in [
            (0, "1970-01-01T00-00-00Z"),
            (1_795_464_040, "2026-11-23T20-00-40Z"),
            (951_782_400, "2000-02-29T00-00-00Z"),
            (4_102_444_799, "2099-12-31T23-59-59Z"),
        ] {
            assert_eq!(utc_stamp(t), want);
        }
    }
}
