//! agent.yaml's `settings:`, `budget:`, and the graph-shaping keys `steps:`, `channels:`, `stores:`.
//!
//! Decisions: a step must say its `agent` and its `routes` (a step that may go nowhere is a
//! mistake); a channel must say `remote`, `hands_to` and `auth` (`auth: none` is allowed, but it
//! is said, never assumed); a store's keys are all optional (`false`, no binding).

use stalwart_diagnostics::Diagnostic;

use super::agent::{body, name_of, parse_duration, section};
use crate::codes;
use crate::node::read::{Reader, entry_span};
use crate::node::{Node, NodeKind};
use crate::{Auth, ChannelDecl, Language, SettingsDecl, Spanned, StepDecl, StoreDecl, TaintPolicy};

pub(crate) const SETTINGS_KEYS: &[&str] = &[
    "taint_policy",
    "confirmation_expiry",
    "language",
    "licence",
    "lapsed",
    "compiled_only",
];
pub(crate) const STEP_KEYS: &[&str] = &["agent", "from", "routes", "calls", "guarded"];
pub(crate) const CHANNEL_KEYS: &[&str] = &["remote", "hands_to", "auth"];
pub(crate) const STORE_KEYS: &[&str] = &["multi_tenant", "bind", "persistent"];

pub(super) fn read_settings(r: &mut Reader, node: &Node) -> SettingsDecl {
    let mut out = SettingsDecl::default();
    let Some(fields) = body(r, "", "settings", node, "a mapping of settings") else {
        return out;
    };
    let ctx = "settings: ";
    r.check_keys(ctx, "`settings`", fields, SETTINGS_KEYS);
    for (k, v) in fields {
        match k.name.as_str() {
            "taint_policy" => {
                out.taint_policy = r.word(
                    ctx,
                    "taint_policy",
                    v,
                    &[
                        ("confirm", TaintPolicy::Confirm),
                        ("refuse", TaintPolicy::Refuse),
                    ],
                );
            }
            "confirmation_expiry" => out.confirmation_expiry = read_expiry(r, v),
            "language" => out.language = read_language(r, ctx, v),
            "licence" => out.licence = r.string_as(ctx, "licence", v, "a key file path"),
            "lapsed" => {
                out.lapsed_refuses_all =
                    r.word(ctx, "lapsed", v, &[("writes", false), ("refuse", true)])
            }
            "compiled_only" => out.compiled_only = r.bool(ctx, "compiled_only", v),
            _ => {}
        }
    }
    out
}

