//! The runner: one scenario file, step by step, against the check of the agent it names.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value};
use stalwart_agent::node::Node;
use stalwart_diagnostics::{Code, Diagnostic, FileId, Files, Span};
use stalwart_record::Record;
use stalwart_router::{Earlier, Plan, Record as Recorded, Request, RunResult};
use stalwart_runtime::history::parse_time;
use stalwart_runtime::{Call, Check, Entry, Env, Key, Outcome, Session};

use crate::codes;
use crate::coverage::Coverage;
use crate::{DEFAULT_NOW, Failure, ScenarioError, ScenarioResult, StepResult, normalize, same};

/// A compiled agent (or a record folder read), shared by every scenario that names it.
pub(crate) struct Loaded {
    pub record: Record,
    /// The agent.yaml or record folder, as the scenario named it (normalised).
    pub agent: PathBuf,
    /// The folder the record's source paths are relative to (agent.yaml's).
    pub root: PathBuf,
}

/// Runs scenario files; compiles each agent they name once.
pub struct Runner {
    loaded: HashMap<PathBuf, Rc<Loaded>>,
    /// What the checks exercised, per agent (when coverage is on).
    pub(crate) coverage: Option<Coverage>,
}

impl Runner {
    /// A runner; with `coverage`, each check is traced ([`crate::coverage`]).
    pub fn new(coverage: bool) -> Self {
        Self {
            loaded: HashMap::new(),
            coverage: coverage.then(Coverage::default),
        }
    }

    /// Runs one scenario file.
    pub fn run(&mut self, path: &Path) -> Result<ScenarioResult, ScenarioError> {
        match std::fs::read_to_string(path) {
            Ok(text) => self.run_text(path, &text),
            Err(e) => {
                let name = path.display().to_string();
                let mut files = Files::new();
                files.insert(FILE, &name, "");
                Err(error(
                    files,
                    codes::UNREADABLE,
                    Span::default(),
                    format!("cannot read `{name}`: {e}"),
                ))
            }
        }
    }

    /// Runs a scenario whose text is given (an editor's buffer); `path` places it (the agent it
    /// names is relative to its folder).
    pub fn run_text(&mut self, path: &Path, text: &str) -> Result<ScenarioResult, ScenarioError> {
        let name = path.display().to_string();
        let mut files = Files::new();
        files.insert(FILE, &name, text);
        let parsed = stalwart_agent::parse_yaml_node(FILE, text);
        if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
            let message = format!("not a YAML scenario: {}", d.message);
            return Err(error(files, codes::NOT_YAML, d.primary.span, message));
        }
        let Some(doc) = parsed.value else {
            return Err(error(
                files,
                codes::UNREADABLE,
                Span::default(),
                "the scenario is empty",
            ));
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let loaded = self.load(dir, &doc, &files)?;
        let mut run = Run {
            files,
            body: loaded.record.body(),
            coverage: self.coverage.as_mut().map(|c| c.counts_for(&loaded.agent)),
        };
        let steps = run.steps(&doc, &loaded.record)?;
        Ok(ScenarioResult {
            path: path.to_path_buf(),
            agent: loaded.agent.clone(),
            steps,
        })
    }

    /// Runs the scenarios that name `agent` (an agent.yaml, as [`named_agent`] gives it) against
    /// `record` rather than compiling it from the disk: an editor compiles it from its buffers.
    pub fn preload(&mut self, agent: &Path, record: Record) {
        let agent = normalize(agent);
        let root = agent.parent().map(Path::to_path_buf).unwrap_or_default();
        let loaded = Rc::new(Loaded {
            record,
            agent: agent.clone(),
            root,
        });
        self.loaded.insert(agent, loaded);
    }

    /// The agents compiled so far, with the folder their sources are relative to.
    pub(crate) fn loaded(&self) -> impl Iterator<Item = &Loaded> {
        self.loaded.values().map(Rc::as_ref)
    }

