//! Builds the Colang 1.0 tree nodes from the source ranges the grammar's actions receive: names
//! are read with their whitespace collapsed, `user`/`bot` lines are split into the message name
//! and what follows it, and conditions go through the shared condition language.

use stalwart_diagnostics::{FileId, Span};

use super::ast::*;
use super::layout::collapse_name;
use super::names::{self, Speaker};
use crate::expr::try_condition;
use smol_str::SmolStr;

/// A byte range of the source.
pub type R = (usize, usize);
/// An argument: its range, its name's range, its value's range.
pub type ArgR = (R, Option<R>, R);
/// An action call: the name's range and the arguments.
pub type CallR = (R, Vec<Box<ArgR>>);
/// An `else when` branch: its range, the first alternative, the other alternatives, the body.
pub type ElseWhenR = (R, R, Vec<R>, Option<Vec<Stmt>>);
/// An `else if` branch: its range, the condition, the body.
pub type ElseIfR = (R, Option<R>, Option<Vec<Stmt>>);
/// An `else` branch: its range, the body.
pub type ElseR = (R, Option<Vec<Stmt>>);

/// The nodes the parser's actions have built and not yet placed in their parent: the top-level
/// items of the file, and the statements and message lines of the blocks being read. An action
/// pushes its node; the rule of a block takes the last nodes pushed, as many as the block
/// matched. The parser's symbols then carry no large node, which makes every shift and
/// reduction cheaper.
///
/// INVARIANT: the last `n` statements (message lines) pushed when a block of `n` is reduced are
/// that block's, in order: the parser reduces bottom-up, so each nested block has taken its own
/// before the statement holding it is pushed. Error recovery only drops a statement that is not
/// complete (the error token is shifted at the innermost place a statement can start), so it
/// never drops a block's count while its statements are pending; message lines that a dropped
/// definition had pushed stay below every later push and are never taken.
#[derive(Debug, Default)]
pub struct Pending {
    pub items: Vec<Item>,
    pub stmts: Vec<Stmt>,
    /// `None` for a line already reported as an error.
    pub message_lines: Vec<Option<MessageLine>>,
}

impl Pending {
    /// Forgets the nodes of a parse that failed.
    pub fn clear_blocks(&mut self) {
        self.stmts.clear();
        self.message_lines.clear();
    }

    /// The last `n` statements pushed, in order.
    pub fn take_stmts(&mut self, n: usize) -> Vec<Stmt> {
        let at = self.stmts.len().saturating_sub(n);
        self.stmts.split_off(at)
    }

    /// The last `n` message lines pushed, in order, without the erroneous ones.
    pub fn take_message_lines(&mut self, n: usize) -> Vec<MessageLine> {
        let at = self.message_lines.len().saturating_sub(n);
        let lines = self.message_lines.get(at..).unwrap_or(&[]);
        let mut out = Vec::with_capacity(lines.iter().filter(|l| l.is_some()).count());
        out.extend(self.message_lines.drain(at..).flatten());
        out
    }

