//! A rule sheet's rows as gate rules (DESIGN §2.3, §5.7): each row is one gate path, in file
//! order, so the first row that holds decides, exactly as it does in the sheet.
//!
//! A row becomes a [`GateRule`] for its tool, named after its rule, with no intent and its
//! `when` (if any) as the one condition; `allow` passes, `refuse` refuses with `say` as the
//! reason (the rule's name when `say` is empty), `ask` asks `say` (the rule's name when empty).
//! The rules that name a tool govern it. The sheet's default goes to [`Gates::default`]:
//! `Allow` passes a call no row holds for; `Refuse` (written or not) refuses it with `no_flow`,
//! listing the tool's rules, as a Colang rulebook does. Rows with an error (no tool, an unknown
//! `then`, a `when` that did not parse) are left out: the parse already reported them, and the
//! compile stops on errors.

use std::collections::BTreeMap;

use serde_json::Value;
use stalwart_syntax::sheet::ast::{Sheet, SheetDefault, Then};

use super::cond::{Scope, resolve};
use super::paths::{Action, Default, GateRule, Gates};

/// The gate rules of a rule sheet.
pub fn sheet_gates(sheet: &Sheet, config: &Value) -> Gates {
    let mut gates = Gates {
        default: Some(match sheet.default_decision() {
            SheetDefault::Allow => Default::Allow,
            SheetDefault::Refuse => Default::Refuse,
        }),
        ..Gates::default()
    };
    let bindings = BTreeMap::new();
    let scope = Scope {
        bindings: &bindings,
        config,
        tools: None,
    };
    for row in &sheet.rows {
        let tool = row.tool.text.trim();
        let rule = row.rule.text.trim();
        let Some(then) = row.then else { continue };
        if tool.is_empty() || rule.is_empty() || (row.when.is_none() && !row.is_unconditional()) {
            continue;
        }
        let say = row.say.text.trim();
        let message = if say.is_empty() { rule } else { say }.to_string();
        let action = match then {
            Then::Allow => Action::Allow,
            Then::Refuse => Action::Refuse(message),
            Then::Ask => Action::Ask(message),
        };
        let flows = gates.governing.entry(tool.to_string()).or_default();
        if !flows.iter().any(|f| f == rule) {
            flows.push(rule.to_string());
        }
        gates.rules.push(GateRule {
            tool: tool.to_string(),
            flow: rule.to_string(),
            intent: None,
            conditions: row
                .when
                .iter()
                .map(|e| (resolve(&scope, e), false))
                .collect(),
            action,
            span: row.span,
        });
    }
    gates
}
