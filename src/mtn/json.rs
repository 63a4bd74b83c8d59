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
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
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