    /// Turns the statement just pushed into a top-level item.
    pub fn stmt_item(&mut self) {
        if let Some(s) = self.stmts.pop() {
            self.items.push(Item::Stmt(s));
        }
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub fn span(file: FileId, (l, r): R) -> Span {
    Span::new(file, to_u32(l), to_u32(r))
}

fn slice(src: &str, (l, r): R) -> &str {
    src.get(l..r).unwrap_or("")
}

/// The text of a range with its whitespace collapsed.
pub fn name(src: &str, file: FileId, r: R) -> Text {
    Text {
        text: collapse_name(slice(src, r)),
        span: span(file, r),
    }
}

/// The text of a range as written.
pub fn raw(src: &str, file: FileId, r: R) -> Text {
    Text {
        text: SmolStr::new(super::lines::trim_str(slice(src, r))),
        span: span(file, r),
    }
}

fn empty_name(file: FileId, at: usize) -> Text {
    Text {
        text: SmolStr::default(),
        span: span(file, (at, at)),
    }
}

pub fn user_def(
    src: &str,
    file: FileId,
    header: R,
    end: usize,
    n: Option<R>,
    lines: Option<Vec<MessageLine>>,
) -> Item {
    let name = n.map_or_else(|| empty_name(file, header.1), |r| name(src, file, r));
    Item::User(UserDef {
        name,
        lines: lines.unwrap_or_default(),
        header: span(file, header),
        span: span(file, (header.0, end)),
    })
}

pub fn bot_def(
    src: &str,
    file: FileId,
    header: R,
    end: usize,
    n: Option<R>,
    lines: Option<Vec<MessageLine>>,
) -> Item {
    let name = n.map_or_else(|| empty_name(file, header.1), |r| name(src, file, r));
    Item::Bot(BotDef {
        name,
        lines: lines.unwrap_or_default(),
        header: span(file, header),
        span: span(file, (header.0, end)),
    })
}

#[allow(clippy::too_many_arguments)]
pub fn flow_def(
    src: &str,
    file: FileId,
    header: R,
    end: usize,
    mods: Vec<R>,
    subflow: bool,
    n: Option<R>,
    body: Option<Vec<Stmt>>,
) -> Item {
    let name = n.map(|r| name(src, file, r));
    let modifiers = mods
        .into_iter()
        .filter_map(|r| Modifier::from_word(slice(src, r)).map(|m| (m, span(file, r))))
        .collect();
    Item::Flow(FlowDef {
        kind: FlowKind::Define,
        id: name.as_ref().map(|n| n.text.clone()).unwrap_or_default(),
        name,
        subflow,
        modifiers,
        body: body.unwrap_or_default().into_boxed_slice(),
        header: span(file, header),
        span: span(file, (header.0, end)),
    })
}

pub fn named_flow(
    src: &str,
    file: FileId,
    header: R,
    end: usize,
    n: R,
    body: Option<Vec<Stmt>>,
) -> Item {
    let name = name(src, file, n);
    Item::Flow(FlowDef {
        kind: FlowKind::Named,
        id: name.text.clone(),
        name: Some(name),
        subflow: false,
        modifiers: Box::default(),
        body: body.unwrap_or_default().into_boxed_slice(),
        header: span(file, header),
        span: span(file, (header.0, end)),
    })
}

pub fn other_def(src: &str, file: FileId, header: R) -> Item {
    Item::Other(OtherDef {
        header: name(src, file, header),
        span: span(file, header),
    })
}

pub fn import(src: &str, file: FileId, whole: R, t: Option<R>) -> Item {
    let text = t.map(|r| slice(src, r).trim()).unwrap_or("");
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| {
            text.strip_prefix(*q)
                .map(|t| t.strip_suffix(*q).unwrap_or(t))
        })
        .unwrap_or(text);
    let name = unquoted.strip_prefix("bot/").unwrap_or(unquoted);
    Item::Import(Import {
        name: name.to_string(),
        span: span(file, whole),
    })
}

pub fn message_text(src: &str, file: FileId, r: R) -> MessageLine {
    MessageLine::Text(raw(src, file, r))
}

pub fn message_branch(
    src: &str,
    file: FileId,
    keyword: BranchKeyword,
    whole: R,
    c: Option<R>,
    lines: Option<Vec<MessageLine>>,
) -> MessageLine {
    MessageLine::Branch(Box::new(MessageBranch {
        keyword,
        condition: c.map(|r| condition(src, file, r)),
        lines: lines.unwrap_or_default(),
        span: span(file, whole),
    }))
}

/// A condition: raw text, parsed when it fits the condition language.
pub fn condition(src: &str, file: FileId, r: R) -> Condition {
    let text = slice(src, r);
    let expr = match try_condition(file, text, to_u32(r.0)) {
        Some(e) => ConditionExpr::Parsed(e),
        None => ConditionExpr::Unparsed,
    };
    Condition {
        text: SmolStr::new(text.trim()),
        span: span(file, r),
        expr,
    }
}

fn stmt(file: FileId, r: R, kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: span(file, r),
    }
}

/// Splits a `user`/`bot` line's text into the name (see [`names`]) and what follows.
fn split_message(src: &str, file: FileId, (l, r): R, speaker: Speaker) -> (Text, Option<R>) {
    let text = slice(src, (l, r));
    let cut = names::name_end(text, speaker);
    let name = text.get(..cut).unwrap_or("");
    let name_r = (l, l + name.trim_end().len());
    let rest = (l + cut < r).then_some((l + cut, r));
    (
        Text {
            text: collapse_name(name),
            span: span(file, name_r),
        },
        rest,
    )
}

