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

/// How much of a file's text an error message repeats.
pub const ECHO_CHARS: usize = 60;

/// `bytes` as text for a message: the first [`ECHO_CHARS`] characters, and how long the
/// whole was when that is cut.
pub fn excerpt(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(4 * ECHO_CHARS)];
    let text = String::from_utf8_lossy(head);
    let mut out: String = text.chars().take(ECHO_CHARS).collect();
    if out.len() < bytes.len() {
        out.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    out
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

    /// Byte offset of the next line's start.
    pub fn position(&self) -> usize {
        self.pos
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

    /// The token as text for a message: at most [`ECHO_CHARS`] characters of it (a
    /// hostile file's "token" can be megabytes).
    pub fn lossy(&self) -> String {
        excerpt(self.text)
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

/// Powers of ten that f64 holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The whitespace-separated numbers of `text` (which starts at column `column0 + 1` of
/// `line`), appended to `out`.
///
/// Motion data is mostly plain decimals (`-12.345678`): those are read in one pass as an
/// integer over a power of ten, which is exact and correctly rounded while the digits
/// fit 2^53 (Clinger's fast path). Anything else (exponents, long mantissas) goes to the
/// general parser.
pub fn parse_numbers(
    text: &[u8],
    line: usize,
    column0: usize,
    out: &mut Vec<f64>,
) -> Result<(), TextError> {
    let n = text.len();
    let mut i = 0;
    while i < n {
        if text[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let negative = text[i] == b'-';
        if negative {
            i += 1;
        }
        let mut mantissa: u64 = 0;
        let mut digits = 0u32;
        while i < n && text[i].is_ascii_digit() {
            mantissa = mantissa
                .wrapping_mul(10)
                .wrapping_add(u64::from(text[i] - b'0'));
            digits += 1;
            i += 1;
        }
        let mut fraction = 0usize;
        if i < n && text[i] == b'.' {
            i += 1;
            while i < n && text[i].is_ascii_digit() {
                mantissa = mantissa
                    .wrapping_mul(10)
                    .wrapping_add(u64::from(text[i] - b'0'));
                digits += 1;
                fraction += 1;
                i += 1;
            }
        }
        let ends = i == n || text[i].is_ascii_whitespace();
        if ends && digits > 0 && digits <= 15 && fraction < POW10.len() {
            // Up to 15 digits never overflow and stay below 2^53.
            let v = mantissa as f64 / POW10[fraction];
            out.push(if negative { -v } else { v });
            continue;
        }
        while i < n && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        let token = &text[start..i];
        let Some(v) = parse_number(token) else {
            return Err(TextError::new(
                line,
                column0 + start + 1,
                format!("expected a number, found {:?}", excerpt(token)),
            ));
        };
        out.push(v);
    }
    Ok(())
}

/// Runs `read` on `data[start..]` (which begins on line `first_line`) split at line
/// ends into one piece per core, the pieces in parallel, and returns their results in
/// order. Small inputs stay in one piece. `read` numbers lines from 1 at its piece's
/// start; an error's line is made absolute here.
pub fn in_line_pieces<T, B, F>(
    data: &[u8],
    start: usize,
    first_line: usize,
    split: Split<B>,
    read: F,
) -> Result<Vec<T>, TextError>
where
    T: Send,
    B: Fn(&[u8]) -> bool,
    F: Fn(&[u8]) -> Result<T, TextError> + Sync,
{
    let body = data.get(start..).unwrap_or_default();
    let pieces = if body.len() < 256 * 1024 {
        1
    } else {
        split.pieces.max(1)
    };
    let mut bounds = vec![0];
    for k in 1..pieces {
        let mut at = next_line_start(
            body,
            (body.len() * k / pieces).max(*bounds.last().unwrap_or(&0)),
        );
        // Move on to a line where a piece may start.
        while at < body.len() && !(split.boundary)(line_at(body, at)) {
            at = next_line_start(body, at);
        }
        bounds.push(at);
    }
    bounds.push(body.len());
    bounds.dedup();
    let results: Vec<Result<T, TextError>> = std::thread::scope(|scope| {
        let read = &read;
        let handles: Vec<_> = bounds
            .windows(2)
            .skip(1)
            .map(|w| {
                let piece = &body[w[0]..w[1]];
                scope.spawn(move || read(piece))
            })
            .collect();
        // The calling thread reads the first piece itself.
        let first = read(&body[..bounds.get(1).copied().unwrap_or(0)]);
        std::iter::once(first)
            .chain(handles.into_iter().map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(TextError::new(0, 0, "a reader thread failed")))
            }))
            .collect()
    });
    let mut out = Vec::with_capacity(results.len());
    for (k, result) in results.into_iter().enumerate() {
        match result {
            Ok(v) => out.push(v),
            Err(mut e) => {
                let before: usize = bounds[..k]
                    .iter()
                    .zip(&bounds[1..=k])
                    .map(|(&a, &b)| count_lines(&body[a..b]))
                    .sum();
                e.line += first_line - 1 + before;
                return Err(e);
            }
        }
    }
    Ok(out)
}

/// How to cut a text into pieces for [`in_line_pieces`].
pub struct Split<B> {
    /// How many pieces at most (small inputs always make one).
    pub pieces: usize,
    /// Whether a piece may start at this line.
    pub boundary: B,
}

impl Split<fn(&[u8]) -> bool> {
    /// One piece per core, cut at any line.
    pub fn per_core() -> Self {
        Split {
            pieces: cores(),
            boundary: |_| true,
        }
    }
}

/// The number of cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The line starting at byte `at`, without its end.
fn line_at(data: &[u8], at: usize) -> &[u8] {
    let rest = data.get(at..).unwrap_or_default();
    let end = memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
    &rest[..end]
}

/// The start of the line after the one holding byte `at` (or the end of the data).
fn next_line_start(data: &[u8], at: usize) -> usize {
    match data.get(at..).and_then(|rest| memchr2(b'\n', b'\r', rest)) {
        Some(i) => {
            let end = at + i;
            if data[end] == b'\r' && data.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            }
        }
        None => data.len(),
    }
}

