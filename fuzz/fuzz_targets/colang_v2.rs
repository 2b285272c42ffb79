//! Fuzz target: arbitrary bytes, read as UTF-8 (lossy), through the Colang 2.x parser and its
//! facts. Parsing must never panic, whatever the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stalwart_diagnostics::FileId;
use stalwart_syntax::v2::{inspect_v2, parse_v2};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parse = parse_v2(FileId(0), &text);
    let _ = inspect_v2(&parse.value);
});
