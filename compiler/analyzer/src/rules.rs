//! The hunter's catalogue of rules: each rule's id, title, type, whether it fails the gate of
//! `stalwart verify` or stops `Agent(...)`, its severity, its OWASP ids, and what the report says
//! when the rule has nothing to read. The table is spec ch45's, exactly.

/// A rule's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleType {
    Vulnerability,
    Bug,
    SecurityHotspot,
}

impl RuleType {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleType::Vulnerability => "Vulnerability",
            RuleType::Bug => "Bug",
            RuleType::SecurityHotspot => "Security hotspot",
        }
    }
}

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    pub id: &'static str,
    pub title: &'static str,
    pub kind: RuleType,
    pub fails_gate: bool,
    pub stops_agent: bool,
    /// What the report prints after the id: `Critical`, `High`, `Medium`, `Low` or `Review`.
    pub severity: &'static str,
    /// SARIF's `security-severity` (0.0–10.0).
    pub security_severity: f32,
    /// OWASP Top 10 for LLM applications and for agentic applications ids.
    pub owasp: &'static [&'static str],
    /// The fix, with `{subject}` standing for the tool, step or agent the finding is on.
    pub fix: &'static str,
}

#[expect(
    clippy::too_many_arguments,
    reason = "one argument per column of the rule table"
)]
const fn rule(
    id: &'static str,
    title: &'static str,
    kind: RuleType,
    fails_gate: bool,
    stops_agent: bool,
    severity: &'static str,
    security_severity: f32,
    owasp: &'static [&'static str],
    fix: &'static str,
) -> Rule {
    Rule {
        id,
        title,
        kind,
        fails_gate,
        stops_agent,
        severity,
        security_severity,
        owasp,
        fix,
    }
}

use RuleType::{Bug, SecurityHotspot as Hotspot, Vulnerability as Vuln};