/// `language: en | pt-BR`. European Portuguese (`pt-PT`, `pt`) is not a grammar the selector
/// has: it is refused with its own code, so the author is told why rather than given a list.
pub(super) fn read_language(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<Language>> {
    if let NodeKind::Str(s) = &node.kind
        && matches!(s.as_str(), "pt-PT" | "pt_PT" | "pt" | "pt-pt")
    {
        r.push(
            Diagnostic::error(
                codes::LANGUAGE_UNSUPPORTED,
                node.span,
                format!("{ctx}the selector does not read `{s}`: European Portuguese is not a grammar it has"),
            )
            .with_label("not a language the selector reads")
            .with_help("write `language: pt-BR` for Brazilian Portuguese, or `language: en`"),
        );
        return None;
    }
    r.word(
        ctx,
        "language",
        node,
        &[("en", Language::En), ("pt-BR", Language::PtBr)],
    )
}

fn read_expiry(r: &mut Reader, node: &Node) -> Option<Spanned<u64>> {
    let parsed = match &node.kind {
        NodeKind::Int(n) if *n >= 1 => Ok(n.unsigned_abs()),
        NodeKind::Int(_) => Err("a duration must be at least one second".to_string()),
        NodeKind::Str(s) => parse_duration(s),
        _ => {
            r.wrong_type(
                "settings: ",
                "confirmation_expiry",
                node,
                "seconds or a duration like `1d`",
            );
            return None;
        }
    };
    match parsed {
        Ok(seconds) => Some(Spanned::new(seconds, node.span)),
        Err(message) => {
            r.push(
                Diagnostic::error(
                    codes::BAD_DURATION,
                    node.span,
                    format!("settings: `confirmation_expiry`: {message}"),
                )
                .with_label("expected seconds or a duration like `30m`, `12h`, `1d`, `2w`"),
            );
            None
        }
    }
}

/// `budget: {steps: N}`.
pub(super) fn read_budget(
    r: &mut Reader,
    ctx: &str,
    key: &str,
    node: &Node,
) -> Option<Spanned<u32>> {
    let fields = r.map(ctx, key, node, "a mapping with `steps`")?;
    r.check_keys(ctx, "`budget`", fields, &["steps"]);
    match node.get("steps") {
        Some(v) => r.count(ctx, &format!("{key}.steps"), v),
        None => {
            r.missing(ctx, "steps", node.span, "the most steps the run may take");
            None
        }
    }
}

pub(super) fn read_steps(r: &mut Reader, node: &Node) -> Vec<StepDecl> {
    let mut out = Vec::new();
    for (key, value) in section(r, "steps", node, "a mapping from step names to steps") {
        let Some(name) = name_of(r, key, "a step's") else {
            continue;
        };
        let ctx = format!("step `{}`: ", key.name);
        let Some(fields) = r.map("", &key.name, value, "a mapping with `agent` and `routes`")
        else {
            continue;
        };
        r.check_keys(&ctx, "a step", fields, STEP_KEYS);
        let agent = value
            .get("agent")
            .and_then(|v| r.string_as(&ctx, "agent", v, "an agent name"));
        let from = value
            .get("from")
            .map(|v| r.string_list(&ctx, "from", v, "step name"))
            .unwrap_or_default();
        let routes = value
            .get("routes")
            .map(|v| r.string_list(&ctx, "routes", v, "route"))
            .unwrap_or_default();
        let calls = value
            .get("calls")
            .map(|v| r.string_list(&ctx, "calls", v, "tool name"))
            .unwrap_or_default();
        let guarded = value
            .get("guarded")
            .and_then(|v| r.bool(&ctx, "guarded", v))
            .is_some_and(|b| b.value);
        if value.get("agent").is_none() {
            r.missing(
                &ctx,
                "agent",
                key.span,
                "the agent whose graph the step stands in",
            );
        }
        if value.get("routes").is_none() {
            r.missing(&ctx, "routes", key.span, "where the step may go next");
        }
        let (Some(agent), true) = (agent, value.get("routes").is_some()) else {
            continue;
        };
        out.push(StepDecl {
            name,
            agent,
            from,
            routes,
            calls,
            guarded,
            span: entry_span(key, value),
        });
    }
    out
}

pub(super) fn read_channels(r: &mut Reader, node: &Node) -> Vec<ChannelDecl> {
    let mut out = Vec::new();
    for (key, value) in section(
        r,
        "channels",
        node,
        "a mapping from channel names to channels",
    ) {
        let Some(name) = name_of(r, key, "a channel's") else {
            continue;
        };
        let ctx = format!("channel `{}`: ", key.name);
        let Some(fields) = r.map(
            "",
            &key.name,
            value,
            "a mapping with `remote`, `hands_to` and `auth`",
        ) else {
            continue;
        };
        r.check_keys(&ctx, "a channel", fields, CHANNEL_KEYS);
        let remote = value
            .get("remote")
            .and_then(|v| r.string_as(&ctx, "remote", v, "an address"));
        let hands_to = value
            .get("hands_to")
            .and_then(|v| r.string_as(&ctx, "hands_to", v, "an agent name"));
        let auth = value.get("auth").and_then(|v| {
            r.word(
                &ctx,
                "auth",
                v,
                &[
                    ("none", Auth::None),
                    ("token", Auth::Token),
                    ("mtls", Auth::Mtls),
                ],
            )
        });
        for (k, what) in [
            ("remote", "the remote agent's address"),
            (
                "hands_to",
                "the agent that receives what the channel brings",
            ),
            ("auth", "`none`, `token` or `mtls`"),
        ] {
            if value.get(k).is_none() {
                r.missing(&ctx, k, key.span, what);
            }
        }
        if let (Some(remote), Some(hands_to), Some(auth)) = (remote, hands_to, auth) {
            out.push(ChannelDecl {
                name,
                remote,
                hands_to,
                auth,
                span: entry_span(key, value),
            });
        }
    }
    out
}

pub(super) fn read_stores(r: &mut Reader, node: &Node) -> Vec<StoreDecl> {
    let mut out = Vec::new();
    for (key, value) in section(r, "stores", node, "a mapping from store names to stores") {
        let Some(name) = name_of(r, key, "a store's") else {
            continue;
        };
        let ctx = format!("store `{}`: ", key.name);
        let Some(fields) = body(r, "", &key.name, value, "a mapping of the store's keys") else {
            continue;
        };
        r.check_keys(&ctx, "a store", fields, STORE_KEYS);
        let flag = |r: &mut Reader, k: &str| {
            value
                .get(k)
                .and_then(|v| r.bool(&ctx, k, v))
                .is_some_and(|b| b.value)
        };
        let multi_tenant = flag(r, "multi_tenant");
        let persistent = flag(r, "persistent");
        let bind = value
            .get("bind")
            .and_then(|v| r.string_as(&ctx, "bind", v, "an argument name"));
        out.push(StoreDecl {
            name,
            multi_tenant,
            bind,
            persistent,
            span: entry_span(key, value),
        });
    }
    out
}
