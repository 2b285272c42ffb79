//! Scenario files (docs/scenarios.md) in the editor. A hover on a step shows what the tool check
//! answers there now — the decision, the reasons, and the `source` that decided it with that
//! line's text — run against the agent the scenario names as its open buffers say; go to
//! definition on the step goes to that source (and the condition that held or failed).
//!
//! The scenario runs whole, as `stalwart test` runs it (a step's answer depends on the steps
//! before it), with the agent compiled from the project's database when the agent is a project of
//! the workspace, else from the workspace's texts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use stalwart_agent::node::{Node, NodeKind};
use stalwart_diagnostics::FileId;
use stalwart_diagnostics::{Code, Severity};
use stalwart_driver::Database;
use stalwart_driver::database::normalize;
use stalwart_scenario::{NamedAgent, Runner, ScenarioError, ScenarioResult, StepResult, codes};

use crate::host::{AnalysisHost, FileDiagnostic, FileRange, is_agent_file};

/// A step of a scenario open in the editor answered otherwise than it expects.
pub const STEP_FAILED: Code = codes::STEP_FAILED;

/// What a scenario's step answered, for a hover and for go to definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioAnswer {
    pub markdown: String,
    /// The part of the scenario the answer is about: the `decision:` entry under the cursor, else
    /// the step.
    pub range: FileRange,
    /// Where the answer was decided: its `source`, then its `condition_source` (each resolved to
    /// a file of the workspace and the rest of that line).
    pub sources: Vec<FileRange>,
}

/// One step under the cursor.
struct StepAt {
    /// 0-based position in `steps:`.
    index: usize,
    range: (u32, u32),
}

/// A scenario run in the editor.
enum Ran {
    /// The agent it names has an error (the first one's message).
    AgentError(String),
    /// The scenario itself cannot run (E0600–E0605).
    Error(ScenarioError),
    /// Each step's result, and the folder the answers' sources are relative to.
    Steps(ScenarioResult, PathBuf),
}

impl AnalysisHost {
    /// Runs the scenario file `path` (normalised) whose text is `text`, naming `named`.
    fn run_scenario(&self, path: &Path, text: &str, named: &NamedAgent) -> Ran {
        let mut runner = Runner::new(false);
        let root = match named {
            NamedAgent::Agent(agent) => {
                if let Err(why) = self.preload(&mut runner, agent) {
                    return Ran::AgentError(why);
                }
                agent.parent().map(Path::to_path_buf).unwrap_or_default()
            }
            NamedAgent::Record(folder) => record_root(folder),
        };
        match runner.run_text(path, text) {
            Ok(result) => Ran::Steps(result, root),
            Err(e) => Ran::Error(e),
        }
    }

    /// The answer of the scenario step at `offset` of `path`, when `path` is a scenario file.
    pub fn scenario_answer(&self, path: &Path, offset: u32) -> Option<ScenarioAnswer> {
        let path = normalize(path);
        let text = self.text(&path)?;
        let named = stalwart_scenario::named_agent(&path, &text)?;
        let at = step_at(&text, offset)?;
        let range = FileRange {
            path: path.clone(),
            start: at.range.0,
            end: at.range.1,
        };
        let (result, root) = match self.run_scenario(&path, &text, &named) {
            Ran::Steps(result, root) => (result, root),
            Ran::AgentError(why) => {
                let agent = as_named(&text).unwrap_or_default();
                return Some(ScenarioAnswer {
                    markdown: format!("the agent `{agent}` does not compile: {why}"),
                    range,
                    sources: Vec::new(),
                });
            }
            Ran::Error(e) => {
                return Some(ScenarioAnswer {
                    markdown: format!("the scenario does not run: {}", e.one_line()),
                    range,
                    sources: Vec::new(),
                });
            }
        };
        let step = result.steps.get(at.index)?;
        let answer = step.answer.as_ref();
        let sources: Vec<FileRange> = ["source", "condition_source"]
            .iter()
            .filter_map(|key| detail_str(answer, key))
            .filter_map(|place| self.place(&root, place))
            .collect();
        Some(ScenarioAnswer {
            markdown: self.render(step, &root),
            range,
            sources,
        })
    }

