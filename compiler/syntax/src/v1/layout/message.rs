//! The lines of message bodies (`define bot`, the lines under a `bot` statement): how far a
//! block of messages reaches, and the keywords of a bot body's lines.

use super::{Ctx, Last, Level, Mode, Tok, check_else, merge_second, reported, set_first};

/// Whether the lines of `mode` are messages, whose indentation only ends a block (see
/// [`ends_before`]): a line between two indentations is one more message.
pub(super) fn is_message(mode: Mode) -> bool {
    matches!(mode, Mode::Message | Mode::Examples)
}

/// Whether a line indented by `cur` is past the end of the block `level`.
pub(super) fn ends_before(level: &Level, cur: u32) -> bool {
    match level.floor {
        Some(floor) => cur <= floor,
        None => cur < level.indent,
    }
}

/// A line of a bot body: `if <expr>`, `else if <expr>`, `else` (anything after a plain `else`
/// is ignored, as the reference ignores it) or a message. No block follows a message: a deeper
/// line is one more message. A branch may have no lines (the reference reads it as a condition
/// on the lines indented deeper than it, if any).
pub(super) fn classify_message(cx: &mut Ctx<'_>, indent: u32) -> (Option<Mode>, bool) {
    let first = cx.word(cx.line_toks.first());
    let second = cx.word(cx.line_toks.get(1));
    let example =
        first == "if" || matches!(cx.line_toks.first(), Some((_, Tok::Str | Tok::OpenStr, _)));
    if example
        && let Some(level) = cx.stack.last_mut()
        && level.rebase
    {
        // The first example line under a `bot` statement: the lines after it must be indented
        // at least as much.
        level.indent = indent;
        level.floor = None;
        level.rebase = false;
    }
    match (first, second) {
        ("if", _) => {
            set_first(cx, Tok::If);
            cx.set_last(Last::If);
            (Some(Mode::Message), false)
        }
        ("else", "if") => {
            merge_second(cx, Tok::ElseIf);
            if !check_else(cx, false) {
                return reported(cx);
            }
            (Some(Mode::Message), false)
        }
        ("else", _) => {
            cx.line_toks.truncate(1);
            set_first(cx, Tok::Else);
            if !check_else(cx, true) {
                return reported(cx);
            }
            (Some(Mode::Message), false)
        }
        _ => {
            cx.set_last(Last::Other);
            (None, false)
        }
    }
}
