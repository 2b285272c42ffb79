//! The layout pass of Colang 1.0: from logical lines to the parser's token stream. It lexes each
//! line, drops a trailing `:`, computes INDENT/DEDENT from the indentation (in message bodies a
//! deeper line is one more message, see `message`), turns a line's first words into its
//! statement keyword (only in flow bodies: message bodies and parameter blocks keep their words;
//! the forms of an `execute`/`run` call are given in one, see `call`), checks that `else`
//! follows an `if` and `else when` a `when`, reports missing and unexpected blocks, and cuts the
//! stream into top-level chunks that are parsed one by one so that a broken definition does not
//! hide the diagnostics of the next one.

use stalwart_diagnostics::{Diagnostic, FileId, Span};

mod call;
mod collapse;
mod message;

pub use collapse::{collapse, collapse_name};

use super::codes;
use super::lexer::{Tok, lex_segment};
use super::lines::{Line, Lines};

/// The deepest block nesting accepted.
pub const MAX_DEPTH: usize = 64;

/// Tokens with byte ranges.
pub type Spanned = (usize, Tok, usize);

/// The parser's input.
#[derive(Debug, Default)]
pub struct Layout {
    pub tokens: Vec<Spanned>,
    /// Token index ranges, one per top-level chunk.
    pub chunks: Vec<(usize, usize)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How the lines of a block are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The top level: definitions, imports and statements.
    Top,
    /// A flow body: statements.
    Flow,
    /// A `define bot` body or the lines under a `bot` statement: messages, and `if`/`else`.
    Message,
    /// A `define user` body: messages only (`if` and `else` are words of an intent there).
    Examples,
    /// Parameters and other indented text under a statement: kept as words.
    Raw,
    /// The body of `define action|snippet`: dropped.
    Skip,
}

/// What the last line of a block was, for `else` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    If,
    IfWithElse,
    When,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Level {
    indent: u32,
    mode: Mode,
    last: Last,
    /// A level entered without an INDENT token (after an indentation error): it is left
    /// without a DEDENT.
    flat: bool,
    /// For a block of messages that holds every following line indented deeper than the line
    /// opening it, whatever their own indentation (see [`Block`]): that line's indentation.
    floor: Option<u32>,
    /// Whether the block is the lines under a `bot` statement that has not had an example line
    /// yet: the first one sets the block's indentation (see [`Block::UntilExample`]).
    rebase: bool,
}

/// How far a block of messages reaches. The reference reads a message body line by line until
/// a line is indented less than the body's first message line: lines indented deeper than the
/// line before them are more messages, not a block of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// A statement block, or a `define user|bot` body: its lines are indented like its first.
    Strict,
    /// The lines under an `if` / `else if` / `else` of a bot body: every line indented deeper
    /// than the keyword's line.
    Branch,
    /// The lines under a `bot` statement: its parameter lines (any indentation deeper than the
    /// statement), then its example lines, indented at least like the first of them.
    UntilExample,
}

/// What the previous line expects of the lines that follow.
#[derive(Debug, Clone, Copy)]
struct Opener {
    /// The mode of a block under it, if one may follow.
    mode: Option<Mode>,
    /// Whether a block must follow.
    required: bool,
    /// How far the block reaches, when one follows.
    block: Block,
    /// The line's indentation.
    indent: u32,
    start: usize,
    end: usize,
}

const MODIFIERS: &[&str] = &[
    "interruption",
    "repair",
    "test",
    "non-interruptable",
    "noninterruptable",
    "continuous",
    "recursive",
    "parallel",
    "extension",
    "sample",
    "response",
];

/// The statements kept as keyword + text.
const GENERIC: &[&str] = &["check"];

/// Words the reference takes for statement keywords but reads no statement for: a line starting
/// with one fails there (`Unknown main token`, or for `expect` an unknown element), even with a
/// block under it. (`global`, `var`, `local` and `param` fail too, but a top-level one with a
/// block under it names a flow, as any other word does.)
const RESERVED: &[&str] = &[
    "log", "allow", "accept", "disallow", "deny", "reject", "context", "for", "foreach", "use",
    "expect",
];

const COLANG_2: &[&str] = &[
    "flow",
    "await",
    "start",
    "match",
    "send",
    "activate",
    "deactivate",
];

