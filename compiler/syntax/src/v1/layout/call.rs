//! The action calls of `execute`/`run` lines, laid out in the one form the grammar reads
//! (`[$x =] execute <name>[(<args>)]`), for the other forms the reference reads the same way:
//!
//! - `run $x = <call>` (the form the reference turns `$x = run <call>` into) is given as
//!   `$x = run <call>`;
//! - parameters after ` with ` or ` for ` (`execute check with $text, mode="strict"`) are given
//!   as the arguments in brackets, the `with` standing for `(` and the end of the line for `)`:
//!   a `$variable` after the word, or a `name = value` (only when no `$variable` follows a
//!   ` with `/` for ` on the line), as the reference's patterns have it.

use super::{Ctx, Tok};

/// Lays out the call of an `execute`/`run` line whose keyword is its first token.
pub(super) fn run_line(cx: &mut Ctx<'_>) {
    let starts_assignment = matches!(
        (
            cx.line_toks.get(1),
            cx.line_toks.get(2),
            cx.line_toks.get(3)
        ),
        (Some((_, Tok::Var, _)), Some((_, Tok::Assign, _)), Some(_))
    );
    if starts_assignment {
        // `run $x = foo` → `$x = run foo`, the keyword marked as the one after `=`.
        let keyword = cx.line_toks.remove(0);
        cx.line_toks
            .insert(2, (keyword.0, Tok::RunInline, keyword.2));
        with_params(cx, 3);
    } else {
        with_params(cx, 1);
    }
}

/// Lays out the call of a `$x = execute …` line, the keyword at index 2; `false` when it is not
/// a call (`$x = run` alone assigns the word, as in the reference).
pub(super) fn assigned_run(cx: &mut Ctx<'_>) -> bool {
    if cx.line_toks.len() < 4 {
        return false;
    }
    if let Some(t) = cx.line_toks.get_mut(2) {
        t.1 = Tok::RunInline;
    }
    with_params(cx, 3);
    true
}

/// Turns ` with|for <params>` after the action name starting at token `name` into bracketed
/// arguments.
fn with_params(cx: &mut Ctx<'_>, name: usize) {
    let Some(at) = params_word(cx, name, true).or_else(|| params_word(cx, name, false)) else {
        return;
    };
    let Some(&(_, _, end)) = cx.line_toks.last() else {
        return;
    };
    let Some(&(first, _, _)) = cx.line_toks.get(at + 1) else {
        return;
    };
    if let Some(t) = cx.line_toks.get_mut(at) {
        *t = (first, Tok::LParen, first);
    }
    cx.line_toks.push((end, Tok::RParen, end));
}

/// The index of the first `with` or `for` word after at least one word of the action's name
/// (and only such words before it), set off by spaces, followed by a variable (`variable`) or
/// by `name =` and a value.
fn params_word(cx: &Ctx<'_>, name: usize, variable: bool) -> Option<usize> {
    let toks = cx.line_toks.get(name..)?;
    let mut prev_end = None;
    for (i, &(l, tok, r)) in toks.iter().enumerate() {
        let word = cx.word(Some(&(l, tok, r)));
        if i > 0
            && matches!(word, "with" | "for")
            && prev_end.is_some_and(|p| spaces(cx, p, l))
            && let Some(&(next, next_tok, _)) = toks.get(i + 1)
            && spaces(cx, r, next)
        {
            let follows = if variable {
                next_tok == Tok::Var
            } else {
                next_tok == Tok::Word
                    && matches!(toks.get(i + 2), Some((_, Tok::Assign, _)))
                    && toks.get(i + 3).is_some()
            };
            if follows {
                return Some(name + i);
            }
        }
        if !matches!(tok, Tok::Word | Tok::Number | Tok::Dot) {
            return None;
        }
        prev_end = Some(r);
    }
    None
}

/// Whether the text between two tokens is one or more spaces.
fn spaces(cx: &Ctx<'_>, from: usize, to: usize) -> bool {
    let gap = cx.slice(from, to);
    !gap.is_empty() && gap.bytes().all(|b| b == b' ')
}
