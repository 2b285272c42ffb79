//! The checks of Colang 2.x modules (see the parent module for the decisions they follow).
//! Variables are named by their source text, so the check takes the module's text too.

use std::collections::{BTreeMap, BTreeSet};

use stalwart_diagnostics::{Diagnostic, Span, did_you_mean};
use stalwart_syntax::v2::action_tool_name;
use stalwart_syntax::v2::ast::{
    CallArg, DictEntry, Expr, ExprKind, Flow, Item, Module, Spec, SpecExpr, SpecKind, SpecTarget,
    Stmt, StmtKind, Subscript,
};

use super::codes;
use super::common::{
    BUILTIN_BOT_MESSAGES, BUILTIN_VARIABLES, Known, Visible, bot_names_tool, read_before_set,
    tool_named_by, undefined_bot, unknown_tool, unreachable,
};

/// Checks a Colang 2.x module whose source is `text`. `catalogue`: the tools the agent declares
/// (actions are not checked without it); `facts`: the facts agent.yaml declares.
pub fn check_v2(
    module: &Module,
    text: &str,
    catalogue: Option<&BTreeSet<String>>,
    facts: &BTreeSet<String>,
    known: &Known,
) -> Vec<Diagnostic> {
    let mut all: Vec<&Flow> = Vec::new();
    for item in &module.items {
        if let Item::Flow(f) = item {
            nested_flows(f, &mut all);
        }
    }
    let flows = Visible::new(all.iter().map(|f| f.name.as_str()), &known.flows, None);
    let mut ctx = Ctx {
        text,
        flows,
        imports: known.opaque,
        library_elsewhere: &known.library_elsewhere,
        catalogue,
        facts,
        out: Vec::new(),
    };
    duplicate_flows(module, &mut ctx.out);
    for flow in &all {
        ctx.block(&flow.body);
        ctx.variables(flow);
    }
    for item in &module.items {
        if let Item::Stmt(s) = item {
            ctx.stmt(s);
        }
    }
    stalwart_diagnostics::sort(&mut ctx.out);
    ctx.out
}

/// The flow and the flows defined inside its body, in source order.
pub(crate) fn nested_flows<'a>(flow: &'a Flow, out: &mut Vec<&'a Flow>) {
    out.push(flow);
    let mut stack: Vec<&'a [Stmt]> = vec![&flow.body];
    while let Some(body) = stack.pop() {
        for s in body {
            match &s.kind {
                StmtKind::Flow(f) => nested_flows(f, out),
                other => stack.extend(bodies(other)),
            }
        }
    }
}

/// The blocks a statement holds (not those of a nested flow).
pub(crate) fn bodies(kind: &StmtKind) -> Vec<&[Stmt]> {
    match kind {
        StmtKind::If {
            branches,
            else_body,
        } => branches
            .iter()
            .map(|b| b.body.as_slice())
            .chain(else_body.as_deref())
            .collect(),
        StmtKind::When {
            branches,
            else_body,
        } => branches
            .iter()
            .map(|b| b.body.as_slice())
            .chain(else_body.as_deref())
            .collect(),
        StmtKind::While { body, .. } => vec![body.as_slice()],
        _ => Vec::new(),
    }
}

/// Flows with one name of which more than one lacks `@override`.
fn duplicate_flows(module: &Module, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for item in &module.items {
        let Item::Flow(flow) = item else { continue };
        if flow.decorators.iter().any(|d| d.name == "override") {
            continue;
        }
        if let Some(first) = seen.get(flow.name.as_str()) {
            out.push(
                Diagnostic::warning(
                    codes::DUPLICATE_FLOW_WITHOUT_OVERRIDE,
                    flow.name_span,
                    format!("flow `{}` is defined twice", flow.name),
                )
                .with_label("a second definition")
                .with_secondary(*first, "the first definition")
                .with_help("mark the definition that replaces the other with `@override`"),
            );
        } else {
            seen.insert(flow.name.as_str(), flow.name_span);
        }
    }
}

