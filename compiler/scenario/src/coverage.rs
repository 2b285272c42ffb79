//! What the scenarios' checks exercised of each record: gate paths, flows, conditions (each
//! comparison evaluated true and evaluated false), order rules (`after`, `not_after`, `at_most`),
//! argument checks and limits (`at_most` per period, `spend`), each at a file and line; printed as
//! a table and written as lcov (`SF`, `DA`, `BRDA`, `LF`/`LH`, `BRF`/`BRH`).
//!
//! Counts come from [`stalwart_runtime::trace`]: each check is traced over the session as it was
//! before the check. Every item of the record is listed, exercised or not, so a rule no scenario
//! reaches shows as uncovered.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use stalwart_record::{
    ArchivedCheckOp, ArchivedCheckOperand, ArchivedCompareOp, ArchivedExpr, ArchivedGateAction,
    ArchivedNotAfter, ArchivedPeriod, ArchivedRecordBody, ArchivedSourceSpan,
};
use stalwart_runtime::trace::{Item, Trace, conditions_under};

use crate::run::Runner;

/// How often one item was evaluated and how it came out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub evaluated: u64,
    pub held: u64,
    pub not_held: u64,
    pub unknown: u64,
}

/// One agent's tallies.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    tallies: HashMap<Item, Tally>,
}

impl Counts {
    pub(crate) fn add(&mut self, trace: &Trace) {
        for e in &trace.events {
            let t = self.tallies.entry(e.item).or_default();
            t.evaluated += 1;
            match e.held {
                Some(true) => t.held += 1,
                Some(false) => t.not_held += 1,
                None => t.unknown += 1,
            }
        }
    }

    fn get(&self, item: &Item) -> Tally {
        self.tallies.get(item).copied().unwrap_or_default()
    }
}

/// The tallies of every agent the scenarios ran against.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    agents: HashMap<PathBuf, Counts>,
}

impl Coverage {
    pub(crate) fn counts_for(&mut self, agent: &Path) -> &mut Counts {
        self.agents.entry(agent.to_path_buf()).or_default()
    }
}

/// One item of a record, where it is written and how often it was exercised.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The source file (the agent's folder joined with the record's source path).
    pub file: PathBuf,
    /// 1-based.
    pub line: u32,
    /// `gate path`, `flow`, `condition`, `after`, `not_after`, `at_most`, `check`, `limit`,
    /// `spend`.
    pub kind: &'static str,
    /// What it is, in the words of its source (`refunds → execute refund_card`, `$order_paid`).
    pub label: String,
    /// Times it was exercised: a gate path or flow that decided, any other item evaluated.
    pub hits: u64,
    /// Each way it can come out and how often it did (`true`/`false`, `held`/`broken`,
    /// `taken`/`passed over`).
    pub branches: Vec<(&'static str, u64)>,
}

/// The coverage of one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCoverage {
    pub agent: PathBuf,
    /// In file, then line order.
    pub lines: Vec<Line>,
}

/// The report over every agent the runner compiled, in the order of their paths.
pub fn report(runner: &Runner) -> Vec<AgentCoverage> {
    let Some(coverage) = &runner.coverage else {
        return Vec::new();
    };
    let empty = Counts::default();
    let mut out: Vec<AgentCoverage> = runner
        .loaded()
        .map(|l| {
            let counts = coverage.agents.get(&l.agent).unwrap_or(&empty);
            AgentCoverage {
                agent: l.agent.clone(),
                lines: items(l.record.body(), &l.root, counts),
            }
        })
        .collect();
    out.sort_by(|a, b| a.agent.cmp(&b.agent));
    out
}

