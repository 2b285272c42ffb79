//! The text a person is shown for a confirm: the call, each argument and where its value came
//! from, where any mark came from, and the irreversible-pivot sentence where it applies.

use std::fmt::Write as _;

use serde_json::Value;
use stalwart_record::{ArchivedRecordBody, ArchivedTool};

use crate::canonical::{push_plain_number, push_str_literal};
use crate::check::{Call, Taint};
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
    reasons: &[smol_str::SmolStr],
    tainted: &[Taint],
    gate_question: Option<&str>,
    pivot: bool,
) -> String {
    // Room for the usual question (the call, two or three arguments, a sentence or two).
    let mut out = String::with_capacity(256);
    if let Some(q) = gate_question {
        out.push_str(q.trim());
        if !q.trim_end().ends_with(['?', '.', '!']) {
            out.push('?');
        }
        out.push(' ');
    }
    out.push_str("Run `");
    out.push_str(tool.name.as_str());
    out.push('`');
    if call.arguments.is_empty() {
        out.push_str(" with no arguments?");
    } else {
        out.push_str(" with ");
        for (i, (name, value)) in call.arguments.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let origin = call
                .origins
                .get(name)
                .map(String::as_str)
                .unwrap_or("model");
            out.push_str(name);
            out.push_str(" = ");
            write_short(&mut out, value);
            out.push_str(" (");
            write_origin(&mut out, session, origin);
            out.push(')');
        }
        out.push('?');
    }
    if reasons.iter().any(|r| r == "argument_origin") {
        out.push_str(" Some values were not typed by the person: check them.");
    }
    for t in tainted {
        let (mark, argument) = (t.mark.as_str(), t.argument.as_str());
        if argument == "call" {
            out.push_str(" The call");
        } else {
            out.push_str(" `");
            out.push_str(argument);
            out.push('`');
        }
        match mark.strip_prefix("untrusted:") {
            Some(source) => {
                out.push_str(" follows what `");
                out.push_str(source);
                out.push_str("` read from outside, which anyone could have written.");
            }
            None if mark == "untrusted" => out.push_str(" carries content from outside."),
            None => {
                out.push_str(" comes from `");
                out.push_str(mark);
                out.push_str("`, with less trust than `");
                out.push_str(tool.name.as_str());
                out.push_str("` needs.");
            }
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

/// Writes a value as JSON, cut to 80 characters (the last three `...`).
fn write_short(out: &mut String, value: &Value) {
    let start = out.len();
    match value {
        Value::String(s) => push_str_literal(out, s),
        // Writing to a `String` cannot fail. A number displays as it serialises.
        Value::Number(n) => {
            if !push_plain_number(out, n) {
                let _ = write!(out, "{n}");
            }
        }
        _ => {
            let _ = write!(out, "{value}");
        }
    }
    let written = out.get(start..).unwrap_or("");
    // Fewer than 81 bytes are fewer than 81 characters.
    if written.len() > 80
        && written.chars().nth(80).is_some()
        && let Some((at, _)) = written.char_indices().nth(77)
    {
        out.truncate(start + at);
        out.push_str("...");
    }
}

/// Writes where a value came from, in the person's words.
fn write_origin(out: &mut String, session: &Session, origin: &str) {
    let words = match origin {
        "typed" => "typed by the person",
        "reply" => "the person's answer",
        "context" => "from the application",
        "computed" => "computed by the run",
        "model" => "written by the model",
        other => {
            match other.strip_prefix("result:") {
                Some(rest) => {
                    let step = rest.split('.').next().and_then(|s| s.parse::<u32>().ok());
                    let tool = step
                        .and_then(|s| session.call(s))
                        .map(|c| c.tool.as_str())
                        .unwrap_or("?");
                    let _ = write!(out, "from the result of step {rest} ({tool})");
                }
                None => {
                    let _ = write!(out, "from `{other}`, which the check does not trust");
                }
            }
            return;
        }
    };
    out.push_str(words);
}
