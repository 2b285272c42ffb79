//! The store's tables, created and migrated by the store itself, versioned.
//!
//! `stalwart_store` holds the schema's version. Opening a database with no store in it creates
//! the tables at [`VERSION`]; one at an older version is migrated, step by step, in one
//! transaction; one written by a newer version is refused and left as it is. Every statement is
//! the SQL both databases read (`BIGINT`, `TEXT`; numbered parameters).
//!
//! The tables:
//! - `conversations`: each conversation's agent, the record it runs under, and the head of its
//!   signed history (entry count and last token): the anchor a check holds the history to.
//! - `entries`: the signed history, one entry (its JSON) a row.
//! - `turns`: each turn's input, state, answer, the process that runs it and how many runs
//!   (writers) it has had.
//! - `journal`: each model reply and each tool call of a turn, `started` before a changing
//!   call runs and `done` with its result after; a person's resolution of an unfinished call.
//! - `approvals`: what a turn waits for, and who answered, when and why.

use stalwart_host::HostError;

use crate::codes::{NOT_A_STORE, STORE_NEWER};
use crate::db::{Db, Param, Tx, TxError};

/// The schema version this build writes.
pub const VERSION: i64 = 2;

/// Version 1: the tables.
const V1: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        record TEXT NOT NULL,
        entries BIGINT NOT NULL,
        head TEXT NOT NULL,
        created BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entries (
        conversation TEXT NOT NULL,
        seq BIGINT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (conversation, seq))",
    "CREATE TABLE IF NOT EXISTS turns (
        conversation TEXT NOT NULL,
        number BIGINT NOT NULL,
        input TEXT NOT NULL,
        state TEXT NOT NULL,
        answer TEXT,
        writer BIGINT NOT NULL,
        owner TEXT,
        lease BIGINT NOT NULL,
        ended_by TEXT,
        ended_why TEXT,
        created BIGINT NOT NULL,
        updated BIGINT NOT NULL,
        PRIMARY KEY (conversation, number))",
    "CREATE TABLE IF NOT EXISTS journal (
        conversation TEXT NOT NULL,
        turn BIGINT NOT NULL,
        kind TEXT NOT NULL,
        number BIGINT NOT NULL,
        name TEXT NOT NULL,
        input TEXT NOT NULL,
        digest TEXT NOT NULL,
        occurrence BIGINT NOT NULL,
        state TEXT NOT NULL,
        outcome TEXT,
        result TEXT,
        step BIGINT,
        writer BIGINT NOT NULL,
        started BIGINT NOT NULL,
        done BIGINT,
        resolution TEXT,
        resolved_by TEXT,
        PRIMARY KEY (conversation, turn, kind, number))",
    "CREATE TABLE IF NOT EXISTS approvals (
        conversation TEXT NOT NULL,
        turn BIGINT NOT NULL,
        invocation BIGINT NOT NULL,
        tool TEXT NOT NULL,
        path TEXT NOT NULL,
        arguments TEXT NOT NULL,
        origins TEXT NOT NULL,
        effects TEXT NOT NULL,
        question TEXT NOT NULL,
        reasons TEXT NOT NULL,
        step BIGINT NOT NULL,
        confirmation TEXT,
        state TEXT NOT NULL,
        answered_by TEXT,
        answered_at BIGINT,
        why TEXT,
        asked BIGINT NOT NULL,
        PRIMARY KEY (conversation, turn, invocation))",
];

/// Version 2: turns, approvals and journal records found by state (what waits, what a crash
/// left), without a scan.
const V2: &[&str] = &[
    "CREATE INDEX IF NOT EXISTS turns_by_state ON turns (state, conversation)",
    "CREATE INDEX IF NOT EXISTS approvals_by_state ON approvals (state, conversation, turn)",
    "CREATE INDEX IF NOT EXISTS journal_by_state ON journal (state, conversation, turn)",
];

/// Each version's statements, from version 1.
const MIGRATIONS: &[&[&str]] = &[V1, V2];

/// The statements of versions `1..=upto`: what a database of version `upto` holds (for tests
/// that make an older database).
pub fn statements_upto(upto: i64) -> Vec<&'static str> {
    MIGRATIONS
        .iter()
        .take(usize::try_from(upto).unwrap_or(0))
        .flat_map(|v| v.iter().copied())
        .collect()
}

/// Creates or migrates the schema, or refuses a newer one. `shown` names the store in messages.
pub(crate) fn prepare(db: &mut Db, shown: &str) -> Result<(), TxError<HostError>> {
    let postgres = db.is_postgres();
    db.transaction(|tx| {
        if postgres {
            // Two processes opening a new database at once: one creates, the other waits.
            tx.exec("SELECT pg_advisory_xact_lock(7406157553)", &[])?;
        }
        let tables = table_names(tx, postgres)?;
        let version = if tables.iter().any(|t| t == "stalwart_store") {
            let rows = tx.query("SELECT version FROM stalwart_store", &[])?;
            rows.first().map_or(0, |r| r.int(0))
        } else {
            if !postgres && !tables.is_empty() {
                return Err(TxError::Abort(HostError::new(
                    NOT_A_STORE,
                    format!(
                        "`{shown}` is a database with other tables ({}) and no store: it was \
                         left as it is",
                        tables.join(", ")
                    ),
                )));
            }
            tx.exec(
                "CREATE TABLE stalwart_store (version BIGINT NOT NULL, written_by TEXT NOT NULL)",
                &[],
            )?;
            0
        };
        if version > VERSION {
            return Err(TxError::Abort(HostError::new(
                STORE_NEWER,
                format!(
                    "`{shown}` was written by a newer store (schema version {version}; this \
                     build reads up to {VERSION}): it was left as it is"
                ),
            )));
        }
        if version == VERSION {
            return Ok(());
        }
        for step in MIGRATIONS
            .iter()
            .skip(usize::try_from(version).unwrap_or(0))
        {
            for sql in *step {
                tx.exec(sql, &[])?;
            }
        }
        let by = concat!("stalwart-store ", env!("CARGO_PKG_VERSION"));
        if version == 0 {
            tx.exec(
                "INSERT INTO stalwart_store (version, written_by) VALUES ($1, $2)",
                &[Param::Int(VERSION), Param::Text(by)],
            )?;
        } else {
            tx.exec(
                "UPDATE stalwart_store SET version = $1, written_by = $2",
                &[Param::Int(VERSION), Param::Text(by)],
            )?;
        }
        Ok(())
    })
}

fn table_names(tx: &mut dyn Tx, postgres: bool) -> Result<Vec<String>, TxError<HostError>> {
    let sql = if postgres {
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = current_schema() ORDER BY 1"
    } else {
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1"
    };
    Ok(tx.query(sql, &[])?.iter().map(|r| r.text(0)).collect())
}