fn items(body: &ArchivedRecordBody, root: &Path, counts: &Counts) -> Vec<Line> {
    let place = |span: &ArchivedSourceSpan| -> (PathBuf, u32) {
        let file = body
            .sources
            .get(span.source.to_native() as usize)
            .map(|s| crate::normalize(&root.join(s.path.as_str())))
            .unwrap_or_else(|| root.to_path_buf());
        (file, span.line.to_native())
    };
    let mut out = Vec::new();
    let mut flows: BTreeMap<String, (PathBuf, u32, u64)> = BTreeMap::new();
    let mut seen_conditions = std::collections::HashSet::new();
    for (t, tool) in body.tools.iter().enumerate() {
        let t = t as u32;
        let name = tool.name.as_str();
        let tool_place = place(&tool.span);
        let held_broken = |tally: Tally, yes: &'static str, no: &'static str| {
            vec![(yes, tally.held), (no, tally.not_held + tally.unknown)]
        };
        let mut push = |(file, line): (PathBuf, u32), kind, label: String, hits, branches| {
            out.push(Line {
                file,
                line,
                kind,
                label,
                hits,
                branches,
            })
        };
        for (i, after) in tool.after.iter().enumerate() {
            let tally = counts.get(&Item::After {
                tool: t,
                index: i as u32,
            });
            let other = tool_name(body, after.tool.to_native());
            let bind: Vec<&str> = after.bind.iter().map(|p| p.0.as_str()).collect();
            let label = if bind.is_empty() {
                format!("{name}: after {other}")
            } else {
                format!("{name}: after {other} ({})", bind.join(", "))
            };
            push(
                tool.spans
                    .after
                    .get(i)
                    .map_or_else(|| tool_place.clone(), &place),
                "after",
                label,
                tally.evaluated,
                held_broken(tally, "held", "broken"),
            );
        }
        for (i, rule) in tool.not_after.iter().enumerate() {
            let tally = counts.get(&Item::NotAfter {
                tool: t,
                index: i as u32,
            });
            let other = match rule {
                ArchivedNotAfter::Untrusted => "untrusted".to_string(),
                ArchivedNotAfter::Tool(o) => tool_name(body, o.to_native()),
            };
            push(
                tool.spans
                    .not_after
                    .get(i)
                    .map_or_else(|| tool_place.clone(), &place),
                "not_after",
                format!("{name}: not_after {other}"),
                tally.evaluated,
                held_broken(tally, "held", "broken"),
            );
        }
        if let Some(limit) = tool.at_most.as_ref() {
            let tally = counts.get(&Item::AtMost { tool: t });
            let (kind, label, yes, no) = match limit.per.as_ref() {
                None => (
                    "at_most",
                    format!("{name}: at_most {}", limit.count),
                    "held",
                    "broken",
                ),
                Some(per) => (
                    "limit",
                    format!("{name}: at_most {} per {}", limit.count, period(per)),
                    "under",
                    "reached",
                ),
            };
            push(
                tool.spans
                    .at_most
                    .as_ref()
                    .map_or_else(|| tool_place.clone(), &place),
                kind,
                label,
                tally.evaluated,
                held_broken(tally, yes, no),
            );
        }
        for (i, check) in tool.checks.iter().enumerate() {
            let tally = counts.get(&Item::Check {
                tool: t,
                index: i as u32,
            });
            let op = match check.op {
                ArchivedCheckOp::AtMost => "at_most",
                ArchivedCheckOp::AtLeast => "at_least",
                ArchivedCheckOp::Equals => "equals",
                ArchivedCheckOp::OneOf => "one_of",
            };
            let operand = match &check.operand {
                ArchivedCheckOperand::Value(v) => {
                    stalwart_runtime::value::to_json(body, v.to_native())
                        .unwrap_or(Value::Null)
                        .to_string()
                }
                ArchivedCheckOperand::From { tool: from, field } => {
                    format!("{}.{field}", tool_name(body, from.to_native()))
                }
            };
            push(
                tool.spans
                    .checks
                    .get(i)
                    .map_or_else(|| tool_place.clone(), &place),
                "check",
                format!("{name}: {} {op} {operand}", check.argument),
                tally.evaluated,
                held_broken(tally, "held", "failed"),
            );
        }
        if let Some(spend) = tool.spend.as_ref() {
            let tally = counts.get(&Item::Spend { tool: t });
            push(
                tool.spans
                    .spend
                    .as_ref()
                    .map_or_else(|| tool_place.clone(), &place),
                "spend",
                format!(
                    "{name}: spend {} at_most {} per {}",
                    spend.argument,
                    spend.at_most,
                    period(&spend.per)
                ),
                tally.evaluated,
                held_broken(tally, "under", "exceeded"),
            );
        }
        for (p, path) in tool.gate.paths.iter().enumerate() {
            let tally = counts.get(&Item::GatePath {
                tool: t,
                path: p as u32,
            });
            let at = place(&path.span);
            let action = match &path.action {
                ArchivedGateAction::Allow => format!("execute {name}"),
                ArchivedGateAction::Refuse { message } => format!("bot {message} ({name})"),
                ArchivedGateAction::Ask { message } => format!("ask {message} ({name})"),
            };
            let branches = if path.condition.is_some() {
                vec![("taken", tally.held), ("passed over", tally.not_held)]
            } else {
                Vec::new()
            };
            let flow = flows
                .entry(path.flow.to_string())
                .or_insert((at.0.clone(), at.1, 0));
            if (at.0.clone(), at.1) < (flow.0.clone(), flow.1) {
                (flow.0, flow.1) = (at.0.clone(), at.1);
            }
            flow.2 += tally.held;
            push(
                at.clone(),
                "gate path",
                format!("{} → {action}", path.flow),
                tally.held,
                branches,
            );
            if let Some(cond) = path.condition.as_ref() {
                for expr in conditions_under(body, cond.to_native()) {
                    if !seen_conditions.insert(expr) {
                        continue;
                    }
                    let tally = counts.get(&Item::Condition { expr });
                    push(
                        body.expr_spans
                            .get(expr as usize)
                            .map_or_else(|| at.clone(), &place),
                        "condition",
                        describe(body, expr, 0),
                        tally.evaluated,
                        vec![("true", tally.held), ("false", tally.not_held)],
                    );
                }
            }
        }
    }
    for (flow, (file, line, hits)) in flows {
        out.push(Line {
            file,
            line,
            kind: "flow",
            label: flow,
            hits,
            branches: Vec::new(),
        });
    }
    out.sort_by(|a, b| {
        (&a.file, a.line, kind_rank(a.kind)).cmp(&(&b.file, b.line, kind_rank(b.kind)))
    });
    merge_conditions(out)
}

