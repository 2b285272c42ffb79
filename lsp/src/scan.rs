//! The workspace scan: every file a project may read (rulebooks, YAML and JSON, Python modules)
//! under the workspace folders, read once at start on a thread, and the agent descriptions among
//! them. Folders that hold no sources (`.git`, `node_modules`, `target`, virtual environments) are
//! skipped; the scan stops at a fixed number of files so a huge folder cannot stall it.

use std::path::{Path, PathBuf};

use stalwart_ide::{LoadProblem, MAX_ANALYSED_BYTES, Text, is_agent_file};

/// The most files a scan reads.
const MAX_FILES: usize = 20_000;
/// The most agent descriptions a scan opens as projects (others open when opened).
const MAX_AGENTS: usize = 64;
const MAX_DEPTH: usize = 24;
const SKIPPED: &[&str] = &[
    "node_modules",
    "target",
    "__pycache__",
    "venv",
    "dist",
    "build",
];
const EXTENSIONS: &[&str] = &["co", "csv", "yaml", "yml", "json", "py"];

/// A file read from the disk: its path, and its text or why it is not readable text.
pub type DiskFile = (PathBuf, Result<Text, LoadProblem>);

/// The files under the roots with their texts, and the agent descriptions.
pub fn scan(roots: &[PathBuf]) -> (Vec<DiskFile>, Vec<PathBuf>) {
    let mut files = Vec::new();
    for root in roots {
        walk(root, 0, &mut files);
    }
    files.sort();
    files.truncate(MAX_FILES);
    let agents: Vec<PathBuf> = files
        .iter()
        .filter(|p| is_agent_file(p))
        .take(MAX_AGENTS)
        .cloned()
        .collect();
    let read = files
        .into_iter()
        .map(|p| {
            let text = read_text(&p);
            (p, text)
        })
        .collect();
    (read, agents)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH || out.len() >= MAX_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().to_string();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                walk(&path, depth + 1, out);
            }
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|e| EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
        {
            out.push(stalwart_ide::normalize(&path));
        }
    }
}

/// A file's text, or why it is not readable text (a file too large to analyse is one).
pub fn read_text(path: &Path) -> Result<Text, LoadProblem> {
    let meta = std::fs::metadata(path).map_err(|_| LoadProblem::Missing)?;
    if meta.is_dir() {
        return Err(LoadProblem::Directory);
    }
    if meta.len() as usize > MAX_ANALYSED_BYTES {
        return Err(LoadProblem::Other(format!(
            "the file is larger than {} MB, more than the editor analyses",
            MAX_ANALYSED_BYTES / (1024 * 1024)
        )));
    }
    stalwart_ide::read_disk(path)
}
