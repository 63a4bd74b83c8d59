//! Text scanning shared by the BVH and ASF/AMC readers: line ends of every kind (LF,
//! CRLF, bare CR), a byte-order mark, tokens with their line and column, fast numbers.

use memchr::memchr2;

/// A text input that does not have the expected shape, with its position (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct TextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl TextError {
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        TextError {
            line,
            column,
            message: message.into(),
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The data without a UTF-8 byte-order mark.
pub fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(BOM).unwrap_or(data)
}

/// The first token that is not in a `#` comment (but `#!…` lines count), for detection.
pub fn first_keyword(data: &[u8]) -> Option<String> {
    let mut lines = Lines::new(strip_bom(data));
    while let Some((_, line)) = lines.next_line() {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() || (trimmed[0] == b'#' && !trimmed.starts_with(b"#!")) {
            continue;
        }
        let end = trimmed
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(trimmed.len());
        return Some(String::from_utf8_lossy(&trimmed[..end]).into_owned());
    }
    None
}

/// Lines of a text, whatever ends them. Line numbers start at 1.
pub struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Lines {
            data,
            pos: 0,
            line: 0,
        }
    }

    /// Starts at byte `pos`, which begins line `line`.
    pub fn at(data: &'a [u8], pos: usize, line: usize) -> Self {
        Lines {
            data,
            pos,
            line: line.saturating_sub(1),
        }
    }

    /// The next line (without its end) and its number.
    pub fn next_line(&mut self) -> Option<(usize, &'a [u8])> {
        let rest = self.data.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        self.line += 1;
        match memchr2(b'\n', b'\r', rest) {
            Some(i) => {
                let line = &rest[..i];
                let crlf = rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n');
                self.pos += i + if crlf { 2 } else { 1 };
                Some((self.line, line))
            }
            None => {
                self.pos = self.data.len();
                Some((self.line, rest))
            }
        }
    }
}

/// A token and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a [u8],
    pub line: usize,
    pub column: usize,
}

impl Token<'_> {
    pub fn is(&self, keyword: &str) -> bool {
        self.text.eq_ignore_ascii_case(keyword.as_bytes())
    }

    pub fn lossy(&self) -> String {
        String::from_utf8_lossy(self.text).into_owned()
    }

    pub fn error(&self, message: impl Into<String>) -> TextError {
        TextError::new(self.line, self.column, message)
    }

    /// The token as a number.
    pub fn number(&self, what: &str) -> Result<f64, TextError> {
        parse_number(self.text).ok_or_else(|| {
            self.error(format!(
                "expected {what} (a number), found {:?}",
                self.lossy()
            ))
        })
    }
}

/// How a tokenizer splits: which bytes stand alone as tokens, which count as space, and
/// whether `#` starts a comment.
#[derive(Debug, Clone, Copy)]
pub struct Syntax {
    pub single: &'static [u8],
    pub extra_space: &'static [u8],
    pub comments: bool,
}

/// Whitespace-separated tokens with positions, across lines.
pub struct Tokens<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
    line_start: usize,
    syntax: Syntax,
    peeked: Option<Option<Token<'a>>>,
}

impl<'a> Tokens<'a> {
    pub fn new(data: &'a [u8], syntax: Syntax) -> Self {
        Tokens {
            data,
            pos: 0,
            line: 1,
            line_start: 0,
            syntax,
            peeked: None,
        }
    }

    /// Byte offset just past the last token taken, and its line.
    pub fn position(&self) -> (usize, usize) {
        (self.pos, self.line)
    }

    /// Where the next token would be (for errors at the end of the data).
    pub fn here(&self) -> (usize, usize) {
        (self.line, self.pos - self.line_start + 1)
    }

