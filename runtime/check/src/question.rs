//! The text a person is shown for a confirm: the call, each argument and where its value came
//! from, where any mark came from, and the irreversible-pivot sentence where it applies.

use serde_json::Value;
use stalwart_record::{ArchivedRecordBody, ArchivedTool};

use crate::check::Call;
use crate::session::Session;

/// The sentence that ends the question of an irreversible write after undoable ones.
pub const PIVOT_SENTENCE: &str = "Nothing undoes this step, and the steps after it cannot undo it.";

/// Builds the question.
#[allow(clippy::too_many_arguments)]
pub fn question(
    _body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    tool: &ArchivedTool,
    reasons: &[String],
    tainted: &[Value],
    gate_question: Option<&str>,
    pivot: bool,
) -> String {
    let mut out = String::new();
    if let Some(q) = gate_question {
        out.push_str(q.trim());
        if !q.trim_end().ends_with(['?', '.', '!']) {
            out.push('?');
        }
        out.push(' ');
    }
    out.push_str(&format!("Run `{}`", tool.name));
    if call.arguments.is_empty() {
        out.push_str(" with no arguments?");
    } else {
        let parts: Vec<String> = call
            .arguments
            .iter()
            .map(|(name, value)| {
                let origin = call
                    .origins
                    .get(name)
                    .map(String::as_str)
                    .unwrap_or("model");
                format!(
                    "{name} = {} ({})",
                    short(value),
                    origin_words(session, origin)
                )
            })
            .collect();
        out.push_str(&format!(" with {}?", parts.join(", ")));
    }
    if reasons.iter().any(|r| r == "argument_origin") {
        out.push_str(" Some values were not typed by the person: check them.");
    }
    for t in tainted {
        let mark = t.get("mark").and_then(Value::as_str).unwrap_or("");
        let argument = t.get("argument").and_then(Value::as_str).unwrap_or("call");
        let whom = if argument == "call" {
            "The call".to_string()
        } else {
            format!("`{argument}`")
        };
        match mark.strip_prefix("untrusted:") {
            Some(source) => out.push_str(&format!(
                " {whom} follows what `{source}` read from outside, which anyone could have written."
            )),
            None if mark == "untrusted" => out.push_str(&format!(" {whom} carries content from outside.")),
            None => out.push_str(&format!(" {whom} comes from `{mark}`, with less trust than `{}` needs.", tool.name)),
        }
    }
    if reasons.iter().any(|r| r == "schema_partial") {
        out.push_str(" Part of its argument schema is not enforced.");
    }
    if pivot {
        out.push(' ');
        out.push_str(PIVOT_SENTENCE);
    }
    out
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn origin_words(session: &Session, origin: &str) -> String {
    match origin {
        "typed" => "typed by the person".into(),
        "reply" => "the person's answer".into(),
        "context" => "from the application".into(),
        "computed" => "computed by the run".into(),
        "model" => "written by the model".into(),
        other => match other.strip_prefix("result:") {
            Some(rest) => {
                let step = rest.split('.').next().and_then(|s| s.parse::<u32>().ok());
                let tool = step
                    .and_then(|s| session.call(s))
                    .map(|c| c.tool.clone())
                    .unwrap_or_else(|| "?".into());
                format!("from the result of step {} ({tool})", rest)
            }
            None => format!("from `{other}`, which the check does not trust"),
        },
    }
}
