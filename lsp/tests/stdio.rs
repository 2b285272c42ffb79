//! The server binary over standard input and output, as an editor runs it: the diagnostics
//! `stalwart compile` gives, cleared by an edit, navigation across files; and bad input of every
//! kind (frames that are not JSON, unknown methods, positions past the end, binary and 50 MB
//! buffers, a panicking request) answered without ending the session.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use crossbeam_channel::Receiver;
use serde_json::{Value, json};
use support::{range_of, uri, workspace};

const DEADLINE: Duration = Duration::from_secs(60);

/// A client on the binary's pipes.
struct Pipe {
    child: Child,
    stdin: ChildStdin,
    from_server: Receiver<Value>,
    next_id: i64,
    /// Notifications read while waiting for an answer.
    pending: Vec<Value>,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl Pipe {
    fn start() -> Self {
        let (dir, root) = workspace();
        let mut child = Command::new(env!("CARGO_BIN_EXE_stalwart-lsp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, from_server) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            let mut input = BufReader::new(stdout);
            while let Some(body) = read_frame(&mut input) {
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut pipe = Self {
            child,
            stdin,
            from_server,
            next_id: 0,
            pending: Vec::new(),
            root,
            _dir: dir,
        };
        let init = pipe.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(&pipe.root), "capabilities": {}}),
        );
        assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
        pipe.notify("initialized", json!({}));
        pipe
    }

    fn uri(&self, name: &str) -> String {
        uri(&self.root.join(name))
    }

    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.root.join(name)).unwrap()
    }

    fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn open(&mut self, name: &str, text: &str) {
        let params = json!({"textDocument": {
            "uri": self.uri(name), "languageId": "plaintext", "version": 1, "text": text,
        }});
        self.notify("textDocument/didOpen", params);
    }

    /// Sends a request; its whole answer (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(&json!(id))
    }

    fn answer(&mut self, id: &Value) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() && m["id"] == *id {
                return m;
            }
            if m.get("method").is_some() {
                self.pending.push(m);
            }
        }
    }

    /// The next answer (notifications on the way are kept).
    fn next_answer(&mut self) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() {
                return m;
            }
            self.pending.push(m);
        }
    }

    fn next(&mut self) -> Value {
        self.from_server
            .recv_timeout(DEADLINE)
            .expect("the server answers in time")
    }

    /// The next diagnostics published for `name` that `accept` takes.
    fn diagnostics_until(&mut self, name: &str, accept: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = self.uri(name);
        loop {
            let m = if self.pending.is_empty() {
                self.next()
            } else {
                self.pending.remove(0)
            };
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                let list = m["params"]["diagnostics"].as_array().cloned().unwrap();
                if accept(&list) {
                    return list;
                }
            }
        }
    }

    fn at(&self, name: &str, line: u32, character: u32) -> Value {
        json!({
            "textDocument": {"uri": self.uri(name)},
            "position": {"line": line, "character": character},
        })
    }

    /// `shutdown`, `exit`, and the process's exit code.
    fn stop(mut self) -> i32 {
        let answer = self.request("shutdown", Value::Null);
        assert_eq!(answer["result"], Value::Null);
        self.notify("exit", Value::Null);
        wait(&mut self.child)
    }
}

fn wait(child: &mut Child) -> i32 {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        assert!(start.elapsed() < DEADLINE, "the server does not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_frame(input: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse().ok();
        }
    }
    let mut body = vec![0; length?];
    std::io::Read::read_exact(input, &mut body).ok()?;
    Some(body)
}

fn codes_and_ranges(list: &[Value]) -> Vec<(String, (u64, u64, u64, u64))> {
    list.iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                range_of(&d["range"]),
            )
        })
        .collect()
}

fn file_and_range(location: &Value) -> (String, (u64, u64, u64, u64)) {
    let uri = location["uri"].as_str().unwrap();
    (
        uri.rsplit('/').next().unwrap().to_string(),
        range_of(&location["range"]),
    )
}

#[test]
fn over_stdio_diagnostics_clear_as_you_type_and_navigation_crosses_files() {
    let mut s = Pipe::start();
    let agent = s.text("agent.yaml");
    let policy = s.text("policy.co");
    s.open("agent.yaml", &agent);
    s.open("policy.co", &policy);
    // What `stalwart compile agent.yaml` prints: E1605 at policy.co:8:13-23.
    let list = s.diagnostics_until("policy.co", |l| !l.is_empty());
    assert_eq!(
        codes_and_ranges(&list),
        [("E1605".to_string(), (7, 12, 7, 22))]
    );
    assert_eq!(
        list[0]["message"],
        "tool `refund_crd` is not in the catalogue: no such tool"
    );
    assert_eq!(list[0]["data"]["slug"], "unknown-tool");
    // The edit that fixes it, as one range.
    s.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": s.uri("policy.co"), "version": 2},
            "contentChanges": [{
                "range": {"start": {"line": 7, "character": 12}, "end": {"line": 7, "character": 22}},
                "text": "refund_card",
            }],
        }),
    );
    let cleared = s.diagnostics_until("policy.co", <[Value]>::is_empty);
    assert!(cleared.is_empty());
    // `execute refund_card` → the catalogue's `name: refund_card`.
    let def = s.request("textDocument/definition", s.at("policy.co", 7, 15));
    assert_eq!(
        file_and_range(&def["result"][0]),
        ("tools.yaml".to_string(), (9, 10, 9, 21))
    );
    // agent.yaml's `tools: [get_order, …]` → the catalogue.
    let def = s.request("textDocument/definition", s.at("agent.yaml", 4, 14));
    assert_eq!(
        file_and_range(&def["result"][0]),
        ("tools.yaml".to_string(), (1, 10, 1, 19))
    );
    let mut params = s.at("policy.co", 7, 15);
    params["context"] = json!({"includeDeclaration": true});
    let refs = s.request("textDocument/references", params);
    let places: Vec<_> = refs["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(file_and_range)
        .collect();
    assert_eq!(
        places,
        [
            ("agent.yaml".to_string(), (4, 23, 4, 34)),
            ("policy.co".to_string(), (7, 12, 7, 23)),
            ("tools.yaml".to_string(), (9, 10, 9, 21)),
        ]
    );
    let hover = s.request("textDocument/hover", s.at("policy.co", 7, 15));
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**tool** `refund_card`: changes\n"),
        "{hover}"
    );
    assert_eq!(s.stop(), 0);
}

