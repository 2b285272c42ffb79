//! The catalogue as the proof reads it: per tool, the declared facts the rules and the
//! transition system look at, taken from the record body (the same catalogue the tool check runs
//! with) and indexed by name.

use stalwart_record as rec;

/// One tool, as the proof reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFacts {
    pub name: String,
    /// `effects: changes`, or not declared (treated as changes).
    pub write: bool,
    pub reads_outside: bool,
    pub sends_out: bool,
    pub irreversible: bool,
    pub confidential: bool,
    /// `undo:` declared as a tool (its name).
    pub undo_tool: Option<String>,
    /// `undo: none`.
    pub undo_none: bool,
    pub retry_safe: bool,
    pub has_result_schema: bool,
    /// `after:` tools.
    pub after: Vec<String>,
    /// `not_after:` tools.
    pub not_after: Vec<String>,
    /// `not_after: [untrusted]`.
    pub not_after_untrusted: bool,
    /// `at_most: N` per session.
    pub at_most_session: Option<u32>,
    /// Any host-counted limit, spend or argument check.
    pub has_limits: bool,
    /// Arguments with a `checks:` entry or the spend argument.
    pub checked_arguments: Vec<String>,
    pub argument_names: Vec<String>,
    pub argument_kinds: Vec<(String, rec::ArgumentKind)>,
    pub retrieves_from: Option<String>,
    pub writes_to: Option<String>,
    pub source: Option<rec::ToolSource>,
    pub gate: rec::Gate,
}

impl ToolFacts {
    pub fn has_order_rule(&self) -> bool {
        !self.after.is_empty()
            || !self.not_after.is_empty()
            || self.not_after_untrusted
            || self.at_most_session.is_some()
    }
}

/// The catalogue, sorted by name (the record's order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Catalogue {
    pub tools: Vec<ToolFacts>,
}

impl Catalogue {
    pub fn from_record(body: &rec::RecordBody) -> Self {
        let name_of = |i: u32| {
            body.tools
                .get(i as usize)
                .map(|t| t.name.clone())
                .unwrap_or_default()
        };
        let tools = body
            .tools
            .iter()
            .map(|t| {
                let mut checked: Vec<String> =
                    t.checks.iter().map(|c| c.argument.clone()).collect();
                if let Some(s) = &t.spend {
                    checked.push(s.argument.clone());
                }
                ToolFacts {
                    name: t.name.clone(),
                    write: t.effects != rec::Effects::Reads,
                    reads_outside: t.reads_outside,
                    sends_out: t.sends_out,
                    irreversible: t.irreversible,
                    confidential: t.confidential,
                    undo_tool: match &t.undo {
                        rec::Undo::Tool { tool, .. } => Some(name_of(*tool)),
                        _ => None,
                    },
                    undo_none: t.undo == rec::Undo::None,
                    retry_safe: t.idempotency != rec::Idempotency::None,
                    has_result_schema: t.result.is_some(),
                    after: t.after.iter().map(|a| name_of(a.tool)).collect(),
                    not_after: t
                        .not_after
                        .iter()
                        .filter_map(|n| match n {
                            rec::NotAfter::Tool(i) => Some(name_of(*i)),
                            rec::NotAfter::Untrusted => None,
                        })
                        .collect(),
                    not_after_untrusted: t.not_after.contains(&rec::NotAfter::Untrusted),
                    at_most_session: t.at_most.filter(|a| a.per.is_none()).map(|a| a.count),
                    has_limits: t.at_most.is_some_and(|a| a.per.is_some())
                        || t.spend.is_some()
                        || !t.checks.is_empty(),
                    checked_arguments: checked,
                    argument_names: t.argument_names.clone(),
                    argument_kinds: t
                        .argument_kinds
                        .iter()
                        .filter(|(arg, kind)| {
                            crate::system::is_code(*kind) || !constrained(body, t, arg)
                        })
                        .cloned()
                        .collect(),
                    retrieves_from: t.retrieves_from.clone(),
                    writes_to: t.writes_to.clone(),
                    source: t.source.clone(),
                    gate: t.gate.clone(),
                }
            })
            .collect();
        Self { tools }
    }

    pub fn tool(&self, name: &str) -> Option<&ToolFacts> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.tools.iter().position(|t| t.name == name)
    }
}

/// Whether a tool's argument can take only values the tool declares: a `one_of` or `equals`
/// check, or an `enum` or `const` in its schema. The model then chooses among them and does not
/// write the query or destination (QG018); code (QG017) is never read as constrained.
fn constrained(body: &rec::RecordBody, t: &rec::Tool, argument: &str) -> bool {
    let checked = t.checks.iter().any(|c| {
        c.argument == argument && matches!(c.op, rec::CheckOp::OneOf | rec::CheckOp::Equals)
    });
    let node = |i: rec::SchemaIdx| body.schema_nodes.get(i as usize);
    let enumerated = t
        .arguments
        .and_then(node)
        .and_then(|n| n.properties.iter().find(|(name, _)| name == argument))
        .and_then(|(_, i)| node(*i))
        .is_some_and(|n| n.has_enum || n.constant.is_some());
    checked || enumerated
}