    fn load(&mut self, dir: &Path, doc: &Node, files: &Files) -> Result<Rc<Loaded>, ScenarioError> {
        let (named, is_agent) = match (doc.get("agent"), doc.get("record")) {
            (Some(a), _) => (a, true),
            (None, Some(r)) => (r, false),
            (None, None) => {
                return Err(error(
                    files.clone(),
                    codes::NO_AGENT,
                    Span::new(FILE, doc.span.start, doc.span.start),
                    "the scenario names no agent",
                )
                .with_help(
                    "name `agent:` (an agent.yaml to compile) or `record:` (a record folder), relative to the scenario",
                ));
            }
        };
        let Some(relative) = named.as_str() else {
            return Err(error(
                files.clone(),
                codes::NO_AGENT,
                named.span,
                format!(
                    "`agent:` and `record:` name a path, not {}",
                    named.describe()
                ),
            ));
        };
        let target = normalize(&dir.join(relative));
        if let Some(found) = self.loaded.get(&target) {
            return Ok(Rc::clone(found));
        }
        // Read from the file's own place on the disk: `..` after a symbolic link is not the
        // `..` of the path's text, and the driver reads a path that climbs above the current
        // folder less surely than an absolute one.
        let on_disk = std::fs::canonicalize(dir.join(relative)).unwrap_or_else(|_| target.clone());
        let record = if is_agent {
            compile(&on_disk, &target, named.span, files)?
        } else {
            Record::read(on_disk.join("record.bin")).map_err(|e| {
                error(
                    files.clone(),
                    codes::NO_AGENT,
                    named.span,
                    format!("cannot read the record `{}`: {e}", target.display()),
                )
            })?
        };
        let root = if is_agent {
            target.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            target.clone()
        };
        let loaded = Rc::new(Loaded {
            record,
            agent: target.clone(),
            root,
        });
        self.loaded.insert(target, Rc::clone(&loaded));
        Ok(loaded)
    }
}

const FILE: FileId = FileId(0);

fn error(files: Files, code: Code, span: Span, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        diagnostic: Box::new(Diagnostic::error(code, span, message)),
        files,
        related: String::new(),
    }
}

impl ScenarioError {
    fn with_help(mut self, help: &str) -> Self {
        *self.diagnostic = self.diagnostic.clone().with_help(help);
        self
    }
}

/// Compiles `agent` (its place on the disk); `named` is the path as the scenario names it.
fn compile(agent: &Path, named: &Path, span: Span, files: &Files) -> Result<Record, ScenarioError> {
    let out = tempfile::tempdir().map_err(|e| {
        error(
            files.clone(),
            codes::AGENT_DOES_NOT_COMPILE,
            span,
            format!("no temporary folder to compile into: {e}"),
        )
    })?;
    let target = out.path().join("record");
    let outcome = stalwart_driver::compile_agent(
        Arc::new(stalwart_driver::DiskLoader),
        agent,
        &stalwart_driver::CompileOptions {
            out: Some(target.clone()),
        },
    );
    if outcome.has_errors() {
        let mut message = format!("the agent `{}` does not compile", named.display());
        if let Some(fatal) = &outcome.fatal {
            message.push_str(": ");
            message.push_str(fatal);
        }
        return Err(ScenarioError {
            diagnostic: Box::new(Diagnostic::error(
                codes::AGENT_DOES_NOT_COMPILE,
                span,
                message,
            )),
            files: files.clone(),
            related: stalwart_diagnostics::render_text(&outcome.files, &outcome.diagnostics),
        });
    }
    Record::read(target.join("record.bin")).map_err(|e| {
        error(
            files.clone(),
            codes::AGENT_DOES_NOT_COMPILE,
            span,
            e.to_string(),
        )
    })
}

/// One scenario file's run.
struct Run<'r> {
    files: Files,
    body: &'r stalwart_record::ArchivedRecordBody,
    coverage: Option<&'r mut crate::coverage::Counts>,
}

/// The state a scenario carries from step to step.
struct State {
    session: Session,
    now: u64,
    saved: BTreeMap<String, String>,
    last_plan: Option<Plan>,
}

