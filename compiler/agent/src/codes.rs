//! Diagnostic codes of the agent front end.
//!
//! Ranges: `E0100`–`E0199` agent.yaml structure and values; `E0200`–`E0249` catalogue files;
//! `E0250`–`E0299` MCP answers; `E0300`–`E0399` Python tool modules; `E0150`–`E0199` names
//! resolved across files. Codes are stable: never renumber one.

#[allow(unused_imports)]
use stalwart_diagnostics::Code;
