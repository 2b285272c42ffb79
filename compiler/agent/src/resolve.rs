//! Names across agent.yaml and every tool source: tools named by agents, agents named by
//! hand-offs, steps and channels, tools and arguments named by declarations and facts, routes
//! of steps, stores. Each diagnostic points at the name as written.
//!
//! The tools checked are the `tools` given (from catalogues, MCP answers, Python modules, and
//! inline ones, with agent.yaml's `overrides:` applied) and agent.yaml's inline tools the list
//! lacks; an inline declaration also present in `tools` (same span) counts once, as given there.

use std::collections::BTreeMap;

use stalwart_diagnostics::{Diagnostic, did_you_mean};

use crate::codes;
use crate::{
    AgentFile, CheckOperand, IdempotencyDecl, NotAfterDecl, Spanned, ToolDecl, ToolEntry,
    ToolOrigin, UndoDecl,
};

pub(crate) fn resolve_agent(agent: &AgentFile, tools: &[ToolDecl]) -> Vec<Diagnostic> {
    let given: Vec<_> = tools
        .iter()
        .filter(|t| t.origin == ToolOrigin::Inline)
        .map(|t| t.span)
        .collect();
    let mut all: Vec<&ToolDecl> = agent
        .tools
        .iter()
        .filter_map(|e| match e {
            ToolEntry::Inline(t) if !given.contains(&t.span) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    all.extend(tools.iter());

    let mut cx = Cx {
        out: Vec::new(),
        tools: BTreeMap::new(),
    };
    for tool in &all {
        match cx.tools.get(tool.name.value.as_str()) {
            Some(first) => {
                let first = *first;
                let d = Diagnostic::error(
                    codes::DUPLICATE_TOOL,
                    tool.name.span,
                    format!("tool `{}` is declared twice", tool.name.value),
                )
                .with_label(format!(
                    "declared again here ({})",
                    origin_text(&tool.origin)
                ))
                .with_secondary(
                    first.name.span,
                    format!("first declared here ({})", origin_text(&first.origin)),
                )
                .with_note("tool names must be unique across every source");
                let one_inline =
                    (tool.origin == ToolOrigin::Inline) != (first.origin == ToolOrigin::Inline);
                let d = if one_inline {
                    d.with_help(format!(
                        "to set fields of `{}` that its source cannot say, write them under `overrides:` instead of declaring it again",
                        tool.name.value
                    ))
                } else {
                    d
                };
                cx.out.push(d);
            }
            None => {
                cx.tools.insert(tool.name.value.as_str(), tool);
            }
        }
    }
    cx.agents(agent);
    for tool in cx.tools.values().copied().collect::<Vec<_>>() {
        cx.tool(tool, agent);
    }
    cx.facts(agent);
    cx.steps(agent);
    cx.overrides(agent);
    cx.out
}

fn origin_text(origin: &ToolOrigin) -> String {
    match origin {
        ToolOrigin::Inline => "inline in agent.yaml".to_string(),
        ToolOrigin::Catalogue(path) => format!("catalogue `{path}`"),
        ToolOrigin::Mcp(path) => format!("MCP answer `{path}`"),
        ToolOrigin::Python(module) => format!("Python module `{module}`"),
    }
}

/// The property names of an object schema, when it has `properties`.
fn properties(schema: Option<&Spanned<serde_json::Value>>) -> Option<Vec<&str>> {
    let props = schema?.value.get("properties")?.as_object()?;
    Some(props.keys().map(String::as_str).collect())
}

fn arguments(tool: &ToolDecl) -> Vec<&str> {
    properties(tool.arguments.as_ref()).unwrap_or_default()
}

fn with_suggestion<'a>(
    d: Diagnostic,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    match did_you_mean(word, candidates) {
        Some(near) => d.with_help(format!("did you mean `{near}`?")),
        None => d,
    }
}

struct Cx<'a> {
    out: Vec<Diagnostic>,
    tools: BTreeMap<&'a str, &'a ToolDecl>,
}

