//! Every name of a rulebook and of an agent description, where it is defined and where it is used,
//! with spans: what go to definition, find references and rename read.
//!
//! Names are collected per file ([`rulebook_file_names`], one query per rule file and dialect,
//! over the same parse the rulebook model reads) and per agent description ([`agent_names`]:
//! agent.yaml and every tool declaration its catalogue brings in, wherever it is written). Each
//! occurrence carries its kind, its name as the model keys it (a 2.x `flow user ask refund` is the
//! intent `ask refund`; `await RefundCardAction` is the tool `refund_card`) and how it is spelled,
//! so a rename writes each occurrence in its own spelling. A file with syntax errors gives the
//! names its tree holds: the parse never fails.

use stalwart_agent::{AgentFile, ToolDecl, UndoDecl};
use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::Span;
use stalwart_syntax::Dialect;
use stalwart_syntax::sheet::ast::{Cell, CellMap, Sheet};
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

use crate::rulebook::RulebookModule;

/// What a name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameKind {
    /// A flow (1.0 flows and subflows, 2.x flows other than intents and bot messages).
    Flow,
    /// A user message (intent): 1.0 `define user`, 2.x `flow user …`.
    Intent,
    /// A bot message: 1.0 `define bot`, 2.x `flow bot …`.
    BotMessage,
    /// A tool of the catalogue (or an action the rulebook calls).
    Tool,
    /// A fact: agent.yaml's `facts:`, `$name` in conditions.
    Fact,
    /// An agent of agent.yaml.
    Agent,
    /// A custom graph step of agent.yaml (`steps:`).
    Step,
    /// A rule of a rule sheet (its `rule` cell).
    Rule,
}

impl NameKind {
    /// The word the editor shows for it.
    pub fn word(self) -> &'static str {
        match self {
            NameKind::Flow => "flow",
            NameKind::Intent => "user message",
            NameKind::BotMessage => "bot message",
            NameKind::Tool => "tool",
            NameKind::Fact => "fact",
            NameKind::Agent => "agent",
            NameKind::Step => "step",
            NameKind::Rule => "rule",
        }
    }
}

/// How an occurrence writes its name, so that a rename can write the new one the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spelling {
    /// The name as is (`refund_card`, `ask refund`).
    Plain,
    /// A 2.x action: `RefundCardAction` for the tool `refund_card`.
    Action,
}

/// One occurrence of a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NameRef {
    pub kind: NameKind,
    /// The name as the model keys it.
    pub name: String,
    /// Exactly the characters that write the name.
    pub span: Span,
    /// A definition (else a use).
    pub definition: bool,
    pub spelling: Spelling,
}

/// The names of one file (or of an agent description and its sources), in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub refs: Vec<NameRef>,
}

impl Names {
    fn def(&mut self, kind: NameKind, name: impl Into<String>, span: Span) {
        self.push(kind, name.into(), span, true, Spelling::Plain);
    }

    fn used(&mut self, kind: NameKind, name: impl Into<String>, span: Span) {
        self.push(kind, name.into(), span, false, Spelling::Plain);
    }

    fn push(&mut self, kind: NameKind, name: String, span: Span, def: bool, spelling: Spelling) {
        if name.is_empty() {
            return;
        }
        self.refs.push(NameRef {
            kind,
            name,
            span,
            definition: def,
            spelling,
        });
    }

    /// The occurrence whose span holds `offset` (its end included, so a cursor just after a name
    /// finds it), the narrowest first.
    pub fn at(&self, offset: u32) -> Option<&NameRef> {
        self.refs
            .iter()
            .filter(|r| r.span.start <= offset && offset <= r.span.end)
            .min_by_key(|r| r.span.end - r.span.start)
    }
}

/// The names a rule file defines and uses, read from the parse in `dialect` (the rulebook's; the
/// same parse [`super::rulebook_model`] reads).
#[salsa::tracked(returns(ref))]
pub fn rulebook_file_names(db: &dyn Db, file: SourceFile, dialect: Dialect) -> Names {
    let parsed = super::parse_rulebook_as(db, file, dialect);
    let text = file.text(db);
    let mut names = Names::default();
    match &parsed.module {
        RulebookModule::V1(m) => v1_names(m, text, &mut names),
        RulebookModule::V2(m) => v2_names(m, text, &mut names),
        RulebookModule::Sheet(s) => sheet_names(s, &mut names),
    }
    names
}

