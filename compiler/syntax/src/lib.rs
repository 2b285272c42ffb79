//! Rulebook front ends: Colang 1.0 (`v1`), Colang 2.x (`v2`), rule sheets (`sheet`), and the
//! condition language they share (`expr`): lexers (logos), parsers (lalrpop, grammars in the
//! workspace's `grammars/`), typed ASTs with spans, and the facts `stalwart rules inspect` prints.

pub mod detect;
pub mod expr;
pub mod sheet;
pub mod v1;
pub mod v2;

pub use detect::{Dialect, detect_dialect, dialect_from_config};
pub use expr::parse_condition;
/// The string type of names in the trees: inline up to 23 bytes.
pub use smol_str::SmolStr;
pub use v1::{inspect_v1, parse_v1};

/// The result of parsing: a value (always present, possibly partial) and the diagnostics found.
#[derive(Debug, Clone, PartialEq)]
pub struct Parse<T> {
    pub value: T,
    pub diagnostics: Vec<stalwart_diagnostics::Diagnostic>,
}

/// The most errors one file reports: past them, parsing goes on, but the rest are summed up in
/// one last diagnostic, so that a file of garbage does not bury the output in thousands.
pub const MAX_ERRORS: usize = 100;

/// Keeps the diagnostics up to the [`MAX_ERRORS`]th error (in the order given) and, when more
/// errors follow, ends them with one diagnostic of `code` saying how many were left out, at the
/// first one left out.
fn cap_errors(
    diagnostics: &mut Vec<stalwart_diagnostics::Diagnostic>,
    code: stalwart_diagnostics::Code,
) {
    let mut errors = 0usize;
    let Some(cut) = diagnostics.iter().position(|d| {
        errors += usize::from(d.is_error());
        errors > MAX_ERRORS
    }) else {
        return;
    };
    too_many_errors(diagnostics, cut, code);
}

#[cold]
fn too_many_errors(
    diagnostics: &mut Vec<stalwart_diagnostics::Diagnostic>,
    cut: usize,
    code: stalwart_diagnostics::Code,
) {
    let rest = diagnostics.split_off(cut);
    let Some(first) = rest.first() else {
        return;
    };
    let more = rest.iter().filter(|d| d.is_error()).count();
    diagnostics.push(
        stalwart_diagnostics::Diagnostic::error(
            code,
            first.primary.span,
            format!("too many errors: {more} more not shown"),
        )
        .with_label("the first error not shown")
        .with_note(format!(
            "a file reports at most {MAX_ERRORS} errors; fix these and check it again"
        )),
    );
}
