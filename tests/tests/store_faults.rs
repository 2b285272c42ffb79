//! Fault and load: worker processes run the gardener's `Note` turns on one store, each write
//! waiting for an approval that another worker gives (and then goes on with, there); random
//! workers are killed with SIGKILL mid-turn and started again; on PostgreSQL the server is
//! restarted mid-run. Afterwards every turn is done, waiting or interrupted (none lost), no
//! tool ran twice, and every stored history verifies.
//!
//! The size is a smoke size (4 workers × 10 turns); `STALWART_STORE_LOAD=full` runs the full
//! size (32 × 200), whose figures BENCHMARKS.md gives. The one test runs SQLite, then
//! PostgreSQL, in turn: a restart must not cut another test's connections.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use stalwart_store::{TurnFilter, TurnState};
use stalwart_tests::store_fixture::{Backend, Fixture};

/// Workers, turns each, kills.
fn size() -> (usize, usize, usize) {
    match std::env::var("STALWART_STORE_LOAD").as_deref() {
        Ok("full") => (32, 200, 24),
        _ => (4, 10, 3),
    }
}

/// A small deterministic generator (xorshift): which worker dies, and when.
struct Dice(u64);

impl Dice {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below.max(1)
    }
}

fn spawn_worker(f: &Fixture, id: usize, turns: usize) -> Child {
    let err = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(f.logs().join(format!("worker-{id}.err")))
        .unwrap();
    f.host_command(
        "worker",
        &[
            "--id",
            &id.to_string(),
            "--turns",
            &turns.to_string(),
            "--slow",
            "15",
        ],
    )
    .stdout(Stdio::null())
    .stderr(err)
    .spawn()
    .unwrap()
}

fn load(f: &Fixture) {
    let (workers, turns, kills) = size();
    let mut dice = Dice(0x5eed_1234_abcd_0042);
    let since = Instant::now();
    let mut running: Vec<Option<Child>> = (0..workers)
        .map(|id| Some(spawn_worker(f, id, turns)))
        .collect();
    let mut killed = 0;
    let mut respawned = 0;
    let mut restarted = f.backend != Backend::Postgres;
    let deadline = Duration::from_secs(if workers > 8 { 3600 } else { 600 });
    loop {
        assert!(since.elapsed() < deadline, "the workers did not finish");
        std::thread::sleep(Duration::from_millis(50 + dice.next(150)));
        // A worker that failed (it started while the server restarted, say) is started again,
        // as a supervisor would.
        let mut alive = Vec::new();
        for (id, c) in running.iter_mut().enumerate() {
            let status = c.as_mut().and_then(|c| c.try_wait().unwrap());
            match status {
                None if c.is_some() => alive.push(id),
                Some(status) if !status.success() => {
                    respawned += 1;
                    assert!(
                        respawned < 100,
                        "the workers keep failing:\n{}",
                        worker_errors(f)
                    );
                    *c = Some(spawn_worker(f, id, turns));
                    alive.push(id);
                }
                _ => {}
            }
        }
        if alive.is_empty() {
            break;
        }
        if killed < kills {
            let id = alive[dice.next(alive.len() as u64) as usize];
            if let Some(mut child) = running[id].take() {
                child.kill().unwrap();
                child.wait().unwrap();
            }
            killed += 1;
            running[id] = Some(spawn_worker(f, id, turns));
        } else if !restarted {
            stalwart_tests::postgres::restart();
            restarted = true;
        }
    }
    // Whatever still waits is answered, and whatever is ready goes on, by one more process.
    for _ in 0..3 {
        let out = f.host_command("answerer", &[]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            stalwart_tests::stderr(&out)
        );
    }
    let elapsed = since.elapsed();

    let mut store = f.store();
    let all = store.turns(&TurnFilter::default()).unwrap();
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &all {
        *states.entry(t.state.as_str()).or_default() += 1;
        assert!(
            matches!(
                t.state,
                TurnState::Done | TurnState::Waiting | TurnState::Interrupted
            ),
            "turn {} of {} is {}",
            t.number,
            t.conversation,
            t.state.as_str()
        );
    }
    // None lost: every conversation a worker meant to run has its turn.
    let conversations: BTreeSet<String> = all.iter().map(|t| t.conversation.clone()).collect();
    for id in 0..workers {
        for i in 0..turns {
            let c = format!("w{id}-{i}");
            assert!(
                conversations.contains(&c),
                "no turn for {c}; the workers said:\n{}",
                worker_errors(f)
            );
        }
    }
    assert_eq!(all.len(), workers * turns);
    for c in f.log("started.log") {
        assert!(conversations.contains(&c), "{c} was started and is lost");
    }
    // No tool ran twice.
    let writes: Vec<String> = f
        .log("tools.log")
        .into_iter()
        .filter(|l| l.starts_with("write_note"))
        .collect();
    let unique: BTreeSet<&String> = writes.iter().collect();
    assert_eq!(unique.len(), writes.len(), "a write ran twice");
    // Each done turn wrote its note once; an interrupted one at most once.
    let done = states.get("done").copied().unwrap_or(0);
    assert!(
        writes.len() >= done,
        "{} writes for {done} done turns",
        writes.len()
    );
    assert!(f.every_history_verifies());
    eprintln!(
        "{:?}: {workers} workers × {turns} turns, {killed} killed{}: {states:?}, {} writes, {:.1} s",
        f.backend,
        if f.backend == Backend::Postgres {
            ", server restarted"
        } else {
            ""
        },
        writes.len(),
        elapsed.as_secs_f64()
    );
}

/// What the workers printed on stderr.
fn worker_errors(f: &Fixture) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(f.logs()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "err") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
    out
}

#[test]
fn turns_survive_killed_workers_and_a_restarted_server_none_lost_none_run_twice() {
    for f in Fixture::each("faults") {
        load(&f);
    }
}