struct Ctx<'a> {
    text: &'a str,
    file: FileId,
    out: Layout,
    stack: Vec<Level>,
    line_toks: Vec<Spanned>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Ctx<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, to_u32(start), to_u32(end))
    }

    /// The text of a word token; empty for any other token. It borrows the source, not the
    /// context, so that the context can change while the word is in use.
    fn word(&self, tok: Option<&Spanned>) -> &'a str {
        match tok {
            Some(&(l, Tok::Word, r)) => self.text.get(l..r).unwrap_or(""),
            _ => "",
        }
    }

    fn slice(&self, l: usize, r: usize) -> &'a str {
        self.text.get(l..r).unwrap_or("")
    }

    fn top(&self) -> Level {
        self.stack.last().copied().unwrap_or(Level {
            indent: 0,
            mode: Mode::Top,
            last: Last::Nothing,
            flat: false,
            floor: None,
            rebase: false,
        })
    }

    fn set_last(&mut self, last: Last) {
        if let Some(level) = self.stack.last_mut() {
            level.last = last;
        }
    }

    /// The text of a line with its whitespace runs collapsed, for messages.
    fn line_text(&self, start: usize, end: usize) -> String {
        collapse(self.slice(start, end))
    }
}

/// Runs the layout pass over the logical lines of a file.
pub fn layout(file: FileId, text: &str, lines: &Lines) -> Layout {
    layout_into(file, text, lines, Layout::default())
}

/// [`layout`] into the buffers of `out`, whose contents are dropped (a parse reuses the buffers
/// of the file before).
pub(crate) fn layout_into(file: FileId, text: &str, lines: &Lines, mut out: Layout) -> Layout {
    // About one token per four bytes of text, with room for the structure tokens; about one
    // chunk per four lines.
    out.tokens.clear();
    out.tokens.reserve(text.len() / 4 + 16);
    out.chunks.clear();
    out.chunks.reserve(lines.lines.len() / 4 + 4);
    let mut stream = Stream::new(file, text, lines, out);
    while stream.step() {}
    stream.finish()
}

/// The layout pass a line at a time: [`layout_into`] runs it to the end, and the hand-written
/// parser reads its tokens as they are laid out ([`Stream::refill`]), so that a clean file's
/// token stream is never held whole.
pub(crate) struct Stream<'a> {
    cx: Ctx<'a>,
    lines: &'a Lines,
    /// The next line.
    next: usize,
    opener: Option<Opener>,
    skip_above: Option<u32>,
    /// Where the current chunk starts, counting the tokens dropped by [`Stream::refill`].
    chunk_start: usize,
    /// The tokens dropped by [`Stream::refill`].
    dropped: usize,
    /// Whether the end of the file has been laid out.
    ended: bool,
}

impl<'a> Stream<'a> {
    /// A layout of `lines` into the buffers of `out`, whose contents are dropped.
    pub(crate) fn new(file: FileId, text: &'a str, lines: &'a Lines, mut out: Layout) -> Self {
        out.tokens.clear();
        out.chunks.clear();
        out.diagnostics.clear();
        let mut cx = Ctx {
            text,
            file,
            out,
            stack: Vec::with_capacity(8),
            line_toks: Vec::with_capacity(32),
        };
        cx.stack.push(Level {
            indent: 0,
            mode: Mode::Top,
            last: Last::Nothing,
            flat: false,
            floor: None,
            rebase: false,
        });
        Stream {
            cx,
            lines,
            next: 0,
            opener: None,
            skip_above: None,
            chunk_start: 0,
            dropped: 0,
            ended: false,
        }
    }

    /// The tokens laid out since the last [`Stream::refill`].
    pub(crate) fn tokens(&self) -> &[Spanned] {
        &self.cx.out.tokens
    }

    /// Drops the tokens laid out so far and lays out lines until one gives tokens; `false` when
    /// none is left.
    #[inline(never)]
    pub(crate) fn refill(&mut self) -> bool {
        self.dropped += self.cx.out.tokens.len();
        self.cx.out.tokens.clear();
        while self.cx.out.tokens.is_empty() {
            if !self.step() {
                return !self.cx.out.tokens.is_empty();
            }
        }
        true
    }

    /// The layout, with the diagnostics of every line laid out (all of them once
    /// [`Stream::step`] has returned `false`).
    pub(crate) fn finish(self) -> Layout {
        self.cx.out
    }

