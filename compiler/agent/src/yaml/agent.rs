//! agent.yaml's top level, its agents, its `tools:` list and its facts, read from a [`Node`].

use stalwart_diagnostics::{Diagnostic, FileId, Span, did_you_mean};

use super::graph;
use crate::codes;
use crate::declaration::{OVERRIDE_KEYS, tool_from_node};
use crate::node::read::{Reader, entry_span};
use crate::node::{Key, Node, NodeKind};
use crate::{
    AgentDecl, AgentFile, ExitAfter, FactDecl, OnUnread, OverrideDecl, Parse, Spanned, ToolEntry,
    ToolOrigin, Trust,
};

/// The keys of agent.yaml's top level.
pub(crate) const TOP_KEYS: &[&str] = &[
    "agents",
    "tools",
    "rulebook",
    "facts",
    "settings",
    "budget",
    "steps",
    "channels",
    "stores",
    "overrides",
];
/// The keys of one agent.
pub(crate) const AGENT_KEYS: &[&str] = &[
    "model",
    "tools",
    "hands_off_to",
    "on_unread",
    "language",
    "privilege",
    "budget",
    "exit_after",
];
const SOURCE_KEYS: &[&str] = &["python", "catalogue", "mcp"];
const FACT_KEYS: &[&str] = &["from", "same"];

pub(super) fn read_agent_file(node: &Node, file: FileId) -> Parse<AgentFile> {
    let mut r = Reader::default();
    let mut out = AgentFile::default();
    let Some(entries) = node.entries() else {
        let at = node
            .items()
            .and_then(|i| i.first())
            .map(|i| i.span)
            .unwrap_or(node.span);
        r.push(
            Diagnostic::error(
                codes::WRONG_TYPE,
                at,
                format!(
                    "agent.yaml must be a mapping with `agents:`, found {}",
                    node.describe()
                ),
            )
            .with_label("expected a mapping"),
        );
        return Parse {
            value: out,
            diagnostics: r.diagnostics,
        };
    };
    r.check_keys("", "agent.yaml's top level", entries, TOP_KEYS);
    let mut agents_key: Option<&Key> = None;
    for (key, value) in entries {
        match key.name.as_str() {
            "agents" => {
                agents_key = Some(key);
                out.agents = read_agents(&mut r, value);
            }
            "tools" => out.tools = read_tool_entries(&mut r, value),
            "rulebook" => out.rulebook = r.string_as("", "rulebook", value, "a path"),
            "facts" => out.facts = read_facts(&mut r, value),
            "settings" => out.settings = graph::read_settings(&mut r, value),
            "budget" => out.budget = graph::read_budget(&mut r, "", "budget", value),
            "steps" => out.steps = graph::read_steps(&mut r, value),
            "channels" => out.channels = graph::read_channels(&mut r, value),
            "stores" => out.stores = graph::read_stores(&mut r, value),
            "overrides" => out.overrides = read_overrides(&mut r, value),
            _ => {}
        }
    }
    let agents_mistyped = entries
        .iter()
        .any(|(k, v)| k.name == "agents" && !matches!(v.kind, NodeKind::Null | NodeKind::Map(_)));
    if out.agents.is_empty() && !agents_mistyped {
        let at = agents_key
            .map(|k| k.span)
            .unwrap_or_else(|| Span::new(file, node.span.start, node.span.start));
        r.push(
            Diagnostic::error(codes::NO_AGENTS, at, "agent.yaml declares no agents")
                .with_label(if agents_key.is_some() {
                    "no agent here"
                } else {
                    "`agents:` is missing"
                })
                .with_help("declare at least one agent under `agents:`"),
        );
    }
    Parse {
        value: out,
        diagnostics: r.diagnostics,
    }
}

/// A named entry's name, reported when empty.
pub(super) fn name_of(r: &mut Reader, key: &Key, what: &str) -> Option<Spanned<String>> {
    if key.name.is_empty() {
        r.push(
            Diagnostic::error(codes::EMPTY_NAME, key.span, format!("{what} name is empty"))
                .with_label("an empty name"),
        );
        return None;
    }
    Some(Spanned::new(key.name.clone(), key.span))
}

/// The entries of a section that maps names to bodies; `null` is an empty section.
pub(super) fn section<'n>(
    r: &mut Reader,
    key: &str,
    node: &'n Node,
    expected: &str,
) -> &'n [(Key, Node)] {
    if node.kind == NodeKind::Null {
        return &[];
    }
    r.map("", key, node, expected).unwrap_or(&[])
}

