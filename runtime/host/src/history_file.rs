//! A session held from a history file: locked, read, anchored, and written back.
//!
//! [`hold`] takes the file's lock, reads the history (strictly: a repeated key or a value nested
//! past the limit is bad input; JSON that is not a history is refused and left as it is), takes
//! the session's lock, and anchors the session at the head the state folder kept for it. The
//! caller runs its check or report on [`HeldSession::session`], then [`HeldSession::save`] writes
//! the history and then its new head (in that order: a crash between the two leaves a history
//! ahead of its anchor, which still verifies, never one behind it). The locks are let go when
//! the held session is dropped, so concurrent checks of one session, through one file or
//! through copies of it, run one after another.

use std::path::{Path, PathBuf};

use serde_json::Value;
use stalwart_runtime::canonical::base64url;
use stalwart_runtime::{RecordKey, Session};

use crate::files::{random_bytes, write_atomically};
use crate::intake::{HISTORY_NESTING, Text, kind, parse_strict, read_text};
use crate::state::{Lock, StateDir};
use crate::{HostError, INPUT_UNREADABLE, NOT_A_HISTORY};

/// A session read from its history file and held under its locks.
#[derive(Debug)]
pub struct HeldSession {
    pub session: Session,
    path: PathBuf,
    state: StateDir,
    key: RecordKey,
    /// Whether the history was refused before the check read it (another agent's, no id): the
    /// check answers `history_invalid` for it.
    foreign: bool,
    _file_lock: Lock,
    _session_lock: Lock,
}

/// Holds the session of the history file at `path`, for `agent` when given (else for the agent
/// the history names). A missing file starts a new session with a random id when an agent is
/// given, and is an error otherwise.
pub fn hold(
    state: &StateDir,
    key: &RecordKey,
    path: &Path,
    agent: Option<&str>,
) -> Result<HeldSession, HostError> {
    let file_lock = state.lock_file(path)?;
    let mut session = match (path.exists(), agent) {
        (true, _) => read_history(path)?,
        (false, Some(agent)) => Session::new(agent, new_id()?),
        (false, None) => {
            return Err(HostError::new(
                INPUT_UNREADABLE,
                format!("no history at `{}`", path.display()),
            ));
        }
    };
    let agent = agent.map_or_else(|| session.agent.clone(), str::to_string);
    let agent = agent.as_str();
    // A history of another agent, or whose agent or id was edited away, is not this session's:
    // the check refuses it as `history_invalid` (the agent it names was never verified, so it
    // is not repeated back), and a new session starts under a new id.
    let foreign = session.agent != agent || session.id.is_empty();
    if foreign {
        session.tampered = true;
        session.agent = agent.to_string();
        if session.id.is_empty() {
            session.id = new_id()?;
        }
    }
    let session_lock = state.lock_session(key, agent, &session.id)?;
    if let Some(head) = state.anchor(key, agent, &session.id)? {
        session.set_anchor(head);
    }
    Ok(HeldSession {
        session,
        path: path.to_path_buf(),
        state: state.clone(),
        key: key.clone(),
        foreign,
        _file_lock: file_lock,
        _session_lock: session_lock,
    })
}

impl HeldSession {
    /// Starts the session again under a new id, after its history was refused
    /// (`history_invalid`): the old id stays anchored where it stood, so the refused history,
    /// or any copy of it, is refused again wherever it is presented.
    pub fn restart(&mut self) -> Result<(), HostError> {
        self.session.id = new_id()?;
        self.foreign = false;
        Ok(())
    }

    /// Whether the history was refused on reading (another agent's, or without an id).
    pub fn is_foreign(&self) -> bool {
        self.foreign
    }

    /// Writes the history back, then keeps its head as the session's anchor.
    pub fn save(self) -> Result<(), HostError> {
        let mut text = serde_json::to_string_pretty(&self.session.to_json()).unwrap_or_default();
        text.push('\n');
        write_atomically(&self.path, text.as_bytes(), true)?;
        self.state.set_anchor(
            &self.key,
            &self.session.agent,
            &self.session.id,
            &self.session.head(),
        )
    }
}

/// A new session id: 16 random bytes, base64url.
pub fn new_id() -> Result<String, HostError> {
    Ok(base64url(&random_bytes::<16>()?))
}

/// Reads a history file: strict JSON, an object with `entries`. JSON of another kind is refused
/// (and the file left as it is); an object with `entries` that is not a history as checks write
/// it gives a session marked tampered, which the check refuses as `history_invalid`.
pub fn read_history(path: &Path) -> Result<Session, HostError> {
    let text = Text {
        name: path.display().to_string(),
        text: read_text(path, "the history")?,
    };
    let value = parse_strict(&text, HISTORY_NESTING)?;
    let not_history = |what: String| {
        HostError::new(
            NOT_A_HISTORY,
            format!(
                "`{}` is not a history ({what}); it was left as it is",
                path.display()
            ),
        )
    };
    match &value {
        Value::Object(map) if map.contains_key("entries") => {}
        Value::Object(_) => return Err(not_history("an object without `entries`".into())),
        other => return Err(not_history(format!("{}, not an object", kind(other)))),
    }
    Session::from_json(value).ok_or_else(|| not_history("not an object".into()))
}
