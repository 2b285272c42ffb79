//! The Colang 2.x parse driver: parses a clean file with the descent parser as the layout pass
//! lays it out; otherwise runs the layout pass over the whole file, parses each top-level block
//! with the generated LR(1) parser (grammars/colang_v2.lalrpop), and turns parser errors into
//! diagnostics a Colang user understands; then assembles the module.

use lalrpop_util::ParseError;
use stalwart_diagnostics::{Diagnostic, FileId, Span};

use super::ast::{Flow, Item, Module, Stmt, StmtKind};
use super::builder::{Pending, UserError, UserErrorKind};
use super::codes;
use super::layout::{Layout, Stream, expanded_ellipses, layout, line_starts};
use super::token::Tok;
use crate::Parse;

generated_parser!(colang_v2, "/colang_v2.rs");

// The same grammar with its renaming rules inlined (see build.rs): fewer reductions, other
// "expected …" lists, so it parses clean files only and never reports errors.
generated_parser!(colang_v2_clean, "/colang_v2_clean.rs");

mod descent;

type Token = (usize, Tok, usize);

/// Parses a Colang 2.x file.
pub(crate) fn parse(file: FileId, text: &str) -> Parse<Module> {
    let mut module = Module::default();
    if u32::try_from(text.len()).is_err() {
        let d = Diagnostic::error(
            codes::FILE_TOO_LARGE,
            Span::new(file, 0, 0),
            "the file is larger than 4 GiB",
        );
        return Parse {
            value: module,
            diagnostics: vec![d],
        };
    }
    let mut diagnostics = Vec::new();
    // A clean file is parsed by the descent parser as the layout pass lays it out; any other
    // file is laid out again, whole, for the generated parsers.
    let mut pending = Pending::default();
    let starts = line_starts(text);
    module.items.reserve(top_level_items(text, &starts));
    let generated = expanded_ellipses(text, &starts);
    let lines = LineIndex {
        starts,
        generated: &generated,
    };
    let mut stream = Stream::new(file, text, &generated);
    let added = descent::parse_block(
        text,
        file,
        &lines,
        &mut pending,
        &mut stream,
        |top| match top {
            descent::Top::Flow(f) => module.items.push(Item::Flow(f)),
            descent::Top::Stmts(stmts) => {
                for s in stmts.drain(..) {
                    add_item(&mut module, s, &mut diagnostics);
                }
            }
        },
    );
    if added.is_err() {
        drop(stream);
        pending.clear();
        module.items.clear();
        let mut layout = layout(file, text);
        diagnostics = std::mem::take(&mut layout.diagnostics);
        parse_blocks(file, text, &layout, pending, &mut module, &mut diagnostics);
        // The descent parser numbers the lines of its flows; the generated parsers do not.
        for item in &mut module.items {
            if let Item::Flow(f) = item {
                set_lines(f, &lines);
            }
        }
    }
    drop(lines);
    module.generated = generated;
    lone_element(text, &module, &mut diagnostics);
    module.exclude_from_llm = excluded_from_llm(text);
    crate::cap_errors(&mut diagnostics, codes::TOO_MANY_ERRORS);
    Parse {
        value: module,
        diagnostics,
    }
}