#[test]
fn bad_frames_and_unknown_methods_are_answered_and_the_session_goes_on() {
    let mut s = Pipe::start();
    s.send_raw(b"{not json");
    let answer = s.next_answer();
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(answer["error"]["code"], -32700);
    s.stdin
        .write_all(b"Content-Type: text/plain\r\n\r\n")
        .unwrap();
    s.stdin.flush().unwrap();
    let answer = s.next_answer();
    assert_eq!(answer["error"]["code"], -32700);
    assert_eq!(
        answer["error"]["message"],
        "a frame without a valid Content-Length header"
    );
    s.send_raw(br#"{"jsonrpc": "2.0", "id": 77, "method": 4}"#);
    let answer = s.next_answer();
    assert_eq!(answer["id"], 77);
    assert_eq!(answer["error"]["code"], -32600);
    let answer = s.request("textDocument/notAMethod", json!({}));
    assert_eq!(answer["error"]["code"], -32601);
    assert_eq!(
        answer["error"]["message"],
        "the server does not answer `textDocument/notAMethod`"
    );
    let answer = s.request("textDocument/hover", json!({"textDocument": 5}));
    assert_eq!(answer["error"]["code"], -32602);
    // Still serving.
    let policy = s.text("policy.co");
    s.open("policy.co", &policy);
    let list = s.diagnostics_until("policy.co", |l| !l.is_empty());
    assert_eq!(list[0]["code"], "E1605");
    assert_eq!(s.stop(), 0);
}

#[test]
fn positions_past_the_end_are_clamped() {
    let mut s = Pipe::start();
    let policy = s.text("policy.co");
    s.open("policy.co", &policy);
    s.diagnostics_until("policy.co", |l| !l.is_empty());
    // Past the end of line 7 (`    execute refund_crd`): the end of that line, on the name.
    let past = s.request("textDocument/hover", s.at("policy.co", 7, 4000));
    let end = s.request("textDocument/hover", s.at("policy.co", 7, 22));
    assert_eq!(past["result"], end["result"]);
    assert_eq!(range_of(&past["result"]["range"]), (7, 12, 7, 22), "{past}");
    // Past the end of the file.
    for method in [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/completion",
    ] {
        let answer = s.request(method, s.at("policy.co", 9_999, 9_999));
        assert!(answer.get("error").is_none(), "{method}: {answer}");
    }
    // An edit whose range lies past the end appends at the end.
    s.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": s.uri("policy.co"), "version": 2},
            "contentChanges": [{
                "range": {"start": {"line": 500, "character": 3}, "end": {"line": 900, "character": 0}},
                "text": "\ndefine flow late\n  execute refund_crdd\n",
            }],
        }),
    );
    let list = s.diagnostics_until("policy.co", |l| l.len() == 2);
    assert_eq!(
        codes_and_ranges(&list),
        [
            ("E1605".to_string(), (7, 12, 7, 22)),
            ("E1605".to_string(), (12, 10, 12, 21)),
        ]
    );
    assert_eq!(s.stop(), 0);
}

#[test]
fn binary_and_50_mb_buffers_are_held_not_analysed_and_never_stop_the_server() {
    let mut s = Pipe::start();
    s.open("blob.co", "define flow x\n\0\0\u{1}binary\0\n");
    let big = "define flow big\n  bot refuse\n".repeat(50 * 1024 * 1024 / 30);
    assert!(big.len() >= 50 * 1000 * 1000);
    s.open("big.co", &big);
    let policy = s.text("policy.co");
    s.open("policy.co", &policy);
    let list = s.diagnostics_until("policy.co", |l| !l.is_empty());
    assert_eq!(list[0]["code"], "E1605");
    let hover = s.request("textDocument/hover", s.at("big.co", 1_000_000, 4));
    // Held, not analysed: nothing to say about it.
    assert_eq!(hover["result"], Value::Null, "{hover}");
    let symbols = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": s.uri("blob.co")}}),
    );
    // A buffer with NUL bytes is text to the editor: what parses of it is read.
    let names: Vec<(&str, &str)> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("x", "flow")]);
    assert_eq!(s.stop(), 0);
}

#[test]
fn a_panicking_request_is_answered_with_an_error_and_the_server_goes_on() {
    let mut s = Pipe::start();
    let answer = s.request("stalwart/panic", Value::Null);
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(
        answer["error"]["message"],
        "internal error in `stalwart/panic`: a request that panics on purpose"
    );
    let policy = s.text("policy.co");
    s.open("policy.co", &policy);
    let list = s.diagnostics_until("policy.co", |l| !l.is_empty());
    assert_eq!(list[0]["code"], "E1605");
    let def = s.request("textDocument/definition", s.at("policy.co", 5, 8));
    assert_eq!(
        file_and_range(&def["result"][0]),
        ("policy.co".to_string(), (0, 12, 0, 22))
    );
    assert_eq!(s.stop(), 0);
}

#[test]
fn exit_without_shutdown_ends_with_code_1() {
    let mut s = Pipe::start();
    s.notify("exit", Value::Null);
    assert_eq!(wait(&mut s.child), 1);
}
