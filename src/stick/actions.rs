//! `ACTION.CFG` (the owner's actions) and `ACTION.AMS` (Sony's): text that gives an
//! MWCID a name R-CODE can play. Each line is `name mwcid code comment`; R-CODE skips a
//! line that does not start with a letter or digit (the `[ERS-210(E)]` header). Sony's
//! files end lines with CRLF and separate fields by spaces or tabs.
//!
//! A file is kept as its lines, so that adding an action and writing the file again
//! changes nothing else.

/// Longest line kept: R-CODE's own lines are short; a longer one is not a catalogue.
const MAX_LINE: usize = 1024;

/// Largest file read: Sony's are under 3 kB.
pub const MAX_ACTIONS_BYTES: usize = 1024 * 1024;

/// One named action. It keeps only its line, and where the name and the comment lie in
/// it: a list of 100 000 actions takes about 7 MB, not the 16 MB three strings a line took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The line as written: read, as it was (Sony's lists align with tabs and spaces);
    /// new, `name mwcid code comment` as Sony's treats write it.
    text: Box<str>,
    /// Byte ranges of the name and the comment in `text` (a line is at most 1024 bytes).
    name: (u16, u16),
    comment: (u16, u16),
    pub mwcid: i32,
    /// 0 an ordinary action; 1 walk, 2 turn, 3 head, 4 track.
    pub code: i32,
    /// Line number, from 1 (0 for an action not read from a file).
    pub line: u32,
}

impl Action {
    /// A new action, written as Sony's treats write theirs.
    pub fn new(name: &str, mwcid: i32, code: i32, comment: &str) -> Action {
        let text = format!("{name} {mwcid} {code} {comment}");
        let text = text.trim_end();
        let comment_start = (text.len() - comment.trim_end().len()) as u16;
        Action {
            name: (0, name.len() as u16),
            comment: (comment_start, text.len() as u16),
            text: text.into(),
            mwcid,
            code,
            line: 0,
        }
    }

    pub fn name(&self) -> &str {
        &self.text[usize::from(self.name.0)..usize::from(self.name.1)]
    }

    pub fn comment(&self) -> &str {
        &self.text[usize::from(self.comment.0)..usize::from(self.comment.1)]
    }

    /// The line as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A line of the file: an action, or anything R-CODE skips (kept as it was).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Action(Action),
    Other(String),
}

/// A whole file, line by line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Actions {
    pub lines: Vec<Line>,
    /// Whether the last line ended with a line break.
    pub final_newline: bool,
    /// Whether some line ended with a CR alone (a classic Mac file). R-CODE's own files end
    /// lines with CRLF, which is how the file is written back.
    pub bare_cr: bool,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionsError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("it is UTF-16 text; R-CODE reads 8-bit text (save it as ASCII)")]
    Utf16,
    #[error("it is larger than {MAX_ACTIONS_BYTES} bytes, more than any action list")]
    TooLarge,
}

impl Actions {
    /// The actions, in file order.
    pub fn actions(&self) -> impl Iterator<Item = &Action> {
        self.lines.iter().filter_map(|l| match l {
            Line::Action(a) => Some(a),
            Line::Other(_) => None,
        })
    }

    pub fn find(&self, name: &str) -> Option<&Action> {
        self.actions().find(|a| a.name() == name)
    }

    /// The file's bytes, CRLF line ends, every byte of the lines kept.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_where(|_| true)
    }

    /// The file's bytes with only the lines `keep` keeps (no copy of the list is made).
    pub fn encode_where(&self, keep: impl Fn(&Line) -> bool) -> Vec<u8> {
        let kept: Vec<&Line> = self.lines.iter().filter(|l| keep(l)).collect();
        let mut out = Vec::new();
        for (i, line) in kept.iter().enumerate() {
            let text = match line {
                Line::Action(a) => a.text(),
                Line::Other(text) => text,
            };
            out.extend(text.chars().map(latin1_byte));
            if i + 1 < kept.len() || self.final_newline {
                out.extend_from_slice(b"\r\n");
            }
        }
        out
    }
}

