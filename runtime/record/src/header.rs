//! The fixed header in front of every record body: its layout, and reading and writing it.
//!
//! The header is [`HEADER_LEN`] bytes, all integers little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic, [`MAGIC`] |
//! | 8 | 4 | format version, `u32` |
//! | 12 | 4 | flags, `u32`: reserved, written as 0 and ignored on read |
//! | 16 | 24 | compiler version: UTF-8, padded with NUL bytes |
//! | 40 | 8 | body length in bytes, `u64` |
//! | 48 | 32 | BLAKE3 digest of the body |
//!
//! `HEADER_LEN` is a multiple of 16, so a body that follows an aligned header stays aligned.
//! Parsing here only splits the fields apart; what they must hold is checked by `crate::load`.

/// The first eight bytes of every record.
pub const MAGIC: [u8; 8] = *b"STLWREC\0";
/// The only body layout this crate reads and writes.
pub const FORMAT_VERSION: u32 = 4;
/// Length of the fixed header, in bytes.
pub const HEADER_LEN: usize = 80;
/// Room for the compiler version, in bytes (UTF-8, NUL-padded).
pub const COMPILER_VERSION_LEN: usize = 24;

const VERSION_AT: usize = 8;
const FLAGS_AT: usize = 12;
const COMPILER_AT: usize = 16;
const BODY_LEN_AT: usize = COMPILER_AT + COMPILER_VERSION_LEN;
const DIGEST_AT: usize = BODY_LEN_AT + 8;
const _: () = assert!(DIGEST_AT + 32 == HEADER_LEN);
const _: () = assert!(HEADER_LEN.is_multiple_of(16));

/// The fields of a record's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Always [`MAGIC`] in a record that loaded.
    pub magic: [u8; 8],
    pub format_version: u32,
    /// Reserved; written as 0.
    pub flags: u32,
    /// The version of the compiler that wrote the record.
    pub compiler_version: String,
    /// Length of the body that follows the header, in bytes.
    pub body_len: u64,
    /// BLAKE3 digest of the body.
    pub digest: [u8; 32],
}

impl Header {
    /// A header for `body`, written by `compiler_version`; `None` when the version does not fit
    /// its field (longer than [`COMPILER_VERSION_LEN`] bytes, or holding a NUL byte).
    pub fn for_body(body: &[u8], compiler_version: &str) -> Option<Self> {
        let fits =
            compiler_version.len() <= COMPILER_VERSION_LEN && !compiler_version.contains('\0');
        fits.then(|| Self {
            magic: MAGIC,
            format_version: FORMAT_VERSION,
            flags: 0,
            compiler_version: compiler_version.to_owned(),
            body_len: body.len() as u64,
            digest: *blake3::hash(body).as_bytes(),
        })
    }

    /// The header's bytes. A compiler version longer than its field is cut at the field's end
    /// ([`Header::for_body`] never makes such a header).
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        put(&mut out, 0, &self.magic);
        put(&mut out, VERSION_AT, &self.format_version.to_le_bytes());
        put(&mut out, FLAGS_AT, &self.flags.to_le_bytes());
        let version = self.compiler_version.as_bytes();
        let version = version.get(..COMPILER_VERSION_LEN).unwrap_or(version);
        put(&mut out, COMPILER_AT, version);
        put(&mut out, BODY_LEN_AT, &self.body_len.to_le_bytes());
        put(&mut out, DIGEST_AT, &self.digest);
        out
    }

    /// Splits the first [`HEADER_LEN`] bytes of `bytes` into fields (bytes after them are
    /// ignored); `None` when there are fewer, or the compiler version is not UTF-8 text.
    pub(crate) fn parse(bytes: &[u8]) -> Option<Self> {
        let (magic, format_version) = peek(bytes)?;
        let flags = u32::from_le_bytes(take(bytes, FLAGS_AT)?);
        let version: [u8; COMPILER_VERSION_LEN] = take(bytes, COMPILER_AT)?;
        let body_len = u64::from_le_bytes(take(bytes, BODY_LEN_AT)?);
        let digest: [u8; 32] = take(bytes, DIGEST_AT)?;
        let used = version
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(version.len());
        let compiler_version = std::str::from_utf8(version.get(..used)?).ok()?.to_owned();
        Some(Self {
            magic,
            format_version,
            flags,
            compiler_version,
            body_len,
            digest,
        })
    }
}

/// The magic and the format version at the start of `bytes`, if there are that many bytes.
pub(crate) fn peek(bytes: &[u8]) -> Option<([u8; 8], u32)> {
    let magic = take(bytes, 0)?;
    let version = u32::from_le_bytes(take(bytes, VERSION_AT)?);
    Some((magic, version))
}

/// Copies `from` into `out` at `at`; a part that would not fit is left out.
fn put(out: &mut [u8], at: usize, from: &[u8]) {
    if let Some(dest) = out.get_mut(at..at.saturating_add(from.len())) {
        dest.copy_from_slice(from);
    }
}

/// The `N` bytes of `bytes` at `at`, if there are that many.
fn take<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}