impl Run<'_> {
    fn fail(&self, code: Code, span: Span, message: impl Into<String>) -> ScenarioError {
        error(self.files.clone(), code, span, message)
    }

    fn line(&self, node: &Node) -> u32 {
        self.files.line_col(FILE, node.span.start).0
    }

    fn time(&self, node: Option<&Node>, what: &str) -> Result<Option<u64>, ScenarioError> {
        let Some(node) = node else { return Ok(None) };
        match node.as_str().and_then(parse_time) {
            Some(t) => Ok(Some(t)),
            None => Err(self.fail(
                codes::BAD_VALUE,
                node.span,
                format!("{what} is not a time (`2026-11-30T12:00:00Z` or `2026-11-30`)"),
            )),
        }
    }

    fn steps(&mut self, doc: &Node, record: &Record) -> Result<Vec<StepResult>, ScenarioError> {
        let session_spec = doc.get("session").map(Node::to_json).unwrap_or(Value::Null);
        let now = self.time(doc.get("now"), "`now`")?.unwrap_or(DEFAULT_NOW);
        let expires = self
            .time(
                doc.get("licence").and_then(|l| l.get("expires")),
                "the licence's expiry",
            )?
            .unwrap_or(DEFAULT_NOW + 365 * 86_400);
        let key = Key::new("scenario", [42; 32], expires).for_record(&record.header().digest);
        let mut state = State {
            session: new_session(&session_spec),
            now,
            saved: BTreeMap::new(),
            last_plan: None,
        };
        let steps: &[Node] = match doc.get("steps").map(|s| &s.kind) {
            None => &[],
            Some(stalwart_agent::node::NodeKind::Seq(items)) => items,
            Some(_) => {
                let node = doc.get("steps").unwrap_or(doc);
                return Err(self.fail(
                    codes::BAD_VALUE,
                    node.span,
                    format!("`steps:` is a list, not {}", node.describe()),
                ));
            }
        };
        let mut out = Vec::with_capacity(steps.len());
        for (i, node) in steps.iter().enumerate() {
            let started = Instant::now();
            let step = node.to_json();
            let mut result = StepResult {
                index: i + 1,
                name: step
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("step {}", i + 1)),
                line: self.line(node),
                kind: "",
                failures: Vec::new(),
                answer: None,
                expected_source: None,
                actual_source: None,
                seconds: 0.0,
            };
            self.step(&key, &mut state, node, &step, &mut result)?;
            result.seconds = started.elapsed().as_secs_f64();
            out.push(result);
        }
        Ok(out)
    }

    fn step(
        &mut self,
        key: &stalwart_runtime::RecordKey,
        state: &mut State,
        node: &Node,
        step: &Value,
        result: &mut StepResult,
    ) -> Result<(), ScenarioError> {
        let env = Env {
            key,
            now: state.now,
        };
        if let Some(text) = step.get("read").and_then(Value::as_str) {
            result.kind = "read";
            if step.get("plan").is_some() || step.get("language").is_some() {
                let plan = self.plan_turn(&state.session, node, step, Some(text))?;
                if let Some(expect) = step.get("plan") {
                    result.failures.extend(compare_plan(&plan, expect));
                    result.answer = Some(plan.to_json());
                }
                match plan.record_as {
                    Recorded::Read => stalwart_runtime::read(env, &mut state.session, text),
                    Recorded::Reply => stalwart_runtime::reply(env, &mut state.session, text),
                }
                state.last_plan = Some(plan);
            } else {
                stalwart_runtime::read(env, &mut state.session, text);
            }
        } else if let Some(expect) = step.get("plan_again") {
            result.kind = "plan_again";
            let plan = self.plan_turn(&state.session, node, step, None)?;
            result.failures.extend(compare_plan(&plan, expect));
            result.answer = Some(plan.to_json());
            state.last_plan = Some(plan);
        } else if let Some(text) = step.get("reply").and_then(Value::as_str) {
            result.kind = "reply";
            stalwart_runtime::reply(env, &mut state.session, text);
        } else if let Some(spec) = step.get("session") {
            result.kind = "session";
            state.session = new_session(spec);
            state.last_plan = None;
        } else if let Some(seconds) = step.get("advance") {
            result.kind = "advance";
            let Some(seconds) = seconds.as_u64() else {
                let at = node.get("advance").map_or(node.span, |n| n.span);
                return Err(self.fail(
                    codes::BAD_VALUE,
                    at,
                    "`advance:` is a whole number of seconds",
                ));
            };
            state.now += seconds;
        } else if let Some(report) = step.get("report") {
            result.kind = "report";
            let n = report.get("step").and_then(Value::as_u64).unwrap_or(0) as u32;
            let Some(outcome) = report
                .get("outcome")
                .and_then(Value::as_str)
                .and_then(Outcome::parse)
            else {
                let at = node
                    .get("report")
                    .and_then(|r| r.get("outcome"))
                    .or(node.get("report"))
                    .map_or(node.span, |n| n.span);
                return Err(self.fail(
                    codes::BAD_VALUE,
                    at,
                    "`outcome:` is one of `ran`, `failed`, `outcome_unknown`, `compensated`",
                ));
            };
            let value = report.get("result").cloned();
            if let Err(e) = stalwart_runtime::report(env, &mut state.session, n, outcome, value) {
                result.failures.push(Failure {
                    what: "report".into(),
                    expected: Value::Null,
                    actual: Value::String(format!("report refused: {e}")),
                });
            }
        } else if step.get("route").is_some() {
            // A route of a witness path the tool check takes no part in: written for the reader.
            result.kind = "route";
        } else if let Some(edit) = step.get("tamper") {
            result.kind = "tamper";
            state.session = tamper(&state.session, edit).map_err(|e| {
                let at = node.get("tamper").map_or(node.span, |n| n.span);
                self.fail(codes::BAD_VALUE, at, e)
            })?;
        } else if let Some(spec) = step.get("check") {
            result.kind = "check";
            self.check(env, state, step, spec, result);
        } else {
            let keys = match step {
                Value::Object(m) => m.keys().cloned().collect::<Vec<_>>().join("`, `"),
                _ => String::new(),
            };
            return Err(self
                .fail(
                    codes::UNKNOWN_STEP,
                    node.span,
                    if keys.is_empty() {
                        format!("a step is a mapping, not {}", node.describe())
                    } else {
                        format!("a step of no known kind (`{keys}`)")
                    },
                )
                .with_help(
                    "a step is one of `read`, `reply`, `check`, `report`, `plan_again`, `session`, `advance`, `tamper`, `route`",
                ));
        }
        Ok(())
    }

    fn check(
        &mut self,
        env: Env<'_>,
        state: &mut State,
        step: &Value,
        spec: &Value,
        result: &mut StepResult,
    ) {
        let mut call = call_from(spec, &state.saved);
        if let Some(which) = spec.get("from_plan").filter(|v| !v.is_null()) {
            let plan = state.last_plan.as_ref();
            let planned = match which.as_str() {
                Some("read") => plan.and_then(|p| p.reads.first()),
                _ => plan.and_then(|p| p.call.as_ref()),
            };
            let Some(planned) = planned else {
                result.failures.push(Failure {
                    what: "from_plan".into(),
                    expected: Value::Null,
                    actual: Value::String("`from_plan` but no plan wrote that call".into()),
                });
                return;
            };
            call.tool = planned.tool.clone();
            call.arguments = planned.arguments.clone().into();
            call.origins = planned
                .origins
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect::<BTreeMap<_, _>>()
                .into();
            if call.intent.is_none() {
                call.intent = state.last_plan.as_ref().and_then(|p| p.intent.clone());
            }
        }
        let check = match self.coverage.as_deref_mut() {
            Some(counts) => {
                let (check, trace) = stalwart_runtime::check_tool_call_traced(
                    self.body,
                    env,
                    &mut state.session,
                    &call,
                );
                counts.add(&trace);
                check
            }
            None => stalwart_runtime::check_tool_call(self.body, env, &mut state.session, &call),
        };
        if let Some(name) = step.get("save").and_then(Value::as_str)
            && let Some(token) = &check.confirmation
        {
            state.saved.insert(name.to_string(), token.clone());
        }
        result.actual_source = check.detail.get("source").map(|s| serde_json::json!(s));
        if let Some(expect) = step.get("expect") {
            result.expected_source = expect.get("detail").and_then(|d| d.get("source")).cloned();
            result.failures.extend(compare(&check, expect));
        }
        if step
            .get("history_roundtrip")
            .and_then(Value::as_bool)
            .unwrap_or(true)
        {
            let json = state.session.to_json();
            let back = Session::from_json(json.clone()).unwrap_or_else(|| Session::new("", ""));
            if back.to_json() != json || back.tampered {
                result.failures.push(Failure {
                    what: "history".into(),
                    expected: Value::Null,
                    actual: Value::String("the history did not round-trip through JSON".into()),
                });
            }
        }
        result.answer = Some(check.to_json());
    }

    /// The selector's plan for `turn` (or, with `None`, for the history's last turn again, with
    /// the results its run reported since), with the session's earlier turns.
    fn plan_turn(
        &self,
        session: &Session,
        node: &Node,
        step: &Value,
        turn: Option<&str>,
    ) -> Result<Plan, ScenarioError> {
        let language = match step.get("language").and_then(Value::as_str) {
            Some(name) => Some(stalwart_router::language_by_name(name).ok_or_else(|| {
                let at = node.get("language").map_or(node.span, |n| n.span);
                self.fail(codes::BAD_VALUE, at, format!("unknown language `{name}`"))
            })?),
            None => None,
        };
        let turns: Vec<Earlier<'_>> = session
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::Read { text, .. } => Some(Earlier { text, reply: false }),
                Entry::Reply { text, .. } => Some(Earlier { text, reply: true }),
                _ => None,
            })
            .collect();
        let ran: Vec<(u32, String, Value)> = session
            .allowed_run_calls()
            .filter_map(|c| Some((c.step, c.tool.to_string(), session.result_of(c)?.clone())))
            .collect();
        let (turn, earlier, results): (&str, &[Earlier<'_>], Vec<RunResult<'_>>) = match turn {
            Some(t) => (t, &turns, Vec::new()),
            None => {
                let Some((last, before)) = turns.split_last() else {
                    return Err(self.fail(
                        codes::BAD_VALUE,
                        node.span,
                        "`plan_again` with no turn read before it",
                    ));
                };
                let results = ran
                    .iter()
                    .map(|(step, tool, result)| RunResult {
                        step: *step,
                        tool,
                        result,
                    })
                    .collect();
                (last.text, before, results)
            }
        };
        stalwart_router::plan(
            self.body,
            &Request {
                agent: &session.agent,
                turn,
                language,
                earlier,
                results: &results,
            },
        )
        .map_err(|e| self.fail(codes::BAD_VALUE, node.span, e.to_string()))
    }
}

