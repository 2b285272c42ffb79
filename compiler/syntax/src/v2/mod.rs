//! Colang 2.x: the front end for `flow`-style rulebooks. Text goes through a logos lexer
//! (`lexer`), a layout pass that adds indentation tokens and reads keywords in context
//! (`layout`), and an LR(1) parser generated from `grammars/colang_v2.lalrpop` (`parser`; clean
//! files go first through a recursive-descent parser that follows the same grammar), into a
//! typed tree with spans (`ast`). `inspect` prints the facts the reference parser reports;
//! `actions` lists the actions (tools) a module starts or awaits.

pub mod actions;
pub mod ast;
mod builder;
pub mod codes;
mod inspect;
mod layout;
mod lexer;
mod literal;
mod parser;
mod token;

pub use actions::{ActionCall, action_calls, action_tool_name};

use stalwart_diagnostics::FileId;

/// Parses a Colang 2.x file. Never fails: the module holds every block that parsed, and the
/// diagnostics say what did not.
pub fn parse_v2(file: FileId, text: &str) -> crate::Parse<ast::Module> {
    parser::parse(file, text)
}

/// The facts of a module as JSON: `version`, `flows` (`name`, `parameters`, `return_members`,
/// `decorators`, `line`), `imports`, plus `exclude_from_llm` and the `actions` it calls.
pub fn inspect_v2(module: &ast::Module) -> serde_json::Value {
    inspect::inspect(module)
}
