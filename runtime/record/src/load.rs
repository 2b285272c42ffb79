//! Loading a record: every check runs once, at load; after that the archived body is read in
//! place, at a cost that does not depend on the record's size.
//!
//! The checks run in this order, and the first that fails is the error: the header is complete,
//! the magic is right, the format version is the one this crate reads, the header is readable, the
//! body has exactly the length the header declares, the body's BLAKE3 digest matches the header,
//! the body is a valid archive (bytecheck), and every arena index in it points inside its arena
//! (`crate::indices`).

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};
use rkyv::rancor::BoxedError;
use rkyv::util::AlignedVec;

use crate::header::{self, FORMAT_VERSION, HEADER_LEN, Header, MAGIC};
use crate::indices::{IndexFault, check_indices};
use crate::{ArchivedRecordBody, RecordBody};

/// Bodies shorter than this are read into memory by [`Record::open`] rather than mapped: a
/// mapping costs more than copying a few pages.
const MAP_THRESHOLD: u64 = 16 * 1024;

/// The alignment every body buffer has (that of [`AlignedVec`]); archived bodies need at most 8.
const BODY_ALIGN: usize = 16;

/// Why a record could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be opened, read or mapped.
    Io { path: PathBuf, error: io::Error },
    /// Fewer bytes than the fixed header.
    TruncatedHeader { len: u64 },
    /// The bytes do not start with [`MAGIC`].
    NotARecord,
    /// A format version this crate does not read.
    UnsupportedVersion { found: u32, supported: u32 },
    /// The header's compiler version is not UTF-8 text.
    DamagedHeader,
    /// Fewer body bytes follow the header than it declares.
    TruncatedBody { declared: u64, found: u64 },
    /// More body bytes follow the header than it declares.
    TrailingBytes { declared: u64, found: u64 },
    /// The body's BLAKE3 digest differs from the header's.
    DigestMismatch,
    /// The body is not a valid archive of a record body (bytecheck).
    Archive(BoxedError),
    /// An arena index in the body points outside its arena.
    Index(IndexFault),
    /// The archived body could not be turned back into an owned one.
    Deserialize(BoxedError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, error } => write!(f, "could not read `{}`: {error}", path.display()),
            Self::TruncatedHeader { len } => write!(
                f,
                "truncated: the file has {len} bytes, fewer than the {HEADER_LEN}-byte record header"
            ),
            Self::NotARecord => {
                f.write_str("not a Stalwart record: the file does not start with the record magic")
            }
            Self::UnsupportedVersion { found, supported } => write!(
                f,
                "unsupported record format version {found}: this runtime reads version \
                 {supported}; compile the record again with a matching compiler"
            ),
            Self::DamagedHeader => {
                f.write_str("damaged record header: the compiler version is not UTF-8 text")
            }
            Self::TruncatedBody { declared, found } => write!(
                f,
                "truncated: the header declares a body of {declared} bytes but only {found} follow"
            ),
            Self::TrailingBytes { declared, found } => write!(
                f,
                "trailing bytes: the header declares a body of {declared} bytes but {found} follow"
            ),
            Self::DigestMismatch => f.write_str(
                "the record's digest does not match its contents: the file was changed or damaged",
            ),
            // The archive's own account (offsets, type names) stays behind `source()`: it says
            // nothing a user can act on.
            Self::Archive(_) => f.write_str(
                "the record's body is not a record this runtime can read, though its digest \
                 matches: it was written by an incompatible build of the compiler or made by \
                 hand; compile the record again with this version's compiler",
            ),
            Self::Index(fault) => write!(f, "the record is inconsistent: {fault}"),
            Self::Deserialize(_) => f.write_str(
                "the record's body could not be read back: compile the record again with this \
                 version's compiler",
            ),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { error, .. } => Some(error),
            Self::Archive(error) | Self::Deserialize(error) => Some(error),
            _ => None,
        }
    }
}

