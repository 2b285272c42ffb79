//! Checks on the Colang 1.0 tree that the grammar leaves open: names that must be present,
//! conditions that must be written, and labels that must be unique within a flow.

use stalwart_diagnostics::{Diagnostic, Span};

use super::ast::*;
use super::codes;
use super::inspect;

pub fn validate(module: &Module, text: &str, out: &mut Vec<Diagnostic>) {
    main_flow_beside_flows(module, out);
    let mut top_labels = Vec::new();
    for item in &module.items {
        match item {
            Item::User(u) if u.name.text.is_empty() => out.push(
                Diagnostic::error(
                    codes::MISSING_NAME,
                    u.header,
                    "`define user` without an intent name",
                )
                .with_label("expected the intent's name, e.g. `define user ask refund`"),
            ),
            Item::Bot(b) => {
                if b.name.text.is_empty() {
                    out.push(
                        Diagnostic::error(
                            codes::MISSING_NAME,
                            b.header,
                            "`define bot` without a message name",
                        )
                        .with_label("expected the message's name, e.g. `define bot refuse`"),
                    );
                }
                messages(&b.lines, text, out);
            }
            Item::Flow(f) => {
                if f.subflow && f.name.is_none() {
                    out.push(
                        Diagnostic::error(
                            codes::MISSING_NAME,
                            f.header,
                            "`define subflow` without a name",
                        )
                        .with_label("a subflow is called by its name with `do`, so it needs one"),
                    );
                }
                let mut labels = Vec::new();
                stmts(&f.body, text, &mut labels, out);
            }
            Item::Stmt(s) => stmts(std::slice::from_ref(s), text, &mut top_labels, out),
            _ => {}
        }
    }
}

/// Statements outside any definition make up the file's main flow (id ""). The reference reads
/// them so only in a file that defines no flow: a flow (written, or the `<name>_direct` flow a
/// `bot` line in a message body starts) after them, or statements after one, make it fail. The
/// first item of either kind that follows one of the other kind is reported.
fn main_flow_beside_flows(module: &Module, out: &mut Vec<Diagnostic>) {
    let mut first_flow: Option<Span> = None;
    let mut first_stmt: Option<Span> = None;
    for item in &module.items {
        let flow = match item {
            Item::Flow(f) => Some(f.header),
            Item::User(u) => inspect::direct_flow(&u.name.text, &u.lines, true).map(|_| u.header),
            Item::Bot(b) => inspect::direct_flow(&b.name.text, &b.lines, false).map(|_| b.header),
            _ => None,
        };
        match (item, flow) {
            // A line already reported (an unknown `define`, say) is no statement of the main flow.
            (Item::Stmt(s), _) if matches!(s.kind, StmtKind::Error) => {}
            (Item::Stmt(s), _) => {
                if let Some(defined) = first_flow {
                    out.push(
                        Diagnostic::error(
                            codes::MAIN_FLOW_BESIDE_FLOWS,
                            first_line(s),
                            "a statement outside any flow, in a file that defines a flow",
                        )
                        .with_label(
                            "indent it into the flow above, or move it to a file of its own",
                        )
                        .with_secondary(defined, "a flow is defined here")
                        .with_note(
                            "statements outside a `define` make up the file's main flow, which \
                             cannot stand beside flow definitions",
                        ),
                    );
                    return;
                }
                first_stmt.get_or_insert(first_line(s));
            }
            (_, Some(header)) => {
                if let Some(statement) = first_stmt {
                    out.push(
                        Diagnostic::error(
                            codes::MAIN_FLOW_BESIDE_FLOWS,
                            header,
                            "a flow defined after statements outside any flow",
                        )
                        .with_label("put the statements above into a `define flow`, or move this flow to a file of its own")
                        .with_secondary(statement, "this statement is outside any flow")
                        .with_note(
                            "statements outside a `define` make up the file's main flow, which \
                             cannot stand beside flow definitions",
                        ),
                    );
                    return;
                }
                first_flow.get_or_insert(header);
            }
            _ => {}
        }
    }
}

/// Where a statement starts: its keyword when it holds a block, else all of it (one line).
fn first_line(s: &Stmt) -> Span {
    match &s.kind {
        StmtKind::If(_) => keyword_span(s.span, "if"),
        StmtKind::While(_) => keyword_span(s.span, "while"),
        StmtKind::When(_) => keyword_span(s.span, "when"),
        StmtKind::Any(_) => keyword_span(s.span, "any"),
        _ => s.span,
    }
}

/// The start of `span` as long as `keyword`, within `span`: the keyword written may be shorter
/// than the one named (`elif`, reported as an `else if`).
fn keyword_span(span: Span, keyword: &str) -> Span {
    let len = u32::try_from(keyword.len()).unwrap_or(0);
    Span::new(
        span.file,
        span.start,
        span.start.saturating_add(len).min(span.end),
    )
}

