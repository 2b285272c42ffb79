//! Go to definition, find references and rename, over the names sema collects
//! (`stalwart_sema::model::names`): a name's occurrences are those of its kind and text in every
//! file the project reads, whatever the dialect or the file that writes them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stalwart_sema::model::names::{NameKind, NameRef, Spelling, agent_names, rulebook_names};

use crate::host::{AnalysisHost, FileRange, Project, TextEdit};

/// The name under the cursor: its kind, text and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameAt {
    pub kind: NameKind,
    pub name: String,
    pub range: FileRange,
    pub definition: bool,
}

/// Every name occurrence a project knows, in file order.
pub(crate) fn project_names(project: &Project) -> Vec<NameRef> {
    let mut out = Vec::new();
    if let Some(agent) = project.agent_file() {
        out.extend(agent_names(&project.db, agent).refs.iter().cloned());
    }
    if let Some(set) = project.rulebook() {
        for (_, names) in rulebook_names(&project.db, set) {
            out.extend(names.refs.iter().cloned());
        }
    }
    out
}

/// The names written in one file of the project.
fn file_names(project: &Project, path: &Path) -> Vec<NameRef> {
    let Some(file) = project.file(path) else {
        return Vec::new();
    };
    let id = file.id(&project.db);
    let mut out: Vec<NameRef> = Vec::new();
    if let Some(agent) = project.agent_file() {
        out.extend(
            agent_names(&project.db, agent)
                .refs
                .iter()
                .filter(|r| r.span.file == id)
                .cloned(),
        );
    }
    if let Some(set) = project.rulebook() {
        for (f, names) in rulebook_names(&project.db, set) {
            if f == file {
                out.extend(names.refs.iter().cloned());
            }
        }
    }
    out
}

impl AnalysisHost {
    /// The name at a byte offset of a file.
    pub fn name_at(&self, path: &Path, offset: u32) -> Option<NameAt> {
        let project = self.project_of(path)?;
        let names = file_names(project, path);
        let found = names
            .iter()
            .filter(|r| r.span.start <= offset && offset <= r.span.end)
            .min_by_key(|r| r.span.end - r.span.start)?;
        Some(NameAt {
            kind: found.kind,
            name: found.name.clone(),
            range: project.range(found.span)?,
            definition: found.definition,
        })
    }

    /// Where the name at the cursor is defined (several places for a name defined more than
    /// once; none for a name nothing defines, such as a built-in message).
    pub fn definition(&self, path: &Path, offset: u32) -> Vec<FileRange> {
        let Some(at) = self.name_at(path, offset) else {
            return Vec::new();
        };
        let Some(project) = self.project_of(path) else {
            return Vec::new();
        };
        let mut out: Vec<FileRange> = project_names(project)
            .iter()
            .filter(|r| r.definition && same(r, at.kind, &at.name))
            .filter_map(|r| project.range(r.span))
            .collect();
        out.dedup();
        out
    }

    /// Every occurrence of the name at the cursor (its definitions included when asked).
    pub fn references(&self, path: &Path, offset: u32, with_definition: bool) -> Vec<FileRange> {
        let Some(at) = self.name_at(path, offset) else {
            return Vec::new();
        };
        let Some(project) = self.project_of(path) else {
            return Vec::new();
        };
        let mut out: Vec<FileRange> = project_names(project)
            .iter()
            .filter(|r| same(r, at.kind, &at.name) && (with_definition || !r.definition))
            .filter_map(|r| project.range(r.span))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The edits that rename the name at the cursor everywhere, each occurrence in its own
    /// spelling; an error message when the name cannot be renamed or the new one is not valid.
    pub fn rename(
        &self,
        path: &Path,
        offset: u32,
        new_name: &str,
    ) -> Result<BTreeMap<PathBuf, Vec<TextEdit>>, String> {
        let at = self
            .name_at(path, offset)
            .ok_or("there is no name to rename here")?;
        check_new_name(at.kind, new_name)?;
        let project = self.project_of(path).ok_or("the file is in no project")?;
        let mut out: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
        for r in project_names(project) {
            if !same(&r, at.kind, &at.name) {
                continue;
            }
            let Some(range) = project.range(r.span) else {
                continue;
            };
            let new_text = match r.spelling {
                Spelling::Plain => new_name.to_string(),
                Spelling::Action => format!("{}Action", pascal(new_name)),
            };
            let edits = out.entry(range.path.clone()).or_default();
            let edit = TextEdit { range, new_text };
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        }
        for edits in out.values_mut() {
            edits.sort();
        }
        Ok(out)
    }
}

fn same(r: &NameRef, kind: NameKind, name: &str) -> bool {
    r.kind == kind && r.name == name
}

/// Whether `new` can name a `kind`.
fn check_new_name(kind: NameKind, new: &str) -> Result<(), String> {
    let word = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let ok = match kind {
        NameKind::Tool | NameKind::Fact | NameKind::Agent | NameKind::Step => word(new),
        NameKind::Flow | NameKind::Intent | NameKind::BotMessage => {
            !new.is_empty() && new.split(' ').all(|w| !w.is_empty() && word_or_dash(w))
        }
        NameKind::Rule => {
            !new.trim().is_empty()
                && new.trim() == new
                && !new.contains([',', '"', '\n', '\r', ':', '#'])
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`{new}` cannot name a {}", kind.word()))
    }
}

fn word_or_dash(w: &str) -> bool {
    w.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// `refund_card` → `RefundCard`.
pub(crate) fn pascal(tool: &str) -> String {
    tool.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
