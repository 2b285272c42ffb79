//! Opening a store, and what it does with bad input: a wrong or unreachable URL is named
//! without its password, a newer schema is refused and left as it is, a damaged SQLite file is
//! reported and nothing in it is lost, an older schema is migrated, an entry edited in the
//! database is `history_invalid`; and two stores (two processes) sharing one conversation each
//! read what the other appended.

use std::sync::Arc;

use serde_json::json;
use stalwart_record::Record;
use stalwart_runtime::{Call, Decision, Env};
use stalwart_store::{Approve, Guard, Store, Verdict};
use stalwart_tests::gardener::{Gardener, compile};
use stalwart_tests::store_fixture::Fixture;

fn open_err(url: &str) -> (String, String) {
    match Store::open(url) {
        Ok(_) => panic!("`{url}` opened"),
        Err(e) => (e.code.id.to_string(), e.message),
    }
}

#[test]
fn a_url_the_store_cannot_use_is_named_without_its_password() {
    assert_eq!(
        open_err("mysql://root:s3cret@db/chats"),
        (
            "E0040".into(),
            "unknown store `mysql://root:***@db/chats`: a store is `sqlite:PATH` or \
             `postgres://…` (not `mysql`)"
                .into()
        )
    );
    let (code, message) = open_err("postgres://ana:s3cret@127.0.0.1:1/chats");
    assert_eq!(code, "E0041");
    assert!(
        message.starts_with("cannot reach the store `postgres://ana:***@127.0.0.1:1/chats`: "),
        "{message}"
    );
    assert!(!message.contains("s3cret"), "{message}");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder").join("chats.sqlite");
    assert_eq!(
        open_err(&format!("sqlite:{}", missing.display())),
        (
            "E0041".into(),
            format!(
                "cannot open the store `sqlite:{}`: the folder `{}` does not exist",
                missing.display(),
                missing.parent().unwrap().display()
            )
        )
    );
}

#[test]
fn a_folder_named_with_a_slash_is_made_and_holds_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("notes-chats");
    let store = Store::open(&format!("{}/", folder.display())).unwrap();
    assert_eq!(
        store.shown(),
        format!("sqlite:{}", folder.join("conversations.sqlite").display())
    );
    assert!(folder.join("conversations.sqlite").is_file());
}

