//! agent.yaml's `overrides:` applied to the declarations every source gave.
//!
//! An override sets, for a tool declared anywhere (an MCP answer, a Python module, a catalogue
//! file, inline), the fields its source cannot say (`effects`, `sends_out`, `argument_kinds`,
//! `after`, `checks`, …). A field an override sets replaces the source's whole: a list (`after`,
//! `checks`, `argument_kinds`, …) is not merged with the source's list. The tool keeps its name,
//! its origin and its span; [`crate::ToolDecl::overridden`] lists the keys set, which the
//! record's manifest reports. An override naming a tool no source declares is reported by
//! `resolve` (E0162), not here.

use crate::{OverrideDecl, ToolDecl};

/// Applies every override to the tools it names, in file order (a later override of the same key
/// wins).
pub fn apply_overrides(tools: &mut [ToolDecl], overrides: &[OverrideDecl]) {
    for o in overrides {
        for tool in tools.iter_mut().filter(|t| t.name.value == o.tool.value) {
            for key in &o.keys {
                set(tool, &o.decl, &key.value);
                if !tool.overridden.contains(&key.value) {
                    tool.overridden.push(key.value.clone());
                }
            }
        }
    }
}

/// Copies the field `key` of `from` into `to`.
fn set(to: &mut ToolDecl, from: &ToolDecl, key: &str) {
    if let Some(span) = from.key_span(key) {
        to.key_spans.retain(|(k, _)| k != key);
        to.key_spans.push((key.to_string(), span));
    }
    match key {
        "description" => to.description = from.description.clone(),
        "effects" => to.effects = from.effects.clone(),
        "arguments" => {
            to.arguments = from.arguments.clone();
            to.argument_places = from.argument_places.clone();
        }
        "result" => to.result = from.result.clone(),
        "sends_out" => to.sends_out = from.sends_out.clone(),
        "reads_outside" => to.reads_outside = from.reads_outside.clone(),
        "requires" => to.requires = from.requires.clone(),
        "after" => to.after = from.after.clone(),
        "not_after" => to.not_after = from.not_after.clone(),
        "at_most" => to.at_most = from.at_most.clone(),
        "undo" => to.undo = from.undo.clone(),
        "irreversible" => to.irreversible = from.irreversible.clone(),
        "idempotency" => to.idempotency = from.idempotency.clone(),
        "checks" => to.checks = from.checks.clone(),
        "spend" => to.spend = from.spend.clone(),
        "confidential" => to.confidential = from.confidential.clone(),
        "argument_kinds" => to.argument_kinds = from.argument_kinds.clone(),
        "source" => to.source = from.source.clone(),
        "retrieves_from" => to.retrieves_from = from.retrieves_from.clone(),
        "writes_to" => to.writes_to = from.writes_to.clone(),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::declaration::{OVERRIDE_KEYS, TOOL_KEYS};

    #[test]
    fn an_override_may_set_every_key_but_the_name() {
        let expected: Vec<&str> = TOOL_KEYS.iter().copied().filter(|k| *k != "name").collect();
        assert_eq!(OVERRIDE_KEYS, expected.as_slice());
    }
}
