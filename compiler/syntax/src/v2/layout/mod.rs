//! The layout pass of the Colang 2.x front end: turns the raw logos tokens into the parser's
//! tokens. It computes `Newline`/`Indent`/`Dedent` the way the reference's Python-style
//! post-lexer does (tabs count 8 columns, newlines inside brackets vanish, a full-line comment
//! still carries its indentation), joins lines that start with `and`/`or`, expands a `...` line
//! into a `Generate` token, reads each word as a keyword or a name for its place in the line,
//! reports lexical errors, and cuts the token stream into top-level blocks (each starts at a
//! column-0 `flow`, decorator or `import` line) so that one broken block does not hide the others.
//!
//! The pass runs a step at a time ([`Stream`]): it lexes the text a window of raw tokens at a
//! time, and the descent parser reads the parser tokens as they are laid out, so that neither
//! token buffer of a clean file is ever held whole. [`layout`] runs it to the end for the
//! generated parsers.

use std::ops::Range;

use stalwart_diagnostics::{Diagnostic, FileId, Span};

use super::codes;
use super::lexer::{Raw, lex_window};
use super::token::Tok;

mod keywords;

/// How many blocks may nest (by indentation) and how deep brackets may go.
const MAX_DEPTH: usize = 100;
/// How many operators one logical line may hold (each may add a level to an expression tree).
const MAX_OPERATORS: usize = 2000;
/// How many raw tokens are lexed at a time.
const RAW_WINDOW: usize = 1024;
/// How many parser tokens [`Stream::fill`] lays out beyond the one asked for.
const TOKEN_WINDOW: usize = 1024;

/// About how many tokens `text` gives: one per four bytes.
pub(crate) fn token_estimate(text: &str) -> usize {
    text.len() / 4 + 16
}

/// The capacity of a parser token buffer [`Stream::fill`] fills from `text`: a window and some
/// tokens read ahead, or a small file's tokens.
pub(crate) fn stream_capacity(text: &str) -> usize {
    token_estimate(text).min(TOKEN_WINDOW + 64)
}

/// A parser token: start, kind, end.
pub(crate) type Token = (usize, Tok, usize);

/// The layout pass's result.
pub(crate) struct Layout {
    pub toks: Vec<Token>,
    /// Top-level blocks as ranges of `toks`.
    pub blocks: Vec<Range<usize>>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Nothing read yet on this logical line.
    Start,
    Spec,
    Expr,
    FlowHead,
    Import,
    Other,
}

#[derive(Clone, Copy)]
struct Bracket {
    close: Raw,
    start: usize,
    /// Words inside are read as expression words (`not`, `in`, calls) rather than spec words.
    expr: bool,
}

struct Ctx<'a> {
    text: &'a str,
    file: FileId,
    lexer: logos::Lexer<'a, Raw>,
    /// A window of the raw tokens: those from `raw_base` on, as far as they are lexed.
    raw: Vec<(Option<Raw>, u32, u32)>,
    /// The index of `raw[0]` among all raw tokens.
    raw_base: usize,
    /// The lexer has reached the end of the text.
    lexed: bool,
    /// The next raw token to lay out (an index among all raw tokens).
    next_raw: usize,
    /// The parser tokens laid out and not yet dropped by [`Stream::fill`].
    toks: Vec<Token>,
    /// How many parser tokens were dropped from the front of `toks`.
    dropped: usize,
    /// The end of the text has been laid out.
    ended: bool,
    diagnostics: Vec<Diagnostic>,
    /// The offsets of the `...` the reference expands ([`expanded_ellipses`]).
    generated: &'a [u32],
    /// Whether to cut the tokens into blocks (only the generated parsers read them).
    cut_blocks: bool,
    blocks: Vec<Range<usize>>,
    block_start: usize,
    indents: Vec<u32>,
    brackets: Vec<Bracket>,
    /// Start of the first newline of the pending run, if a run is pending.
    pending_nl: Option<usize>,
    /// Offset just after the last newline (where the current physical line starts).
    line_start: usize,
    /// Whether the current physical line already had a token (tabs after that are errors).
    phys_has_token: bool,
    mode: Mode,
    /// The logical line began with a variable (an assignment or a reference).
    line_var: bool,
    /// The last token was `=`/`+=`/`-=` of an assignment.
    after_assign: bool,
    /// A spec name word was read at the current spec level.
    seen_spec_name: bool,
    /// Simple (space separated) arguments of a spec have started.
    in_simple_args: bool,
    last_col0_decorator: bool,
    operators: usize,
    /// A code token was seen (the first line's indentation is ignored).
    started: bool,
}