    /// The number of tokens laid out, counting those dropped.
    fn laid_out(&self) -> usize {
        self.dropped + self.cx.out.tokens.len()
    }

    /// Lays out the next line (or, after the last, the end of the file); `false` when there was
    /// nothing left to lay out.
    pub(crate) fn step(&mut self) -> bool {
        let i = self.next;
        let Some(line) = self.lines.lines.get(i) else {
            self.end();
            return false;
        };
        self.next += 1;
        let cx = &mut self.cx;
        let text = cx.text;
        if let Some(limit) = self.skip_above {
            if line.indent > limit {
                return true;
            }
            self.skip_above = None;
        }
        cx.line_toks.clear();
        for seg in self.lines.segments_of(i) {
            lex_segment(
                text,
                seg.start as usize,
                seg.end as usize,
                &mut cx.line_toks,
            );
        }
        if matches!(cx.line_toks.last(), Some((_, Tok::Colon, _))) {
            cx.line_toks.pop();
        }
        let Some(&(first_start, _, _)) = cx.line_toks.first() else {
            return true;
        };
        indentation(cx, line, self.opener.take());
        let continues = is_continuation(cx);
        let laid_out = self.dropped + cx.out.tokens.len();
        if line.indent == 0 && cx.stack.len() == 1 && !continues && laid_out > self.chunk_start {
            cx.out.chunks.push((self.chunk_start, laid_out));
            self.chunk_start = laid_out;
        }
        let next_deeper = self
            .lines
            .lines
            .get(i + 1)
            .is_some_and(|n| n.indent > line.indent);
        let (mode, required) = classify(cx, line.indent, next_deeper);
        if mode == Some(Mode::Skip) {
            self.skip_above = Some(line.indent);
        }
        let end = cx.line_toks.last().map_or(first_start, |t| t.2);
        cx.out.tokens.extend_from_slice(&cx.line_toks);
        cx.out.tokens.push((end, Tok::Newline, end));
        let mode = if mode == Some(Mode::Skip) { None } else { mode };
        let block = match (mode, cx.line_toks.first().map(|t| t.1)) {
            (Some(Mode::Message), Some(Tok::Bot)) => Block::UntilExample,
            (Some(Mode::Message), Some(Tok::If | Tok::ElseIf | Tok::Else)) => Block::Branch,
            _ => Block::Strict,
        };
        self.opener = Some(Opener {
            mode,
            required,
            block,
            indent: line.indent,
            start: first_start,
            end,
        });
        true
    }

    /// The end of the file: the last line's missing block, the blocks left open and the last
    /// chunk. Once only.
    fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let cx = &mut self.cx;
        if let Some(o) = self.opener.take() {
            missing_block(cx, o);
        }
        let end = cx.text.len();
        while let Some(level) = cx.stack.pop() {
            if cx.stack.is_empty() {
                break;
            }
            if !level.flat {
                cx.out.tokens.push((end, Tok::Dedent, end));
            }
        }
        let laid_out = self.laid_out();
        if laid_out > self.chunk_start {
            self.cx.out.chunks.push((self.chunk_start, laid_out));
        }
    }
}

/// Whether the line continues the top-level statement before it (`else`, `else if`, `else when`).
fn is_continuation(cx: &Ctx<'_>) -> bool {
    let first = cx.word(cx.line_toks.first());
    first == "else" || first == "elif"
}

fn missing_block(cx: &mut Ctx<'_>, o: Opener) {
    if o.required {
        let line = cx.line_text(o.start, o.end);
        let d = Diagnostic::error(
            codes::EXPECTED_BLOCK,
            cx.span(o.start, o.end),
            format!("expected an indented block after `{line}`"),
        )
        .with_label("the lines of its block must be indented deeper than this line");
        cx.out.diagnostics.push(d);
    }
}

