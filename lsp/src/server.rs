//! The server's main loop: messages in order, edits applied at once, everything slow elsewhere.
//!
//! - Diagnostics are computed on a worker thread from a snapshot of the databases; an edit
//!   cancels it (salsa unwinds a snapshot's queries when the database is written) and a newer one
//!   starts when the queue is empty, so typing never waits for a check. A result computed before
//!   the latest edit is dropped. Only files whose diagnostics changed are published.
//! - Proofs run on save, on a thread of their own, from a snapshot let go before the proof runs;
//!   an edit to what the proof reads drops its result, a save while it runs queues the next one.
//! - The disk is read on threads (the workspace scan at start, files the watcher names, a closed
//!   buffer's file); the main loop never waits for it.
//! - Requests run in order on the main loop, each inside `catch_unwind`: a panic answers that
//!   request with an error and the server goes on. A request whose `$/cancelRequest` is already
//!   queued is answered `RequestCanceled` without running.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, FileChangeType, PublishDiagnosticsParams,
};
use stalwart_ide::{AnalysisHost, FileDiagnostic, LoadProblem, ProofCache, ProofOutcome, Text};

use crate::encoding::{Encoding, LineIndex};

/// Work done off the main loop, reported back.
pub(crate) enum Task {
    /// The workspace's files read at start, and the agent descriptions among them.
    Scanned {
        files: Vec<crate::scan::DiskFile>,
        agents: Vec<PathBuf>,
    },
    /// Files read from the disk (`None`: gone).
    DiskRead(Vec<crate::scan::DiskFile>),
    Diagnostics {
        revision: u64,
        result: Option<BTreeMap<PathBuf, Vec<FileDiagnostic>>>,
    },
    Proof {
        agent: PathBuf,
        generation: u64,
        outcome: Option<ProofOutcome>,
    },
}

/// The server's state.
pub struct Server {
    pub(crate) sender: Sender<Message>,
    pub(crate) host: AnalysisHost,
    pub(crate) enc: Encoding,
    pub(crate) rule_pages: String,
    tasks_tx: Sender<Task>,
    tasks_rx: Receiver<Task>,
    queue: VecDeque<Message>,
    /// Bumped by every change the diagnostics read.
    revision: u64,
    dirty: bool,
    diagnosing: bool,
    compile: BTreeMap<PathBuf, Vec<FileDiagnostic>>,
    /// The proof's findings, by agent.yaml.
    pub(crate) proofs: BTreeMap<PathBuf, Vec<FileDiagnostic>>,
    proof_generation: HashMap<PathBuf, u64>,
    proving: HashSet<PathBuf>,
    proof_pending: HashSet<PathBuf>,
    proof_cache: ProofCache,
    /// What was last published for each file, with the text it was placed in.
    published: HashMap<PathBuf, (Vec<FileDiagnostic>, Option<Arc<String>>)>,
    versions: HashMap<PathBuf, i32>,
    shutdown: bool,
    watch_registration: bool,
    next_id: i32,
}

impl Server {
    pub(crate) fn new(
        sender: Sender<Message>,
        enc: Encoding,
        rule_pages: String,
        watch_registration: bool,
    ) -> Self {
        let (tasks_tx, tasks_rx) = crossbeam_channel::unbounded();
        Self {
            sender,
            host: AnalysisHost::new(),
            enc,
            rule_pages,
            tasks_tx,
            tasks_rx,
            queue: VecDeque::new(),
            revision: 0,
            dirty: false,
            diagnosing: false,
            compile: BTreeMap::new(),
            proofs: BTreeMap::new(),
            proof_generation: HashMap::new(),
            proving: HashSet::new(),
            proof_pending: HashSet::new(),
            proof_cache: ProofCache::default(),
            published: HashMap::new(),
            versions: HashMap::new(),
            shutdown: false,
            watch_registration,
            next_id: 0,
        }
    }