fn new_session(spec: &Value) -> Session {
    let agent = spec
        .get("agent")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let id = spec.get("id").and_then(Value::as_str).unwrap_or("scenario");
    Session::new(agent, id)
}

/// Compares a plan with what the scenario expects: each key named must equal the plan's (JSON,
/// numbers compared as numbers); keys not named are not compared.
fn compare_plan(plan: &Plan, expect: &Value) -> Vec<Failure> {
    let got = plan.to_json();
    let Value::Object(expected) = expect else {
        return vec![Failure {
            what: "plan".into(),
            expected: expect.clone(),
            actual: got,
        }];
    };
    expected
        .iter()
        .filter(|(k, v)| !same(got.get(k.as_str()).unwrap_or(&Value::Null), v))
        .map(|(k, v)| Failure {
            what: format!("plan.{k}"),
            expected: v.clone(),
            actual: got.get(k.as_str()).cloned().unwrap_or(Value::Null),
        })
        .collect()
}

/// Compares a check with what the scenario expects: `decision` and `reasons` exactly, each key
/// of `detail` by JSON equality (keys not named are not compared), `no_detail` keys absent,
/// `confirmation: true|false` and `idempotency_key: true|false` for presence.
fn compare(check: &Check, expect: &Value) -> Vec<Failure> {
    let mut out = Vec::new();
    let got = check.to_json();
    for key in ["decision", "reasons"] {
        if let Some(want) = expect.get(key)
            && got.get(key) != Some(want)
        {
            out.push(Failure {
                what: key.into(),
                expected: want.clone(),
                actual: got.get(key).cloned().unwrap_or(Value::Null),
            });
        }
    }
    if let Some(Value::Object(detail)) = expect.get("detail") {
        for (k, v) in detail {
            let actual = check.detail.get(k).map(|a| serde_json::json!(a));
            if actual.as_ref() != Some(v) {
                out.push(Failure {
                    what: format!("detail.{k}"),
                    expected: v.clone(),
                    actual: actual.unwrap_or(Value::Null),
                });
            }
        }
    }
    if let Some(missing) = missing_source(check) {
        out.push(Failure {
            what: "source".into(),
            expected: Value::String("a place in the agent's files".into()),
            actual: Value::String(missing),
        });
    }
    if let Some(Value::Array(keys)) = expect.get("no_detail") {
        for k in keys.iter().filter_map(Value::as_str) {
            if let Some(a) = check.detail.get(k) {
                out.push(Failure {
                    what: format!("no_detail.{k}"),
                    expected: Value::Null,
                    actual: serde_json::json!(a),
                });
            }
        }
    }
    if let Some(Value::String(fragment)) = expect.get("question_contains") {
        let q = check
            .detail
            .get("question")
            .and_then(stalwart_runtime::detail::DetailValue::as_str)
            .unwrap_or("");
        if !q.contains(fragment.as_str()) {
            out.push(Failure {
                what: "question_contains".into(),
                expected: Value::String(fragment.clone()),
                actual: Value::String(q.to_string()),
            });
        }
    }
    for (key, present) in [
        ("confirmation", check.confirmation.is_some()),
        ("idempotency_key", check.idempotency_key.is_some()),
    ] {
        if let Some(Value::Bool(want)) = expect.get(key)
            && *want != present
        {
            out.push(Failure {
                what: key.into(),
                expected: Value::Bool(*want),
                actual: Value::Bool(present),
            });
        }
    }
    out
}

