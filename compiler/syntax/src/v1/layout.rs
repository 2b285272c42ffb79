//! The layout pass of Colang 1.0: from logical lines to the parser's token stream. It lexes each
//! line, drops a trailing `:`, computes INDENT/DEDENT from the indentation, turns a line's first
//! words into its statement keyword (only in flow bodies: message bodies and parameter blocks
//! keep their words), checks that `else` follows an `if` and `else when` a `when`, reports
//! missing and unexpected blocks, and cuts the stream into top-level chunks that are parsed one by
//! one so that a broken definition does not hide the diagnostics of the next one.

use smol_str::SmolStr;
use stalwart_diagnostics::{Diagnostic, FileId, Span};

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
    /// A `define user|bot` body: messages, and `if`/`else` in bot bodies.
    Message,
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
}

/// What the previous line expects of the lines that follow.
#[derive(Debug, Clone, Copy)]
struct Opener {
    /// The mode of a block under it, if one may follow.
    mode: Option<Mode>,
    /// Whether a block must follow.
    required: bool,
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

const GENERIC: &[&str] = &[
    "check", "expect", "log", "allow", "accept", "disallow", "deny", "reject", "context", "global",
    "var", "local", "param", "for", "foreach",
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

/// Collapses runs of whitespace (outside double quotes) into one space.
pub fn collapse(text: &str) -> String {
    collapsed(text).map_or_else(|| collapse_slow(text.trim()), str::to_string)
}

/// [`collapse`] as a name of the tree: no allocation for a short text.
pub fn collapse_name(text: &str) -> SmolStr {
    if let Some((start, end, collapsed)) = ascii_words(text) {
        let name = text.get(start..end).unwrap_or("");
        return if collapsed {
            SmolStr::new(name)
        } else {
            SmolStr::from(collapse_slow(name))
        };
    }
    collapsed(text).map_or_else(
        || SmolStr::from(collapse_slow(super::lines::trim_str(text))),
        SmolStr::new,
    )
}

/// For an ASCII text: its trimmed range and whether the trimmed text is already collapsed (only
/// single spaces between its words), in one pass a word at a time. `None` for any other text.
fn ascii_words(text: &str) -> Option<(usize, usize, bool)> {
    let bytes = text.as_bytes();
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let mut i = 0;
    let mut start = None;
    let mut end = 0;
    let mut collapsed = true;
    while let Some(&b) = bytes.get(i) {
        if !b.is_ascii() {
            return None;
        }
        if blank(b) {
            // A gap between words: collapsed only when it is one space.
            let gap = i;
            i += 1;
            while let Some(&b) = bytes.get(i)
                && blank(b)
            {
                i += 1;
            }
            if start.is_some() && (i - gap != 1 || b != b' ') {
                collapsed = false;
            }
            continue;
        }
        start.get_or_insert(i);
        i += 1;
        while let Some(&b) = bytes.get(i)
            && !blank(b)
        {
            if !b.is_ascii() {
                return None;
            }
            i += 1;
        }
        end = i;
    }
    // A gap at the end is trimmed: it does not count.
    let start = start.unwrap_or(end);
    let collapsed = collapsed || text.get(start..end).is_some_and(is_collapsed);
    Some((start, end, collapsed))
}

/// The text trimmed, when it needs no other change.
fn collapsed(text: &str) -> Option<&str> {
    let text = super::lines::trim_str(text);
    is_collapsed(text).then_some(text)
}

pub(crate) fn collapse_slow(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut space = false;
    for c in text.chars() {
        if c == '"' {
            in_string = !in_string;
        }
        if !in_string && c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out
}

/// Whether a trimmed text is already collapsed: ASCII with no whitespace but single spaces (the
/// common case, which then needs no rewriting).
fn is_collapsed(text: &str) -> bool {
    let mut space = false;
    for &b in text.as_bytes() {
        match b {
            b' ' if space => return false,
            b' ' => space = true,
            b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x80.. => return false,
            _ => space = false,
        }
    }
    true
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
        let (mode, required) = classify(cx, next_deeper);
        if mode == Some(Mode::Skip) {
            self.skip_above = Some(line.indent);
        }
        let end = cx.line_toks.last().map_or(first_start, |t| t.2);
        cx.out.tokens.extend_from_slice(&cx.line_toks);
        cx.out.tokens.push((end, Tok::Newline, end));
        let mode = if mode == Some(Mode::Skip) { None } else { mode };
        self.opener = Some(Opener {
            mode,
            required,
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
    if cur > top.indent {
        match opener.and_then(|o| o.mode.map(|m| (o, m))) {
            Some((_, mode)) if cx.stack.len() <= MAX_DEPTH => {
                cx.stack.push(Level {
                    indent: cur,
                    mode,
                    last: Last::Nothing,
                    flat: false,
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
                cx.stack.push(Level {
                    indent: cur,
                    mode: Mode::Raw,
                    last: Last::Nothing,
                    flat: true,
                });
            }
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
                cx.stack.push(Level {
                    indent: cur,
                    mode: top.mode,
                    last: top.last,
                    flat: true,
                });
            }
        }
        return;
    }
    if let Some(o) = opener {
        missing_block(cx, o);
    }
    while cx.stack.len() > 1 && cx.top().indent > cur {
        if let Some(level) = cx.stack.pop()
            && !level.flat
        {
            cx.out.tokens.push((start, Tok::Dedent, start));
        }
    }
    let top = cx.top();
    if top.indent < cur {
        let d = Diagnostic::error(
            codes::UNEXPECTED_INDENT,
            cx.span(start, end),
            "this line's indentation matches no enclosing block",
        )
        .with_label(format!("indented by {cur} spaces"))
        .with_help("indent it like the lines of the block it belongs to");
        cx.out.diagnostics.push(d);
        cx.stack.push(Level {
            indent: cur,
            mode: top.mode,
            last: top.last,
            flat: true,
        });
    }
}

/// Turns the line's first words into its keyword, checks it, and says what block may follow it.
fn classify(cx: &mut Ctx<'_>, next_deeper: bool) -> (Option<Mode>, bool) {
    let mode = cx.top().mode;
    match mode {
        Mode::Raw | Mode::Skip => (Some(Mode::Raw), false),
        Mode::Message => classify_message(cx),
        Mode::Top | Mode::Flow => classify_statement(cx, mode, next_deeper),
    }
}

fn classify_message(cx: &mut Ctx<'_>) -> (Option<Mode>, bool) {
    let first = cx.word(cx.line_toks.first());
    let second = cx.word(cx.line_toks.get(1));
    match (first, second) {
        ("if", _) => {
            set_first(cx, Tok::If);
            cx.set_last(Last::If);
            (Some(Mode::Message), true)
        }
        ("else", "if") => {
            merge_second(cx, Tok::ElseIf);
            if !check_else(cx, false) {
                return reported(cx);
            }
            (Some(Mode::Message), true)
        }
        ("else", "") if cx.line_toks.len() == 1 => {
            set_first(cx, Tok::Else);
            if !check_else(cx, true) {
                return reported(cx);
            }
            (Some(Mode::Message), true)
        }
        _ => {
            cx.set_last(Last::Other);
            (Some(Mode::Raw), false)
        }
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
        "execute" | "exec" | "run" => (Tok::Run, raw, Last::Other),
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
            if matches!(run, "execute" | "exec" | "run")
                && let Some(t) = cx.line_toks.get_mut(2)
            {
                t.1 = Tok::RunInline;
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
            "user" => (Tok::DefUser, (Some(Mode::Message), false)),
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