struct Ctx<'a> {
    text: &'a str,
    flows: Visible<'a>,
    /// Some import names a module the checks cannot see.
    imports: bool,
    library_elsewhere: &'a std::collections::BTreeMap<String, String>,
    catalogue: Option<&'a BTreeSet<String>>,
    facts: &'a BTreeSet<String>,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn block(&mut self, stmts: &[Stmt]) {
        let mut ended: Option<Span> = None;
        let mut reported = false;
        for stmt in stmts {
            match stmt.kind {
                StmtKind::Empty | StmtKind::Docstring => continue,
                StmtKind::Label(_) => {
                    ended = None;
                    reported = false;
                }
                _ => {
                    if let Some(at) = ended
                        && !reported
                    {
                        self.out.push(unreachable(stmt.span, at));
                        reported = true;
                    }
                }
            }
            self.stmt(stmt);
            if ended.is_none() && matches!(stmt.kind, StmtKind::Return(_) | StmtKind::Abort) {
                ended = Some(stmt.span);
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Spec { expr, .. } => self.spec_expr(expr),
            StmtKind::When { branches, .. } => {
                for b in branches {
                    self.spec_expr(&b.cond);
                }
            }
            _ => {}
        }
        for body in bodies(&stmt.kind) {
            self.block(body);
        }
    }

    fn spec_expr(&mut self, e: &SpecExpr) {
        match e {
            SpecExpr::Spec(s) => self.spec(s),
            SpecExpr::And(v, _) | SpecExpr::Or(v, _) => {
                for e in v {
                    self.spec_expr(e);
                }
            }
        }
    }

    fn spec(&mut self, spec: &Spec) {
        let SpecTarget::Name { name, span } = &spec.target else {
            return;
        };
        if spec.kind() == SpecKind::Flow
            && let Some(message) = name.strip_prefix("bot ")
            && let Some(tool) = tool_named_by(self.catalogue, message)
        {
            let call = format!("await {}Action", pascal(&tool));
            self.out.push(bot_names_tool(&tool, *span, call));
            return;
        }
        match spec.kind() {
            SpecKind::Action => self.action(name, *span),
            SpecKind::Flow if !self.imports && !self.flows.contains(name.as_str()) => {
                if self.library_elsewhere.contains_key(name.as_str()) {
                    self.undefined_flow(name, *span);
                    return;
                }
                match name.strip_prefix("bot ") {
                    Some(message) => self.bot(message, *span),
                    None => self.undefined_flow(name, *span),
                }
            }
            _ => {}
        }
    }

    fn action(&mut self, name: &str, span: Span) {
        let (Some(catalogue), Some(tool)) = (self.catalogue, action_tool_name(name)) else {
            return;
        };
        if !catalogue.contains(&tool) {
            self.out.extend(unknown_tool(
                catalogue,
                &tool,
                span,
                format!("action `{name}` names the tool `{tool}`, which is not in the catalogue"),
                |t| format!("{}Action", pascal(t)),
            ));
        }
    }

    fn bot(&mut self, message: &str, span: Span) {
        if let Some(tool) = message.strip_prefix("execute_") {
            if let Some(catalogue) = self.catalogue
                && !catalogue.contains(tool)
            {
                self.out.extend(unknown_tool(
                    catalogue,
                    tool,
                    span,
                    format!("tool `{tool}` is not in the catalogue"),
                    |t| format!("bot execute_{t}"),
                ));
            }
            return;
        }
        if BUILTIN_BOT_MESSAGES.contains(&message) {
            return;
        }
        let defined: Vec<&str> = self
            .flows
            .iter()
            .filter_map(|f| f.strip_prefix("bot "))
            .collect();
        self.out.push(undefined_bot(
            message,
            span,
            format!("no file of the rulebook and no imported module defines `bot {message}`"),
            &defined,
            |m| format!("bot {m}"),
        ));
    }

    fn undefined_flow(&mut self, name: &str, span: Span) {
        let mut d = Diagnostic::warning(
            codes::UNDEFINED_FLOW,
            span,
            format!("flow `{name}` is not defined"),
        )
        .with_label("no file of the rulebook and no imported module defines it");
        if let Some(module) = self.library_elsewhere.get(name) {
            d = d.with_help(format!(
                "the standard library's module `{}` defines it: add `import {}`",
                module.replace('/', "."),
                module.replace('/', ".")
            ));
        } else if let Some(near) = did_you_mean(name, self.flows.sorted()) {
            d = d.with_fix(span, near, format!("did you mean `{near}`"));
        } else {
            d = d.with_note("the standard library's flows come with `import core`");
        }
        self.out.push(d);
    }

    /// Variables read in `if`/`while` conditions and `when` arguments before this flow sets them.
    fn variables(&mut self, flow: &Flow) {
        let mut uses = Uses::default();
        for p in flow.parameters.iter().chain(&flow.return_members) {
            uses.known.insert(p.name.to_string());
        }
        self.collect(&flow.body, &mut uses);
        let mut reported = BTreeSet::new();
        for (name, span) in &uses.reads {
            if uses.known.contains(name)
                || self.facts.contains(name)
                || BUILTIN_VARIABLES.contains(&name.as_str())
            {
                continue;
            }
            let Some(sets) = uses.sets.get(name) else {
                continue;
            };
            if sets.iter().any(|s| s.start < span.start) || !reported.insert(name.clone()) {
                continue;
            }
            if let Some(first) = sets.iter().min_by_key(|s| s.start) {
                self.out.push(read_before_set(name, *span, *first));
            }
        }
    }

    fn collect(&self, stmts: &[Stmt], uses: &mut Uses) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Assign(a) => uses.set(&a.target.name, stmt.span),
                StmtKind::Global(v) => {
                    uses.known.insert(v.name.to_string());
                }
                StmtKind::Spec { capture, expr, .. } => {
                    if let Some(v) = capture {
                        uses.set(&v.name, stmt.span);
                    }
                    self.captures(expr, stmt.span, uses);
                }
                StmtKind::If { branches, .. } => {
                    for b in branches {
                        self.reads(&b.cond, uses);
                    }
                }
                StmtKind::While { cond, .. } => self.reads(cond, uses),
                StmtKind::When { branches, .. } => {
                    for b in branches {
                        self.spec_reads(&b.cond, uses);
                        self.captures(&b.cond, stmt.span, uses);
                    }
                }
                _ => {}
            }
            for body in bodies(&stmt.kind) {
                self.collect(body, uses);
            }
        }
    }

    /// `as $ref` captures set their variable.
    fn captures(&self, e: &SpecExpr, at: Span, uses: &mut Uses) {
        match e {
            SpecExpr::Spec(s) => {
                if let Some(v) = &s.capture {
                    uses.set(&v.name, at);
                }
            }
            SpecExpr::And(v, _) | SpecExpr::Or(v, _) => {
                for e in v {
                    self.captures(e, at, uses);
                }
            }
        }
    }

    fn spec_reads(&self, e: &SpecExpr, uses: &mut Uses) {
        match e {
            SpecExpr::Spec(s) => {
                if let SpecTarget::Ref(v) = &s.target {
                    uses.reads.push((v.name.to_string(), v.span));
                }
                for arg in s.args.list() {
                    self.reads(&arg.value, uses);
                }
                for m in &s.members {
                    for arg in m.args.iter().flatten() {
                        self.reads(&arg.value, uses);
                    }
                }
            }
            SpecExpr::And(v, _) | SpecExpr::Or(v, _) => {
                for e in v {
                    self.spec_reads(e, uses);
                }
            }
        }
    }

    /// Every variable an expression reads.
    fn reads(&self, e: &Expr, uses: &mut Uses) {
        let mut stack: Vec<&Expr> = vec![e];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Var => {
                    let name = self
                        .text
                        .get(e.span.start as usize..e.span.end as usize)
                        .and_then(|t| t.strip_prefix('$'))
                        .unwrap_or("");
                    if !name.is_empty() {
                        uses.reads.push((name.to_string(), e.span));
                    }
                }
                ExprKind::List(v) | ExprKind::Set(v) | ExprKind::And(v) | ExprKind::Or(v) => {
                    stack.extend(v);
                }
                ExprKind::Dict(entries) => {
                    for entry in entries {
                        match entry {
                            DictEntry::Pair(k, v) => stack.extend([k, v]),
                            DictEntry::Spread(v) => stack.push(v),
                        }
                    }
                }
                ExprKind::Call { args, .. } => stack.extend(args.iter().map(call_arg)),
                ExprKind::Method { receiver, args, .. } => {
                    stack.push(receiver);
                    stack.extend(args.iter().map(call_arg));
                }
                ExprKind::Attr { base, .. } => stack.push(base),
                ExprKind::Index { base, subscripts } => {
                    stack.push(base);
                    for s in subscripts {
                        match s {
                            Subscript::Index(i) => stack.push(i),
                            Subscript::Slice { lower, upper, step } => {
                                stack.extend([lower, upper, step].into_iter().flatten());
                            }
                        }
                    }
                }
                ExprKind::Unary { operand, .. } => stack.push(operand),
                ExprKind::Not(inner) => stack.push(inner),
                ExprKind::Binary { lhs, rhs, .. } => stack.extend([lhs.as_ref(), rhs.as_ref()]),
                ExprKind::Compare { first, rest } => {
                    stack.push(first);
                    stack.extend(rest.iter().map(|(_, e)| e));
                }
                ExprKind::Int
                | ExprKind::Float
                | ExprKind::Str
                | ExprKind::LongStr
                | ExprKind::Nld
                | ExprKind::None
                | ExprKind::True
                | ExprKind::False => {}
            }
        }
    }
}

fn call_arg(a: &CallArg) -> &Expr {
    match a {
        CallArg::Positional(e)
        | CallArg::Named(_, e)
        | CallArg::Star(e)
        | CallArg::DoubleStar(e) => e,
    }
}

/// Where a flow sets and reads variables, and the names it knows from the start.
#[derive(Default)]
struct Uses {
    known: BTreeSet<String>,
    sets: BTreeMap<String, Vec<Span>>,
    reads: Vec<(String, Span)>,
}

impl Uses {
    fn set(&mut self, name: &str, at: Span) {
        self.sets.entry(name.to_string()).or_default().push(at);
    }
}

/// `refund_card` → `RefundCard`.
fn pascal(tool: &str) -> String {
    tool.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