/// Why a decided answer lacks the `source` it must have (docs/answers.md): every answer names
/// where it was decided but `history_invalid`, `agent_required`, `licence_lapsed` and an
/// `unknown_tool` no catalogue declares (one this agent may not reach names the agents that may,
/// and is placed at the agent). A confirm with several reasons also maps each to its place.
fn missing_source(check: &Check) -> Option<String> {
    let first = check.reasons.first()?.as_str();
    let placed = match first {
        "history_invalid" | "agent_required" | "licence_lapsed" => false,
        "unknown_tool" => check.detail.contains_key("agents"),
        _ => true,
    };
    if placed && !check.detail.contains_key("source") {
        return Some(format!("detail.source is missing for `{first}`"));
    }
    if check.reasons.len() > 1 && !check.detail.contains_key("sources") {
        return Some("detail.sources is missing for an answer with several reasons".to_string());
    }
    None
}

fn call_from(spec: &Value, saved: &BTreeMap<String, String>) -> Call {
    let map_of_strings = |key: &str| -> BTreeMap<String, String> {
        spec.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let labels = spec
        .get("labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let list = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), list)
                })
                .collect()
        })
        .unwrap_or_default();
    let confirmation =
        spec.get("confirmation")
            .and_then(Value::as_str)
            .map(|t| match t.strip_prefix('$') {
                Some(name) => saved
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| format!("<no token saved as {name}>")),
                None => t.to_string(),
            });
    Call {
        tool: spec
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        agent: spec
            .get("agent")
            .and_then(Value::as_str)
            .map(str::to_string),
        arguments: spec
            .get("args")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
            .into(),
        origins: map_of_strings("origins").into(),
        labels,
        context: spec
            .get("context")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        intent: spec
            .get("intent")
            .and_then(Value::as_str)
            .map(str::to_string),
        confirmation,
        undoes: spec.get("undoes").and_then(Value::as_u64).map(|s| s as u32),
    }
}

