//! Rule sheets: one row a rule, the first row that holds decides (DESIGN §2.3).
//!
//! A CSV sheet (`*.csv`) starts with a header naming its columns, in any order: `rule`, `tool`
//! and `then` are required, `when` and `say` optional:
//!
//! ```csv
//! # default: allow
//! rule,tool,when,then,say
//! refunds,refund_card,$order_paid,allow,
//! refunds,refund_card,not $order_paid,refuse,refuse
//! large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?
//! ```
//!
//! `then` is `allow`, `refuse` or `ask`; `say` is the refusal's reason or the question; an empty
//! `when` always holds. The sheet's default (`refuse` unless written) is set by a comment line
//! `# default: allow` anywhere, or by a row whose `rule` is `default` and whose `then` is
//! `allow` or `refuse` (its other cells are ignored). The YAML form (`*.rules.yaml`) is read by
//! the semantic layer, which has the YAML reader, into the same [`ast::Sheet`] through
//! [`build_sheet`].
//!
//! [`ast`] is the tree, [`csv`] the CSV reader, [`build_sheet`] the shared reading of cells
//! into rows, and [`check_sheet_arguments`] the check that needs the tool catalogue.

pub mod ast;
mod build;
pub mod codes;
mod csv;

use std::collections::{BTreeMap, BTreeSet};

use stalwart_diagnostics::{Diagnostic, FileId, Span, did_you_mean};

use crate::Parse;
use crate::expr::{Expr, ExprKind};
use ast::{Cell, Sheet, SheetDefault};
pub use build::{RawRow, build_sheet};
use csv::{Line, Record};

/// The columns a sheet may have, in their usual order.
pub const COLUMNS: [&str; 5] = ["rule", "tool", "when", "then", "say"];

/// Parses a CSV rule sheet. Never fails: the sheet holds every row that could be read.
pub fn parse_sheet_csv(file: FileId, text: &str) -> Parse<Sheet> {
    let mut diagnostics = Vec::new();
    let lines = csv::read_lines(file, text, &mut diagnostics);
    let mut defaults: Vec<(Option<SheetDefault>, Cell)> = Vec::new();
    let mut header: Option<Header> = None;
    let mut rows = Vec::new();
    for line in lines {
        match line {
            Line::Comment(comment, span) => {
                if let Some(cell) = default_comment(&comment, span) {
                    defaults.push((SheetDefault::from_word(&cell.text), cell));
                }
            }
            Line::Record(record) => match &header {
                None => header = Some(read_header(&record, &mut diagnostics)),
                Some(h) if !h.complete => {}
                Some(h) => {
                    let row = h.row(record, &mut diagnostics);
                    if row.rule.text == "default" {
                        defaults.push((SheetDefault::from_word(row.then.text.trim()), row.then));
                    } else {
                        rows.push(row);
                    }
                }
            },
        }
    }
    if header.is_none() {
        let end = u32::try_from(text.len()).unwrap_or(u32::MAX);
        diagnostics.push(
            Diagnostic::error(
                codes::NO_HEADER,
                Span::new(file, 0, end),
                "sheet has no header row",
            )
            .with_help("the first row names the columns: `rule,tool,when,then,say`"),
        );
    }
    let default = read_defaults(defaults, &mut diagnostics);
    let built = build_sheet(rows, default);
    diagnostics.extend(built.diagnostics);
    stalwart_diagnostics::sort(&mut diagnostics);
    Parse {
        value: built.value,
        diagnostics,
    }
}

/// `default: allow` in a comment: the value's cell.
fn default_comment(comment: &str, span: Span) -> Option<Cell> {
    let rest = comment.trim_start().strip_prefix("default")?.trim_start();
    let value = rest.strip_prefix(':')?;
    let value_lead = value.len() - value.trim_start().len();
    let word = value.trim();
    let at = comment.len() - value.len() + value_lead;
    let start = span.start.saturating_add(u32::try_from(at).unwrap_or(0));
    let end = start.saturating_add(u32::try_from(word.len()).unwrap_or(0));
    Some(Cell::new(word, Span::new(span.file, start, end)))
}

/// The first written default wins; others and unknown words are reported.
fn read_defaults(
    defaults: Vec<(Option<SheetDefault>, Cell)>,
    out: &mut Vec<Diagnostic>,
) -> Option<(SheetDefault, Span)> {
    let mut chosen: Option<(SheetDefault, Span)> = None;
    let mut first: Option<Span> = None;
    for (value, cell) in defaults {
        if let Some(at) = first {
            out.push(
                Diagnostic::error(codes::DUPLICATE_DEFAULT, cell.span, "default written twice")
                    .with_label("a second default")
                    .with_secondary(at, "the first default"),
            );
            continue;
        }
        first = Some(cell.span);
        match value {
            Some(v) => chosen = Some((v, cell.span)),
            None => out.push(
                Diagnostic::error(
                    codes::UNKNOWN_DEFAULT,
                    cell.span,
                    format!("unknown default `{}`", cell.text.trim()),
                )
                .with_label("expected `allow` or `refuse`"),
            ),
        }
    }
    chosen
}