/// The range `r` without a first word `says`.
fn skip_says(src: &str, (l, r): R) -> R {
    (r - names::drop_says(slice(src, (l, r))).len(), r)
}

fn user_ref(src: &str, file: FileId, r: R) -> UserRef {
    let (intent, rest) = split_message(src, file, r, Speaker::User);
    UserRef {
        intent,
        rest: rest.map(|r| Box::new(raw(src, file, r))),
        span: span(file, r),
    }
}

/// The intents of a `user` line or of `when user …`: the first part's range (its `says`
/// already dropped) and those of its `or user` parts, whose `says` the reference drops too.
fn user_refs(src: &str, file: FileId, first: R, others: Vec<R>) -> Vec<UserRef> {
    let mut refs: Vec<UserRef> = std::iter::once(first)
        .chain(others.into_iter().map(|r| skip_says(src, r)))
        .map(|r| user_ref(src, file, r))
        .collect();
    let texts: Vec<&str> = refs.iter().map(|u| u.intent.text.as_str()).collect();
    if let Some(rewritten) = names::rewrite_something(&texts) {
        for (u, name) in refs.iter_mut().zip(rewritten) {
            u.intent.text = SmolStr::from(name);
        }
    }
    refs
}

pub fn user_stmt(src: &str, file: FileId, whole: R, first: R, others: Vec<R>) -> Stmt {
    stmt(
        file,
        whole,
        StmtKind::User(user_refs(src, file, first, others)),
    )
}

pub fn bot_stmt(
    src: &str,
    file: FileId,
    whole: R,
    t: Option<R>,
    lines: Option<Vec<MessageLine>>,
) -> Stmt {
    let r = t.unwrap_or((whole.1, whole.1));
    let (mut message, rest) = split_message(src, file, r, Speaker::Bot);
    if let Some([name]) = names::rewrite_something(&[message.text.as_str()]).as_deref() {
        message.text = SmolStr::from(name.as_str());
    }
    let (utterance, rest) = match rest {
        Some((l, e)) if slice(src, (l, e)).starts_with('"') => {
            let text = slice(src, (l, e));
            let close = text
                .get(1..)
                .and_then(|t| t.find('"'))
                .map_or(text.len(), |i| i + 2);
            let utter = raw(src, file, (l, l + close));
            let after = l + close;
            let rest =
                (!slice(src, (after, e)).trim().is_empty()).then(|| raw(src, file, (after, e)));
            (Some(utter), rest)
        }
        other => (None, other.map(|r| raw(src, file, r))),
    };
    let lines = lines.unwrap_or_default();
    let extra = (utterance.is_some() || rest.is_some() || !lines.is_empty()).then(|| {
        Box::new(BotExtra {
            utterance,
            rest,
            lines,
        })
    });
    stmt(
        file,
        whole,
        StmtKind::Bot(BotRef {
            message,
            span: span(file, r),
            extra,
        }),
    )
}

/// `run $x = <call>` is laid out as `$x = run <call>` (see `layout::call`): the statement then
/// starts at the keyword, before the variable.
fn run_start(src: &str, (l, _): R, result: Option<R>, action: R) -> usize {
    let Some((_, var_end)) = result else {
        return l;
    };
    let between = slice(src, (var_end, action.0));
    if between
        .trim_start()
        .strip_prefix('=')
        .is_none_or(|r| !r.trim().is_empty())
    {
        return l;
    }
    let before = src.get(..l).unwrap_or("").trim_end_matches(' ');
    ["execute", "exec", "run"]
        .iter()
        .find(|k| before.ends_with(**k))
        .map_or(l, |k| before.len() - k.len())
}

pub fn run(src: &str, file: FileId, whole: R, result: Option<R>, (action, args): CallR) -> Stmt {
    let whole = (run_start(src, whole, result, action), whole.1);
    let result = result.map(|(l, r)| Text {
        text: SmolStr::new(slice(src, (l + 1, r))),
        span: span(file, (l, r)),
    });
    let args = args
        .into_iter()
        .map(|arg| {
            let (r, k, v) = *arg;
            Arg {
                name: k.map(|k| raw(src, file, k)),
                value: raw(src, file, v),
                span: span(file, r),
            }
        })
        .collect();
    stmt(
        file,
        whole,
        StmtKind::Run(Box::new(Run {
            result,
            action: name(src, file, action),
            args,
        })),
    )
}

