//! The shared database: PostgreSQL through one connection per store, by URL.
//!
//! A transaction takes the conversation's row lock with `SELECT … FOR UPDATE`, so the checks of
//! one conversation run one after another whichever process or host runs them. A connection
//! lost before a transaction committed (the server restarted, the network dropped) is made
//! again, for up to [`RECONNECT_FOR`], and the transaction runs again from its start; one lost
//! while committing is reported, since whether it committed cannot be known.

use std::collections::HashMap;
use std::error::Error as _;
use std::time::{Duration, Instant};

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, NoTls, Statement};

use crate::db::{Cell, DbError, Param, Row, Tx, TxBody, TxError};

/// How long a lost connection is tried again before a transaction gives up.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

pub(crate) struct PgDb {
    /// The URL as given (with its password): never printed.
    url: String,
    client: Option<Client>,
    statements: HashMap<String, Statement>,
}

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Param::Int(n) => n.to_sql(ty, out),
            Param::Text(t) => t.to_sql(ty, out),
            Param::NullInt | Param::NullText => Ok(IsNull::Yes),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(*ty, Type::INT8 | Type::TEXT | Type::VARCHAR)
    }

    to_sql_checked!();
}

/// The failure's text without the URL (the driver's messages never hold it), and whether the
/// transaction may run again: the connection was lost, the server is shutting down or starting,
/// or it chose this transaction as a deadlock's victim.
fn err(e: &postgres::Error) -> DbError {
    let code = e.code().map(|c| c.code().to_string()).unwrap_or_default();
    let retry = e.is_closed()
        || code.starts_with("08")
        || code.starts_with("57P")
        || code == "40001"
        || code == "40P01"
        || e.source().is_some_and(|s| s.is::<std::io::Error>());
    let mut message = e.to_string();
    if let Some(db) = e.as_db_error() {
        message = format!("{}: {}", db.severity(), db.message());
    } else if let Some(source) = e.source() {
        message = format!("{message}: {source}");
    }
    DbError {
        message,
        lost: retry,
    }
}

impl PgDb {
    /// Connects once: a URL that cannot be reached is an error at once.
    pub fn open(url: &str) -> Result<Self, DbError> {
        let client = Client::connect(url, NoTls).map_err(|e| err(&e))?;
        Ok(Self {
            url: url.to_string(),
            client: Some(client),
            statements: HashMap::new(),
        })
    }

    fn connected(&mut self, since: Instant) -> Result<&mut Client, DbError> {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.client = None;
        }
        let mut wait = Duration::from_millis(50);
        while self.client.is_none() {
            match Client::connect(&self.url, NoTls) {
                Ok(c) => {
                    self.statements.clear();
                    self.client = Some(c);
                }
                Err(e) if since.elapsed() < RECONNECT_FOR => {
                    let _ = e;
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(1));
                }
                Err(e) => return Err(err(&e)),
            }
        }
        self.client
            .as_mut()
            .ok_or_else(|| DbError::new("no connection"))
    }

    pub fn transaction<R, E>(&mut self, f: &mut TxBody<'_, R, E>) -> Result<R, TxError<E>> {
        let since = Instant::now();
        loop {
            match self.attempt(since, f) {
                Err(TxError::Db(e)) if e.lost && since.elapsed() < RECONNECT_FOR => {
                    self.client = None;
                    std::thread::sleep(Duration::from_millis(50));
                }
                other => return other,
            }
        }
    }

    fn attempt<R, E>(&mut self, since: Instant, f: &mut TxBody<'_, R, E>) -> Result<R, TxError<E>> {
        self.connected(since)?;
        let Self {
            client, statements, ..
        } = self;
        let Some(client) = client.as_mut() else {
            return Err(TxError::Db(DbError::new("no connection")));
        };
        client.batch_execute("BEGIN").map_err(|e| err(&e))?;
        let mut tx = PgTx { client, statements };
        match f(&mut tx) {
            Ok(r) => match tx.client.batch_execute("COMMIT") {
                Ok(()) => Ok(r),
                Err(e) => {
                    // Whether it committed is unknown: not run again.
                    let mut e = err(&e);
                    e.lost = false;
                    e.message = format!("the connection failed while committing: {}", e.message);
                    Err(TxError::Db(e))
                }
            },
            Err(e) => {
                let _ = tx.client.batch_execute("ROLLBACK");
                Err(e)
            }
        }
    }
}

struct PgTx<'c> {
    client: &'c mut Client,
    statements: &'c mut HashMap<String, Statement>,
}

impl PgTx<'_> {
    fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).map_err(|e| err(&e))?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

fn params<'p>(params: &'p [Param<'_>]) -> Vec<&'p (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl Tx for PgTx<'_> {
    fn exec(&mut self, sql: &str, p: &[Param<'_>]) -> Result<u64, DbError> {
        let s = self.statement(sql)?;
        self.client.execute(&s, &params(p)).map_err(|e| err(&e))
    }

    fn query(&mut self, sql: &str, p: &[Param<'_>]) -> Result<Vec<Row>, DbError> {
        let s = self.statement(sql)?;
        let rows = self.client.query(&s, &params(p)).map_err(|e| err(&e))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut cells = Vec::with_capacity(row.len());
            for (at, column) in row.columns().iter().enumerate() {
                let cell = match *column.type_() {
                    Type::INT8 => row
                        .try_get::<_, Option<i64>>(at)
                        .map(|v| v.map_or(Cell::Null, Cell::Int)),
                    Type::INT4 => row
                        .try_get::<_, Option<i32>>(at)
                        .map(|v| v.map_or(Cell::Null, |n| Cell::Int(i64::from(n)))),
                    Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => row
                        .try_get::<_, Option<String>>(at)
                        .map(|v| v.map_or(Cell::Null, Cell::Text)),
                    // What the store never reads back (`void`, say).
                    _ => Ok(Cell::Null),
                };
                cells.push(cell.map_err(|e| err(&e))?);
            }
            out.push(Row(cells));
        }
        Ok(out)
    }

    fn for_update(&self) -> &'static str {
        " FOR UPDATE"
    }
}
