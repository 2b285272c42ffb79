//! The PostgreSQL server the store's tests run against: `STALWART_TEST_POSTGRES` (a URL; `.ci/test`
//! starts a throwaway cluster with `.ci/postgres start` and sets it). Without it the tests fail,
//! never skip, unless `STALWART_SKIP_POSTGRES=1` says to leave PostgreSQL out on purpose.
//!
//! Each test gets a database of its own on that server ([`Database`]), dropped when the test
//! ends; [`restart`] restarts the server through `STALWART_TEST_POSTGRES_CTL` (the control
//! script, `.ci/postgres`).

use std::process::Command;

/// The server's URL; `None` only when `STALWART_SKIP_POSTGRES=1`.
pub fn server() -> Option<String> {
    match std::env::var("STALWART_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("STALWART_SKIP_POSTGRES").as_deref() == Ok("1") => None,
        _ => panic!(
            "STALWART_TEST_POSTGRES is not set: the store's PostgreSQL tests need a server \
             (`eval \"export STALWART_TEST_POSTGRES=$(bash .ci/postgres start)\"`, or run \
             `bash .ci/test`); set STALWART_SKIP_POSTGRES=1 to leave them out on purpose"
        ),
    }
}

/// `url` with its database replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// A database of its own for one test, dropped with it.
#[derive(Debug)]
pub struct Database {
    pub url: String,
    name: String,
    server: String,
}

impl Database {
    /// A new, empty database named after the test; `None` when PostgreSQL is left out.
    pub fn new(test: &str) -> Option<Self> {
        let server = server()?;
        let name = format!(
            "t_{}_{}",
            test.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            std::process::id()
        );
        let mut client = postgres::Client::connect(&server, postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot reach STALWART_TEST_POSTGRES: {e}"));
        for sql in [
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            format!("CREATE DATABASE {name}"),
        ] {
            client.batch_execute(&sql).unwrap_or_else(|e| {
                panic!(
                    "cannot make the test database ({sql}): {}",
                    e.as_db_error()
                        .map_or_else(|| e.to_string(), |d| d.message().to_string())
                )
            });
        }
        Some(Self {
            url: with_database(&server, &name),
            name,
            server,
        })
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.server, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// Restarts the server (fast shutdown, then start), through `STALWART_TEST_POSTGRES_CTL`.
pub fn restart() {
    let ctl = std::env::var("STALWART_TEST_POSTGRES_CTL").unwrap_or_else(|_| {
        panic!("STALWART_TEST_POSTGRES_CTL is not set: the restart test needs the control script")
    });
    let status = Command::new("bash")
        .arg(&ctl)
        .arg("restart")
        .status()
        .unwrap_or_else(|e| panic!("cannot run {ctl}: {e}"));
    assert!(status.success(), "{ctl} restart failed");
}