pub fn set(src: &str, file: FileId, whole: R, (vl, vr): R, op: SetOp, value: Option<R>) -> Stmt {
    let target = Text {
        text: SmolStr::new(slice(src, (vl + 1, vr))),
        span: span(file, (vl, vr)),
    };
    stmt(
        file,
        whole,
        StmtKind::Set(Box::new(Set {
            target,
            op,
            value: value.map(|r| raw(src, file, r)),
        })),
    )
}

/// `set $x = e` / `set $x to e`.
pub fn set_keyword(src: &str, file: FileId, whole: R, t: Option<R>) -> Stmt {
    let Some((l, r)) = t else {
        return stmt(file, whole, StmtKind::Error);
    };
    let text = slice(src, (l, r));
    let var_len = text
        .strip_prefix('$')
        .map(|t| {
            1 + t
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(t.len())
        })
        .unwrap_or(0);
    let target = Text {
        text: SmolStr::new(text.get(1..var_len).unwrap_or("")),
        span: span(file, (l, l + var_len)),
    };
    let after = text.get(var_len..).unwrap_or("");
    let trimmed = after.trim_start();
    let skip = var_len + (after.len() - trimmed.len());
    let value_start = if let Some(rest) = trimmed.strip_prefix('=') {
        skip + 1 + (rest.len() - rest.trim_start().len())
    } else if let Some(rest) = trimmed.strip_prefix("to ") {
        skip + 3 + (rest.len() - rest.trim_start().len())
    } else {
        skip
    };
    let value = (l + value_start < r).then(|| raw(src, file, (l + value_start, r)));
    stmt(
        file,
        whole,
        StmtKind::Set(Box::new(Set {
            target,
            op: SetOp::Assign,
            value,
        })),
    )
}

pub fn do_stmt(src: &str, file: FileId, whole: R, t: Option<R>) -> Stmt {
    let text = t.map_or_else(|| empty_name(file, whole.1), |r| name(src, file, r));
    stmt(file, whole, StmtKind::Do(text))
}

pub fn event(src: &str, file: FileId, whole: R, t: Option<R>) -> Stmt {
    let text = t.map_or_else(|| empty_name(file, whole.1), |r| raw(src, file, r));
    stmt(file, whole, StmtKind::Event(text))
}

pub fn infer(src: &str, file: FileId, whole: R, t: Option<R>) -> Stmt {
    stmt(file, whole, StmtKind::Infer(t.map(|r| raw(src, file, r))))
}

#[allow(clippy::too_many_arguments)]
#[expect(
    clippy::vec_box,
    reason = "the grammar boxes branches so that the parser's symbols stay small"
)]
pub fn if_stmt(
    src: &str,
    file: FileId,
    head: R,
    end: usize,
    c: Option<R>,
    body: Option<Vec<Stmt>>,
    else_ifs: Vec<Box<ElseIfR>>,
    else_part: Option<Box<ElseR>>,
) -> Stmt {
    let first_end = else_ifs
        .first()
        .map(|e| e.0.0)
        .or(else_part.as_ref().map(|e| e.0.0))
        .unwrap_or(end);
    let mut branches = vec![CondBlock {
        condition: c.map(|r| condition(src, file, r)),
        body: body.unwrap_or_default(),
        span: span(file, (head.0, first_end)),
    }];
    for else_if in else_ifs {
        let (r, c, b) = *else_if;
        branches.push(CondBlock {
            condition: c.map(|r| condition(src, file, r)),
            body: b.unwrap_or_default(),
            span: span(file, r),
        });
    }
    let else_body = else_part.map(|e| e.1.unwrap_or_default());
    stmt(
        file,
        (head.0, end),
        StmtKind::If(If {
            branches,
            else_body,
        }),
    )
}

