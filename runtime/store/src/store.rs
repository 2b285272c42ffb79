//! The store: opening it, its conversations, and the check run against a conversation it holds.
//!
//! A conversation's signed history lives in the database, one entry a row, with its head (the
//! entry count and the last token) on the conversation's row: the anchor. A store keeps, per
//! conversation it has used, the session as it last committed it, verified; a check locks the
//! conversation's row, reads the head, reads only the entries other processes appended since
//! (verified as the check reads them, and only they), checks, and writes the new entries and the
//! new head, in one transaction. So a check never re-verifies the whole history, and its cost
//! does not grow with the history's length. An entry edited in the database does not verify:
//! the check answers `history_invalid`, and nothing is written.

use std::collections::HashMap;

use serde_json::Value;
use stalwart_host::HostError;
use stalwart_record::ArchivedRecordBody;
use stalwart_runtime::canonical::base64url;
use stalwart_runtime::{
    Call, Check, Entry, Env, Head, Outcome, RecordKey, ReportError, Session, history,
};

use crate::codes::{
    CONVERSATION_MISMATCH, NOT_FOUND, STORE_DAMAGED, STORE_FAILED, STORE_UNREACHABLE,
};
use crate::db::{Db, DbError, Param, Tx, TxError};
use crate::postgres::PgDb;
use crate::sqlite::SqliteDb;
use crate::url::StoreUrl;

/// How long a turn's process may go without a word before a process on another host sees the
/// turn as stopped (on the same host a process that is gone is seen at once).
pub const DEFAULT_LEASE_SECS: u64 = 300;

/// Conversations, turns, approvals and the journal, in one database.
pub struct Store {
    pub(crate) db: Db,
    shown: String,
    /// The sessions this store has used, as last committed.
    pub(crate) held: HashMap<String, Held>,
    pub(crate) lease: u64,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// A session held in memory, and how many of its entries the database holds.
///
/// INVARIANT: `session.entries()[..committed]` are the conversation's first `committed` rows of
/// `entries`, as this store last read or wrote them; entries past `committed` belong to a
/// transaction that has not committed, and are cut before the session is used again.
pub(crate) struct Held {
    pub session: Session,
    pub committed: usize,
}

/// A conversation's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationInfo {
    pub id: String,
    pub agent: String,
    /// The BLAKE3 digest (base64url) of the record it runs under.
    pub record: String,
    /// The head of its history.
    pub head: Head,
    pub created: u64,
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub(crate) fn int(n: u64) -> Param<'static> {
    Param::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

impl Store {
    /// Opens the store at `url` (`sqlite:PATH`, a path, or `postgres://…`), creating or
    /// migrating its tables. A path ending in `/` names a folder that holds the store's file:
    /// it is made when missing. A store written by a newer schema version is refused; a damaged
    /// SQLite file is reported and left as it is.
    pub fn open(url: &str) -> Result<Self, HostError> {
        let parsed = StoreUrl::parse(url)?;
        let shown = parsed.shown();
        let mut db = match &parsed {
            StoreUrl::Sqlite(path) => {
                // A folder named as one (`notes-chats/`) is the store's own: made when missing.
                if url.trim().ends_with('/')
                    && let Some(folder) = path.parent()
                    && !folder.is_dir()
                {
                    std::fs::create_dir_all(folder).map_err(|e| {
                        HostError::new(
                            STORE_UNREACHABLE,
                            format!(
                                "cannot open the store `{shown}`: cannot make the folder `{}`: {e}",
                                folder.display()
                            ),
                        )
                    })?;
                }
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
                    && !parent.is_dir()
                {
                    return Err(HostError::new(
                        STORE_UNREACHABLE,
                        format!(
                            "cannot open the store `{shown}`: the folder `{}` does not exist",
                            parent.display()
                        ),
                    ));
                }
                Db::Sqlite(SqliteDb::open(path).map_err(|f| {
                    if f.damaged {
                        HostError::new(
                            STORE_DAMAGED,
                            format!(
                                "the store `{shown}` is damaged or not a database ({}); it was \
                                 left as it is",
                                f.message
                            ),
                        )
                    } else {
                        HostError::new(
                            STORE_UNREACHABLE,
                            format!("cannot open the store `{shown}`: {}", f.message),
                        )
                    }
                })?)
            }
            StoreUrl::Postgres(url) => Db::Postgres(Box::new(PgDb::open(url).map_err(|e| {
                HostError::new(
                    STORE_UNREACHABLE,
                    format!("cannot reach the store `{shown}`: {}", e.message),
                )
            })?)),
        };
        crate::schema::prepare(&mut db, &shown).map_err(|e| fail(&shown, e))?;
        Ok(Self {
            db,
            shown,
            held: HashMap::new(),
            lease: DEFAULT_LEASE_SECS,
        })
    }