/// Emits INDENT/DEDENT for a line and reports indentation problems.
fn indentation(cx: &mut Ctx<'_>, line: &Line, opener: Option<Opener>) {
    let cur = line.indent;
    let top = cx.top();
    let (start, end) = (line.start as usize, line.end as usize);
    // INVARIANT: outside message blocks, the line before is indented like the innermost block
    // (or opened it), so this is `top.indent` there.
    let before = opener.map_or(top.indent, |o| o.indent);
    if cur > before {
        match opener.and_then(|o| o.mode.map(|m| (o, m))) {
            Some((o, mode)) if cx.stack.len() <= MAX_DEPTH => {
                let floor = (o.block != Block::Strict).then_some(o.indent);
                cx.stack.push(Level {
                    indent: cur,
                    mode,
                    last: Last::Nothing,
                    flat: false,
                    floor,
                    rebase: o.block == Block::UntilExample,
                });
                cx.out.tokens.push((start, Tok::Indent, start));
            }
            Some(_) => {
                let d = Diagnostic::error(
                    codes::TOO_DEEP,
                    cx.span(start, end),
                    "blocks nest too deeply",
                )
                .with_note(format!(
                    "at most {MAX_DEPTH} levels of indentation are accepted"
                ));
                cx.out.diagnostics.push(d);
                push_flat(cx, cur, Mode::Raw, Last::Nothing);
            }
            // Deeper than the message before it: one more message of the same block.
            None if message::is_message(top.mode) => {}
            None => {
                let d = Diagnostic::error(
                    codes::UNEXPECTED_INDENT,
                    cx.span(start, end),
                    "unexpected indentation",
                )
                .with_label(
                    "this line is indented deeper than the line before it, which opens no block",
                );
                cx.out.diagnostics.push(d);
                push_flat(cx, cur, top.mode, top.last);
            }
        }
        return;
    }
    if let Some(o) = opener {
        missing_block(cx, o);
    }
    while cx.stack.len() > 1 && message::ends_before(&cx.top(), cur) {
        if let Some(level) = cx.stack.pop()
            && !level.flat
        {
            cx.out.tokens.push((start, Tok::Dedent, start));
        }
    }
    let top = cx.top();
    // In a block of messages, a line between two indentations is one more message.
    if top.indent < cur && !message::is_message(top.mode) {
        let d = Diagnostic::error(
            codes::UNEXPECTED_INDENT,
            cx.span(start, end),
            "this line's indentation matches no enclosing block",
        )
        .with_label(format!("indented by {cur} spaces"))
        .with_help("indent it like the lines of the block it belongs to");
        cx.out.diagnostics.push(d);
        push_flat(cx, cur, top.mode, top.last);
    }
}

/// Enters a level without an INDENT token, after an indentation error.
fn push_flat(cx: &mut Ctx<'_>, indent: u32, mode: Mode, last: Last) {
    cx.stack.push(Level {
        indent,
        mode,
        last,
        flat: true,
        floor: None,
        rebase: false,
    });
}

/// Turns the line's first words into its keyword, checks it, and says what block may follow it.
/// `indent` is the line's indentation.
fn classify(cx: &mut Ctx<'_>, indent: u32, next_deeper: bool) -> (Option<Mode>, bool) {
    let mode = cx.top().mode;
    match mode {
        Mode::Raw | Mode::Skip => (Some(Mode::Raw), false),
        Mode::Message => message::classify_message(cx, indent),
        Mode::Examples => {
            cx.set_last(Last::Other);
            (None, false)
        }
        Mode::Top | Mode::Flow => classify_statement(cx, mode, next_deeper),
    }
}

fn set_first(cx: &mut Ctx<'_>, tok: Tok) {
    if let Some(first) = cx.line_toks.first_mut() {
        first.1 = tok;
    }
}

/// Replaces the first two words by one keyword token.
fn merge_second(cx: &mut Ctx<'_>, tok: Tok) {
    if cx.line_toks.len() >= 2 {
        let end = cx.line_toks.get(1).map_or(0, |t| t.2);
        cx.line_toks.remove(1);
        if let Some(first) = cx.line_toks.first_mut() {
            *first = (first.0, tok, end);
        }
    }
}

/// Marks the line as reported: the parser keeps it as an error statement.
fn mark_bad(cx: &mut Ctx<'_>, d: Diagnostic) -> (Option<Mode>, bool) {
    cx.out.diagnostics.push(d);
    let at = cx.line_toks.first().map_or(0, |t| t.0);
    cx.line_toks.insert(0, (at, Tok::Bad, at));
    cx.set_last(Last::Other);
    (Some(Mode::Raw), false)
}

/// Marks a line whose problem is already reported as an error statement.
fn reported(cx: &mut Ctx<'_>) -> (Option<Mode>, bool) {
    let at = cx.line_toks.first().map_or(0, |t| t.0);
    cx.line_toks.insert(0, (at, Tok::Bad, at));
    cx.set_last(Last::Other);
    (Some(Mode::Raw), false)
}

