//! From cells to rows, shared by both sheet formats: each row's `then` and `when` are read
//! (the condition parsed in its cell, spans mapped back to the source), then the rows are
//! checked together (rule names, shadowed rows) and each condition's literals are typed.

use stalwart_diagnostics::{Diagnostic, Span, did_you_mean};

use super::ast::{Cell, Row, Sheet, SheetDefault, Then};
use super::codes;
use crate::Parse;
use crate::expr::{CmpOp, Expr, ExprKind, Literal, parse_condition};

/// A row as read from either format, before its cells are interpreted.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRow {
    pub rule: Cell,
    pub tool: Cell,
    pub when: Cell,
    pub then: Cell,
    pub say: Cell,
    pub span: Span,
}

/// Builds a sheet from its rows and default, with the diagnostics of every cell and of the rows
/// taken together.
pub fn build_sheet(rows: Vec<RawRow>, default: Option<(SheetDefault, Span)>) -> Parse<Sheet> {
    let mut diagnostics = Vec::new();
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|raw| build_row(raw, &mut diagnostics))
        .collect();
    check_rule_names(&rows, &mut diagnostics);
    check_shadowed(&rows, &mut diagnostics);
    Parse {
        value: Sheet { rows, default },
        diagnostics,
    }
}

fn build_row(raw: RawRow, out: &mut Vec<Diagnostic>) -> Row {
    let RawRow {
        rule,
        tool,
        when,
        then,
        say,
        span,
    } = raw;
    if rule.text.trim().is_empty() {
        out.push(
            Diagnostic::error(codes::MISSING_RULE, rule.span, "row without a rule name")
                .with_label("the rule's name is needed for refusals and `no_flow`"),
        );
    }
    if tool.text.trim().is_empty() {
        out.push(
            Diagnostic::error(codes::MISSING_TOOL, tool.span, "row without a tool")
                .with_label("name the tool this row decides for"),
        );
    }
    let then_word = then.text.trim();
    let decided = Then::from_word(then_word);
    if then_word.is_empty() {
        out.push(
            Diagnostic::error(codes::MISSING_THEN, then.span, "row without `then`")
                .with_label("expected `allow`, `refuse` or `ask`"),
        );
    } else if decided.is_none() {
        let mut d = Diagnostic::error(
            codes::UNKNOWN_THEN,
            then.span,
            format!("unknown `then` value `{then_word}`"),
        )
        .with_label("expected `allow`, `refuse` or `ask`");
        if let Some(near) = did_you_mean(then_word, ["allow", "refuse", "ask"]) {
            d = d.with_fix(then.span, near, format!("did you mean `{near}`"));
        }
        out.push(d);
    }
    if decided == Some(Then::Ask) && say.text.trim().is_empty() {
        out.push(
            Diagnostic::warning(
                codes::ASK_WITHOUT_QUESTION,
                say.span,
                format!("`ask` row `{}` has no question", rule.text.trim()),
            )
            .with_label("the person is shown the rule's name")
            .with_help("write the question in `say`"),
        );
    }
    let expr = condition(&when, out);
    Row {
        rule,
        tool,
        when_cell: when,
        when: expr,
        then_cell: then,
        then: decided,
        say,
        span,
    }
}

/// Parses a `when` cell (`None` when empty or unreadable) and types its literals.
fn condition(cell: &Cell, out: &mut Vec<Diagnostic>) -> Option<Expr> {
    if cell.text.trim().is_empty() {
        return None;
    }
    let parsed = parse_condition(cell.file(), &cell.text, 0);
    out.extend(parsed.diagnostics.into_iter().map(|mut d| {
        d.primary.span = cell.map_span(d.primary.span);
        for l in &mut d.secondary {
            l.span = cell.map_span(l.span);
        }
        if let Some(fix) = &mut d.fix {
            fix.span = cell.map_span(fix.span);
        }
        d
    }));
    let mut expr = parsed.value?;
    remap(&mut expr, cell);
    check_types(&expr, out);
    Some(expr)
}

