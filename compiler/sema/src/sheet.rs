//! `.rules.yaml` rule sheets: the YAML form of a sheet (`{default: refuse, rules: [{rule, tool,
//! when, then, say}]}`), read through the agent front end's marked YAML tree and turned into the
//! syntax crate's [`Sheet`], so both sheet formats share one tree, one set of checks and one
//! lowering. (The syntax crate cannot read YAML itself: it sits below the agent front end.)

use stalwart_agent::node::{Node, NodeKind};
use stalwart_diagnostics::{Diagnostic, FileId, Span, did_you_mean};
use stalwart_syntax::Parse;
use stalwart_syntax::sheet::ast::{Cell, CellMap, Sheet, SheetDefault};
use stalwart_syntax::sheet::{COLUMNS, RawRow, build_sheet, codes};

/// Whether a file name is a rule sheet's: `*.csv` or `*.rules.yaml` / `*.rules.yml`.
pub fn is_sheet_path(name: &str) -> bool {
    name.ends_with(".csv") || name.ends_with(".rules.yaml") || name.ends_with(".rules.yml")
}

/// Parses a rule sheet, choosing the format by the file name (`*.csv`: CSV, else YAML).
pub fn parse_sheet(file: FileId, name: &str, text: &str) -> Parse<Sheet> {
    if name.ends_with(".csv") {
        stalwart_syntax::sheet::parse_sheet_csv(file, text)
    } else {
        parse_sheet_yaml(file, text)
    }
}

/// Parses a `.rules.yaml` sheet. Never fails: the sheet holds every rule that could be read.
pub fn parse_sheet_yaml(file: FileId, text: &str) -> Parse<Sheet> {
    let parsed = stalwart_agent::parse_yaml_node(file, text);
    let mut diagnostics = parsed.diagnostics;
    let Some(root) = parsed.value else {
        if !diagnostics.iter().any(Diagnostic::is_error) {
            diagnostics.push(
                Diagnostic::error(codes::YAML_SHAPE, Span::new(file, 0, 0), "sheet is empty")
                    .with_help("write `rules:` with a list of rules"),
            );
        }
        return Parse {
            value: Sheet::default(),
            diagnostics,
        };
    };
    let Some(entries) = root.entries() else {
        diagnostics.push(shape(&root, "a sheet", "a mapping with `rules`"));
        return Parse {
            value: Sheet::default(),
            diagnostics,
        };
    };
    let mut default = None;
    let mut rows = Vec::new();
    let mut saw_rules = false;
    for (key, value) in entries {
        match key.name.as_str() {
            "default" => default = read_default(value, &mut diagnostics),
            "rules" => {
                saw_rules = true;
                rows = read_rules(value, &mut diagnostics);
            }
            other => diagnostics.push(unknown_key(other, key.span, &["default", "rules"])),
        }
    }
    if !saw_rules {
        diagnostics.push(
            Diagnostic::error(codes::YAML_SHAPE, root.span, "sheet has no `rules`")
                .with_label("expected a `rules:` list here"),
        );
    }
    let built = build_sheet(rows, default);
    diagnostics.extend(built.diagnostics);
    stalwart_diagnostics::sort(&mut diagnostics);
    Parse {
        value: built.value,
        diagnostics,
    }
}

fn read_default(value: &Node, out: &mut Vec<Diagnostic>) -> Option<(SheetDefault, Span)> {
    let Some(word) = value.as_str() else {
        out.push(shape(value, "`default`", "`allow` or `refuse`"));
        return None;
    };
    match SheetDefault::from_word(word) {
        Some(d) => Some((d, value.span)),
        None => {
            out.push(
                Diagnostic::error(
                    codes::UNKNOWN_DEFAULT,
                    value.span,
                    format!("unknown default `{word}`"),
                )
                .with_label("expected `allow` or `refuse`"),
            );
            None
        }
    }
}

fn read_rules(value: &Node, out: &mut Vec<Diagnostic>) -> Vec<RawRow> {
    let Some(items) = value.items() else {
        out.push(shape(value, "`rules`", "a list of rules"));
        return Vec::new();
    };
    let mut rows = Vec::new();
    for item in items {
        let Some(entries) = item.entries() else {
            out.push(shape(
                item,
                "a rule",
                "a mapping with `rule`, `tool`, `then`",
            ));
            continue;
        };
        let missing = Cell::new(
            "",
            Span::new(item.span.file, item.span.start, item.span.start),
        );
        let mut cells: [Option<Cell>; 5] = [None, None, None, None, None];
        for (key, v) in entries {
            match COLUMNS.iter().position(|c| *c == key.name) {
                Some(i) => {
                    if let Some(slot) = cells.get_mut(i) {
                        *slot = Some(cell(v, &key.name, out));
                    }
                }
                None => out.push(unknown_key(&key.name, key.span, &COLUMNS)),
            }
        }
        let [rule, tool, when, then, say] = cells.map(|c| c.unwrap_or_else(|| missing.clone()));
        rows.push(RawRow {
            rule,
            tool,
            when,
            then,
            say,
            span: item.span,
        });
    }
    rows
}

/// A scalar as a cell; its text maps to the source exactly when the scalar is written as is.
fn cell(node: &Node, key: &str, out: &mut Vec<Diagnostic>) -> Cell {
    let text = match &node.kind {
        NodeKind::Str(s) => s.clone(),
        NodeKind::Null => String::new(),
        NodeKind::Bool(_) | NodeKind::Int(_) | NodeKind::Float(_) => node.to_json().to_string(),
        NodeKind::Seq(_) | NodeKind::Map(_) => {
            out.push(shape(node, &format!("`{key}`"), "a single value"));
            String::new()
        }
    };
    let written = node.span.end.saturating_sub(node.span.start) as usize;
    let (span, map) = if written == text.len() {
        (node.span, CellMap::Verbatim)
    } else if written == text.len() + 2 && matches!(node.kind, NodeKind::Str(_)) {
        (
            Span::new(
                node.span.file,
                node.span.start.saturating_add(1),
                node.span.end.saturating_sub(1),
            ),
            CellMap::Verbatim,
        )
    } else {
        (node.span, CellMap::Opaque)
    };
    Cell { text, span, map }
}

fn shape(node: &Node, what: &str, expected: &str) -> Diagnostic {
    Diagnostic::error(
        codes::YAML_SHAPE,
        node.span,
        format!("{what} must be {expected}, not {}", node.describe()),
    )
}

fn unknown_key(name: &str, span: Span, known: &[&str]) -> Diagnostic {
    let listed: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    let mut d = Diagnostic::error(codes::UNKNOWN_KEY, span, format!("unknown key `{name}`"))
        .with_label(format!("expected {}", listed.join(", ")));
    if let Some(near) = did_you_mean(name, known.iter().copied()) {
        d = d.with_fix(span, near, format!("did you mean `{near}`"));
    }
    d
}