/// The keyword at the start of `span` as written: `keyword`, or the word written in its place
/// (`elif`, read as an `else if`).
fn written_keyword(text: &str, span: Span, keyword: &str) -> Span {
    let rest = text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    if rest.starts_with(keyword) {
        return keyword_span(span, keyword);
    }
    let word = rest
        .find(|c: char| !c.is_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    keyword_span(span, rest.get(..word).unwrap_or(keyword))
}

fn missing_condition(text: &str, span: Span, keyword: &str, out: &mut Vec<Diagnostic>) {
    out.push(
        Diagnostic::error(
            codes::MISSING_EXPRESSION,
            written_keyword(text, span, keyword),
            format!("`{keyword}` without a condition"),
        )
        .with_label(format!(
            "expected a condition after `{keyword}`, e.g. `{keyword} $order_paid`"
        )),
    );
}

fn messages(lines: &[MessageLine], text: &str, out: &mut Vec<Diagnostic>) {
    for line in lines {
        if let MessageLine::Branch(b) = line {
            let keyword = match b.keyword {
                BranchKeyword::If => "if",
                BranchKeyword::ElseIf => "else if",
                BranchKeyword::Else => "else",
            };
            if b.keyword != BranchKeyword::Else && b.condition.is_none() {
                missing_condition(text, b.span, keyword, out);
            }
            messages(&b.lines, text, out);
        }
    }
}

fn stmts(body: &[Stmt], text: &str, labels: &mut Vec<String>, out: &mut Vec<Diagnostic>) {
    for s in body {
        match &s.kind {
            StmtKind::If(i) => {
                for (n, b) in i.branches.iter().enumerate() {
                    if b.condition.is_none() {
                        missing_condition(text, b.span, if n == 0 { "if" } else { "else if" }, out);
                    }
                    stmts(&b.body, text, labels, out);
                }
                if let Some(e) = &i.else_body {
                    stmts(e, text, labels, out);
                }
            }
            StmtKind::While(w) => {
                if w.condition.is_none() {
                    missing_condition(text, s.span, "while", out);
                }
                stmts(&w.body, text, labels, out);
            }
            StmtKind::When(w) => {
                for b in &w.branches {
                    stmts(&b.body, text, labels, out);
                }
            }
            StmtKind::Any(b) => stmts(b, text, labels, out),
            StmtKind::Do(t) if t.text.is_empty() => out.push(
                Diagnostic::error(
                    codes::MISSING_NAME,
                    keyword_span(s.span, "do"),
                    "`do` without a flow name",
                )
                .with_label("expected the subflow to run, e.g. `do check blocked terms`"),
            ),
            StmtKind::Event(t) if !t.text.is_empty() => event_arguments(t, out),
            StmtKind::Infer(Some(t)) => event_arguments(t, out),
            StmtKind::Event(t) if t.text.is_empty() => out.push(
                Diagnostic::error(
                    codes::MISSING_NAME,
                    keyword_span(s.span, "event"),
                    "`event` without an event name",
                )
                .with_label("expected the event to wait for"),
            ),
            StmtKind::Label(Some(t)) => {
                let name = t.text.split_whitespace().next().unwrap_or("").to_string();
                if labels.contains(&name) {
                    out.push(
                        Diagnostic::error(
                            codes::DUPLICATE_LABEL,
                            t.span,
                            format!("duplicate label `{name}`"),
                        )
                        .with_label("a label may appear only once in a flow"),
                    );
                } else {
                    labels.push(name);
                }
            }
            _ => {}
        }
    }
}

/// The arguments of `event X(…)` and `create event X(…)`: every bracket and string closed, and
/// nothing after the closing `)` (the reference reads them as a Python call and fails
/// otherwise).
fn event_arguments(t: &Text, out: &mut Vec<Diagnostic>) {
    let text = t.text.as_str();
    // The text is trimmed: its start in the file is where the span starts.
    let at = |i: usize, len: usize| {
        let start = t
            .span
            .start
            .saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
        Span::new(
            t.span.file,
            start,
            start.saturating_add(u32::try_from(len).unwrap_or(u32::MAX)),
        )
    };
    let mut opened: Vec<(usize, char)> = Vec::new();
    let mut quote: Option<(usize, char)> = None;
    let mut closed_at: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if let Some((_, q)) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if let Some(end) = closed_at {
            if !c.is_whitespace() {
                let d = Diagnostic::error(
                    codes::BAD_EVENT_ARGUMENTS,
                    at(i, text.len().saturating_sub(i)),
                    "unexpected text after the event's arguments",
                )
                .with_label("nothing may follow the closing `)`")
                .with_secondary(at(end, 1), "the arguments end here");
                out.push(d);
                return;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some((i, c)),
            '(' | '[' | '{' => opened.push((i, c)),
            ')' | ']' | '}' => {
                opened.pop();
                if opened.is_empty() && c == ')' {
                    closed_at = Some(i);
                }
            }
            _ => {}
        }
    }
    if let Some((i, q)) = quote {
        out.push(
            Diagnostic::error(
                codes::BAD_EVENT_ARGUMENTS,
                at(i, 1),
                "unterminated string in the event's arguments",
            )
            .with_label(format!("this `{q}` is never closed")),
        );
    } else if let Some(&(i, b)) = opened.first() {
        out.push(
            Diagnostic::error(
                codes::BAD_EVENT_ARGUMENTS,
                at(i, 1),
                format!("unclosed `{b}` in the event's arguments"),
            )
            .with_label("never closed on this line"),
        );
    }
}