/// A body mapping of a named entry; `null` is an empty body.
pub(super) fn body<'n>(
    r: &mut Reader,
    ctx: &str,
    key: &str,
    node: &'n Node,
    expected: &str,
) -> Option<&'n [(Key, Node)]> {
    if node.kind == NodeKind::Null {
        return Some(&[]);
    }
    r.map(ctx, key, node, expected)
}

fn read_agents(r: &mut Reader, node: &Node) -> Vec<AgentDecl> {
    let mut agents = Vec::new();
    for (key, value) in section(r, "agents", node, "a mapping from agent names to agents") {
        let Some(name) = name_of(r, key, "an agent's") else {
            continue;
        };
        let ctx = format!("agent `{}`: ", key.name);
        let mut agent = AgentDecl {
            name,
            model: None,
            tools: Vec::new(),
            hands_off_to: Vec::new(),
            on_unread: None,
            language: None,
            privilege: None,
            budget: None,
            exit_after: None,
            span: entry_span(key, value),
        };
        let Some(fields) = body(r, "", &key.name, value, "a mapping of the agent's keys") else {
            agents.push(agent);
            continue;
        };
        r.check_keys(&ctx, "an agent", fields, AGENT_KEYS);
        for (k, v) in fields {
            match k.name.as_str() {
                "model" => agent.model = r.string_as(&ctx, "model", v, "a model name"),
                "tools" => agent.tools = r.string_list(&ctx, "tools", v, "tool name"),
                "hands_off_to" => {
                    agent.hands_off_to = r.string_list(&ctx, "hands_off_to", v, "agent name")
                }
                "on_unread" => {
                    agent.on_unread = r.word(
                        &ctx,
                        "on_unread",
                        v,
                        &[
                            ("refuse", OnUnread::Refuse),
                            ("model", OnUnread::Model),
                            ("ask", OnUnread::Ask),
                            ("answer", OnUnread::Answer),
                        ],
                    );
                }
                "language" => agent.language = graph::read_language(r, &ctx, v),
                "privilege" => {
                    agent.privilege = r.word(
                        &ctx,
                        "privilege",
                        v,
                        &[
                            ("low", Trust::Low),
                            ("medium", Trust::Medium),
                            ("high", Trust::High),
                        ],
                    );
                }
                "budget" => agent.budget = graph::read_budget(r, &ctx, "budget", v),
                "exit_after" => agent.exit_after = read_exit_after(r, &ctx, v),
                _ => {}
            }
        }
        agents.push(agent);
    }
    agents
}