    /// The store's address as messages show it (a password hidden).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Sets how long a turn's process may go without a word before a process on another host
    /// sees the turn as stopped.
    pub fn set_lease(&mut self, secs: u64) {
        self.lease = secs;
    }

    /// Runs `f` in a transaction; a failure names the store.
    pub(crate) fn tx<R>(
        &mut self,
        f: impl FnMut(&mut dyn Tx) -> Result<R, TxError<HostError>>,
    ) -> Result<R, HostError> {
        let shown = self.shown.clone();
        self.db.transaction(f).map_err(|e| fail(&shown, e))
    }

    /// Makes the conversation `id` of `agent` under the record `key` is bound to, or opens it.
    /// One made for another agent or record is refused.
    pub fn open_conversation(
        &mut self,
        agent: &str,
        id: &str,
        key: &RecordKey,
    ) -> Result<ConversationInfo, HostError> {
        let record = base64url(key.record());
        let now = now();
        let info = self.tx(|tx| {
            tx.exec(
                "INSERT INTO conversations (id, agent, record, entries, head, created) \
                 VALUES ($1, $2, $3, 0, '', $4) ON CONFLICT (id) DO NOTHING",
                &[
                    Param::Text(id),
                    Param::Text(agent),
                    Param::Text(&record),
                    int(now),
                ],
            )?;
            conversation_row(tx, id, false)?.ok_or_else(|| missing(id))
        })?;
        if info.agent != agent {
            return Err(HostError::new(
                CONVERSATION_MISMATCH,
                format!(
                    "the conversation `{id}` belongs to the agent `{}`, not `{agent}`",
                    info.agent
                ),
            ));
        }
        if info.record != record {
            return Err(HostError::new(
                CONVERSATION_MISMATCH,
                format!(
                    "the conversation `{id}` runs under another record ({}…), not this one \
                     ({}…): its history verifies under that record only",
                    info.record.chars().take(12).collect::<String>(),
                    record.chars().take(12).collect::<String>()
                ),
            ));
        }
        Ok(info)
    }

    /// Makes a conversation from a history kept elsewhere (a history file, say): the history
    /// must verify under `key` whole; its entries are written in one transaction. A conversation
    /// of that id that already holds entries is refused.
    pub fn import_history(&mut self, session: &Session, key: &RecordKey) -> Result<(), HostError> {
        let mut check = session.clone();
        if check.tampered || !history::verify_session(key, &mut check) {
            return Err(HostError::new(
                crate::codes::HISTORY_INVALID,
                format!("the history of `{}` does not verify", session.id),
            ));
        }
        let info = self.open_conversation(&session.agent, &session.id, key)?;
        if info.head.entries > 0 {
            return Err(HostError::new(
                CONVERSATION_MISMATCH,
                format!("the conversation `{}` holds a history already", session.id),
            ));
        }
        let id = session.id.clone();
        self.held.remove(&id);
        self.tx(|tx| write_back(tx, &id, session, 0))
    }

    /// The conversation `id`, when the store has it.
    pub fn conversation(&mut self, id: &str) -> Result<Option<ConversationInfo>, HostError> {
        self.tx(|tx| conversation_row(tx, id, false))
    }

    /// Every conversation, by id.
    pub fn conversations(&mut self) -> Result<Vec<ConversationInfo>, HostError> {
        self.tx(|tx| {
            Ok(tx
                .query(
                    "SELECT id, agent, record, entries, head, created FROM conversations \
                     ORDER BY id",
                    &[],
                )?
                .iter()
                .map(|r| ConversationInfo {
                    id: r.text(0),
                    agent: r.text(1),
                    record: r.text(2),
                    head: Head {
                        entries: u64::try_from(r.int(3)).unwrap_or(0),
                        token: r.text(4),
                    },
                    created: u64::try_from(r.int(5)).unwrap_or(0),
                })
                .collect())
        })
    }

