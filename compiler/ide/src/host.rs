//! The editor's long-lived analysis: one salsa database per project (an agent.yaml and what it
//! names, or a rulebook no agent names), held for the whole session and edited in place.
//!
//! A project's database is the one `stalwart compile` (or `stalwart rules compile`) opens, rooted
//! where the command roots it, so the editor and the build read the same paths and give the same
//! diagnostics. Buffers and disk texts come from one [`WorkspaceLoader`]; an edit sets the text of
//! the file in every database that loaded it, and salsa re-runs only what read it. A file that
//! appears or disappears changes what names resolve to, which salsa cannot see: the projects are
//! opened afresh then (rare: a file created, deleted or renamed).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_db::SourceFile;
use stalwart_diagnostics::{Diagnostic, Severity, Span};
use stalwart_driver::Database;
use stalwart_driver::database::{LoadProblem, Text, normalize};
use stalwart_sema::model::RulebookSet;

use crate::loader::{MAX_ANALYSED_BYTES, WorkspaceLoader};

/// What a project compiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectKind {
    /// agent.yaml, as `stalwart compile` does.
    Agent,
    /// A rulebook file or NeMo config folder no agent names, as `stalwart rules compile` does.
    Rulebook,
}

/// One compiled thing and its database (cloning it gives a snapshot: see
/// [`AnalysisHost::clone`]).
#[derive(Clone)]
pub struct Project {
    pub kind: ProjectKind,
    /// agent.yaml, or the rulebook's file or folder.
    pub entry: PathBuf,
    pub(crate) db: Database,
    loader: Arc<WorkspaceLoader>,
    /// The files the project read when its diagnostics were last asked for, each with an empty
    /// list, by path. Shared by the project's snapshots.
    // INVARIANT: a `SourceFile` of the project's database keeps its path for the database's
    // life, so the paths are rebuilt only when the list of files changes.
    clean: Arc<std::sync::Mutex<CleanFiles>>,
}

/// See [`Project::clean`].
type CleanFiles = (Vec<SourceFile>, BTreeMap<PathBuf, Vec<FileDiagnostic>>);

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project")
            .field("kind", &self.kind)
            .field("entry", &self.entry)
            .finish()
    }
}

impl Project {
    fn new(kind: ProjectKind, entry: PathBuf, loader: Arc<WorkspaceLoader>) -> Self {
        let root = match kind {
            ProjectKind::Agent => entry.parent().map(Path::to_path_buf).unwrap_or_default(),
            ProjectKind::Rulebook if entry.is_dir() => entry.clone(),
            ProjectKind::Rulebook => entry.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let db = Database::new(loader.clone(), root);
        Self {
            kind,
            entry,
            db,
            loader,
            clean: Arc::default(),
        }
    }

    /// Every file the project reads, by path, each with an empty list (built once per list of
    /// files: an edit that changes no file's name costs a copy of the map, no path comparison).
    fn clean_files(&self) -> BTreeMap<PathBuf, Vec<FileDiagnostic>> {
        let files = self.files();
        let Ok(mut clean) = self.clean.lock() else {
            return self.clean_files_of(&files);
        };
        if clean.0 != files {
            clean.1 = self.clean_files_of(&files);
            clean.0 = files;
        }
        clean.1.clone()
    }

    fn clean_files_of(&self, files: &[SourceFile]) -> BTreeMap<PathBuf, Vec<FileDiagnostic>> {
        files
            .iter()
            .filter_map(|f| self.db.full_path(*f))
            .map(|p| (p, Vec::new()))
            .collect()
    }

    /// agent.yaml's file (agent projects).
    pub(crate) fn agent_file(&self) -> Option<SourceFile> {
        match self.kind {
            ProjectKind::Agent => self.db.load(&self.entry),
            ProjectKind::Rulebook => None,
        }
    }

    /// The rulebook: the one agent.yaml names, or the project's own.
    pub(crate) fn rulebook(&self) -> Option<RulebookSet<'_>> {
        match self.kind {
            ProjectKind::Agent => {
                stalwart_sema::model::agent_rulebook_set(&self.db, self.agent_file()?)
            }
            ProjectKind::Rulebook => stalwart_driver::rules::load_rulebook(
                &self.db,
                self.loader.as_ref(),
                std::slice::from_ref(&self.entry),
            )
            .ok(),
        }
    }

