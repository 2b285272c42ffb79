//! The proof's report in its three forms: the text `stalwart verify` prints (spec ch45's shop
//! report is its golden test), JSON, and SARIF 2.1.0 with one code flow per witness.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::findings::Finding;
use crate::rules::{RULES, RuleType, rule_by_id};
use crate::{ENGINES, Proof};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Per engine, how many obligations it left undecided that another engine decided.
fn not_cross_checked(proof: &Proof) -> Vec<(String, usize)> {
    let mut left: Vec<(String, usize)> = Vec::new();
    for v in &proof.verdicts {
        if proof.undecided.contains(v) {
            continue;
        }
        for (engine, verdict) in &v.engines {
            if verdict != "undecided" {
                continue;
            }
            match left.iter_mut().find(|(e, _)| e == engine) {
                Some((_, n)) => *n += 1,
                None => left.push((engine.clone(), 1)),
            }
        }
    }
    left
}

/// The text report. `argument` is agent.yaml as the command was given it.
pub fn text(proof: &Proof, argument: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "stalwart verify {argument}");
    if proof.from_cache {
        let _ = writeln!(
            out,
            "Answered from the proof cache: nothing this proof read has changed."
        );
    }
    match &proof.rulebook {
        Some(r) => {
            let _ = writeln!(
                out,
                "Compiled the rulebook {}: the tool check enforces the rules verified here.",
                r.trim_start_matches("./")
            );
            if proof.governs.is_empty() {
                out.push_str(
                    "It governs no tool of the catalogue: the check's other steps decide every \
                     call (QG004's permissive default).\n",
                );
            }
        }
        None => out.push_str("No rulebook: the tool check decides by the catalogue alone.\n"),
    }
    if proof.lints.is_empty() {
        out.push_str("Lints from the runtime: none.\n");
    } else {
        out.push_str("Lints from the runtime (none of these blocks the agent):\n");
        for l in &proof.lints {
            let _ = writeln!(out, "{}", l.line());
        }
    }
    let code = &proof.code;
    if code.findings.is_empty() {
        let _ = writeln!(
            out,
            "Code checks: no finding in {} file(s) (rules {}).",
            code.files, code.rules_digest
        );
    } else {
        let _ = writeln!(
            out,
            "Code checks: {} in {} file(s) (rules {}):",
            plural(code.findings.len(), "finding", "findings"),
            code.files,
            code.rules_digest
        );
        for f in &code.findings {
            let _ = writeln!(out, "{}:{}: {} ({})", f.file, f.line, f.message, f.check);
        }
    }
    let failures: Vec<&Finding> = proof.failures().collect();
    let warnings: Vec<&Finding> = proof
        .findings
        .iter()
        .filter(|f| !crate::findings::fails_gate(f))
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(
            out,
            "Failures: {} the gate. Fix each before this agent ships.",
            plural(failures.len(), "finding that fails", "findings that fail")
        );
        for f in &failures {
            finding_text(&mut out, f);
        }
    }
    if !warnings.is_empty() {
        let what = if warnings.len() == 1 {
            "finding that does not"
        } else {
            "findings that do not"
        };
        let _ = writeln!(
            out,
            "Warnings: {} {what} block this agent. Look at each and weigh it; the agent can run as it is.",
            warnings.len()
        );
        for f in &warnings {
            finding_text(&mut out, f);
        }
    }
    if !proof.undecided.is_empty() {
        let _ = writeln!(
            out,
            "Undecided: {} the search could not decide within its budget, so nothing is claimed for them:",
            plural(proof.undecided.len(), "obligation", "obligations")
        );
        for v in &proof.undecided {
            let _ = writeln!(out, "{} on {}", v.rule, v.subject);
        }
    }
    for (engine, left) in not_cross_checked(proof) {
        let _ = writeln!(
            out,
            "Not cross-checked: {engine} left {} of {} undecided within its budget; the other engine's answers stand alone for them.",
            left,
            plural(proof.verdicts.len(), "obligation", "obligations")
        );
    }
    if !proof.nothing_to_read.is_empty() {
        out.push_str("Rules with nothing to read, so nothing raised:\n");
        for (rule, why) in &proof.nothing_to_read {
            let _ = writeln!(out, "{rule}: {why}");
        }
    }
    if proof.gate_passed() {
        if warnings.is_empty() {
            out.push_str("Gate: passed. Nothing blocks this agent.\n");
        } else {
            let _ = writeln!(
                out,
                "Gate: passed. Nothing blocks this agent: the {} above {} for you to look at and weigh.",
                plural(warnings.len(), "warning", "warnings"),
                if warnings.len() == 1 { "is" } else { "are" }
            );
        }
    } else {
        let mut why = Vec::new();
        if !failures.is_empty() {
            why.push(format!(
                "{} above {}",
                plural(failures.len(), "finding", "findings"),
                if failures.len() == 1 {
                    "fails it"
                } else {
                    "fail it"
                }
            ));
        }
        if !proof.undecided.is_empty() {
            why.push(format!(
                "{} undecided",
                plural(proof.undecided.len(), "obligation is", "obligations are")
            ));
        }
        let _ = writeln!(out, "Gate: failed. {}.", why.join(", and "));
    }
    out
}

