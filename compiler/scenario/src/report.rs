//! The results of a run as `stalwart test` prints them: text for a person, JSON
//! (`stalwart-test/1`) and JUnit XML for CI.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::{ScenarioResult, StepResult};

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub scenarios: usize,
    pub failed_scenarios: usize,
    pub steps: usize,
    pub failed_steps: usize,
}

pub fn summary(results: &[ScenarioResult]) -> Summary {
    let mut s = Summary::default();
    for r in results {
        s.scenarios += 1;
        s.failed_scenarios += usize::from(!r.passed());
        s.steps += r.steps.len();
        s.failed_steps += r.failed_steps().count();
    }
    s
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn show(v: &Option<Value>) -> String {
    match v {
        None => "none".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// One line a scenario, each failing step under it with what was expected and answered and the
/// `source` of both, then the summary.
pub fn to_text(results: &[ScenarioResult]) -> String {
    let mut out = String::new();
    for r in results {
        let steps = plural(r.steps.len(), "step", "steps");
        if r.passed() {
            let _ = writeln!(out, "ok      {} ({steps})", r.path.display());
            continue;
        }
        let failed = r.failed_steps().count();
        let _ = writeln!(
            out,
            "FAILED  {} ({failed} of {steps} failed)",
            r.path.display()
        );
        for s in r.failed_steps() {
            let _ = writeln!(
                out,
                "  {}:{}: {} ({})",
                r.path.display(),
                s.line,
                s.name,
                s.kind
            );
            for f in &s.failures {
                let _ = writeln!(out, "    {}", f.describe());
            }
            if s.kind == "check" {
                let _ = writeln!(
                    out,
                    "    source: expected {}, actual {}",
                    show(&s.expected_source),
                    show(&s.actual_source)
                );
            }
            if let Some(answer) = &s.answer {
                let _ = writeln!(out, "    answer: {answer}");
            }
        }
    }
    let s = summary(results);
    let _ = writeln!(
        out,
        "{}: {} passed, {} failed; {}, {} failed",
        plural(s.scenarios, "scenario", "scenarios"),
        s.scenarios - s.failed_scenarios,
        s.failed_scenarios,
        plural(s.steps, "step", "steps"),
        s.failed_steps
    );
    out
}

fn step_json(s: &StepResult) -> Value {
    json!({
        "step": s.index,
        "name": s.name,
        "line": s.line,
        "kind": s.kind,
        "ok": s.passed(),
        "failures": s.failures.iter().map(|f| json!({
            "what": f.what,
            "expected": f.expected,
            "actual": f.actual,
            "message": f.describe(),
        })).collect::<Vec<_>>(),
        "expected_source": s.expected_source,
        "actual_source": s.actual_source,
        "answer": if s.passed() { Value::Null } else { s.answer.clone().unwrap_or(Value::Null) },
    })
}

/// `{"format": "stalwart-test/1", "scenarios": [...], "summary": {...}}`; each scenario lists
/// every step (failing ones with their answer), in file order.
pub fn to_json(results: &[ScenarioResult], coverage: Option<Value>) -> Value {
    let s = summary(results);
    let mut doc = json!({
        "format": "stalwart-test/1",
        "scenarios": results.iter().map(|r| json!({
            "file": r.path.display().to_string(),
            "agent": r.agent.display().to_string(),
            "ok": r.passed(),
            "steps": r.steps.iter().map(step_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "summary": {
            "scenarios": s.scenarios,
            "failed_scenarios": s.failed_scenarios,
            "steps": s.steps,
            "failed_steps": s.failed_steps,
        },
    });
    if let (Some(c), Some(map)) = (coverage, doc.as_object_mut()) {
        map.insert("coverage".into(), c);
    }
    doc
}

/// XML text with `&`, `<`, `>`, `"` escaped and characters XML 1.0 cannot hold dropped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML as the Ant/Jenkins schema reads it: `<testsuites>`, one `<testsuite>` per scenario
/// file, one `<testcase>` per step (`classname` the file, `name` the step's number, name and
/// line), a failing step's `<failure>` with what was expected and answered. `timestamp` is the
/// run's start (UTC, seconds since the Unix epoch).
pub fn to_junit(results: &[ScenarioResult], started: u64) -> String {
    let timestamp = iso8601(started);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (id, r) in results.iter().enumerate() {
        let file = escape(&r.path.display().to_string());
        let time: f64 = r.steps.iter().map(|s| s.seconds).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{file}\" package=\"{file}\" id=\"{id}\" timestamp=\"{timestamp}\" hostname=\"localhost\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{time:.6}\">",
            r.steps.len(),
            r.failed_steps().count()
        );
        out.push_str("    <properties/>\n");
        for s in &r.steps {
            let name = escape(&format!("{}. {} (line {})", s.index, s.name, s.line));
            let _ = write!(
                out,
                "    <testcase name=\"{name}\" classname=\"{file}\" time=\"{:.6}\"",
                s.seconds
            );
            if s.passed() {
                out.push_str("/>\n");
                continue;
            }
            let message = s
                .failures
                .iter()
                .map(|f| f.describe())
                .collect::<Vec<_>>()
                .join("; ");
            let mut body = String::new();
            let _ = writeln!(body, "{}:{}: {}", r.path.display(), s.line, s.name);
            for f in &s.failures {
                let _ = writeln!(body, "{}", f.describe());
            }
            if s.kind == "check" {
                let _ = writeln!(
                    body,
                    "source: expected {}, actual {}",
                    show(&s.expected_source),
                    show(&s.actual_source)
                );
            }
            if let Some(a) = &s.answer {
                let _ = writeln!(body, "answer: {a}");
            }
            let _ = write!(
                out,
                ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                escape(&message),
                escape(
                    &s.failures
                        .first()
                        .map(|f| f.what.clone())
                        .unwrap_or_default()
                ),
                escape(&body)
            );
        }
        out.push_str("    <system-out/>\n    <system-err/>\n  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// `YYYY-MM-DDTHH:MM:SS` (UTC) of seconds since the Unix epoch (JUnit's timestamps have no
/// zone).
fn iso8601(secs: u64) -> String {
    let mut text = stalwart_runtime::history::format_time(secs);
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn timestamps_are_utc_calendar_times() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00");
        assert_eq!(iso8601(1_796_040_000), "2026-11-30T12:00:00");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00");
    }
}