    /// Reads the workspace folders on a thread.
    pub(crate) fn start_scan(&self, roots: Vec<PathBuf>) {
        let tx = self.tasks_tx.clone();
        std::thread::spawn(move || {
            let (files, agents) = crate::scan::scan(&roots);
            let _ = tx.send(Task::Scanned { files, agents });
        });
    }

    /// Runs until `exit` (or the client hangs up).
    pub(crate) fn main_loop(&mut self, receiver: &Receiver<Message>) {
        loop {
            if self.queue.is_empty() {
                self.schedule_diagnostics();
                select! {
                    recv(receiver) -> m => match m {
                        Ok(m) => self.queue.push_back(m),
                        Err(_) => return,
                    },
                    recv(self.tasks_rx) -> t => {
                        if let Ok(t) = t {
                            self.task(t);
                        }
                        continue;
                    }
                }
            }
            while let Ok(m) = receiver.try_recv() {
                self.queue.push_back(m);
            }
            let Some(message) = self.queue.pop_front() else {
                continue;
            };
            match message {
                Message::Request(req) => self.request(req),
                Message::Notification(n) => {
                    if n.method == "exit" {
                        return;
                    }
                    self.notification(n);
                }
                Message::Response(_) => {}
            }
        }
    }

    fn task(&mut self, task: Task) {
        match task {
            Task::Scanned { files, agents } => {
                for (path, text) in files {
                    if !self.host.loader().knows(&path) {
                        self.host.loader().set_disk(&path, text);
                    }
                }
                for agent in agents {
                    self.host.add_agent(&agent);
                }
                self.changed();
            }
            Task::DiskRead(files) => {
                for (path, text) in files {
                    self.host.disk_changed(&path, text);
                }
                self.changed();
            }
            Task::Diagnostics { revision, result } => {
                self.diagnosing = false;
                if revision == self.revision
                    && let Some(result) = result
                {
                    self.compile = result;
                    self.publish();
                    self.status("ready");
                }
            }
            Task::Proof {
                agent,
                generation,
                outcome,
            } => {
                self.proving.remove(&agent);
                let current = self.proof_generation.get(&agent).copied().unwrap_or(0);
                if generation == current
                    && let Some(outcome) = outcome
                {
                    self.proofs.insert(agent.clone(), outcome.diagnostics);
                    self.publish();
                    self.status(if outcome.stopped {
                        "ready"
                    } else if outcome.gate_passed {
                        "proof: gate passed"
                    } else {
                        "proof: gate failed"
                    });
                }
                if self.proof_pending.remove(&agent) {
                    self.start_proof(agent);
                }
            }
        }
    }

    fn changed(&mut self) {
        self.revision += 1;
        self.dirty = true;
    }

