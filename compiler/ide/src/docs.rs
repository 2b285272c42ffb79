//! What the editor shows beside the code: the rule pages (`docs/rules/QG*.md`), the documentation of
//! every agent.yaml key, and the catalogue's keys as `docs/schemas/catalogue.schema.json` documents them.

use std::sync::OnceLock;

/// The page of a proof rule (`QG023`), as `docs/rules` holds it.
pub fn rule_page(id: &str) -> Option<&'static str> {
    RULE_PAGES
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, page)| *page)
}

/// Every rule page, by id.
pub const RULE_PAGES: &[(&str, &str)] = &[
    ("QG001", include_str!("../../../docs/rules/QG001.md")),
    ("QG002", include_str!("../../../docs/rules/QG002.md")),
    ("QG003", include_str!("../../../docs/rules/QG003.md")),
    ("QG004", include_str!("../../../docs/rules/QG004.md")),
    ("QG005", include_str!("../../../docs/rules/QG005.md")),
    ("QG006", include_str!("../../../docs/rules/QG006.md")),
    ("QG007", include_str!("../../../docs/rules/QG007.md")),
    ("QG008", include_str!("../../../docs/rules/QG008.md")),
    ("QG009", include_str!("../../../docs/rules/QG009.md")),
    ("QG010", include_str!("../../../docs/rules/QG010.md")),
    ("QG011", include_str!("../../../docs/rules/QG011.md")),
    ("QG012", include_str!("../../../docs/rules/QG012.md")),
    ("QG013", include_str!("../../../docs/rules/QG013.md")),
    ("QG014", include_str!("../../../docs/rules/QG014.md")),
    ("QG015", include_str!("../../../docs/rules/QG015.md")),
    ("QG016", include_str!("../../../docs/rules/QG016.md")),
    ("QG017", include_str!("../../../docs/rules/QG017.md")),
    ("QG018", include_str!("../../../docs/rules/QG018.md")),
    ("QG019", include_str!("../../../docs/rules/QG019.md")),
    ("QG020", include_str!("../../../docs/rules/QG020.md")),
    ("QG021", include_str!("../../../docs/rules/QG021.md")),
    ("QG022", include_str!("../../../docs/rules/QG022.md")),
    ("QG023", include_str!("../../../docs/rules/QG023.md")),
    ("QG101", include_str!("../../../docs/rules/QG101.md")),
    ("QG104", include_str!("../../../docs/rules/QG104.md")),
    ("QG105", include_str!("../../../docs/rules/QG105.md")),
    ("QG106", include_str!("../../../docs/rules/QG106.md")),
    ("QG107", include_str!("../../../docs/rules/QG107.md")),
    ("QG312", include_str!("../../../docs/rules/QG312.md")),
];

/// A key of agent.yaml or of a tool declaration, and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDoc {
    pub key: String,
    pub doc: String,
}

/// Where a key is written: which mapping it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyContext {
    /// The top level of agent.yaml.
    AgentTop,
    /// An agent's mapping (`agents: {desk: {…}}`).
    Agent,
    /// A tool declaration (inline in agent.yaml's `tools:`, a catalogue entry, `overrides:`).
    Tool,
    /// A fact (`facts: {name: {…}}`).
    Fact,
    Settings,
    Step,
    Channel,
    Store,
}

const AGENT_TOP: &[(&str, &str)] = &[
    (
        "agents",
        "The agents, by name: each with the tools it may reach (`tools:`), `hands_off_to:`, `privilege:`, `on_unread:`, `budget:`, `exit_after:`, `language:`.",
    ),
    (
        "tools",
        "Where tools are declared: `- python: module` (a Python module read statically), `- catalogue: file.json|yaml`, `- mcp: file.json` (an MCP `tools/list` answer), or an inline mapping with `name:`.",
    ),
    (
        "rulebook",
        "The rulebook: a Colang 1.0/2.x file, a rule sheet (`.csv`, `.rules.yaml`), a NeMo Guardrails config folder, or a compiled rulebook folder.",
    ),
    (
        "facts",
        "Facts the check reads from earlier results: `order_paid: {from: get_order.status == paid, same: order_id}`.",
    ),
    (
        "settings",
        "`taint_policy: confirm|refuse`, `confirmation_expiry: 1d`, `language: en|pt-BR`, `licence:`, `compiled_only:`.",
    ),
    (
        "budget",
        "The run's ceiling: `{steps: N}` (QG023 reads budgets and `exit_after`).",
    ),
    (
        "steps",
        "Custom graph steps: `agent:`, `from:`, `routes:` (a step, `<agent>_model`, `guard`, `tool:<name>`, `end`), `calls:`, `guarded:`.",
    ),
    (
        "channels",
        "Remote agents reached over a network: `remote:`, `hands_to:`, `auth: none|token|mtls`.",
    ),
    (
        "stores",
        "Stores tools read or write: `{multi_tenant: true, bind: user_id, persistent: true}`.",
    ),
    (
        "overrides",
        "Fields of a tool declared elsewhere (an MCP answer, a Python module, a catalogue file) that its source cannot say, by tool name; a field an override sets wins.",
    ),
];

