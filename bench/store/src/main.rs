//! The store's benchmark (BENCHMARKS.md, "The conversation store"):
//!
//! 1. a check against a conversation held in the store, at 10, 1,000 and 100,000 entries,
//!    beside the same check on a session held in memory;
//! 2. a journaled call (a read; a write approved by the host's function) beside the bare checks
//!    it makes;
//! 3. turns per second with 1, 8 and 32 writers (threads, each with its own connection).
//!
//! `cargo run --release -- RECORD_DIR [POSTGRES_URL]`: RECORD_DIR is the gardener compiled
//! (`bench/store/run.sh` compiles it), with its `licence.json`. Each figure is the median of its
//! samples, with the 10th and 90th percentiles.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use stalwart_record::Record;
use stalwart_runtime::{Call, Env, Key, Outcome, RecordKey, Session};
use stalwart_store::{Approve, Guard, Store, Verdict};

fn args(v: Value) -> Arc<Map<String, Value>> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

fn call(tool: &str, a: Value) -> Call {
    let arguments = args(a);
    let origins = arguments
        .keys()
        .map(|k| (k.clone(), "model".to_string()))
        .collect();
    Call {
        tool: tool.into(),
        arguments,
        origins: Arc::new(origins),
        ..Call::default()
    }
}

/// Median, 10th and 90th percentile, in microseconds.
fn summary(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() - 1) as f64 * q).round() as usize;
        samples[i].as_secs_f64() * 1e6
    };
    (at(0.5), at(0.1), at(0.9))
}

fn show(what: &str, s: (f64, f64, f64)) {
    println!("| {what} | {:.1} µs | {:.1}–{:.1} µs |", s.0, s.1, s.2);
}

/// A history of `n` entries: reads checked and reported, in turns.
fn history(
    body: &stalwart_record::ArchivedRecordBody,
    key: &RecordKey,
    id: &str,
    n: usize,
) -> Session {
    let env = Env {
        key,
        now: 1_800_000_000,
    };
    let mut s = Session::new("gardener", id);
    stalwart_runtime::read(env, &mut s, "Tidy the notes.");
    while s.entries().len() + 2 <= n {
        let step = s.next_step();
        stalwart_runtime::check_tool_call(
            body,
            env,
            &mut s,
            &call("read_note", json!({"name": format!("n{step}")})),
        );
        let _ = stalwart_runtime::report(env, &mut s, step, Outcome::Ran, Some(json!("text")));
    }
    while s.entries().len() < n {
        stalwart_runtime::read(env, &mut s, "More.");
    }
    s
}

const ITER: usize = 300;

fn check_vs_size(
    body: &stalwart_record::ArchivedRecordBody,
    key: &RecordKey,
    stores: &mut [(String, Store)],
) {
    println!("\n### A check against a conversation of N entries\n");
    println!("| what | median | p10–p90 |\n|---|---|---|");
    let env = Env {
        key,
        now: 1_800_000_000,
    };
    let probe = call("read_note", json!({"name": "todo.md"}));
    for n in [10usize, 1_000, 100_000] {
        let base = history(body, key, &format!("size-{n}"), n);
        let mut held = base.clone();
        stalwart_runtime::check_tool_call(body, env, &mut held, &probe);
        held.truncate(n);
        let mut samples = Vec::with_capacity(ITER);
        for _ in 0..ITER {
            let t = Instant::now();
            stalwart_runtime::check_tool_call(body, env, &mut held, &probe);
            samples.push(t.elapsed());
            held.truncate(n);
        }
        show(&format!("in memory, {n} entries"), summary(samples));
        for (name, store) in stores.iter_mut() {
            store
                .import_history(&base, key)
                .unwrap_or_else(|e| panic!("{e}"));
            // The first check of a store that has not seen the conversation reads and verifies
            // it whole, once.
            let t = Instant::now();
            store
                .check(&base.id, body, env, &probe)
                .unwrap_or_else(|e| panic!("{e}"));
            let cold = t.elapsed();
            let mut samples = Vec::with_capacity(ITER);
            for _ in 0..ITER {
                let t = Instant::now();
                store
                    .check(&base.id, body, env, &probe)
                    .unwrap_or_else(|e| panic!("{e}"));
                samples.push(t.elapsed());
            }
            show(
                &format!("{name}, {n} entries (to {} as it runs)", n + ITER + 1),
                summary(samples),
            );
            println!(
                "| {name}, {n} entries, first check of a new process (reads and verifies all) | {:.1} µs | one sample |",
                cold.as_secs_f64() * 1e6
            );
        }
    }
}