fn read_exit_after(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<ExitAfter>> {
    let fields = r.map(
        ctx,
        "exit_after",
        node,
        "a mapping with `counter` and `at_most`",
    )?;
    r.check_keys(ctx, "`exit_after`", fields, &["counter", "at_most"]);
    let counter = node
        .get("counter")
        .and_then(|v| r.string_as(ctx, "counter", v, "a counter name"));
    let at_most = node.get("at_most").and_then(|v| r.count(ctx, "at_most", v));
    if node.get("counter").is_none() {
        r.missing(
            ctx,
            "counter",
            node.span,
            "the name of the counter the model loop increments",
        );
    }
    if node.get("at_most").is_none() {
        r.missing(ctx, "at_most", node.span, "how many times the loop may run");
    }
    Some(Spanned::new(
        ExitAfter {
            counter: counter?,
            at_most: at_most?,
        },
        node.span,
    ))
}

fn read_tool_entries(r: &mut Reader, node: &Node) -> Vec<ToolEntry> {
    if node.kind == NodeKind::Null {
        return Vec::new();
    }
    let Some(items) = node.items() else {
        r.wrong_type("", "tools", node, "a list of tool sources and inline tools");
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| read_tool_entry(r, item))
        .collect()
}

fn bad_entry(r: &mut Reader, item: &Node, label: &str) {
    let at = item
        .entries()
        .and_then(|e| e.first())
        .map(|(k, _)| k.span)
        .unwrap_or(item.span);
    r.push(
        Diagnostic::error(codes::BAD_TOOL_ENTRY, at, "a `tools:` entry must declare a tool or name a source of tools")
            .with_label(label.to_string())
            .with_help("write `- python: module`, `- catalogue: file`, `- mcp: file`, or a mapping with `name:`"),
    );
}

fn read_tool_entry(r: &mut Reader, item: &Node) -> Option<ToolEntry> {
    let Some(entries) = item.entries() else {
        bad_entry(r, item, &format!("found {}", item.describe()));
        return None;
    };
    let sources: Vec<&(Key, Node)> = entries
        .iter()
        .filter(|(k, _)| SOURCE_KEYS.contains(&k.name.as_str()))
        .collect();
    let has_name = item.get("name").is_some();
    let Some((source_key, source_value)) = sources.first().map(|(k, v)| (k, v)) else {
        if has_name {
            let parsed = tool_from_node(item, ToolOrigin::Inline, None);
            r.diagnostics.extend(parsed.diagnostics);
            return parsed.value.map(|t| ToolEntry::Inline(Box::new(t)));
        }
        let allowed = ["name", "python", "catalogue", "mcp"];
        if entries
            .iter()
            .any(|(k, _)| did_you_mean(&k.name, allowed.iter().copied()).is_some())
        {
            r.check_keys("", "a `tools:` entry", entries, &allowed);
        } else {
            bad_entry(
                r,
                item,
                "neither `name:` nor `python:`, `catalogue:` or `mcp:`",
            );
        }
        return None;
    };
    let mut ok = true;
    for (k, _) in entries {
        if k.span == source_key.span {
            continue;
        }
        if k.name == "name" || SOURCE_KEYS.contains(&k.name.as_str()) {
            ok = false;
            r.push(
                Diagnostic::error(
                    codes::CONFLICTING_KEYS,
                    k.span,
                    format!(
                        "a `tools:` entry cannot have both `{}` and `{}`",
                        source_key.name, k.name
                    ),
                )
                .with_label(format!("conflicts with `{}`", source_key.name))
                .with_secondary(source_key.span, "the entry's source")
                .with_help("split it into two entries"),
            );
        }
    }
    let others: Vec<(Key, Node)> = entries
        .iter()
        .filter(|(k, _)| k.name != "name" && !SOURCE_KEYS.contains(&k.name.as_str()))
        .cloned()
        .collect();
    let place = format!("a `{}:` entry", source_key.name);
    r.check_keys("", &place, &others, &[source_key.name.as_str()]);
    let path = r.string_as("", &source_key.name, source_value, "a module or file path")?;
    if !ok || !others.is_empty() {
        return None;
    }
    match source_key.name.as_str() {
        "python" => Some(ToolEntry::Python(path)),
        "catalogue" => Some(ToolEntry::Catalogue(path)),
        _ => Some(ToolEntry::Mcp(path)),
    }
}

/// `overrides:`: a mapping from tool names to the fields agent.yaml sets for them.
fn read_overrides(r: &mut Reader, node: &Node) -> Vec<OverrideDecl> {
    let mut out = Vec::new();
    let expected = "a mapping from tool names to the fields to set";
    for (key, value) in section(r, "overrides", node, expected) {
        let Some(name) = name_of(r, key, "an overridden tool's") else {
            continue;
        };
        let ctx = format!("override of `{}`: ", key.name);
        let Some(fields) = body(r, "", &key.name, value, "a mapping of the fields to set") else {
            continue;
        };
        if let Some((at, _)) = fields.iter().find(|(k, _)| k.name == "name") {
            r.push(
                Diagnostic::error(
                    codes::UNKNOWN_KEY,
                    at.span,
                    format!("{ctx}an override cannot rename a tool"),
                )
                .with_label("`name` is not a field an override sets")
                .with_help("the tool keeps the name its source gives it"),
            );
        }
        let others: Vec<(Key, Node)> = fields
            .iter()
            .filter(|(k, _)| k.name != "name")
            .cloned()
            .collect();
        r.check_keys(&ctx, "an override", &others, OVERRIDE_KEYS);
        let known: Vec<(Key, Node)> = others
            .into_iter()
            .filter(|(k, _)| OVERRIDE_KEYS.contains(&k.name.as_str()))
            .collect();
        let keys = known
            .iter()
            .map(|(k, _)| Spanned::new(k.name.clone(), k.span))
            .collect();
        let mapping = Node {
            kind: NodeKind::Map(known),
            span: value.span,
        };
        let parsed = tool_from_node(&mapping, ToolOrigin::Inline, Some(name.clone()));
        r.diagnostics.extend(parsed.diagnostics);
        let Some(decl) = parsed.value else { continue };
        out.push(OverrideDecl {
            tool: name,
            decl,
            keys,
            span: entry_span(key, value),
        });
    }
    out
}

fn read_facts(r: &mut Reader, node: &Node) -> Vec<FactDecl> {
    let mut facts = Vec::new();
    for (key, value) in section(r, "facts", node, "a mapping from fact names to facts") {
        let Some(name) = name_of(r, key, "a fact's") else {
            continue;
        };
        let ctx = format!("fact `{}`: ", key.name);
        let Some(fields) = r.map("", &key.name, value, "a mapping with `from:` (and `same:`)")
        else {
            continue;
        };
        r.check_keys(&ctx, "a fact", fields, FACT_KEYS);
        let same = value
            .get("same")
            .and_then(|v| r.string_as(&ctx, "same", v, "an argument name"));
        let Some(from) = value.get("from") else {
            r.missing(
                &ctx,
                "from",
                key.span,
                "`tool.field` or `tool.field == value`",
            );
            continue;
        };
        let Some(text) = from.as_str() else {
            r.wrong_type(&ctx, "from", from, "`tool.field` or `tool.field == value`");
            continue;
        };
        match parse_fact_expression(text) {
            Ok(expr) => facts.push(FactDecl {
                name,
                tool: Spanned::new(expr.tool.0, from.sub_span(expr.tool.1)),
                field: Spanned::new(expr.field.0, from.sub_span(expr.field.1)),
                equals: expr.equals.map(|(v, range)| Spanned::new(v, from.sub_span(range))),
                same,
                span: entry_span(key, value),
            }),
            Err((message, range)) => r.push(
                Diagnostic::error(codes::BAD_FACT_EXPRESSION, from.sub_span(range), format!("{ctx}{message}"))
                    .with_label("expected `tool.field` or `tool.field == value`")
                    .with_note("a value is a bare word (a string), `true`, `false`, `null`, a number, or a quoted string"),
            ),
        }
    }
    facts
}

/// A parsed fact expression: each part with its byte range in the text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FactExpression {
    pub tool: (String, std::ops::Range<usize>),
    pub field: (String, std::ops::Range<usize>),
    pub equals: Option<(serde_json::Value, std::ops::Range<usize>)>,
}

