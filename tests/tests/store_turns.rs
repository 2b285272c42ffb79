//! The examples of spec/tools-that-ask-first.txt, on SQLite and on PostgreSQL, each across real
//! processes: the test host (`store-host`, the gardener) runs turns, `stalwart turns` answers
//! from a terminal, and a process is killed with SIGKILL while a tool runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stalwart_tests::store_fixture::Fixture;
use stalwart_tests::{stderr, stdout};

const MERGE: &str = "Merge groceries.md into todo.md.";

fn start(f: &Fixture, input: &str, more: &[&str]) -> Value {
    let mut args = vec!["--conversation", "notes", "--input", input];
    args.extend_from_slice(more);
    f.host("start", &args).remove(0)
}

fn resume(f: &Fixture) -> Value {
    f.host("resume", &["--conversation", "notes"]).remove(0)
}

#[test]
fn the_gardeners_write_waits_is_approved_by_one_process_and_finished_by_another() {
    for f in Fixture::each("gardener_approved") {
        // Process 1 runs the turn: two reads, then the write waits for a person.
        let run = start(&f, MERGE, &[]);
        assert_eq!(run["end"]["state"], "waiting", "{run}");
        let approval = &run["end"]["approvals"][0];
        assert_eq!(approval["tool"], "write_note");
        assert_eq!(approval["path"], "gardener/write_note");
        assert_eq!(approval["invocation"], 3);
        assert_eq!(approval["effects"], "changes");
        assert_eq!(
            approval["arguments"],
            json!({"name": "todo.md", "text": "call mum\nmilk\n"})
        );
        assert_eq!(
            approval["origins"],
            json!({"name": "model", "text": "model"})
        );
        assert_eq!(
            approval["question"],
            "Run `write_note` with name = \"todo.md\" (written by the model), text = \"call \
             mum\\nmilk\\n\" (written by the model)? Some values were not typed by the person: \
             check them."
        );
        assert_eq!(
            f.log("tools.log"),
            ["read_note notes 1 1", "read_note notes 1 2"]
        );
        assert_eq!(f.note("todo.md"), "call mum\n");

        // A person looks from a terminal.
        let listed = f.turns("list", &[]);
        assert_eq!(
            stdout(&listed),
            "notes #1 waiting (gardener): Merge groceries.md into todo.md. — waits for \
             write_note #3\n"
        );
        let shown = f.show("notes");
        assert_eq!(shown["state"], "waiting");
        assert_eq!(shown["waiting"][0]["invocation"], 3);

        // Process 2 approves.
        let approved = f.turns("approve", &["notes", "--by", "ana"]);
        assert_eq!(approved.status.code(), Some(0), "{}", stderr(&approved));
        assert_eq!(
            stdout(&approved),
            "Approved write_note #3 of turn 1 of `notes` (by ana). The turn goes on when its \
             host resumes it.\n"
        );

        // Process 3 goes on: the two model replies and the reads come from the journal.
        let run = resume(&f);
        assert_eq!(
            run["end"],
            json!({"state": "done", "answer": "Merged groceries.md into todo.md."})
        );
        assert_eq!(run["writer"], 2);
        assert_eq!(f.note("todo.md"), "call mum\nmilk\n");
        assert_eq!(
            f.log("tools.log"),
            [
                "read_note notes 1 1",
                "read_note notes 1 2",
                "write_note notes 1 3"
            ]
        );
        // Each model request paid once: the resumed run paid only for the last one.
        assert_eq!(f.log("model.log"), ["request 0", "request 2", "request 3"]);
        let shown = f.show("notes");
        assert_eq!(shown["state"], "done");
        assert_eq!(shown["approvals"][0]["state"], "approved");
        assert_eq!(shown["approvals"][0]["answered_by"], "ana");
        let writers: Vec<(String, u64, u64)> = shown["journal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["kind"].as_str().unwrap().to_string(),
                    r["number"].as_u64().unwrap(),
                    r["writer"].as_u64().unwrap(),
                )
            })
            .collect();
        for expected in [
            ("model".to_string(), 1, 1),
            ("model".to_string(), 2, 1),
            ("model".to_string(), 3, 2),
            ("tool".to_string(), 1, 1),
            ("tool".to_string(), 2, 1),
            ("tool".to_string(), 3, 2),
        ] {
            assert!(writers.contains(&expected), "{expected:?} in {writers:?}");
        }
        assert!(f.every_history_verifies());

        // A second answer now is told who answered.
        let late = f.turns("deny", &["notes", "--by", "bob", "--reason", "too late"]);
        assert_eq!(late.status.code(), Some(1));
        assert!(
            stdout(&late)
                .starts_with("Already answered: write_note #3 of turn 1 was approved by ana at "),
            "{}",
            stdout(&late)
        );
    }
}

