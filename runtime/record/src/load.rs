//! The validated loader (placeholder, to be completed).
use crate::{ArchivedRecordBody, Header, RecordBody};
#[derive(Debug)]
pub struct LoadError(pub String);
impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(&self.0) }
}
impl std::error::Error for LoadError {}
pub struct Record { header: Header, bytes: rkyv::util::AlignedVec }
impl Record {
    pub fn from_bytes(_bytes: &[u8]) -> Result<Self, LoadError> { Err(LoadError("not written yet".into())) }
    pub fn open(_path: &std::path::Path) -> Result<Self, LoadError> { Err(LoadError("not written yet".into())) }
    pub fn header(&self) -> &Header { &self.header }
    pub fn body(&self) -> &ArchivedRecordBody {
        // SAFETY: placeholder.
        unsafe { rkyv::access_unchecked::<ArchivedRecordBody>(&self.bytes) }
    }
    pub fn to_body(&self) -> Result<RecordBody, LoadError> { Err(LoadError("not written yet".into())) }
}