    /// Checks `call` against the conversation's history, in one transaction that holds the
    /// conversation's lock, and keeps the call's entry. A history that does not verify answers
    /// `history_invalid`, and nothing is written.
    pub fn check(
        &mut self,
        conversation: &str,
        body: &ArchivedRecordBody,
        env: Env<'_>,
        call: &Call,
    ) -> Result<Check, HostError> {
        self.with_session(conversation, |_, session| {
            Ok(stalwart_runtime::check_tool_call(body, env, session, call))
        })
    }

    /// Records a turn the person typed; `false` (and nothing written) when the history does not
    /// verify.
    pub fn read(
        &mut self,
        conversation: &str,
        env: Env<'_>,
        text: &str,
    ) -> Result<bool, HostError> {
        self.with_session(conversation, |_, session| Ok(read_into(env, session, text)))
    }

    /// Records what became of call `step`.
    pub fn report(
        &mut self,
        conversation: &str,
        env: Env<'_>,
        step: u32,
        outcome: Outcome,
        result: Option<Value>,
    ) -> Result<Result<(), ReportError>, HostError> {
        self.with_session(conversation, |_, session| {
            Ok(stalwart_runtime::report(
                env,
                session,
                step,
                outcome,
                result.clone(),
            ))
        })
    }

    /// The conversation's history as stored, read afresh and verified whole under `key`:
    /// `Ok(None)` when it does not verify.
    pub fn verified_history(
        &mut self,
        conversation: &str,
        key: &RecordKey,
    ) -> Result<Option<Session>, HostError> {
        self.held.remove(conversation);
        let session = self.tx(|tx| {
            let row =
                conversation_row(tx, conversation, false)?.ok_or_else(|| missing(conversation))?;
            let mut session = Session::new(row.agent.clone(), conversation.to_string());
            load_entries(tx, conversation, 0, &mut session)?;
            session.set_anchor(row.head.clone());
            Ok(session)
        })?;
        let mut session = session;
        let holds = !session.tampered
            && history::verify_session(key, &mut session)
            && session.follows_anchor();
        Ok(holds.then_some(session))
    }

