//! The selector's part of the record (DESIGN §6): the rulebook's intents with their examples,
//! the routes a turn can be read as, and one reader per language (built by
//! `stalwart_router::compile_readers`, the same code that reads turns at run time).
//!
//! Routes, in this order: for each intent (by name), each flow it starts that reaches a tool
//! (`conditional` when a condition stands on every path to it), then each flow it starts that
//! says one message on its only path and calls no tool (declined with the message, or asked it
//! when the message is `ask …`); then every tool that no intent's route reaches and whose gate
//! lets a call through without an intent (a tool no rulebook governs, a rule sheet's rows), by
//! tool order. A tool only an intent opens is read only through that intent, so a plan for it
//! always names the intent its gate waits for.

use std::collections::BTreeMap;

use stalwart_diagnostics::Span;
use stalwart_record as rec;
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

use stalwart_sema::model::paths::{Action, Gates, Said};

/// An intent as the rulebook defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentSource {
    pub name: String,
    pub examples: Vec<String>,
    pub span: Span,
}

/// The intents of a Colang 1.0 module, with their examples as the reference reports them.
pub fn intents_v1(module: &v1::Module) -> Vec<IntentSource> {
    let facts = stalwart_syntax::inspect_v1(module);
    let mut out: Vec<IntentSource> = Vec::new();
    for item in &module.items {
        let v1::Item::User(u) = item else { continue };
        let name = u.name.text.to_string();
        if out.iter().any(|i| i.name == name) {
            continue;
        }
        let examples = facts["user_messages"][name.as_str()]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e.as_str().map(str::to_string))
                    .filter(|e| !e.starts_with("{intent:"))
                    .collect()
            })
            .unwrap_or_default();
        out.push(IntentSource {
            name,
            examples,
            span: u.span,
        });
    }
    out
}

/// The first utterance of each bot message a Colang 1.0 module defines.
pub fn utterances_v1(module: &v1::Module) -> BTreeMap<String, String> {
    let facts = stalwart_syntax::inspect_v1(module);
    facts["bot_messages"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.get(0)?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// The intents of a Colang 2.x module: each `flow user <intent>` with the texts of its
/// `user said "…"` (or `user expressed "…"`) specs.
pub fn intents_v2(module: &v2::Module, text: &str) -> Vec<IntentSource> {
    let mut out: Vec<IntentSource> = Vec::new();
    for item in &module.items {
        let v2::Item::Flow(flow) = item else { continue };
        let Some(intent) = flow.name.strip_prefix("user ") else {
            continue;
        };
        if intent == "said" || intent.starts_with("said ") || intent.starts_with("expressed") {
            continue;
        }
        let body = text
            .get(flow.span.start as usize..flow.span.end as usize)
            .unwrap_or("");
        out.push(IntentSource {
            name: intent.to_string(),
            examples: said_texts(body),
            span: flow.span,
        });
    }
    out
}

/// The quoted texts after `user said` / `user expressed` in a flow's text.
fn said_texts(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["user said", "user expressed"] {
        let mut rest = body;
        while let Some(at) = rest.find(marker) {
            rest = rest.get(at + marker.len()..).unwrap_or("");
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let line = rest.get(..line_end).unwrap_or("");
            if let Some(open) = line.find('"')
                && let Some(len) = line.get(open + 1..).and_then(|r| r.find('"'))
                && let Some(text) = line.get(open + 1..open + 1 + len)
            {
                out.push(text.to_string());
            }
        }
    }
    out
}

/// Fills `body.selector`: intents, routes, and the readers.
pub fn lower_selector(
    body: &mut rec::RecordBody,
    intents: &[IntentSource],
    utterances: &BTreeMap<String, String>,
    gates: &Gates,
    span_of: &dyn Fn(Span) -> rec::SourceSpan,
) {
    let mut sorted: Vec<&IntentSource> = intents.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    sorted.dedup_by(|a, b| a.name == b.name);
    let intent_index: BTreeMap<&str, u32> = sorted
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i as u32))
        .collect();
    let tool_index: BTreeMap<&str, u32> = body
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i as u32))
        .collect();
    body.selector.intents = sorted
        .iter()
        .map(|s| rec::Intent {
            name: s.name.clone(),
            examples: s.examples.clone(),
            span: span_of(s.span),
        })
        .collect();
    // (intent, flow, tool) → conditional on every path.
    let mut tool_routes: BTreeMap<(u32, String, u32), bool> = BTreeMap::new();
    let mut opened_without_intent: Vec<u32> = Vec::new();
    for rule in &gates.rules {
        if rule.action != Action::Allow {
            continue;
        }
        let Some(&tool) = tool_index.get(rule.tool.as_str()) else {
            continue;
        };
        match rule.intent.as_deref().and_then(|i| intent_index.get(i)) {
            Some(&intent) => {
                let conditional = !rule.conditions.is_empty();
                tool_routes
                    .entry((intent, rule.flow.clone(), tool))
                    .and_modify(|c| *c &= conditional)
                    .or_insert(conditional);
            }
            None if rule.intent.is_none() => opened_without_intent.push(tool),
            None => {}
        }
    }
    let mut routes: Vec<rec::Route> = Vec::new();
    for (&(intent, ref flow, tool), &conditional) in &tool_routes {
        routes.push(rec::Route {
            intent: Some(intent),
            flow: Some(flow.clone()),
            target: rec::RouteTarget::Tool(tool),
            conditional,
        });
    }
    // Flows that say one message on their only path for an intent.
    let mut said: BTreeMap<(u32, String), Vec<&Said>> = BTreeMap::new();
    for s in &gates.said {
        if let Some(&intent) = intent_index.get(s.intent.as_str()) {
            said.entry((intent, s.flow.clone())).or_default().push(s);
        }
    }
    for ((intent, flow), paths) in &said {
        let [only] = paths.as_slice() else { continue };
        if only.conditional {
            continue;
        }
        let target = if only.message == "ask" || only.message.starts_with("ask ") {
            rec::RouteTarget::Ask {
                message: only.message.clone(),
                text: utterances.get(&only.message).cloned(),
            }
        } else {
            rec::RouteTarget::Say {
                message: only.message.clone(),
            }
        };
        routes.push(rec::Route {
            intent: Some(*intent),
            flow: Some(flow.clone()),
            target,
            conditional: false,
        });
    }
    routes.sort_by_key(|r| r.intent);
    let routed: Vec<u32> = routes
        .iter()
        .filter_map(|r| match r.target {
            rec::RouteTarget::Tool(t) => Some(t),
            _ => None,
        })
        .collect();
    for (i, tool) in body.tools.iter().enumerate() {
        let i = i as u32;
        let open = !tool.gate.governed
            || opened_without_intent.contains(&i)
            || tool.gate.default == Some(rec::GateDefault::Allow);
        if open && !routed.contains(&i) {
            routes.push(rec::Route {
                intent: None,
                flow: None,
                target: rec::RouteTarget::Tool(i),
                conditional: tool.gate.governed,
            });
        }
    }
    body.selector.routes = routes;
    body.selector.readers = stalwart_router::compile_readers(body);
}

#[cfg(test)]
mod tests {
    use super::said_texts;

    #[test]
    fn said_texts_are_read_from_a_flow() {
        assert_eq!(
            said_texts(
                "flow user ask refund\n  user said \"refund order 4411\" or user said \"money back\"\n"
            ),
            ["refund order 4411", "money back"]
        );
    }
}