/// Where a record's body lives. Neither kind is ever written to or resized once built, so the
/// bytes validated at load stay the bytes read afterwards, at the same address.
enum Storage {
    /// An owned copy, aligned to [`BODY_ALIGN`]. Holds only the body.
    Owned(AlignedVec),
    /// A read-only mapping of the body's part of the file, aligned to [`BODY_ALIGN`].
    Mapped(Mmap),
}

impl Storage {
    fn body(&self) -> &[u8] {
        match self {
            Self::Owned(bytes) => bytes.as_slice(),
            Self::Mapped(map) => map,
        }
    }
}

/// A loaded, validated record.
///
/// Building one runs every check of the module documentation; afterwards [`Record::body`] reads
/// the archived body in place in constant time.
///
/// # Mapped files
///
/// [`Record::open`] maps the file read-only. A mapping shows later changes to the file, and a file
/// truncated underneath it makes reads fault: the checks done at load only hold while nobody
/// changes the file. The runtime maps records from its own record folder, which nothing writes
/// while records are in use (the compiler writes a new folder rather than rewriting a mapped
/// file). Callers who cannot promise that use [`Record::read`], which copies the file into memory.
pub struct Record {
    header: Header,
    storage: Storage,
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("header", &self.header)
            .field("mapped", &self.is_mapped())
            .finish_non_exhaustive()
    }
}

impl Record {
    /// Validates `bytes` (a whole `record.bin`) and keeps an aligned copy of its body.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let header = check_header(bytes, bytes.len() as u64)?;
        let body = bytes.get(HEADER_LEN..).unwrap_or_default();
        check_digest(&header, body)?;
        let mut owned = AlignedVec::with_capacity(body.len());
        owned.extend_from_slice(body);
        Self::checked(header, Storage::Owned(owned))
    }

    /// Opens and validates the record at `path`, mapping its body read-only (small bodies are
    /// read into memory). See [Mapped files](Record#mapped-files) for what the caller promises.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let io = |error| LoadError::Io {
            path: path.to_owned(),
            error,
        };
        let mut file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        if file_len < HEADER_LEN as u64 + MAP_THRESHOLD {
            return read_from(&mut file, path);
        }
        let prefix = read_prefix(&mut file).map_err(io)?;
        let header = check_header(&prefix, file_len)?;
        let len = usize::try_from(header.body_len).map_err(|_| LoadError::TruncatedBody {
            declared: header.body_len,
            found: file_len.saturating_sub(HEADER_LEN as u64),
        })?;
        // SAFETY: the mapping is read-only and owned by the returned `Record`. Its contents stay
        // those validated below only while nobody changes the file; that is the caller's promise
        // documented on `Record` (the runtime maps records from its own folder, which nothing
        // rewrites). The offset need not be page-aligned: memmap2 maps from the page boundary
        // below it and returns a pointer to the offset.
        let map = unsafe {
            MmapOptions::new()
                .offset(HEADER_LEN as u64)
                .len(len)
                .map(&file)
        }
        .map_err(io)?;
        let storage = if map.as_ptr().align_offset(BODY_ALIGN) == 0 {
            Storage::Mapped(map)
        } else {
            let mut owned = AlignedVec::with_capacity(map.len());
            owned.extend_from_slice(&map);
            Storage::Owned(owned)
        };
        check_digest(&header, storage.body())?;
        Self::checked(header, storage)
    }

    /// Reads the record at `path` into memory and validates it. Unlike [`Record::open`], later
    /// changes to the file cannot affect the loaded record.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(|error| LoadError::Io {
            path: path.to_owned(),
            error,
        })?;
        read_from(&mut file, path)
    }

    /// The record's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether the body is read from a mapping of the file (rather than from memory this record
    /// owns).
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }

    /// The archived body's bytes (the file after the header).
    pub fn body_bytes(&self) -> &[u8] {
        self.storage.body()
    }

    /// The archived body, read in place. Constant time: no check runs here.
    pub fn body(&self) -> &ArchivedRecordBody {
        // SAFETY: `access_unchecked` needs a slice holding a valid `ArchivedRecordBody` at its
        // root position, aligned for it.
        // - Valid: a `Record` is only built by `Record::checked`, which ran the checked
        //   `rkyv::access::<ArchivedRecordBody, _>` (bytecheck) successfully on exactly the slice
        //   `self.storage.body()` returns.
        // - Unchanged since: `storage` is private and never written to or resized; an owned body
        //   is an `AlignedVec` nothing pushes to after construction, so its heap buffer neither
        //   moves nor changes; a mapped body is a read-only mapping owned by `self`, unchanged as
        //   long as the file is (the caller's promise for `Record::open`, see the type's docs).
        // - Aligned: `AlignedVec` is aligned to `BODY_ALIGN` (16); a mapping is only kept when
        //   its address is aligned to `BODY_ALIGN`, otherwise it was copied into an `AlignedVec`.
        //   Archived bodies need at most 8.
        unsafe { rkyv::access_unchecked::<ArchivedRecordBody>(self.storage.body()) }
    }

    /// An owned copy of the body.
    pub fn to_body(&self) -> Result<RecordBody, LoadError> {
        rkyv::deserialize::<RecordBody, BoxedError>(self.body()).map_err(LoadError::Deserialize)
    }

    /// The last checks: bytecheck and the index pass, on the bytes the record will keep.
    fn checked(header: Header, storage: Storage) -> Result<Self, LoadError> {
        let body = rkyv::access::<ArchivedRecordBody, BoxedError>(storage.body())
            .map_err(LoadError::Archive)?;
        check_indices(body).map_err(LoadError::Index)?;
        Ok(Self { header, storage })
    }
}