/// The offsets of the `...` the reference expands before parsing: on each line that starts with
/// spaces and `...`, unless its line-by-line docstring tracking holds the line inside a docstring
/// (a line whose stripped text starts with `"""` opens one, unless it also ends with `"""`; a line
/// whose stripped text ends with `"""` closes it). The reference replaces the `...` by an empty
/// line and six statements, and moves the rest of its line onto a line of its own: seven lines
/// more. The tracking looks at lines, not strings, so it also expands a `...` inside a string
/// opened mid-line, and skips one after a `"""` line that closed such a string.
/// `line_starts` are the offsets where the lines of `text` start ([`line_starts`]).
pub(crate) fn expanded_ellipses(text: &str, line_starts: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    if memchr::memmem::find(text.as_bytes(), b"...").is_none() {
        return out;
    }
    const QUOTES: &str = "\"\"\"";
    let mut in_docstring = false;
    let mut start = 0usize;
    let ends = line_starts
        .iter()
        .skip(1)
        .map(|&s| s as usize - 1)
        .chain([text.len()]);
    for end in ends {
        let line = text.get(start..end).unwrap_or("");
        let spaces = line.bytes().take_while(|&b| b == b' ').count();
        // A line outside a docstring whose first other byte is a visible ASCII character but
        // `"` neither opens nor closes one: only its `...` matters.
        let plain = !in_docstring
            && line
                .as_bytes()
                .get(spaces)
                .is_some_and(|&b| b > b' ' && b < 0x7f && b != b'"');
        if plain {
            if spaces > 0
                && line
                    .as_bytes()
                    .get(spaces..)
                    .is_some_and(|r| r.starts_with(b"..."))
            {
                out.push(u32::try_from(start + spaces).unwrap_or(u32::MAX));
            }
            start = end + 1;
            continue;
        }
        let stripped = line.trim();
        let opens = stripped.starts_with(QUOTES);
        if in_docstring {
            in_docstring = !stripped.ends_with(QUOTES);
        } else if opens {
            in_docstring = !(stripped.ends_with(QUOTES) && stripped != QUOTES);
        } else if spaces > 0
            && line
                .get(spaces..)
                .is_some_and(|rest| rest.starts_with("..."))
        {
            out.push(u32::try_from(start + spaces).unwrap_or(u32::MAX));
        }
        start = end + 1;
    }
    out
}

/// The offset where each line of `text` starts.
pub(crate) fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = Vec::with_capacity(text.len() / 24 + 8);
    starts.push(0u32);
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
    starts
}

/// Runs the lexer and the layout pass over the whole of `text`.
pub(crate) fn layout(file: FileId, text: &str) -> Layout {
    let starts = line_starts(text);
    let generated = expanded_ellipses(text, &starts);
    let mut ctx = Ctx::new(file, text, &generated, token_estimate(text));
    ctx.cut_blocks = true;
    ctx.run_until(usize::MAX);
    Layout {
        toks: ctx.toks,
        blocks: ctx.blocks,
        diagnostics: ctx.diagnostics,
    }
}

/// The layout pass a step at a time, for the descent parser: [`Stream::fill`] lays out more
/// text into the parser's token buffer, dropping the tokens it has read.
pub(crate) struct Stream<'a> {
    cx: Ctx<'a>,
}

impl<'a> Stream<'a> {
    /// A layout of `text`, where the reference expands the `...` at `generated`
    /// ([`expanded_ellipses`]).
    pub(crate) fn new(file: FileId, text: &'a str, generated: &'a [u32]) -> Self {
        Stream {
            // The parser's buffer is swapped in (`fill`).
            cx: Ctx::new(file, text, generated, 0),
        }
    }

