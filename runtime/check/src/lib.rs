//! The tool check: evaluates a record on every tool call.
