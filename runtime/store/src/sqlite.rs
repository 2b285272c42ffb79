//! The embedded database: one SQLite file (WAL journal, a long busy timeout), opened without
//! ever being rewritten: a file that is not a database, or is damaged, is reported and left as
//! it is.
//!
//! A transaction starts with `BEGIN IMMEDIATE`, which takes the file's write lock at once, so
//! the transactions of every process that shares the file run one after another.

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};

use crate::db::{Cell, DbError, Param, Row, Tx, TxBody, TxError};

/// How long a transaction waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

pub(crate) struct SqliteDb {
    conn: Connection,
}

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Param::Int(n) => ToSqlOutput::Borrowed(ValueRef::Integer(*n)),
            Param::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            Param::NullInt | Param::NullText => ToSqlOutput::Borrowed(ValueRef::Null),
        })
    }
}

/// Whether an SQLite failure says the file is not a database or is damaged.
pub(crate) fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

fn err(e: rusqlite::Error) -> DbError {
    DbError::new(e.to_string())
}

/// Opening failed: why, and whether the file is damaged (not a database, or corrupt).
pub(crate) struct OpenFailure {
    pub message: String,
    pub damaged: bool,
}

impl SqliteDb {
    /// Opens (or creates) the database file at `path`. The file is read, never repaired: its
    /// integrity is checked before anything is written to it.
    pub fn open(path: &Path) -> Result<Self, OpenFailure> {
        let fail = |e: rusqlite::Error| OpenFailure {
            damaged: is_damage(&e),
            message: e.to_string(),
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        // A quick look at every page of the schema and the tables: a damaged file fails here,
        // before any statement could write to it.
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(fail)?;
        if check != "ok" {
            return Err(OpenFailure {
                message: check,
                damaged: true,
            });
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(fail)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(fail)?;
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Self { conn })
    }

    pub fn transaction<R, E>(&mut self, f: &mut TxBody<'_, R, E>) -> Result<R, TxError<E>> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| TxError::Db(err(e)))?;
        let mut tx = SqliteTx { conn: &self.conn };
        match f(&mut tx) {
            Ok(r) => match self.conn.execute_batch("COMMIT") {
                Ok(()) => Ok(r),
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(TxError::Db(err(e)))
                }
            },
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

struct SqliteTx<'c> {
    conn: &'c Connection,
}

impl Tx for SqliteTx<'_> {
    fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(err)?;
        let n = stmt
            .execute(rusqlite::params_from_iter(params.iter()))
            .map_err(err)?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DbError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(err)?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(err)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(err)? {
            let mut cells = Vec::with_capacity(columns);
            for at in 0..columns {
                cells.push(match row.get_ref(at).map_err(err)? {
                    ValueRef::Integer(n) => Cell::Int(n),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Cell::Text(String::from_utf8_lossy(t).into_owned())
                    }
                    ValueRef::Real(r) => Cell::Int(r as i64),
                    ValueRef::Null => Cell::Null,
                });
            }
            out.push(Row(cells));
        }
        Ok(out)
    }

    fn for_update(&self) -> &'static str {
        ""
    }
}