/// Checks an `else`/`else if` against the last line of the block; `final_else` for a bare `else`.
fn check_else(cx: &mut Ctx<'_>, final_else: bool) -> bool {
    let (l, r) = cx.line_toks.first().map_or((0, 0), |t| (t.0, t.2));
    let keyword = cx.slice(l, r);
    match cx.top().last {
        Last::If => {
            cx.set_last(if final_else {
                Last::IfWithElse
            } else {
                Last::If
            });
            true
        }
        Last::When if final_else => {
            let d = Diagnostic::error(
                codes::BARE_ELSE_AFTER_WHEN,
                cx.span(l, r),
                "`else` after `when`",
            )
            .with_label("Colang 1.0 has no plain `else` for `when`")
            .with_help("write `else when …` with what it waits for");
            cx.out.diagnostics.push(d);
            false
        }
        _ => {
            let d = Diagnostic::error(
                codes::ELSE_WITHOUT_IF,
                cx.span(l, r),
                format!("`{keyword}` without `if`"),
            )
            .with_label("no `if` at this indentation comes before it");
            cx.out.diagnostics.push(d);
            false
        }
    }
}

fn classify_statement(cx: &mut Ctx<'_>, mode: Mode, next_deeper: bool) -> (Option<Mode>, bool) {
    let Some(&(l, tok, r)) = cx.line_toks.first() else {
        return (None, false);
    };
    let top = mode == Mode::Top;
    if tok == Tok::Var {
        return classify_assignment(cx);
    }
    let first = if tok == Tok::Word { cx.slice(l, r) } else { "" };
    let second = cx.word(cx.line_toks.get(1));
    let alone = cx.line_toks.len() == 1;
    let block = (Some(Mode::Flow), true);
    let raw = (Some(Mode::Raw), false);
    let (kw, result, last) = match first {
        "define" | "def" => return classify_define(cx, top),
        "import" | "include" => (Tok::Import, (None, false), Last::Other),
        "user" => {
            drop_says(cx);
            join_or_user(cx);
            (Tok::User, raw, Last::Other)
        }
        "bot" => {
            drop_says(cx);
            // Its indented lines are parameters, then more utterances: read as a message body.
            (Tok::Bot, (Some(Mode::Message), false), Last::Other)
        }
        "execute" | "exec" | "run" => {
            set_first(cx, Tok::Run);
            call::run_line(cx);
            cx.set_last(Last::Other);
            return raw;
        }
        "do" => (Tok::Do, raw, Last::Other),
        "event" => (Tok::Event, raw, Last::Other),
        "infer" | "create" | "new" => (Tok::Infer, raw, Last::Other),
        "if" => (Tok::If, block, Last::If),
        "elif" => {
            let d = Diagnostic::error(codes::ELIF, cx.span(l, r), "`elif` is not Colang 1.0")
                .with_fix(cx.span(l, r), "else if", "write `else if`");
            cx.out.diagnostics.push(d);
            set_first(cx, Tok::ElseIf);
            if !check_else(cx, false) {
                return reported(cx);
            }
            return block;
        }
        "else" if second == "if" => {
            merge_second(cx, Tok::ElseIf);
            if !check_else(cx, false) {
                return reported(cx);
            }
            return block;
        }
        "else" if second == "when" => {
            merge_second(cx, Tok::ElseWhen);
            join_or_user(cx);
            if cx.top().last != Last::When {
                let d = Diagnostic::error(
                    codes::ELSE_WHEN_WITHOUT_WHEN,
                    cx.span(l, r),
                    "`else when` without `when`",
                )
                .with_label("no `when` at this indentation comes before it");
                return mark_bad(cx, d);
            }
            if let Some(d) = when_any_word(cx) {
                return mark_bad(cx, d);
            }
            return block;
        }
        "else" if alone => {
            set_first(cx, Tok::Else);
            if !check_else(cx, true) {
                return reported(cx);
            }
            return block;
        }
        "when" => {
            join_or_user(cx);
            if let Some(d) = when_any_word(cx) {
                cx.set_last(Last::When);
                cx.out.diagnostics.push(d);
                let at = cx.line_toks.first().map_or(0, |t| t.0);
                cx.line_toks.insert(0, (at, Tok::Bad, at));
                return raw;
            }
            (Tok::When, block, Last::When)
        }
        "while" => (Tok::While, block, Last::Other),
        "any" => (Tok::Any, block, Last::Other),
        "break" => (Tok::Break, (None, false), Last::Other),
        "continue" | "pass" => (Tok::Continue, (None, false), Last::Other),
        "stop" | "abort" => (Tok::Stop, (None, false), Last::Other),
        "return" | "done" => (Tok::Return, (None, false), Last::Other),
        "set" => (Tok::Set, (None, false), Last::Other),
        "priority" => (Tok::Priority, (None, false), Last::Other),
        "meta" => (Tok::Meta, raw, Last::Other),
        "label" | "checkpoint" => (Tok::Label, (None, false), Last::Other),
        "goto" => (Tok::Goto, (None, false), Last::Other),
        "go" if second == "to" => {
            merge_second(cx, Tok::Goto);
            cx.set_last(Last::Other);
            return (None, false);
        }
        w if GENERIC.contains(&w) => (Tok::Generic, raw, Last::Other),
        w if RESERVED.contains(&w) => {
            let d = Diagnostic::error(
                codes::UNKNOWN_STATEMENT,
                cx.span(l, r),
                format!("unknown statement `{w}`"),
            )
            .with_label(format!(
                "Colang 1.0 reserves `{w}` but has no such statement"
            ));
            return mark_bad(cx, d);
        }
        w if COLANG_2.contains(&w) => {
            let d = Diagnostic::error(
                codes::V2_SYNTAX,
                cx.span(l, r),
                format!("`{w}` is Colang 2.x syntax"),
            )
            .with_label("not a Colang 1.0 statement")
            .with_help(if w == "flow" {
                "in Colang 1.0 a flow is written `define flow <name>`"
            } else {
                "set `colang_version: \"2.x\"` in config.yml to write Colang 2.x"
            });
            return mark_bad(cx, d);
        }
        _ if top && next_deeper && tok == Tok::Word => {
            cx.line_toks.insert(0, (l, Tok::NamedFlow, l));
            cx.set_last(Last::Other);
            return block;
        }
        _ => {
            let word = cx.slice(l, r);
            let d = Diagnostic::error(codes::UNKNOWN_STATEMENT, cx.span(l, r), format!("unknown statement `{word}`"))
                .with_label("a Colang 1.0 statement starts with a keyword such as `user`, `bot`, `execute` or `if`");
            return mark_bad(cx, d);
        }
    };
    if let Some(t) = cx.line_toks.first_mut() {
        t.1 = kw;
    }
    cx.set_last(last);
    result
}

