//! The state folder (DESIGN §5.3): where a host that keeps histories in files keeps what the
//! caller must not be able to write — each session's head, its anchor — and the locks that make
//! concurrent checks of one session run one after another.
//!
//! The folder is `$STALWART_STATE`, else `$XDG_STATE_HOME/stalwart`, else
//! `~/.local/state/stalwart`, mode 0700. It holds:
//!
//! - `sessions/<name>.json`: a session's head `{agent, id, entries, token}`, where `<name>` is a
//!   digest of the key bound to the record, the agent and the session's id (so sessions under
//!   different records or keys never share an anchor);
//! - `locks/<name>.lock`: empty files locked exclusively (an advisory lock, released when the
//!   process lets go of it or ends): one per session, and one per history file path. Lock files
//!   are never removed, since removing one while another process waits on it would let a third
//!   take a fresh lock beside it.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use stalwart_runtime::{Head, RecordKey};

use crate::files::{private_folder, write_atomically};
use crate::{HostError, STATE_UNUSABLE};

/// The state folder.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

/// An exclusive lock, held until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl StateDir {
    /// The state folder the environment names (see the module's documentation), made private if
    /// it is not yet.
    pub fn locate() -> Result<Self, HostError> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let root = if let Some(dir) = var("STALWART_STATE") {
            PathBuf::from(dir)
        } else if let Some(dir) = var("XDG_STATE_HOME") {
            PathBuf::from(dir).join("stalwart")
        } else if let Some(home) = var("HOME") {
            PathBuf::from(home)
                .join(".local")
                .join("state")
                .join("stalwart")
        } else {
            return Err(HostError::new(
                STATE_UNUSABLE,
                "no state folder: set STALWART_STATE (or XDG_STATE_HOME, or HOME)",
            ));
        };
        Self::at(root)
    }

    /// The state folder at `root`, made (mode 0700) with its parts if missing.
    pub fn at(root: PathBuf) -> Result<Self, HostError> {
        private_folder(&root)?;
        private_folder(&root.join("sessions"))?;
        private_folder(&root.join("locks"))?;
        Ok(Self { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Locks the history file at `path` (by its full path; the file need not exist yet).
    pub fn lock_file(&self, path: &Path) -> Result<Lock, HostError> {
        let full = full_path(path)?;
        let name = hex(blake3::hash(full.as_os_str().as_encoded_bytes()).as_bytes());
        self.lock(&format!("file-{name}"))
    }

    /// Locks one session.
    pub fn lock_session(&self, key: &RecordKey, agent: &str, id: &str) -> Result<Lock, HostError> {
        self.lock(&format!("session-{}", session_name(key, agent, id)))
    }

    fn lock(&self, name: &str) -> Result<Lock, HostError> {
        let path = self.root.join("locks").join(format!("{name}.lock"));
        let failed = |e: std::io::Error| {
            HostError::new(
                STATE_UNUSABLE,
                format!("cannot lock `{}`: {e}", path.display()),
            )
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        Ok(Lock { _file: file })
    }

    /// The head kept for a session, if any.
    pub fn anchor(
        &self,
        key: &RecordKey,
        agent: &str,
        id: &str,
    ) -> Result<Option<Head>, HostError> {
        let path = self.anchor_path(key, agent, id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(HostError::new(
                    STATE_UNUSABLE,
                    format!("cannot read the session's anchor `{}`: {e}", path.display()),
                ));
            }
        };
        let damaged = || {
            HostError::new(
                STATE_UNUSABLE,
                format!(
                    "the session's anchor `{}` is damaged: no check of this session can run \
                     until it is removed (which forgets where the session stood)",
                    path.display()
                ),
            )
        };
        let stored: Stored = serde_json::from_str(&text).map_err(|_| damaged())?;
        if stored.agent != agent || stored.id != id {
            return Err(damaged());
        }
        Ok(Some(Head {
            entries: stored.entries,
            token: stored.token,
        }))
    }

    /// Keeps `head` as the session's anchor.
    pub fn set_anchor(
        &self,
        key: &RecordKey,
        agent: &str,
        id: &str,
        head: &Head,
    ) -> Result<(), HostError> {
        let stored = Stored {
            agent: agent.to_string(),
            id: id.to_string(),
            entries: head.entries,
            token: head.token.clone(),
        };
        let text = serde_json::to_string(&stored).unwrap_or_default();
        write_atomically(&self.anchor_path(key, agent, id), text.as_bytes(), true)
    }

    fn anchor_path(&self, key: &RecordKey, agent: &str, id: &str) -> PathBuf {
        self.root
            .join("sessions")
            .join(format!("{}.json", session_name(key, agent, id)))
    }
}

/// An anchor as its file holds it.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    agent: String,
    id: String,
    entries: u64,
    token: String,
}

/// A session's name in the state folder: a digest of the record-bound key, the agent and the id.
fn session_name(key: &RecordKey, agent: &str, id: &str) -> String {
    let mut h = blake3::Hasher::new_derive_key("stalwart session anchor");
    h.update(&key.fingerprint());
    h.update(&(agent.len() as u64).to_le_bytes());
    h.update(agent.as_bytes());
    h.update(id.as_bytes());
    hex(h.finalize().as_bytes())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// `path` made absolute with its folder's symbolic links resolved (the file itself need not
/// exist), so two spellings of one history file take one lock.
fn full_path(path: &Path) -> Result<PathBuf, HostError> {
    let name = path.file_name().ok_or_else(|| {
        HostError::new(
            STATE_UNUSABLE,
            format!("`{}` names no file", path.display()),
        )
    })?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = folder.canonicalize().map_err(|e| {
        HostError::new(
            STATE_UNUSABLE,
            format!("cannot find the folder of `{}`: {e}", path.display()),
        )
    })?;
    Ok(folder.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stalwart_runtime::Key;

    #[test]
    fn anchors_are_kept_per_record_agent_and_session() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::at(dir.path().join("state")).unwrap();
        let key = Key::new("k", [1; 32], 0);
        let (a, b) = (key.for_record(&[1; 32]), key.for_record(&[2; 32]));
        let head = Head {
            entries: 3,
            token: "t".into(),
        };
        assert_eq!(state.anchor(&a, "desk", "s").unwrap(), None);
        state.set_anchor(&a, "desk", "s", &head).unwrap();
        assert_eq!(state.anchor(&a, "desk", "s").unwrap(), Some(head));
        assert_eq!(
            state.anchor(&b, "desk", "s").unwrap(),
            None,
            "another record"
        );
        assert_eq!(
            state.anchor(&a, "billing", "s").unwrap(),
            None,
            "another agent"
        );
        assert_eq!(
            state.anchor(&a, "desk", "s2").unwrap(),
            None,
            "another session"
        );
    }

    #[test]
    fn a_damaged_anchor_stops_the_session_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::at(dir.path().to_path_buf()).unwrap();
        let key = Key::new("k", [1; 32], 0).for_record(&[0; 32]);
        state
            .set_anchor(
                &key,
                "desk",
                "s",
                &Head {
                    entries: 1,
                    token: "t".into(),
                },
            )
            .unwrap();
        for entry in std::fs::read_dir(dir.path().join("sessions")).unwrap() {
            std::fs::write(entry.unwrap().path(), "{").unwrap();
        }
        let e = state.anchor(&key, "desk", "s").unwrap_err();
        assert_eq!(e.code, STATE_UNUSABLE);
        assert!(e.message.contains("is damaged"), "{}", e.message);
    }

    #[cfg(unix)]
    #[test]
    fn the_state_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("state");
        StateDir::at(root.clone()).unwrap();
        for p in [&root, &root.join("sessions"), &root.join("locks")] {
            let mode = std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", p.display());
        }
    }
}
