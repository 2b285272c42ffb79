//! The checks of Colang 1.0 modules (see the parent module for the decisions they follow).

use std::collections::{BTreeMap, BTreeSet};

use stalwart_diagnostics::{Diagnostic, Span, did_you_mean};
use stalwart_syntax::expr::{Expr, ExprKind};
use stalwart_syntax::v1::ast::{Condition, ConditionExpr, FlowDef, Item, Module, Stmt, StmtKind};

use super::codes;
use super::common::{
    BUILTIN_BOT_MESSAGES, BUILTIN_VARIABLES, Known, Visible, bot_names_tool, read_before_set,
    tool_named_by, undefined_bot, unknown_tool, unreachable,
};

/// Checks a Colang 1.0 module. `catalogue`: the tools the agent declares (tools are not checked
/// without it); `facts`: the facts agent.yaml declares; `known`: what the rulebook's other files
/// and the standard library define.
pub fn check_v1(
    module: &Module,
    catalogue: Option<&BTreeSet<String>>,
    facts: &BTreeSet<String>,
    known: &Known,
) -> Vec<Diagnostic> {
    let library = crate::model::library::library();
    let messages = Visible::new(
        defined_messages(module),
        &known.messages,
        Some(&library.v1_bot_messages),
    );
    let all_flows = Visible::new(
        flows(module).map(|f| f.id.as_str()),
        &known.flows,
        Some(&library.v1_flows),
    );
    let mut ctx = Ctx {
        messages,
        flows: all_flows,
        catalogue,
        out: Vec::new(),
    };
    duplicate_flows(module, &mut ctx.out);
    let mut bodies: Vec<&[Stmt]> = flows(module).map(|f| &*f.body).collect();
    let top: Vec<Stmt> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Stmt(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    bodies.push(&top);
    for body in &bodies {
        ctx.block(body);
    }
    variables(&bodies, facts, &mut ctx.out);
    stalwart_diagnostics::sort(&mut ctx.out);
    ctx.out
}

/// The bot messages the module defines: by `define bot`, and by `bot <message> "…"` statements
/// (or ones with example lines under them) anywhere in a flow.
fn defined_messages(module: &Module) -> Vec<&str> {
    let mut names = Vec::new();
    for item in &module.items {
        let body = match item {
            Item::Bot(b) => {
                names.push(b.name.text.as_str());
                continue;
            }
            Item::Flow(f) => &f.body,
            Item::Stmt(s) => std::slice::from_ref(s),
            _ => continue,
        };
        for stmt in body {
            stmt.walk(&mut |s| {
                if let StmtKind::Bot(bot) = &s.kind
                    && bot.defines_message()
                {
                    names.push(bot.message.text.as_str());
                }
            });
        }
    }
    names
}

fn flows(module: &Module) -> impl Iterator<Item = &FlowDef> {
    module.items.iter().filter_map(|i| match i {
        Item::Flow(f) => Some(f),
        _ => None,
    })
}

struct Ctx<'a> {
    messages: Visible<'a>,
    flows: Visible<'a>,
    catalogue: Option<&'a BTreeSet<String>>,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn block(&mut self, stmts: &[Stmt]) {
        let mut ended: Option<Span> = None;
        let mut reported = false;
        for stmt in stmts {
            if matches!(stmt.kind, StmtKind::Label(_)) {
                // A label can be jumped to: what follows it runs again.
                ended = None;
                reported = false;
            } else if let Some(at) = ended
                && !reported
            {
                self.out.push(unreachable(stmt.span, at));
                reported = true;
            }
            self.stmt(stmt);
            if ended.is_none() && matches!(stmt.kind, StmtKind::Stop | StmtKind::Return(_)) {
                ended = Some(stmt.span);
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Bot(bot) => match bot.tool() {
                Some(tool) => self.tool(tool, bot.message.span, |t| format!("execute_{t}")),
                None => {
                    let name = bot.message.text.as_str();
                    if bot.utterance().is_none()
                        && let Some(tool) = tool_named_by(self.catalogue, name)
                    {
                        self.out.push(bot_names_tool(
                            &tool,
                            bot.message.span,
                            format!("execute {tool}"),
                        ));
                    } else if !name.is_empty()
                        && !name.starts_with('$')
                        && bot.utterance().is_none()
                        && !BUILTIN_BOT_MESSAGES.contains(&name)
                        && !self.messages.contains(name)
                    {
                        let defined: Vec<&str> = self.messages.iter().collect();
                        self.out.push(undefined_bot(
                            name,
                            bot.message.span,
                            format!("no `define bot {name}` in this file"),
                            &defined,
                            str::to_string,
                        ));
                    }
                }
            },
            StmtKind::Run(run) => {
                self.tool(&run.action.text, run.action.span, str::to_string);
            }
            StmtKind::Do(name) if !self.flows.contains(name.text.as_str()) => {
                let mut d = Diagnostic::warning(
                    codes::UNDEFINED_FLOW,
                    name.span,
                    format!("subflow `{}` is not defined", name.text),
                )
                .with_label(format!(
                    "no `define subflow {}` or `define flow {}` in this file",
                    name.text, name.text
                ));
                if let Some(near) = did_you_mean(&name.text, self.flows.sorted()) {
                    d = d.with_fix(name.span, near, format!("did you mean `{near}`"));
                } else {
                    d = d.with_note("a rulebook folder may define it in another file");
                }
                self.out.push(d);
            }
            StmtKind::If(branch) => {
                for b in &branch.branches {
                    self.block(&b.body);
                }
                if let Some(body) = &branch.else_body {
                    self.block(body);
                }
            }
            StmtKind::When(when) => {
                for b in &when.branches {
                    self.block(&b.body);
                }
            }
            StmtKind::While(w) => self.block(&w.body),
            StmtKind::Any(alternatives) => {
                for alt in alternatives {
                    self.stmt(alt);
                }
            }
            _ => {}
        }
    }

    fn tool(&mut self, tool: &str, span: Span, spell: fn(&str) -> String) {
        let Some(catalogue) = self.catalogue else {
            return;
        };
        if !catalogue.contains(tool) {
            self.out.extend(unknown_tool(
                catalogue,
                tool,
                span,
                format!("tool `{tool}` is not in the catalogue"),
                spell,
            ));
        }
    }
}

