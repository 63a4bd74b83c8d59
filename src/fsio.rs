//! File input and output the way every command does it: bounded reads, `-` for the
//! standard streams, atomic writes (temporary file in the same folder, then rename), and
//! never overwriting one of the command's own inputs.
//!
//! What `-o` names is respected for what it is: a symbolic link is followed and its
//! target replaced atomically (the link stays a link); a device, a FIFO or a socket is
//! written straight into (never replaced by a regular file: as root, `-o /dev/null`
//! must not replace `/dev/null`); a read-only file is refused unless the command was
//! told to replace read-only files ([`replace_read_only`], a command's `--force`).

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Whether a read-only output may be replaced: the command line's `--force`, set once
/// for the whole command.
static REPLACE_READ_ONLY: AtomicBool = AtomicBool::new(false);

/// Lets writes replace read-only files (which then stay read-only), for this process.
pub fn replace_read_only(yes: bool) {
    REPLACE_READ_ONLY.store(yes, Ordering::Relaxed);
}

/// Temporary files being written now, so that an interrupted command can remove them.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every temporary file a write has under way: what a command does when it is
/// interrupted (SIGINT, SIGTERM), so that no hidden `.aibo-motion-*.tmp` is left behind.
/// (A SIGKILL cannot be caught, and can leave one.)
pub fn remove_pending() {
    let pending = match PENDING.lock() {
        Ok(p) => p.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    for path in pending {
        let _ = std::fs::remove_file(path);
    }
}

fn pending(path: &Path, add: bool) {
    let mut list = match PENDING.lock() {
        Ok(p) => p,
        Err(poisoned) => poisoned.into_inner(),
    };
    if add {
        list.push(path.to_path_buf());
    } else {
        list.retain(|p| p != path);
    }
}

/// How a write's temporary file is named: `.aibo-motion-XXXXXX.tmp`, hidden, beside the
/// file it will replace.
pub const TEMPORARY_PREFIX: &str = ".aibo-motion-";
pub const TEMPORARY_SUFFIX: &str = ".tmp";

/// Largest input a command reads into memory. Real MTN files are a few KiB, Sony's ODA
/// archives well under a MiB; anything this large is not a motion.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum IoError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: io::Error },
    #[error("{path} is larger than {max} bytes; refusing to read it into memory")]
    TooLarge { path: String, max: u64 },
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: io::Error },
    #[error("refusing to write {path}: it is one of this command's inputs")]
    WouldOverwriteInput { path: String },
    #[error(
        "refusing to replace {path}: it is read-only (use --force to replace it, make it \
         writable, or write elsewhere)"
    )]
    ReadOnly { path: String },
}

/// Whether a path argument means a standard stream.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads a whole input (`-` is standard input), at most [`MAX_INPUT_BYTES`].
pub fn read_input(path: &Path) -> Result<Vec<u8>, IoError> {
    let name = path.display().to_string();
    let read_err = |error| IoError::Read {
        path: name.clone(),
        error,
    };
    let mut data = Vec::new();
    let reader: Box<dyn Read> = if is_stdio(path) {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).map_err(read_err)?)
    };
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(read_err)?;
    if data.len() as u64 > MAX_INPUT_BYTES {
        return Err(IoError::TooLarge {
            path: name,
            max: MAX_INPUT_BYTES,
        });
    }
    Ok(data)
}

