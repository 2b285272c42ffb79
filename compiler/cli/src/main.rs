//! The `stalwart` command-line tool: a thin shell over the driver's façade.
//!
//! Exit codes: 0 ok, 1 gate failed or check refused where asked, 2 bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use stalwart_driver::Decision;
use stalwart_driver::{CompileOptions, DiskLoader};

#[macro_use]
mod output;
mod diff;
mod render;
mod test;
mod turns;
mod verify;
mod witnesses;

/// The binary's allocator. Parsing a rulebook allocates many small nodes and frees them together;
/// mimalloc does that in a fraction of the system allocator's time (ARCHITECTURE.md, design
/// decisions). The libraries choose no allocator: a host that embeds the runtime keeps its own.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "stalwart",
    version,
    about = "Guard the tool calls of LLM agents, and prove the guard holds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile an agent: its catalogue, its rulebook, into a record folder.
    Compile {
        /// The agent description (agent.yaml).
        agent: PathBuf,
        /// The output folder (default: `.stalwart/record` beside agent.yaml).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Work with rulebooks on their own.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// Run the tool check once and print `{decision, reasons, detail, confirmation, idempotency_key}`.
    Check {
        #[command(flatten)]
        call: CheckArgs,
        /// Exit 1 when the check answers this decision.
        #[arg(long = "fail-on", value_enum)]
        fail_on: Option<FailOn>,
    },
    /// Lint, compile and prove an agent; print the report; exit 1 when the gate fails.
    Verify {
        /// The agent description (agent.yaml).
        agent: PathBuf,
        /// How to print the report: text for a person, JSON or SARIF 2.1.0 for tools.
        #[arg(long, value_enum, default_value_t = verify::ReportFormat::Text)]
        format: verify::ReportFormat,
        /// Steps of a run the proof searches.
        #[arg(long)]
        depth: Option<u32>,
        /// Turns of the conversation the proof searches.
        #[arg(long)]
        turns: Option<u32>,
        /// Prove again even when the proof cache holds the answer.
        #[arg(long)]
        no_cache: bool,
        /// A file of published advisories (`stalwart-advisories/1`) read beside the built-in ones.
        #[arg(long, value_name = "FILE")]
        advisories: Option<PathBuf>,
        /// Write each finding's witness path into DIR as a scenario of the conformance format
        /// (`<rule>-<subject>.yaml`): the calls it makes and what the tool check must answer
        /// each, replayed by `stalwart test`.
        #[arg(long, value_name = "DIR")]
        witnesses: Option<PathBuf>,
    },
    /// For every tool, whether the tool check decides any call differently under two versions
    /// (agent.yaml files or record folders), with a call on which it does; exit 1 when one does.
    Diff {
        /// The old version: an agent.yaml, a folder holding one, or a record folder.
        old: PathBuf,
        /// The new version: an agent.yaml, a folder holding one, or a record folder.
        new: PathBuf,
        /// How to print the report: text for a person, JSON (`stalwart-diff/1`) for tools.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Earlier calls of a session the search tries before each call (the history's depth).
        #[arg(long, default_value_t = stalwart_driver::diff::DEFAULT_DEPTH)]
        depth: u32,
    },
    /// Run scenario files against the tool check of the agent each names; exit 1 when a step
    /// does not answer as expected.
    Test {
        /// Scenario files, or folders (every `*.yaml` under them, recursively, sorted). Default:
        /// the folder `scenarios/`.
        paths: Vec<PathBuf>,
        /// How to print the results: text for a person, JSON (`stalwart-test/1`) or JUnit XML.
        #[arg(long, value_enum, default_value_t = test::TestFormat::Text)]
        format: test::TestFormat,
        /// Report which gate paths, flows, conditions, order rules, checks and limits the checks
        /// exercised, per file and line, and write them as lcov (`coverage.lcov`).
        #[arg(long)]
        coverage: bool,
        /// Write the lcov file here instead of `coverage.lcov` (implies `--coverage`).
        #[arg(long, value_name = "FILE")]
        coverage_out: Option<PathBuf>,
    },
    /// The agent graph, findings and witness paths highlighted.
    Graph {
        /// The agent description (agent.yaml).
        agent: PathBuf,
        /// How to print the graph: dot (Graphviz), JSON (qls-graph/1) or SVG.
        #[arg(long, value_enum, default_value_t = verify::GraphFormat::Dot)]
        format: verify::GraphFormat,
        /// Steps of a run the proof searches for the witness paths it highlights.
        #[arg(long)]
        depth: Option<u32>,
        /// Turns of the conversation the proof searches.
        #[arg(long)]
        turns: Option<u32>,
    },
    /// The selector's plan for a turn, as JSON (DESIGN §6).
    Plan {
        /// The record folder (`stalwart compile` wrote it).
        dir: PathBuf,
        /// The agent whose turn this is.
        #[arg(long)]
        agent: String,
        /// The turn the person typed. Without it, the history's last turn is planned again with
        /// the results its run reported since (the next round of a chain).
        #[arg(long)]
        turn: Option<String>,
        /// The language the selector reads the turn in (default: the agent's `language:`, else
        /// the record's setting, else en). Never guessed from the turn.
        #[arg(long, value_enum)]
        language: Option<PlanLanguage>,
        /// The history file: the earlier turns are read from it, and the turn is recorded in it.
        #[arg(long)]
        history: Option<PathBuf>,
    },
    /// Append the caller's report of what became of call N to the history (signed).
    Report {
        /// The record folder (`stalwart compile` wrote it).
        dir: PathBuf,
        /// The history file the call was checked with.
        #[arg(long)]
        history: PathBuf,
        /// The call's number in the history (calls count from 1).
        #[arg(long)]
        step: u32,
        /// What became of the call: ran, failed, outcome_unknown or compensated.
        #[arg(long)]
        outcome: String,
        /// What the call returned: JSON (`null` included), `@FILE` or `-` for standard input.
        #[arg(long)]
        result: Option<String>,
    },
    /// Conversations that wait for a person: list, show, approve, deny, resume, abandon.
    Turns {
        #[command(subcommand)]
        command: turns::TurnsCommand,
    },
    /// The language server, on standard input and output.
    Lsp {
        /// Accepted for editors that pass it; standard input and output are the only transport.
        #[arg(long)]
        stdio: bool,
    },
}