/// Every rule, in id order.
pub const RULES: &[Rule] = &[
    rule(
        "QG001",
        "Missing check",
        Vuln,
        true,
        true,
        "Critical",
        9.1,
        &["LLM06:2026", "ASI02:2026"],
        "Route every call of '{subject}' through the guarded tool step: remove it from the step's `calls:` or set `guarded: true` on the step.",
    ),
    rule(
        "QG002",
        "Escapable guard",
        Vuln,
        true,
        true,
        "Critical",
        9.0,
        &["LLM06:2026", "ASI02:2026"],
        "Take '{subject}' out from between the guard and the tools: route it from the model, not from `guard`.",
    ),
    rule(
        "QG003",
        "Multi-turn escape",
        Vuln,
        true,
        true,
        "High",
        8.1,
        &["LLM01:2026", "ASI01:2026"],
        "Give '{subject}' the order rule in every agent it reaches, or keep the tool it must not follow out of the agents that hand off to it.",
    ),
    rule(
        "QG004",
        "Permissive by default",
        Bug,
        false,
        false,
        "Medium",
        5.3,
        &["LLM06:2026", "ASI03:2026"],
        "Set the rule sheet's `default: refuse` and allow '{subject}' by a row whose condition says when.",
    ),
    rule(
        "QG005",
        "Unshippable policy",
        Bug,
        true,
        false,
        "High",
        7.0,
        &["LLM06:2026", "ASI03:2026"],
        "Rewrite the rulebook so the tool check can compile it whole: the construct the message names has no lowering.",
    ),
    rule(
        "QG006",
        "Unverified region",
        Bug,
        false,
        false,
        "Medium",
        4.0,
        &["LLM06:2026", "ASI08:2026"],
        "Declare the routes of '{subject}' (`routes:`) so the proof can follow what it does.",
    ),
    rule(
        "QG007",
        "Read before written",
        Vuln,
        false,
        true,
        "High",
        7.5,
        &["LLM06:2026", "ASI06:2026"],
        "Assign '{subject}' before the flow reads it, or read it from a fact (`facts:` in agent.yaml) or the context.",
    ),
    rule(
        "QG008",
        "Call without execute",
        Vuln,
        false,
        true,
        "High",
        7.5,
        &["LLM06:2026", "ASI02:2026"],
        "Call the tool with `execute {subject}` (or `bot execute_{subject}`): a plain `bot` line only says something.",
    ),
    rule(
        "QG009",
        "Undefined bot message",
        Vuln,
        false,
        true,
        "Medium",
        6.5,
        &["LLM09:2026", "ASI09:2026"],
        "Define the message (`define bot {subject}`) or use one the rulebook defines.",
    ),
    rule(
        "QG010",
        "Dead action",
        Vuln,
        false,
        true,
        "Medium",
        6.5,
        &["LLM06:2026", "ASI03:2026"],
        "Change the condition of the path to '{subject}' so it can hold, or remove the path.",
    ),
    rule(
        "QG011",
        "Confused deputy",
        Vuln,
        true,
        true,
        "Critical",
        9.0,
        &["LLM06:2026", "ASI03:2026"],
        "Hand the conversation to '{subject}' with `hands_off_to`, so the lower agent's values carry its mark, or give the step the lower agent's privilege.",
    ),
    rule(
        "QG012",
        "Cascading injection",
        Vuln,
        true,
        true,
        "Critical",
        9.3,
        &["LLM01:2026", "ASI01:2026"],
        "Let '{subject}' run only through the guarded tool step, where what was read from outside holds it for a person.",
    ),
    rule(
        "QG013",
        "Irreversible before undoable",
        Bug,
        false,
        false,
        "Medium",
        5.0,
        &["LLM06:2026", "ASI08:2026"],
        "Order the run so '{subject}' comes last: declare `after:` on it for the undoable writes, or make it undoable.",
    ),
    rule(
        "QG014",
        "Order rule escapable",
        Vuln,
        true,
        true,
        "High",
        8.2,
        &["LLM06:2026", "ASI02:2026"],
        "Route every call of '{subject}' through the guarded tool step, where its order rule is checked.",
    ),
    rule(
        "QG015",
        "Undeclared route",
        Bug,
        false,
        false,
        "Medium",
        4.0,
        &["LLM06:2026", "ASI08:2026"],
        "Name a node the graph has in '{subject}': a step, <agent>_model, guard, tool:<name> or end.",
    ),
    rule(
        "QG016",
        "Unmodelled path",
        Vuln,
        true,
        true,
        "High",
        8.0,
        &["LLM06:2026", "ASI02:2026"],
        "Route '{subject}' to `guard` instead of straight to the tool.",
    ),
    rule(
        "QG017",
        "Model writes code that runs",
        Vuln,
        true,
        true,
        "Critical",
        9.8,
        &["LLM05:2026", "ASI05:2026"],
        "Keep '{subject}' away from the model, or have the person type the code (origin `typed`) and confirm it.",
    ),
    rule(
        "QG018",
        "Model writes a query or a destination",
        Vuln,
        false,
        true,
        "High",
        8.0,
        &["LLM05:2026", "ASI02:2026"],
        "Constrain the argument of '{subject}' with `checks:` (`one_of`) or a schema `enum`, or take it from the person's words.",
    ),
    rule(
        "QG019",
        "Confidential data leaves",
        Vuln,
        false,
        true,
        "High",
        8.5,
        &["LLM02:2026", "ASI02:2026"],
        "Keep '{subject}' out of the agents that read confidential results, or declare `not_after:` the confidential tool on it.",
    ),
    rule(
        "QG020",
        "Retrieval not bound to the user",
        Vuln,
        false,
        true,
        "High",
        8.0,
        &["LLM08:2026", "ASI06:2026"],
        "Bind the store that '{subject}' retrieves from to the user (`bind: user_id`).",
    ),
    rule(
        "QG021",
        "Untrusted content persisted",
        Vuln,
        false,
        true,
        "High",
        7.5,
        &["LLM04:2026", "ASI06:2026"],
        "Declare `not_after: [untrusted]` on '{subject}', or keep it out of the agents that read from outside.",
    ),
    rule(
        "QG022",
        "Rail with a published advisory",
        Vuln,
        true,
        true,
        "High",
        8.0,
        &["LLM03:2026", "ASI04:2026"],
        "Move '{subject}' to a version the advisory names as fixed, and pin it.",
    ),
    rule(
        "QG023",
        "Unbounded loop",
        Bug,
        false,
        false,
        "Medium",
        5.0,
        &["LLM06:2026", "ASI08:2026"],
        "Declare a budget for the agent or the run, or add an exit the model cannot avoid -- a counter in the state, declared on the edge as exit_after.",
    ),
    rule(
        "QG101",
        "Unchecked action",
        Hotspot,
        false,
        false,
        "Review",
        4.0,
        &["LLM06:2026", "ASI02:2026"],
        "Give '{subject}' a rule: a rulebook flow that governs it, an order rule, a limit or a check on its arguments.",
    ),
    rule(
        "QG104",
        "Check missing against its peers",
        Hotspot,
        false,
        false,
        "Review",
        4.0,
        &["LLM06:2026", "ASI02:2026"],
        "Give '{subject}' the check its peers declare on the same argument.",
    ),
    rule(
        "QG105",
        "Unrecoverable write",
        Hotspot,
        false,
        false,
        "Review",
        4.0,
        &["LLM03:2026", "ASI08:2026"],
        "Give '{subject}' an undo -- `undo:` in agent.yaml or `compensation` in the catalogue, which may be the tool itself with its arguments swapped -- or say a failed run may leave it done (`undo: none`), or mark it irreversible.",
    ),
    rule(
        "QG106",
        "Unpinned tool source",
        Hotspot,
        false,
        false,
        "Review",
        5.0,
        &["LLM03:2026", "ASI04:2026"],
        "Pin the source of '{subject}': `pin:` with a version or a `sha256:` digest.",
    ),
    rule(
        "QG107",
        "Unauthenticated agent channel",
        Hotspot,
        false,
        false,
        "Review",
        6.0,
        &["LLM06:2026", "ASI07:2026"],
        "Authenticate the channel '{subject}': `auth: token` or `auth: mtls`.",
    ),
    rule(
        "QG312",
        "Engine disagreement",
        Bug,
        true,
        false,
        "High",
        7.0,
        &["LLM06:2026", "ASI08:2026"],
        "Report the graph with this finding: the two engines must agree before the proof can be trusted.",
    ),
];

/// The rule with this id.
pub fn rule_by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

impl Rule {
    /// The fix line's text for a subject.
    pub fn fix_for(&self, subject: &str) -> String {
        self.fix.replace("{subject}", subject)
    }

    /// `OWASP LLM06:2026, ASI08:2026`.
    pub fn owasp_line(&self) -> String {
        format!("OWASP {}", self.owasp.join(", "))
    }
}