    /// Refills `buf`, the tokens from index `base` on (indices count from the first token of
    /// the file; `buf` is empty or the buffer the last call left): drops the tokens before
    /// `keep` (but not the last one), and lays out text until token `want` is in `buf` or the
    /// text has ended. Returns the new `base`.
    #[inline(never)]
    pub(crate) fn fill(&mut self, buf: &mut Vec<Token>, want: usize, keep: usize) -> usize {
        let cx = &mut self.cx;
        std::mem::swap(&mut cx.toks, buf);
        // The last token stays: the layout reads it (`Ctx::prev`).
        let drop_to = keep.min(cx.laid_out().saturating_sub(1));
        if drop_to > cx.dropped {
            cx.toks.drain(..drop_to - cx.dropped);
            cx.dropped = drop_to;
        }
        cx.run_until(want + TOKEN_WINDOW);
        std::mem::swap(&mut cx.toks, buf);
        cx.dropped
    }

    /// Whether the layout pass reported nothing (so far).
    pub(crate) fn is_clean(&self) -> bool {
        self.cx.diagnostics.is_empty()
    }
}

fn punct(raw: Raw) -> Option<Tok> {
    Some(match raw {
        Raw::Comma => Tok::Comma,
        Raw::Colon => Tok::Colon,
        Raw::Dot => Tok::Dot,
        Raw::Assign => Tok::Assign,
        Raw::PlusAssign => Tok::PlusAssign,
        Raw::MinusAssign => Tok::MinusAssign,
        Raw::Arrow => Tok::Arrow,
        Raw::At => Tok::At,
        Raw::Plus => Tok::Plus,
        Raw::Minus => Tok::Minus,
        Raw::Star => Tok::Star,
        Raw::DoubleStar => Tok::DoubleStar,
        Raw::Slash => Tok::Slash,
        Raw::DoubleSlash => Tok::DoubleSlash,
        Raw::Percent => Tok::Percent,
        Raw::Pipe => Tok::Pipe,
        Raw::Caret => Tok::Caret,
        Raw::Amp => Tok::Amp,
        Raw::Tilde => Tok::Tilde,
        Raw::Shl => Tok::Shl,
        Raw::Shr => Tok::Shr,
        Raw::Lt => Tok::Lt,
        Raw::Gt => Tok::Gt,
        Raw::EqEq => Tok::EqEq,
        Raw::Ge => Tok::Ge,
        Raw::Le => Tok::Le,
        Raw::Ne => Tok::Ne,
        _ => return None,
    })
}

impl<'a> Ctx<'a> {
    fn new(file: FileId, text: &'a str, generated: &'a [u32], capacity: usize) -> Self {
        Ctx {
            text,
            file,
            lexer: logos::Lexer::new(text),
            // A window and some tokens read ahead; a small file's tokens (about one per four
            // bytes).
            raw: Vec::with_capacity(token_estimate(text).min(RAW_WINDOW + 64)),
            raw_base: 0,
            lexed: false,
            next_raw: 0,
            toks: Vec::with_capacity(capacity),
            dropped: 0,
            ended: false,
            diagnostics: Vec::new(),
            generated,
            cut_blocks: false,
            blocks: Vec::new(),
            block_start: 0,
            indents: vec![0],
            brackets: Vec::new(),
            pending_nl: None,
            line_start: 0,
            phys_has_token: false,
            mode: Mode::Start,
            line_var: false,
            after_assign: false,
            seen_spec_name: false,
            in_simple_args: false,
            last_col0_decorator: false,
            operators: 0,
            started: false,
        }
    }

    /// The number of parser tokens laid out, counting those dropped.
    fn laid_out(&self) -> usize {
        self.dropped + self.toks.len()
    }

    /// Raw token `i` (an index among all raw tokens, not before the one being laid out), lexing
    /// more of the text when it is past the window.
    #[inline]
    fn raw_at(&mut self, i: usize) -> Option<(Option<Raw>, u32, u32)> {
        loop {
            if let Some(t) = self.raw.get(i.wrapping_sub(self.raw_base)) {
                return Some(*t);
            }
            if self.lexed {
                return None;
            }
            self.lex_more();
        }
    }

