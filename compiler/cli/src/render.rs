//! What the command line prints: diagnostics in the chosen format, and compile summaries.

use std::fmt::Write as _;
use std::path::Path;

use stalwart_diagnostics::{Diagnostic, Files};
use stalwart_driver::Written;
use stalwart_record::{Effects, Idempotency, NotAfter, RecordBody, Undo};

use crate::Format;

/// Diagnostics: text to stderr, or JSON lines (one object per diagnostic) to stdout.
pub fn diagnostics(files: &Files, diagnostics: &[Diagnostic], format: Format) {
    match format {
        Format::Text => eprint!("{}", stalwart_diagnostics::render_text(files, diagnostics)),
        Format::Json => out!("{}", stalwart_diagnostics::render_json(files, diagnostics)),
    }
}

/// An error about the command itself (a missing input file), on stderr.
pub fn fatal(message: &str) {
    eprintln!("error: {message}");
}

/// A coded error of the check's host (bad input to `check` or `report`), with its place.
pub fn host_error(e: &stalwart_driver::HostError) {
    eprintln!("error[{}]: {}", e.code.id, e.message);
    if let Some(p) = &e.place {
        eprintln!("  --> {}:{}:{}", p.source, p.line, p.column);
    }
    eprintln!("  = note: {}", e.code.slug);
}

/// The text printed after a successful compile: what went into the record.
pub fn compiled_summary(agent: &Path, written: &Written) -> String {
    let body = &written.body;
    let mut out = String::new();
    let short: String = written.digest.chars().take(12).collect();
    let _ = writeln!(
        out,
        "Compiled {} into {} (record.bin: {} bytes, blake3 {short})",
        agent.display(),
        written.dir.display(),
        written.record_bytes,
    );
    let _ = writeln!(out, "  agents:");
    for a in &body.agents {
        let tools: Vec<&str> = a.tools.iter().filter_map(|&t| tool_name(body, t)).collect();
        let mut extra = Vec::new();
        if let Some(m) = &a.model {
            extra.push(format!("model {m}"));
        }
        if !a.hands_off_to.is_empty() {
            let to: Vec<&str> = a
                .hands_off_to
                .iter()
                .filter_map(|&i| body.agents.get(i as usize))
                .map(|a| a.name.as_str())
                .collect();
            extra.push(format!("hands off to {}", to.join(", ")));
        }
        extra.push(format!("privilege {:?}", a.privilege).to_lowercase());
        let _ = writeln!(
            out,
            "    {:<14} tools: {}; {}",
            a.name,
            tools.join(", "),
            extra.join("; ")
        );
    }
    let _ = writeln!(out, "  tools:");
    let width = body.tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in &body.tools {
        let _ = writeln!(out, "    {:<width$}  {}", t.name, declaration(body, t));
    }
    if !body.facts.is_empty() {
        let facts: Vec<&str> = body.facts.iter().map(|f| f.name.as_str()).collect();
        let _ = writeln!(out, "  facts: {}", facts.join(", "));
    }
    out
}

fn tool_name(body: &RecordBody, idx: u32) -> Option<&str> {
    body.tools.get(idx as usize).map(|t| t.name.as_str())
}