/// The names of an agent description: agent.yaml's agents, facts, steps and the tools they name,
/// and every tool declaration of its catalogue (inline, catalogue files, MCP answers, Python
/// modules) with the tools each one names (`after`, `not_after`, `undo`, `checks`). Spans carry
/// their own file.
#[salsa::tracked(returns(ref))]
pub fn agent_names(db: &dyn Db, file: SourceFile) -> Names {
    let parsed = crate::agent::parse_agent_file(db, file);
    let catalogue = crate::agent::agent_catalogue(db, file);
    let mut names = Names::default();
    agent_file_names(&parsed.value, &mut names);
    for tool in &catalogue.tools {
        tool_names(tool, &mut names);
    }
    names
}

fn agent_file_names(agent: &AgentFile, names: &mut Names) {
    for a in &agent.agents {
        names.def(NameKind::Agent, &a.name.value, a.name.span);
        for t in &a.tools {
            names.used(NameKind::Tool, &t.value, t.span);
        }
        for h in &a.hands_off_to {
            names.used(NameKind::Agent, &h.value, h.span);
        }
    }
    for f in &agent.facts {
        names.def(NameKind::Fact, &f.name.value, f.name.span);
        names.used(NameKind::Tool, &f.tool.value, f.tool.span);
    }
    for s in &agent.steps {
        names.def(NameKind::Step, &s.name.value, s.name.span);
        names.used(NameKind::Agent, &s.agent.value, s.agent.span);
        for c in &s.calls {
            names.used(NameKind::Tool, &c.value, c.span);
        }
    }
    // Routes name steps, `<agent>_model` and `tool:<name>`: read once every step is known.
    for s in &agent.steps {
        for r in s.routes.iter().chain(&s.from) {
            route_name(agent, &r.value, r.span, names);
        }
    }
    for c in &agent.channels {
        names.used(NameKind::Agent, &c.hands_to.value, c.hands_to.span);
    }
}

/// A route of a step: `tool:<name>`, `<agent>_model`, or another step.
fn route_name(agent: &AgentFile, route: &str, span: Span, names: &mut Names) {
    if let Some(tool) = route.strip_prefix("tool:") {
        let start = span.end.saturating_sub(tool.len() as u32);
        names.used(NameKind::Tool, tool, Span::new(span.file, start, span.end));
    } else if let Some(a) = route.strip_suffix("_model")
        && agent.agents.iter().any(|d| d.name.value == a)
    {
        let end = span.start.saturating_add(a.len() as u32).min(span.end);
        names.used(NameKind::Agent, a, Span::new(span.file, span.start, end));
    } else if agent.steps.iter().any(|s| s.name.value == route) {
        names.used(NameKind::Step, route, span);
    }
}

fn tool_names(tool: &ToolDecl, names: &mut Names) {
    names.def(NameKind::Tool, &tool.name.value, tool.name.span);
    for a in &tool.after {
        names.used(NameKind::Tool, &a.tool.value, a.tool.span);
    }
    if let Some(undo) = &tool.undo
        && let UndoDecl::Tool { tool: t, .. } = &undo.value
    {
        names.used(NameKind::Tool, &t.value, t.span);
    }
    for c in &tool.checks {
        if let stalwart_agent::CheckOperand::From { tool: t, .. } = &c.operand.value {
            names.used(NameKind::Tool, &t.value, t.span);
        }
    }
}

fn v1_names(module: &v1::Module, text: &str, names: &mut Names) {
    for item in &module.items {
        match item {
            v1::Item::User(u) => names.def(NameKind::Intent, u.name.text.as_str(), u.name.span),
            v1::Item::Bot(b) => names.def(NameKind::BotMessage, b.name.text.as_str(), b.name.span),
            v1::Item::Flow(f) => {
                if let Some(n) = &f.name {
                    names.def(NameKind::Flow, n.text.as_str(), n.span);
                }
                for s in f.body.iter() {
                    s.walk(&mut |s| v1_stmt(s, text, names));
                }
            }
            v1::Item::Stmt(s) => s.walk(&mut |s| v1_stmt(s, text, names)),
            v1::Item::Import(_) | v1::Item::Other(_) => {}
        }
    }
}

