//! `stalwart diff OLD NEW`: whether the tool check decides any call differently under two
//! versions of an agent, tool by tool, with a call on which it does.
//!
//! Exit codes: 0 when every tool decides every call alike up to the depth, 1 when a tool
//! differs or is undecided (as `diff(1)` exits 1 on a difference), 2 on bad input.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use stalwart_driver::diff::{DiffReport, Example, LoadFailure, Side, Verdict, diff, load_side};

use crate::Format;

pub fn run(old: &Path, new: &Path, format: Format, depth: u32) -> u8 {
    let (old, new) = match (load(old), load(new)) {
        (Some(o), Some(n)) => (o, n),
        _ => return 2,
    };
    let report = diff(&old, &new, depth);
    match format {
        Format::Text => out!("{}", text(&report)),
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&to_json(&report)).unwrap_or_default()
        ),
    }
    if report.differing() + report.undecided() > 0 {
        1
    } else {
        0
    }
}

fn load(path: &Path) -> Option<Side> {
    match load_side(path) {
        Ok(side) => Some(side),
        Err(LoadFailure {
            files,
            diagnostics,
            fatal,
        }) => {
            if let Some(m) = fatal {
                crate::render::fatal(&m);
            }
            crate::render::diagnostics(&files, &diagnostics, Format::Text);
            if !diagnostics.is_empty() {
                eprintln!(
                    "error: could not compile `{}`; nothing was compared",
                    path.display()
                );
            }
            None
        }
    }
}

/// The report for a person.
pub fn text(report: &DiffReport) -> String {
    let mut out = String::new();
    for t in &report.tools {
        let presence = match t.presence {
            "old" => " (only in OLD)",
            "new" => " (only in NEW)",
            _ => "",
        };
        match &t.verdict {
            Verdict::Same => {
                let _ = writeln!(
                    out,
                    "{}{presence}: no difference up to depth {}",
                    t.tool, report.depth
                );
            }
            Verdict::Undecided(why) => {
                let _ = writeln!(out, "{}{presence}: undecided ({why})", t.tool);
            }
            Verdict::Differs(e) => {
                let _ = writeln!(out, "{}{presence}: decides differently", t.tool);
                example_text(&mut out, e);
            }
        }
    }
    let _ = writeln!(
        out,
        "{} tool{} compared: {} differ, {} undecided, {} with no difference up to depth {}",
        report.tools.len(),
        if report.tools.len() == 1 { "" } else { "s" },
        report.differing(),
        report.undecided(),
        report.same(),
        report.depth
    );
    out
}

fn example_text(out: &mut String, e: &Example) {
    let call = &e.call;
    if let Some(agent) = &call.agent {
        let _ = writeln!(out, "  agent:     {agent}");
    }
    if e.history.is_empty() {
        let _ = writeln!(out, "  history:   none");
    } else {
        let _ = writeln!(out, "  history:");
        for (i, p) in e.history.iter().enumerate() {
            let old = e.old_history.get(i).map_or("?", |a| a.decision.as_str());
            let new = e.new_history.get(i).map_or("?", |a| a.decision.as_str());
            let _ = writeln!(
                out,
                "    {}. {} {} (OLD {old}, NEW {new}; reported ran with {})",
                i + 1,
                p.call.tool,
                Value::Object(p.call.arguments.clone()),
                p.result
            );
        }
    }
    let _ = writeln!(
        out,
        "  call:      {} {}",
        call.tool,
        Value::Object(call.arguments.clone())
    );
    if !call.origins.is_empty() {
        let _ = writeln!(out, "  origins:   {}", Value::Object(call.origins.clone()));
    }
    if !call.labels.is_empty() {
        let _ = writeln!(out, "  labels:    {}", serde_json::json!(call.labels));
    }
    if !call.context.is_empty() {
        let _ = writeln!(out, "  context:   {}", Value::Object(call.context.clone()));
    }
    if let Some(intent) = &call.intent {
        let _ = writeln!(out, "  intent:    {intent}");
    }
    for (side, a) in [("OLD", &e.old), ("NEW", &e.new)] {
        let mut line = format!("  {side}:       {} ({})", a.decision, a.reasons.join(", "));
        if let Some(source) = a.detail.get("source") {
            let _ = write!(line, " at {}", source_text(source));
        } else if let Some(flow) = a.detail.get("flow").and_then(Value::as_str) {
            let _ = write!(line, " by flow {flow}");
        }
        let _ = writeln!(out, "{line}");
    }
}

fn source_text(source: &Value) -> String {
    match source {
        Value::String(s) => s.clone(),
        Value::Object(m) => {
            let file = m.get("file").and_then(Value::as_str).unwrap_or("?");
            match m.get("line") {
                Some(l) => format!("{file}:{l}"),
                None => file.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// The report as JSON (`stalwart-diff/1`): stable keys.
pub fn to_json(report: &DiffReport) -> Value {
    let tools: Vec<Value> = report
        .tools
        .iter()
        .map(|t| {
            let mut v = json!({"tool": t.tool, "in": t.presence});
            let m = v.as_object_mut().map(|m| match &t.verdict {
                Verdict::Same => {
                    m.insert("verdict".into(), json!("same"));
                }
                Verdict::Undecided(why) => {
                    m.insert("verdict".into(), json!("undecided"));
                    m.insert("why".into(), json!(why));
                }
                Verdict::Differs(e) => {
                    m.insert("verdict".into(), json!("differs"));
                    m.insert("example".into(), example_json(e));
                }
            });
            let _ = m;
            v
        })
        .collect();
    json!({
        "format": "stalwart-diff/1",
        "depth": report.depth,
        "tools": tools,
        "summary": {
            "tools": report.tools.len(),
            "differ": report.differing(),
            "undecided": report.undecided(),
            "same": report.same(),
        }
    })
}

fn example_json(e: &Example) -> Value {
    let history: Vec<Value> = e
        .history
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "call": p.call.to_json(),
                "result": p.result,
                "old": e.old_history.get(i).map(|a| a.to_json()),
                "new": e.new_history.get(i).map(|a| a.to_json()),
            })
        })
        .collect();
    json!({
        "history": history,
        "call": e.call.to_json(),
        "old": e.old.to_json(),
        "new": e.new.to_json(),
    })
}