/// Reports a file whose top level is one `import` or one statement and nothing else. The
/// reference grammar's start rule is a list that collapses to its only element, and its reader
/// then fails on anything but a flow there. What counts as an element besides flows, imports,
/// docstrings and statements: a comment on a line of its own, and a newline at the very start
/// of the file (a comment or a blank line after the element, on the same line or below, does
/// not count: it joins the element's own newline).
fn lone_element(text: &str, module: &Module, diagnostics: &mut Vec<Diagnostic>) {
    let [item] = module.items.as_slice() else {
        return;
    };
    let span = match item {
        Item::Import(i) => i.span,
        Item::Stmt(s) => s.span,
        Item::Flow(_) | Item::Docstring(_) => return,
    };
    let comment_line = text.lines().any(|l| l.trim_start().starts_with('#'));
    let leading_newline = text.starts_with('\n') || text.starts_with("\r\n");
    if comment_line || leading_newline || diagnostics.iter().any(Diagnostic::is_error) {
        return;
    }
    // The error says more than the warning that the statement is ignored.
    diagnostics.retain(|d| !(d.code == codes::STATEMENT_OUTSIDE_FLOW && d.primary.span == span));
    diagnostics.push(
        Diagnostic::error(
            codes::LONE_TOP_LEVEL_ELEMENT,
            span,
            "a file whose only content is this line is not a valid Colang 2.x file",
        )
        .with_label("the only element of the file, and not a flow")
        .with_help("define a flow in this file, or add a comment line"),
    );
}

/// Parses the top-level blocks of the layout into the module's items, after the descent parser
/// (`descent`) stopped.
///
/// Each block is parsed on its own so that a broken one does not hide the others, and a block
/// holding a place the layout pass already reported is not parsed. When no block has such a
/// place and the whole stream parses, that parse is the same as the block by block one
/// (INVARIANT: no statement spans two blocks, since a block starts at a column-0 `flow`,
/// decorator or `import` line, which cannot continue the statement before it: see `layout`), so
/// it is tried first: one parser run instead of one per block. That run uses the clean-file
/// parser, which builds the same tree with fewer reductions than the first one; its errors are
/// never reported (the blocks are parsed again with the parser whose "expected …" lists the
/// messages are made of).
fn parse_blocks(
    file: FileId,
    text: &str,
    layout: &Layout,
    mut pending: Pending,
    module: &mut Module,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let parser = colang_v2::BlockParser::new();
    let clean = !layout.toks.iter().any(|t| t.1 == Tok::Error);
    if clean {
        if colang_v2_clean::BlockParser::new()
            .parse(text, file, &mut pending, NameRuns::new(text, &layout.toks))
            .is_ok()
        {
            add_items(module, &mut pending.stmts, diagnostics);
            return;
        }
        pending.clear();
    }
    module.items.reserve(layout.blocks.len());
    for block in &layout.blocks {
        let Some(toks) = layout.toks.get(block.clone()) else {
            continue;
        };
        if !clean && toks.iter().any(|t| t.1 == Tok::Error) {
            continue; // already reported by the layout pass
        }
        match parser.parse(text, file, &mut pending, toks.iter().copied()) {
            Ok(()) => add_items(module, &mut pending.stmts, diagnostics),
            Err(e) => {
                pending.clear();
                diagnostics.push(translate(e, toks, text, file));
            }
        }
    }
}

/// The token stream of the clean-file parser, with three kinds of tokens the clean-file grammar
/// alone reads (see build.rs), each standing for what the whole stream reads there in one shift.
///
/// **`Names`**: each run of two or more names in a row, every gap one space, given as one token
/// over the run. In grammars/colang_v2.lalrpop two names stand side by side only inside `Words`
/// (the name of a flow or spec: an expression has no bare name, and every other place of a name
/// is followed by `.`, `=`, `(`, `:` or the end of a line), and `Words` keeps only the range from
/// the first name's start to the last one's end while every gap is one space. The clean-file
/// grammar reads `Names` only as the first words of `Words`, with that range. Where a gap is not
/// one space, the run is merged up to it and its other names are given one by one, as `Words`
/// reads them.
///
/// **`SimpleStr`**: a string right after a name, followed by a token that cannot continue an
/// expression (not an operator, `[`, `.` or `(`). A name followed by an expression's first token
/// is the end of a spec's `Words` followed by its first argument, or (in `$x.y "z"`) an
/// attribute followed by a later argument, which the clean-file grammar rejects (the whole file
/// is then parsed again by the first parser: slower, never wrong). The clean-file grammar reads
/// `SimpleStr` only as `SimpleFirst`, with the actions of the string's leaf and the argument
/// (the rules between them only rename one another).
///
/// **`NamedStr`**: a string right after `name =`, followed by a token that cannot continue an
/// expression. `name =` stands only before a named argument's value (`ArgValue`, `CallArg`);
/// the clean-file grammar reads `NamedStr` there only, with the actions of the string's leaf and
/// the named argument.
///
/// So the clean-file parser accepts the merged stream only where the whole stream is accepted,
/// and builds the same values with fewer reductions. The merged stream is given only to the
/// clean-file parser, whose errors are never reported.
struct NameRuns<'a> {
    text: &'a [u8],
    tokens: std::slice::Iter<'a, Token>,
    /// Whether the names that follow are the rest of a run cut at a gap that is not one space.
    tail: bool,
    /// The last two tokens given, the last one first.
    last: (Tok, Tok),
}