    /// Drops the raw tokens before the one being laid out and lexes a window more.
    #[inline(never)]
    fn lex_more(&mut self) {
        let done = self
            .next_raw
            .saturating_sub(self.raw_base)
            .min(self.raw.len());
        self.raw.drain(..done);
        self.raw_base += done;
        self.lexed = !lex_window(&mut self.lexer, &mut self.raw, RAW_WINDOW);
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end).unwrap_or("")
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    #[cold]
    fn error_at(
        &mut self,
        start: usize,
        end: usize,
        code: stalwart_diagnostics::Code,
        message: String,
    ) {
        let span = self.span(start, end);
        self.diagnostics
            .push(Diagnostic::error(code, span, message));
        self.toks.push((start, Tok::Error, end));
    }

    fn prev(&self) -> Option<Tok> {
        self.toks.last().map(|t| t.1)
    }

    /// The next raw token after index `i`, skipping tabs, with its index.
    fn peek_at(&mut self, i: usize) -> Option<(usize, Option<Raw>, usize, usize)> {
        let mut j = i + 1;
        loop {
            let t = self.raw_at(j)?;
            if t.0 != Some(Raw::Tab) {
                return Some((j, t.0, t.1 as usize, t.2 as usize));
            }
            j += 1;
        }
    }

    /// The next raw token after index `i`, skipping tabs.
    fn peek(&mut self, i: usize) -> Option<(Option<Raw>, usize, usize)> {
        self.peek_at(i).map(|(_, r, s, e)| (r, s, e))
    }

    fn next_is_lparen(&mut self, i: usize) -> bool {
        matches!(self.peek(i), Some((Some(Raw::LParen), _, _)))
    }

    /// Lays out raw tokens until more than `want` parser tokens are laid out (counting those
    /// dropped), or up to the end of the text.
    fn run_until(&mut self, want: usize) {
        if self.next_raw == 0 && self.laid_out() == 0 && self.text.starts_with('\u{feff}') {
            self.error_at(
                0,
                3,
                codes::BYTE_ORDER_MARK,
                "a byte order mark at the start of the file is not allowed".into(),
            );
        }
        while self.laid_out() <= want {
            let i = self.next_raw;
            let Some(&(raw, start, end)) = self.raw.get(i.wrapping_sub(self.raw_base)) else {
                if !self.lexed {
                    self.lex_more();
                    continue;
                }
                if !self.ended {
                    self.ended = true;
                    self.finish();
                }
                return;
            };
            self.next_raw = self.step(i, raw, start as usize, end as usize) + 1;
        }
    }

    /// Lays out raw token `i` (and those it reads ahead); returns the index of the last raw
    /// token it consumed.
    #[inline]
    fn step(&mut self, i: usize, raw: Option<Raw>, start: usize, end: usize) -> usize {
        match raw {
            Some(Raw::Newline) => self.newline(i, start, end),
            Some(Raw::Tab) => {
                if self.phys_has_token || (self.line_start == 0 && self.pending_nl.is_none()) {
                    self.error_at(
                        start,
                        end,
                        codes::TAB_IN_LINE,
                        "a tab between tokens is not allowed; only spaces may separate tokens"
                            .into(),
                    );
                }
            }
            Some(Raw::Comment) => self.comment(start, end),
            _ => {
                self.phys_has_token = true;
                if self.pending_nl.is_some() {
                    self.line_begins(i, raw, start, end);
                } else if !self.started {
                    self.maybe_split(raw, start, end, i);
                }
                self.started = true;
                return self.token(i, raw, start, end);
            }
        }
        i
    }

    fn newline(&mut self, i: usize, start: usize, end: usize) {
        self.phys_has_token = false;
        self.line_start = end;
        if !self.brackets.is_empty() {
            // A column-0 `flow`, decorator or `import` almost surely means a bracket was left open.
            let col0_head = match self.peek(i) {
                Some((Some(Raw::At), s, _)) => s == end,
                Some((Some(Raw::Word), s, e)) => {
                    s == end && matches!(self.slice(s, e), "flow" | "import")
                }
                _ => false,
            };
            if !col0_head {
                return;
            }
            self.unclosed_brackets();
        }
        if self.pending_nl.is_none() {
            self.pending_nl = Some(start);
        }
    }

