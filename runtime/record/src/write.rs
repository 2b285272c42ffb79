//! Deterministic encoding of a record body into the bytes of `record.bin`.
//!
//! The body is archived with rkyv and the fixed header (with the body's BLAKE3 digest) is put in
//! front of it. rkyv lays a value out as a pure function of the value: the schema holds only
//! vectors, strings, options and plain numbers (no hash maps, no pointers, no timestamps), so the
//! same body always gives the same bytes.

use std::fmt;

use rkyv::rancor::BoxedError;

use crate::RecordBody;
use crate::header::{COMPILER_VERSION_LEN, HEADER_LEN, Header};

/// Why a body could not be encoded.
#[derive(Debug)]
pub enum EncodeError {
    /// The compiler version does not fit the header's field.
    CompilerVersion { version: String },
    /// rkyv could not archive the body.
    Archive(BoxedError),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CompilerVersion { version } => write!(
                f,
                "the compiler version `{version}` does not fit the record header \
                 (at most {COMPILER_VERSION_LEN} bytes of UTF-8, no NUL)"
            ),
            Self::Archive(error) => write!(f, "the record body could not be archived: {error}"),
        }
    }
}

impl std::error::Error for EncodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::CompilerVersion { .. } => None,
            Self::Archive(error) => Some(error),
        }
    }
}

/// The bytes of a record: the fixed header followed by the archived `body`.
///
/// Deterministic: equal bodies and compiler versions give equal bytes.
pub fn encode(body: &RecordBody, compiler_version: &str) -> Result<Vec<u8>, EncodeError> {
    let archived = rkyv::to_bytes::<BoxedError>(body).map_err(EncodeError::Archive)?;
    let header = Header::for_body(&archived, compiler_version).ok_or_else(|| {
        EncodeError::CompilerVersion {
            version: compiler_version.to_owned(),
        }
    })?;
    let mut out = Vec::with_capacity(HEADER_LEN + archived.len());
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(&archived);
    Ok(out)
}
