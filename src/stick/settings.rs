//! R-CODE's own settings (`OPEN-R/APP/PC/AMS/SYSTEM.CFG`, a file of Sony's redistributable):
//! the one switch this tool turns is `W 1`, which opens the wireless console (TCP 21002).
//! Everything else in the file is Sony's and is kept byte for byte.
//!
//! The line is `W <0|1>`, as `../shared/specs/rcode.md` gives it; that note is not yet
//! confirmed on a robot, so the edit is the smallest one that could be right.

/// Where the settings lie, below the stick's root.
pub const PATH: &str = "OPEN-R/APP/PC/AMS/SYSTEM.CFG";

/// What turning the console on takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsoleSwitch {
    /// `W 1` is there already: nothing to write.
    AlreadyOn,
    /// The file's new bytes.
    Edited(Vec<u8>),
}

/// Why the settings are left alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "byte {offset}: SYSTEM.CFG is not plain ASCII text, so it is not the file this tool \
         knows how to edit; it was left alone"
    )]
    NotText { offset: usize },
}

/// A line R-CODE reads as a setting: its first character is a letter or digit (others are
/// comments), and `//` ends it.
fn words(line: &[u8]) -> Option<Vec<(usize, &[u8])>> {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
    if !line[start].is_ascii_alphanumeric() {
        return None;
    }
    let end = line
        .windows(2)
        .position(|w| w == b"//")
        .unwrap_or(line.len());
    let mut found = Vec::new();
    let mut i = start;
    while i < end {
        if line[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let from = i;
        while i < end && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        found.push((from, &line[from..i]));
    }
    Some(found)
}

/// Turns the wireless console on in `existing` (the current SYSTEM.CFG): every `W` line is
/// set to 1, or one `W 1` line is appended in the file's own line ending.
pub fn console_on(existing: &[u8]) -> Result<ConsoleSwitch, SettingsError> {
    if let Some(offset) = existing
        .iter()
        .position(|&b| !matches!(b, b'\t' | b'\n' | b'\r' | 0x20..=0x7e))
    {
        return Err(SettingsError::NotText { offset });
    }
    let mut out = Vec::with_capacity(existing.len() + 8);
    let mut switches = 0;
    let mut already_on = true;
    for line in existing.split_inclusive(|&b| b == b'\n') {
        let body_len = line.len()
            - line
                .iter()
                .rev()
                .take_while(|b| b"\r\n".contains(b))
                .count();
        match words(&line[..body_len]).as_deref() {
            Some([(_, b"W"), (at, value), ..]) => {
                switches += 1;
                already_on &= *value == b"1";
                out.extend_from_slice(&line[..*at]);
                out.push(b'1');
                out.extend_from_slice(&line[at + value.len()..]);
            }
            _ => out.extend_from_slice(line),
        }
    }
    if switches > 0 && already_on {
        return Ok(ConsoleSwitch::AlreadyOn);
    }
    if switches == 0 {
        let ending: &[u8] = if existing.windows(2).any(|w| w == b"\r\n") {
            b"\r\n"
        } else {
            b"\n"
        };
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(ending);
        }
        out.extend_from_slice(b"W 1");
        out.extend_from_slice(ending);
    }
    Ok(ConsoleSwitch::Edited(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(before: &[u8]) -> Vec<u8> {
        match console_on(before).unwrap() {
            ConsoleSwitch::Edited(b) => b,
            ConsoleSwitch::AlreadyOn => panic!("expected an edit of {before:?}"),
        }
    }

    #[test]
    fn only_the_switch_changes() {
        assert_eq!(
            edited(b"// R-CODE\r\nV 1\r\nW 0  // wireless\r\nX 2\r\n"),
            b"// R-CODE\r\nV 1\r\nW 1  // wireless\r\nX 2\r\n"
        );
        assert_eq!(edited(b"\tW\t0\n"), b"\tW\t1\n");
        assert_eq!(edited(b"W 00"), b"W 1");
    }

    #[test]
    fn a_missing_switch_is_appended_in_the_files_line_ending() {
        assert_eq!(edited(b"V 1\r\nX 2"), b"V 1\r\nX 2\r\nW 1\r\n");
        assert_eq!(edited(b"V 1\n"), b"V 1\nW 1\n");
        assert_eq!(edited(b""), b"W 1\n");
        // A comment that mentions W is not the switch, nor is a word that starts with it.
        assert_eq!(edited(b"// W 0\nWAIT 1\n"), b"// W 0\nWAIT 1\nW 1\n");
    }

    #[test]
    fn an_open_console_is_left_as_it_is() {
        assert_eq!(
            console_on(b"V 1\r\nW 1 // on\r\n").unwrap(),
            ConsoleSwitch::AlreadyOn
        );
    }

    #[test]
    fn a_file_that_is_not_text_is_not_touched() {
        assert_eq!(
            console_on(b"W 0\n\x89PNG").unwrap_err(),
            SettingsError::NotText { offset: 4 }
        );
    }
}
