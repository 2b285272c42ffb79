//! `stalwart diff OLD NEW`: for every tool of either record, whether the tool check decides some
//! call differently under the two, with a call on which it does.
//!
//! The analysis (`stalwart_analyzer::diff`) proves two gates alike or finds values on which
//! they differ, and proposes calls; this module runs each proposed call through the tool check
//! on both records, from an empty session or after a bounded history of earlier calls, and
//! reports the first on which the two answers differ, exactly as it ran. A tool whose gates are
//! proved alike and whose every other rule is the same decides every call alike; a tool that
//! differs in its rules where no call tried here finds a difference is undecided, never "no
//! difference".

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use stalwart_analyzer::diff::{
    self as analysis, Assignment, GateDiff, Place, argument_values, base_arguments, gate_diff,
    json_value, named_tools, pattern_values, place, tool_canon, world_canon,
};
use stalwart_diagnostics::{Diagnostic, Files};
use stalwart_record::{Gate, Period, Record, RecordBody, Tool};
use stalwart_runtime::{Call, Check, Decision, Env, Outcome, RecordKey, Session};

use crate::database::{Database, DiskLoader};

/// The clock every diff check runs at (a fixed time, so the examples replay alike).
pub const DIFF_NOW: u64 = 1_800_000_000;

/// The history depth searched when none is given.
pub const DEFAULT_DEPTH: u32 = 3;

/// The most histories tried for one tool and agent.
const MAX_HISTORIES: usize = 64;

/// The most edge calls tried after each history (the first: those of the first arguments).
const EDGES_AFTER_HISTORY: usize = 32;

/// One side of a diff: a compiled record.
pub struct Side {
    pub path: PathBuf,
    pub body: RecordBody,
    pub record: Record,
}

/// Why a side could not be read.
#[derive(Debug)]
pub struct LoadFailure {
    pub files: Files,
    pub diagnostics: Vec<Diagnostic>,
    /// An error about the input itself (no such folder, a record that does not load).
    pub fatal: Option<String>,
}

/// Reads one side: an agent.yaml (compiled in memory, nothing written), a record folder (its
/// `record.bin`), a folder with an agent.yaml, or a `record.bin`.
pub fn load_side(path: &Path) -> Result<Side, LoadFailure> {
    let fatal = |m: String| LoadFailure {
        files: Files::new(),
        diagnostics: Vec::new(),
        fatal: Some(m),
    };
    let record_file = if path.is_dir() {
        let bin = path.join("record.bin");
        if bin.is_file() {
            Some(bin)
        } else if path.join("agent.yaml").is_file() {
            return compile_side(&path.join("agent.yaml"));
        } else {
            return Err(fatal(format!(
                "`{}` is neither a record folder (no record.bin) nor an agent's folder (no agent.yaml)",
                path.display()
            )));
        }
    } else if path.extension().is_some_and(|e| e == "bin") {
        Some(path.to_path_buf())
    } else {
        None
    };
    match record_file {
        Some(bin) => {
            let record = Record::read(&bin)
                .map_err(|e| fatal(format!("cannot load `{}`: {e}", bin.display())))?;
            let body = record
                .to_body()
                .map_err(|e| fatal(format!("cannot load `{}`: {e}", bin.display())))?;
            Ok(Side {
                path: path.to_path_buf(),
                body,
                record,
            })
        }
        None => compile_side(path),
    }
}

fn compile_side(agent_yaml: &Path) -> Result<Side, LoadFailure> {
    let (db, file) = Database::open(Arc::new(DiskLoader), agent_yaml).map_err(|u| LoadFailure {
        files: u.files,
        diagnostics: vec![u.diagnostic],
        fatal: None,
    })?;
    let diagnostics = crate::compile::agent_diagnostics(&db, file);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(LoadFailure {
            files: db.files(),
            diagnostics,
            fatal: None,
        });
    }
    let body = stalwart_lower::lower_agent_file(&db, file).body.clone();
    let bytes =
        stalwart_record::encode(&body, crate::COMPILER_VERSION).map_err(|e| LoadFailure {
            files: db.files(),
            diagnostics: Vec::new(),
            fatal: Some(format!(
                "cannot encode the record of `{}`: {e}",
                agent_yaml.display()
            )),
        })?;
    let record = Record::from_bytes(&bytes).map_err(|e| LoadFailure {
        files: db.files(),
        diagnostics: Vec::new(),
        fatal: Some(format!(
            "cannot load the record of `{}`: {e}",
            agent_yaml.display()
        )),
    })?;
    Ok(Side {
        path: agent_yaml.to_path_buf(),
        body,
        record,
    })
}

