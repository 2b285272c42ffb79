//! The inputs and the one call per dialect that every command times or fuzzes: which front end a
//! dialect means, reading the files, and building the large input from valid files.

use std::path::PathBuf;

use stalwart_diagnostics::{Diagnostic, FileId, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    V1,
    V2,
}

impl Dialect {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "v1" | "1.0" => Ok(Self::V1),
            "v2" | "2.x" => Ok(Self::V2),
            other => Err(format!("unknown dialect `{other}` (v1 or v2)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::V1 => "v1",
            Self::V2 => "v2",
        }
    }
}

/// What one parse left behind, small enough to return from a timed loop.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outcome {
    pub errors: usize,
    pub warnings: usize,
    /// Top-level items the module holds: keeps the parse from being optimised away.
    pub items: usize,
}

/// Parses `text` with the front end of `dialect`, and with `inspect` also builds the facts
/// `stalwart rules inspect` prints.
pub fn parse(dialect: Dialect, text: &str, inspect: bool) -> Outcome {
    let (diagnostics, items) = match dialect {
        Dialect::V1 => {
            let parsed = stalwart_syntax::parse_v1(FileId(0), text);
            let mut items = parsed.value.items.len();
            if inspect {
                items += json_size(&stalwart_syntax::inspect_v1(&parsed.value));
            }
            (parsed.diagnostics, items)
        }
        Dialect::V2 => {
            let parsed = stalwart_syntax::v2::parse_v2(FileId(0), text);
            let mut items = parsed.value.items.len();
            if inspect {
                items += json_size(&stalwart_syntax::v2::inspect_v2(&parsed.value));
            }
            (parsed.diagnostics, items)
        }
    };
    count(&diagnostics, items)
}

fn json_size(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(a) => a.len(),
        serde_json::Value::Object(o) => o.len(),
        _ => 1,
    }
}

pub fn count(diagnostics: &[Diagnostic], items: usize) -> Outcome {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    Outcome {
        errors,
        warnings: diagnostics.len() - errors,
        items,
    }
}

/// One input file, read whole.
pub struct Input {
    pub text: String,
}

pub fn read_files(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    paths
        .iter()
        .map(|path| {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let text =
                String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", path.display()))?;
            Ok(Input { text })
        })
        .collect()
}

/// The large input: every file that parses without an error, each ending in a blank line,
/// repeated in order until the text holds at least `min_bytes`. Both dialects accept it as one
/// file: a 1.0 file is a list of top-level definitions, and 2.x accepts a flow defined twice
/// (the later definition wins, as in the reference).
pub fn concatenate(dialect: Dialect, inputs: &[Input], min_bytes: usize) -> (String, usize) {
    let valid: Vec<&str> = inputs
        .iter()
        .filter(|i| parse(dialect, &i.text, false).errors == 0)
        .map(|i| i.text.as_str())
        .collect();
    let mut big = String::with_capacity(min_bytes + 64 * 1024);
    if valid.is_empty() {
        return (big, 0);
    }
    while big.len() < min_bytes {
        for text in &valid {
            big.push_str(text);
            if !text.ends_with('\n') {
                big.push('\n');
            }
            big.push('\n');
        }
    }
    (big, valid.len())
}
