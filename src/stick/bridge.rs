//! The bridge on a stick: the OPEN-R object `firmware-bridge/openr` builds (`BRIDGE.BIN`)
//! on a stick that holds the owner's OPEN-R SDK Wi-Fi base system, with its lines in the
//! middleware's `OBJECT.CFG` (the objects that start) and `CONNECT.CFG` (its command
//! vectors to `OVirtualRobotComm`). Those lines are the ones `firmware-bridge/openr/config`
//! holds, the same the object's `stub.cfg` names.

use super::files::{self, MAX_TEXT_BYTES};
use super::tree::{paths, Finding, Severity, StickError};
use std::path::Path;

/// Where the object goes, below the stick's root.
pub const BIN_PATH: &str = "OPEN-R/MW/OBJS/BRIDGE.BIN";
pub const OBJECT_CFG: &str = "OPEN-R/MW/CONF/OBJECT.CFG";
pub const CONNECT_CFG: &str = "OPEN-R/MW/CONF/CONNECT.CFG";
/// Largest object taken (the built one is a few hundred kB).
pub const MAX_BIN_BYTES: u64 = 8 * 1024 * 1024;

/// The lines the object needs, one per file.
pub fn object_line() -> &'static str {
    include_str!("../../firmware-bridge/openr/config/OBJECT.CFG").trim_end()
}

pub fn connect_line() -> &'static str {
    include_str!("../../firmware-bridge/openr/config/CONNECT.CFG").trim_end()
}

/// What kind of stick a tree holds, as far as the bridge is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The SDK's base system: the middleware's OBJECT.CFG and CONNECT.CFG, and no R-CODE.
    Sdk,
    /// An R-CODE stick: Sony's runtime starts its own objects; the bridge is not for it.
    Rcode,
    /// Neither.
    Other,
}

/// Which base the stick at `root` holds.
pub fn base(root: &Path) -> Result<Base, StickError> {
    // R-CODE's folder, or a model catalogue: what every R-CODE stick has.
    let rcode_folder = std::fs::symlink_metadata(root.join(paths::AMS)).is_ok_and(|m| m.is_dir());
    let catalogue = ["ERS-210.MWC", "ERS-220.MWC", "ERS-7.MWC"]
        .iter()
        .any(|f| std::fs::symlink_metadata(root.join(paths::CONF).join(f)).is_ok());
    if rcode_folder || catalogue {
        return Ok(Base::Rcode);
    }
    let has = |relative: &str| -> Result<bool, StickError> {
        Ok(files::read(root, relative, MAX_TEXT_BYTES)?.is_some())
    };
    Ok(if has(OBJECT_CFG)? && has(CONNECT_CFG)? {
        Base::Sdk
    } else {
        Base::Other
    })
}

/// Whether `bytes` look like an OPEN-R object: gzip (as the SDK's build and Sony's own
/// `.BIN` files are) or a bare ELF.
pub fn is_object(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b]) || bytes.starts_with(b"\x7fELF")
}

/// `text` with `line` added at its end where no line of it is `line` already (`None`
/// then); the file's own line ending is kept (CRLF where it has one).
pub fn with_line(text: &[u8], line: &str) -> Option<Vec<u8>> {
    let has = text
        .split(|&b| b == b'\n')
        .any(|l| l.strip_suffix(b"\r").unwrap_or(l).trim_ascii() == line.as_bytes());
    if has {
        return None;
    }
    let ending: &[u8] = if text.windows(2).any(|w| w == b"\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    let mut out = text.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.extend_from_slice(ending);
    }
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(ending);
    Some(out)
}

/// The files `stick bridge` writes to put `object` on the SDK stick at `root`: the object,
/// and each configuration file that lacks its line.
pub fn install(root: &Path, object: &[u8]) -> Result<Vec<(String, Vec<u8>)>, StickError> {
    let mut changed = vec![(BIN_PATH.to_string(), object.to_vec())];
    for (path, line) in [(OBJECT_CFG, object_line()), (CONNECT_CFG, connect_line())] {
        let text = files::read(root, path, MAX_TEXT_BYTES)?.unwrap_or_default();
        if let Some(new) = with_line(&text, line) {
            changed.push((path.to_string(), new));
        }
    }
    Ok(changed)
}

/// What `stick check` says of an SDK stick: whether the bridge is there whole, and the
/// wireless set-up it needs.
pub fn check(root: &Path) -> Result<Vec<Finding>, StickError> {
    let mut found = Vec::new();
    let mut say = |severity, message: String| found.push(Finding { severity, message });
    let object = files::read(root, BIN_PATH, MAX_BIN_BYTES)?;
    let lines = [(OBJECT_CFG, object_line()), (CONNECT_CFG, connect_line())];
    let mut listed = Vec::new();
    for (path, line) in lines {
        let text = files::read(root, path, MAX_TEXT_BYTES)?.unwrap_or_default();
        listed.push(with_line(&text, line).is_none());
    }
    match (&object, listed.iter().any(|&l| l)) {
        (None, false) => say(
            Severity::Warning,
            "no bridge on this OPEN-R SDK stick (`aibo-motion stick bridge STICK BRIDGE.BIN` \
             puts it on)"
                .into(),
        ),
        (None, true) => say(
            Severity::Error,
            format!("{BIN_PATH} is missing, but the configuration starts it"),
        ),
        (Some(bytes), _) => {
            if !is_object(bytes) {
                say(
                    Severity::Error,
                    format!("{BIN_PATH} is not an OPEN-R object (neither gzip nor ELF)"),
                );
            }
            for ((path, line), listed) in lines.iter().zip(&listed) {
                if !listed {
                    say(
                        Severity::Error,
                        format!("{path} lacks `{line}`: the bridge would not start"),
                    );
                }
            }
        }
    }
    if files::read(root, super::wifi::PATH, MAX_TEXT_BYTES)?.is_none() {
        say(
            Severity::Warning,
            format!(
                "no {}: the robot joins no network (`aibo-motion stick wifi` writes it)",
                super::wifi::PATH
            ),
        );
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_added_once_with_the_files_own_line_ending() {
        let line = object_line();
        let crlf = b"/MS/OPEN-R/MW/OBJS/POWERMON.BIN\r\n".to_vec();
        let added = with_line(&crlf, line).unwrap();
        assert_eq!(added, [&crlf[..], line.as_bytes(), b"\r\n"].concat());
        assert_eq!(with_line(&added, line), None, "never twice");
        // A last line without its ending gets one first; an empty file just the line.
        let bare = with_line(b"/MS/A.BIN", line).unwrap();
        assert_eq!(bare, [b"/MS/A.BIN\n", line.as_bytes(), b"\n"].concat());
        assert_eq!(
            with_line(b"", line).unwrap(),
            [line.as_bytes(), b"\n"].concat()
        );
        // Spaces around a line that is there already do not make it missing.
        assert_eq!(with_line(format!("  {line} \n").as_bytes(), line), None);
    }

    #[test]
    fn the_lines_are_the_ones_the_objects_stub_names() {
        let stub = include_str!("../../firmware-bridge/openr/stub.cfg");
        let subject = connect_line().split_whitespace().next().unwrap();
        assert!(stub.contains(&format!("\"{subject}\"")), "{subject}");
        assert!(object_line().ends_with("/BRIDGE.BIN"));
        assert!(BIN_PATH.ends_with("BRIDGE.BIN"));
    }
}