    fn unclosed_brackets(&mut self) {
        let open = std::mem::take(&mut self.brackets);
        if let Some(b) = open.first() {
            let (s, c) = (b.start, self.slice(b.start, b.start + 1).to_string());
            self.error_at(
                s,
                s + 1,
                codes::UNBALANCED_BRACKET,
                format!("this `{c}` is never closed"),
            );
        }
    }

    fn comment(&mut self, start: usize, end: usize) {
        if self.pending_nl.is_none() || !self.brackets.is_empty() {
            return; // a trailing comment, or one inside brackets: ignored
        }
        // A full-line comment: the newline before it still carries its indentation.
        let indent = self.indent_of(start);
        if indent == 0 && self.indents.len() == 1 && self.last_col0_decorator {
            self.error_at(
                start,
                end,
                codes::COMMENT_AFTER_DECORATOR,
                "a comment line cannot stand between a decorator and its flow".into(),
            );
        }
        self.emit_newline(indent, start);
        self.pending_nl = None;
        self.phys_has_token = true;
    }

    fn indent_of(&self, tok_start: usize) -> u32 {
        self.slice(self.line_start, tok_start)
            .bytes()
            .map(|b| if b == b'\t' { 8 } else { 1 })
            .sum()
    }

    /// Emits the pending newline and the indentation changes for a line indented `indent`.
    fn emit_newline(&mut self, indent: u32, tok_start: usize) {
        let nl = self.pending_nl.unwrap_or(tok_start);
        if matches!(self.prev(), Some(Tok::And | Tok::Or))
            && let Some(&(s, _, e)) = self.toks.last()
        {
            {
                let w = self.slice(s, e).to_string();
                self.error_at(
                    s,
                    e,
                    codes::TRAILING_OPERATOR,
                    format!("a line cannot end with `{w}`; start the next line with it instead"),
                );
            }
        }
        let nl_end = (nl + 1).min(self.text.len()).max(nl);
        self.toks.push((nl, Tok::Newline, nl_end));
        self.reset_line();
        let top = self.indents.last().copied().unwrap_or(0);
        if indent > top {
            // Reported once, where the nesting first passes the limit.
            if self.indents.len() == MAX_DEPTH {
                self.error_at(
                    tok_start,
                    tok_start,
                    codes::TOO_DEEP,
                    "blocks are nested too deeply".into(),
                );
            }
            self.indents.push(indent);
            self.toks.push((tok_start, Tok::Indent, tok_start));
            return;
        }
        let columns = (!self.indents.contains(&indent)).then(|| self.indents.clone());
        while indent < self.indents.last().copied().unwrap_or(0) {
            self.indents.pop();
            self.toks.push((tok_start, Tok::Dedent, tok_start));
        }
        if let Some(columns) = columns {
            self.bad_dedent(indent, &columns, tok_start);
            self.indents.push(indent);
        }
    }

    #[cold]
    fn bad_dedent(&mut self, indent: u32, levels: &[u32], tok_start: usize) {
        let columns: Vec<String> = levels.iter().map(u32::to_string).collect();
        let span = self.span(self.line_start, tok_start);
        let message =
            format!("this line is dedented to column {indent}, which matches no enclosing block");
        let d = Diagnostic::error(codes::BAD_DEDENT, span, message)
            .with_label(format!("column {indent}"))
            .with_note(format!(
                "the open blocks start at columns {}",
                columns.join(", ")
            ));
        self.diagnostics.push(d);
        self.toks.push((self.line_start, Tok::Error, tok_start));
    }

    fn reset_line(&mut self) {
        self.mode = Mode::Start;
        self.line_var = false;
        self.after_assign = false;
        self.seen_spec_name = false;
        self.in_simple_args = false;
        self.operators = 0;
    }

    /// The first token of a new logical line (after a newline run), or of the file.
    fn line_begins(&mut self, i: usize, raw: Option<Raw>, start: usize, end: usize) {
        let indent = self.indent_of(start);
        // A line starting with `and `/`or ` continues the previous line.
        if raw == Some(Raw::Word) && self.brackets.is_empty() {
            let w = self.slice(start, end);
            let spaced = matches!(self.text.as_bytes().get(end), Some(b' ' | b'\t'));
            let or_when = w == "or"
                && matches!(self.peek(i), Some((Some(Raw::Word), s, e)) if self.slice(s, e) == "when");
            if (w == "and" || w == "or")
                && spaced
                && !or_when
                && self.prev().is_some_and(Tok::ends_operand)
            {
                self.pending_nl = None;
                return;
            }
        }
        self.emit_newline(indent, start);
        self.pending_nl = None;
        if self.indents.len() == 1 && indent == 0 {
            self.maybe_split(raw, start, end, i);
        }
    }