/// The call `stalwart check` runs the check on (DESIGN §4's flags).
#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The record folder (`stalwart compile` wrote it).
    dir: PathBuf,
    /// The agent whose session this is.
    #[arg(long)]
    agent: String,
    /// The tool the call names.
    #[arg(long, required_unless_present = "plan")]
    tool: Option<String>,
    /// The call's arguments: a JSON object, `@FILE` or `-` for standard input.
    #[arg(long, required_unless_present = "plan")]
    args: Option<String>,
    /// A plan `stalwart plan` printed (JSON, `@FILE` or `-`): check the call it writes, with its
    /// origins and its intent.
    #[arg(long, conflicts_with_all = ["tool", "args", "origins"])]
    plan: Option<String>,
    /// Each argument's origin, a JSON object (`{"amount": "typed"}`), `@FILE` or `-`.
    #[arg(long)]
    origins: Option<String>,
    /// Marks per argument, or for the whole call under `call`: a JSON object, `@FILE` or `-`.
    #[arg(long)]
    labels: Option<String>,
    /// Facts and host counts: a JSON object, `@FILE` or `-`.
    #[arg(long)]
    context: Option<String>,
    /// A turn the person typed, read into the session before the check (repeatable).
    #[arg(long = "turn")]
    turns: Vec<String>,
    /// The person's intent.
    #[arg(long)]
    intent: Option<String>,
    /// The history file: read, and written back (a missing file starts a new session); its
    /// session is anchored and locked in the state folder (`$STALWART_STATE`).
    #[arg(long)]
    history: Option<PathBuf>,
    /// A confirmation token from an earlier `confirm`.
    #[arg(long)]
    confirmation: Option<String>,
    /// The step this call undoes.
    #[arg(long)]
    undoes: Option<u32>,
}

