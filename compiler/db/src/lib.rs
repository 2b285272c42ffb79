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

    /// Every file in `relative` (a folder written inside `from`), sorted by name; empty when it is
    /// not a folder.
    fn list_folder(&self, from: SourceFile, relative: &str) -> Vec<String>;
}