/// `$x = execute …`, `$x = <expr>`, `$x += e`, `$x -= e`.
fn classify_assignment(cx: &mut Ctx<'_>) -> (Option<Mode>, bool) {
    let (l, r) = cx.line_toks.first().map_or((0, 0), |t| (t.0, t.2));
    let op = cx.line_toks.get(1).map(|t| t.1);
    match op {
        Some(Tok::Assign) => {
            let run = cx.word(cx.line_toks.get(2));
            if matches!(run, "execute" | "exec" | "run") {
                call::assigned_run(cx);
            }
            cx.set_last(Last::Other);
            (Some(Mode::Raw), false)
        }
        Some(Tok::PlusAssign | Tok::MinusAssign) => {
            cx.set_last(Last::Other);
            (None, false)
        }
        Some(Tok::Comma) => {
            let d = Diagnostic::error(
                codes::MULTI_TARGET,
                cx.span(l, r),
                "assignment to several variables",
            )
            .with_label("Colang 1.0 assigns one variable at a time");
            mark_bad(cx, d)
        }
        _ => {
            let var = cx.slice(l, r);
            let d = Diagnostic::error(
                codes::UNKNOWN_STATEMENT,
                cx.span(l, r),
                format!("unknown statement `{var}`"),
            )
            .with_label("a line starting with a variable must assign it")
            .with_help(format!("write `{var} = <value>`"));
            mark_bad(cx, d)
        }
    }
}