const AGENT: &[(&str, &str)] = &[
    ("model", "The model the agent runs, as `provider:name`."),
    (
        "tools",
        "The tools this agent may reach: every name must be declared.",
    ),
    (
        "hands_off_to",
        "Agents this one may hand the conversation to.",
    ),
    (
        "on_unread",
        "What a turn nothing reads gets: `refuse | model | ask | answer`.",
    ),
    (
        "privilege",
        "The trust of what this agent writes: `low` (default), `medium`, `high`.",
    ),
    ("budget", "This agent's ceiling: `{steps: N}`."),
    (
        "exit_after",
        "A counter on the model's way out: `{counter: tries, at_most: 3}`.",
    ),
    (
        "language",
        "The language the selector reads this agent's turns in: `en` or `pt-BR`.",
    ),
];

const FACT: &[(&str, &str)] = &[
    (
        "from",
        "`tool.field` or `tool.field == value`: true when the latest reported result of the tool has that field (truthy) or that value.",
    ),
    (
        "same",
        "An argument the earlier call and this call must share (`order_id`).",
    ),
];

const SETTINGS: &[(&str, &str)] = &[
    (
        "taint_policy",
        "What a write with less trusted marks than it requires gets: `confirm` (default) or `refuse`.",
    ),
    (
        "confirmation_expiry",
        "How long a confirmation token covers its call (`1d`).",
    ),
    ("language", "The selector's language: `en` or `pt-BR`."),
    ("licence", "The key file that signs histories."),
    (
        "lapsed",
        "What a lapsed licence refuses: `writes` (default) or `refuse` (every call).",
    ),
    ("compiled_only", "Accept only a compiled rulebook folder."),
];

const STEP: &[(&str, &str)] = &[
    ("agent", "Whose graph the step stands in."),
    ("from", "What routes into it (default: its agent's model)."),
    (
        "routes",
        "Where it may go: a step, `<agent>_model`, `guard`, `tool:<name>`, `end`.",
    ),
    (
        "calls",
        "Tools it calls itself; unguarded unless `guarded: true`.",
    ),
    ("guarded", "Its calls go through the tool check."),
];

const CHANNEL: &[(&str, &str)] = &[
    ("remote", "The remote agent's address."),
    ("hands_to", "The local agent the channel hands to."),
    ("auth", "`none | token | mtls`."),
];

const STORE: &[(&str, &str)] = &[
    ("multi_tenant", "The store holds several tenants' data."),
    ("bind", "The argument that names the tenant."),
    ("persistent", "What is written stays across sessions."),
];

/// The keys valid in a context, with their documentation.
pub fn keys(context: KeyContext) -> Vec<KeyDoc> {
    let table: Vec<(String, String)> = match context {
        KeyContext::AgentTop => owned(AGENT_TOP),
        KeyContext::Agent => owned(AGENT),
        KeyContext::Fact => owned(FACT),
        KeyContext::Settings => owned(SETTINGS),
        KeyContext::Step => owned(STEP),
        KeyContext::Channel => owned(CHANNEL),
        KeyContext::Store => owned(STORE),
        KeyContext::Tool => tool_keys().to_vec(),
    };
    table
        .into_iter()
        .map(|(key, doc)| KeyDoc { key, doc })
        .collect()
}

/// The documentation of one key in a context.
pub fn key_doc(context: KeyContext, key: &str) -> Option<KeyDoc> {
    keys(context).into_iter().find(|k| k.key == key)
}

fn owned(table: &[(&str, &str)]) -> Vec<(String, String)> {
    table
        .iter()
        .map(|(k, d)| (k.to_string(), d.to_string()))
        .collect()
}

/// The catalogue schema's tool keys and their descriptions (a key the schema leaves
/// undescribed is documented by its type).
fn tool_keys() -> &'static [(String, String)] {
    static KEYS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../docs/schemas/catalogue.schema.json"))
                .unwrap_or_default();
        let props = schema
            .pointer("/$defs/tool/properties")
            .and_then(|p| p.as_object());
        props
            .map(|p| {
                p.iter()
                    .map(|(k, v)| (k.clone(), describe(k, v)))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    })
}

