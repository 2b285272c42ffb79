//! Helpers the 1.0 and 2.x checks share: message texts and suggestions.

use std::collections::BTreeSet;

use stalwart_diagnostics::{Diagnostic, Span, did_you_mean};

use super::codes;

/// Bot messages the check answers with itself, and `bot ...` (the model writes the message):
/// they need no definition.
pub(crate) const BUILTIN_BOT_MESSAGES: [&str; 3] = ["refuse", "stop", "..."];

/// Variables the runtime gives every flow.
pub(crate) const BUILTIN_VARIABLES: [&str; 15] = [
    "system",
    "uid",
    "flow_id",
    "loop_id",
    "parent_uid",
    "child_flow_uids",
    "context",
    "priority",
    "arguments",
    "flow_instance_uid",
    "source_flow_instance_uid",
    "activate",
    "new_instance_started",
    "self",
    "event",
];

/// A call the catalogue lacks: `E1605` with the nearest tool as a fix (`fix` spells it) when a
/// tool of the catalogue is near the name (a slip that would leave the real tool ungoverned),
/// else `W1618` (an action NeMo Guardrails runs itself, which the check never sees); nothing for
/// the standard library's own actions.
pub(crate) fn unknown_tool(
    catalogue: &BTreeSet<String>,
    tool: &str,
    span: Span,
    what: String,
    fix: impl Fn(&str) -> String,
) -> Option<Diagnostic> {
    if crate::model::library::library().actions.contains(tool) {
        return None;
    }
    Some(
        match did_you_mean(tool, catalogue.iter().map(String::as_str)) {
            Some(near) => Diagnostic::error(codes::UNKNOWN_TOOL, span, what)
                .with_label("no such tool")
                .with_fix(span, fix(near), format!("did you mean `{near}`")),
            None => Diagnostic::warning(codes::NOT_A_TOOL, span, what)
                .with_label("not a tool of the catalogue")
                .with_note(
                    "an action NeMo Guardrails runs itself: the check never sees it, and the \
                     rulebook governs no tool by it",
                ),
        },
    )
}

/// Names a rulebook's other files (and the standard library) define, which a file's checks
/// count as defined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    pub flows: BTreeSet<String>,
    pub messages: BTreeSet<String>,
    /// Library flows no import of the rulebook brings in, by the module that has them (2.x).
    pub library_elsewhere: std::collections::BTreeMap<String, String>,
    /// Some import names a module the checks cannot see: undefined names are not reported.
    pub opaque: bool,
}

/// The names a file sees: its own, and (borrowed, never copied) those the rulebook's other files and
/// the standard library define. A rulebook of thousands of files checks each file against every
/// name without building the whole set again per file.
pub(crate) struct Visible<'a> {
    /// In the order the file defines them.
    own: Vec<&'a str>,
    shared: &'a BTreeSet<String>,
    library: Option<&'a BTreeSet<String>>,
}

impl<'a> Visible<'a> {
    pub(crate) fn new(
        own: impl IntoIterator<Item = &'a str>,
        shared: &'a BTreeSet<String>,
        library: Option<&'a BTreeSet<String>>,
    ) -> Self {
        Self {
            own: own.into_iter().collect(),
            shared,
            library,
        }
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.own.contains(&name)
            || self.shared.contains(name)
            || self.library.is_some_and(|l| l.contains(name))
    }

    /// Every name, sorted, once (the reporting path only: it builds the set).
    pub(crate) fn sorted(&self) -> BTreeSet<&'a str> {
        self.iter().collect()
    }

    /// Every name: the file's own in its order, then the other files', then the library's
    /// (duplicates possible).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        let shared: &'a BTreeSet<String> = self.shared;
        let library: Option<&'a BTreeSet<String>> = self.library;
        self.own
            .iter()
            .copied()
            .chain(shared.iter().map(String::as_str))
            .chain(library.into_iter().flatten().map(String::as_str))
    }
}

/// `W1601` for an undefined bot message, with the nearest defined one as a fix.
pub(crate) fn undefined_bot(
    message: &str,
    span: Span,
    label: String,
    defined: &[&str],
    spell: impl Fn(&str) -> String,
) -> Diagnostic {
    let mut d = Diagnostic::warning(
        codes::UNDEFINED_BOT_MESSAGE,
        span,
        format!("bot message `{message}` is not defined"),
    )
    .with_label(label);
    if let Some(near) = did_you_mean(message, defined.iter().copied()) {
        d = d.with_fix(span, spell(near), format!("did you mean `{near}`"));
    } else {
        d = d.with_note("`refuse` and `stop` are built in; other messages need a definition");
    }
    d
}

/// The catalogue tool a bot message names, when it names one: `refund_card` or `refund card`
/// for the tool `refund_card`.
pub(crate) fn tool_named_by(catalogue: Option<&BTreeSet<String>>, message: &str) -> Option<String> {
    let tool = message.trim().replace(' ', "_");
    catalogue?.contains(&tool).then_some(tool)
}

/// `W1608` for a bot message that names the tool `tool`; `call` spells the call that runs it.
pub(crate) fn bot_names_tool(tool: &str, span: Span, call: String) -> Diagnostic {
    Diagnostic::warning(
        codes::BOT_NAMES_A_TOOL,
        span,
        format!("bot message names the tool `{tool}` but calls nothing"),
    )
    .with_label("the bot says this; no tool runs")
    .with_help(format!("call the tool with `{call}`"))
    .with_note(
        "the rulebook governs only the tools its flows call, so this tool is not governed here",
    )
}

/// `W1604`: `name` read at `read` before its first set at `set`.
pub(crate) fn read_before_set(name: &str, read: Span, set: Span) -> Diagnostic {
    Diagnostic::warning(
        codes::READ_BEFORE_SET,
        read,
        format!("`${name}` is read before it is set"),
    )
    .with_label("read here")
    .with_secondary(set, "first set here")
    .with_help("set it earlier, or declare it as a fact in agent.yaml's `facts:`")
}

/// `W1606` at the first statement after `stop`/`return`/`abort` (at `after`).
pub(crate) fn unreachable(span: Span, after: Span) -> Diagnostic {
    Diagnostic::warning(codes::UNREACHABLE, span, "unreachable statement")
        .with_label("never runs")
        .with_secondary(after, "the block ends here")
}

/// The `$name`s written in raw text, with their byte ranges.
pub(crate) fn variables_in(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '$' {
            continue;
        }
        let mut end = i + 1;
        while let Some(&(j, d)) = chars.peek() {
            if d.is_alphanumeric() || d == '_' {
                end = j + d.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        if end > i + 1 {
            out.push((text.get(i + 1..end).unwrap_or("").to_string(), i, end));
        }
    }
    out
}
