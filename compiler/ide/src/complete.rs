//! Completion: the keywords of the file's dialect at the start of a statement, the names valid
//! where the cursor is (tools after `execute` and in actions, messages after `bot`, intents after
//! `user`, flows after `do`/`await`, facts after `$`, tools and agents in agent.yaml's lists), and
//! agent.yaml and catalogue keys with their documentation. Read from the text before the cursor,
//! so it works in a file that does not parse.

use std::collections::BTreeSet;
use std::path::Path;

use stalwart_sema::model::names::NameKind;
use stalwart_syntax::Dialect;

use crate::docs::keys;
use crate::host::{AnalysisHost, Project};
use crate::navigate::{pascal, project_names};
use crate::yaml::{key_context_at, value_key_at};

/// What a completion item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    Keyword,
    Flow,
    Intent,
    BotMessage,
    Tool,
    Fact,
    Agent,
    Key,
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// One line beside the label.
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// What is inserted, when it is not the label.
    pub insert: Option<String>,
}

impl Completion {
    fn new(label: impl Into<String>, kind: CompletionKind) -> Self {
        Self {
            label: label.into(),
            kind,
            detail: None,
            documentation: None,
            insert: None,
        }
    }
}

const V1_TOP: &[&str] = &[
    "define user",
    "define bot",
    "define flow",
    "define subflow",
    "import",
];
const V1_BODY: &[&str] = &[
    "user",
    "bot",
    "execute",
    "do",
    "if",
    "else if",
    "else",
    "when",
    "else when",
    "while",
    "stop",
    "return",
    "break",
    "continue",
    "any",
    "event",
    "priority",
];
const V2_TOP: &[&str] = &["flow", "import", "@active", "@override", "@meta"];
const V2_BODY: &[&str] = &[
    "await", "start", "match", "send", "activate", "when", "or when", "else", "if", "elif",
    "while", "return", "abort", "break", "continue", "pass", "global", "bot", "user", "log",
    "print",
];

impl AnalysisHost {
    /// The completions at a byte offset of a file.
    pub fn completions(&self, path: &Path, offset: u32) -> Vec<Completion> {
        let Some(text) = self.text(path) else {
            return Vec::new();
        };
        let offset = clamp_to_char(&text, offset as usize);
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..offset];
        let project = self.project_of(path);
        let name = path.to_string_lossy();
        if name.ends_with(".co") {
            let dialect = project
                .and_then(|p| p.rulebook())
                .and_then(|set| {
                    let p = project?;
                    stalwart_sema::model::rulebook_model(&p.db, set).dialect
                })
                .unwrap_or_else(|| stalwart_syntax::detect_dialect(&text));
            return colang(project, dialect, before);
        }
        if name.ends_with(".csv") || name.ends_with(".rules.yaml") {
            return sheet(project, before);
        }
        if let Some(ctx) = key_context_at(&text, offset as u32, path) {
            return keys(ctx)
                .into_iter()
                .map(|k| Completion {
                    documentation: Some(k.doc.clone()),
                    insert: Some(format!("{}: ", k.key)),
                    ..Completion::new(k.key, CompletionKind::Key)
                })
                .collect();
        }
        if let Some((parents, key)) = value_key_at(&text, offset as u32) {
            let p: Vec<&str> = parents.iter().map(String::as_str).collect();
            return match (p.as_slice(), key.as_str()) {
                (["agents", _], "tools") | (["steps", _], "calls") | (_, "after" | "tool") => {
                    names_of(project, NameKind::Tool, CompletionKind::Tool)
                }
                (["agents", _], "hands_off_to") | (["channels", _], "hands_to") => {
                    names_of(project, NameKind::Agent, CompletionKind::Agent)
                }
                (["steps", _], "agent") => {
                    names_of(project, NameKind::Agent, CompletionKind::Agent)
                }
                _ => Vec::new(),
            };
        }
        Vec::new()
    }
}