/// Reads a record from `file` into memory and validates it.
fn read_from(file: &mut File, path: &Path) -> Result<Record, LoadError> {
    let io = |error| LoadError::Io {
        path: path.to_owned(),
        error,
    };
    let prefix = read_prefix(file).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    let header = check_header(&prefix, file_len.max(prefix.len() as u64))?;
    let mut body = AlignedVec::with_capacity(usize::try_from(header.body_len).unwrap_or(0));
    body.extend_from_reader(file).map_err(io)?;
    // The file may have changed since its length was taken: check what was read.
    check_body_len(&header, body.len() as u64)?;
    check_digest(&header, &body)?;
    Record::checked(header, Storage::Owned(body))
}

/// Up to [`HEADER_LEN`] bytes from the start of `file` (fewer only at its end).
fn read_prefix(file: &mut File) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(HEADER_LEN);
    file.take(HEADER_LEN as u64).read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// Checks the header at the start of `bytes`, for a file of `file_len` bytes in all.
fn check_header(bytes: &[u8], file_len: u64) -> Result<Header, LoadError> {
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::TruncatedHeader { len: file_len });
    }
    let (magic, version) =
        header::peek(bytes).ok_or(LoadError::TruncatedHeader { len: file_len })?;
    if magic != MAGIC {
        return Err(LoadError::NotARecord);
    }
    if version != FORMAT_VERSION {
        return Err(LoadError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let header = Header::parse(bytes).ok_or(LoadError::DamagedHeader)?;
    check_body_len(&header, file_len.saturating_sub(HEADER_LEN as u64))?;
    Ok(header)
}

/// Checks that `found` body bytes are what the header declares.
fn check_body_len(header: &Header, found: u64) -> Result<(), LoadError> {
    let declared = header.body_len;
    match found.cmp(&declared) {
        std::cmp::Ordering::Less => Err(LoadError::TruncatedBody { declared, found }),
        std::cmp::Ordering::Greater => Err(LoadError::TrailingBytes { declared, found }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

fn check_digest(header: &Header, body: &[u8]) -> Result<(), LoadError> {
    if blake3::hash(body) == blake3::Hash::from_bytes(header.digest) {
        Ok(())
    } else {
        Err(LoadError::DigestMismatch)
    }
}