fn remap(e: &mut Expr, cell: &Cell) {
    e.span = cell.map_span(e.span);
    for child in e.children_mut() {
        remap(child, cell);
    }
}

/// Literals in places where they can never make sense: an ordering of a string, boolean or
/// null (gate orderings compare two numbers only), and `and`/`or`/`not` of a literal that is not
/// a boolean.
fn check_types(e: &Expr, out: &mut Vec<Diagnostic>) {
    match &e.kind {
        ExprKind::Compare { op, lhs, rhs } => {
            if matches!(op, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge) {
                for side in [lhs, rhs] {
                    if let ExprKind::Lit(lit) = &side.kind
                        && !matches!(lit, Literal::Number(_))
                    {
                        out.push(
                            Diagnostic::error(
                                codes::STRING_ORDERING,
                                side.span,
                                format!("`{}` with {}", op.as_str(), describe(lit)),
                            )
                            .with_label("never true: orderings compare two numbers")
                            .with_secondary(e.span, "in this comparison"),
                        );
                    }
                }
            }
            check_types(lhs, out);
            check_types(rhs, out);
        }
        ExprKind::Logic { op, lhs, rhs } => {
            for side in [lhs, rhs] {
                non_boolean(op.as_str(), side, out);
                check_types(side, out);
            }
        }
        ExprKind::Not(inner) => {
            non_boolean("not", inner, out);
            check_types(inner, out);
        }
        _ => {
            for child in e.children() {
                check_types(child, out);
            }
        }
    }
}

fn non_boolean(op: &str, side: &Expr, out: &mut Vec<Diagnostic>) {
    if let ExprKind::Lit(lit) = &side.kind
        && !matches!(lit, Literal::Bool(_))
    {
        out.push(
            Diagnostic::error(
                codes::NON_BOOLEAN_OPERAND,
                side.span,
                format!("`{op}` of {}", describe(lit)),
            )
            .with_label("expected a condition: a fact, a comparison or `true`/`false`"),
        );
    }
}

fn describe(lit: &Literal) -> String {
    match lit {
        Literal::Number(n) => format!("the number `{n}`"),
        Literal::Str(s) => format!("the string `\"{s}\"`"),
        Literal::Bool(b) => format!("the boolean `{b}`"),
        Literal::Null => "`null`".to_string(),
    }
}

/// Rows of one rule are next to each other: a name used again after another rule's rows is a
/// second rule of the same name.
fn check_rule_names(rows: &[Row], out: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(&str, Span)> = Vec::new();
    let mut previous: Option<&str> = None;
    for row in rows {
        let name = row.rule.text.trim();
        if name.is_empty() {
            previous = None;
            continue;
        }
        if previous != Some(name) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                out.push(
                    Diagnostic::error(
                        codes::DUPLICATE_RULE,
                        row.rule.span,
                        format!("rule `{name}` is written again after other rules"),
                    )
                    .with_label("a second rule with this name")
                    .with_secondary(*first, "the first rule with this name")
                    .with_help("keep a rule's rows together, or give this rule its own name"),
                );
            } else {
                seen.push((name, row.rule.span));
            }
        }
        previous = Some(name);
    }
}

/// A row after an unconditional row (with a readable `then`) for the same tool never decides.
fn check_shadowed(rows: &[Row], out: &mut Vec<Diagnostic>) {
    let mut always: Vec<(&str, Span)> = Vec::new();
    for row in rows {
        let tool = row.tool.text.trim();
        if tool.is_empty() {
            continue;
        }
        if let Some((_, by)) = always.iter().find(|(t, _)| *t == tool) {
            out.push(
                Diagnostic::warning(
                    codes::SHADOWED_ROW,
                    row.span,
                    format!("row of rule `{}` never decides", row.rule.text.trim()),
                )
                .with_label(format!("an earlier row for `{tool}` always holds"))
                .with_secondary(*by, "this row holds whatever the call"),
            );
        } else if row.is_unconditional() && row.then.is_some() {
            always.push((tool, row.span));
        }
    }
}
