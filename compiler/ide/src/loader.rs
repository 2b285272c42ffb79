//! Where the editor's databases read file texts: the open buffers first, then the texts read from
//! the disk ahead of time (off the editor's main loop), then the disk itself.
//!
//! An open buffer overrides the disk; closing it makes the disk's text current again. The disk is
//! read here only for a file nobody read ahead (a file outside the workspace folders that
//! agent.yaml names), once; after that its text is held until the file watcher says it changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use stalwart_driver::database::{LoadProblem, Text, normalize};
use stalwart_driver::{DiskLoader, FileLoader};

/// Buffers larger than this are held but not analysed: the editor must stay responsive, and no
/// rulebook, catalogue or agent description is this large.
pub const MAX_ANALYSED_BYTES: usize = 8 * 1024 * 1024;

/// The texts the editor's databases read.
#[derive(Debug, Default)]
pub struct WorkspaceLoader {
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Open buffers, by normalised path.
    buffers: HashMap<PathBuf, Arc<String>>,
    /// Texts read from the disk, or why a file is not readable text.
    disk: HashMap<PathBuf, Result<DiskText, LoadProblem>>,
}

/// A file's text as read from the disk.
#[derive(Debug, Clone)]
struct DiskText {
    text: Arc<String>,
    /// It started with a byte-order mark (removed from `text`).
    had_bom: bool,
}

impl WorkspaceLoader {
    /// The text a database reads for `path` now (a buffer, else the disk's), without touching
    /// the disk.
    pub fn current(&self, path: &Path) -> Option<Arc<String>> {
        let path = normalize(path);
        let state = self.state.read().ok()?;
        state
            .buffers
            .get(&path)
            .cloned()
            .or_else(|| match state.disk.get(&path) {
                Some(Ok(disk)) => Some(disk.text.clone()),
                _ => None,
            })
    }

    /// Whether the file is open in the editor.
    pub fn is_open(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.state
            .read()
            .map(|s| s.buffers.contains_key(&path))
            .unwrap_or(false)
    }

    /// The paths of the open buffers, sorted.
    pub fn open_paths(&self) -> Vec<PathBuf> {
        let Ok(state) = self.state.read() else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = state.buffers.keys().cloned().collect();
        paths.sort();
        paths
    }

    /// Opens or edits a buffer.
    pub fn set_buffer(&self, path: &Path, text: String) {
        if let Ok(mut state) = self.state.write() {
            state.buffers.insert(normalize(path), Arc::new(text));
        }
    }

    /// Closes a buffer: the disk's text is current again.
    pub fn close_buffer(&self, path: &Path) {
        if let Ok(mut state) = self.state.write() {
            state.buffers.remove(&normalize(path));
        }
    }

    /// Records the disk's text of a file (read ahead, or after the watcher said it changed), or
    /// why it is not readable text (gone: [`LoadProblem::Missing`]).
    pub fn set_disk(&self, path: &Path, read: Result<Text, LoadProblem>) {
        let read = read.map(|t| DiskText {
            text: Arc::new(t.text),
            had_bom: t.had_bom,
        });
        if let Ok(mut state) = self.state.write() {
            state.disk.insert(normalize(path), read);
        }
    }

    /// The files whose current text is larger than [`MAX_ANALYSED_BYTES`] (read as empty).
    pub fn oversized(&self) -> Vec<PathBuf> {
        let Ok(state) = self.state.read() else {
            return Vec::new();
        };
        let large = |t: &Arc<String>| t.len() > MAX_ANALYSED_BYTES;
        let mut out: Vec<PathBuf> = state
            .buffers
            .iter()
            .filter(|(_, t)| large(t))
            .map(|(p, _)| p.clone())
            .collect();
        out.extend(
            state
                .disk
                .iter()
                .filter(|(p, d)| {
                    !state.buffers.contains_key(*p) && matches!(d, Ok(d) if large(&d.text))
                })
                .map(|(p, _)| p.clone()),
        );
        out
    }

    /// Whether the disk's text of the file is known (read ahead or since).
    pub fn knows(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.state
            .read()
            .map(|s| s.buffers.contains_key(&path) || s.disk.contains_key(&path))
            .unwrap_or(false)
    }

    /// Every known path under `dir`.
    fn known_under(&self, dir: &Path) -> Vec<PathBuf> {
        let Ok(state) = self.state.read() else {
            return Vec::new();
        };
        state
            .buffers
            .keys()
            .chain(state.disk.iter().filter(|(_, t)| t.is_ok()).map(|(p, _)| p))
            .filter(|p| p.starts_with(dir))
            .cloned()
            .collect()
    }
}

impl FileLoader for WorkspaceLoader {
    fn read(&self, path: &Path) -> Result<Text, LoadProblem> {
        let path = normalize(path);
        if let Ok(state) = self.state.read() {
            if let Some(text) = state.buffers.get(&path) {
                return Ok(Text {
                    text: text.as_ref().clone(),
                    had_bom: false,
                });
            }
            if let Some(read) = state.disk.get(&path) {
                return read.clone().map(|d| Text {
                    text: d.text.as_ref().clone(),
                    had_bom: d.had_bom,
                });
            }
        }
        let read = DiskLoader.read(&path);
        self.set_disk(&path, read.clone());
        read
    }

    fn read_lossy(&self, path: &Path) -> Option<String> {
        DiskLoader.read_lossy(&normalize(path))
    }

    fn list_tree(&self, path: &Path) -> Option<Vec<String>> {
        let dir = normalize(path);
        let mut listed: Vec<String> = DiskLoader.list_tree(&dir).unwrap_or_default();
        // Buffers not yet saved belong to the folder too.
        for known in self.known_under(&dir) {
            if let Ok(rel) = known.strip_prefix(&dir) {
                let rel = rel.to_string_lossy().replace('\\', "/");
                if !rel.is_empty() && !rel.split('/').any(|c| c.starts_with('.')) {
                    listed.push(rel);
                }
            }
        }
        if listed.is_empty() && !dir.is_dir() {
            return None;
        }
        listed.sort();
        listed.dedup();
        Some(listed)
    }
}
