//! A host of `stalwart-store` for the workspace's tests: the gardener (`stalwart_tests::gardener`)
//! run as its own process, so tests can answer a turn in one process and finish it in another,
//! and kill a process while a tool runs.
//!
//! `store-host start|resume|approve|worker|answerer --store URL --record DIR --logs DIR …`
//! prints each run's [`TurnRun`](stalwart_store::TurnRun) as one JSON line; an error is printed
//! on stderr with exit code 2.

use std::collections::HashMap;
use std::path::PathBuf;

use stalwart_record::Record;
use stalwart_store::{Answered, Approve, Guard, Rule, Store, TurnFilter, TurnState, Verdict};
use stalwart_tests::gardener::{Gardener, log_line};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("usage: store-host start|resume|approve|worker|answerer --store URL …");
        std::process::exit(2);
    };
    let mut flags: HashMap<String, String> = HashMap::new();
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it.next().cloned().unwrap_or_default();
        flags.insert(flag.trim_start_matches('-').to_string(), value);
    }
    if let Err(e) = run(command, &flags) {
        eprintln!("error[{}]: {}", e.code.id, e.message);
        std::process::exit(2);
    }
}

fn flag<'f>(flags: &'f HashMap<String, String>, name: &str) -> &'f str {
    flags.get(name).map(String::as_str).unwrap_or_default()
}

fn run(command: &str, flags: &HashMap<String, String>) -> Result<(), stalwart_host::HostError> {
    let record_dir = PathBuf::from(flag(flags, "record"));
    let record = Record::open(record_dir.join("record.bin"))
        .unwrap_or_else(|e| panic!("cannot open the record: {e}"));
    let key = stalwart_host::key::read_key(&record_dir.join("licence.json"))?
        .for_record(&record.header().digest);
    let mut store = Store::open(flag(flags, "store"))?;
    let gardener = Gardener {
        logs: PathBuf::from(flag(flags, "logs")),
        hang: flags.get("hang").cloned(),
        slow: flag(flags, "slow").parse().unwrap_or(0),
    };
    let conversation = flag(flags, "conversation").to_string();
    let mut answer_fn = |a: &stalwart_store::Approval| -> Verdict {
        let _ = a;
        Verdict::Allow
    };
    let mut deny_fn;
    let approve_text = flags
        .get("approve")
        .cloned()
        .unwrap_or_else(|| "changes".into());
    let approve = match approve_text.as_str() {
        "yes" => Approve::Function(&mut answer_fn),
        "nobody" => Approve::Nobody,
        text if text.starts_with("deny:") => {
            let reason = text.trim_start_matches("deny:").to_string();
            deny_fn = move |_: &stalwart_store::Approval| Verdict::Deny(Some(reason.clone()));
            Approve::Function(&mut deny_fn)
        }
        rule => Approve::Person(Rule::parse(rule)),
    };
    let mut guard = Guard {
        body: record.body(),
        key: &key,
        approve,
    };
    let turn = flags.get("turn").and_then(|t| t.parse().ok());
    match command {
        "start" => {
            store.open_conversation("gardener", &conversation, &key)?;
            let run = store.start_turn(
                &mut guard,
                &conversation,
                flag(flags, "input"),
                &mut gardener.program(),
            )?;
            println!("{}", serde_json::to_string(&run).unwrap_or_default());
        }
        "resume" => {
            let run =
                store.resume_turn(&mut guard, &conversation, turn, &mut gardener.program())?;
            println!("{}", serde_json::to_string(&run).unwrap_or_default());
        }
        "approve" => {
            let answered = store.approve(&conversation, turn, None, flag(flags, "by"))?;
            println!("{}", serde_json::to_string(&answered).unwrap_or_default());
            if matches!(answered, Answered::Recorded(_)) {
                let run =
                    store.resume_turn(&mut guard, &conversation, turn, &mut gardener.program())?;
                println!("{}", serde_json::to_string(&run).unwrap_or_default());
            }
        }
        "worker" => worker(&mut store, &mut guard, &gardener, flags)?,
        "answerer" => {
            answer_others(&mut store, &mut guard, &gardener, "answerer", "");
        }
        other => panic!("unknown command `{other}`"),
    }
    Ok(())
}

/// Starts `--turns` turns, each in a conversation of its own (`w<ID>-<i>`), and answers and
/// resumes the turns of the other workers as it goes and after.
fn worker(
    store: &mut Store,
    guard: &mut Guard<'_>,
    gardener: &Gardener,
    flags: &HashMap<String, String>,
) -> Result<(), stalwart_host::HostError> {
    let id = flag(flags, "id");
    let turns: usize = flag(flags, "turns").parse().unwrap_or(1);
    let started = gardener.logs.join("started.log");
    let mine = format!("w{id}-");
    let key = guard.key;
    for i in 0..turns {
        let conversation = format!("w{id}-{i}");
        // A start that failed (the server restarting under it, a commit whose fate is unknown)
        // is tried again once the store answers, until the conversation has its turn: a host
        // that was not told its turn started starts it again.
        for attempt in 0..100 {
            let exists = match store.conversation(&conversation) {
                Ok(c) => c.is_some_and(|c| c.head.entries > 0),
                Err(e) => {
                    eprintln!("worker {id}: {conversation}: {}", e.message);
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    continue;
                }
            };
            if exists {
                break;
            }
            let r = store
                .open_conversation("gardener", &conversation, key)
                .and_then(|_| {
                    store.start_turn(
                        guard,
                        &conversation,
                        &format!("Note {conversation}"),
                        &mut gardener.program(),
                    )
                });
            match r {
                Ok(_) => {
                    log_line(&started, &conversation);
                    break;
                }
                Err(e) => {
                    eprintln!("worker {id}: {conversation} (try {attempt}): {}", e.message);
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            }
        }
        answer_others(store, guard, gardener, &format!("worker{id}"), &mine);
    }
    answer_others(store, guard, gardener, &format!("worker{id}"), &mine);
    Ok(())
}

/// Approves the waiting turns of others (not those whose conversation starts with `mine`), and
/// goes on with every turn that is ready, here.
fn answer_others(
    store: &mut Store,
    guard: &mut Guard<'_>,
    gardener: &Gardener,
    by: &str,
    mine: &str,
) {
    let filter = TurnFilter {
        state: Some(TurnState::Waiting),
        ..TurnFilter::default()
    };
    let waiting = store.turns(&filter).unwrap_or_default();
    for t in waiting {
        if !mine.is_empty() && t.conversation.starts_with(mine) {
            continue;
        }
        if let Ok(Answered::Recorded(_)) = store.approve(&t.conversation, Some(t.number), None, by)
        {
            let _ = store.resume_turn(
                guard,
                &t.conversation,
                Some(t.number),
                &mut gardener.program(),
            );
        }
    }
    for (conversation, number) in store.ready_turns().unwrap_or_default() {
        let _ = store.resume_turn(guard, &conversation, Some(number), &mut gardener.program());
    }
}