type ExprError = (String, std::ops::Range<usize>);

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Trims `text` (at `start`) and gives the trimmed part with its range.
fn trimmed(text: &str, start: usize) -> (&str, std::ops::Range<usize>) {
    let lead = text.len() - text.trim_start().len();
    let t = text.trim();
    (t, start + lead..start + lead + t.len())
}

/// Parses `tool.field` or `tool.field == value`.
pub(crate) fn parse_fact_expression(text: &str) -> Result<FactExpression, ExprError> {
    let (left, right) = match text.split_once("==") {
        Some((l, r)) => (l, Some((r, l.len() + 2))),
        None => (text, None),
    };
    for op in ["!=", "<", ">", "&&", "||"] {
        if let Some(i) = left.find(op) {
            return Err((
                format!("only `==` may compare a fact's field, not `{op}`"),
                i..i + op.len(),
            ));
        }
    }
    let (left, left_range) = trimmed(left, 0);
    let Some((tool, field)) = left.split_once('.') else {
        return Err((format!("`{left}` is not `tool.field`"), left_range));
    };
    let tool_range = left_range.start..left_range.start + tool.len();
    let field_range = tool_range.end + 1..left_range.end;
    if tool.is_empty() {
        return Err((format!("`{left}` has no tool before the `.`"), left_range));
    }
    if field.is_empty() {
        return Err((format!("`{left}` has no field after the `.`"), left_range));
    }
    if !tool.chars().all(is_name_char) {
        return Err((format!("`{tool}` is not a tool name"), tool_range));
    }
    if !field.chars().all(is_name_char) {
        return Err((format!("`{field}` is not a field name"), field_range));
    }
    let equals = match right {
        None => None,
        Some((rest, start)) => {
            let (value, range) = trimmed(rest, start);
            Some((parse_literal(value).map_err(|m| (m, range.clone()))?, range))
        }
    };
    Ok(FactExpression {
        tool: (tool.to_string(), tool_range),
        field: (field.to_string(), field_range),
        equals,
    })
}

fn parse_literal(text: &str) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    if text.is_empty() {
        return Err("`==` needs a value after it".to_string());
    }
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote) {
            return match inner.strip_suffix(quote) {
                Some(body) if !body.contains(quote) => Ok(Value::String(body.to_string())),
                _ => Err(format!("`{text}` is not a closed quoted string")),
            };
        }
    }
    match text {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        "null" => return Ok(Value::Null),
        _ => {}
    }
    let numeric =
        text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    if numeric {
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Value::from(i));
        }
        if let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            return Ok(Value::Number(n));
        }
        return Err(format!("`{text}` is not a number"));
    }
    if text
        .chars()
        .all(|c| is_name_char(c) || matches!(c, '.' | ':' | '/' | '@' | '+'))
    {
        return Ok(Value::String(text.to_string()));
    }
    Err(format!(
        "`{text}` is not a value: quote it to compare with a string"
    ))
}

