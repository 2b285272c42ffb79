//! The compiled record: the one artifact the compiler and the runtime share.
//!
//! `schema` is the data model; `header` the fixed header (magic, format version, compiler
//! version, BLAKE3 digest of the body); `write` turns a [`RecordBody`] into deterministic bytes;
//! `load` validates bytes once and then gives zero-copy access to the archived body.

pub mod schema;

mod header;
mod load;
mod write;

pub use header::{FORMAT_VERSION, HEADER_LEN, Header, MAGIC};
pub use load::{LoadError, Record};
pub use schema::*;
pub use write::{EncodeError, encode};