/// One line naming what a tool declares.
fn declaration(body: &RecordBody, t: &stalwart_record::Tool) -> String {
    let mut parts = vec![match t.effects {
        Effects::Reads => "reads".to_string(),
        Effects::Changes => "changes".to_string(),
        Effects::Unknown => "effects unknown (treated as changes)".to_string(),
    }];
    if !t.argument_names.is_empty() {
        parts.push(format!("arguments ({})", t.argument_names.join(", ")));
    }
    if t.result.is_some() {
        parts.push(format!("result ({})", t.result_fields.join(", ")));
    }
    if t.sends_out {
        parts.push("sends_out".into());
    }
    if t.reads_outside {
        parts.push("reads_outside".into());
    }
    if t.irreversible {
        parts.push("irreversible".into());
    }
    if t.confidential {
        parts.push("confidential".into());
    }
    for a in &t.after {
        let bind: Vec<String> = a
            .bind
            .iter()
            .map(|(m, o)| {
                if m == o {
                    m.clone()
                } else {
                    format!("{m}={o}")
                }
            })
            .collect();
        let name = tool_name(body, a.tool).unwrap_or("?");
        parts.push(if bind.is_empty() {
            format!("after {name}")
        } else {
            format!("after {name} ({})", bind.join(", "))
        });
    }
    for n in &t.not_after {
        parts.push(match n {
            NotAfter::Untrusted => "not_after untrusted".into(),
            NotAfter::Tool(i) => format!("not_after {}", tool_name(body, *i).unwrap_or("?")),
        });
    }
    if let Some(m) = &t.at_most {
        parts.push(match m.per {
            None => format!("at_most {}", m.count),
            Some(p) => format!("at_most {} per {:?}", m.count, p).to_lowercase(),
        });
    }
    match &t.undo {
        Undo::Unset => {}
        Undo::None => parts.push("undo none".into()),
        Undo::Tool { tool, .. } => {
            parts.push(format!("undo {}", tool_name(body, *tool).unwrap_or("?")))
        }
    }
    match &t.idempotency {
        Idempotency::None => {}
        Idempotency::Key(k) => parts.push(format!("idempotency key {k}")),
        Idempotency::RetrySafe => parts.push("retry_safe".into()),
    }
    if !t.checks.is_empty() {
        parts.push(format!("{} check(s)", t.checks.len()));
    }
    if let Some(s) = &t.spend {
        parts.push(
            format!("spend {} at most {} per {:?}", s.argument, s.at_most, s.per).to_lowercase(),
        );
    }
    if t.schema_partial {
        parts.push(format!(
            "schema_partial ({})",
            t.schema_partial_keywords.join(", ")
        ));
    }
    if t.gate.governed {
        parts.push(format!("gated by {}", t.gate.flows.join(", ")));
    }
    parts.join(", ")
}

/// `stalwart rules inspect` in text: what a rulebook defines.
pub fn inspected(file: &Path, facts: &serde_json::Value) -> String {
    let mut out = String::new();
    let version = facts.get("version").and_then(|v| v.as_str()).unwrap_or("?");
    let _ = writeln!(out, "{} (Colang {version})", file.display());
    if let Some(users) = facts.get("user_messages").and_then(|v| v.as_object()) {
        let _ = writeln!(out, "  user intents: {}", users.len());
        for (name, examples) in users {
            let n = examples.as_array().map(Vec::len).unwrap_or(0);
            let _ = writeln!(
                out,
                "    {name} ({n} example{})",
                if n == 1 { "" } else { "s" }
            );
        }
    }
    if let Some(bots) = facts.get("bot_messages").and_then(|v| v.as_object()) {
        let _ = writeln!(out, "  bot messages: {}", bots.len());
        for name in bots.keys() {
            let _ = writeln!(out, "    {name}");
        }
    }
    if let Some(flows) = facts.get("flows").and_then(|v| v.as_array()) {
        let _ = writeln!(out, "  flows: {}", flows.len());
        for f in flows {
            let name = f
                .get("id")
                .or_else(|| f.get("name"))
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let sub = if f.get("subflow").and_then(|v| v.as_bool()).unwrap_or(false) {
                " (subflow)"
            } else {
                ""
            };
            let _ = writeln!(out, "    {name}{sub}");
        }
    }
    if let Some(imports) = facts.get("imports").and_then(|v| v.as_array())
        && !imports.is_empty()
    {
        let names: Vec<&str> = imports.iter().filter_map(|i| i.as_str()).collect();
        let _ = writeln!(out, "  imports: {}", names.join(", "));
    }
    out
}
