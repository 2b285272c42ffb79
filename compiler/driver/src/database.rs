//! The concrete salsa database: storage, and the file loader that answers `Db::resolve`.
//!
//! Files are loaded lazily, the first time a query asks for one, through a [`FileLoader`]
//! (the disk for the command line, memory for tests and the editor). Each file gets a
//! [`FileId`] once; the same path always answers with the same [`SourceFile`].

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use salsa::Setter;
pub use stalwart_db::LoadProblem;
use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::{Diagnostic, FileId, Files, Span};

/// A file read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The text, without a leading byte-order mark.
    pub text: String,
    /// The file started with a UTF-8 byte-order mark (removed from `text`).
    pub had_bom: bool,
}

/// Where file texts come from.
pub trait FileLoader: Send + Sync {
    /// The file's text, or why it is not readable text.
    fn read(&self, path: &Path) -> Result<Text, LoadProblem>;
    /// The file's bytes as text with every byte that is not UTF-8 replaced, for showing where a
    /// file that is not UTF-8 goes wrong; `None` when it cannot be read at all.
    fn read_lossy(&self, path: &Path) -> Option<String> {
        let _ = path;
        None
    }
    /// Every file under a folder, at any depth, as `/`-separated paths relative to it, sorted
    /// (folders whose name starts with `.` are left out); `None` when it is not a folder.
    fn list_tree(&self, path: &Path) -> Option<Vec<String>>;
}

/// Reads from the disk.
#[derive(Debug, Default, Clone, Copy)]
pub struct DiskLoader;

impl FileLoader for DiskLoader {
    fn read(&self, path: &Path) -> Result<Text, LoadProblem> {
        if path.is_dir() {
            return Err(LoadProblem::Directory);
        }
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LoadProblem::Missing,
            std::io::ErrorKind::IsADirectory => LoadProblem::Directory,
            _ => LoadProblem::Other(e.to_string()),
        })?;
        text_of(bytes)
    }

    fn read_lossy(&self, path: &Path) -> Option<String> {
        std::fs::read(path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    fn list_tree(&self, path: &Path) -> Option<Vec<String>> {
        if !path.is_dir() {
            return None;
        }
        let mut out = Vec::new();
        // Folders met, by their real path, so a symbolic link that loops is followed once.
        let mut seen = std::collections::BTreeSet::new();
        walk_folder(path, "", &mut out, &mut seen, 0);
        out.sort();
        Some(out)
    }
}

/// Serves files from memory (tests, unsaved editor buffers).
#[derive(Debug, Default, Clone)]
pub struct MemoryLoader {
    pub files: BTreeMap<PathBuf, String>,
}

impl FileLoader for MemoryLoader {
    fn read(&self, path: &Path) -> Result<Text, LoadProblem> {
        let path = normalize(path);
        match self.files.get(&path) {
            Some(text) => text_of(text.clone().into_bytes()),
            None if self.files.keys().any(|p| p.starts_with(&path)) => Err(LoadProblem::Directory),
            None => Err(LoadProblem::Missing),
        }
    }

    fn list_tree(&self, path: &Path) -> Option<Vec<String>> {
        let dir = normalize(path);
        let under: Vec<String> = self
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(&dir).ok())
            .filter(|rel| !rel.as_os_str().is_empty())
            .filter(|rel| {
                let parts: Vec<_> = rel.components().collect();
                parts
                    .iter()
                    .take(parts.len().saturating_sub(1))
                    .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
            })
            .map(|rel| rel.to_string_lossy().replace('\\', "/"))
            .collect();
        (!under.is_empty()).then_some(under)
    }
}

/// Bytes to text: a NUL byte makes a binary file; a leading byte-order mark is removed; anything
/// but UTF-8 is refused with the place of the first byte that starts no character.
pub fn text_of(bytes: Vec<u8>) -> Result<Text, LoadProblem> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(LoadProblem::Binary { offset });
    }
    let (had_bom, bytes) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest.to_vec()),
        None => (false, bytes),
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Text { text, had_bom }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let before = String::from_utf8_lossy(bytes.get(..offset).unwrap_or(&[])).into_owned();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Err(LoadProblem::NotUtf8 {
                offset: offset + usize::from(had_bom) * 3,
                byte: bytes.get(offset).copied().unwrap_or(0),
                line,
                column,
            })
        }
    }
}

/// A file that could not be opened as the command's input, as a diagnostic (with the file, as
/// far as it could be read, for rendering it).
#[derive(Debug)]
pub struct Unreadable {
    pub diagnostic: Diagnostic,
    pub files: Files,
}