/// The key every diff check signs its histories with, bound to the record.
pub fn diff_key(record: &Record) -> RecordKey {
    stalwart_runtime::Key::new("diff", [7; 32], DIFF_NOW + 365 * 86_400)
        .for_record(&record.header().digest)
}

/// A call as the diff writes and replays it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    pub tool: String,
    pub agent: Option<String>,
    pub arguments: Map<String, Value>,
    pub origins: Map<String, Value>,
    /// Explicit marks (`call` for the whole call): a trust the call comes with.
    pub labels: BTreeMap<String, Vec<String>>,
    pub context: Map<String, Value>,
    pub intent: Option<String>,
}

impl CallSpec {
    pub fn to_json(&self) -> Value {
        json!({
            "tool": self.tool,
            "agent": self.agent,
            "arguments": self.arguments,
            "origins": self.origins,
            "labels": self.labels,
            "context": self.context,
            "intent": self.intent,
        })
    }

    fn call(&self) -> Call {
        Call {
            tool: self.tool.clone(),
            agent: self.agent.clone(),
            arguments: Arc::new(self.arguments.clone()),
            origins: Arc::new(
                self.origins
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect(),
            ),
            labels: self.labels.clone(),
            context: self.context.clone(),
            intent: self.intent.clone(),
            ..Call::default()
        }
    }
}

/// An earlier call of an example's history, with the result reported when it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Prior {
    pub call: CallSpec,
    pub result: Value,
}

/// What one record's check answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub decision: String,
    pub reasons: Vec<String>,
    pub detail: Value,
}

impl Answer {
    fn of(check: &Check) -> Self {
        let j = check.to_json();
        Answer {
            decision: check.decision.as_str().to_string(),
            reasons: check.reasons.iter().map(|r| r.to_string()).collect(),
            detail: j.get("detail").cloned().unwrap_or(Value::Null),
        }
    }

    /// The parts two answers are compared on: the decision, the reasons (a gate's refusal is
    /// its message) and the question a gate asks. A flow's name, a rule's words and other
    /// detail are not.
    fn decides_like(&self, other: &Answer) -> bool {
        self.decision == other.decision
            && self.reasons == other.reasons
            && self.detail.get("gate_question") == other.detail.get("gate_question")
    }

    pub fn to_json(&self) -> Value {
        json!({"decision": self.decision, "reasons": self.reasons, "detail": self.detail})
    }
}

/// A call on which the two records decide differently, with its history.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub history: Vec<Prior>,
    pub call: CallSpec,
    /// Each record's answers to the history's calls, then to the call.
    pub old_history: Vec<Answer>,
    pub new_history: Vec<Answer>,
    pub old: Answer,
    pub new: Answer,
}

/// What the diff says of one tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// No call with a history up to the depth decides differently.
    Same,
    Differs(Box<Example>),
    /// Neither proved alike nor shown to differ; why.
    Undecided(String),
}

/// One tool's line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReport {
    pub tool: String,
    /// Where the tool is: in both catalogues, only the old or only the new.
    pub presence: &'static str,
    pub verdict: Verdict,
}

/// The whole diff.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffReport {
    pub depth: u32,
    pub tools: Vec<ToolReport>,
}

impl DiffReport {
    pub fn differing(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Differs(_)))
    }

    pub fn undecided(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Undecided(_)))
    }

    pub fn same(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Same))
    }

    fn count(&self, f: impl Fn(&Verdict) -> bool) -> usize {
        self.tools.iter().filter(|t| f(&t.verdict)).count()
    }
}

/// Compares every tool of the two records.
pub fn diff(old: &Side, new: &Side, depth: u32) -> DiffReport {
    let names: BTreeSet<&str> = old
        .body
        .tools
        .iter()
        .chain(new.body.tools.iter())
        .map(|t| t.name.as_str())
        .collect();
    let runner = Runner {
        old,
        new,
        old_key: diff_key(&old.record),
        new_key: diff_key(&new.record),
    };
    let tools = names
        .into_iter()
        .map(|name| {
            let a = old.body.tools.iter().find(|t| t.name == name);
            let b = new.body.tools.iter().find(|t| t.name == name);
            let presence = match (a, b) {
                (Some(_), Some(_)) => "both",
                (Some(_), None) => "old",
                _ => "new",
            };
            ToolReport {
                tool: name.to_string(),
                presence,
                verdict: runner.tool(name, a, b, depth),
            }
        })
        .collect();
    DiffReport { depth, tools }
}