/// Two flows (or subflows) with one name.
fn duplicate_flows(module: &Module, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for flow in flows(module) {
        let Some(name) = &flow.name else { continue };
        if let Some(first) = seen.get(name.text.as_str()) {
            out.push(
                Diagnostic::error(
                    codes::DUPLICATE_FLOW,
                    name.span,
                    format!("flow `{}` is defined twice", name.text),
                )
                .with_label("a second definition")
                .with_secondary(*first, "the first definition"),
            );
        } else {
            seen.insert(name.text.as_str(), name.span);
        }
    }
}

/// Where each flow body (by index) sets and reads variables.
#[derive(Default)]
struct Uses {
    /// Variable → (flow, where).
    sets: BTreeMap<String, Vec<(usize, Span)>>,
    reads: Vec<(String, usize, Span)>,
}

/// Variables read in `if`/`while` conditions before their flow sets them (variables are global
/// in 1.0: a set in another flow counts as earlier).
fn variables(bodies: &[&[Stmt]], facts: &BTreeSet<String>, out: &mut Vec<Diagnostic>) {
    let mut uses = Uses::default();
    for (flow, body) in bodies.iter().enumerate() {
        collect(body, flow, &mut uses);
    }
    let mut reported: BTreeSet<(usize, &str)> = BTreeSet::new();
    for (name, flow, span) in &uses.reads {
        if facts.contains(name) || BUILTIN_VARIABLES.contains(&name.as_str()) {
            continue;
        }
        let Some(sets) = uses.sets.get(name) else {
            continue;
        };
        let earlier = sets.iter().any(|(f, s)| f != flow || s.start < span.start);
        if earlier || !reported.insert((*flow, name.as_str())) {
            continue;
        }
        if let Some((_, first)) = sets.iter().min_by_key(|(_, s)| s.start) {
            out.push(read_before_set(name, *span, *first));
        }
    }
}

fn collect(stmts: &[Stmt], flow: usize, uses: &mut Uses) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Set(set) => {
                let base = set.target.text.split('.').next().unwrap_or("");
                uses.sets
                    .entry(base.to_string())
                    .or_default()
                    .push((flow, stmt.span));
            }
            StmtKind::Run(run) => {
                if let Some(result) = &run.result {
                    uses.sets
                        .entry(result.text.to_string())
                        .or_default()
                        .push((flow, stmt.span));
                }
            }
            StmtKind::If(branch) => {
                for b in &branch.branches {
                    reads(b.condition.as_ref(), flow, uses);
                    collect(&b.body, flow, uses);
                }
                if let Some(body) = &branch.else_body {
                    collect(body, flow, uses);
                }
            }
            StmtKind::While(w) => {
                reads(w.condition.as_ref(), flow, uses);
                collect(&w.body, flow, uses);
            }
            StmtKind::When(when) => {
                for b in &when.branches {
                    collect(&b.body, flow, uses);
                }
            }
            StmtKind::Any(alternatives) => collect(alternatives, flow, uses),
            _ => {}
        }
    }
}

fn reads(cond: Option<&Condition>, flow: usize, uses: &mut Uses) {
    let Some(cond) = cond else { return };
    match &cond.expr {
        ConditionExpr::Parsed(expr) => {
            let mut stack: Vec<&Expr> = vec![expr];
            while let Some(e) = stack.pop() {
                if let ExprKind::Fact(name) = &e.kind {
                    uses.reads.push((name.clone(), flow, e.span));
                }
                stack.extend(e.children().into_iter().rev());
            }
        }
        ConditionExpr::Unparsed => {
            for (name, _, _) in super::common::variables_in(&cond.text) {
                let name = name.split('.').next().unwrap_or("").to_string();
                uses.reads.push((name, flow, cond.span));
            }
        }
    }
}