fn when_on(src: &str, file: FileId, first: R, others: Vec<R>) -> WhenOn {
    let text = slice(src, first);
    let word_len = text.find(char::is_whitespace).unwrap_or(text.len());
    let keyword = text.get(..word_len).unwrap_or("");
    let after = first.0 + word_len;
    let rest_r = (
        after
            + (slice(src, (after, first.1)).len()
                - slice(src, (after, first.1)).trim_start().len()),
        first.1,
    );
    // The reference reads an implicit event unless the keyword is followed by more text (`any`
    // excepted): `when user` alone waits for the event `user`.
    let alone = rest_r.0 >= rest_r.1 && keyword != "any";
    if keyword == "user" && !alone {
        return WhenOn::User(user_refs(src, file, skip_says(src, rest_r), others));
    }
    let rest_r = if keyword == "bot" {
        skip_says(src, rest_r)
    } else {
        rest_r
    };
    if matches!(keyword, "bot" | "event" | "flow" | "no" | "any") && !alone {
        let rest = (rest_r.0 < rest_r.1).then(|| raw(src, file, rest_r));
        return WhenOn::Other {
            keyword: SmolStr::new(keyword),
            rest,
        };
    }
    WhenOn::Other {
        keyword: SmolStr::new_inline("event"),
        rest: Some(raw(src, file, first)),
    }
}

#[allow(clippy::too_many_arguments)]
#[expect(
    clippy::vec_box,
    reason = "the grammar boxes branches so that the parser's symbols stay small"
)]
pub fn when_stmt(
    src: &str,
    file: FileId,
    head: R,
    end: usize,
    first: R,
    others: Vec<R>,
    body: Option<Vec<Stmt>>,
    else_whens: Vec<Box<ElseWhenR>>,
) -> Stmt {
    let first_end = else_whens.first().map_or(end, |e| e.0.0);
    let mut branches = vec![WhenBranch {
        on: when_on(src, file, first, others),
        body: body.unwrap_or_default(),
        span: span(file, (head.0, first_end)),
    }];
    for else_when in else_whens {
        let (r, a, o, b) = *else_when;
        branches.push(WhenBranch {
            on: when_on(src, file, a, o),
            body: b.unwrap_or_default(),
            span: span(file, r),
        });
    }
    stmt(file, (head.0, end), StmtKind::When(When { branches }))
}

pub fn while_stmt(
    src: &str,
    file: FileId,
    whole: R,
    c: Option<R>,
    body: Option<Vec<Stmt>>,
) -> Stmt {
    stmt(
        file,
        whole,
        StmtKind::While(Box::new(While {
            condition: c.map(|r| condition(src, file, r)),
            body: body.unwrap_or_default(),
        })),
    )
}

pub fn any(file: FileId, whole: R, body: Option<Vec<Stmt>>) -> Stmt {
    stmt(file, whole, StmtKind::Any(body.unwrap_or_default()))
}

/// Statements without text.
pub enum Simple {
    Break,
    Continue,
    Stop,
}

pub fn simple(file: FileId, whole: R, s: Simple) -> Stmt {
    let kind = match s {
        Simple::Break => StmtKind::Break,
        Simple::Continue => StmtKind::Continue,
        Simple::Stop => StmtKind::Stop,
    };
    stmt(file, whole, kind)
}

/// Statements with optional text.
pub enum WithText {
    Return,
    Priority,
    Meta,
    Label,
    Goto,
}

pub fn with_text(src: &str, file: FileId, whole: R, w: WithText, t: Option<R>) -> Stmt {
    let t = t.map(|r| raw(src, file, r));
    let kind = match w {
        WithText::Return => StmtKind::Return(t),
        WithText::Priority => StmtKind::Priority(t),
        WithText::Meta => StmtKind::Meta(t),
        WithText::Label => StmtKind::Label(t),
        WithText::Goto => StmtKind::Goto(t),
    };
    stmt(file, whole, kind)
}

pub fn generic(src: &str, file: FileId, whole: R, keyword: R, t: Option<R>) -> Stmt {
    stmt(
        file,
        whole,
        StmtKind::Generic {
            keyword: raw(src, file, keyword),
            rest: t.map(|r| Box::new(raw(src, file, r))),
        },
    )
}

pub fn error(file: FileId, whole: R) -> Stmt {
    stmt(file, whole, StmtKind::Error)
}