    fn maybe_split(&mut self, raw: Option<Raw>, start: usize, end: usize, i: usize) {
        let is_at = raw == Some(Raw::At);
        let head = match raw {
            Some(Raw::At) => true,
            Some(Raw::Word) => match self.slice(start, end) {
                "flow" => !self.next_is_lparen(i),
                "import" => true,
                _ => false,
            },
            _ => false,
        };
        let is_flow_word = raw == Some(Raw::Word) && self.slice(start, end) == "flow";
        let continues_decorators = self.last_col0_decorator && (is_at || is_flow_word);
        if head && !continues_decorators {
            let at = self.laid_out();
            if at > self.block_start && self.cut_blocks {
                self.blocks.push(self.block_start..at);
            }
            self.block_start = at;
        }
        self.last_col0_decorator = is_at;
    }

    fn finish(&mut self) {
        if !self.brackets.is_empty() {
            self.unclosed_brackets();
        }
        let len = self.text.len();
        if self.pending_nl.is_none() && self.prev() != Some(Tok::Newline) && self.laid_out() > 0 {
            self.pending_nl = Some(len);
        }
        if self.pending_nl.is_some() {
            self.line_start = len;
            self.emit_newline(0, len);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.toks.push((len, Tok::Dedent, len));
        }
        let at = self.laid_out();
        if at > self.block_start && self.cut_blocks {
            self.blocks.push(self.block_start..at);
        }
    }

    fn push(&mut self, tok: Tok, start: usize, end: usize) {
        self.toks.push((start, tok, end));
        self.after_assign = false;
    }

