//! The gardener of spec/tools-that-ask-first.txt as a host of `stalwart-store`: a record with
//! `read_note` (reads), `write_note` (changes) and `send_email` (changes, sends out), a scripted
//! model that counts the requests it is paid for, and tools that log every run — so tests can
//! tell what was paid and what ran, across processes and crashes.
//!
//! The model is a function of its request (the input and the results so far), as a resumed
//! program needs: the same request always gets the same reply. Its script, by the input:
//! - `Merge A into B.`: read both notes, write B with both texts, then answer (with the write's
//!   result when it did not run);
//! - `Send …`: call `send_email`, then answer with its result;
//! - `Note N`: read `N.md`, write it, then answer.
//!
//! Files in the log folder: `model.log` (a line per request paid), `tools.log` (a line per tool
//! run: tool, conversation, turn, invocation), `notes/` (the notes), `hanging` (made when a
//! tool told to hang has run and hangs, so a test knows when to kill the process).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use stalwart_runtime::Call;
use stalwart_store::{ReplyKind, Stop, Turn};

/// The gardener's agent description.
pub const AGENT_YAML: &str = r#"
agents:
  gardener:
    tools: [read_note, write_note, send_email]
tools:
  - name: read_note
    description: The text of one note.
    effects: reads
    arguments: {type: object, properties: {name: {type: string}}}
  - name: write_note
    description: Replace a note's text.
    effects: changes
    arguments: {type: object, properties: {name: {type: string}, text: {type: string}}}
  - name: send_email
    description: Send a text to a person.
    effects: changes
    sends_out: true
    arguments: {type: object, properties: {to: {type: string}, text: {type: string}}}
"#;

/// The test licence.
pub const LICENCE: &str =
    r#"{"id":"test","key":"KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio","expires":"2099-01-01"}"#;

/// Compiles the gardener into `dir/rec` with the test licence beside it; answers the folder.
pub fn compile(dir: &Path) -> PathBuf {
    let src = dir.join("gardener-src");
    std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(src.join("agent.yaml"), AGENT_YAML).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("rec");
    let outcome = stalwart_driver::compile_agent(
        std::sync::Arc::new(stalwart_driver::DiskLoader),
        &src.join("agent.yaml"),
        &stalwart_driver::CompileOptions {
            out: Some(out.clone()),
        },
    );
    assert!(
        outcome.written.is_some() && !outcome.has_errors(),
        "the gardener does not compile: {:?}",
        outcome.fatal
    );
    std::fs::write(out.join("licence.json"), LICENCE).unwrap_or_else(|e| panic!("{e}"));
    out
}

/// Appends a line to a log file (one `write` call: lines of several processes do not mix).
pub fn log_line(path: &Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let _ = file.write_all(format!("{line}\n").as_bytes());
}