/// One line for the same condition written at the same place: the compiler lowers a condition
/// once for each path it guards (`if`, `else if`, `else` each restate the earlier tests), and a
/// reader counts the condition they wrote, not its copies.
fn merge_conditions(lines: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for l in lines {
        let same = out
            .iter_mut()
            .rev()
            .take_while(|o| o.file == l.file && o.line == l.line)
            .find(|o| o.kind == "condition" && l.kind == "condition" && o.label == l.label);
        match same {
            Some(o) => {
                o.hits += l.hits;
                for (mine, theirs) in o.branches.iter_mut().zip(&l.branches) {
                    mine.1 += theirs.1;
                }
            }
            None => out.push(l),
        }
    }
    out
}

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "flow" => 0,
        "gate path" => 1,
        "condition" => 2,
        "after" => 3,
        "not_after" => 4,
        "at_most" => 5,
        "check" => 6,
        "limit" => 7,
        _ => 8,
    }
}

fn tool_name(body: &ArchivedRecordBody, idx: u32) -> String {
    body.tools
        .get(idx as usize)
        .map(|t| t.name.to_string())
        .unwrap_or_default()
}

fn period(p: &ArchivedPeriod) -> &'static str {
    match p {
        ArchivedPeriod::Hour => "hour",
        ArchivedPeriod::Day => "day",
        ArchivedPeriod::Week => "week",
        ArchivedPeriod::Month => "month",
    }
}

