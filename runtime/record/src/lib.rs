//! The compiled record: the one artifact the compiler and the runtime share.
//!
//! `schema` is the data model; `header` the fixed header (magic, format version, compiler
//! version, BLAKE3 digest of the body); `write` turns a [`RecordBody`] into deterministic bytes;
//! `load` validates bytes once (header, digest, bytecheck, and the `indices` pass over every
//! arena index) and then gives zero-copy access to the archived body.

pub mod schema;

mod header;
mod indices;
mod load;
mod write;

pub use header::{COMPILER_VERSION_LEN, FORMAT_VERSION, HEADER_LEN, Header, MAGIC};
pub use indices::{Arena, IndexFault};
pub use load::{LoadError, Record};
/// An arena index as the archive holds it (little-endian `u32`).
pub use rkyv::rend::u32_le as ArchivedIdx;
pub use schema::*;
pub use write::{EncodeError, encode};
