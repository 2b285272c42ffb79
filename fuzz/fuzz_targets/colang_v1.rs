//! Fuzzes the Colang 1.0 front end and the condition language: any bytes, read as UTF-8 with
//! replacement characters, must parse without panicking, with every diagnostic inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stalwart_diagnostics::FileId;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = stalwart_syntax::parse_v1(FileId(0), &text);
    let _ = stalwart_syntax::inspect_v1(&parsed.value);
    for d in &parsed.diagnostics {
        assert!(d.primary.span.start <= d.primary.span.end);
        assert!(d.primary.span.end as usize <= text.len());
    }
    let _ = stalwart_syntax::parse_condition(FileId(0), &text, 0);
    let _ = stalwart_syntax::detect_dialect(&text);
});