/// Parses a duration: a whole number of seconds, or a number with a unit `s`, `m`, `h`, `d`, `w`.
pub(crate) fn parse_duration(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (text.get(..i).unwrap_or(""), text.get(i..).unwrap_or("")),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(format!("`{text}` is not a duration")),
    };
    if digits.is_empty() {
        return Err(format!("`{text}` is not a duration"));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is too long a duration"))?;
    let seconds = n
        .checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too long a duration"))?;
    if seconds == 0 {
        return Err("a duration must be at least one second".to_string());
    }
    Ok(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_surrogate_pairs_read_as_one_character_and_keep_spans() {
        let text = r#"{"d": "\ud83c\udf1f star", "e": "x\\ud83c"}"#;
        let parsed = crate::yaml::to_node(FileId(0), text);
        assert_eq!(parsed.diagnostics, vec![]);
        let node = parsed.value.unwrap();
        assert_eq!(
            node.to_json(),
            json!({"d": "\u{1F31F} star", "e": "x\\ud83c"})
        );
        let e = node.get("e").unwrap();
        assert_eq!(text.get(e.span.range()), Some(r#""x\\ud83c""#));
    }

    #[test]
    fn durations_read_every_unit() {
        assert_eq!(parse_duration("30m"), Ok(1800));
        assert_eq!(parse_duration("12h"), Ok(43_200));
        assert_eq!(parse_duration("1d"), Ok(86_400));
        assert_eq!(parse_duration("2w"), Ok(1_209_600));
        assert_eq!(parse_duration("45s"), Ok(45));
        assert_eq!(parse_duration("3600"), Ok(3600));
        assert_eq!(
            parse_duration("0m"),
            Err("a duration must be at least one second".to_string())
        );
        assert_eq!(
            parse_duration("1y"),
            Err("`1y` is not a duration".to_string())
        );
        assert_eq!(
            parse_duration("d"),
            Err("`d` is not a duration".to_string())
        );
        assert_eq!(
            parse_duration("99999999999999999999w"),
            Err("`99999999999999999999w` is too long a duration".to_string())
        );
        assert_eq!(
            parse_duration("40000000000000w"),
            Err("`40000000000000w` is too long a duration".to_string())
        );
    }

    #[test]
    fn fact_expressions_read_tool_field_and_value() {
        let e = parse_fact_expression("get_order.status == paid").unwrap();
        assert_eq!(e.tool, ("get_order".to_string(), 0..9));
        assert_eq!(e.field, ("status".to_string(), 10..16));
        assert_eq!(e.equals, Some((json!("paid"), 20..24)));
        let e = parse_fact_expression(" get_order.paid ").unwrap();
        assert_eq!((e.tool.1, e.field.1, e.equals), (1..10, 11..15, None));
        let value = |t: &str| parse_fact_expression(t).map(|e| e.equals.map(|v| v.0));
        assert_eq!(value("a.b == true"), Ok(Some(json!(true))));
        assert_eq!(value("a.b == false"), Ok(Some(json!(false))));
        assert_eq!(value("a.b == null"), Ok(Some(json!(null))));
        assert_eq!(value("a.b == 40"), Ok(Some(json!(40))));
        assert_eq!(value("a.b == -2.5"), Ok(Some(json!(-2.5))));
        assert_eq!(value("a.b == \"two words\""), Ok(Some(json!("two words"))));
        assert_eq!(value("a.b == 'x'"), Ok(Some(json!("x"))));
        assert_eq!(value("a.b == 'true'"), Ok(Some(json!("true"))));
        assert_eq!(
            value("a.b == two words"),
            Err((
                "`two words` is not a value: quote it to compare with a string".to_string(),
                7..16
            ))
        );
        assert_eq!(
            value("a.b =="),
            Err(("`==` needs a value after it".to_string(), 6..6))
        );
        assert_eq!(
            value("a.b == \"open"),
            Err(("`\"open` is not a closed quoted string".to_string(), 7..12))
        );
        assert_eq!(
            value("a.b == 1.2.3"),
            Err(("`1.2.3` is not a number".to_string(), 7..12))
        );
        assert_eq!(
            value("get_order"),
            Err(("`get_order` is not `tool.field`".to_string(), 0..9))
        );
        assert_eq!(
            value("a.b.c"),
            Err(("`b.c` is not a field name".to_string(), 2..5))
        );
        assert_eq!(
            value(".b"),
            Err(("`.b` has no tool before the `.`".to_string(), 0..2))
        );
        assert_eq!(
            value("a. == 1"),
            Err(("`a.` has no field after the `.`".to_string(), 0..2))
        );
        assert_eq!(
            value("a.b != 1"),
            Err((
                "only `==` may compare a fact's field, not `!=`".to_string(),
                4..6
            ))
        );
    }
}