/// One turn of the note program: model, read, model, write (approved by the host's function),
/// model, answer. Tool calls' times go into `reads` and `writes`.
fn note_turn(
    store: &mut Store,
    body: &stalwart_record::ArchivedRecordBody,
    key: &RecordKey,
    id: &str,
    timed: Option<(&mut Vec<Duration>, &mut Vec<Duration>)>,
) {
    let mut yes = |_: &stalwart_store::Approval| Verdict::Allow;
    let mut guard = Guard {
        body,
        key,
        approve: Approve::Function(&mut yes),
    };
    store
        .open_conversation("gardener", id, key)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut timed = timed;
    let mut program =
        |turn: &mut stalwart_store::Turn<'_, '_>| -> Result<String, stalwart_store::Stop> {
            let mut model = |r: &Value| Ok(json!({"seen": r["n"]}));
            turn.model(&json!({"n": 0}), &mut model)?;
            let t = Instant::now();
            turn.tool(
                call("read_note", json!({"name": "todo.md"})),
                &mut |_, _| Ok(json!("milk")),
            )?;
            let read = t.elapsed();
            turn.model(&json!({"n": 1}), &mut model)?;
            let t = Instant::now();
            turn.tool(
                call("write_note", json!({"name": "todo.md", "text": "milk"})),
                &mut |_, _| Ok(json!("ok")),
            )?;
            let write = t.elapsed();
            turn.model(&json!({"n": 2}), &mut model)?;
            if let Some((reads, writes)) = timed.as_mut() {
                reads.push(read);
                writes.push(write);
            }
            Ok("done".into())
        };
    let run = store
        .start_turn(&mut guard, id, "Note 1", &mut program)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(run.end, stalwart_store::TurnEnd::Done { .. }),
        "{run:?}"
    );
}

fn journal_cost(
    body: &stalwart_record::ArchivedRecordBody,
    key: &RecordKey,
    stores: &mut [(String, Store)],
) {
    println!("\n### A journaled call beside the bare check\n");
    println!("| what | median | p10–p90 |\n|---|---|---|");
    let env = Env {
        key,
        now: 1_800_000_000,
    };
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    for i in 0..ITER {
        let mut s = history(body, key, &format!("bare-{i}"), 1);
        let t = Instant::now();
        stalwart_runtime::check_tool_call(
            body,
            env,
            &mut s,
            &call("read_note", json!({"name": "todo.md"})),
        );
        reads.push(t.elapsed());
        let w = call("write_note", json!({"name": "todo.md", "text": "milk"}));
        let t = Instant::now();
        let c = stalwart_runtime::check_tool_call(body, env, &mut s, &w);
        let mut confirmed = w.clone();
        confirmed.confirmation = c.confirmation.clone();
        let again = stalwart_runtime::check_tool_call(body, env, &mut s, &confirmed);
        writes.push(t.elapsed());
        assert_eq!(again.decision, stalwart_runtime::Decision::Allow);
    }
    show("bare check of a read, in memory", summary(reads));
    show(
        "bare checks of a write: confirm, then the confirmed check, in memory",
        summary(writes),
    );
    for (name, store) in stores.iter_mut() {
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for i in 0..ITER {
            note_turn(
                store,
                body,
                key,
                &format!("journal-{i}"),
                Some((&mut reads, &mut writes)),
            );
        }
        show(
            &format!(
                "{name}: a read through the turn (checked in the store; its result recorded with the next write)"
            ),
            summary(reads),
        );
        show(
            &format!(
                "{name}: a write through the turn (check, the host's approval, the confirmed check and `started`, the tool, `done`)"
            ),
            summary(writes),
        );
    }
}

fn turns_per_second(body_dir: &std::path::Path, urls: &[(String, String)]) {
    println!(
        "\n### Turns per second (model, read, model, write approved by the host's function, model)\n"
    );
    println!("| store | writers | turns | turns/s (median of 3) | spread |\n|---|---|---|---|---|");
    for (name, url) in urls {
        for writers in [1usize, 8, 32] {
            let total = 320usize;
            let mut rates = Vec::new();
            for round in 0..3 {
                let t = Instant::now();
                std::thread::scope(|scope| {
                    for w in 0..writers {
                        let url = url.clone();
                        scope.spawn(move || {
                            let record = Record::open(body_dir.join("record.bin"))
                                .unwrap_or_else(|e| panic!("{e}"));
                            let key = key_for(body_dir, &record);
                            let mut store = Store::open(&url).unwrap_or_else(|e| panic!("{e}"));
                            for i in (w..total).step_by(writers) {
                                note_turn(
                                    &mut store,
                                    record.body(),
                                    &key,
                                    &format!("tps-{writers}-{round}-{i}"),
                                    None,
                                );
                            }
                        });
                    }
                });
                rates.push(total as f64 / t.elapsed().as_secs_f64());
            }
            rates.sort_by(f64::total_cmp);
            println!(
                "| {name} | {writers} | {total} | {:.0} | {:.0}–{:.0} |",
                rates[1], rates[0], rates[2]
            );
        }
    }
}

fn key_for(dir: &std::path::Path, record: &Record) -> RecordKey {
    let text = std::fs::read_to_string(dir.join("licence.json")).unwrap_or_else(|e| panic!("{e}"));
    Key::from_json(&text)
        .unwrap_or_else(|e| panic!("{e}"))
        .for_record(&record.header().digest)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(argv.get(1).expect("RECORD_DIR"));
    let postgres = argv.get(2).cloned();
    let record = Record::open(dir.join("record.bin")).unwrap_or_else(|e| panic!("{e}"));
    let key = key_for(&dir, &record);
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut urls = vec![(
        "SQLite".to_string(),
        format!("sqlite:{}", tmp.path().join("bench.sqlite").display()),
    )];
    if let Some(pg) = postgres {
        urls.push(("PostgreSQL".to_string(), pg));
    }
    let mut stores: Vec<(String, Store)> = urls
        .iter()
        .map(|(n, u)| (n.clone(), Store::open(u).unwrap_or_else(|e| panic!("{e}"))))
        .collect();
    check_vs_size(record.body(), &key, &mut stores);
    journal_cost(record.body(), &key, &mut stores);
    drop(stores);
    turns_per_second(&dir, &urls);
}