    /// Every diagnostic the command line gives this project.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self.kind {
            ProjectKind::Agent => match self.agent_file() {
                Some(file) => stalwart_driver::compile::agent_diagnostics(&self.db, file),
                None => Vec::new(),
            },
            ProjectKind::Rulebook => match self.rulebook() {
                Some(set) => stalwart_driver::rules::rulebook_body(&self.db, set).0,
                None => Vec::new(),
            },
        }
    }

    /// The files the project reads (agent.yaml, tool sources, the rulebook and its config).
    pub fn files(&self) -> Vec<SourceFile> {
        match self.kind {
            ProjectKind::Agent => match self.agent_file() {
                Some(file) => stalwart_graph::source_files(&self.db, file),
                None => Vec::new(),
            },
            ProjectKind::Rulebook => match self.rulebook() {
                Some(set) => set
                    .configs(&self.db)
                    .iter()
                    .chain(set.files(&self.db).iter())
                    .copied()
                    .collect(),
                None => Vec::new(),
            },
        }
    }

    /// The file loaded from `path`, when the project reads it.
    pub(crate) fn file(&self, path: &Path) -> Option<SourceFile> {
        // The project's queries load its files: ask for them first.
        let files = self.files();
        let file = self.db.loaded(path)?;
        files.contains(&file).then_some(file)
    }

    /// The path of a span's file.
    pub(crate) fn path_of(&self, span: Span) -> Option<PathBuf> {
        self.db.path_of(span.file)
    }

    pub(crate) fn range(&self, span: Span) -> Option<FileRange> {
        Some(FileRange {
            path: self.path_of(span)?,
            start: span.start,
            end: span.end,
        })
    }

    /// A database handle for another thread (the proof): salsa cancels its queries when an edit
    /// comes, so holding it never blocks typing for long.
    pub fn snapshot(&self) -> (Database, Option<SourceFile>) {
        (self.db.clone(), self.agent_file())
    }
}

/// A byte range in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileRange {
    pub path: PathBuf,
    pub start: u32,
    pub end: u32,
}

/// A replacement of a range's text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TextEdit {
    pub range: FileRange,
    pub new_text: String,
}

/// A diagnostic placed in files by path: the compiler's [`Diagnostic`] with its spans resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDiagnostic {
    pub range: FileRange,
    pub severity: Severity,
    /// `E1605`.
    pub code: String,
    /// `unknown-tool`.
    pub slug: String,
    pub message: String,
    /// The primary label's text.
    pub label: String,
    /// Secondary labels (and, for proof findings, the witness path's steps).
    pub related: Vec<(FileRange, String)>,
    pub notes: Vec<String>,
    pub help: Option<String>,
    /// The fix: what it says and its edit.
    pub fix: Option<(String, TextEdit)>,
}

impl FileDiagnostic {
    /// The message with the label, notes and help, as an editor shows it in one block.
    pub fn full_message(&self) -> String {
        let mut text = self.message.clone();
        if !self.label.is_empty() {
            text.push_str(&format!(": {}", self.label));
        }
        for n in &self.notes {
            text.push_str(&format!("\nnote: {n}"));
        }
        if let Some(h) = &self.help {
            text.push_str(&format!("\nhelp: {h}"));
        }
        text
    }
}

/// Every project of the workspace and the texts they read.
///
/// A clone is a snapshot for another thread: it reads the same databases; when this host takes
/// an edit, salsa cancels the snapshot's queries (they unwind) and the edit waits until the
/// snapshot is dropped.
#[derive(Debug, Default, Clone)]
pub struct AnalysisHost {
    loader: Arc<WorkspaceLoader>,
    projects: Vec<Project>,
}

/// Whether a path is a rule file (Colang, a rule sheet).
pub fn is_rule_file(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".co") || name.ends_with(".csv") || name.ends_with(".rules.yaml")
}