fn clamp_to_char(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

fn colang(project: Option<&Project>, dialect: Dialect, before: &str) -> Vec<Completion> {
    let trimmed = before.trim_start();
    let indented = trimmed.len() < before.len();
    // `$` + a partial name: facts.
    if let Some(dollar) = before.rfind('$') {
        let partial = &before[dollar + 1..];
        if partial.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return names_of(project, NameKind::Fact, CompletionKind::Fact);
        }
    }
    let words: Vec<&str> = trimmed.split(' ').collect();
    let first = words.first().copied().unwrap_or("");
    let starting = words.len() <= 1;
    if starting {
        let table: &[&str] = match (dialect, indented) {
            (Dialect::V1, false) => V1_TOP,
            (Dialect::V1, true) => V1_BODY,
            (Dialect::V2, false) => V2_TOP,
            (Dialect::V2, true) => V2_BODY,
        };
        return table
            .iter()
            .map(|k| Completion::new(*k, CompletionKind::Keyword))
            .collect();
    }
    if words.iter().rev().skip(1).any(|w| *w == "execute") {
        return tools(project, |t| t.to_string());
    }
    match (dialect, first) {
        (Dialect::V1, "bot") => {
            let mut out = names_of(project, NameKind::BotMessage, CompletionKind::BotMessage);
            out.extend(builtin_bots());
            out.extend(tools(project, |t| format!("execute_{t}")));
            out
        }
        (Dialect::V1, "user") => names_of(project, NameKind::Intent, CompletionKind::Intent),
        (Dialect::V1, "do") => names_of(project, NameKind::Flow, CompletionKind::Flow),
        (Dialect::V2, "bot") => {
            let mut out = names_of(project, NameKind::BotMessage, CompletionKind::BotMessage);
            out.extend(builtin_bots());
            out
        }
        (Dialect::V2, "user") => names_of(project, NameKind::Intent, CompletionKind::Intent),
        (Dialect::V2, "await" | "start" | "activate" | "match" | "when" | "or" | "stop") => {
            let mut out = names_of(project, NameKind::Flow, CompletionKind::Flow);
            out.extend(tools(project, |t| format!("{}Action", pascal(t))));
            out
        }
        _ => Vec::new(),
    }
}

fn sheet(project: Option<&Project>, before: &str) -> Vec<Completion> {
    // `rule,tool,when,then,say`: the second cell names a tool, the fourth a decision.
    match before.matches(',').count() {
        1 => tools(project, |t| t.to_string()),
        2 => names_of(project, NameKind::Fact, CompletionKind::Fact)
            .into_iter()
            .map(|mut c| {
                c.insert = Some(format!("${}", c.label));
                c
            })
            .collect(),
        3 => ["allow", "refuse", "ask"]
            .iter()
            .map(|k| Completion::new(*k, CompletionKind::Keyword))
            .collect(),
        _ => Vec::new(),
    }
}

fn builtin_bots() -> Vec<Completion> {
    ["refuse", "stop"]
        .iter()
        .map(|b| Completion {
            detail: Some("built in".to_string()),
            ..Completion::new(*b, CompletionKind::BotMessage)
        })
        .collect()
}

/// The catalogue's tools (else the tools the rulebook names), spelled by `spell`, with their
/// declaration as documentation.
fn tools(project: Option<&Project>, spell: impl Fn(&str) -> String) -> Vec<Completion> {
    let Some(project) = project else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    if let Some(agent) = project.agent_file() {
        for t in &stalwart_sema::agent_catalogue(&project.db, agent).tools {
            if seen.insert(t.name.value.clone()) {
                out.push(Completion {
                    detail: Some("tool".to_string()),
                    documentation: Some(crate::hover::describe_tool(t)),
                    ..Completion::new(spell(&t.name.value), CompletionKind::Tool)
                });
            }
        }
        return out;
    }
    for r in project_names(project) {
        if r.kind == NameKind::Tool && seen.insert(r.name.clone()) {
            out.push(Completion::new(spell(&r.name), CompletionKind::Tool));
        }
    }
    out
}

/// The defined names of a kind (facts: also those the rulebook reads).
fn names_of(project: Option<&Project>, kind: NameKind, as_kind: CompletionKind) -> Vec<Completion> {
    let Some(project) = project else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    project_names(project)
        .into_iter()
        .filter(|r| r.kind == kind && (r.definition || kind == NameKind::Fact))
        .filter(|r| seen.insert(r.name.clone()))
        .map(|r| Completion {
            detail: Some(kind.word().to_string()),
            ..Completion::new(r.name, as_kind)
        })
        .collect()
}
