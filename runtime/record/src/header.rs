//! The fixed header in front of every record body (placeholder, to be completed).
pub const MAGIC: [u8; 8] = *b"STLWREC\0";
pub const FORMAT_VERSION: u32 = 1;
pub const HEADER_LEN: usize = 64;
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub format_version: u32,
    pub compiler_version: String,
    pub body_len: u64,
    pub digest: [u8; 32],
}