    /// The diagnostics of every open scenario file, as `stalwart test` would report it: why it
    /// does not run (E0600–E0605, or E0603 on `agent:` when the agent has an error), else one
    /// E0606 per step that answered otherwise than it expects, on its `expect:`.
    pub fn scenario_diagnostics(&self) -> BTreeMap<PathBuf, Vec<FileDiagnostic>> {
        let mut out = BTreeMap::new();
        for path in self.loader().open_paths() {
            let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
            if !is_yaml || is_agent_file(&path) {
                continue;
            }
            let Some(text) = self.text(&path) else {
                continue;
            };
            let Some(named) = stalwart_scenario::named_agent(&path, &text) else {
                continue;
            };
            let list = match self.run_scenario(&path, &text, &named) {
                Ran::AgentError(why) => {
                    let at = agent_entry(&text).unwrap_or((0, 0));
                    vec![scenario_diagnostic(
                        &path,
                        at,
                        codes::AGENT_DOES_NOT_COMPILE,
                        format!(
                            "the agent `{}` does not compile",
                            as_named(&text).unwrap_or_default()
                        ),
                        why,
                        Vec::new(),
                    )]
                }
                Ran::Error(e) => {
                    let d = &e.diagnostic;
                    let span = d.primary.span;
                    let mut fd = scenario_diagnostic(
                        &path,
                        (span.start, span.end),
                        d.code,
                        d.message.clone(),
                        d.primary.message.clone(),
                        d.notes.clone(),
                    );
                    fd.help = d.help.clone();
                    vec![fd]
                }
                Ran::Steps(result, _) => {
                    let spans = step_spans(&text);
                    result
                        .failed_steps()
                        .map(|step| {
                            let at = spans.get(step.index - 1).copied().unwrap_or((0, 0));
                            let mut failures = step.failures.iter().map(|f| f.describe());
                            let first = failures.next().unwrap_or_default();
                            let mut notes: Vec<String> = failures.collect();
                            if let Some(Value::String(place)) = &step.actual_source {
                                notes.push(format!("the answer was decided at {place}"));
                            }
                            scenario_diagnostic(
                                &path,
                                at,
                                STEP_FAILED,
                                format!("`{}` answered otherwise: {first}", step.name),
                                String::new(),
                                notes,
                            )
                        })
                        .collect()
                }
            };
            out.insert(path, list);
        }
        out
    }

    /// Gives `runner` agent.yaml's record as its project's database (the open buffers) compiles
    /// it.
    fn preload(&self, runner: &mut Runner, agent: &Path) -> Result<(), String> {
        let record = match self.projects().iter().find(|p| p.entry == agent) {
            Some(project) => {
                let file = project
                    .agent_file()
                    .ok_or_else(|| format!("cannot read `{}`", agent.display()))?;
                stalwart_driver::compile::agent_record(&project.db, file)?
            }
            None => {
                let (db, file) = Database::open(self.loader().clone(), agent)
                    .map_err(|e| e.diagnostic.message.clone())?;
                stalwart_driver::compile::agent_record(&db, file)?
            }
        };
        runner.preload(agent, record);
        Ok(())
    }

    /// A file's text as the workspace has it, else as the disk has it.
    pub fn text_or_disk(&self, path: &Path) -> Option<std::sync::Arc<String>> {
        self.text(path).or_else(|| match crate::read_disk(path) {
            Ok(t) => Some(std::sync::Arc::new(t.text)),
            Err(_) => None,
        })
    }

    /// A `path:line:column` place (relative to `root`) as a range: from the column to the
    /// line's end.
    fn place(&self, root: &Path, place: &str) -> Option<FileRange> {
        let (path, line, col) = split_place(place)?;
        let path = normalize(&root.join(path));
        let text = self.text_or_disk(&path)?;
        let line_start = text
            .split_inclusive('\n')
            .take(line.checked_sub(1)? as usize)
            .map(str::len)
            .sum::<usize>();
        let rest = text.get(line_start..)?;
        let line_text = rest.split('\n').next().unwrap_or("");
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        let skip: usize = line_text
            .chars()
            .take(col.saturating_sub(1) as usize)
            .map(char::len_utf8)
            .sum();
        Some(FileRange {
            path,
            start: u32::try_from(line_start + skip).ok()?,
            end: u32::try_from(line_start + line_text.len()).ok()?,
        })
    }

    /// The hover's text: the answer, where it was decided, and what the scenario expected.
    fn render(&self, step: &StepResult, root: &Path) -> String {
        let mut out = String::new();
        let Some(answer) = step.answer.as_ref() else {
            out.push_str(&format!(
                "**{}** (line {}): a `{}` step",
                step.name, step.line, step.kind
            ));
            push_expectation(&mut out, step);
            return out;
        };
        if step.kind != "check" {
            out.push_str(&format!(
                "**{}** (line {}): the plan\n\n```json\n{}\n```",
                step.name,
                step.line,
                serde_json::to_string_pretty(answer).unwrap_or_default()
            ));
            push_expectation(&mut out, step);
            return out;
        }
        let decision = answer
            .get("decision")
            .and_then(Value::as_str)
            .unwrap_or("?");
        out.push_str(&format!(
            "**{}** (line {}): **{decision}**",
            step.name, step.line
        ));
        if let Some(reasons) = answer.get("reasons").and_then(Value::as_array)
            && !reasons.is_empty()
        {
            let reasons: Vec<String> = reasons
                .iter()
                .map(|r| format!("`{}`", r.as_str().unwrap_or("?")))
                .collect();
            out.push_str(&format!("\n\nreasons: {}", reasons.join(", ")));
        }
        for (key, word) in [("source", "source"), ("condition_source", "condition")] {
            if let Some(place) = detail_str(Some(answer), key) {
                out.push_str(&format!("\n\n{word}: `{place}`"));
                if let Some(line) = self.place(root, place).and_then(|r| self.line_text(&r)) {
                    out.push_str(&format!(" — `{line}`"));
                }
            }
        }
        if let Some(sources) = answer
            .get("detail")
            .and_then(|d| d.get("sources"))
            .and_then(Value::as_object)
        {
            for (reason, place) in sources {
                out.push_str(&format!(
                    "\n\n- `{reason}`: `{}`",
                    place.as_str().unwrap_or("?")
                ));
            }
        }
        if let Some(question) = detail_str(Some(answer), "question") {
            out.push_str(&format!("\n\nquestion: {question}"));
        }
        push_expectation(&mut out, step);
        out
    }