/// Column positions from the header row.
struct Header {
    /// For each column of [`COLUMNS`], its index in the header.
    index: [Option<usize>; 5],
    width: usize,
    /// It names every required column; rows under an incomplete header are not read.
    complete: bool,
}

fn read_header(record: &Record, out: &mut Vec<Diagnostic>) -> Header {
    let mut index: [Option<usize>; 5] = [None; 5];
    if let [only] = record.cells.as_slice()
        && only.text.contains(';')
        && only
            .text
            .split(';')
            .any(|part| COLUMNS.contains(&part.trim().to_ascii_lowercase().as_str()))
    {
        out.push(
            Diagnostic::error(
                codes::SEMICOLON_SEPARATED,
                only.span,
                "the sheet's columns are separated by `;`",
            )
            .with_label("one column, with `;` inside it")
            .with_note("a sheet separates its columns with `,`")
            .with_help(
                "save the sheet as CSV with `,` between the columns: `rule,tool,when,then,say`",
            ),
        );
        return Header {
            index,
            width: 1,
            complete: false,
        };
    }
    for (i, cell) in record.cells.iter().enumerate() {
        let name = cell.text.trim().to_ascii_lowercase();
        match COLUMNS.iter().position(|c| *c == name) {
            Some(c) => match index.get_mut(c) {
                Some(slot @ None) => *slot = Some(i),
                _ => out.push(
                    Diagnostic::error(
                        codes::DUPLICATE_COLUMN,
                        cell.span,
                        format!("column `{name}` named twice"),
                    )
                    .with_label("only the first is read"),
                ),
            },
            None => {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_COLUMN,
                    cell.span,
                    format!("unknown column `{}`", cell.text.trim()),
                )
                .with_label("expected `rule`, `tool`, `when`, `then` or `say`");
                if let Some(near) = did_you_mean(&name, COLUMNS) {
                    d = d.with_fix(cell.span, near, format!("did you mean `{near}`"));
                }
                out.push(d);
            }
        }
    }
    let mut complete = true;
    for (c, name) in COLUMNS.iter().enumerate() {
        let required = matches!(*name, "rule" | "tool" | "then");
        if required && index.get(c).copied().flatten().is_none() {
            complete = false;
            out.push(
                Diagnostic::error(
                    codes::MISSING_COLUMN,
                    record.span,
                    format!("header lacks the column `{name}`"),
                )
                .with_label("the header row")
                .with_help("the first row names the columns: `rule,tool,when,then,say`"),
            );
        }
    }
    Header {
        index,
        width: record.cells.len(),
        complete,
    }
}

impl Header {
    fn row(&self, record: Record, out: &mut Vec<Diagnostic>) -> RawRow {
        let width = record.cells.len();
        if width != self.width {
            let at = record
                .cells
                .get(self.width)
                .map(|c| c.span)
                .unwrap_or(Span::new(
                    record.span.file,
                    record.span.end,
                    record.span.end,
                ));
            out.push(
                Diagnostic::error(
                    codes::ROW_WIDTH,
                    at,
                    format!("row has {width} cells, the header has {}", self.width),
                )
                .with_secondary(record.span, "this row"),
            );
        }
        let empty = Cell::new(
            "",
            Span::new(record.span.file, record.span.end, record.span.end),
        );
        let cell = |c: usize| -> Cell {
            self.index
                .get(c)
                .copied()
                .flatten()
                .and_then(|i| record.cells.get(i))
                .cloned()
                .unwrap_or_else(|| empty.clone())
        };
        RawRow {
            rule: cell(0),
            tool: cell(1),
            when: cell(2),
            then: cell(3),
            say: cell(4),
            span: record.span,
        }
    }
}

/// Checks every `$args.<name>` against the arguments its row's tool declares (`tools`: tool →
/// argument names). Tools missing from the map are not checked (lowering reports them).
pub fn check_sheet_arguments(
    sheet: &Sheet,
    tools: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for row in &sheet.rows {
        let tool = row.tool.text.trim();
        let (Some(declared), Some(expr)) = (tools.get(tool), &row.when) else {
            continue;
        };
        let mut stack: Vec<&Expr> = vec![expr];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Arg(name) if !declared.contains(name) => {
                    let mut d = Diagnostic::error(
                        codes::UNKNOWN_ARGUMENT,
                        e.span,
                        format!("`{tool}` has no argument `{name}`"),
                    )
                    .with_label("not declared by the tool");
                    if let Some(near) = did_you_mean(name, declared.iter().map(String::as_str)) {
                        d = d.with_fix(
                            e.span,
                            format!("$args.{near}"),
                            format!("did you mean `{near}`"),
                        );
                    } else if declared.is_empty() {
                        d = d.with_note(format!("`{tool}` declares no arguments"));
                    } else {
                        let names: Vec<String> =
                            declared.iter().map(|n| format!("`{n}`")).collect();
                        d = d.with_note(format!("`{tool}` declares {}", names.join(", ")));
                    }
                    out.push(d);
                }
                ExprKind::Not(inner) => stack.push(inner),
                ExprKind::Logic { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                _ => {}
            }
        }
    }
    out
}
