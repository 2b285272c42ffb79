//! The rules that read the rulebook's flows rather than the graph: what its semantic checks found
//! (QG007 read before written, QG008 call without execute, QG009 undefined bot message, each the
//! finding form of one rulebook diagnostic) and the flows it uses that a published security
//! advisory names (QG022).
//!
//! Advisories come from `data/advisories.json`, built into the binary, and from a file the user
//! gives (`stalwart verify --advisories FILE`), both in the format `stalwart-advisories/1`. The
//! shipped list holds only advisories whose ids, pages and affected flows were checked against
//! their publisher; it may be empty.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use stalwart_graph::Place;

use crate::findings::{Finding, Inputs};

/// The format an advisory file declares.
pub const ADVISORY_FORMAT: &str = "stalwart-advisories/1";

/// The advisories built into the analyzer.
const SHIPPED: &str = include_str!("../data/advisories.json");

/// What the rulebook's rules read beside the record: the rulebook's checks and flows, and the
/// advisories the user gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RulebookInput {
    /// The rulebook diagnostics a rule reports (codes [`rule_of_check`] maps).
    pub checks: Vec<RulebookCheck>,
    /// The flows the rulebook defines or runs, in source order.
    pub flows: Vec<RulebookFlow>,
    /// The rulebook is a rule sheet: rows, no flows or bot lines.
    pub sheet: bool,
    /// Advisories the user gave, read beside the shipped ones.
    pub advisories: Vec<Advisory>,
}

/// One rulebook diagnostic a rule reports: its code, what it is on (a `$variable`, a tool, a bot
/// message) and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulebookCheck {
    pub code: String,
    pub subject: String,
    pub place: Place,
}

/// A flow the rulebook defines or runs, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulebookFlow {
    pub name: String,
    pub place: Place,
}

/// A published security advisory against rails (flows) of a package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Advisory {
    /// The advisory's id as its publisher writes it (`GHSA-…`, `CVE-…`).
    pub id: String,
    /// The page that publishes it.
    pub url: String,
    /// The package the rails come from (`nemoguardrails`).
    pub package: String,
    /// The flows it affects, as a rulebook names them (`self check input`).
    pub flows: Vec<String>,
    /// The versions it affects, as the advisory writes them (`< 0.10.0`).
    pub affected: String,
    /// The first version that fixes it, when there is one.
    #[serde(default)]
    pub fixed: Option<String>,
    pub summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdvisoryFile {
    format: String,
    advisories: Vec<Advisory>,
}

/// Reads an advisory file; the error says what is wrong with it.
pub fn parse_advisories(text: &str) -> Result<Vec<Advisory>, String> {
    let file: AdvisoryFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if file.format != ADVISORY_FORMAT {
        return Err(format!(
            "the format is `{}`, not `{ADVISORY_FORMAT}`",
            file.format
        ));
    }
    Ok(file.advisories)
}

/// The advisories built into the analyzer.
pub fn shipped_advisories() -> Vec<Advisory> {
    // INVARIANT: the shipped file parses; `shipped_advisories_parse` holds it.
    parse_advisories(SHIPPED).unwrap_or_default()
}

/// The rule that reports a rulebook diagnostic, by the diagnostic's code.
pub fn rule_of_check(code: &str) -> Option<&'static str> {
    use stalwart_sema::checks::codes;
    [
        (codes::READ_BEFORE_SET.id, "QG007"),
        (codes::BOT_NAMES_A_TOOL.id, "QG008"),
        (codes::UNDEFINED_BOT_MESSAGE.id, "QG009"),
    ]
    .into_iter()
    .find(|(c, _)| *c == code)
    .map(|(_, rule)| rule)
}

/// The findings of QG007, QG008, QG009 and QG022.
pub fn findings(inputs: &Inputs<'_>) -> Vec<Finding> {
    let input = inputs.rulebook;
    let mut out: Vec<Finding> = input
        .checks
        .iter()
        .filter_map(|c| {
            let rule = rule_of_check(&c.code)?;
            Some(Finding {
                rule: rule.to_string(),
                subject: c.subject.clone(),
                place: c.place.clone(),
                message: check_message(rule, &c.subject),
                witness: Vec::new(),
            })
        })
        .collect();
    let mut advisories = shipped_advisories();
    for a in &input.advisories {
        if !advisories.iter().any(|b| b.id == a.id) {
            advisories.push(a.clone());
        }
    }
    let mut seen = BTreeSet::new();
    for flow in &input.flows {
        let name = normalise(&flow.name);
        if !seen.insert(name.clone()) {
            continue;
        }
        for a in advisories
            .iter()
            .filter(|a| a.flows.iter().any(|f| normalise(f) == name))
        {
            out.push(Finding {
                rule: "QG022".to_string(),
                subject: flow.name.clone(),
                place: flow.place.clone(),
                message: advisory_message(&flow.name, a),
                witness: Vec::new(),
            });
        }
    }
    out
}

/// The rules with nothing to read in a rulebook that is a rule sheet.
pub fn nothing_to_read_in_a_sheet() -> [(&'static str, &'static str); 4] {
    let why = "the rulebook is a rule sheet: it has rows, no flows or bot lines";
    [
        ("QG007", why),
        ("QG008", why),
        ("QG009", why),
        ("QG022", why),
    ]
}

fn check_message(rule: &str, subject: &str) -> String {
    match rule {
        "QG007" => format!(
            "the rulebook reads '{subject}' before its flow sets it, and no fact declares it: the condition decides on a value nothing gave yet"
        ),
        "QG008" => format!(
            "a bot line names the tool '{subject}' without `execute`: it is something the bot says, so it calls nothing and the rulebook does not govern '{subject}'"
        ),
        _ => format!(
            "no `define bot` defines the bot message '{subject}': the model writes what the bot says there, not the rulebook"
        ),
    }
}

fn advisory_message(flow: &str, a: &Advisory) -> String {
    let fixed = a
        .fixed
        .as_ref()
        .map(|v| format!(", fixed in {v}"))
        .unwrap_or_else(|| ", no fixed version yet".to_string());
    format!(
        "the rulebook uses the flow '{flow}', which the published advisory {} names ({} {}{fixed}): {} ({})",
        a.id, a.package, a.affected, a.summary, a.url
    )
}

/// A flow name compared as words: case, underscores and runs of spaces do not matter.
fn normalise(name: &str) -> String {
    name.to_lowercase()
        .replace('_', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_advisories_parse() {
        assert!(parse_advisories(SHIPPED).is_ok());
    }

    #[test]
    fn an_advisory_file_of_another_format_is_refused() {
        let err = parse_advisories(r#"{"format": "other/1", "advisories": []}"#);
        assert_eq!(
            err,
            Err("the format is `other/1`, not `stalwart-advisories/1`".to_string())
        );
    }

    #[test]
    fn flow_names_compare_as_words() {
        assert_eq!(normalise("Self_Check  input"), "self check input");
    }

    #[test]
    fn each_reported_check_has_its_rule() {
        assert_eq!(rule_of_check("W1604"), Some("QG007"));
        assert_eq!(rule_of_check("W1608"), Some("QG008"));
        assert_eq!(rule_of_check("W1601"), Some("QG009"));
        assert_eq!(rule_of_check("W1602"), None);
    }
}