/// The diagnostic for an input named on the command line that cannot be read.
pub fn unreadable(loader: &dyn FileLoader, path: &Path, problem: &LoadProblem) -> Unreadable {
    let name = path.to_string_lossy().replace('\\', "/");
    let mut files = Files::new();
    let (text, at) = match problem {
        LoadProblem::NotUtf8 { offset, .. } => {
            let lossy = loader.read_lossy(path).unwrap_or_default();
            (lossy, u32::try_from(*offset).unwrap_or(0))
        }
        _ => (String::new(), 0),
    };
    files.insert(FileId(0), name.clone(), text);
    let code = problem.code().unwrap_or(crate::compile::UNREADABLE_INPUT);
    let span = Span::new(FileId(0), at, at);
    let label = match problem {
        LoadProblem::NotUtf8 { .. } => "the first byte that is not UTF-8",
        _ => "the input",
    };
    let help = match problem {
        LoadProblem::Missing => "check the path: it is relative to the current folder",
        other => other.help(),
    };
    let diagnostic = Diagnostic::error(code, span, problem.message(&name))
        .with_label(label)
        .with_help(help);
    Unreadable { diagnostic, files }
}

#[derive(Default)]
struct Registry {
    by_path: BTreeMap<PathBuf, SourceFile>,
    /// id → (display name, full path), in id order.
    by_id: Vec<(String, PathBuf)>,
    /// Why paths that were asked for could not be loaded.
    problems: BTreeMap<PathBuf, LoadProblem>,
    /// Files whose text started with a byte-order mark.
    boms: Vec<FileId>,
}

/// The database the compiler's façade runs queries against.
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    loader: Arc<dyn FileLoader>,
    /// The compiled root: agent.yaml's folder (paths in the record are relative to it).
    root: PathBuf,
    registry: Arc<Mutex<Registry>>,
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn resolve(&self, from: SourceFile, relative: &str) -> Option<SourceFile> {
        let base = self.full_path(from)?;
        let dir = base.parent().map(Path::to_path_buf).unwrap_or_default();
        self.load(&dir.join(relative))
    }

    fn list_tree(&self, from: SourceFile, relative: &str) -> Option<Vec<String>> {
        let base = self.full_path(from)?;
        let dir = base.parent().map(Path::to_path_buf).unwrap_or_default();
        self.loader.list_tree(&normalize(&dir.join(relative)))
    }

    fn load_problem(&self, from: SourceFile, relative: &str) -> Option<LoadProblem> {
        let base = self.full_path(from)?;
        let dir = base.parent().map(Path::to_path_buf).unwrap_or_default();
        let path = normalize(&dir.join(relative));
        self.registry.lock().ok()?.problems.get(&path).cloned()
    }

    fn had_bom(&self, file: SourceFile) -> bool {
        let id = file.id(self);
        self.registry
            .lock()
            .map(|r| r.boms.contains(&id))
            .unwrap_or(false)
    }
}

impl Database {
    /// A database whose compiled root is `root` (agent.yaml's or the rulebook's folder).
    pub fn new(loader: Arc<dyn FileLoader>, root: impl Into<PathBuf>) -> Self {
        Self::with_events(loader, root, None)
    }

    /// The same, with salsa's event callback (for tests that check what re-ran).
    pub fn with_events(
        loader: Arc<dyn FileLoader>,
        root: impl Into<PathBuf>,
        events: Option<Box<dyn Fn(salsa::Event) + Send + Sync + 'static>>,
    ) -> Self {
        Self {
            storage: salsa::Storage::new(events),
            loader,
            root: normalize(&root.into()),
            registry: Arc::new(Mutex::new(Registry::default())),
        }
    }

    /// A database rooted at the folder of `path` (agent.yaml's or a rulebook's), with that file
    /// loaded; when it cannot be read, a coded diagnostic saying why.
    pub fn open(
        loader: Arc<dyn FileLoader>,
        path: &Path,
    ) -> Result<(Self, SourceFile), Box<Unreadable>> {
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let db = Self::new(loader.clone(), root);
        match db.load(path) {
            Some(file) => Ok((db, file)),
            None => {
                let problem = db
                    .registry
                    .lock()
                    .ok()
                    .and_then(|r| r.problems.get(&normalize(path)).cloned())
                    .unwrap_or(LoadProblem::Missing);
                Err(Box::new(unreadable(loader.as_ref(), path, &problem)))
            }
        }
    }