/// What DESIGN §2.2 says of the fields the schema does not describe.
const TOOL_FIELDS: &[(&str, &str)] = &[
    ("description", "What the tool does (the model reads it)."),
    (
        "sends_out",
        "The tool may send to a destination given in its arguments.",
    ),
    (
        "reads_outside",
        "What it returns comes from outside (mail, web): its results are untrusted.",
    ),
    (
        "requires",
        "The trust a write needs: `low`, `medium`, `high` (default: the agent's privilege).",
    ),
    (
        "after",
        "`[tool]` or `[{tool: get_order, bind: {order_id: order_id}}]`: an earlier call that must have run.",
    ),
    (
        "not_after",
        "`[tool]` or `[untrusted]`: calls after which this one is refused.",
    ),
    (
        "at_most",
        "`N` a session, or `{count: N, per: hour|day|week|month}` (the host counts).",
    ),
    (
        "undo",
        "`{tool: refund_card, bind: {…}}` or `none`: the call that undoes this one.",
    ),
    ("irreversible", "Nothing undoes it."),
    ("idempotency", "`key: <argument>` or `retry_safe: true`."),
    (
        "checks",
        "Per argument: `at_most`/`at_least`/`equals`/`one_of`, a value or `{from: tool.field}`.",
    ),
    (
        "spend",
        "`{argument: amount, at_most: 100, per: day}` (the host counts).",
    ),
    (
        "confidential",
        "Its results must not leave through a `sends_out` tool.",
    ),
    (
        "argument_kinds",
        "Per argument: `code`, `shell`, `sql`, `query`, `path`, `url`, `template`, `destination`.",
    ),
    (
        "source",
        "Where the tool comes from: `{mcp: server, pin: sha256:…}` or `{package: name, pin: 1.2.3}`.",
    ),
    ("retrieves_from", "The store it reads."),
    ("writes_to", "The store it writes."),
];

fn describe(key: &str, v: &serde_json::Value) -> String {
    if let Some(d) = v.get("description").and_then(|d| d.as_str()) {
        return d.to_string();
    }
    if let Some((_, d)) = TOOL_FIELDS.iter().find(|(k, _)| *k == key) {
        return d.to_string();
    }
    if let Some(e) = v.get("enum").and_then(|e| e.as_array()) {
        let words: Vec<String> = e
            .iter()
            .map(|w| format!("`{}`", w.as_str().unwrap_or("")))
            .collect();
        return format!("One of {}.", words.join(", "));
    }
    match v.get("type").and_then(|t| t.as_str()) {
        Some(t) => format!("A {t}."),
        None => "See the catalogue schema.".to_string(),
    }
}

/// The guide to tool catalogues (`docs/catalogues.md`), whose sections explain codes of the
/// compiler (input errors, schema warnings, MCP answers, `overrides:`).
pub const CATALOGUES_PAGE: &str = include_str!("../../../docs/catalogues.md");

/// Where a diagnostic's code is documented, relative to the documentation's root
/// (`rules/QG023.md`, `catalogues.md#input-errors`): a proof rule's own page; for a code a rule
/// reports (`W1601` is QG009's), the rule's page; else the section of the catalogue guide that
/// names the code.
pub fn code_page(code: &str) -> Option<String> {
    if rule_page(code).is_some() {
        return Some(format!("rules/{code}.md"));
    }
    if let Some(rule) = rule_of_code(code) {
        return Some(format!("rules/{rule}.md"));
    }
    static SECTIONS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let sections = SECTIONS.get_or_init(|| sections_of(CATALOGUES_PAGE));
    sections
        .iter()
        .find(|(_, text)| mentions_code(text, code))
        .map(|(anchor, _)| format!("catalogues.md#{anchor}"))
}

/// A Markdown page's `##` sections: the heading's anchor (as GitHub makes it) and the text.
fn sections_of(page: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in page.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            out.push((anchor_of(heading), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// GitHub's anchor of a heading: lowercase, spaces to `-`, punctuation dropped.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Whether `text` names `code` as a word (`E0001`, not inside `E00012`).
fn mentions_code(text: &str, code: &str) -> bool {
    text.match_indices(code).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + code.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The proof rule a compiler diagnostic's code stands for, when a rule reports it (`W1601` is
/// QG009's).
pub fn rule_of_code(code: &str) -> Option<&'static str> {
    stalwart_analyzer::rulebook::rule_of_check(code)
}

#[cfg(test)]
mod tests {
    use super::code_page;

    #[test]
    fn codes_link_to_the_page_that_documents_them() {
        assert_eq!(code_page("QG023").as_deref(), Some("rules/QG023.md"));
        assert_eq!(code_page("W1601").as_deref(), Some("rules/QG009.md"));
        assert_eq!(
            code_page("W0401").as_deref(),
            Some("catalogues.md#json-schema")
        );
        assert_eq!(
            code_page("E0006").as_deref(),
            Some("catalogues.md#input-errors")
        );
        assert_eq!(
            code_page("E0152").as_deref(),
            Some("catalogues.md#overrides-in-agentyaml")
        );
        assert_eq!(code_page("E1605"), None);
    }
}
