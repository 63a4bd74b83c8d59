//! Text from files and peers, made safe to print on a terminal.

/// Text from a file or a peer, safe to print on a terminal: control characters (an
/// escape sequence in a motion's name, say) are shown escaped, never sent.
pub fn shown(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A message of several lines, safe to print on a terminal: as [`shown`], but its line
/// breaks and tabs stay (an error's text can quote a file's name or contents).
pub fn shown_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| shown(&line.replace('\t', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_control_characters_but_keeps_line_breaks_in_messages() {
        assert_eq!(shown("a\x1b[2Jb\r"), "a\\u{1b}[2Jb\\r");
        assert_eq!(shown("é ok"), "é ok");
        assert_eq!(shown_lines("one\x07\n\ttwo"), "one\\u{7}\n two");
    }
}