/// How many lines [`Lines`] finds in `data`.
fn count_lines(data: &[u8]) -> usize {
    let mut lines = Lines::new(data);
    std::iter::from_fn(|| lines.next_line()).count()
}

/// A finite decimal number as real files write them (`-0`, `.8142`, `-3.18055e-015`),
/// or `None`. Full f64 precision.
pub fn parse_number(text: &[u8]) -> Option<f64> {
    match fast_float2::parse_partial::<f64, _>(text) {
        // `inf` and `nan` parse, but no motion holds them: they are damage.
        Ok((v, n)) if n == text.len() && v.is_finite() => Some(v),
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
    fn the_fast_path_agrees_with_the_general_parser() {
        let text = b"0 -0 1.5 -12.345678 .8142 1. 123456789012345 1234567890123456789 \
                     -3.18055e-015 0.1 0.30000000000000004 99999.999999 1e300";
        let mut fast = Vec::new();
        parse_numbers(text, 1, 0, &mut fast).unwrap();
        let general: Vec<f64> = text
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| std::str::from_utf8(t).unwrap().parse::<f64>().unwrap())
            .collect();
        assert_eq!(fast.len(), general.len());
        for (a, b) in fast.iter().zip(&general) {
            assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
        }
        let err = parse_numbers(b"1.0 2.x", 7, 4, &mut fast).unwrap_err();
        assert_eq!((err.line, err.column), (7, 9));
        assert!(parse_numbers(b"- . -.", 1, 0, &mut fast).is_err());
    }

    #[test]
    fn numbers_as_real_files_write_them() {
        assert_eq!(parse_number(b".8142"), Some(0.8142));
        assert_eq!(parse_number(b"-0"), Some(-0.0));
        assert_eq!(parse_number(b"-3.18055e-015"), Some(-3.18055e-15));
        assert_eq!(parse_number(b"1.5x"), None);
        assert_eq!(parse_number(b"inf"), None);
        assert_eq!(parse_number(b"NaN"), None);
        assert_eq!(parse_number(b"1e999"), None);
        assert_eq!(parse_number(b""), None);
    }
}