impl From<CheckArgs> for stalwart_driver::CheckRequest {
    fn from(a: CheckArgs) -> Self {
        Self {
            dir: a.dir,
            agent: a.agent,
            tool: a.tool.unwrap_or_default(),
            args: a.args.unwrap_or_default(),
            plan: a.plan,
            origins: a.origins,
            labels: a.labels,
            context: a.context,
            turns: a.turns,
            intent: a.intent,
            history: a.history,
            confirmation: a.confirmation,
            undoes: a.undoes,
        }
    }
}

/// Languages the selector reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanLanguage {
    #[value(name = "en")]
    En,
    #[value(name = "pt-BR")]
    PtBr,
}

/// Decisions `--fail-on` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Refuse,
    Confirm,
}

#[derive(Subcommand, Debug)]
enum RulesCommand {
    /// Compile a rulebook into a record folder.
    Compile {
        /// The rulebook: a file, several files (one rulebook, in the order given), or a folder
        /// (every `*.co`, `*.csv` and `*.rules.yaml` under it).
        #[arg(required = true)]
        rulebook: Vec<PathBuf>,
        /// The output folder (default: `.stalwart/rules` beside the first file, or inside the
        /// folder).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print what rulebooks define: intents and their examples, bot messages, flows, imports.
    Inspect {
        /// The rulebook files to read.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How to print the facts: text for a person, JSON for tools.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The dialect, when neither a sibling config.yml nor the file's content should decide.
        #[arg(long, value_enum)]
        colang: Option<Colang>,
    },
}

/// `--colang`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Colang {
    #[value(name = "1.0")]
    V1,
    #[value(name = "2.x")]
    V2,
}

/// Output format of diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Compile { agent, out, format } => compile(agent, out, format),
        Command::Rules {
            command:
                RulesCommand::Compile {
                    rulebook,
                    out,
                    format,
                },
        } => compile_rules(rulebook, out, format),
        Command::Rules {
            command:
                RulesCommand::Inspect {
                    files,
                    format,
                    colang,
                },
        } => inspect(files, format, colang),
        Command::Check { call, fail_on } => {
            let req = stalwart_driver::CheckRequest::from(call);
            match stalwart_driver::run_check(&req) {
                Ok(check) => {
                    outln!("{}", check.to_json());
                    match (fail_on, check.decision) {
                        (Some(FailOn::Refuse), Decision::Refuse)
                        | (Some(FailOn::Confirm), Decision::Confirm) => 1,
                        _ => 0,
                    }
                }
                Err(e) => {
                    render::host_error(&e);
                    2
                }
            }
        }
        Command::Verify {
            agent,
            format,
            depth,
            turns,
            no_cache,
            advisories,
            witnesses,
        } => verify::verify(
            &agent,
            format,
            depth,
            turns,
            verify::Extra {
                no_cache,
                advisories,
                witnesses,
            },
        ),
        Command::Test {
            paths,
            format,
            coverage,
            coverage_out,
        } => test::run(paths, format, coverage, coverage_out),
        Command::Graph {
            agent,
            format,
            depth,
            turns,
        } => verify::graph(&agent, format, depth, turns),
        Command::Diff {
            old,
            new,
            format,
            depth,
        } => diff::run(&old, &new, format, depth),
        Command::Plan {
            dir,
            agent,
            turn,
            language,
            history,
        } => {
            let req = stalwart_driver::PlanRequest {
                dir,
                agent,
                turn,
                language: language.map(|l| match l {
                    PlanLanguage::En => stalwart_record::Language::En,
                    PlanLanguage::PtBr => stalwart_record::Language::PtBr,
                }),
                history,
            };
            match stalwart_driver::run_plan(&req) {
                Ok(plan) => {
                    outln!("{}", plan.to_json());
                    0
                }
                Err(e) => {
                    render::host_error(&e);
                    2
                }
            }
        }
        Command::Report {
            dir,
            history,
            step,
            outcome,
            result,
        } => {
            let req = stalwart_driver::ReportRequest {
                dir,
                history,
                step,
                outcome,
                result,
            };
            match stalwart_driver::run_report(&req) {
                Ok(()) => 0,
                Err(e) => {
                    render::host_error(&e);
                    2
                }
            }
        }
        Command::Turns { command } => turns::run(command),
        Command::Lsp { stdio: _ } => {
            let code = stalwart_lsp::run_stdio();
            return ExitCode::from(code as u8);
        }
    };
    let _ = std::io::stdout().flush();
    ExitCode::from(code)
}