fn v1_stmt(stmt: &v1::Stmt, text: &str, names: &mut Names) {
    match &stmt.kind {
        v1::StmtKind::User(refs) => v1_users(refs, names),
        v1::StmtKind::Bot(b) => v1_bot(b, names),
        v1::StmtKind::Run(run) => {
            let action = &run.action;
            names.used(NameKind::Tool, action.text.as_str(), action.span);
        }
        v1::StmtKind::Do(flow) => names.used(NameKind::Flow, flow.text.as_str(), flow.span),
        v1::StmtKind::If(i) => {
            for b in &i.branches {
                if let Some(c) = &b.condition {
                    facts_in(text, c.span, names);
                }
            }
        }
        v1::StmtKind::While(w) => {
            if let Some(c) = &w.condition {
                facts_in(text, c.span, names);
            }
        }
        v1::StmtKind::When(w) => {
            for b in &w.branches {
                match &b.on {
                    v1::WhenOn::User(refs) => v1_users(refs, names),
                    v1::WhenOn::Other { keyword, rest } => {
                        if keyword == "bot"
                            && let Some(r) = rest
                        {
                            names.used(NameKind::BotMessage, r.text.as_str(), r.span);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn v1_users(refs: &[v1::UserRef], names: &mut Names) {
    for r in refs {
        if r.intent.text != "*" {
            names.used(NameKind::Intent, r.intent.text.as_str(), r.intent.span);
        }
    }
}

fn v1_bot(b: &v1::BotRef, names: &mut Names) {
    match b.tool() {
        Some(tool) => {
            let end = b.message.span.end;
            let start = end.saturating_sub(tool.len() as u32);
            names.used(
                NameKind::Tool,
                tool,
                Span::new(b.message.span.file, start, end),
            );
        }
        None => names.used(
            NameKind::BotMessage,
            b.message.text.as_str(),
            b.message.span,
        ),
    }
}

/// `$name`s written in the source text at `span`: uses of facts.
fn facts_in(text: &str, span: Span, names: &mut Names) {
    let Some(slice) = text.get(span.start as usize..span.end as usize) else {
        return;
    };
    for (name, start, end) in crate::checks::variables_in_text(slice) {
        // `$args.x` reads an argument, not a fact.
        if name == "args" {
            continue;
        }
        let span = Span::new(
            span.file,
            span.start + start as u32,
            span.start + end as u32,
        );
        names.used(NameKind::Fact, name, span);
    }
}

fn v2_names(module: &v2::Module, text: &str, names: &mut Names) {
    for item in &module.items {
        match item {
            v2::Item::Flow(f) => v2_flow(f, text, names),
            v2::Item::Stmt(s) => v2_stmt(s, text, names),
            v2::Item::Import(_) | v2::Item::Docstring(_) => {}
        }
    }
}

fn v2_flow(flow: &v2::Flow, text: &str, names: &mut Names) {
    let (kind, name, span) = v2_flow_name(&flow.name, flow.name_span, text);
    names.def(kind, name, span);
    for s in &flow.body {
        v2_stmt(s, text, names);
    }
}

/// A 2.x flow name as the model keys it: `user ask refund` is the intent `ask refund`, `bot
/// refuse` the bot message `refuse`; the span narrowed to the words after the prefix.
fn v2_flow_name<'a>(name: &'a str, span: Span, text: &str) -> (NameKind, &'a str, Span) {
    for (prefix, kind) in [("user ", NameKind::Intent), ("bot ", NameKind::BotMessage)] {
        if let Some(rest) = name.strip_prefix(prefix) {
            let written = text
                .get(span.start as usize..span.end as usize)
                .unwrap_or("");
            let word = prefix.trim_end();
            let after = written
                .strip_prefix(word)
                .map(|r| written.len() - r.trim_start().len())
                .unwrap_or(0);
            let start = span.start.saturating_add(after as u32).min(span.end);
            return (kind, rest, Span::new(span.file, start, span.end));
        }
    }
    (NameKind::Flow, name, span)
}

fn v2_stmt(stmt: &v2::Stmt, text: &str, names: &mut Names) {
    match &stmt.kind {
        v2::StmtKind::Spec { expr, .. } => v2_spec_expr(expr, text, names),
        v2::StmtKind::When { branches, .. } => {
            for b in branches {
                v2_spec_expr(&b.cond, text, names);
            }
        }
        v2::StmtKind::If { branches, .. } => {
            for b in branches {
                facts_in(text, b.cond.span, names);
            }
        }
        v2::StmtKind::While { cond, .. } => facts_in(text, cond.span, names),
        v2::StmtKind::Flow(f) => v2_flow(f, text, names),
        _ => {}
    }
    for body in crate::checks::v2_bodies(&stmt.kind) {
        for s in body {
            v2_stmt(s, text, names);
        }
    }
}

fn v2_spec_expr(expr: &v2::SpecExpr, text: &str, names: &mut Names) {
    match expr {
        v2::SpecExpr::Spec(spec) => v2_spec(spec, text, names),
        v2::SpecExpr::And(items, _) | v2::SpecExpr::Or(items, _) => {
            for i in items.iter() {
                v2_spec_expr(i, text, names);
            }
        }
    }
}

fn v2_spec(spec: &v2::Spec, text: &str, names: &mut Names) {
    let v2::SpecTarget::Name { name, span } = &spec.target else {
        return;
    };
    match spec.kind() {
        v2::SpecKind::Flow => {
            if name.starts_with("user said") || name.starts_with("bot say") {
                return;
            }
            let (kind, n, s) = v2_flow_name(name, *span, text);
            match n
                .strip_prefix("execute_")
                .filter(|_| kind == NameKind::BotMessage)
            {
                Some(tool) => {
                    let start = s.end.saturating_sub(tool.len() as u32);
                    names.used(NameKind::Tool, tool, Span::new(s.file, start, s.end));
                }
                None => names.used(kind, n, s),
            }
        }
        v2::SpecKind::Action => {
            if let Some(tool) = stalwart_syntax::v2::action_tool_name(name) {
                names.push(NameKind::Tool, tool, *span, false, Spelling::Action);
            }
        }
        v2::SpecKind::Event | v2::SpecKind::Reference => {}
    }
}

fn sheet_names(sheet: &Sheet, names: &mut Names) {
    for row in &sheet.rows {
        if verbatim(&row.rule) {
            names.def(NameKind::Rule, row.rule.text.trim(), trimmed(&row.rule));
        }
        if verbatim(&row.tool) {
            names.used(NameKind::Tool, row.tool.text.trim(), trimmed(&row.tool));
        }
        for (name, start, end) in crate::checks::variables_in_text(&row.when_cell.text) {
            if name == "args" {
                continue;
            }
            let span = row.when_cell.span_of(start as u32, end as u32);
            names.used(NameKind::Fact, name, span);
        }
    }
}

/// A cell whose text is written as is in the source (its spans can be renamed in place).
fn verbatim(cell: &Cell) -> bool {
    matches!(cell.map, CellMap::Verbatim)
}

/// The span of a cell's text without its surrounding blanks.
fn trimmed(cell: &Cell) -> Span {
    let lead = cell.text.len() - cell.text.trim_start().len();
    let trail = cell.text.len() - cell.text.trim_end().len();
    cell.span_of(lead as u32, (cell.text.len() - trail) as u32)
}

/// The names of every rule file of a rulebook, each read in the dialect the model reads it in.
pub fn rulebook_names<'db>(
    db: &'db dyn Db,
    set: super::RulebookSet<'db>,
) -> Vec<(SourceFile, &'db Names)> {
    let config = super::rulebook_config(db, set);
    set.files(db)
        .iter()
        .map(|&f| {
            let dialect = super::file_dialect(db, f, config).unwrap_or(Dialect::V1);
            (f, rulebook_file_names(db, f, dialect))
        })
        .collect()
}