/// A character read as ISO 8859-1 back to its byte.
fn latin1_byte(c: char) -> u8 {
    u8::try_from(u32::from(c)).unwrap_or(b'?')
}

/// Reads `ACTION.CFG` or `ACTION.AMS`.
pub fn decode(bytes: &[u8]) -> Result<Actions, ActionsError> {
    if bytes.len() > MAX_ACTIONS_BYTES {
        return Err(ActionsError::TooLarge);
    }
    // A byte-order mark, or text with a zero in every other byte.
    let zeros = bytes.iter().take(64).filter(|&&b| b == 0).count();
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) || zeros >= 8 {
        return Err(ActionsError::Utf16);
    }
    let (raws, ends) = split_lines(bytes);
    let mut lines = Vec::with_capacity(raws.len());
    for (i, raw) in raws.into_iter().enumerate() {
        let line = i + 1;
        let fail = |why: String| ActionsError::Line { line, why };
        if raw.len() > MAX_LINE {
            return Err(fail(format!(
                "{} bytes; a line holds at most {MAX_LINE}",
                raw.len()
            )));
        }
        if raw.contains(&0) {
            return Err(fail("a zero byte: this is not text".into()));
        }
        let text: String = raw.iter().map(|&b| char::from(b)).collect();
        if !text.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            lines.push(Line::Other(text));
            continue;
        }
        lines.push(Line::Action(parse_action(&text, line).map_err(fail)?));
    }
    Ok(Actions {
        lines,
        final_newline: ends.last_ended,
        bare_cr: ends.bare_cr,
    })
}

/// How a file's lines end.
struct LineEnds {
    /// The last line ends with a line break.
    last_ended: bool,
    /// Some line ends with a CR alone (a classic Mac file).
    bare_cr: bool,
}

/// The file's lines, without their breaks: CRLF, LF, or a CR alone all end a line.
fn split_lines(bytes: &[u8]) -> (Vec<&[u8]>, LineEnds) {
    let mut lines = Vec::new();
    let mut ends = LineEnds {
        last_ended: false,
        bare_cr: false,
    };
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&bytes[start..i]);
                start = i + 1;
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                lines.push(&bytes[start..i]);
                i += 1;
                start = i + 1;
            }
            b'\r' => {
                lines.push(&bytes[start..i]);
                ends.bare_cr = true;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    ends.last_ended = start == bytes.len() && !bytes.is_empty();
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    (lines, ends)
}

fn parse_action(text: &str, line: usize) -> Result<Action, String> {
    let mut rest = text;
    let mut field = |what: &str| -> Result<&str, String> {
        let t = rest.trim_start_matches([' ', '\t']);
        let end = t.find([' ', '\t']).unwrap_or(t.len());
        let (f, after) = t.split_at(end);
        rest = after;
        if f.is_empty() {
            return Err(format!(
                "{what} missing in {:?}",
                crate::source::text::excerpt(text.as_bytes())
            ));
        }
        Ok(f)
    };
    // Where a slice of `text` lies in it.
    let range = |part: &str| {
        let start = part.as_ptr() as usize - text.as_ptr() as usize;
        (start as u16, (start + part.len()) as u16)
    };
    let name = range(field("the action's name")?);
    // Sony's ERS-7 list writes some numbers in hexadecimal (`0xFFF01200`): a 32-bit
    // pattern, kept as the i32 the catalogue stores.
    let number = |f: &str, what: &str| {
        let hex = f.strip_prefix("0x").or_else(|| f.strip_prefix("0X"));
        match hex {
            Some(digits) => u32::from_str_radix(digits, 16).ok().map(|v| v as i32),
            None => f.parse::<i32>().ok(),
        }
        .ok_or_else(|| format!("{what}: expected a whole number, found {f:?}"))
    };
    let mwcid = number(field("the MWCID")?, "the MWCID")?;
    let code = number(field("the action code")?, "the action code")?;
    let comment = range(rest.trim_matches([' ', '\t']));
    Ok(Action {
        text: text.into(),
        name,
        comment,
        mwcid,
        code,
        line: line as u32,
    })
}