/// A condition node in the rulebook's words (`$order_paid`, `$args.amount > 100`).
fn describe(body: &ArchivedRecordBody, idx: u32, depth: usize) -> String {
    let Some(expr) = body.exprs.get(idx as usize) else {
        return "?".into();
    };
    if depth > 8 {
        return "…".into();
    }
    let d = |i: &stalwart_record::ArchivedIdx| describe(body, i.to_native(), depth + 1);
    match expr {
        ArchivedExpr::Fact(n) => format!("${n}"),
        ArchivedExpr::Arg(n) => format!("$args.{n}"),
        ArchivedExpr::Literal(v) => stalwart_runtime::value::to_json(body, v.to_native())
            .unwrap_or(Value::Null)
            .to_string(),
        ArchivedExpr::Not(e) => format!("not {}", d(e)),
        ArchivedExpr::And(a, b) => format!("{} and {}", d(a), d(b)),
        ArchivedExpr::Or(a, b) => format!("{} or {}", d(a), d(b)),
        ArchivedExpr::Compare { op, left, right } => {
            let op = match op {
                ArchivedCompareOp::Eq => "==",
                ArchivedCompareOp::Ne => "!=",
                ArchivedCompareOp::Lt => "<",
                ArchivedCompareOp::Le => "<=",
                ArchivedCompareOp::Gt => ">",
                ArchivedCompareOp::Ge => ">=",
            };
            format!("{} {op} {}", d(left), d(right))
        }
        ArchivedExpr::Member { base, field } => format!("{}.{field}", d(base)),
        ArchivedExpr::List(items) => {
            format!("[{}]", items.iter().map(d).collect::<Vec<_>>().join(", "))
        }
        ArchivedExpr::In { item, collection } => format!("{} in {}", d(item), d(collection)),
        ArchivedExpr::IsNone(e) => format!("{} is None", d(e)),
        ArchivedExpr::Call { func, args } => format!(
            "{}({})",
            format!("{func:?}").to_lowercase(),
            args.iter().map(d).collect::<Vec<_>>().join(", ")
        ),
        ArchivedExpr::Method {
            method,
            receiver,
            args,
        } => format!(
            "{}.{}({})",
            d(receiver),
            format!("{method:?}").to_lowercase(),
            args.iter().map(d).collect::<Vec<_>>().join(", ")
        ),
        ArchivedExpr::Result(tool) => format!("result of {tool}"),
        ArchivedExpr::Unknown => "(not known to the check)".into(),
    }
}

/// Exercised items and taken branches over a set of lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub items: usize,
    pub items_hit: usize,
    pub branches: usize,
    pub branches_taken: usize,
}

pub fn totals<'l>(lines: impl IntoIterator<Item = &'l Line>) -> Totals {
    let mut t = Totals::default();
    for l in lines {
        t.items += 1;
        t.items_hit += usize::from(l.hits > 0);
        t.branches += l.branches.len();
        t.branches_taken += l.branches.iter().filter(|b| b.1 > 0).count();
    }
    t
}

/// The table `stalwart test --coverage` prints.
pub fn to_text(report: &[AgentCoverage]) -> String {
    let mut out = String::new();
    for agent in report {
        let _ = writeln!(out, "Coverage of {}:", agent.agent.display());
        for l in &agent.lines {
            let branches = l
                .branches
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect::<Vec<_>>()
                .join(", ");
            let mark = if l.hits == 0 {
                "  NOT EXERCISED"
            } else if l.branches.iter().any(|b| b.1 == 0) {
                "  PARTLY"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  {}:{}  {} {}  hits {}{}{mark}",
                l.file.display(),
                l.line,
                l.kind,
                l.label,
                l.hits,
                if branches.is_empty() {
                    String::new()
                } else {
                    format!(" ({branches})")
                }
            );
        }
        let t = totals(&agent.lines);
        let _ = writeln!(
            out,
            "  {} of {} items exercised, {} of {} branches taken",
            t.items_hit, t.items, t.branches_taken, t.branches
        );
    }
    out
}