fn finding_text(out: &mut String, f: &Finding) {
    let Some(rule) = rule_by_id(&f.rule) else {
        return;
    };
    let _ = writeln!(
        out,
        "{} {} on {} ({})",
        f.rule,
        rule.severity,
        f.subject,
        f.place.short()
    );
    let _ = writeln!(out, "{}", f.message);
    if rule.kind == RuleType::Vulnerability && !f.witness.is_empty() {
        let _ = writeln!(out, "Path: {}", path_text(f));
    }
    if rule.stops_agent && !rule.fails_gate {
        out.push_str(
            "This finding stops Agent(...): the automatic proof will not run the agent with it.\n",
        );
    }
    let _ = writeln!(out, "{}", rule.owasp_line());
    let subject = f.subject.strip_prefix("cycle:").unwrap_or(&f.subject);
    let _ = writeln!(out, "Fix: {}", rule.fix_for(subject));
}

/// `turn -> router (agent.yaml:3) -> …`.
pub fn path_text(f: &Finding) -> String {
    let mut parts = Vec::new();
    if let Some(first) = f.witness.first() {
        parts.push(first.from.clone());
    }
    for s in &f.witness {
        parts.push(format!("{} ({})", s.to, s.place.short()));
    }
    parts.join(" -> ")
}

/// The JSON report.
pub fn json(proof: &Proof) -> Value {
    json!({
        "format": "stalwart-proof/1",
        "gate": if proof.gate_passed() { "passed" } else { "failed" },
        "from_cache": proof.from_cache,
        "key": proof.key,
        "depth": proof.depth,
        "turns": proof.turns,
        "engines": ENGINES,
        "rulebook": proof.rulebook,
        "governs": proof.governs,
        "not_governed": proof.not_governed,
        "lints": proof.lints,
        "code": proof.code,
        "findings": proof.findings.iter().map(|f| {
            let rule = rule_by_id(&f.rule);
            json!({
                "rule": f.rule,
                "title": rule.map(|r| r.title),
                "type": rule.map(|r| r.kind.as_str()),
                "severity": rule.map(|r| r.severity),
                "fails_gate": rule.is_some_and(|r| r.fails_gate),
                "stops_agent": rule.is_some_and(|r| r.stops_agent),
                "subject": f.subject,
                "place": f.place,
                "message": f.message,
                "owasp": rule.map(|r| r.owasp.to_vec()),
                "fix": rule.map(|r| r.fix_for(f.subject.strip_prefix("cycle:").unwrap_or(&f.subject))),
                "witness": f.witness,
            })
        }).collect::<Vec<_>>(),
        "undecided": proof.undecided,
        "obligations": proof.verdicts,
        "nothing_to_read": proof.nothing_to_read.iter().map(|(r, w)| json!({"rule": r, "why": w})).collect::<Vec<_>>(),
    })
}