fn compile(agent: PathBuf, out: Option<PathBuf>, format: Format) -> u8 {
    let outcome =
        stalwart_driver::compile_agent(Arc::new(DiskLoader), &agent, &CompileOptions { out });
    if let Some(message) = &outcome.fatal {
        render::fatal(message);
        return 2;
    }
    render::diagnostics(&outcome.files, &outcome.diagnostics, format);
    match (&outcome.written, outcome.has_errors()) {
        (Some(written), false) => {
            if format == Format::Text {
                out!("{}", render::compiled_summary(&agent, written));
            } else {
                outln!(
                    "{}",
                    serde_json::json!({"compiled": written.dir.display().to_string(), "manifest": written.manifest})
                );
            }
            0
        }
        _ => {
            let errors = outcome.diagnostics.iter().filter(|d| d.is_error()).count();
            if format == Format::Text {
                eprintln!(
                    "error: could not compile `{}` ({errors} error{}); nothing was written",
                    agent.display(),
                    if errors == 1 { "" } else { "s" }
                );
            }
            2
        }
    }
}

fn compile_rules(rulebooks: Vec<PathBuf>, out: Option<PathBuf>, format: Format) -> u8 {
    let first = rulebooks.first().cloned().unwrap_or_default();
    let out = out.unwrap_or_else(|| {
        let base = if first.is_dir() {
            first.clone()
        } else {
            first
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .to_path_buf()
        };
        base.join(".stalwart").join("rules")
    });
    let rulebook = rulebooks
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let outcome = stalwart_driver::compile_rules(Arc::new(DiskLoader), &rulebooks, &out);
    if let Some(message) = &outcome.fatal {
        render::fatal(message);
        return 2;
    }
    render::diagnostics(&outcome.files, &outcome.diagnostics, format);
    match (&outcome.written, outcome.has_errors()) {
        (Some(written), false) => {
            if format == Format::Text {
                let governed: Vec<&str> =
                    written.body.tools.iter().map(|t| t.name.as_str()).collect();
                outln!(
                    "Compiled the rulebook {} into {} (record.bin: {} bytes); it governs {}",
                    rulebook,
                    written.dir.display(),
                    written.record_bytes,
                    if governed.is_empty() {
                        "no tool".to_string()
                    } else {
                        governed.join(", ")
                    }
                );
            }
            0
        }
        _ => {
            if format == Format::Text {
                eprintln!("error: could not compile `{rulebook}`; nothing was written");
            }
            2
        }
    }
}

fn inspect(files: Vec<PathBuf>, format: Format, colang: Option<Colang>) -> u8 {
    let forced = colang.map(|c| match c {
        Colang::V1 => stalwart_syntax::Dialect::V1,
        Colang::V2 => stalwart_syntax::Dialect::V2,
    });
    let inspected = match stalwart_driver::inspect_rules(Arc::new(DiskLoader), &files, forced) {
        Ok(i) => i,
        Err(e) => {
            render::fatal(&e);
            return 2;
        }
    };
    let mut failed = false;
    for item in &inspected {
        render::diagnostics(&item.files, &item.diagnostics, Format::Text);
        failed |= item.diagnostics.iter().any(|d| d.is_error());
    }
    match format {
        Format::Json => {
            if let [one] = inspected.as_slice() {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&one.facts).unwrap_or_default()
                );
            } else {
                let all: serde_json::Map<String, serde_json::Value> = inspected
                    .iter()
                    .map(|i| (i.file.display().to_string(), i.facts.clone()))
                    .collect();
                outln!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
            }
        }
        Format::Text => {
            for item in &inspected {
                out!("{}", render::inspected(&item.file, &item.facts));
            }
        }
    }
    if failed { 2 } else { 0 }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every argument of every subcommand says what it is in `--help`.
    #[test]
    fn every_flag_of_every_subcommand_has_a_help_line() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "stalwart", &mut missing);
        assert!(missing.is_empty(), "no help line: {missing:?}");
    }
}