struct Runner<'a> {
    old: &'a Side,
    new: &'a Side,
    old_key: RecordKey,
    new_key: RecordKey,
}

/// The agents that may call `tool` in a record; `[None]` for a record with no agents.
fn callers(body: &RecordBody, tool: &str) -> Vec<Option<String>> {
    if body.agents.is_empty() {
        return if body.tools.iter().any(|t| t.name == tool) {
            vec![None]
        } else {
            Vec::new()
        };
    }
    let Some(idx) = body.tools.iter().position(|t| t.name == tool) else {
        return Vec::new();
    };
    body.agents
        .iter()
        .filter(|a| a.tools.contains(&(idx as u32)))
        .map(|a| Some(a.name.clone()))
        .collect()
}

fn period_word(p: Period) -> &'static str {
    match p {
        Period::Hour => "hour",
        Period::Day => "day",
        Period::Week => "week",
        Period::Month => "month",
    }
}

impl Runner<'_> {
    fn tool(&self, name: &str, a: Option<&Tool>, b: Option<&Tool>, depth: u32) -> Verdict {
        let old_callers = callers(&self.old.body, name);
        let new_callers = callers(&self.new.body, name);
        let mut agents: Vec<Option<String>> = old_callers.clone();
        for c in &new_callers {
            if !agents.contains(c) {
                agents.push(c.clone());
            }
        }
        let mut undecided: Option<String> = None;
        for agent in &agents {
            match self.tool_for(
                name,
                a,
                b,
                agent.as_deref(),
                depth,
                &old_callers,
                &new_callers,
            ) {
                Verdict::Same => {}
                Verdict::Differs(e) => return Verdict::Differs(e),
                Verdict::Undecided(why) => {
                    undecided.get_or_insert(why);
                }
            }
        }
        undecided.map_or(Verdict::Same, Verdict::Undecided)
    }

    #[allow(clippy::too_many_arguments)]
    fn tool_for(
        &self,
        name: &str,
        a: Option<&Tool>,
        b: Option<&Tool>,
        agent: Option<&str>,
        depth: u32,
        old_callers: &[Option<String>],
        new_callers: &[Option<String>],
    ) -> Verdict {
        let agent_owned = agent.map(str::to_string);
        let reach_old = old_callers.contains(&agent_owned);
        let reach_new = new_callers.contains(&agent_owned);
        let gates: Vec<&Gate> = a.iter().chain(b.iter()).map(|t| &t.gate).collect();
        let intents = analysis::intents(&gates);
        let mut candidates = Candidates::default();
        if reach_old != reach_new {
            // One record lets the agent call the tool, the other does not: any call shows it.
            let (body, tool) = match (a, b, reach_old) {
                (Some(t), _, true) => (&self.old.body, t),
                (_, Some(t), _) => (&self.new.body, t),
                (Some(t), None, _) => (&self.old.body, t),
                (None, None, _) => return Verdict::Same,
            };
            let base = self.base_call(body, tool, agent, &gates, None);
            for intent in &intents {
                candidates.push(Vec::new(), with_intent(&base, intent));
            }
            return match self.first_difference(candidates) {
                Some(e) => Verdict::Differs(Box::new(e)),
                None => Verdict::Undecided(format!(
                    "`{}` may call it in one record only, yet every call tried decides alike",
                    agent.unwrap_or("the agent")
                )),
            };
        }
        let (Some(a), Some(b)) = (a, b) else {
            return Verdict::Same;
        };
        let (ob, nb) = (&self.old.body, &self.new.body);
        let gate = gate_diff(ob, &a.gate, nb, &b.gate);
        let named: BTreeSet<String> = named_tools(ob, a)
            .into_iter()
            .chain(named_tools(nb, b))
            .chain([name.to_string()])
            .collect();
        let same_tool = tool_canon(ob, a) == tool_canon(nb, b);
        let same_world = world_canon(ob, a, agent, &named) == world_canon(nb, b, agent, &named);
        if gate == GateDiff::Same && same_tool && same_world {
            return Verdict::Same;
        }
        let old_base = self.base_call(ob, a, agent, &gates, None);
        let new_base = self.base_call(nb, b, agent, &gates, None);
        // The gates' differences first: each assignment as a call on each side's valid
        // arguments; then the valid call with each intent.
        let mut calls: Vec<CallSpec> = Vec::new();
        if let GateDiff::Differ(found) = &gate {
            for assignment in found {
                for base in [&old_base, &new_base] {
                    calls.push(assign(base, assignment));
                }
            }
        }
        for intent in &intents {
            for base in [&old_base, &new_base] {
                calls.push(with_intent(base, intent));
            }
        }
        let mut edges: Vec<CallSpec> = Vec::new();
        if !same_tool || !same_world {
            // Each argument at the edges of either schema and either tool's checks.
            let mut values = argument_values(ob, a);
            let strings = pattern_values(ob, a, nb, b)
                .into_iter()
                .map(|(k, v)| (k, vec![Some(v)]));
            for (k, vs) in argument_values(nb, b).into_iter().chain(strings) {
                match values.iter_mut().find(|(n, _)| *n == k) {
                    Some((_, list)) => list.extend(vs),
                    None => values.push((k, vs)),
                }
            }
            for intent in &intents {
                for (arg, vs) in &values {
                    for v in vs {
                        for base in [&old_base, &new_base] {
                            let mut c = with_intent(base, intent);
                            match v {
                                Some(v) => {
                                    c.arguments.insert(arg.clone(), v.clone());
                                    c.origins.insert(arg.clone(), json!("computed"));
                                }
                                None => {
                                    c.arguments.remove(arg);
                                    c.origins.remove(arg);
                                }
                            }
                            edges.push(c);
                        }
                    }
                }
                // The host's counts at each limit of either tool.
                for c in host_counts(&old_base, a, b) {
                    edges.push(with_intent(&c, intent));
                }
                // Arguments the model wrote (marks, taint, trust).
                let mut c = with_intent(&old_base, intent);
                c.origins.clear();
                edges.push(c);
                // A call that comes with each trust below `high` (`requires`, privileges).
                for trust in ["untrusted", "low", "medium"] {
                    let mut c = with_intent(&old_base, intent);
                    c.labels.insert("call".into(), vec![trust.into()]);
                    edges.push(c);
                }
            }
        }
        for c in calls.iter().chain(edges.iter()) {
            candidates.push(Vec::new(), c.clone());
        }
        // Then each call after each history up to the depth over the tools the rules name.
        for history in self.histories(name, agent, &named, depth, &gates) {
            for c in calls.iter().chain(edges.iter().take(EDGES_AFTER_HISTORY)) {
                candidates.push(history.clone(), c.clone());
            }
        }
        if let Some(e) = self.first_difference(candidates) {
            return Verdict::Differs(Box::new(e));
        }
        if let GateDiff::Undecided(why) = gate {
            return Verdict::Undecided(why);
        }
        if let GateDiff::Differ(_) = gate {
            return Verdict::Undecided(
                "the gates answer differently on values no call tried here gives (a tool's \
                 result, a function of a value)"
                    .into(),
            );
        }
        if !same_tool {
            return Verdict::Undecided(format!(
                "the tool's rules differ, yet no call with a history up to depth {depth} tried \
                 here decides differently"
            ));
        }
        if !same_world {
            return Verdict::Undecided(format!(
                "the settings, facts or tools it depends on differ, yet no call with a history \
                 up to depth {depth} tried here decides differently"
            ));
        }
        Verdict::Same
    }

    /// A call of the tool on valid arguments, every argument typed by the person, with the
    /// host's counts at zero.
    fn base_call(
        &self,
        body: &RecordBody,
        tool: &Tool,
        agent: Option<&str>,
        _gates: &[&Gate],
        intent: Option<String>,
    ) -> CallSpec {
        let arguments = base_arguments(body, tool);
        let origins = arguments
            .keys()
            .map(|k| (k.clone(), json!("computed")))
            .collect();
        let mut context = Map::new();
        let counts = |key: &str, periods: Vec<Period>, context: &mut Map<String, Value>| {
            if periods.is_empty() {
                return;
            }
            let per: Map<String, Value> = periods
                .into_iter()
                .map(|p| (period_word(p).to_string(), json!(0)))
                .collect();
            context.insert(key.to_string(), json!({ tool.name.clone(): per }));
        };
        let mut usage = Vec::new();
        let mut spent = Vec::new();
        for side in [&self.old.body, &self.new.body] {
            if let Some(t) = side.tools.iter().find(|t| t.name == tool.name) {
                usage.extend(t.at_most.and_then(|m| m.per));
                spent.extend(t.spend.as_ref().map(|s| s.per));
            }
        }
        counts("usage", usage, &mut context);
        counts("spent", spent, &mut context);
        CallSpec {
            tool: tool.name.clone(),
            agent: agent.map(str::to_string),
            arguments,
            origins,
            labels: BTreeMap::new(),
            context,
            intent,
        }
    }

    /// Histories of up to `depth` earlier calls over the tools the rules name that the agent
    /// may call in either record, each call on valid arguments.
    fn histories(
        &self,
        name: &str,
        agent: Option<&str>,
        named: &BTreeSet<String>,
        depth: u32,
        gates: &[&Gate],
    ) -> Vec<Vec<Prior>> {
        let mut pool: Vec<Prior> = Vec::new();
        let mut names: Vec<String> = named.iter().cloned().collect();
        // A tool that reads outside, for `not_after: untrusted`; an undoable write, for an
        // irreversible one.
        for side in [&self.old.body, &self.new.body] {
            let mine = |t: &&Tool| callers(side, &t.name).contains(&agent.map(str::to_string));
            if let Some(t) = side.tools.iter().filter(mine).find(|t| t.reads_outside) {
                names.push(t.name.clone());
            }
            let irreversible = side.tools.iter().any(|t| t.name == name && t.irreversible);
            if irreversible
                && let Some(t) = side
                    .tools
                    .iter()
                    .filter(mine)
                    .find(|t| matches!(t.undo, stalwart_record::Undo::Tool { .. }))
            {
                names.push(t.name.clone());
            }
        }
        names.sort();
        names.dedup();
        for n in &names {
            for side in [&self.old.body, &self.new.body] {
                let Some(t) = side.tools.iter().find(|t| t.name == *n) else {
                    continue;
                };
                if !callers(side, n).contains(&agent.map(str::to_string)) {
                    continue;
                }
                let call = self.base_call(side, t, agent, gates, None);
                if pool.iter().any(|p| p.call == call) {
                    continue;
                }
                pool.push(Prior {
                    result: result_of(side, t, name),
                    call,
                });
            }
        }
        let mut out: Vec<Vec<Prior>> = Vec::new();
        let mut frontier: Vec<Vec<Prior>> = vec![Vec::new()];
        for _ in 0..depth {
            let mut next = Vec::new();
            for h in &frontier {
                for p in &pool {
                    let mut longer = h.clone();
                    longer.push(p.clone());
                    next.push(longer);
                    if out.len() + next.len() >= MAX_HISTORIES {
                        break;
                    }
                }
            }
            out.extend(next.iter().cloned());
            frontier = next;
            if out.len() >= MAX_HISTORIES {
                break;
            }
        }
        out.truncate(MAX_HISTORIES);
        out
    }

    /// Runs each candidate on both records; the first whose answers differ.
    fn first_difference(&self, candidates: Candidates) -> Option<Example> {
        for (history, call) in candidates.list {
            let (old_history, old) = run(&self.old.record, &self.old_key, &history, &call);
            let (new_history, new) = run(&self.new.record, &self.new_key, &history, &call);
            if !old.decides_like(&new) {
                return Some(Example {
                    history,
                    call,
                    old_history,
                    new_history,
                    old,
                    new,
                });
            }
        }
        None
    }
}