/// The lines of a log file (none when it does not exist).
pub fn log_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The scripted model's reply to a request.
pub fn model_reply(request: &Value) -> Value {
    let input = request["input"].as_str().unwrap_or_default();
    let results = request["results"].as_array().cloned().unwrap_or_default();
    let text = |i: usize| {
        results
            .get(i)
            .and_then(|r| r["text"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let call = |tool: &str, args: Value| json!({"calls": [{"tool": tool, "arguments": args}]});
    if let Some(rest) = input.strip_prefix("Merge ") {
        let (from, into) = rest
            .trim_end_matches('.')
            .split_once(" into ")
            .unwrap_or(("groceries.md", "todo.md"));
        return match results.len() {
            0 => json!({"calls": [
                {"tool": "read_note", "arguments": {"name": from}},
                {"tool": "read_note", "arguments": {"name": into}},
            ]}),
            2 => call(
                "write_note",
                json!({"name": into, "text": format!("{}{}", text(1), text(0))}),
            ),
            _ => {
                let last = text(2);
                if last == "ok" {
                    json!({"answer": format!("Merged {from} into {into}.")})
                } else {
                    json!({"answer": format!("I left {into} as it was: {last}")})
                }
            }
        };
    }
    if input.starts_with("Send ") {
        return match results.len() {
            0 => call("send_email", json!({"to": "ana", "text": "the summary"})),
            _ => json!({"answer": format!("Sent the summary: {}", text(0))}),
        };
    }
    if let Some(n) = input.strip_prefix("Note ") {
        let name = format!("{n}.md");
        return match results.len() {
            0 => call("read_note", json!({"name": name})),
            1 => call(
                "write_note",
                json!({"name": name, "text": format!("note {n}")}),
            ),
            _ => json!({"answer": format!("Wrote {name}: {}", text(1))}),
        };
    }
    json!({"answer": "I do not know how to do that."})
}

/// The gardener's host: where it logs, and which tool hangs once it has run.
#[derive(Debug, Clone)]
pub struct Gardener {
    pub logs: PathBuf,
    pub hang: Option<String>,
    /// Milliseconds each changing tool takes after it has logged its run (so a process killed
    /// at a random time is often killed between a call's `started` and its `done`).
    pub slow: u64,
}

impl Gardener {
    /// The turn's program: ask the model, run the calls it asks for, until it answers.
    pub fn program(&self) -> impl FnMut(&mut Turn<'_, '_>) -> Result<String, Stop> + '_ {
        move |turn| {
            let mut results: Vec<Value> = Vec::new();
            loop {
                let request = json!({
                    "system": "Tend the notes.",
                    "input": turn.input(),
                    "results": results,
                });
                let model_log = self.logs.join("model.log");
                let reply = turn.model(&request, &mut |r| {
                    log_line(
                        &model_log,
                        &format!("request {}", r["results"].as_array().map_or(0, Vec::len)),
                    );
                    Ok(model_reply(r))
                })?;
                if let Some(answer) = reply["answer"].as_str() {
                    return Ok(answer.to_string());
                }
                for c in reply["calls"].as_array().cloned().unwrap_or_default() {
                    let tool = c["tool"].as_str().unwrap_or_default().to_string();
                    let arguments = c["arguments"].as_object().cloned().unwrap_or_default();
                    let origins = arguments
                        .keys()
                        .map(|k| (k.clone(), "model".to_string()))
                        .collect();
                    let call = Call {
                        tool: tool.clone(),
                        arguments: arguments.into(),
                        origins: std::sync::Arc::new(origins),
                        ..Call::default()
                    };
                    let (conversation, number) = (turn.conversation().to_string(), turn.number());
                    let reply = turn.tool(call, &mut |args, invocation| {
                        self.run_tool(&tool, args, &conversation, number, invocation)
                    })?;
                    let text = match reply.kind {
                        ReplyKind::Ran
                        | ReplyKind::Failed
                        | ReplyKind::Denied
                        | ReplyKind::Refused => reply.text(),
                    };
                    results
                        .push(json!({"tool": tool, "invocation": reply.invocation, "text": text}));
                }
            }
        }
    }

    fn run_tool(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        conversation: &str,
        turn: u64,
        invocation: u32,
    ) -> Result<Value, String> {
        log_line(
            &self.logs.join("tools.log"),
            &format!("{tool} {conversation} {turn} {invocation}"),
        );
        let notes = self.logs.join("notes");
        let name = args
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .replace('/', "_");
        let result = match tool {
            "read_note" => Ok(Value::String(
                std::fs::read_to_string(notes.join(&name)).unwrap_or_default(),
            )),
            "write_note" => {
                let _ = std::fs::create_dir_all(&notes);
                let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
                std::fs::write(notes.join(&name), text)
                    .map(|()| Value::String("ok".into()))
                    .map_err(|e| e.to_string())
            }
            "send_email" => Ok(Value::String("sent".into())),
            other => Err(format!("no tool `{other}`")),
        };
        if self.slow > 0 && tool != "read_note" {
            std::thread::sleep(std::time::Duration::from_millis(self.slow));
        }
        if self.hang.as_deref() == Some(tool) {
            let _ = std::fs::write(self.logs.join("hanging"), tool);
            loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            }
        }
        result
    }
}
