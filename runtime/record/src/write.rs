//! Deterministic encoding of a record body (placeholder, to be completed).
use crate::RecordBody;
#[derive(Debug)]
pub struct EncodeError(pub String);
impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(&self.0) }
}
impl std::error::Error for EncodeError {}
pub fn encode(_body: &RecordBody, _compiler_version: &str) -> Result<Vec<u8>, EncodeError> {
    Err(EncodeError("not written yet".into()))
}