/// `define [modifiers] user|bot|flow|subflow|action|snippet [name]`.
fn classify_define(cx: &mut Ctx<'_>, top: bool) -> (Option<Mode>, bool) {
    let (l, r) = cx.line_toks.first().map_or((0, 0), |t| (t.0, t.2));
    if !top {
        let d = Diagnostic::error(
            codes::DEFINE_NOT_TOP_LEVEL,
            cx.span(l, r),
            "`define` inside a block",
        )
        .with_label("definitions start at the beginning of a line")
        .with_help("remove the indentation before `define`");
        return mark_bad(cx, d);
    }
    cx.set_last(Last::Other);
    let mut i = 1;
    loop {
        let Some(&(wl, wt, wr)) = cx.line_toks.get(i) else {
            let d = Diagnostic::error(codes::UNKNOWN_DEFINE, cx.span(l, r), "`define` of nothing")
                .with_label("expected `user`, `bot`, `flow` or `subflow` after `define`");
            return mark_bad(cx, d);
        };
        let word = if wt == Tok::Word {
            cx.slice(wl, wr)
        } else {
            ""
        };
        let (tok, result) = match word {
            "user" => (Tok::DefUser, (Some(Mode::Examples), false)),
            "bot" => (Tok::DefBot, (Some(Mode::Message), true)),
            "flow" => (Tok::DefFlow, (Some(Mode::Flow), true)),
            "subflow" => (Tok::DefSubflow, (Some(Mode::Flow), true)),
            "action" | "snippet" => (Tok::DefOther, (Some(Mode::Skip), false)),
            w if MODIFIERS.contains(&w) => {
                if let Some(t) = cx.line_toks.get_mut(i) {
                    t.1 = Tok::Modifier;
                }
                i += 1;
                continue;
            }
            _ => {
                let shown = cx.slice(wl, wr);
                let flow_follows = cx
                    .line_toks
                    .iter()
                    .skip(i + 1)
                    .any(|t| matches!(cx.word(Some(t)), "flow" | "subflow"));
                let d = if i > 1 || flow_follows {
                    Diagnostic::error(
                        codes::UNKNOWN_MODIFIER,
                        cx.span(wl, wr),
                        format!("unknown flow modifier `{shown}`"),
                    )
                    .with_label(
                        "expected `flow`, `subflow` or a modifier such as `test` or `interruption`",
                    )
                } else {
                    Diagnostic::error(
                        codes::UNKNOWN_DEFINE,
                        cx.span(wl, wr),
                        format!("unknown definition `define {shown}`"),
                    )
                    .with_label("expected `user`, `bot`, `flow` or `subflow`")
                };
                cx.out.diagnostics.push(d);
                cx.line_toks.insert(0, (l, Tok::Bad, l));
                return (Some(Mode::Skip), false);
            }
        };
        if let Some(t) = cx.line_toks.get_mut(i) {
            t.1 = tok;
        }
        set_first(cx, Tok::Define);
        return result;
    }
}

/// `when <word>` where the word starts with `any` but is not `any` (`when anything`): the
/// reference reads no implicit event there (its pattern excludes every text starting with
/// `any`), and the word is then an unknown statement.
fn when_any_word(cx: &Ctx<'_>) -> Option<Diagnostic> {
    let &(l, _, r) = cx.line_toks.get(1)?;
    let word = cx.word(cx.line_toks.get(1));
    (word.starts_with("any") && word != "any").then(|| {
        Diagnostic::error(
            codes::UNKNOWN_STATEMENT,
            cx.span(l, r),
            format!("unknown statement `{word}`"),
        )
        .with_label("after `when`, a word starting with `any` is not read as an event name")
        .with_help(format!(
            "to wait for an event of that name, write `event {word}` after `when`"
        ))
    })
}

/// `user says …` / `bot says …`: the `says` goes.
fn drop_says(cx: &mut Ctx<'_>) {
    if cx.word(cx.line_toks.get(1)) == "says" {
        cx.line_toks.remove(1);
    }
}

/// `… or user …` becomes one token.
fn join_or_user(cx: &mut Ctx<'_>) {
    let mut i = 1;
    while i + 1 < cx.line_toks.len() {
        if cx.word(cx.line_toks.get(i)) == "or" && cx.word(cx.line_toks.get(i + 1)) == "user" {
            let end = cx.line_toks.get(i + 1).map_or(0, |t| t.2);
            cx.line_toks.remove(i + 1);
            if let Some(t) = cx.line_toks.get_mut(i) {
                *t = (t.0, Tok::OrUser, end);
            }
        }
        i += 1;
    }
}