impl<'a> NameRuns<'a> {
    fn new(text: &'a str, tokens: &'a [Token]) -> Self {
        NameRuns {
            text: text.as_bytes(),
            tokens: tokens.iter(),
            tail: false,
            last: (Tok::Newline, Tok::Newline),
        }
    }

    /// The token a string becomes: `SimpleStr` after a name, `NamedStr` after a name and `=`,
    /// when the token after it does not continue an expression.
    fn string(&self) -> Tok {
        let operand_ends = !self
            .tokens
            .as_slice()
            .first()
            .is_some_and(|t| continues_operand(t.1));
        match self.last {
            (Tok::Name | Tok::Names, _) if operand_ends => Tok::SimpleStr,
            (Tok::Assign, Tok::Name) if operand_ends => Tok::NamedStr,
            _ => Tok::Str,
        }
    }

    /// The name run starting with the name `start..end`: one `Names` token up to the first gap
    /// that is not one space, or the name alone.
    fn names(&mut self, start: usize, mut end: usize) -> Token {
        let mut merged = Tok::Name;
        while let Some(&(next, Tok::Name, next_end)) = self.tokens.as_slice().first() {
            if next != end + 1 || self.text.get(end) != Some(&b' ') {
                self.tail = true;
                break;
            }
            self.tokens.next();
            end = next_end;
            merged = Tok::Names;
        }
        (start, merged, end)
    }
}

impl Iterator for NameRuns<'_> {
    type Item = Token;

    #[inline]
    fn next(&mut self) -> Option<Token> {
        let (start, tok, end) = *self.tokens.next()?;
        let token = match tok {
            Tok::Name if self.tail => (start, tok, end),
            Tok::Name => self.names(start, end),
            Tok::Str => {
                self.tail = false;
                (start, self.string(), end)
            }
            _ => {
                self.tail = false;
                (start, tok, end)
            }
        };
        self.last = (token.1, self.last.0);
        Some(token)
    }
}

/// Whether a token after an operand continues the expression (`AtomExprOf` and the `Tier`s of
/// grammars/colang_v2.lalrpop).
fn continues_operand(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::Pipe
            | Tok::Caret
            | Tok::Amp
            | Tok::Shl
            | Tok::Shr
            | Tok::Plus
            | Tok::Minus
            | Tok::Star
            | Tok::At
            | Tok::Slash
            | Tok::Percent
            | Tok::DoubleSlash
            | Tok::DoubleStar
            | Tok::LBracket
            | Tok::Dot
            | Tok::LParen
            | Tok::ExprParen
    )
}

/// About how many top-level items a file has: one per line that starts with `flow`, `import`
/// or `"""` (the items of a clean file, unless a string holds such a line), and a sixteenth
/// more. The descent parser's items are reserved from it, so that the item vector of a large
/// file is not copied as it grows.
fn top_level_items(text: &str, line_starts: &[u32]) -> usize {
    let bytes = text.as_bytes();
    let heads = line_starts
        .iter()
        .filter(|&&s| {
            bytes.get(s as usize..).is_some_and(|line| {
                line.starts_with(b"flow")
                    || line.starts_with(b"import")
                    || line.starts_with(b"\"\"\"")
            })
        })
        .count();
    heads + heads / 16 + 8
}