/// Writes `out` (`-` is standard output) through `fill`. A file is written to a temporary
/// file beside it and renamed into place only when `fill` succeeded, so a failure leaves
/// any earlier file intact. Refuses to replace any of `inputs`.
pub fn write_output<F>(out: &Path, inputs: &[&Path], fill: F) -> Result<(), IoError>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let name = out.display().to_string();
    let write_err = |error| IoError::Write {
        path: name.clone(),
        error,
    };
    if is_stdio(out) {
        let stdout = io::stdout();
        let mut w = BufWriter::new(stdout.lock());
        return match fill(&mut w).and_then(|()| w.flush()) {
            // A closed pipe (`| head`) is the reader's choice, not an error of ours.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(write_err),
        };
    }
    if inputs.iter().any(|input| same_file(input, out)) {
        return Err(IoError::WouldOverwriteInput { path: name });
    }
    // A link's target is what gets written (the link stays).
    let target = follow_links(out);
    let out = target.as_path();
    if let Ok(meta) = std::fs::metadata(out) {
        if !meta.is_file() && !meta.is_dir() {
            // A device, FIFO or socket: written into, never replaced.
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(out)
                .map_err(write_err)?;
            let mut w = BufWriter::new(file);
            return fill(&mut w).and_then(|()| w.flush()).map_err(write_err);
        }
        if meta.permissions().readonly() && !REPLACE_READ_ONLY.load(Ordering::Relaxed) {
            return Err(IoError::ReadOnly { path: name });
        }
    }
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .suffix(TEMPORARY_SUFFIX)
        .tempfile_in(&dir)
        // Name the user's folder, not the temporary file's name tempfile's error carries.
        .map_err(|e| {
            let why = match e.kind() {
                io::ErrorKind::NotFound => format!("the folder {} does not exist", dir.display()),
                io::ErrorKind::PermissionDenied => {
                    format!("the folder {} is not writable", dir.display())
                }
                kind => format!("cannot create a file in {}: {kind}", dir.display()),
            };
            write_err(io::Error::new(e.kind(), why))
        })?;
    // Registered while it exists, so that an interrupt removes it; unregistered only
    // once renamed (removing a path already renamed away does nothing).
    let path = tmp.path().to_path_buf();
    pending(&path, true);
    let written = write_temporary(&tmp, out, fill)
        .and_then(|()| tmp.persist(out).map(drop).map_err(|e| e.error))
        .map_err(write_err);
    pending(&path, false);
    written
}

/// Fills the temporary file, gives it the permissions of what it replaces, and renames
/// it over `out`.
fn write_temporary<F>(tmp: &tempfile::NamedTempFile, out: &Path, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    {
        let mut w = BufWriter::new(tmp.as_file());
        fill(&mut w).and_then(|()| w.flush())?;
    }
    // Tests hold a write here to interrupt it (debug builds only).
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var_os("AIBO_MOTION_TEST_PAUSE_WRITE_MS") {
        let ms = ms.to_string_lossy().parse().unwrap_or(0);
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    tmp.as_file().sync_all()?;
    // Temporary files are private (0600); the result gets the permissions of the file
    // it replaces, or those of an ordinary new file.
    let permissions = match std::fs::metadata(out) {
        Ok(m) => m.permissions(),
        Err(_) => new_file_permissions(tmp.as_file())?,
    };
    tmp.as_file().set_permissions(permissions)
}

#[cfg(unix)]
fn new_file_permissions(_: &std::fs::File) -> io::Result<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn new_file_permissions(file: &std::fs::File) -> io::Result<std::fs::Permissions> {
    file.metadata().map(|m| m.permissions())
}

/// Writes bytes atomically; see [`write_output`].
pub fn write_bytes(out: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<(), IoError> {
    write_output(out, inputs, |w| w.write_all(bytes))
}

/// Where a chain of symbolic links ends (at most 40 deep, as the kernel allows), or
/// `path` itself when it is no link. The end need not exist.
fn follow_links(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&at) {
                Ok(to) => {
                    let base = at.parent().map(Path::to_path_buf).unwrap_or_default();
                    at = base.join(to);
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    at
}

/// Whether two paths name the same existing file (through links and `..` alike).
fn same_file(a: &Path, b: &Path) -> bool {
    if is_stdio(a) || is_stdio(b) {
        return false;
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_is_atomic_and_refuses_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write_bytes(&path, &[], b"first").unwrap();
        // A failing writer leaves the earlier file untouched and no temporary behind.
        let err = write_output(&path, &[], |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let same = dir.path().join(".").join("out.bin");
        let err = write_bytes(&path, &[&same], b"x").unwrap_err();
        assert!(matches!(err, IoError::WouldOverwriteInput { .. }));
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
    }

    #[cfg(unix)]
    #[test]
    fn written_files_are_readable_and_keep_the_mode_they_replace() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.bin");
        write_bytes(&path, &[], b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644, "not the temporary file's private 0600");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_bytes(&path, &[], b"y").unwrap();
        assert_eq!(mode(&path), 0o640);
    }
}