    pub fn peek(&mut self) -> Option<Token<'a>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.scan());
        }
        self.peeked.flatten()
    }

    pub fn next_token(&mut self) -> Option<Token<'a>> {
        match self.peeked.take() {
            Some(t) => t,
            None => self.scan(),
        }
    }

    /// Skips to the start of the next line (the rest of this one is dropped).
    pub fn skip_line(&mut self) {
        self.peeked = None;
        while let Some(&b) = self.data.get(self.pos) {
            self.pos += 1;
            if b == b'\n' || b == b'\r' {
                if b == b'\r' && self.data.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
                self.line += 1;
                self.line_start = self.pos;
                return;
            }
        }
    }

    fn is_space(&self, b: u8) -> bool {
        b.is_ascii_whitespace() || self.syntax.extra_space.contains(&b)
    }

    fn scan(&mut self) -> Option<Token<'a>> {
        loop {
            let &b = self.data.get(self.pos)?;
            if b == b'\n' || b == b'\r' {
                self.pos += 1;
                if b == b'\r' && self.data.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
                self.line += 1;
                self.line_start = self.pos;
            } else if self.is_space(b) {
                self.pos += 1;
            } else if b == b'#' && self.syntax.comments {
                while let Some(&c) = self.data.get(self.pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let start = self.pos;
        let column = start - self.line_start + 1;
        if self.syntax.single.contains(&self.data[start]) {
            self.pos += 1;
        } else {
            while let Some(&c) = self.data.get(self.pos) {
                if self.is_space(c) || self.syntax.single.contains(&c) {
                    break;
                }
                self.pos += 1;
            }
        }
        Some(Token {
            text: &self.data[start..self.pos],
            line: self.line,
            column,
        })
    }
}

/// The whitespace-separated numbers of `text` (which starts at column `column0 + 1` of
/// `line`), appended to `out`.
pub fn parse_numbers(
    text: &[u8],
    line: usize,
    column0: usize,
    out: &mut Vec<f64>,
) -> Result<(), TextError> {
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        let token = &text[start..i];
        let Some(v) = parse_number(token) else {
            return Err(TextError::new(
                line,
                column0 + start + 1,
                format!(
                    "expected a number, found {:?}",
                    String::from_utf8_lossy(token)
                ),
            ));
        };
        out.push(v);
    }
    Ok(())
}

/// A decimal number as real files write them (`-0`, `.8142`, `-3.18055e-015`), or
/// `None`. Full f64 precision.
pub fn parse_number(text: &[u8]) -> Option<f64> {
    match fast_float2::parse_partial::<f64, _>(text) {
        Ok((v, n)) if n == text.len() => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_on_every_kind_of_end() {
        let mut l = Lines::new(b"a\r\nb\rc\nd");
        let got: Vec<_> = std::iter::from_fn(|| l.next_line()).collect();
        assert_eq!(
            got,
            [
                (1, &b"a"[..]),
                (2, &b"b"[..]),
                (3, &b"c"[..]),
                (4, &b"d"[..])
            ]
        );
    }

    #[test]
    fn tokens_carry_positions() {
        let syntax = Syntax {
            single: b"{}",
            extra_space: b",()",
            comments: true,
        };
        let mut t = Tokens::new(b"ab {x}\r\n  # c\r\n (1, 2)", syntax);
        let got: Vec<_> = std::iter::from_fn(|| t.next_token())
            .map(|t| (t.lossy(), t.line, t.column))
            .collect();
        let want = [
            ("ab", 1, 1),
            ("{", 1, 4),
            ("x", 1, 5),
            ("}", 1, 6),
            ("1", 3, 3),
            ("2", 3, 6),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|&(s, l, c)| (s.to_string(), l, c))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn numbers_as_real_files_write_them() {
        assert_eq!(parse_number(b".8142"), Some(0.8142));
        assert_eq!(parse_number(b"-0"), Some(-0.0));
        assert_eq!(parse_number(b"-3.18055e-015"), Some(-3.18055e-15));
        assert_eq!(parse_number(b"1.5x"), None);
        assert_eq!(parse_number(b""), None);
    }
}
