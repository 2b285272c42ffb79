//! The salsa database's inputs and the trait every query takes.
//!
//! Inputs are few: the text of each source file ([`SourceFile`]), keyed by an opaque
//! [`FileId`]. The database knows nothing of paths or IO: a query that needs another file (a
//! catalogue, a Python module, the rulebook) asks [`Db::resolve`] for it by the name written in
//! the file that refers to it, and whoever owns the concrete database (the driver, the language
//! server) finds and loads it.

use stalwart_diagnostics::{Code, FileId};

/// Why a file named somewhere could not be read as text. The owner of the database finds out (it
/// does the IO); queries ask [`Db::load_problem`] to say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// Nothing is at that path.
    Missing,
    /// The path is a folder.
    Directory,
    /// The file holds a NUL byte (at `offset`): it is not text.
    Binary { offset: usize },
    /// The file is not UTF-8: the byte `byte` at `offset` (1-based `line` and `column`, columns
    /// counted in characters) starts no character.
    NotUtf8 {
        offset: usize,
        byte: u8,
        line: usize,
        column: usize,
    },
    /// Another error of the system (permissions, …), as it said it.
    Other(String),
}

/// The input is a folder where a file is expected.
pub const INPUT_IS_A_DIRECTORY: Code = Code {
    id: "E0004",
    slug: "input-is-a-directory",
};
/// The input holds a NUL byte: a binary file, not text.
pub const BINARY_INPUT: Code = Code {
    id: "E0005",
    slug: "binary-input",
};
/// The input is not UTF-8 text.
pub const NOT_UTF8: Code = Code {
    id: "E0006",
    slug: "not-utf8",
};
/// Warning: the input starts with a byte-order mark; it is read without it.
pub const BYTE_ORDER_MARK: Code = Code {
    id: "W0007",
    slug: "byte-order-mark",
};

impl LoadProblem {
    /// What is wrong with `name`, as a diagnostic's message (lowercase, no final period).
    pub fn message(&self, name: &str) -> String {
        match self {
            LoadProblem::Missing => format!("`{name}` does not exist"),
            LoadProblem::Directory => format!("`{name}` is a folder, not a file"),
            LoadProblem::Binary { offset } => {
                format!("`{name}` is a binary file, not text: byte {offset} is a NUL byte")
            }
            LoadProblem::NotUtf8 {
                byte, line, column, ..
            } => format!(
                "`{name}` is not UTF-8 text: byte `0x{byte:02X}` at line {line}, column {column} starts no character"
            ),
            LoadProblem::Other(why) => format!("`{name}` cannot be read: {why}"),
        }
    }

    /// The code of the problem; `None` for a missing file, which each caller names in its own
    /// words (a missing module, a missing rulebook).
    pub fn code(&self) -> Option<Code> {
        match self {
            LoadProblem::Missing | LoadProblem::Other(_) => None,
            LoadProblem::Directory => Some(INPUT_IS_A_DIRECTORY),
            LoadProblem::Binary { .. } => Some(BINARY_INPUT),
            LoadProblem::NotUtf8 { .. } => Some(NOT_UTF8),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> &'static str {
        match self {
            LoadProblem::Missing => "check the path: it is relative to the file that names it",
            LoadProblem::Directory => "name a file inside it",
            LoadProblem::Binary { .. } => {
                "name the text file (JSON, YAML, Python or Colang) instead"
            }
            LoadProblem::NotUtf8 { .. } => "save the file as UTF-8",
            LoadProblem::Other(_) => "check that the file can be read",
        }
    }
}

/// One source file: agent.yaml, a catalogue, a Python module, a rulebook.
///
/// INVARIANT: `id` is unique per file for the database's lifetime; diagnostics carry it and the
/// owner of the database maps it back to a path for rendering.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(copy)]
    pub id: FileId,
    /// The name diagnostics show (the path as the user would type it).
    #[returns(ref)]
    pub name: String,
    /// The path relative to the compiled root (agent.yaml's folder), `/`-separated: an opaque
    /// key for the database, meaningful to the owner that loaded it (and the record's manifest).
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub text: String,
}

/// The database every query runs against.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The file that `relative` names, written inside `from` (relative to `from`'s folder), or
    /// `None` when there is no such file.
    fn resolve(&self, from: SourceFile, relative: &str) -> Option<SourceFile>;

    /// Every file under `relative` (a folder written inside `from`), at any depth, as paths
    /// relative to that folder (`/`-separated, sorted; folders whose name starts with `.` are
    /// left out); `None` when `relative` is not a folder.
    fn list_tree(&self, from: SourceFile, relative: &str) -> Option<Vec<String>>;

    /// Why [`Db::resolve`] found no file at `relative` (written inside `from`); `None` when it
    /// did, or when the owner cannot tell.
    fn load_problem(&self, _from: SourceFile, _relative: &str) -> Option<LoadProblem> {
        None
    }

    /// Whether the file's text started with a byte-order mark (removed before it was stored).
    fn had_bom(&self, _file: SourceFile) -> bool {
        false
    }
}

/// Where each line of a file starts (byte offsets; the first is 0), worked out once per text so
/// that placing many spans costs a binary search each.
#[salsa::tracked(returns(ref))]
pub fn line_starts(db: &dyn Db, file: SourceFile) -> Vec<u32> {
    let text = file.text(db);
    std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        )
        .collect()
}

/// The 1-based line that byte `offset` of `file` is on (an offset past the end is on the last
/// line).
pub fn line_of(db: &dyn Db, file: SourceFile, offset: u32) -> u32 {
    let starts = line_starts(db, file);
    // The number of line starts at or before `offset` is the line's number.
    starts.partition_point(|&s| s <= offset).max(1) as u32
}

/// The 1-based line and column of byte `offset` of `file`, the column counted in characters
/// (Unicode scalar values) from the line's start. An offset past the end is placed at the end; an
/// offset inside a character counts that character.
pub fn line_col_of(db: &dyn Db, file: SourceFile, offset: u32) -> (u32, u32) {
    let line = line_of(db, file, offset);
    let starts = line_starts(db, file);
    let start = starts
        .get(line.saturating_sub(1) as usize)
        .copied()
        .unwrap_or(0) as usize;
    let text = file.text(db);
    let end = (offset as usize).clamp(start, text.len());
    let bytes = text.as_bytes().get(start..end).unwrap_or_default();
    // A character is counted at its first byte (a byte that is not a UTF-8 continuation byte).
    let chars = bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count();
    (line, chars as u32 + 1)
}
