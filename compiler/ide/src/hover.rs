//! Hover: a tool's declaration in one glance (effects, arguments with types, order rules, undo),
//! an intent's examples, a flow's part in the gate, a fact's source, an agent's tools, and the
//! documentation of an agent.yaml or catalogue key. Markdown text.

use std::path::Path;

use stalwart_agent::{
    AtMostDecl, Effects, IdempotencyDecl, NotAfterDecl, Period, ToolDecl, ToolOrigin, UndoDecl,
};
use stalwart_sema::model::names::NameKind;

use crate::docs::{KeyContext, key_doc};
use crate::host::{AnalysisHost, FileRange, Project};
use crate::yaml::key_at;

/// What hovering shows, and over which range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub markdown: String,
    pub range: Option<FileRange>,
}

impl AnalysisHost {
    /// The hover text at a byte offset of a file.
    pub fn hover(&self, path: &Path, offset: u32) -> Option<Hover> {
        if let Some(at) = self.name_at(path, offset) {
            let project = self.project_of(path)?;
            let markdown = match at.kind {
                NameKind::Tool => tool_hover(project, &at.name),
                NameKind::Intent => intent_hover(project, &at.name),
                NameKind::Flow => flow_hover(project, &at.name),
                NameKind::Fact => fact_hover(project, &at.name),
                NameKind::Agent => agent_hover(project, &at.name),
                NameKind::BotMessage => bot_hover(&at.name),
                NameKind::Step | NameKind::Rule => format!("{} `{}`", at.kind.word(), at.name),
            };
            return Some(Hover {
                markdown,
                range: Some(at.range),
            });
        }
        let text = self.text(path)?;
        let (context, key, start, end) = key_at(&text, offset, path)?;
        let doc = key_doc(context, &key)?;
        Some(Hover {
            markdown: format!("`{}` ({})\n\n{}", doc.key, context_word(context), doc.doc),
            range: Some(FileRange {
                path: path.to_path_buf(),
                start,
                end,
            }),
        })
    }
}

fn context_word(c: KeyContext) -> &'static str {
    match c {
        KeyContext::AgentTop => "agent.yaml",
        KeyContext::Agent => "an agent",
        KeyContext::Tool => "a tool declaration",
        KeyContext::Fact => "a fact",
        KeyContext::Settings => "settings",
        KeyContext::Step => "a step",
        KeyContext::Channel => "a channel",
        KeyContext::Store => "a store",
    }
}

/// The catalogue's declaration of a tool, when the project has a catalogue.
pub(crate) fn tool_decl<'p>(project: &'p Project, name: &str) -> Option<&'p ToolDecl> {
    let agent = project.agent_file()?;
    stalwart_sema::agent_catalogue(&project.db, agent)
        .tools
        .iter()
        .find(|t| t.name.value == name)
}

fn tool_hover(project: &Project, name: &str) -> String {
    let Some(decl) = tool_decl(project, name) else {
        let governing = project
            .rulebook()
            .map(|set| stalwart_sema::model::rulebook_model(&project.db, set))
            .and_then(|m| m.gates.governing.get(name).cloned())
            .unwrap_or_default();
        return if governing.is_empty() {
            format!("tool `{name}`: no declaration in the catalogue")
        } else {
            format!("tool `{name}`, governed by {}", quoted(&governing))
        };
    };
    describe_tool(decl)
}

/// A tool's declaration in a few lines of Markdown.
pub fn describe_tool(decl: &ToolDecl) -> String {
    let effects = match decl.effects.as_ref().map(|e| e.value) {
        Some(Effects::Reads) => "reads",
        Some(Effects::Changes) => "changes",
        None => "changes (effects not declared)",
    };
    let mut out = vec![format!("**tool** `{}`: {effects}", decl.name.value)];
    out.push(format!("declared {}", origin(&decl.origin)));
    if let Some(d) = &decl.description {
        out.push(String::new());
        out.push(d.trim().to_string());
    }
    let args = arguments(decl);
    if !args.is_empty() {
        out.push(String::new());
        out.push("arguments:".to_string());
        out.extend(args);
    }
    let mut rules = Vec::new();
    for a in &decl.after {
        let bind: Vec<String> = a
            .bind
            .iter()
            .map(|(m, t)| format!("{} = {}", m.value, t.value))
            .collect();
        rules.push(if bind.is_empty() {
            format!("- after `{}`", a.tool.value)
        } else {
            format!("- after `{}` ({})", a.tool.value, bind.join(", "))
        });
    }
    for n in &decl.not_after {
        rules.push(match &n.value {
            NotAfterDecl::Tool(t) => format!("- not after `{t}`"),
            NotAfterDecl::Untrusted => "- not after untrusted content".to_string(),
        });
    }
    if let Some(m) = &decl.at_most {
        rules.push(format!("- at most {}", at_most(m.value)));
    }
    if let Some(u) = &decl.undo {
        rules.push(match &u.value {
            UndoDecl::None => "- undo: none".to_string(),
            UndoDecl::Tool { tool, bind } => {
                let bind: Vec<String> = bind
                    .iter()
                    .map(|(m, t)| format!("{} = {}", m.value, t.value))
                    .collect();
                format!("- undo: `{}` ({})", tool.value, bind.join(", "))
            }
        });
    }
    let flags = [
        (
            decl.irreversible.as_ref().is_some_and(|b| b.value),
            "irreversible",
        ),
        (
            decl.sends_out.as_ref().is_some_and(|b| b.value),
            "sends out",
        ),
        (
            decl.reads_outside.as_ref().is_some_and(|b| b.value),
            "reads outside content",
        ),
        (
            decl.confidential.as_ref().is_some_and(|b| b.value),
            "confidential",
        ),
    ];
    for (on, word) in flags {
        if on {
            rules.push(format!("- {word}"));
        }
    }
    if let Some(i) = &decl.idempotency {
        rules.push(match &i.value {
            IdempotencyDecl::Key(k) => format!("- idempotency key `{}`", k.value),
            IdempotencyDecl::RetrySafe => "- retry safe".to_string(),
        });
    }
    if !rules.is_empty() {
        out.push(String::new());
        out.extend(rules);
    }
    out.join("\n")
}