/// Whether a path is named like an agent description (`agent.yaml`, `agent.yml`,
/// `*.agent.yaml`).
pub fn is_agent_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name == "agent.yaml"
        || name == "agent.yml"
        || name.ends_with(".agent.yaml")
        || name.ends_with(".agent.yml")
}

impl AnalysisHost {
    pub fn new() -> Self {
        Self::default()
    }

    /// The texts the databases read.
    pub fn loader(&self) -> &Arc<WorkspaceLoader> {
        &self.loader
    }

    pub fn projects(&self) -> &[Project] {
        &self.projects
    }

    /// Adds agent.yaml as a project (once); a standalone rulebook project of a file it names
    /// gives way to it.
    pub fn add_agent(&mut self, agent_yaml: &Path) {
        let entry = normalize(agent_yaml);
        if self.projects.iter().any(|p| p.entry == entry) {
            return;
        }
        let project = Project::new(ProjectKind::Agent, entry, self.loader.clone());
        let files: Vec<PathBuf> = project
            .files()
            .iter()
            .filter_map(|f| project.db.full_path(*f))
            .collect();
        self.projects.retain(|p| {
            p.kind == ProjectKind::Agent || !files.iter().any(|f| f.starts_with(&p.entry))
        });
        self.projects.push(project);
    }