/// Moves the top-level statements into the module's items (reserved exactly: the item vector
/// of a large file is not copied as it grows).
fn add_items(module: &mut Module, stmts: &mut Vec<Stmt>, diagnostics: &mut Vec<Diagnostic>) {
    let items = stmts
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Empty))
        .count();
    module.items.reserve(items);
    for s in stmts.drain(..) {
        add_item(module, s, diagnostics);
    }
}

/// Moves a top-level statement into the module's items; a statement that is not a flow, an
/// import or a docstring is reported.
fn add_item(module: &mut Module, s: Stmt, diagnostics: &mut Vec<Diagnostic>) {
    match s.kind {
        StmtKind::Flow(f) => module.items.push(Item::Flow(*f)),
        StmtKind::Import(i) => module.items.push(Item::Import(i)),
        StmtKind::Docstring => module.items.push(Item::Docstring(s.span)),
        StmtKind::Empty => {}
        _ => {
            let d = Diagnostic::warning(
                codes::STATEMENT_OUTSIDE_FLOW,
                s.span,
                "a statement outside a flow is ignored",
            )
            .with_label("this belongs to no flow");
            diagnostics.push(d);
            module.items.push(Item::Stmt(s));
        }
    }
}

/// Whether a line of the text starts with `# meta: exclude from llm`.
fn excluded_from_llm(text: &str) -> bool {
    const MARK: &str = "\n# meta: exclude from llm";
    text.starts_with(MARK.trim_start())
        || memchr::memmem::find(text.as_bytes(), MARK.as_bytes()).is_some()
}

/// Line numbers as the reference reports them: 1-based, each expanded `...` line counting eight.
pub(super) struct LineIndex<'a> {
    starts: Vec<u32>,
    generated: &'a [u32],
}

impl LineIndex<'_> {
    fn line(&self, offset: u32) -> u32 {
        let physical = self.starts.partition_point(|&s| s <= offset) as u32;
        let extra = self.generated.partition_point(|&g| g < offset) as u32;
        physical + 7 * extra
    }

    /// [`LineIndex::line`] for offsets asked in increasing order: `at` is where the last answer
    /// was found (the line starts and `...` before that offset), and the search goes on from
    /// there, a few lines further on, instead of from the middle of the file.
    pub(super) fn line_after(&self, at: &mut (usize, usize), offset: u32) -> u32 {
        let (mut line, mut extra) = *at;
        if self
            .starts
            .get(line.wrapping_sub(1))
            .is_some_and(|&s| s > offset)
        {
            // Asked out of order: search the whole index.
            (line, extra) = (0, 0);
        }
        while self.starts.get(line).is_some_and(|&s| s <= offset) {
            line += 1;
        }
        while self.generated.get(extra).is_some_and(|&g| g < offset) {
            extra += 1;
        }
        *at = (line, extra);
        line as u32 + 7 * extra as u32
    }
}

fn set_lines(f: &mut Flow, lines: &LineIndex<'_>) {
    f.line = lines.line(f.span.start);
    let mut stack: Vec<&mut [Stmt]> = vec![&mut f.body];
    while let Some(body) = stack.pop() {
        for s in body.iter_mut() {
            match &mut s.kind {
                StmtKind::Flow(inner) => {
                    inner.line = lines.line(inner.span.start);
                    stack.push(&mut inner.body);
                }
                StmtKind::If {
                    branches,
                    else_body,
                } => {
                    stack.extend(branches.iter_mut().map(|b| &mut b.body[..]));
                    stack.extend(else_body.as_deref_mut());
                }
                StmtKind::When {
                    branches,
                    else_body,
                } => {
                    stack.extend(branches.iter_mut().map(|b| &mut b.body[..]));
                    stack.extend(else_body.as_deref_mut());
                }
                StmtKind::While { body, .. } => stack.push(body),
                _ => {}
            }
        }
    }
}