/// Edits the history as JSON: `{entry: N, set: {field: value}}`, `{remove: N}`,
/// `{swap: [A, B]}`, `{truncate: N, append: [I, ...]}` (keep the first N entries, then append
/// copies of the original entries I, ...).
fn tamper(session: &Session, edit: &Value) -> Result<Session, String> {
    let mut json = session.to_json();
    let entries = json
        .get_mut("entries")
        .and_then(Value::as_array_mut)
        .ok_or("the history has no entries")?;
    if let (Some(n), Some(Value::Object(set))) =
        (edit.get("entry").and_then(Value::as_u64), edit.get("set"))
    {
        let entry = entries
            .get_mut(n as usize)
            .and_then(Value::as_object_mut)
            .ok_or_else(|| format!("the history has no entry {n}"))?;
        for (k, v) in set {
            entry.insert(k.clone(), v.clone());
        }
    } else if let Some(n) = edit.get("remove").and_then(Value::as_u64) {
        if (n as usize) < entries.len() {
            entries.remove(n as usize);
        }
    } else if let Some(Value::Array(pair)) = edit.get("swap") {
        let a = pair.first().and_then(Value::as_u64).unwrap_or(0) as usize;
        let b = pair.get(1).and_then(Value::as_u64).unwrap_or(0) as usize;
        if a < entries.len() && b < entries.len() {
            entries.swap(a, b);
        }
    } else if let Some(n) = edit.get("truncate").and_then(Value::as_u64) {
        let original = entries.clone();
        entries.truncate(n as usize);
        for i in edit
            .get("append")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
        {
            entries.extend(original.get(i as usize).cloned());
        }
    } else {
        return Err(format!(
            "a history edit is `entry`+`set`, `remove`, `swap` or `truncate`, not {edit}"
        ));
    }
    let _: &Map<String, Value> = json.as_object().ok_or("not an object")?;
    Ok(Session::from_json(json).unwrap_or_else(|| Session::new("", "")))
}