/// The same as JSON: `[{agent, lines: [{file, line, kind, label, hits, branches}], totals}]`.
pub fn to_json(report: &[AgentCoverage]) -> Value {
    Value::Array(
        report
            .iter()
            .map(|a| {
                let t = totals(&a.lines);
                json!({
                    "agent": a.agent.display().to_string(),
                    "lines": a.lines.iter().map(|l| json!({
                        "file": l.file.display().to_string(),
                        "line": l.line,
                        "kind": l.kind,
                        "label": l.label,
                        "hits": l.hits,
                        "branches": l.branches.iter().map(|(n, c)| json!({"name": n, "taken": c})).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "totals": {
                        "items": t.items, "items_hit": t.items_hit,
                        "branches": t.branches, "branches_taken": t.branches_taken,
                    },
                })
            })
            .collect(),
    )
}

/// lcov's tracefile: one record per source file (`TN:`, `SF:`, `DA:line,hits` with a line's hits
/// the fewest of its items, `BRDA:line,block,branch,taken` with `-` for an item never evaluated,
/// `LF`/`LH`, `BRF`/`BRH`, `end_of_record`). Files of several agents are merged.
pub fn to_lcov(report: &[AgentCoverage]) -> String {
    let mut by_file: BTreeMap<&Path, Vec<&Line>> = BTreeMap::new();
    for a in report {
        for l in &a.lines {
            by_file.entry(l.file.as_path()).or_default().push(l);
        }
    }
    let mut out = String::new();
    for (file, lines) in by_file {
        let _ = writeln!(out, "TN:\nSF:{}", file.display());
        let mut per_line: BTreeMap<u32, Vec<&Line>> = BTreeMap::new();
        for l in lines {
            per_line.entry(l.line).or_default().push(l);
        }
        let (mut brf, mut brh) = (0, 0);
        let mut branch_lines = String::new();
        let mut da = String::new();
        let mut lh = 0;
        for (line, items) in &per_line {
            let hits = items.iter().map(|l| l.hits).min().unwrap_or(0);
            lh += usize::from(hits > 0);
            let _ = writeln!(da, "DA:{line},{hits}");
            for (block, item) in items.iter().filter(|l| !l.branches.is_empty()).enumerate() {
                for (branch, (_, taken)) in item.branches.iter().enumerate() {
                    brf += 1;
                    brh += usize::from(*taken > 0);
                    let taken = if item.branches.iter().all(|b| b.1 == 0) {
                        "-".to_string()
                    } else {
                        taken.to_string()
                    };
                    let _ = writeln!(branch_lines, "BRDA:{line},{block},{branch},{taken}");
                }
            }
        }
        out.push_str(&branch_lines);
        let _ = writeln!(out, "BRF:{brf}\nBRH:{brh}");
        out.push_str(&da);
        let _ = writeln!(out, "LF:{}\nLH:{lh}\nend_of_record", per_line.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{AgentCoverage, Line, to_lcov};

    fn line(file: &str, line: u32, hits: u64, branches: Vec<(&'static str, u64)>) -> Line {
        Line {
            file: PathBuf::from(file),
            line,
            kind: "after",
            label: String::new(),
            hits,
            branches,
        }
    }

    #[test]
    fn a_line_is_covered_only_when_each_item_on_it_ran() {
        let report = [AgentCoverage {
            agent: PathBuf::from("agent.yaml"),
            lines: vec![
                line("tools.yaml", 4, 3, vec![("held", 2), ("broken", 1)]),
                line("tools.yaml", 4, 0, vec![("held", 0), ("broken", 0)]),
                line("tools.yaml", 9, 1, Vec::new()),
                line("a.co", 2, 5, vec![("taken", 5), ("passed over", 0)]),
            ],
        }];
        assert_eq!(
            to_lcov(&report),
            "TN:\nSF:a.co\nBRDA:2,0,0,5\nBRDA:2,0,1,0\nBRF:2\nBRH:1\nDA:2,5\nLF:1\nLH:1\nend_of_record\n\
             TN:\nSF:tools.yaml\nBRDA:4,0,0,2\nBRDA:4,0,1,1\nBRDA:4,1,0,-\nBRDA:4,1,1,-\nBRF:4\nBRH:2\n\
             DA:4,0\nDA:9,1\nLF:2\nLH:1\nend_of_record\n"
        );
    }

    #[test]
    fn paths_are_normalised_by_their_text() {
        use crate::normalize;
        assert_eq!(
            normalize(std::path::Path::new(
                "tests/conformance/../../examples/shop/./agent.yaml"
            )),
            PathBuf::from("examples/shop/agent.yaml")
        );
        assert_eq!(
            normalize(std::path::Path::new("w/../../x")),
            PathBuf::from("../x")
        );
        assert_eq!(
            normalize(std::path::Path::new("/a/../../b")),
            PathBuf::from("/b")
        );
    }
}
