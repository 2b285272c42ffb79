//! A folder for one test of the store: the gardener's record, the log folder, and the store
//! (an SQLite file in the folder, or a PostgreSQL database of its own); helpers that run the
//! test host (`store-host`) and `stalwart turns` as processes of their own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::gardener::{self, log_lines};
use crate::postgres::Database;
use crate::{stderr, stdout};

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// One test's folder and store.
#[derive(Debug)]
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub url: String,
    pub record: PathBuf,
    pub backend: Backend,
    _database: Option<Database>,
}

impl Fixture {
    /// A fixture on SQLite; `None` never.
    pub fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let url = format!("sqlite:{}", dir.path().join("chats.sqlite").display());
        Self::with(dir, url, Backend::Sqlite, None)
    }

    /// A fixture on a PostgreSQL database of its own; `None` only when PostgreSQL is left out on
    /// purpose (`STALWART_SKIP_POSTGRES=1`).
    pub fn postgres(test: &str) -> Option<Self> {
        let db = Database::new(test)?;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let url = db.url.clone();
        Some(Self::with(dir, url, Backend::Postgres, Some(db)))
    }

    /// Every backend a test runs on: SQLite, then PostgreSQL.
    pub fn each(test: &str) -> Vec<Self> {
        let mut all = vec![Self::sqlite()];
        all.extend(Self::postgres(test));
        all
    }

    fn with(dir: tempfile::TempDir, url: String, backend: Backend, db: Option<Database>) -> Self {
        let record = gardener::compile(dir.path());
        let notes = dir.path().join("logs").join("notes");
        std::fs::create_dir_all(&notes).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(notes.join("groceries.md"), "milk\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(notes.join("todo.md"), "call mum\n").unwrap_or_else(|e| panic!("{e}"));
        Self {
            dir,
            url,
            record,
            backend,
            _database: db,
        }
    }

    pub fn logs(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    /// The lines of `logs/NAME`.
    pub fn log(&self, name: &str) -> Vec<String> {
        log_lines(&self.logs().join(name))
    }

    pub fn note(&self, name: &str) -> String {
        std::fs::read_to_string(self.logs().join("notes").join(name)).unwrap_or_default()
    }

    /// The test host as a command: `store-host COMMAND --store … --record … --logs … ARGS`.
    pub fn host_command(&self, command: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(host_bin());
        cmd.arg(command)
            .args(["--store", &self.url])
            .arg("--record")
            .arg(&self.record)
            .arg("--logs")
            .arg(self.logs())
            .args(args)
            .current_dir(self.dir.path());
        cmd
    }

    /// Runs the test host; answers its JSON lines.
    pub fn host(&self, command: &str, args: &[&str]) -> Vec<Value> {
        let out = self
            .host_command(command, args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run store-host: {e}"));
        assert_eq!(
            out.status.code(),
            Some(0),
            "store-host {command} {args:?} failed: {}",
            stderr(&out)
        );
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    /// Runs `stalwart turns SUB --store URL ARGS`.
    pub fn turns(&self, sub: &str, args: &[&str]) -> Output {
        let mut all = vec!["turns", sub, "--store", &self.url];
        all.extend_from_slice(args);
        crate::run(self.dir.path(), &all)
    }

    /// `stalwart turns show CONVERSATION --format json`, read.
    pub fn show(&self, conversation: &str) -> Value {
        let out = self.turns("show", &[conversation, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The store, opened in this process.
    pub fn store(&self) -> stalwart_store::Store {
        stalwart_store::Store::open(&self.url).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The key the record's histories are signed with.
    pub fn key(&self) -> stalwart_runtime::RecordKey {
        let record = stalwart_record::Record::open(self.record.join("record.bin"))
            .unwrap_or_else(|e| panic!("{e}"));
        stalwart_runtime::Key::from_json(gardener::LICENCE)
            .unwrap_or_else(|e| panic!("{e}"))
            .for_record(&record.header().digest)
    }

    /// Whether every conversation's stored history verifies whole.
    pub fn every_history_verifies(&self) -> bool {
        let key = self.key();
        let mut store = self.store();
        let ids: Vec<String> = store
            .conversations()
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|c| c.id)
            .collect();
        ids.iter().all(|id| {
            store
                .verified_history(id, &key)
                .unwrap_or_else(|e| panic!("{e}"))
                .is_some()
        })
    }
}

/// The test host binary: cargo builds this package's binaries before its integration tests,
/// into the folder above the test executables' `deps/`.
pub fn host_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join(format!("store-host{}", std::env::consts::EXE_SUFFIX)))
        .unwrap_or_default();
    assert!(bin.exists(), "no store-host at {}", bin.display());
    bin
}