    /// Loads (once) the file at `path`; `None` when it cannot be read.
    pub fn load(&self, path: &Path) -> Option<SourceFile> {
        let path = normalize(path);
        if let Some(file) = self.registry.lock().ok()?.by_path.get(&path) {
            return Some(*file);
        }
        let read = self.loader.read(&path);
        let mut registry = self.registry.lock().ok()?;
        let Text { text, had_bom } = match read {
            Ok(text) => text,
            Err(problem) => {
                registry.problems.insert(path, problem);
                return None;
            }
        };
        if let Some(file) = registry.by_path.get(&path) {
            return Some(*file);
        }
        let id = FileId(registry.by_id.len() as u32);
        if had_bom {
            registry.boms.push(id);
        }
        let name = path.to_string_lossy().replace('\\', "/");
        let relative = relative_to(&path, &self.root);
        let file = SourceFile::new(self, id, name.clone(), relative, text);
        registry.by_path.insert(path.clone(), file);
        registry.by_id.push((name, path));
        Some(file)
    }

    /// Why the file at `path` could not be loaded, if loading it was tried and failed.
    pub fn problem_at(&self, path: &Path) -> Option<LoadProblem> {
        self.registry
            .lock()
            .ok()?
            .problems
            .get(&normalize(path))
            .cloned()
    }

    /// Replaces a loaded file's text (an edit); queries that read it re-run on next use.
    pub fn set_text(&mut self, file: SourceFile, text: String) {
        file.set_text(self).to(text);
    }

    /// The full path a file was loaded from.
    pub fn full_path(&self, file: SourceFile) -> Option<PathBuf> {
        let id = file.id(self);
        self.registry
            .lock()
            .ok()?
            .by_id
            .get(id.0 as usize)
            .map(|(_, p)| p.clone())
    }

    /// The file already loaded from `path`, without reading anything (`None` when no query has
    /// loaded it).
    pub fn loaded(&self, path: &Path) -> Option<SourceFile> {
        let path = normalize(path);
        self.registry.lock().ok()?.by_path.get(&path).copied()
    }

    /// The full path of the file with this id (diagnostics carry ids).
    pub fn path_of(&self, id: FileId) -> Option<PathBuf> {
        let registry = self.registry.lock().ok()?;
        registry.by_id.get(id.0 as usize).map(|(_, p)| p.clone())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every loaded file, for rendering diagnostics.
    pub fn files(&self) -> Files {
        let mut files = Files::new();
        let entries: Vec<(String, PathBuf)> = self
            .registry
            .lock()
            .map(|r| r.by_id.clone())
            .unwrap_or_default();
        for (i, (name, path)) in entries.into_iter().enumerate() {
            let text = self
                .registry
                .lock()
                .ok()
                .and_then(|r| r.by_path.get(&path).copied());
            if let Some(file) = text {
                files.insert(FileId(i as u32), name, file.text(self).clone());
            }
        }
        files
    }
}

/// The deepest a folder tree is walked.
const MAX_FOLDER_DEPTH: usize = 32;

/// Adds the files under `dir` to `out`, as `prefix` + their path.
fn walk_folder(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<String>,
    seen: &mut std::collections::BTreeSet<PathBuf>,
    depth: usize,
) {
    if depth > MAX_FOLDER_DEPTH {
        return;
    }
    if let Ok(real) = dir.canonicalize()
        && !seen.insert(real)
    {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let path = entry.path();
        let rel = format!("{prefix}{name}");
        if path.is_dir() {
            if !name.starts_with('.') {
                walk_folder(&path, &format!("{rel}/"), out, seen, depth + 1);
            }
        } else if path.is_file() {
            out.push(rel);
        }
    }
}

/// Lexical normalisation: drops `.`, resolves `..` against earlier components.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            // `..` climbs over a name kept before it; at the start, above the root of a
            // relative path or after another `..`, it stays.
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn relative_to(path: &Path, root: &Path) -> String {
    let rel = path
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf());
    rel.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod normalize_tests {
    use super::normalize;
    use std::path::{Path, PathBuf};

    #[test]
    fn parent_folders_climb_names_and_stay_when_nothing_is_left_to_climb() {
        let cases = [
            (
                "../../examples/shop/agent.yaml",
                "../../examples/shop/agent.yaml",
            ),
            ("../../../x/agent.yaml", "../../../x/agent.yaml"),
            ("a/b/../../../c", "../c"),
            ("a/./b/../c", "a/c"),
            ("/../a", "/a"),
            ("/a/b/../../c", "/c"),
            ("./a", "a"),
        ];
        for (path, want) in cases {
            assert_eq!(normalize(Path::new(path)), PathBuf::from(want), "{path}");
        }
    }
}