    /// The whole line a range starts on, trimmed.
    fn line_text(&self, r: &FileRange) -> Option<String> {
        let text = self.text_or_disk(&r.path)?;
        let before = text.get(..r.start as usize)?;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = text.get(start..r.end as usize)?.trim();
        (!line.is_empty()).then(|| line.to_string())
    }
}

fn push_expectation(out: &mut String, step: &StepResult) {
    if step.failures.is_empty() {
        out.push_str("\n\nas the scenario expects");
        return;
    }
    out.push_str("\n\n**not as the scenario expects:**");
    for f in &step.failures {
        out.push_str(&format!("\n- {}", f.describe()));
    }
}

fn detail_str<'a>(answer: Option<&'a Value>, key: &str) -> Option<&'a str> {
    answer?.get("detail")?.get(key)?.as_str()
}

/// `policy.co:9:5` → (`policy.co`, 9, 5).
fn split_place(place: &str) -> Option<(&str, u32, u32)> {
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let path = parts.next()?;
    Some((path, line, col))
}

/// The folder a record's sources are relative to: agent.yaml's, which holds `.stalwart/record`
/// by default; else the record folder itself.
fn record_root(folder: &Path) -> PathBuf {
    if folder.ends_with(".stalwart/record")
        && let Some(root) = folder.parent().and_then(Path::parent)
    {
        return root.to_path_buf();
    }
    folder.to_path_buf()
}

/// The agent as the scenario names it, for messages.
fn as_named(text: &str) -> Option<String> {
    let doc = stalwart_agent::parse_yaml_value(FileId(0), text).value?;
    Some(doc.get("agent")?.as_str()?.to_string())
}

/// The step of `steps:` whose item holds `offset`, and the part of it a hover is about: the
/// `decision:` entry of its `expect:` when the offset is in it, else the whole item.
fn step_at(text: &str, offset: u32) -> Option<StepAt> {
    let doc = stalwart_agent::parse_yaml_node(FileId(0), text).value?;
    let NodeKind::Seq(steps) = &doc.get("steps")?.kind else {
        return None;
    };
    let (index, step) = steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.span.start <= offset && offset <= s.span.end)?;
    let decision = step
        .get("expect")
        .and_then(|e| entry(e, "decision"))
        .filter(|(start, end)| *start <= offset && offset <= *end);
    Some(StepAt {
        index,
        range: decision.unwrap_or((step.span.start, step.span.end)),
    })
}

/// A mapping entry's range, from its key to the end of its value.
fn entry(map: &Node, key: &str) -> Option<(u32, u32)> {
    let NodeKind::Map(entries) = &map.kind else {
        return None;
    };
    entries
        .iter()
        .find(|(k, _)| k.name == key)
        .map(|(k, v)| (k.span.start, v.span.end.max(k.span.end)))
}

fn scenario_diagnostic(
    path: &Path,
    (start, end): (u32, u32),
    code: Code,
    message: String,
    label: String,
    notes: Vec<String>,
) -> FileDiagnostic {
    FileDiagnostic {
        range: FileRange {
            path: path.to_path_buf(),
            start,
            end,
        },
        severity: Severity::Error,
        code: code.id.to_string(),
        slug: code.slug.to_string(),
        message,
        label,
        related: Vec::new(),
        notes,
        help: None,
        fix: None,
    }
}

/// The `agent:` entry's value.
fn agent_entry(text: &str) -> Option<(u32, u32)> {
    let doc = stalwart_agent::parse_yaml_node(FileId(0), text).value?;
    let agent = doc.get("agent")?;
    Some((agent.span.start, agent.span.end))
}

/// Where each step's failure is shown: its `expect:` key, else the step's first key.
fn step_spans(text: &str) -> Vec<(u32, u32)> {
    let Some(doc) = stalwart_agent::parse_yaml_node(FileId(0), text).value else {
        return Vec::new();
    };
    let Some(NodeKind::Seq(steps)) = doc.get("steps").map(|s| &s.kind) else {
        return Vec::new();
    };
    steps
        .iter()
        .map(|step| match &step.kind {
            NodeKind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.name == "expect")
                .or(entries.first())
                .map_or((step.span.start, step.span.end), |(k, _)| {
                    (k.span.start, k.span.end)
                }),
            _ => (step.span.start, step.span.end),
        })
        .collect()
}
