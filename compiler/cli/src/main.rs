//! The `stalwart` command-line tool: a thin shell over the driver's façade.
//!
//! Exit codes: 0 ok, 1 gate failed or check refused where asked, 2 bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use stalwart_driver::{CompileOptions, DiskLoader};

mod render;

#[derive(Parser, Debug)]
#[command(name = "stalwart", version, about = "Guard the tool calls of LLM agents, and prove the guard holds")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile an agent: its catalogue, its rulebook, into a record folder.
    Compile {
        /// The agent description.
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
}

#[derive(Subcommand, Debug)]
enum RulesCommand {
    /// Compile a rulebook (a file or a folder) into a record folder.
    Compile {
        rulebook: PathBuf,
        #[arg(short, long)]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
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
        Command::Rules { command: RulesCommand::Compile { rulebook, out: _, format: _ } } => {
            render::fatal(&format!(
                "cannot compile `{}`: compiling a rulebook on its own is not yet supported; name it as `rulebook:` in agent.yaml",
                rulebook.display()
            ));
            2
        }
    };
    let _ = std::io::stdout().flush();
    ExitCode::from(code)
}

fn compile(agent: PathBuf, out: Option<PathBuf>, format: Format) -> u8 {
    let outcome = stalwart_driver::compile_agent(Arc::new(DiskLoader), &agent, &CompileOptions { out });
    if let Some(message) = &outcome.fatal {
        render::fatal(message);
        return 2;
    }
    render::diagnostics(&outcome.files, &outcome.diagnostics, format);
    match (&outcome.written, outcome.has_errors()) {
        (Some(written), false) => {
            if format == Format::Text {
                print!("{}", render::compiled_summary(&agent, written));
            } else {
                println!("{}", serde_json::json!({"compiled": written.dir.display().to_string(), "manifest": written.manifest}));
            }
            0
        }
        _ => {
            let errors = outcome.diagnostics.iter().filter(|d| d.is_error()).count();
            if format == Format::Text {
                eprintln!("error: could not compile `{}` ({errors} error{}); nothing was written", agent.display(), if errors == 1 { "" } else { "s" });
            }
            2
        }
    }
}
