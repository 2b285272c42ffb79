//! An LSP client for tests: the server runs in-process on channels, the client sends requests
//! and notifications and waits for answers and published diagnostics (with a generous deadline,
//! so a broken server fails the test instead of hanging it).

#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

/// How long the client waits for one message before it fails the test.
const DEADLINE: Duration = Duration::from_secs(60);

pub struct Client {
    to_server: Sender<Message>,
    from_server: Receiver<Message>,
    server: Option<JoinHandle<bool>>,
    next_id: i32,
    /// Notifications read while waiting for something else.
    pending: VecDeque<Notification>,
    pub root: PathBuf,
    _dir: Option<tempfile::TempDir>,
}

/// The test workspace (`tests/lsp/workspace`), copied into a fresh folder.
pub fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lsp/workspace");
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

pub fn uri(path: &Path) -> String {
    stalwart_lsp::uri::from_path(path).as_str().to_string()
}

impl Client {
    /// Starts a server on the test workspace and initializes it (`utf8`: the client offers
    /// UTF-8 positions).
    pub fn start(utf8: bool) -> Self {
        let (dir, root) = workspace();
        Self::start_in(root, Some(dir), utf8)
    }

    pub fn start_in(root: PathBuf, dir: Option<tempfile::TempDir>, utf8: bool) -> Self {
        Self::start_queued(root, dir, utf8, |_| Vec::new())
    }

    /// Starts a server whose input already holds `initialize`, `initialized` and the messages
    /// `queued` makes (given the workspace's root) when its main loop first reads: they reach
    /// it as one batch, as a client's burst of messages does.
    pub fn start_queued(
        root: PathBuf,
        dir: Option<tempfile::TempDir>,
        utf8: bool,
        queued: impl FnOnce(&Path) -> Vec<Message>,
    ) -> Self {
        let (to_server, server_rx) = crossbeam_channel::unbounded();
        let (server_tx, from_server) = crossbeam_channel::unbounded();
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        let init_id = RequestId::from(0);
        to_server
            .send(Message::Request(Request::new(
                init_id.clone(),
                "initialize".to_string(),
                json!({
                    "processId": null,
                    "rootUri": uri(&root),
                    "capabilities": {"general": {"positionEncodings": encodings}},
                }),
            )))
            .unwrap();
        to_server
            .send(Message::Notification(Notification::new(
                "initialized".to_string(),
                json!({}),
            )))
            .unwrap();
        for m in queued(&root) {
            to_server.send(m).unwrap();
        }
        let server = std::thread::spawn(move || stalwart_lsp::run(&server_rx, server_tx));
        let mut client = Self {
            to_server,
            from_server,
            server: Some(server),
            next_id: 0,
            pending: VecDeque::new(),
            root,
            _dir: dir,
        };
        let init = client.response(&init_id);
        let init = init.response_result.expect("initialize succeeds");
        assert!(init.get("capabilities").is_some(), "{init}");
        client
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    pub fn uri(&self, name: &str) -> String {
        uri(&self.path(name))
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.to_server
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .unwrap();
    }

    /// Sends a request and returns its id, without waiting.
    pub fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.to_server
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .unwrap();
        id
    }

    /// The answer to a request sent earlier.
    pub fn response(&mut self, id: &RequestId) -> Response {
        loop {
            match self.next_message() {
                Message::Response(r) if &r.id == id => return r,
                Message::Notification(n) => self.pending.push_back(n),
                _ => {}
            }
        }
    }

    /// Sends a request and returns its result (failing on an error answer).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        match self.response(&id).response_result {
            Ok(v) => v,
            Err(e) => panic!("`{method}` failed: {} {}", e.code, e.message),
        }
    }

    fn next_message(&mut self) -> Message {
        self.from_server
            .recv_timeout(DEADLINE)
            .expect("the server answers")
    }

    fn next_notification(&mut self) -> Notification {
        if let Some(n) = self.pending.pop_front() {
            return n;
        }
        loop {
            match self.next_message() {
                Message::Notification(n) => return n,
                Message::Request(_) | Message::Response(_) => {}
            }
        }
    }

    /// Waits for diagnostics of `name` that `accept` takes (earlier publishes of the file are
    /// skipped: a check may publish a state on the way).
    pub fn diagnostics_until(
        &mut self,
        name: &str,
        accept: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let uri = self.uri(name);
        loop {
            let n = self.next_notification();
            if std::env::var("LSP_TRACE").is_ok() {
                eprintln!("{} {}", n.method, n.params);
            }
            if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri {
                let list = n.params["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if accept(&list) {
                    return list;
                }
            }
        }
    }

    /// Waits for the next diagnostics of `name` with these codes, in order.
    pub fn diagnostics_with_codes(&mut self, name: &str, codes: &[&str]) -> Vec<Value> {
        self.diagnostics_until(name, |list| {
            list.iter()
                .map(|d| d["code"].as_str().unwrap_or(""))
                .collect::<Vec<_>>()
                == codes
        })
    }

    pub fn open(&self, name: &str) {
        let text = std::fs::read_to_string(self.path(name)).unwrap();
        self.open_text(name, &text);
    }

    pub fn open_text(&self, name: &str, text: &str) {
        let language = if name.ends_with(".co") {
            "colang"
        } else {
            "yaml"
        };
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {
                "uri": self.uri(name), "languageId": language, "version": 1, "text": text,
            }}),
        );
    }

    /// Replaces the whole text of an open file.
    pub fn change(&self, name: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": self.uri(name), "version": version},
                "contentChanges": [{"text": text}],
            }),
        );
    }

    /// Replaces a range of an open file.
    pub fn edit(&self, name: &str, version: i32, range: Value, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": self.uri(name), "version": version},
                "contentChanges": [{"range": range, "text": text}],
            }),
        );
    }

    pub fn save(&self, name: &str) {
        self.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": self.uri(name)}}),
        );
    }

    /// A text document position's parameters.
    pub fn at(&self, name: &str, line: u32, character: u32) -> Value {
        json!({
            "textDocument": {"uri": self.uri(name)},
            "position": {"line": line, "character": character},
        })
    }

    /// Shuts the server down; whether it stopped cleanly.
    pub fn stop(mut self) -> bool {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap()
    }
}

/// `{"start": …, "end": …}` of a range as `(line, character, line, character)`.
pub fn range_of(v: &Value) -> (u64, u64, u64, u64) {
    (
        v["start"]["line"].as_u64().unwrap(),
        v["start"]["character"].as_u64().unwrap(),
        v["end"]["line"].as_u64().unwrap(),
        v["end"]["character"].as_u64().unwrap(),
    )
}