fn origin(o: &ToolOrigin) -> String {
    match o {
        ToolOrigin::Inline => "inline in agent.yaml".to_string(),
        ToolOrigin::Catalogue(p) => format!("in the catalogue `{p}`"),
        ToolOrigin::Mcp(p) => format!("in the MCP answer `{p}`"),
        ToolOrigin::Python(m) => format!("in the Python module `{m}`"),
    }
}

fn arguments(decl: &ToolDecl) -> Vec<String> {
    let Some(schema) = decl.arguments.as_ref().map(|a| &a.value) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, s)| {
            let ty = type_of(s);
            let req = if required.contains(&name.as_str()) {
                ", required"
            } else {
                ""
            };
            format!("- `{name}`: {ty}{req}")
        })
        .collect()
}

fn type_of(schema: &serde_json::Value) -> String {
    match schema.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(serde_json::Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_string(),
    }
}

fn at_most(m: AtMostDecl) -> String {
    let per = match m.per {
        None => "a session",
        Some(Period::Hour) => "an hour",
        Some(Period::Day) => "a day",
        Some(Period::Week) => "a week",
        Some(Period::Month) => "a month",
    };
    format!("{} {per}", m.count)
}

fn intent_hover(project: &Project, name: &str) -> String {
    let examples: Vec<String> = project
        .rulebook()
        .map(|set| stalwart_sema::model::rulebook_model(&project.db, set))
        .map(|m| {
            m.intents
                .iter()
                .filter(|(n, _)| n == name)
                .flat_map(|(_, ex)| ex.iter().cloned())
                .collect()
        })
        .unwrap_or_default();
    let mut out = format!("**user message** `{name}`");
    if examples.is_empty() {
        out.push_str("\n\nno examples");
    } else {
        out.push_str("\n\nexamples:");
        for e in examples {
            out.push_str(&format!("\n- \"{e}\""));
        }
    }
    out
}

fn flow_hover(project: &Project, name: &str) -> String {
    let model = project
        .rulebook()
        .map(|set| stalwart_sema::model::rulebook_model(&project.db, set));
    let Some(model) = model else {
        return format!("**flow** `{name}`");
    };
    let Some(flow) = model.flows.iter().find(|f| f.name == name) else {
        return format!("**flow** `{name}`: not defined in this rulebook");
    };
    let what = if flow.subflow { "subflow" } else { "flow" };
    let acts = if flow.acts {
        "acts: its paths are the gate"
    } else {
        "never acts on its own: it governs no tool"
    };
    let tools: Vec<String> = model
        .gates
        .governing
        .iter()
        .filter(|(_, flows)| flows.iter().any(|f| f == name))
        .map(|(t, _)| t.clone())
        .collect();
    let mut out = format!("**{what}** `{name}`: {acts}");
    if !tools.is_empty() {
        out.push_str(&format!("\n\ngoverns {}", quoted(&tools)));
    }
    out
}

fn fact_hover(project: &Project, name: &str) -> String {
    let fact = project.agent_file().and_then(|f| {
        stalwart_sema::parse_agent_file(&project.db, f)
            .value
            .facts
            .iter()
            .find(|d| d.name.value == name)
            .cloned()
    });
    match fact {
        Some(f) => {
            let mut out = format!(
                "**fact** `{name}`: from `{}.{}`",
                f.tool.value, f.field.value
            );
            if let Some(eq) = &f.equals {
                out.push_str(&format!(" == `{}`", eq.value));
            }
            if let Some(same) = &f.same {
                out.push_str(&format!(", for the same `{}`", same.value));
            }
            out
        }
        None => format!(
            "**fact** `{name}`: from the caller's context (agent.yaml's `facts:` does not declare it); a fact nothing gives is false"
        ),
    }
}

fn agent_hover(project: &Project, name: &str) -> String {
    let agent = project.agent_file().and_then(|f| {
        stalwart_sema::parse_agent_file(&project.db, f)
            .value
            .agents
            .iter()
            .find(|a| a.name.value == name)
            .cloned()
    });
    match agent {
        Some(a) => {
            let tools: Vec<String> = a.tools.iter().map(|t| t.value.clone()).collect();
            let mut out = format!("**agent** `{name}`");
            if let Some(m) = &a.model {
                out.push_str(&format!(" ({})", m.value));
            }
            out.push_str(&format!("\n\ntools: {}", quoted(&tools)));
            if !a.hands_off_to.is_empty() {
                let h: Vec<String> = a.hands_off_to.iter().map(|t| t.value.clone()).collect();
                out.push_str(&format!("\n\nhands off to {}", quoted(&h)));
            }
            out
        }
        None => format!("**agent** `{name}`"),
    }
}

fn bot_hover(name: &str) -> String {
    match name {
        "refuse" => "**bot message** `refuse`: built in, the refusal the check answers with".into(),
        "stop" => "**bot message** `stop`: built in".into(),
        _ => format!("**bot message** `{name}`"),
    }
}

fn quoted(items: &[String]) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
