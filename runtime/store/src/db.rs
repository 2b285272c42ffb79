//! The two databases behind one small interface: a transaction that runs statements with
//! numbered parameters (`$1`, `$2`, … in order of first use, which both SQLite and PostgreSQL
//! read) and gives rows of integers, texts and nulls.
//!
//! Every statement the store runs is written once, in the SQL both databases share; the only
//! difference the store's code sees is [`Tx::for_update`], the clause that takes a row's lock
//! (PostgreSQL's `FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` has taken the database's write lock
//! already). A transaction is retried when the connection was lost before it committed (a
//! PostgreSQL server restarted, say): the closure runs again from the start, so it must keep no
//! effect of a failed run.

use crate::postgres::PgDb;
use crate::sqlite::SqliteDb;

/// A statement's parameter.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Param<'a> {
    Int(i64),
    Text(&'a str),
    NullInt,
    NullText,
}

impl<'a> Param<'a> {
    pub fn opt_text(text: Option<&'a str>) -> Self {
        text.map_or(Param::NullText, Param::Text)
    }

    pub fn opt_int(n: Option<i64>) -> Self {
        n.map_or(Param::NullInt, Param::Int)
    }
}

/// A cell of a result row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    Int(i64),
    Text(String),
    Null,
}

/// A result row, read by position.
#[derive(Debug, Clone)]
pub(crate) struct Row(pub Vec<Cell>);

impl Row {
    pub fn int(&self, at: usize) -> i64 {
        match self.0.get(at) {
            Some(Cell::Int(n)) => *n,
            Some(Cell::Text(t)) => t.parse().unwrap_or(0),
            _ => 0,
        }
    }

    pub fn opt_int(&self, at: usize) -> Option<i64> {
        match self.0.get(at) {
            Some(Cell::Int(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn text(&self, at: usize) -> String {
        self.opt_text(at).unwrap_or_default()
    }

    pub fn opt_text(&self, at: usize) -> Option<String> {
        match self.0.get(at) {
            Some(Cell::Text(t)) => Some(t.clone()),
            Some(Cell::Int(n)) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// A database failure: its text, and whether the connection was lost (the statement may be
/// run again on a new connection when nothing was committed).
#[derive(Debug, Clone)]
pub(crate) struct DbError {
    pub message: String,
    pub lost: bool,
}

impl DbError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            lost: false,
        }
    }
}

/// Statements inside one transaction.
pub(crate) trait Tx {
    fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError>;
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DbError>;
    /// The clause that locks the rows a `SELECT` reads until the transaction ends.
    fn for_update(&self) -> &'static str;
}

/// One of the two databases.
pub(crate) enum Db {
    Sqlite(SqliteDb),
    Postgres(Box<PgDb>),
}

/// A transaction's body: it runs its statements, and may run again from the start (see the
/// module's text).
pub(crate) type TxBody<'f, R, E> = dyn FnMut(&mut dyn Tx) -> Result<R, TxError<E>> + 'f;

/// Why a transaction did not commit: the database's failure, or the closure's own error.
#[derive(Debug)]
pub(crate) enum TxError<E> {
    Db(DbError),
    Abort(E),
}

impl<E> From<DbError> for TxError<E> {
    fn from(e: DbError) -> Self {
        TxError::Db(e)
    }
}

impl Db {
    /// Runs `f` in a transaction and commits it; a lost connection before the commit runs it
    /// again on a new one (for a while), an error from `f` rolls back.
    pub fn transaction<R, E>(
        &mut self,
        mut f: impl FnMut(&mut dyn Tx) -> Result<R, TxError<E>>,
    ) -> Result<R, TxError<E>> {
        match self {
            Db::Sqlite(db) => db.transaction(&mut f),
            Db::Postgres(db) => db.transaction(&mut f),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Db::Postgres(_))
    }
}
