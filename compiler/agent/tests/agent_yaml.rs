//! agent.yaml read into its typed tree: values of every key, exact spans, durations and fact
//! expressions, through `parse_agent` only.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use std::fs;
use std::path::Path;

use serde_json::json;
use stalwart_agent::{
    AgentFile, Auth, Language, OnUnread, TaintPolicy, ToolEntry, Trust, parse_agent, resolve_agent,
};
use stalwart_diagnostics::{FileId, Files, Span};

fn read(path: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// Parses text that must give no diagnostic.
fn clean(text: &str) -> AgentFile {
    let parsed = parse_agent(FileId(0), text);
    assert_eq!(parsed.diagnostics, Vec::new());
    parsed.value
}

/// `line:col` of a span's start.
fn at(text: &str, span: Span) -> String {
    let mut files = Files::new();
    files.insert(FileId(0), "agent.yaml", text);
    let (line, col) = files.line_col(FileId(0), span.start);
    format!("{line}:{col}")
}

/// `(code, line:col, spanned text)` of each diagnostic, parse and resolve.
fn diagnostics(text: &str) -> Vec<(String, String, String)> {
    let parsed = parse_agent(FileId(0), text);
    let mut all = parsed.diagnostics;
    all.extend(resolve_agent(&parsed.value, &[]));
    stalwart_diagnostics::sort(&mut all);
    all.iter()
        .map(|d| {
            (
                d.code.id.to_string(),
                at(text, d.primary.span),
                text[d.primary.span.range()].to_string(),
            )
        })
        .collect()
}

fn diag(code: &str, at: &str, text: &str) -> (String, String, String) {
    (code.to_string(), at.to_string(), text.to_string())
}

#[test]
fn the_shop_reads_as_printed() {
    let text = read("../../examples/shop/agent.yaml");
    let file = clean(&text);
    let names: Vec<&str> = file.agents.iter().map(|a| a.name.value.as_str()).collect();
    assert_eq!(names, ["desk", "billing"]);
    let desk = &file.agents[0];
    assert_eq!(
        desk.model.as_ref().unwrap().value,
        "anthropic:claude-sonnet-5-5"
    );
    let tools: Vec<&str> = desk.tools.iter().map(|t| t.value.as_str()).collect();
    assert_eq!(
        tools,
        ["get_order", "charge_card", "send_receipt", "read_inbox"]
    );
    assert_eq!(desk.hands_off_to[0].value, "billing");
    assert_eq!(desk.on_unread.as_ref().unwrap().value, OnUnread::Refuse);
    assert_eq!(desk.privilege, None);
    let billing = &file.agents[1];
    assert_eq!(billing.privilege.as_ref().unwrap().value, Trust::High);
    assert_eq!(
        billing
            .tools
            .iter()
            .map(|t| t.value.as_str())
            .collect::<Vec<_>>(),
        ["refund_card"]
    );
    assert!(matches!(&file.tools[..], [ToolEntry::Python(m)] if m.value == "shop.tools"));
    assert_eq!(file.rulebook.as_ref().unwrap().value, "./policy.co");
    // Spans: the agent name `desk` at 3:3, `refund_card` at 10:13, the rulebook path exactly.
    assert_eq!(at(&text, desk.name.span), "3:3");
    assert_eq!(&text[desk.name.span.range()], "desk");
    assert_eq!(at(&text, billing.tools[0].span), "10:13");
    assert_eq!(&text[billing.tools[0].span.range()], "refund_card");
    assert_eq!(
        &text[file.rulebook.as_ref().unwrap().span.range()],
        "./policy.co"
    );
    assert_eq!(
        &text[desk.model.as_ref().unwrap().span.range()],
        "\"anthropic:claude-sonnet-5-5\""
    );
    // An agent's span covers its key through its last value.
    assert_eq!(
        &text[billing.span.range()],
        "billing:\n    privilege: high\n    tools: [refund_card]"
    );
}

#[test]
fn every_key_reads_into_the_tree() {
    let text = read("tests/fixtures/ok/every_key.yaml");
    let file = clean(&text);
    assert_eq!(file.agents.len(), 4);
    let desk = &file.agents[0];
    assert_eq!(desk.budget.as_ref().unwrap().value, 20);
    assert_eq!(desk.privilege.as_ref().unwrap().value, Trust::Low);
    let billing = &file.agents[1];
    let exit = &billing.exit_after.as_ref().unwrap().value;
    assert_eq!(
        (exit.counter.value.as_str(), exit.at_most.value),
        ("tries", 3)
    );
    assert_eq!(
        file.agents[2].on_unread.as_ref().unwrap().value,
        OnUnread::Answer
    );
    assert_eq!(
        file.agents[3].on_unread.as_ref().unwrap().value,
        OnUnread::Model
    );
    let kinds: Vec<&str> = file
        .tools
        .iter()
        .map(|t| match t {
            ToolEntry::Python(_) => "python",
            ToolEntry::Catalogue(_) => "catalogue",
            ToolEntry::Mcp(_) => "mcp",
            ToolEntry::Inline(_) => "inline",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "python",
            "catalogue",
            "mcp",
            "inline",
            "inline",
            "inline",
            "inline",
            "inline",
            "inline",
            "inline"
        ]
    );
    assert_eq!(file.rulebook.as_ref().unwrap().value, "./policy.co");
    let s = &file.settings;
    assert_eq!(s.taint_policy.as_ref().unwrap().value, TaintPolicy::Refuse);
    assert_eq!(s.confirmation_expiry.as_ref().unwrap().value, 43_200);
    assert_eq!(s.language.as_ref().unwrap().value, Language::PtBr);
    assert_eq!(s.licence.as_ref().unwrap().value, "./stalwart.key");
    assert!(s.lapsed_refuses_all.as_ref().unwrap().value);
    assert!(!s.compiled_only.as_ref().unwrap().value);
    assert_eq!(file.budget.as_ref().unwrap().value, 40);
    let step = &file.steps[0];
    assert_eq!(step.name.value, "summarize");
    assert_eq!(step.agent.value, "desk");
    assert_eq!(
        step.from
            .iter()
            .map(|s| s.value.as_str())
            .collect::<Vec<_>>(),
        ["desk_model"]
    );
    assert_eq!(step.routes.len(), 5);
    assert_eq!(step.calls[0].value, "send_receipt");
    assert!(step.guarded);
    assert!(!file.steps[1].guarded);
    assert_eq!(
        file.channels
            .iter()
            .map(|c| c.auth.value)
            .collect::<Vec<_>>(),
        [Auth::Mtls, Auth::None]
    );
    assert_eq!(
        file.channels[0].remote.value,
        "https://partner.example/agent"
    );
    assert_eq!(file.channels[1].hands_to.value, "audit");
    let kb = &file.stores[0];
    assert!(kb.multi_tenant && kb.persistent);
    assert_eq!(kb.bind.as_ref().unwrap().value, "user_id");
    let scratch = &file.stores[1];
    assert!(!scratch.multi_tenant && !scratch.persistent && scratch.bind.is_none());
    let facts: Vec<_> = file
        .facts
        .iter()
        .map(|f| {
            (
                f.name.value.as_str(),
                f.tool.value.as_str(),
                f.field.value.as_str(),
                f.equals.as_ref().map(|e| e.value.clone()),
            )
        })
        .collect();
    assert_eq!(
        facts,
        [
            ("order_paid", "get_order", "status", Some(json!("paid"))),
            ("has_card", "get_order", "card", None),
            ("big_order", "get_order", "total", Some(json!(1000.5))),
        ]
    );
    assert_eq!(file.facts[0].same.as_ref().unwrap().value, "order_id");
    assert!(resolve_agent(&file, &[]).is_empty());
}

/// The seconds `confirmation_expiry` gives, or the diagnostic's code and message.
fn expiry(value: &str) -> Result<u64, String> {
    let parsed = parse_agent(
        FileId(0),
        &format!("agents: {{desk: }}\nsettings: {{confirmation_expiry: {value}}}\n"),
    );
    match parsed.diagnostics.first() {
        Some(d) => Err(format!("{} {}", d.code.id, d.message)),
        None => Ok(parsed.value.settings.confirmation_expiry.unwrap().value),
    }
}

#[test]
fn confirmation_expiry_reads_durations_and_seconds() {
    assert_eq!(expiry("30m"), Ok(1800));
    assert_eq!(expiry("12h"), Ok(43_200));
    assert_eq!(expiry("1d"), Ok(86_400));
    assert_eq!(expiry("2w"), Ok(1_209_600));
    assert_eq!(expiry("90s"), Ok(90));
    assert_eq!(expiry("3600"), Ok(3600));
    assert_eq!(expiry("\"600\""), Ok(600));
    assert_eq!(
        expiry("1y"),
        Err("E0109 settings: `confirmation_expiry`: `1y` is not a duration".to_string())
    );
    assert_eq!(
        expiry("-5"),
        Err(
            "E0109 settings: `confirmation_expiry`: a duration must be at least one second"
                .to_string()
        )
    );
    assert_eq!(
        expiry("0d"),
        Err(
            "E0109 settings: `confirmation_expiry`: a duration must be at least one second"
                .to_string()
        )
    );
    assert_eq!(
        expiry("1.5h"),
        Err("E0109 settings: `confirmation_expiry`: `1.5h` is not a duration".to_string())
    );
    assert_eq!(expiry("1.5"), Err("E0102 settings: `confirmation_expiry` expects seconds or a duration like `1d`, found a number".to_string()));
    assert_eq!(
        expiry("h"),
        Err("E0109 settings: `confirmation_expiry`: `h` is not a duration".to_string())
    );
}

/// A fact's tool, field and value, each with the text its span covers.
fn fact(from: &str) -> Result<Vec<(String, String)>, (String, String)> {
    let text = format!("agents: {{desk: }}\nfacts:\n  f: {{from: {from}}}\n");
    let parsed = parse_agent(FileId(0), &text);
    if let Some(d) = parsed.diagnostics.first() {
        return Err((d.message.clone(), text[d.primary.span.range()].to_string()));
    }
    let f = &parsed.value.facts[0];
    let mut parts = vec![
        (f.tool.value.clone(), text[f.tool.span.range()].to_string()),
        (
            f.field.value.clone(),
            text[f.field.span.range()].to_string(),
        ),
    ];
    if let Some(e) = &f.equals {
        parts.push((e.value.to_string(), text[e.span.range()].to_string()));
    }
    Ok(parts)
}

fn parts(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn fact_expressions_give_their_parts_with_exact_spans() {
    assert_eq!(
        fact("get_order.status == paid"),
        Ok(parts(&[
            ("get_order", "get_order"),
            ("status", "status"),
            ("\"paid\"", "paid")
        ]))
    );
    assert_eq!(
        fact("get_order.card"),
        Ok(parts(&[("get_order", "get_order"), ("card", "card")]))
    );
    assert_eq!(
        fact("\"t.f == 'two words'\""),
        Ok(parts(&[
            ("t", "t"),
            ("f", "f"),
            ("\"two words\"", "'two words'")
        ]))
    );
    assert_eq!(
        fact("t.f == true"),
        Ok(parts(&[("t", "t"), ("f", "f"), ("true", "true")]))
    );
    assert_eq!(
        fact("t.f == 40"),
        Ok(parts(&[("t", "t"), ("f", "f"), ("40", "40")]))
    );
    assert_eq!(
        fact("t.f == 40.5"),
        Ok(parts(&[("t", "t"), ("f", "f"), ("40.5", "40.5")]))
    );
    assert_eq!(
        fact("t.f ==   null"),
        Ok(parts(&[("t", "t"), ("f", "f"), ("null", "null")]))
    );
    assert_eq!(
        fact("tf == 1"),
        Err((
            "fact `f`: `tf` is not `tool.field`".to_string(),
            "tf".to_string()
        ))
    );
    assert_eq!(
        fact("t.f == a b"),
        Err((
            "fact `f`: `a b` is not a value: quote it to compare with a string".to_string(),
            "a b".to_string()
        ))
    );
    assert_eq!(
        fact("t.f >= 3"),
        Err((
            "fact `f`: only `==` may compare a fact's field, not `>`".to_string(),
            ">".to_string()
        ))
    );
    assert_eq!(
        fact("7"),
        Err((
            "fact `f`: `from` expects `tool.field` or `tool.field == value`, found an integer"
                .to_string(),
            "7".to_string()
        ))
    );
}

#[test]
fn diagnostics_point_at_the_exact_text() {
    let text = "agents:\n  desk:\n    toolz: [a]\n    on_unread: never\n  desk:\n    model: m\nsettings: {language: de}\n";
    assert_eq!(
        diagnostics(text),
        [
            diag("E0101", "3:5", "toolz"),
            diag("E0103", "4:16", "never"),
            diag("E0105", "5:3", "desk"),
            diag("E0103", "7:22", "de"),
        ]
    );
    // Byte offsets stay right after multi-byte characters (columns count characters).
    let text = "# café ☕\nagents:\n  guichet: {model: \"modèle\", toolz: []}\n";
    assert_eq!(diagnostics(text), [diag("E0101", "3:30", "toolz")]);
    let text = "agents:\n  desk:\n    tools: [get_ordr]\ntools:\n  - name: get_order\n";
    assert_eq!(diagnostics(text), [diag("E0150", "3:13", "get_ordr")]);
    let text = "agents: {desk: {}}\nagents: {billing: {}}\n";
    assert_eq!(diagnostics(text), [diag("E0105", "2:1", "agents")]);
    let text = "agents:\n  desk:\n    tools: [a, b\n";
    assert_eq!(diagnostics(text), [diag("E0100", "4:1", "")]);
    let text = "agents:\n\tdesk: {}\n";
    assert_eq!(diagnostics(text).len(), 1);
    assert_eq!(diagnostics(text)[0].0, "E0100");
}

#[test]
fn empty_bodies_and_null_sections_are_allowed() {
    let file = clean("agents:\n  desk:\ntools:\nfacts:\nsteps:\nchannels:\nstores:\n");
    assert_eq!(file.agents.len(), 1);
    assert!(file.tools.is_empty() && file.facts.is_empty());
}

#[test]
fn the_duplicate_key_keeps_the_first() {
    let parsed = parse_agent(
        FileId(0),
        "agents:\n  desk: {model: a}\n  desk: {model: b}\n",
    );
    assert_eq!(parsed.value.agents.len(), 1);
    assert_eq!(parsed.value.agents[0].model.as_ref().unwrap().value, "a");
    assert_eq!(
        parsed.diagnostics[0].secondary[0].message,
        "first given here"
    );
}