impl<'a> Cx<'a> {
    fn tool_names(&self) -> Vec<&'a str> {
        self.tools.keys().copied().collect()
    }

    /// Reports `name` when no tool has it; gives the tool otherwise.
    fn tool_ref(&mut self, ctx: &str, key: &str, name: &Spanned<String>) -> Option<&'a ToolDecl> {
        if let Some(t) = self.tools.get(name.value.as_str()) {
            return Some(*t);
        }
        let d = Diagnostic::error(
            codes::UNKNOWN_TOOL_REFERENCE,
            name.span,
            format!(
                "{ctx}`{key}` names `{}`, which no source declares",
                name.value
            ),
        )
        .with_label("unknown tool");
        let names = self.tool_names();
        self.out.push(with_suggestion(d, &name.value, names));
        None
    }

    /// Reports `name` when it is not an argument of `tool`.
    fn argument(
        &mut self,
        ctx: &str,
        key: &str,
        tool: &ToolDecl,
        name: &Spanned<String>,
        code: stalwart_diagnostics::Code,
    ) {
        let args = arguments(tool);
        if args.contains(&name.value.as_str()) {
            return;
        }
        let mut d = Diagnostic::error(
            code,
            name.span,
            format!(
                "{ctx}`{key}` names `{}`, which is not an argument of `{}`",
                name.value, tool.name.value
            ),
        )
        .with_label("not an argument");
        if tool.arguments.is_none() {
            d = d.with_note(format!(
                "tool `{}` has no `arguments` schema, so it declares no argument",
                tool.name.value
            ));
        }
        self.out.push(with_suggestion(d, &name.value, args));
    }

    /// Reports `name` when it is neither an argument nor a result field of `tool`.
    fn argument_or_field(&mut self, ctx: &str, key: &str, tool: &ToolDecl, name: &Spanned<String>) {
        let mut known = arguments(tool);
        known.extend(properties(tool.result.as_ref()).unwrap_or_default());
        if known.contains(&name.value.as_str()) {
            return;
        }
        let d = Diagnostic::error(
            codes::UNKNOWN_BIND_FIELD,
            name.span,
            format!(
                "{ctx}`{key}` names `{}`, which is neither an argument nor a result field of `{}`",
                name.value, tool.name.value
            ),
        )
        .with_label("not an argument or result field");
        self.out.push(with_suggestion(d, &name.value, known));
    }

    /// Reports `field` when `tool` has a result schema with properties that lack it.
    fn result_field(&mut self, ctx: &str, tool: &ToolDecl, field: &Spanned<String>) {
        let Some(fields) = properties(tool.result.as_ref()) else {
            return;
        };
        if fields.contains(&field.value.as_str()) {
            return;
        }
        let d = Diagnostic::error(
            codes::UNKNOWN_RESULT_FIELD,
            field.span,
            format!(
                "{ctx}`{}` has no result field `{}`",
                tool.name.value, field.value
            ),
        )
        .with_label("not in the tool's result schema");
        self.out.push(with_suggestion(d, &field.value, fields));
    }

    fn agent_ref(&mut self, agent: &AgentFile, message: String, name: &Spanned<String>) {
        if agent.agents.iter().any(|a| a.name.value == name.value) {
            return;
        }
        let d =
            Diagnostic::error(codes::UNKNOWN_AGENT, name.span, message).with_label("unknown agent");
        self.out.push(with_suggestion(
            d,
            &name.value,
            agent.agents.iter().map(|a| a.name.value.as_str()),
        ));
    }

    fn agents(&mut self, file: &AgentFile) {
        for agent in &file.agents {
            for tool in &agent.tools {
                if self.tools.contains_key(tool.value.as_str()) {
                    continue;
                }
                let d = Diagnostic::error(
                    codes::UNKNOWN_TOOL,
                    tool.span,
                    format!("agent `{}` names tool `{}`, which no source declares", agent.name.value, tool.value),
                )
                .with_label("unknown tool")
                .with_note("tools are declared inline in `tools:`, or by a `python:`, `catalogue:` or `mcp:` entry");
                let names = self.tool_names();
                self.out.push(with_suggestion(d, &tool.value, names));
            }
            for to in &agent.hands_off_to {
                let message = format!(
                    "agent `{}` hands off to `{}`, which is not an agent",
                    agent.name.value, to.value
                );
                self.agent_ref(file, message, to);
            }
        }
        for step in &file.steps {
            let message = format!(
                "step `{}` stands in for agent `{}`, which is not an agent",
                step.name.value, step.agent.value
            );
            self.agent_ref(file, message, &step.agent);
        }
        for channel in &file.channels {
            let message = format!(
                "channel `{}` hands to `{}`, which is not an agent",
                channel.name.value, channel.hands_to.value
            );
            self.agent_ref(file, message, &channel.hands_to);
        }
    }

    fn tool(&mut self, tool: &'a ToolDecl, file: &AgentFile) {
        let ctx = format!("tool `{}`: ", tool.name.value);
        for after in &tool.after {
            let other = self.tool_ref(&ctx, "after", &after.tool);
            for (mine, theirs) in &after.bind {
                self.argument(&ctx, "after.bind", tool, mine, codes::UNKNOWN_BIND_ARGUMENT);
                if let Some(other) = other {
                    self.argument_or_field(&ctx, "after.bind", other, theirs);
                }
            }
        }
        for not_after in &tool.not_after {
            if let NotAfterDecl::Tool(name) = &not_after.value {
                self.tool_ref(
                    &ctx,
                    "not_after",
                    &Spanned::new(name.clone(), not_after.span),
                );
            }
        }
        if let Some(Spanned {
            value: UndoDecl::Tool { tool: undo, bind },
            ..
        }) = &tool.undo
        {
            let undo_tool = self.tool_ref(&ctx, "undo", undo);
            for (theirs, mine) in bind {
                if let Some(undo_tool) = undo_tool {
                    self.argument(
                        &ctx,
                        "undo.bind",
                        undo_tool,
                        theirs,
                        codes::UNKNOWN_BIND_ARGUMENT,
                    );
                }
                self.argument_or_field(&ctx, "undo.bind", tool, mine);
            }
        }
        for check in &tool.checks {
            self.argument(
                &ctx,
                "checks",
                tool,
                &check.argument,
                codes::UNDECLARED_ARGUMENT,
            );
            if let CheckOperand::From { tool: from, field } = &check.operand.value
                && let Some(from_tool) = self.tool_ref(&ctx, "checks", from)
            {
                self.result_field(&ctx, from_tool, field);
            }
        }
        if let Some(Spanned {
            value: IdempotencyDecl::Key(key),
            ..
        }) = &tool.idempotency
        {
            self.argument(
                &ctx,
                "idempotency.key",
                tool,
                key,
                codes::UNDECLARED_ARGUMENT,
            );
        }
        if let Some(spend) = &tool.spend {
            self.argument(
                &ctx,
                "spend.argument",
                tool,
                &spend.value.argument,
                codes::UNDECLARED_ARGUMENT,
            );
        }
        for (arg, _) in &tool.argument_kinds {
            self.argument(
                &ctx,
                "argument_kinds",
                tool,
                arg,
                codes::UNDECLARED_ARGUMENT,
            );
        }
        for (key, store) in [
            ("retrieves_from", &tool.retrieves_from),
            ("writes_to", &tool.writes_to),
        ] {
            let Some(store) = store else { continue };
            if file.stores.iter().any(|s| s.name.value == store.value) {
                continue;
            }
            let d = Diagnostic::error(
                codes::UNKNOWN_STORE,
                store.span,
                format!(
                    "{ctx}`{key}` names store `{}`, which `stores:` does not declare",
                    store.value
                ),
            )
            .with_label("unknown store");
            self.out.push(with_suggestion(
                d,
                &store.value,
                file.stores.iter().map(|s| s.name.value.as_str()),
            ));
        }
    }

    fn facts(&mut self, file: &AgentFile) {
        for fact in &file.facts {
            let ctx = format!("fact `{}`: ", fact.name.value);
            let Some(tool) = self.tool_ref(&ctx, "from", &fact.tool) else {
                continue;
            };
            if tool.reads_outside.as_ref().is_some_and(|r| r.value) {
                let mut d = Diagnostic::error(
                    codes::FACT_FROM_OUTSIDE,
                    fact.tool.span,
                    format!(
                        "{ctx}`{}` reads outside, so no fact may come from it",
                        tool.name.value
                    ),
                )
                .with_label("its results come from outside and are untrusted");
                if let Some(flag) = &tool.reads_outside {
                    d = d.with_secondary(flag.span, "declared `reads_outside` here");
                }
                self.out.push(d);
            }
            self.result_field(&ctx, tool, &fact.field);
            if let Some(same) = &fact.same {
                self.argument(&ctx, "same", tool, same, codes::UNKNOWN_SAME_ARGUMENT);
            }
        }
    }

    fn overrides(&mut self, file: &AgentFile) {
        for o in &file.overrides {
            if self.tools.contains_key(o.tool.value.as_str()) {
                continue;
            }
            let d = Diagnostic::error(
                codes::UNKNOWN_OVERRIDE,
                o.tool.span,
                format!(
                    "`overrides:` names `{}`, which no source declares",
                    o.tool.value
                ),
            )
            .with_label("unknown tool")
            .with_note("an override sets fields of a tool declared inline or by a `python:`, `catalogue:` or `mcp:` entry");
            let names = self.tool_names();
            self.out.push(with_suggestion(d, &o.tool.value, names));
        }
    }

    fn steps(&mut self, file: &AgentFile) {
        let mut targets: Vec<String> = vec!["guard".to_string(), "end".to_string()];
        targets.extend(file.steps.iter().map(|s| s.name.value.clone()));
        targets.extend(
            file.agents
                .iter()
                .map(|a| format!("{}_model", a.name.value)),
        );
        targets.extend(self.tools.keys().map(|t| format!("tool:{t}")));
        for step in &file.steps {
            let ctx = format!("step `{}`: ", step.name.value);
            for (key, names) in [("routes", &step.routes), ("from", &step.from)] {
                for name in names {
                    if targets.contains(&name.value) {
                        continue;
                    }
                    let d = Diagnostic::warning(
                        codes::UNKNOWN_ROUTE,
                        name.span,
                        format!("{ctx}`{key}` names `{}`, which is not a step, an agent's model, `guard`, a tool or `end`", name.value),
                    )
                    .with_label("unknown route")
                    .with_note("a route is a step, `<agent>_model`, `guard`, `tool:<name>` or `end`");
                    self.out.push(with_suggestion(
                        d,
                        &name.value,
                        targets.iter().map(String::as_str),
                    ));
                }
            }
            for call in &step.calls {
                self.tool_ref(&ctx, "calls", call);
            }
        }
    }
}