    fn schedule_diagnostics(&mut self) {
        if !self.dirty || self.diagnosing {
            return;
        }
        self.dirty = false;
        self.diagnosing = true;
        let snapshot = self.host.clone();
        let revision = self.revision;
        let tx = self.tasks_tx.clone();
        self.status("checking");
        std::thread::spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| snapshot.diagnostics())).ok();
            drop(snapshot);
            let _ = tx.send(Task::Diagnostics { revision, result });
        });
    }

    /// Publishes the files whose diagnostics (compile and proof) changed.
    fn publish(&mut self) {
        let mut merged: BTreeMap<PathBuf, Vec<FileDiagnostic>> = self.compile.clone();
        for diags in self.proofs.values() {
            for d in diags {
                merged
                    .entry(d.range.path.clone())
                    .or_default()
                    .push(d.clone());
            }
        }
        for path in self.published.keys() {
            merged.entry(path.clone()).or_default();
        }
        for (path, diags) in merged {
            let never = !self.published.contains_key(&path);
            if never && diags.is_empty() {
                // Clean and never published: nothing to say (most files of a workspace).
                continue;
            }
            let text = self.host.text(&path);
            let unchanged = self.published.get(&path).is_some_and(|(d, t)| {
                *d == diags
                    && match (t, &text) {
                        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                        (None, None) => true,
                        _ => false,
                    }
            });
            if unchanged {
                continue;
            }
            let lsp = match &text {
                Some(t) => {
                    crate::publish::to_lsp(&self.host, t, &diags, self.enc, &self.rule_pages)
                }
                None => Vec::new(),
            };
            let params = PublishDiagnosticsParams {
                uri: crate::uri::from_path(&path),
                diagnostics: lsp,
                version: self.versions.get(&path).copied(),
            };
            self.notify(lsp_types::notification::PublishDiagnostics::METHOD, params);
            if diags.is_empty() {
                self.published.remove(&path);
            } else {
                self.published.insert(path, (diags, text));
            }
        }
    }

    pub(crate) fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self.sender.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    /// Tells the client what the server is doing (the VS Code extension's status item).
    fn status(&self, message: &str) {
        self.notify("stalwart/status", serde_json::json!({ "message": message }));
    }

    fn respond(&self, response: Response) {
        let _ = self.sender.send(Message::Response(response));
    }

    fn request(&mut self, req: Request) {
        if let Some(at) = self.queue.iter().position(|m| is_cancel_of(m, &req.id)) {
            self.queue.remove(at);
            self.respond(Response::new_err(
                req.id,
                ErrorCode::RequestCanceled as i32,
                "cancelled".to_string(),
            ));
            return;
        }
        if req.method == "shutdown" {
            self.shutdown = true;
            self.respond(Response::new_ok(req.id, serde_json::Value::Null));
            return;
        }
        if self.shutdown {
            self.respond(Response::new_err(
                req.id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".to_string(),
            ));
            return;
        }
        let id = req.id.clone();
        let method = req.method.clone();
        let answer = catch_unwind(AssertUnwindSafe(|| {
            crate::requests::handle(self, &req.method, req.params)
        }));
        let response = match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(panic) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("internal error in `{method}`: {}", panic_text(&panic)),
            ),
        };
        self.respond(response);
    }

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let done = catch_unwind(AssertUnwindSafe(|| self.notification_inner(n)));
        if let Err(panic) = done {
            self.notify(
                "window/logMessage",
                serde_json::json!({
                    "type": 1,
                    "message": format!("internal error in `{method}`: {}", panic_text(&panic)),
                }),
            );
        }
    }

    fn notification_inner(&mut self, n: Notification) {
        match n.method.as_str() {
            "initialized" => self.register_watchers(),
            "textDocument/didOpen" => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params)
                    && let Some(path) = crate::uri::to_path(&p.text_document.uri)
                {
                    self.versions.insert(path.clone(), p.text_document.version);
                    self.host.set_buffer(&path, p.text_document.text);
                    self.host.ensure_project(&path);
                    self.edited(&path);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params)
                    && let Some(path) = crate::uri::to_path(&p.text_document.uri)
                {
                    let mut text = self
                        .host
                        .text(&path)
                        .map(|t| t.as_ref().clone())
                        .unwrap_or_default();
                    for change in p.content_changes {
                        match change.range {
                            Some(range) => {
                                let index = LineIndex::new(&text);
                                let start = index.offset(range.start, self.enc) as usize;
                                let end = (index.offset(range.end, self.enc) as usize).max(start);
                                text.replace_range(start..end, &change.text);
                            }
                            None => text = change.text,
                        }
                    }
                    self.versions.insert(path.clone(), p.text_document.version);
                    self.host.set_buffer(&path, text);
                    self.edited(&path);
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params)
                    && let Some(path) = crate::uri::to_path(&p.text_document.uri)
                {
                    self.versions.remove(&path);
                    self.host.close_buffer(&path);
                    self.host.forget_standalone(&path);
                    self.read_disk(vec![path.clone()]);
                    self.edited(&path);
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params)
                    && let Some(path) = crate::uri::to_path(&p.text_document.uri)
                {
                    if let Some(text) = self.host.text(&path) {
                        // What was saved is the buffer: the disk holds it now.
                        self.host.loader().set_disk(
                            &path,
                            Ok(Text {
                                text: text.as_ref().clone(),
                                had_bom: false,
                            }),
                        );
                    }
                    for agent in self.host.agents_reading(&path) {
                        self.start_proof(agent);
                    }
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    let mut read = Vec::new();
                    let mut gone = Vec::new();
                    for change in p.changes {
                        let Some(path) = crate::uri::to_path(&change.uri) else {
                            continue;
                        };
                        if self.host.loader().is_open(&path) {
                            continue;
                        }
                        if change.typ == FileChangeType::DELETED {
                            gone.push((path, Err(LoadProblem::Missing)));
                        } else {
                            read.push(path);
                        }
                    }
                    if !gone.is_empty() {
                        self.task(Task::DiskRead(gone));
                    }
                    if !read.is_empty() {
                        self.read_disk(read);
                    }
                }
            }
            _ => {}
        }
    }

    /// A buffer changed: the diagnostics are stale, and so is any proof that reads it.
    fn edited(&mut self, path: &Path) {
        for agent in self.host.agents_reading(path) {
            *self.proof_generation.entry(agent).or_default() += 1;
        }
        self.changed();
    }

    fn read_disk(&self, paths: Vec<PathBuf>) {
        let tx = self.tasks_tx.clone();
        std::thread::spawn(move || {
            let files = paths
                .into_iter()
                .map(|p| {
                    let text = crate::scan::read_text(&p);
                    (p, text)
                })
                .collect();
            let _ = tx.send(Task::DiskRead(files));
        });
    }

    fn start_proof(&mut self, agent: PathBuf) {
        let generation = {
            let g = self.proof_generation.entry(agent.clone()).or_default();
            *g += 1;
            *g
        };
        if self.proving.contains(&agent) {
            self.proof_pending.insert(agent);
            return;
        }
        let Some(request) = self.host.proof_request(&agent) else {
            return;
        };
        self.proving.insert(agent.clone());
        self.status("proving");
        let tx = self.tasks_tx.clone();
        let cache = self.proof_cache.clone();
        std::thread::spawn(move || {
            let outcome = stalwart_ide::run_proof(request, &cache);
            let _ = tx.send(Task::Proof {
                agent,
                generation,
                outcome,
            });
        });
    }

    /// Asks the client to send `workspace/didChangeWatchedFiles` for the files a workspace names.
    fn register_watchers(&mut self) {
        if !self.watch_registration {
            return;
        }
        self.next_id += 1;
        let params = serde_json::json!({
            "registrations": [{
                "id": "stalwart-watch",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": [
                    {"globPattern": "**/*.{co,csv,yaml,yml,json,py}"}
                ]},
            }],
        });
        let req = Request::new(
            RequestId::from(format!("stalwart-{}", self.next_id)),
            "client/registerCapability".to_string(),
            params,
        );
        let _ = self.sender.send(Message::Request(req));
    }

    /// The proof diagnostics published on a file.
    pub(crate) fn proof_diagnostics(&self, path: &Path) -> Vec<&FileDiagnostic> {
        self.proofs
            .values()
            .flatten()
            .filter(|d| d.range.path == path)
            .collect()
    }
}

fn is_cancel_of(m: &Message, id: &RequestId) -> bool {
    let Message::Notification(n) = m else {
        return false;
    };
    if n.method != "$/cancelRequest" {
        return false;
    }
    let Some(cancelled) = n.params.get("id") else {
        return false;
    };
    let ours = serde_json::to_value(id).unwrap_or_default();
    *cancelled == ours
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

impl Server {
    /// Whether the session ended with `shutdown`.
    pub(crate) fn shut_down(&self) -> bool {
        self.shutdown
    }
}