#[test]
fn a_wrong_password_is_refused_and_never_printed() {
    let Some(server) = stalwart_tests::postgres::server() else {
        return;
    };
    let wrong = server.replacen("stalwart-test-pw", "not-the-password", 1);
    assert_ne!(wrong, server, "the test server's URL holds its password");
    let (code, message) = open_err(&wrong);
    assert_eq!(code, "E0041");
    assert!(message.contains("stalwart:***@"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
    assert!(
        message.contains("password authentication failed"),
        "{message}"
    );
}

fn sqlite(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

#[test]
fn a_store_written_by_a_newer_schema_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chats.sqlite");
    let url = format!("sqlite:{}", path.display());
    drop(Store::open(&url).unwrap());
    sqlite(&path)
        .execute("UPDATE stalwart_store SET version = 99", [])
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    assert_eq!(
        open_err(&url),
        (
            "E0042".into(),
            format!(
                "`{url}` was written by a newer store (schema version 99; this build reads up \
                 to 2): it was left as it is"
            )
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);

    if let Some(f) = Fixture::postgres("newer_schema") {
        drop(f.store());
        let mut client = postgres::Client::connect(&f.url, postgres::NoTls).unwrap();
        client
            .batch_execute("UPDATE stalwart_store SET version = 99")
            .unwrap();
        let (code, message) = open_err(&f.url);
        assert_eq!(code, "E0042");
        assert!(
            message
                .ends_with("(schema version 99; this build reads up to 2): it was left as it is"),
            "{message}"
        );
        let version: i64 = client
            .query_one("SELECT version FROM stalwart_store", &[])
            .unwrap()
            .get(0);
        assert_eq!(version, 99);
    }
}

#[test]
fn an_older_schema_is_migrated_and_keeps_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chats.sqlite");
    {
        let conn = sqlite(&path);
        conn.execute_batch(
            "CREATE TABLE stalwart_store (version BIGINT NOT NULL, written_by TEXT NOT NULL); \
             INSERT INTO stalwart_store VALUES (1, 'stalwart-store 0.0.1');",
        )
        .unwrap();
        for sql in stalwart_store::schema::statements_upto(1) {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute(
            "INSERT INTO conversations VALUES ('notes', 'gardener', 'r', 0, '', 0)",
            [],
        )
        .unwrap();
    }
    let mut store = Store::open(&format!("sqlite:{}", path.display())).unwrap();
    assert_eq!(store.conversations().unwrap()[0].id, "notes");
    drop(store);
    let conn = sqlite(&path);
    let version: i64 = conn
        .query_row("SELECT version FROM stalwart_store", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 2);
    let index: String = conn
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'turns_by_state'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(index, "turns_by_state");
}

#[test]
fn a_damaged_sqlite_file_is_reported_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.sqlite");
    std::fs::write(&garbage, "this is not a database\n".repeat(200)).unwrap();
    let (code, message) = open_err(&format!("sqlite:{}", garbage.display()));
    assert_eq!(code, "E0043");
    assert_eq!(
        message,
        format!(
            "the store `sqlite:{}` is damaged or not a database (file is not a database); it \
             was left as it is",
            garbage.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&garbage).unwrap(),
        "this is not a database\n".repeat(200)
    );

    // A store with conversations in it, a page of it overwritten.
    let path = dir.path().join("chats.sqlite");
    let url = format!("sqlite:{}", path.display());
    let rec = compile(dir.path());
    let record = Record::open(rec.join("record.bin")).unwrap();
    let key = stalwart_runtime::Key::from_json(stalwart_tests::gardener::LICENCE)
        .unwrap()
        .for_record(&record.header().digest);
    {
        let mut store = Store::open(&url).unwrap();
        for i in 0..200 {
            let id = format!("c{i}");
            store.open_conversation("gardener", &id, &key).unwrap();
            store
                .read(&id, Env { key: &key, now: 1 }, &"words ".repeat(40))
                .unwrap();
        }
    }
    sqlite(&path)
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 4096 * 8);
    for b in &mut bytes[4096 * 3..4096 * 5] {
        *b = 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    let (code, message) = open_err(&url);
    assert_eq!(code, "E0043", "{message}");
    assert!(message.ends_with("; it was left as it is"), "{message}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_database_with_other_tables_is_not_taken_for_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.sqlite");
    sqlite(&path)
        .execute_batch("CREATE TABLE invoices (id INTEGER)")
        .unwrap();
    assert_eq!(
        open_err(&format!("sqlite:{}", path.display())),
        (
            "E0049".into(),
            format!(
                "`sqlite:{}` is a database with other tables (invoices) and no store: it was \
                 left as it is",
                path.display()
            )
        )
    );
}

#[test]
fn an_entry_edited_in_the_database_is_history_invalid() {
    for f in Fixture::each("edited_entry") {
        let record = Record::open(f.record.join("record.bin")).unwrap();
        let key = f.key();
        let gardener = Gardener {
            logs: f.logs(),
            hang: None,
            slow: 0,
        };
        let mut yes = |_: &stalwart_store::Approval| Verdict::Allow;
        let mut guard = Guard {
            body: record.body(),
            key: &key,
            approve: Approve::Function(&mut yes),
        };
        let mut store = f.store();
        store.open_conversation("gardener", "notes", &key).unwrap();
        let run = store
            .start_turn(
                &mut guard,
                "notes",
                "Merge groceries.md into todo.md.",
                &mut gardener.program(),
            )
            .unwrap();
        assert_eq!(
            serde_json::to_value(&run.end).unwrap(),
            json!({"state": "done", "answer": "Merged groceries.md into todo.md."})
        );
        assert!(store.verified_history("notes", &key).unwrap().is_some());
        // The person's words, changed in the database.
        let edit = "UPDATE entries SET body = replace(body, 'groceries', 'chores') \
                    WHERE conversation = 'notes' AND seq = 0";
        match f.backend {
            stalwart_tests::store_fixture::Backend::Sqlite => {
                let path = f.url.trim_start_matches("sqlite:");
                assert_eq!(
                    sqlite(std::path::Path::new(path))
                        .execute(edit, [])
                        .unwrap(),
                    1
                );
            }
            stalwart_tests::store_fixture::Backend::Postgres => {
                let mut client = postgres::Client::connect(&f.url, postgres::NoTls).unwrap();
                assert_eq!(client.execute(edit, &[]).unwrap(), 1);
            }
        }
        let mut store = f.store();
        assert!(store.verified_history("notes", &key).unwrap().is_none());
        let mut store = f.store();
        let call = Call {
            tool: "read_note".into(),
            arguments: Arc::new(json!({"name": "todo.md"}).as_object().unwrap().clone()),
            ..Call::default()
        };
        let check = store
            .check("notes", record.body(), Env { key: &key, now: 1 }, &call)
            .unwrap();
        assert_eq!(check.decision, Decision::Refuse);
        assert_eq!(check.reasons, ["history_invalid"]);
        let err = store
            .start_turn(&mut guard, "notes", "Hello.", &mut gardener.program())
            .err()
            .unwrap();
        assert_eq!(err.code.id, "E0050");
        assert_eq!(
            err.message,
            "the history of `notes` does not verify: an entry was edited, removed or reordered \
             in the store"
        );
    }
}

#[test]
fn two_stores_on_one_conversation_each_read_what_the_other_appended() {
    for f in Fixture::each("two_stores") {
        let record = Record::open(f.record.join("record.bin")).unwrap();
        let key = f.key();
        let env = Env { key: &key, now: 1 };
        let mut a = f.store();
        let mut b = f.store();
        a.open_conversation("gardener", "notes", &key).unwrap();
        b.open_conversation("gardener", "notes", &key).unwrap();
        let call = |name: &str| Call {
            tool: "read_note".into(),
            arguments: Arc::new(json!({"name": name}).as_object().unwrap().clone()),
            ..Call::default()
        };
        for round in 0..5 {
            for (who, store) in [("a", &mut a), ("b", &mut b)] {
                let check = store
                    .check("notes", record.body(), env, &call(&format!("{who}{round}")))
                    .unwrap();
                assert_eq!(check.decision, Decision::Allow, "{check:?}");
            }
        }
        let history = f.store().verified_history("notes", &key).unwrap().unwrap();
        let steps: Vec<(u32, String)> = history
            .calls()
            .map(|c| {
                (
                    c.step,
                    c.arguments["name"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let expected: Vec<(u32, String)> = (0..5)
            .flat_map(|r| [format!("a{r}"), format!("b{r}")])
            .enumerate()
            .map(|(i, n)| (i as u32 + 1, n))
            .collect();
        assert_eq!(steps, expected);
    }
}