    /// Handles one token; returns the index of the last raw token it consumed.
    fn token(&mut self, i: usize, raw: Option<Raw>, start: usize, end: usize) -> usize {
        let Some(raw) = raw else {
            self.bad_text(start, end);
            return i;
        };
        let at_start = self.mode == Mode::Start;
        match raw {
            Raw::Word => return self.word(i, start, end),
            Raw::Var => {
                if at_start {
                    self.mode = Mode::Spec;
                    self.line_var = true;
                } else if self.after_assign {
                    self.mode = Mode::Expr;
                }
                self.operand_in_spec(Tok::Var, start, end);
            }
            Raw::Int => {
                let digits = self.slice(start, end);
                if digits.starts_with('0') && digits.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
                    let d = digits.to_string();
                    self.error_at(
                        start,
                        end,
                        codes::LEADING_ZERO,
                        format!("leading zeros are not allowed in the integer `{d}`"),
                    );
                } else {
                    self.expr_start_after_assign();
                    self.operand_in_spec(Tok::Int, start, end);
                }
            }
            Raw::Float => {
                self.expr_start_after_assign();
                self.operand_in_spec(Tok::Float, start, end);
            }
            Raw::Str => {
                self.expr_start_after_assign();
                self.operand_in_spec(Tok::Str, start, end);
            }
            Raw::Nld => {
                self.expr_start_after_assign();
                self.operand_in_spec(Tok::Nld, start, end);
            }
            Raw::LongStr => {
                if at_start {
                    self.mode = Mode::Other;
                }
                self.expr_start_after_assign();
                self.operand_in_spec(Tok::LongStr, start, end);
            }
            Raw::UnterminatedStr => {
                self.error_at(
                    start,
                    end,
                    codes::UNTERMINATED_STRING,
                    "this string has no closing quote on its line".into(),
                );
            }
            Raw::Ellipsis => self.ellipsis(start, end),
            Raw::LParen | Raw::LBracket | Raw::LBrace => self.open(i, raw, start, end),
            Raw::RParen | Raw::RBracket | Raw::RBrace => self.close(raw, start, end),
            Raw::Assign | Raw::PlusAssign | Raw::MinusAssign => {
                let assign = self.line_var
                    && self.brackets.is_empty()
                    && self.toks.last().is_some_and(|t| t.1 == Tok::Var);
                let tok = punct(raw).unwrap_or(Tok::Error);
                self.push(tok, start, end);
                self.after_assign = assign && self.laid_out() >= 2 && self.mode == Mode::Spec;
                if assign && self.mode == Mode::Spec {
                    self.mode = Mode::Other;
                }
            }
            Raw::At if at_start => {
                self.mode = Mode::Other;
                self.push(Tok::At, start, end);
                // The decorator's name is a plain name even when `(` follows.
                if let Some((j, Some(Raw::Word), s, e)) = self.peek_at(i) {
                    self.push(Tok::Name, s, e);
                    return j;
                }
            }
            Raw::Minus | Raw::Plus | Raw::Tilde => {
                self.count_operator(start, end);
                self.expr_start_after_assign();
                let tok = punct(raw).unwrap_or(Tok::Error);
                self.operand_in_spec(tok, start, end);
            }
            Raw::Newline | Raw::Tab | Raw::Comment => {}
            _ => {
                if matches!(
                    raw,
                    Raw::Dot
                        | Raw::Star
                        | Raw::DoubleStar
                        | Raw::Slash
                        | Raw::DoubleSlash
                        | Raw::Percent
                        | Raw::Pipe
                        | Raw::Caret
                        | Raw::Amp
                        | Raw::Shl
                        | Raw::Shr
                        | Raw::Lt
                        | Raw::Gt
                        | Raw::EqEq
                        | Raw::Ge
                        | Raw::Le
                        | Raw::Ne
                ) {
                    self.count_operator(start, end);
                }
                let tok = punct(raw).unwrap_or(Tok::Error);
                self.push(tok, start, end);
            }
        }
        i
    }

    fn count_operator(&mut self, start: usize, end: usize) {
        self.operators += 1;
        if self.operators == MAX_OPERATORS {
            self.error_at(
                start,
                end,
                codes::TOO_DEEP,
                "this line has too many operators to parse safely".into(),
            );
        }
    }

    #[cold]
    fn bad_text(&mut self, start: usize, end: usize) {
        let rest = self.text.get(start..).unwrap_or("");
        if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
            self.error_at(
                start,
                start + 3,
                codes::UNTERMINATED_STRING,
                "this triple-quoted string is never closed".into(),
            );
        } else if start == 0 && rest.starts_with('\u{feff}') {
            // already reported as a byte order mark
        } else {
            let c = rest
                .chars()
                .next()
                .map(|c| c.escape_debug().to_string())
                .unwrap_or_default();
            self.error_at(
                start,
                end,
                codes::UNEXPECTED_CHARACTER,
                format!("unexpected character `{c}`"),
            );
        }
    }

    /// A value right after `$v =` makes the right side an expression.
    fn expr_start_after_assign(&mut self) {
        if self.after_assign {
            self.mode = Mode::Expr;
        }
    }

    /// Pushes an operand; in a spec after its name words it starts the simple arguments.
    fn operand_in_spec(&mut self, tok: Tok, start: usize, end: usize) {
        if self.in_spec_level() && self.seen_spec_name {
            self.in_simple_args = true;
        }
        self.push(tok, start, end);
    }

    /// Whether words here are read as spec words (not inside argument brackets).
    fn in_spec_level(&self) -> bool {
        match self.brackets.last() {
            Some(b) => !b.expr,
            None => self.mode == Mode::Spec,
        }
    }

    fn in_expr_words(&self) -> bool {
        match self.brackets.last() {
            Some(b) => b.expr,
            None => matches!(self.mode, Mode::Expr | Mode::Other),
        }
    }

    fn ellipsis(&mut self, start: usize, end: usize) {
        let lead = self.slice(self.line_start, start);
        let own_line = self.mode == Mode::Start
            && self.brackets.is_empty()
            && self.line_start > 0
            && !lead.is_empty()
            && lead.bytes().all(|b| b == b' ');
        let expanded = self.generated.binary_search(&(start as u32)).is_ok();
        if own_line && !expanded {
            self.error_at(
                start,
                end,
                codes::STRAY_ELLIPSIS,
                "`...` is not expanded here: a line before it that starts with `\"\"\"` opens a docstring for the reference parser".into(),
            );
        } else if own_line {
            self.push(Tok::Generate, start, end);
            // The rest of the line follows the generated statements on a line of its own.
            self.pending_nl = Some(end);
            self.line_start = end;
            self.phys_has_token = false;
        } else {
            self.error_at(
                start,
                end,
                codes::STRAY_ELLIPSIS,
                "`...` must stand alone on its line or prefix a string".into(),
            );
        }
    }

    fn open(&mut self, i: usize, raw: Raw, start: usize, end: usize) {
        let at_start = self.mode == Mode::Start;
        let close = match raw {
            Raw::LParen => Raw::RParen,
            Raw::LBracket => Raw::RBracket,
            _ => Raw::RBrace,
        };
        self.count_operator(start, end);
        let mut tok = match raw {
            Raw::LParen => Tok::LParen,
            Raw::LBracket => Tok::LBracket,
            _ => Tok::LBrace,
        };
        let expr = if raw != Raw::LParen {
            self.expr_start_after_assign();
            if self.in_spec_level() && self.seen_spec_name {
                self.in_simple_args = true;
            }
            true
        } else if at_start {
            if self.paren_starts_expression(i) {
                tok = Tok::ExprParen;
                self.mode = Mode::Expr;
                true
            } else {
                self.mode = Mode::Spec;
                false
            }
        } else if self.after_assign {
            self.toks.push((start, Tok::ImplicitSpec, start));
            self.mode = Mode::Spec;
            false
        } else if self.in_spec_level() {
            // After a spec name or member name: classic arguments; otherwise a group of specs.
            let args = matches!(self.prev(), Some(Tok::Name | Tok::FuncName));
            if !args {
                self.seen_spec_name = false;
                self.in_simple_args = false;
            }
            args
        } else {
            true
        };
        // Reported once, at the first bracket past the limit: every deeper one would only say it
        // again (and an input of a million brackets would drown in diagnostics).
        if self.brackets.len() == MAX_DEPTH {
            self.error_at(
                start,
                end,
                codes::TOO_DEEP,
                "brackets are nested too deeply".into(),
            );
        }
        self.push(tok, start, end);
        self.brackets.push(Bracket { close, start, expr });
    }

    /// Whether a `(` opening a statement opens an expression statement `(expr)` rather than a
    /// group of specs.
    fn paren_starts_expression(&mut self, i: usize) -> bool {
        let Some((raw, s, e)) = self.peek(i) else {
            return false;
        };
        match raw {
            Some(
                Raw::Var
                | Raw::Int
                | Raw::Float
                | Raw::Str
                | Raw::LongStr
                | Raw::Nld
                | Raw::LBracket
                | Raw::LBrace
                | Raw::Minus
                | Raw::Plus
                | Raw::Tilde,
            ) => true,
            Some(Raw::Word) => {
                let w = self.slice(s, e);
                if matches!(w, "not" | "True" | "False" | "None") {
                    return true;
                }
                let j = self.peek_at(i).map_or(i, |p| p.0);
                self.next_is_lparen(j) && w.chars().next().is_some_and(char::is_lowercase)
            }
            _ => false,
        }
    }

    fn close(&mut self, raw: Raw, start: usize, end: usize) {
        let tok = match raw {
            Raw::RParen => Tok::RParen,
            Raw::RBracket => Tok::RBracket,
            _ => Tok::RBrace,
        };
        match self.brackets.pop() {
            Some(b) => {
                if b.close != raw {
                    // Mismatched kinds: the parser reports it at this token.
                }
                self.push(tok, start, end);
                if !b.expr && self.in_spec_level() {
                    // A closed group reads as one spec name: members may follow, and the simple
                    // arguments of a spec inside it have ended.
                    self.seen_spec_name = true;
                    self.in_simple_args = false;
                }
            }
            None => {
                let c = self.slice(start, end).to_string();
                self.error_at(
                    start,
                    end,
                    codes::UNBALANCED_BRACKET,
                    format!("this `{c}` closes nothing"),
                );
            }
        }
    }
}