#[test]
fn a_denial_with_a_reason_is_what_the_model_reads() {
    for f in Fixture::each("gardener_denied") {
        assert_eq!(start(&f, MERGE, &[])["end"]["state"], "waiting");
        let denied = f.turns("deny", &["notes", "--by", "ana", "--reason", "not today"]);
        assert_eq!(denied.status.code(), Some(0), "{}", stderr(&denied));
        assert_eq!(
            stdout(&denied),
            "Denied write_note #3 of turn 1 of `notes` (by ana: not today). The turn goes on \
             when its host resumes it.\n"
        );
        let run = resume(&f);
        assert_eq!(
            run["end"]["answer"],
            "I left todo.md as it was: The person did not allow this call. not today"
        );
        assert_eq!(f.note("todo.md"), "call mum\n");
        assert!(
            !f.log("tools.log")
                .iter()
                .any(|l| l.starts_with("write_note"))
        );
        let shown = f.show("notes");
        assert_eq!(shown["approvals"][0]["state"], "denied");
        assert_eq!(shown["approvals"][0]["why"], "not today");
        let write = shown["journal"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "write_note")
            .cloned()
            .unwrap();
        assert_eq!(write["outcome"], "denied");
        assert_eq!(
            write["result"],
            "The person did not allow this call. not today"
        );
    }
}

#[test]
fn a_host_function_answers_at_once_and_its_reason_reaches_the_model() {
    for f in Fixture::each("gardener_function") {
        let run = start(&f, MERGE, &["--approve", "deny:only todo.md"]);
        assert_eq!(
            run["end"],
            json!({"state": "done", "answer": "I left todo.md as it was: The person did not allow this call. only todo.md"})
        );
        let run = f.host(
            "start",
            &[
                "--conversation",
                "notes2",
                "--input",
                MERGE,
                "--approve",
                "yes",
            ],
        );
        assert_eq!(run[0]["end"]["answer"], "Merged groceries.md into todo.md.");
        let shown = f.show("notes2");
        assert_eq!(shown["approvals"][0]["answered_by"], "host");
        assert_eq!(shown["approvals"][0]["state"], "approved");
    }
}

#[test]
fn with_nobody_to_ask_the_call_fails_with_approval_required_before_the_tool_runs() {
    for f in Fixture::each("gardener_nobody") {
        let run = start(&f, MERGE, &["--approve", "nobody"]);
        assert_eq!(
            run["end"],
            json!({"state": "abandoned", "why": "approval_required: Approval(gardener/write_note #3, changes)"})
        );
        assert!(
            !f.log("tools.log")
                .iter()
                .any(|l| l.starts_with("write_note"))
        );
        assert_eq!(f.show("notes")["state"], "abandoned");
    }
}

#[test]
fn of_two_answers_at_once_exactly_one_wins_and_the_other_is_told_by_whom() {
    for f in Fixture::each("gardener_race") {
        assert_eq!(start(&f, MERGE, &[])["end"]["state"], "waiting");
        let store = f.url.clone();
        let dir = f.dir.path().to_path_buf();
        let answer = |sub: &'static str, by: &'static str| {
            let store = store.clone();
            let dir = dir.clone();
            std::thread::spawn(move || {
                stalwart_tests::run(
                    &dir,
                    &["turns", sub, "--store", &store, "notes", "--by", by],
                )
            })
        };
        let a = answer("approve", "ana");
        let b = answer("deny", "bob");
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        let codes = [a.status.code(), b.status.code()];
        assert!(
            codes == [Some(0), Some(1)] || codes == [Some(1), Some(0)],
            "{codes:?}: {} / {}",
            stderr(&a),
            stderr(&b)
        );
        let (winner, loser, who, state) = if codes[0] == Some(0) {
            (&a, &b, "ana", "approved")
        } else {
            (&b, &a, "bob", "denied")
        };
        assert!(
            stdout(winner).contains(&format!("(by {who}")),
            "{}",
            stdout(winner)
        );
        assert!(
            stdout(loser).starts_with(&format!(
                "Already answered: write_note #3 of turn 1 was {state} by {who} at "
            )),
            "{}",
            stdout(loser)
        );
        let shown = f.show("notes");
        assert_eq!(shown["approvals"][0]["answered_by"], who);
    }
}