/// The text of the physical line holding `offset`, without its line break.
fn line_around(text: &str, offset: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let start = bytes
        .get(..offset.min(bytes.len()))
        .and_then(|b| b.iter().rposition(|&c| c == b'\n'))
        .map_or(0, |p| p + 1);
    let end = bytes
        .get(offset.min(bytes.len())..)
        .and_then(|b| b.iter().position(|&c| c == b'\n'))
        .map_or(bytes.len(), |p| offset + p);
    let end = if end > start && bytes.get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    };
    (start, end.max(start))
}

fn is_comment_line(text: &str, offset: usize) -> Option<(usize, usize)> {
    let (s, e) = line_around(text, offset);
    let line = text.get(s..e)?;
    let trimmed = line.trim_start_matches([' ', '\t']);
    trimmed.starts_with('#').then(|| (e - trimmed.len(), e))
}

/// The first token of the logical line holding token `idx`.
fn line_head(toks: &[Token], idx: usize) -> usize {
    let mut i = idx;
    while i > 0 {
        match toks.get(i - 1) {
            Some((_, Tok::Newline | Tok::Indent | Tok::Dedent, _)) | None => break,
            _ => i -= 1,
        }
    }
    i
}

#[cold]
fn translate(
    err: ParseError<usize, Tok, UserError>,
    toks: &[Token],
    text: &str,
    file: FileId,
) -> Diagnostic {
    let sp = |s: usize, e: usize| Span::new(file, s as u32, e as u32);
    match err {
        ParseError::User { error } => {
            let span = Span::new(file, error.start, error.end);
            match error.kind {
                UserErrorKind::PositionalAfterNamed => Diagnostic::error(
                    codes::POSITIONAL_AFTER_NAMED,
                    span,
                    "a positional argument cannot follow a named argument",
                )
                .with_label("positional argument after a named one"),
                UserErrorKind::NonLiteralDecoratorArgument => Diagnostic::error(
                    codes::NON_LITERAL_DECORATOR_ARGUMENT,
                    span,
                    "decorator arguments must be literals",
                )
                .with_label("not a literal")
                .with_help(
                    "use a string, a number, `True`, `False`, `None`, or a list or dict of those",
                ),
                UserErrorKind::MemberOnGroup => Diagnostic::error(
                    codes::MEMBER_ON_GROUP,
                    span,
                    "a member or `as` can only follow a single parenthesized flow, action or event name",
                )
                .with_label("not one named flow, action or event with its arguments"),
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => unexpected(toks, text, file, (l, tok, r), &expected),
        ParseError::ExtraToken { token: (l, tok, r) } => {
            unexpected(toks, text, file, (l, tok, r), &[])
        }
        ParseError::InvalidToken { location } => Diagnostic::error(
            codes::UNEXPECTED_TOKEN,
            sp(location, location),
            "unexpected text",
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            if expected.iter().any(|e| e.trim_matches('"') == "indent")
                && let Some(&(_, _, r)) = toks.last()
            {
                // Report as if the block's next line came right after its last token.
                let mut extended = toks.to_vec();
                extended.push((r, Tok::Dedent, r));
                return unexpected(&extended, text, file, (r, Tok::Dedent, r), &expected);
            }
            Diagnostic::error(
                codes::UNEXPECTED_END,
                sp(location, location),
                "unexpected end of file",
            )
            .with_label("the file ends here")
        }
    }
}

fn describe(text: &str, (l, tok, r): Token) -> String {
    match tok {
        Tok::Name | Tok::FuncName | Tok::Var | Tok::Int | Tok::Float => {
            format!("{} `{}`", tok.describe(), text.get(l..r).unwrap_or(""))
        }
        _ => tok.describe().to_string(),
    }
}

fn unexpected(
    toks: &[Token],
    text: &str,
    file: FileId,
    token: Token,
    expected: &[String],
) -> Diagnostic {
    let (l, tok, r) = token;
    let sp = |s: usize, e: usize| Span::new(file, s as u32, e as u32);
    let idx = toks.iter().position(|t| *t == token).unwrap_or(0);
    let prev = idx.checked_sub(1).and_then(|i| toks.get(i)).map(|t| t.1);
    let prev2 = idx.checked_sub(2).and_then(|i| toks.get(i)).map(|t| t.1);
    let expects = |name: &str| expected.iter().any(|e| e.trim_matches('"') == name);
    let head = toks.get(line_head(toks, idx)).copied();

    if matches!(tok, Tok::Newline | Tok::Indent | Tok::Dedent) {
        let at = if tok == Tok::Newline {
            l
        } else {
            toks.get(idx + 1).map_or(l, |t| t.0)
        };
        if let Some((s, e)) = is_comment_line(text, at) {
            let after_decorator = toks.first().map(|t| t.1) == Some(Tok::At)
                && !toks.iter().take(idx).any(|t| t.1 == Tok::Flow);
            if after_decorator {
                return Diagnostic::error(
                    codes::COMMENT_AFTER_DECORATOR,
                    sp(s, e),
                    "a comment line cannot stand between a decorator and its flow",
                )
                .with_label("move this comment above the decorator");
            }
            return Diagnostic::error(
                codes::MISPLACED_COMMENT,
                sp(s, e),
                "a full-line comment must be indented like the statements around it",
            )
            .with_label("this comment breaks the block structure");
        }
    }
    if tok == Tok::Indent {
        let (s, e) = toks.get(idx + 1).map_or((l, r), |t| line_around(text, t.0));
        let first = text.get(s..e).map_or(0, |line| {
            line.len() - line.trim_start_matches([' ', '\t']).len()
        });
        return Diagnostic::error(
            codes::UNEXPECTED_INDENT,
            sp(s + first, e),
            "unexpected indentation",
        )
        .with_label("this line is indented more than the block it is in");
    }
    if expects("indent") {
        let hs = toks
            .get(line_head(toks, idx.saturating_sub(1)))
            .map_or(l, |t| t.0);
        let he = prev
            .and_then(|_| toks.get(idx.saturating_sub(2)))
            .map_or(r, |t| t.2);
        let header = text
            .get(hs..he.max(hs))
            .unwrap_or("")
            .trim_end_matches(':')
            .trim_end();
        return Diagnostic::error(
            codes::MISSING_BLOCK,
            sp(hs, he.max(hs)),
            format!("expected an indented block after `{header}`"),
        )
        .with_label("this needs an indented body on the next lines");
    }
    let word = text.get(l..r).unwrap_or("");
    match tok {
        Tok::Else | Tok::Elif => {
            return Diagnostic::error(
                codes::DANGLING_BRANCH,
                sp(l, r),
                format!(
                    "`{}` without `if`",
                    if tok == Tok::Else { "else" } else { "elif" }
                ),
            )
            .with_label("no `if` block ends right before this line");
        }
        Tok::OrWhen => {
            return Diagnostic::error(codes::DANGLING_BRANCH, sp(l, r), "`or when` without `when`")
                .with_label("no `when` block ends right before this line");
        }
        Tok::And | Tok::Or
            if head.map(|h| h.1) == Some(Tok::Flow) || (head.map(|h| h.1) == Some(Tok::At)) =>
        {
            return Diagnostic::error(
                codes::OPERATOR_IN_FLOW_NAME,
                sp(l, r),
                format!("a flow name cannot contain `{word}`"),
            )
            .with_label("not allowed in a flow name");
        }
        Tok::Var
            if toks
                .get(line_head(toks, idx)..idx)
                .is_some_and(|line| line.iter().any(|t| t.1 == Tok::Arrow))
                && head.map(|h| h.1) == Some(Tok::Flow) =>
        {
            return Diagnostic::error(
                codes::RETURN_MEMBERS_WITHOUT_COMMAS,
                sp(l, r),
                "return members must be separated by commas",
            )
            .with_label("a `,` is missing before this member");
        }
        Tok::Name | Tok::FuncName
            if prev == Some(Tok::If) && idx > 0 && toks.get(idx - 1).is_some_and(|t| t.2 == l) =>
        {
            let whole = text.get(l.saturating_sub(2)..r).unwrap_or("");
            return Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                sp(l.saturating_sub(2), r),
                format!("a statement starting with `{whole}` reads as `if {word}`"),
            )
            .with_label("`if` is a keyword at the start of a statement, even inside a longer word")
            .with_help("rename the flow so that it does not start with `if`");
        }
        Tok::Name | Tok::FuncName if word == "if" && prev.is_some_and(Tok::ends_operand) => {
            return Diagnostic::error(
                codes::CONDITIONAL_EXPRESSION,
                sp(l, r),
                "conditional expressions (`a if c else b`) are not supported",
            )
            .with_label("a conditional expression starts here");
        }
        Tok::Str | Tok::LongStr | Tok::Nld
            if matches!(prev, Some(Tok::Str | Tok::LongStr | Tok::Nld)) =>
        {
            return Diagnostic::error(
                codes::ADJACENT_STRINGS,
                sp(l, r),
                "adjacent string literals are not joined; write one string",
            )
            .with_label("a second string right after the first");
        }
        Tok::LParen if expects("var") => return parenthesized(sp(l, r)),
        Tok::Int
        | Tok::Float
        | Tok::Str
        | Tok::LongStr
        | Tok::Nld
        | Tok::Minus
        | Tok::Plus
        | Tok::Tilde
        | Tok::LBracket
        | Tok::LBrace
        | Tok::True
        | Tok::False
        | Tok::None
        | Tok::Not
            if prev == Some(Tok::LParen) && !matches!(prev2, Some(Tok::Name | Tok::FuncName)) =>
        {
            let open = toks.get(idx - 1).map_or(l, |t| t.0);
            return parenthesized(sp(open, open + 1));
        }
        _ => {}
    }
    let mut d = Diagnostic::error(
        codes::UNEXPECTED_TOKEN,
        sp(l, r),
        format!("unexpected {}", describe(text, token)),
    )
    .with_label("not expected here");
    if let Some(help) = expected_help(expected) {
        d = d.with_help(help);
    }
    d
}

fn parenthesized(span: Span) -> Diagnostic {
    Diagnostic::error(codes::PARENTHESIZED_EXPRESSION, span, "parentheses cannot group an expression")
        .with_label("parenthesized sub-expression")
        .with_help("Colang 2.x expressions have no parenthesized sub-expressions; rewrite without them or use a variable")
}

fn expected_help(expected: &[String]) -> Option<String> {
    let mut names: Vec<&str> = expected
        .iter()
        .map(|e| match e.trim_matches('"') {
            "nl" => "end of line",
            "name" | "fname" => "a name",
            "var" => "a variable",
            "int" | "float" => "a number",
            "str" | "longstr" | "nld" => "a string",
            "indent" => "an indented block",
            "dedent" => "end of block",
            "exprparen" | "implicit" | "generate" | "error" => "",
            other => other,
        })
        .filter(|n| !n.is_empty())
        .collect();
    names.dedup();
    if names.is_empty() || names.len() > 6 {
        return None;
    }
    let list: Vec<String> = names
        .iter()
        .map(|n| {
            if n.contains(' ') {
                (*n).to_string()
            } else {
                format!("`{n}`")
            }
        })
        .collect();
    Some(format!("expected {}", list.join(", ")))
}

#[cfg(test)]
mod tests;