/// Candidate calls, each with its history, in the order tried (no repeats).
#[derive(Default)]
struct Candidates {
    list: Vec<(Vec<Prior>, CallSpec)>,
    /// The candidates so far, written out.
    seen: std::collections::HashSet<String>,
}

impl Candidates {
    fn push(&mut self, history: Vec<Prior>, call: CallSpec) {
        let mut key = call.to_json().to_string();
        for p in &history {
            key.push_str(&p.call.to_json().to_string());
        }
        if self.seen.insert(key) {
            self.list.push((history, call));
        }
    }
}

fn with_intent(base: &CallSpec, intent: &Option<String>) -> CallSpec {
    let mut c = base.clone();
    c.intent = intent.clone();
    c
}

/// A call with the terms of a gate assignment in place: arguments and facts.
fn assign(base: &CallSpec, a: &Assignment) -> CallSpec {
    let mut c = with_intent(base, &a.intent);
    for (key, value) in &a.terms {
        let v = json_value(value);
        match place(key) {
            Some(Place::Argument(name)) => {
                if v.is_null() {
                    c.arguments.remove(&name);
                    c.origins.remove(&name);
                } else {
                    c.arguments.insert(name.clone(), v);
                    c.origins.insert(name, json!("computed"));
                }
            }
            Some(Place::Member(name, field)) => {
                let entry = c
                    .arguments
                    .entry(name.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
                if !entry.is_object() {
                    *entry = Value::Object(Map::new());
                }
                if let Some(m) = entry.as_object_mut() {
                    m.insert(field, v);
                }
                c.origins.insert(name, json!("computed"));
            }
            Some(Place::Fact(name)) if !v.is_null() => {
                c.context.insert(name, v);
            }
            Some(Place::Fact(_)) | None => {}
        }
    }
    c
}

/// The call with the host's counts at each edge of either tool's limit and spend.
fn host_counts(base: &CallSpec, a: &Tool, b: &Tool) -> Vec<CallSpec> {
    let mut out = Vec::new();
    for t in [a, b] {
        if let Some(m) = t.at_most
            && let Some(per) = m.per
        {
            for n in [f64::from(m.count).max(1.0) - 1.0, f64::from(m.count)] {
                let mut c = base.clone();
                c.context.insert(
                    "usage".into(),
                    json!({ t.name.clone(): { period_word(per): analysis::number(n) } }),
                );
                out.push(c);
            }
            let mut c = base.clone();
            c.context.remove("usage");
            out.push(c);
        }
        if let Some(s) = &t.spend {
            let amount = base
                .arguments
                .get(&s.argument)
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            for n in [s.at_most - amount, s.at_most - amount + 1.0] {
                let mut c = base.clone();
                c.context.insert(
                    "spent".into(),
                    json!({ t.name.clone(): { period_word(s.per): analysis::number(n.max(0.0)) } }),
                );
                out.push(c);
            }
            let mut c = base.clone();
            c.context.remove("spent");
            out.push(c);
        }
    }
    out
}

/// The result an earlier call of `tool` reports: each of its result fields, with the value a
/// fact compares it with, a number where a check of `checked` reads it, else a text.
fn result_of(body: &RecordBody, tool: &Tool, checked: &str) -> Value {
    let idx = body.tools.iter().position(|t| t.name == tool.name);
    let mut fields: Map<String, Value> = Map::new();
    let mut names: Vec<String> = tool.result_fields.clone();
    for f in &body.facts {
        if Some(f.tool as usize) == idx {
            names.push(f.field.clone());
        }
    }
    for name in names {
        let fact = body
            .facts
            .iter()
            .find(|f| Some(f.tool as usize) == idx && f.field == name);
        let from_check = body
            .tools
            .iter()
            .filter(|t| t.name == checked)
            .flat_map(|t| t.checks.iter())
            .any(|c| matches!(&c.operand, stalwart_record::CheckOperand::From { tool: t, field } if Some(*t as usize) == idx && *field == name));
        let v = match fact.and_then(|f| f.equals) {
            Some(v) => analysis::record_value(body, v, 0),
            None if from_check => json!(100),
            None => json!("A1"),
        };
        fields.insert(name, v);
    }
    Value::Object(fields)
}

/// Runs a history and then a call on one record, from a new session: each earlier call is
/// checked, a confirm is confirmed with its token, and an allowed call is reported ran with its
/// result. The answers to the earlier calls (the last one asked of each) and to the call.
pub fn run(
    record: &Record,
    key: &RecordKey,
    history: &[Prior],
    call: &CallSpec,
) -> (Vec<Answer>, Answer) {
    let body = record.body();
    let env = Env { key, now: DIFF_NOW };
    let agent = call.agent.clone().unwrap_or_default();
    let mut session = Session::new(agent, "diff");
    let mut answers = Vec::new();
    for prior in history {
        let mut c = prior.call.call();
        let mut check = stalwart_runtime::check_tool_call(body, env, &mut session, &c);
        if check.decision == Decision::Confirm
            && let Some(token) = check.confirmation.clone()
        {
            c.confirmation = Some(token);
            check = stalwart_runtime::check_tool_call(body, env, &mut session, &c);
        }
        if check.decision == Decision::Allow
            && let Some(step) = session.calls().last().map(|e| e.step)
        {
            let _ = stalwart_runtime::report(
                env,
                &mut session,
                step,
                Outcome::Ran,
                Some(prior.result.clone()),
            );
        }
        answers.push(Answer::of(&check));
    }
    let check = stalwart_runtime::check_tool_call(body, env, &mut session, &call.call());
    (answers, Answer::of(&check))
}