/// Whether `name` can name a user action: lower case `[a-z0-9_]`, 1 to 31 characters
/// (R-CODE reserves upper-case words for itself).
pub fn valid_name(name: &str) -> bool {
    (1..=31).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_finds_its_name_and_comment_in_its_line() {
        let a = Action::new("dance", 24001, 0, "a dance");
        assert_eq!(
            (a.name(), a.comment(), a.text()),
            ("dance", "a dance", "dance 24001 0 a dance")
        );
        let bare = Action::new("bow", 24002, 0, "");
        assert_eq!(
            (bare.name(), bare.comment(), bare.text()),
            ("bow", "", "bow 24002 0")
        );
        // Read: tabs and spaces between the fields, and ISO 8859-1 bytes (two bytes each
        // once read) before the comment.
        let list = decode(b"caf\xe9\t 24003\t0   na\xefve  \r\n").unwrap();
        let read = list.actions().next().unwrap();
        assert_eq!((read.name(), read.comment()), ("caf\u{e9}", "na\u{ef}ve"));
        assert_eq!(list.encode(), b"caf\xe9\t 24003\t0   na\xefve  \r\n");
    }

    #[test]
    fn a_file_reads_and_writes_back_byte_for_byte() {
        let text = b"[ERS-210(E)]\r\nboo 24001 0 boo\r\ncat1 24002 0 cat 1\r\n";
        let a = decode(text).unwrap();
        let names: Vec<(&str, i32, &str)> = a
            .actions()
            .map(|x| (x.name(), x.mwcid, x.comment()))
            .collect();
        assert_eq!(names, [("boo", 24001, "boo"), ("cat1", 24002, "cat 1")]);
        assert_eq!(a.encode(), text);
        // Sony's tab-separated system list reads too.
        let ams = decode(b"SIT\t\t270     0       Sit\r\nLIE\t\t272 0 Lie down (1)\r\n").unwrap();
        assert_eq!(ams.find("LIE").unwrap().comment(), "Lie down (1)");
        let hex = decode(b"ACTION.X 0xFFF01200 0 x\r\n").unwrap();
        assert_eq!(hex.find("ACTION.X").unwrap().mwcid, 0xFFF0_1200_u32 as i32);
        assert_eq!(decode(b"").unwrap().encode(), b"");
        // A CR alone ends a line, as in a classic Mac file; it is written back as CRLF.
        let mac = decode(b"[X]\rboo 24001 0 boo\rcat1 24002 0 cat 1\r").unwrap();
        assert!(mac.bare_cr);
        assert_eq!(mac.find("cat1").unwrap().line, 3);
        assert_eq!(
            mac.encode(),
            b"[X]\r\nboo 24001 0 boo\r\ncat1 24002 0 cat 1\r\n"
        );
        assert!(!decode(text).unwrap().bare_cr);
        // A new action is written as the treats write theirs.
        let mut a = decode(text).unwrap();
        a.lines
            .push(Line::Action(Action::new("wolf", 24003, 0, "wolf")));
        assert_eq!(
            a.encode(),
            b"[ERS-210(E)]\r\nboo 24001 0 boo\r\ncat1 24002 0 cat 1\r\nwolf 24003 0 wolf\r\n"
        );
    }

    #[test]
    fn damage_is_refused_with_its_line() {
        let e = decode(b"[X]\r\nboo twelve 0 boo\r\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "line 2: the MWCID: expected a whole number, found \"twelve\""
        );
        let e = decode(b"boo 24001\r\n").unwrap_err().to_string();
        assert!(e.starts_with("line 1: the action code missing"), "{e}");
        let utf16: Vec<u8> = "boo 24001 0 boo\r\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(decode(&utf16), Err(ActionsError::Utf16));
    }

    #[test]
    fn user_names_are_lower_case_words_of_at_most_31() {
        assert!(valid_name("dance_2"));
        for bad in ["", "Dance", "STAND", "a-b", "é", &"x".repeat(32)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