    /// Makes sure a project reads `path`: a rule file no project reads becomes a rulebook
    /// project of its own (its folder, when a NeMo `config.yml` stands beside it); agent.yaml a
    /// project. Returns whether a project was added.
    pub fn ensure_project(&mut self, path: &Path) -> bool {
        let path = normalize(path);
        if self.project_of(&path).is_some() {
            return false;
        }
        if is_agent_file(&path) {
            self.add_agent(&path);
            return true;
        }
        // A scenario file: the agent it names is analysed (its diagnostics shown, its buffers
        // used when a step is hovered).
        if let Some(text) = self.loader.current(&path)
            && let Some(stalwart_scenario::NamedAgent::Agent(agent)) =
                stalwart_scenario::named_agent(&path, &text)
            && (self.loader.current(&agent).is_some() || agent.is_file())
        {
            let before = self.projects.len();
            self.add_agent(&agent);
            return self.projects.len() != before;
        }
        if !is_rule_file(&path) {
            return false;
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let folder = path.to_string_lossy().ends_with(".co")
            && ["config.yml", "config.yaml"]
                .iter()
                .any(|c| self.loader.current(&dir.join(c)).is_some() || dir.join(c).is_file());
        let entry = if folder { dir } else { path };
        if self.projects.iter().any(|p| p.entry == entry) {
            return false;
        }
        let project = Project::new(ProjectKind::Rulebook, entry, self.loader.clone());
        self.projects.push(project);
        true
    }

    /// Drops the rulebook project that reads only `path`'s file when the file is closed (an
    /// agent's projects stay).
    pub fn forget_standalone(&mut self, path: &Path) {
        let path = normalize(path);
        self.projects
            .retain(|p| !(p.kind == ProjectKind::Rulebook && p.entry == path));
    }

    /// The first project that reads `path` (agents first).
    pub fn project_of(&self, path: &Path) -> Option<&Project> {
        let path = normalize(path);
        let mut found = None;
        for p in &self.projects {
            if p.file(&path).is_some() {
                if p.kind == ProjectKind::Agent {
                    return Some(p);
                }
                found = found.or(Some(p));
            }
        }
        found
    }

    /// The text the analysis reads for `path` now.
    pub fn text(&self, path: &Path) -> Option<Arc<String>> {
        self.loader.current(path)
    }

    /// Opens or edits a buffer: every database that read the file re-reads it.
    pub fn set_buffer(&mut self, path: &Path, text: String) {
        let analysed = analysed_text(&text);
        self.loader.set_buffer(path, text);
        self.set_text_everywhere(path, analysed);
    }

    /// Closes a buffer: the disk's text (as last read) is current again.
    pub fn close_buffer(&mut self, path: &Path) {
        self.loader.close_buffer(path);
        match self.loader.current(path) {
            Some(text) => {
                let analysed = analysed_text(&text);
                self.set_text_everywhere(path, analysed);
            }
            None => self.reopen_projects(),
        }
    }

    /// The disk's text of a file changed, or it is no longer readable text (deleted:
    /// [`LoadProblem::Missing`]). An open buffer still wins.
    pub fn disk_changed(&mut self, path: &Path, read: Result<Text, LoadProblem>) {
        let known = self.loader.knows(path);
        let was_text = self.loader.current(path).is_some() && !self.loader.is_open(path);
        let text = read.as_ref().ok().map(|t| t.text.clone());
        self.loader.set_disk(path, read);
        if self.loader.is_open(path) {
            return;
        }
        let appeared_or_gone = text.is_none() || !known || !was_text;
        if appeared_or_gone {
            self.reopen_projects();
            if text.is_some() && is_agent_file(path) {
                self.add_agent(path);
            }
            return;
        }
        if let Some(text) = text {
            let analysed = analysed_text(&text);
            self.set_text_everywhere(path, analysed);
        }
    }

    fn set_text_everywhere(&mut self, path: &Path, text: String) {
        for project in &mut self.projects {
            if let Some(file) = project.db.loaded(path)
                && *file.text(&project.db) != text
            {
                project.db.set_text(file, text.clone());
            }
        }
    }

    /// Opens every project afresh (a file appeared or disappeared).
    pub fn reopen_projects(&mut self) {
        let old = std::mem::take(&mut self.projects);
        for p in old {
            let exists = match p.kind {
                ProjectKind::Agent => self.loader.current(&p.entry).is_some() || p.entry.is_file(),
                ProjectKind::Rulebook => {
                    self.loader.current(&p.entry).is_some() || p.entry.is_dir()
                }
            };
            if exists {
                self.projects
                    .push(Project::new(p.kind, p.entry, self.loader.clone()));
            }
        }
    }

    /// Every diagnostic of every project, by file; each file a project reads is present (with
    /// an empty list when it is clean), so that an editor clears what was fixed.
    pub fn diagnostics(&self) -> BTreeMap<PathBuf, Vec<FileDiagnostic>> {
        let mut out: BTreeMap<PathBuf, Vec<FileDiagnostic>> = BTreeMap::new();
        for project in &self.projects {
            let clean = project.clean_files();
            if out.is_empty() {
                out = clean;
            } else {
                for path in clean.into_keys() {
                    out.entry(path).or_default();
                }
            }
            for d in project.diagnostics() {
                if let Some(fd) = file_diagnostic(project, &d) {
                    let list = out.entry(fd.range.path.clone()).or_default();
                    if !list.contains(&fd) {
                        list.push(fd);
                    }
                }
            }
        }
        // Open scenario files: why one does not run, or which of its steps answered otherwise.
        for (path, list) in self.scenario_diagnostics() {
            out.entry(path).or_default().extend(list);
        }
        for path in self.loader.oversized() {
            if let Some(list) = out.get_mut(&path) {
                list.clear();
            }
        }
        out
    }
}

/// The text a database reads for a buffer: too large a buffer is read as empty (see
/// [`MAX_ANALYSED_BYTES`]).
fn analysed_text(text: &str) -> String {
    if text.len() > MAX_ANALYSED_BYTES {
        String::new()
    } else {
        text.to_string()
    }
}

/// A compiler diagnostic with its spans resolved to paths.
pub(crate) fn file_diagnostic(project: &Project, d: &Diagnostic) -> Option<FileDiagnostic> {
    let range = project.range(d.primary.span)?;
    let related = d
        .secondary
        .iter()
        .filter_map(|l| Some((project.range(l.span)?, l.message.clone())))
        .collect();
    let fix = d.fix.as_ref().and_then(|f| {
        Some((
            f.message.clone(),
            TextEdit {
                range: project.range(f.span)?,
                new_text: f.replacement.clone(),
            },
        ))
    });
    Some(FileDiagnostic {
        range,
        severity: d.severity,
        code: d.code.id.to_string(),
        slug: d.code.slug.to_string(),
        message: d.message.clone(),
        label: d.primary.message.clone(),
        related,
        notes: d.notes.clone(),
        help: d.help.clone(),
        fix,
    })
}