/// Starts `Send the summary to ana.` with `send_email` told to hang once it has run, and kills
/// the process with SIGKILL while it hangs: between `started` and `done`.
fn crash_while_sending(f: &Fixture) {
    let mut child = f
        .host_command(
            "start",
            &[
                "--conversation",
                "notes",
                "--input",
                "Send the summary to ana.",
                "--approve",
                "yes",
                "--hang",
                "send_email",
            ],
        )
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marker = f.logs().join("hanging");
    let since = Instant::now();
    while !marker.exists() {
        assert!(
            since.elapsed() < Duration::from_secs(120),
            "the host never reached send_email"
        );
        assert!(child.try_wait().unwrap().is_none(), "the host ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_file(marker).unwrap();
    assert_eq!(f.log("tools.log"), ["send_email notes 1 1"]);
}

#[test]
fn a_crash_between_started_and_done_leaves_the_call_unfinished_never_rerun_resumable_with_a_result()
{
    for f in Fixture::each("crash_result") {
        crash_while_sending(&f);
        let shown = f.show("notes");
        assert_eq!(shown["state"], "interrupted");
        assert_eq!(
            shown["unfinished"],
            json!([{"invocation": 1, "name": "send_email", "input": {"to": "ana", "text": "the summary"}, "resolution": null}])
        );
        let listed = f.turns("list", &["--state", "interrupted"]);
        assert_eq!(
            stdout(&listed),
            "notes #1 interrupted (gardener): Send the summary to ana. — unfinished #1\n"
        );
        // Resumed on its own, it does not run the call again: it stays interrupted.
        let run = resume(&f);
        assert_eq!(run["end"]["state"], "interrupted");
        assert_eq!(run["end"]["unfinished"][0]["invocation"], 1);
        assert_eq!(f.log("tools.log"), ["send_email notes 1 1"]);
        // A person says what it returned; the turn goes on without running it again.
        let said = f.turns("resume", &["notes", "--result", "1=sent", "--by", "ana"]);
        assert_eq!(said.status.code(), Some(0), "{}", stderr(&said));
        assert_eq!(
            stdout(&said),
            "Recorded for turn 1 of `notes` (by ana): call 1 returned sent. The turn goes on \
             when its host resumes it.\n"
        );
        let run = resume(&f);
        assert_eq!(
            run["end"],
            json!({"state": "done", "answer": "Sent the summary: sent"})
        );
        assert_eq!(f.log("tools.log"), ["send_email notes 1 1"]);
        assert_eq!(f.log("model.log"), ["request 0", "request 1"]);
        assert!(f.every_history_verifies());
    }
}

#[test]
fn a_crash_between_started_and_done_is_run_again_only_when_a_person_asks() {
    for f in Fixture::each("crash_rerun") {
        crash_while_sending(&f);
        let said = f.turns("resume", &["notes", "--rerun", "1", "--by", "ana"]);
        assert_eq!(said.status.code(), Some(0), "{}", stderr(&said));
        let run = resume(&f);
        assert_eq!(
            run["end"],
            json!({"state": "done", "answer": "Sent the summary: sent"})
        );
        assert_eq!(
            f.log("tools.log"),
            ["send_email notes 1 1", "send_email notes 1 1"]
        );
        // The model's first reply was paid for once, before the crash.
        assert_eq!(f.log("model.log"), ["request 0", "request 1"]);
        assert!(f.every_history_verifies());
    }
}

#[test]
fn an_interrupted_turn_can_be_abandoned_and_a_new_turn_starts_after_it() {
    for f in Fixture::each("crash_abandon") {
        crash_while_sending(&f);
        let wrong = f.turns("resume", &["notes", "--result", "2=sent", "--by", "ana"]);
        assert_eq!(wrong.status.code(), Some(2));
        assert!(
            stderr(&wrong).contains("call 2 of turn 1 is not unfinished (unfinished: 1)"),
            "{}",
            stderr(&wrong)
        );
        let gone = f.turns(
            "abandon",
            &["notes", "--by", "ana", "--reason", "sent by hand"],
        );
        assert_eq!(gone.status.code(), Some(0), "{}", stderr(&gone));
        assert_eq!(
            stdout(&gone),
            "Abandoned turn 1 of `notes` (by ana: sent by hand).\n"
        );
        assert_eq!(f.show("notes")["state"], "abandoned");
        let run = start(&f, MERGE, &[]);
        assert_eq!(run["turn"], 2);
        assert_eq!(run["end"]["state"], "waiting");
        assert_eq!(f.log("tools.log").len(), 3);
    }
}

#[test]
fn a_new_turn_waits_until_the_last_one_has_ended() {
    for f in Fixture::each("turn_order") {
        assert_eq!(start(&f, MERGE, &[])["end"]["state"], "waiting");
        let out = f
            .host_command(
                "start",
                &[
                    "--conversation",
                    "notes",
                    "--input",
                    "Send the summary to ana.",
                ],
            )
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            stderr(&out),
            "error[E0046]: turn 1 of `notes` is waiting: answer it, resume it or abandon it \
             before a new turn starts\n"
        );
    }
}
