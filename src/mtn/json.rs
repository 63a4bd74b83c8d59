//! Lossless JSON form of a [`Motion`]: `dump --format json` writes it, `build` reads it,
//! and encoding the result reproduces the original file byte for byte.

use super::write::{validate, EncodeError};
use super::Motion;
use serde::{Deserialize, Serialize};

/// The `format` tag at the top of the JSON document.
pub const JSON_FORMAT: &str = "aibo-motion/mtn-json/1";

#[derive(Serialize, Deserialize)]
struct Document {
    format: String,
    #[serde(flatten)]
    motion: Motion,
}

/// A JSON document that is not a motion.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("\"format\" is {found:?}; this version reads {JSON_FORMAT:?}")]
    Format { found: String },
    #[error(transparent)]
    Invalid(#[from] EncodeError),
}

/// Pretty-printed JSON with a trailing newline.
pub fn to_json(motion: &Motion) -> String {
    let doc = Document {
        format: JSON_FORMAT.to_string(),
        motion: motion.clone(),
    };
    // Serializing plain structs of strings and integers cannot fail.
    let pretty = serde_json::to_string_pretty(&doc).unwrap_or_default();
    let mut text = compact_number_arrays(&pretty);
    text.push('\n');
    text
}

/// Puts arrays of plain numbers on one line (`"joints": [0, -52360, …]`), so that a
/// keyframe reads as a row. JSON strings hold no raw line breaks, so working line by line
/// cannot split one.
fn compact_number_arrays(pretty: &str) -> String {
    let lines: Vec<&str> = pretty.lines().collect();
    let mut out = String::with_capacity(pretty.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.ends_with('[') {
            let numbers: Vec<&str> = lines[i + 1..]
                .iter()
                .map(|l| l.trim().trim_end_matches(','))
                .take_while(|l| l.parse::<i64>().is_ok())
                .collect();
            let close = lines.get(i + 1 + numbers.len()).map(|l| l.trim());
            if let Some(close @ ("]" | "],")) = close {
                out.push_str(line);
                out.push_str(&numbers.join(", "));
                out.push_str(close);
                out.push('\n');
                i += numbers.len() + 2;
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
        i += 1;
    }
    out.pop();
    out
}

/// Parses and validates the JSON form.
pub fn from_json(text: &str) -> Result<Motion, JsonError> {
    let doc: Document = serde_json::from_str(text).map_err(|e| JsonError::Syntax {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if doc.format != JSON_FORMAT {
        return Err(JsonError::Format { found: doc.format });
    }
    validate(&doc.motion)?;
    Ok(doc.motion)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_arrays_go_on_one_line_and_nothing_else_changes() {
        let pretty =
            "{\n  \"a\": [\n    1,\n    -2\n  ],\n  \"s\": [\n    \"x\"\n  ],\n  \"e\": []\n}";
        let compact = compact_number_arrays(pretty);
        assert_eq!(
            compact,
            "{\n  \"a\": [1, -2],\n  \"s\": [\n    \"x\"\n  ],\n  \"e\": []\n}"
        );
        let a: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let b: serde_json::Value = serde_json::from_str(&compact).unwrap();
        assert_eq!(a, b);
    }
}
