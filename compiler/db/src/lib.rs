//! The salsa database's inputs and the trait every query takes.
//!
//! Inputs are few: the text of each source file ([`SourceFile`]), keyed by an opaque
//! [`FileId`]. The database knows nothing of paths or IO: a query that needs another file (a
//! catalogue, a Python module, the rulebook) asks [`Db::resolve`] for it by the name written in
//! the file that refers to it, and whoever owns the concrete database (the driver, the language
//! server) finds and loads it.

use stalwart_diagnostics::FileId;

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