fn location(file: &str, line: u32, message: Option<&str>) -> Value {
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": file},
            "region": {"startLine": line},
        }
    });
    if let (Some(m), Some(obj)) = (message, loc.as_object_mut()) {
        obj.insert("message".to_string(), json!({"text": m}));
    }
    loc
}

/// Where the rule pages (`docs/rules/<rule>.md` in the repository) are published: the site that
/// serves `docs/` (the published JSON Schemas' `$id`s name the same site). SARIF wants `helpUri`
/// absolute, so a code-scanning viewer can open the page.
pub const RULE_PAGES: &str = "https://stalwart.dev/rules/";

/// The SARIF 2.1.0 log: every rule with its `security-severity`, every finding as a result, and
/// one code flow (one thread flow) per witness.
pub fn sarif(proof: &Proof) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.title.replace(' ', ""),
                "shortDescription": {"text": r.title},
                "helpUri": format!("{RULE_PAGES}{}.md", r.id),
                "properties": {
                    "security-severity": format!("{:.1}", r.security_severity),
                    "tags": r.owasp,
                    "type": r.kind.as_str(),
                    "fails-gate": r.fails_gate,
                    "stops-agent": r.stops_agent,
                },
                "defaultConfiguration": {"level": if r.fails_gate { "error" } else { "warning" }},
            })
        })
        .collect();
    let results: Vec<Value> = proof
        .findings
        .iter()
        .map(|f| {
            let level = if crate::findings::fails_gate(f) { "error" } else { "warning" };
            let mut result = json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == f.rule),
                "level": level,
                "message": {"text": f.message},
                "locations": [location(&f.place.file, f.place.line, None)],
                "partialFingerprints": {"stalwart/v1": format!("{}:{}", f.rule, f.subject)},
            });
            if !f.witness.is_empty()
                && let Some(obj) = result.as_object_mut()
            {
                let steps: Vec<Value> = f
                    .witness
                    .iter()
                    .map(|s| json!({"location": location(&s.place.file, s.place.line, Some(&format!("{} -> {}", s.from, s.to)))}))
                    .collect();
                obj.insert("codeFlows".to_string(), json!([{"threadFlows": [{"locations": steps}]}]));
            }
            result
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "stalwart",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CodeReport, Verdict};

    fn verdict(subject: &str, explicit: &str, z3: &str) -> Verdict {
        Verdict {
            rule: "QG001".into(),
            subject: subject.into(),
            engines: vec![
                ("explicit".into(), explicit.into()),
                ("z3".into(), z3.into()),
            ],
        }
    }

    fn proof(verdicts: Vec<Verdict>) -> Proof {
        let undecided = verdicts
            .iter()
            .filter(|v| v.engines.iter().all(|(_, x)| x == "undecided"))
            .cloned()
            .collect();
        Proof {
            rulebook: None,
            governs: Vec::new(),
            not_governed: Vec::new(),
            lints: Vec::new(),
            code: CodeReport {
                files: 0,
                rules_digest: String::new(),
                findings: Vec::new(),
            },
            findings: Vec::new(),
            undecided,
            verdicts,
            nothing_to_read: Vec::new(),
            depth: 12,
            turns: 2,
            key: String::new(),
            from_cache: false,
        }
    }

    #[test]
    fn an_engine_that_left_decided_obligations_undecided_is_named() {
        let p = proof(vec![
            verdict("a", "unreachable", "undecided"),
            verdict("b", "reachable", "undecided"),
            verdict("c", "unreachable", "unreachable"),
            verdict("d", "undecided", "undecided"),
        ]);
        let text = text(&p, "agent.yaml");
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("Not cross-checked"))
            .collect();
        assert_eq!(
            lines,
            [
                "Not cross-checked: z3 left 2 of 4 obligations undecided within its budget; the other engine's answers stand alone for them."
            ]
        );
    }

    #[test]
    fn engines_that_decided_everything_add_no_line() {
        let p = proof(vec![verdict("a", "unreachable", "unreachable")]);
        assert!(!text(&p, "agent.yaml").contains("Not cross-checked"));
    }
}