    /// Runs `f` on the conversation's session inside a transaction that holds its lock, then
    /// writes the entries `f` appended and the new head. When the history turned out not to
    /// verify (`f` left it shorter than it found it), nothing is written and the session is
    /// forgotten.
    pub(crate) fn with_session<R>(
        &mut self,
        conversation: &str,
        mut f: impl FnMut(&mut dyn Tx, &mut Session) -> Result<R, TxError<HostError>>,
    ) -> Result<R, HostError> {
        let Store {
            db, shown, held, ..
        } = self;
        let mut intact = true;
        let result = db.transaction(|tx| {
            let row =
                conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let h = hold(tx, held, conversation, &row)?;
            let base = h.session.entries().len();
            let r = f(tx, &mut h.session)?;
            intact = h.session.entries().len() >= base;
            if intact {
                write_back(tx, conversation, &h.session, base)?;
            }
            Ok(r)
        });
        match (&result, intact) {
            (Ok(_), true) => {
                if let Some(h) = held.get_mut(conversation) {
                    h.committed = h.session.entries().len();
                }
            }
            _ => {
                held.remove(conversation);
            }
        }
        result.map_err(|e| fail(shown, e))
    }
}

/// Verifies the history (only what is new) before a person's turn is appended to it.
pub(crate) fn read_into(env: Env<'_>, session: &mut Session, text: &str) -> bool {
    if session.tampered || !history::verify_session(env.key, session) || !session.follows_anchor() {
        return false;
    }
    stalwart_runtime::read(env, session, text);
    true
}

/// A transaction's failure as the store reports it.
pub(crate) fn fail(shown: &str, e: TxError<HostError>) -> HostError {
    match e {
        TxError::Abort(e) => e,
        TxError::Db(DbError { message, .. }) => HostError::new(
            STORE_FAILED,
            format!("the store `{shown}` failed: {message}"),
        ),
    }
}

pub(crate) fn missing(conversation: &str) -> TxError<HostError> {
    TxError::Abort(HostError::new(
        NOT_FOUND,
        format!("no conversation `{conversation}` in the store"),
    ))
}

/// The conversation's row, locked until the transaction ends when `lock`.
pub(crate) fn conversation_row(
    tx: &mut dyn Tx,
    id: &str,
    lock: bool,
) -> Result<Option<ConversationInfo>, TxError<HostError>> {
    let sql = format!(
        "SELECT agent, record, entries, head, created FROM conversations WHERE id = $1{}",
        if lock { tx.for_update() } else { "" }
    );
    let rows = tx.query(&sql, &[Param::Text(id)])?;
    Ok(rows.first().map(|r| ConversationInfo {
        id: id.to_string(),
        agent: r.text(0),
        record: r.text(1),
        head: Head {
            entries: u64::try_from(r.int(2)).unwrap_or(0),
            token: r.text(3),
        },
        created: u64::try_from(r.int(4)).unwrap_or(0),
    }))
}

/// The session of `conversation`, brought up to the database's head: entries past what this
/// store committed are cut, entries other processes appended since are read (and verified by the
/// next check, they alone), and the session is anchored at the head.
fn hold<'h>(
    tx: &mut dyn Tx,
    held: &'h mut HashMap<String, Held>,
    conversation: &str,
    row: &ConversationInfo,
) -> Result<&'h mut Held, TxError<HostError>> {
    let h = held
        .entry(conversation.to_string())
        .or_insert_with(|| Held {
            session: Session::new(row.agent.clone(), conversation.to_string()),
            committed: 0,
        });
    h.session.truncate(h.committed);
    let stored = usize::try_from(row.head.entries).unwrap_or(usize::MAX);
    if h.session.entries().len() > stored || h.session.agent != row.agent || h.session.tampered {
        h.session = Session::new(row.agent.clone(), conversation.to_string());
    }
    let have = h.session.entries().len();
    if have < stored {
        load_entries(tx, conversation, have, &mut h.session)?;
    }
    h.committed = h.session.entries().len();
    h.session.set_anchor(row.head.clone());
    Ok(h)
}

/// Appends the stored entries from `from` on to `session`, unverified. Rows that are not
/// entries, or are not numbered one after another, mark the session tampered.
pub(crate) fn load_entries(
    tx: &mut dyn Tx,
    conversation: &str,
    from: usize,
    session: &mut Session,
) -> Result<(), TxError<HostError>> {
    let rows = tx.query(
        "SELECT seq, body FROM entries WHERE conversation = $1 AND seq >= $2 ORDER BY seq",
        &[Param::Text(conversation), int(from as u64)],
    )?;
    let mut entries = Vec::with_capacity(rows.len());
    for (expected, row) in (from as i64..).zip(rows.iter()) {
        let parsed = serde_json::from_str::<Entry>(&row.text(1)).ok();
        match parsed {
            Some(e) if row.int(0) == expected => entries.push(e),
            _ => {
                session.tampered = true;
                return Ok(());
            }
        }
    }
    session.extend(entries);
    Ok(())
}

/// Writes the session's entries from `from` on, and its new head.
fn write_back(
    tx: &mut dyn Tx,
    conversation: &str,
    session: &Session,
    from: usize,
) -> Result<(), TxError<HostError>> {
    let new = session.entries().get(from..).unwrap_or(&[]);
    if new.is_empty() {
        return Ok(());
    }
    for (at, entry) in new.iter().enumerate() {
        let body = serde_json::to_string(entry).unwrap_or_default();
        tx.exec(
            "INSERT INTO entries (conversation, seq, body) VALUES ($1, $2, $3)",
            &[
                Param::Text(conversation),
                int((from + at) as u64),
                Param::Text(&body),
            ],
        )?;
    }
    let head = session.head();
    tx.exec(
        "UPDATE conversations SET entries = $1, head = $2 WHERE id = $3",
        &[
            int(head.entries),
            Param::Text(&head.token),
            Param::Text(conversation),
        ],
    )?;
    Ok(())
}
