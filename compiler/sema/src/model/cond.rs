//! A rulebook's conditions with their names resolved: what each `$name` reads at run time.
//!
//! The syntax tree of a condition names variables; the check needs to know where each value
//! comes from. Resolving a condition on a path gives a [`Cond`]:
//!
//! - `$args.x` is the call's argument;
//! - `$config.…` (1.0) and `$system.config.…` (2.x) are the NeMo config's values, known when the
//!   rulebook is compiled and folded into literals (a key the config does not set is null);
//! - a variable the path set from a tool's call (`$x = execute tool`, `$x = await ToolAction()`)
//!   is what the latest call of that tool that ran in the session reported;
//! - a variable the path set to a literal is that literal;
//! - a value the check never has — the person's or the bot's message text and the other values
//!   NeMo's runtime keeps, a variable set from an action outside the catalogue, a function the
//!   check does not evaluate — is [`CondKind::Unknown`], with why: the path is possibly taken;
//! - any other `$name` is a fact (DESIGN §5.6: a fact nothing gives is false).

use std::collections::BTreeMap;

use serde_json::Value;
use stalwart_diagnostics::Span;
use stalwart_syntax::expr::{CmpOp, Expr, ExprKind, Literal, LogicOp};

/// A resolved condition, with the span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub kind: CondKind,
    pub span: Span,
}

/// The functions the check evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Len,
    IsStr,
    IsInt,
    IsFloat,
    IsBool,
    Str,
    Int,
    Float,
}

/// The string methods the check evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrMethod {
    Lower,
    Upper,
    Strip,
    StartsWith,
    EndsWith,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CondKind {
    Fact(String),
    Arg(String),
    Lit(Value),
    List(Vec<Cond>),
    Member {
        base: Box<Cond>,
        field: String,
    },
    Not(Box<Cond>),
    Logic {
        op: LogicOp,
        lhs: Box<Cond>,
        rhs: Box<Cond>,
    },
    Compare {
        op: CmpOp,
        lhs: Box<Cond>,
        rhs: Box<Cond>,
    },
    In {
        item: Box<Cond>,
        collection: Box<Cond>,
        negated: bool,
    },
    IsNone {
        expr: Box<Cond>,
        negated: bool,
    },
    Call {
        func: Func,
        args: Vec<Cond>,
    },
    Method {
        method: StrMethod,
        receiver: Box<Cond>,
        args: Vec<Cond>,
    },
    /// What the latest call of the tool that ran in the session reported.
    Result(String),
    /// A value the check never has, with why.
    Unknown(String),
}

/// Where a variable's value comes from, as a path sets it.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// `$x = execute tool` of a tool of the catalogue.
    Result(String),
    /// `$x = <literal>`.
    Value(Value),
    /// Set from something the check never has, with why.
    Unknown(String),
}

/// What resolving a condition needs: the path's variables, the NeMo config, and the tools of
/// the catalogue (a variable set from an action outside it is unknown).
pub struct Scope<'a> {
    pub bindings: &'a BTreeMap<String, Binding>,
    /// The NeMo config as one JSON object (`config.yml`'s keys); an empty object when there is
    /// none.
    pub config: &'a Value,
    /// The tools the catalogue declares, when compiled with one.
    pub tools: Option<&'a std::collections::BTreeSet<String>>,
}

/// Variables NeMo Guardrails' runtime keeps and the check never has: the person's and the
/// bot's messages, the intents a model chose, retrieved chunks, the event being handled.
pub const SYSTEM_VARIABLES: &[&str] = &[
    "user_message",
    "bot_message",
    "last_user_message",
    "last_bot_message",
    "user_intent",
    "bot_intent",
    "last_user_intent",
    "last_bot_intent",
    "relevant_chunks",
    "relevant_chunks_sep",
    "retrieved_relevant_chunks",
    "retrieved_for",
    "event",
    "generation_options",
    "triggered_input_rail",
    "triggered_output_rail",
    "user_tool_messages",
    "tool_calls",
    "llm_output",
    "transcript",
    "text",
];

/// Resolves a condition's names.
pub fn resolve(scope: &Scope<'_>, e: &Expr) -> Cond {
    let kind = match &e.kind {
        ExprKind::Fact(name) => resolve_var(scope, name),
        ExprKind::Arg(name) => CondKind::Arg(name.clone()),
        ExprKind::Lit(lit) => CondKind::Lit(literal(lit)),
        ExprKind::List(items) => CondKind::List(items.iter().map(|i| resolve(scope, i)).collect()),
        ExprKind::Member { base, field } => {
            let base = resolve(scope, base);
            match base.kind {
                CondKind::Lit(v) => CondKind::Lit(v.get(field).cloned().unwrap_or(Value::Null)),
                CondKind::Unknown(why) => CondKind::Unknown(why),
                _ => CondKind::Member {
                    base: Box::new(base),
                    field: field.clone(),
                },
            }
        }
        ExprKind::Not(inner) => CondKind::Not(Box::new(resolve(scope, inner))),
        ExprKind::Logic { op, lhs, rhs } => CondKind::Logic {
            op: *op,
            lhs: Box::new(resolve(scope, lhs)),
            rhs: Box::new(resolve(scope, rhs)),
        },
        ExprKind::Compare { op, lhs, rhs } => CondKind::Compare {
            op: *op,
            lhs: Box::new(resolve(scope, lhs)),
            rhs: Box::new(resolve(scope, rhs)),
        },
        ExprKind::In {
            item,
            collection,
            negated,
        } => CondKind::In {
            item: Box::new(resolve(scope, item)),
            collection: Box::new(resolve(scope, collection)),
            negated: *negated,
        },
        ExprKind::IsNone { expr, negated } => CondKind::IsNone {
            expr: Box::new(resolve(scope, expr)),
            negated: *negated,
        },
        ExprKind::Call { func, args } => match function(func) {
            Some(f) if args.len() == 1 => CondKind::Call {
                func: f,
                args: args.iter().map(|a| resolve(scope, a)).collect(),
            },
            Some(_) => CondKind::Unknown(format!("`{func}` takes one value here")),
            None => CondKind::Unknown(format!(
                "the function `{func}` is not one the check evaluates"
            )),
        },
        ExprKind::Method {
            receiver,
            name,
            args,
        } => match method(name) {
            Some(m) if args.len() == method_arity(m) => CondKind::Method {
                method: m,
                receiver: Box::new(resolve(scope, receiver)),
                args: args.iter().map(|a| resolve(scope, a)).collect(),
            },
            Some(_) => CondKind::Unknown(format!("`.{name}(…)` with other arguments")),
            None => CondKind::Unknown(format!(
                "the method `.{name}(…)` is not one the check evaluates"
            )),
        },
    };
    Cond { kind, span: e.span }
}

fn resolve_var(scope: &Scope<'_>, name: &str) -> CondKind {
    if let Some(binding) = scope.bindings.get(name) {
        return match binding {
            Binding::Result(tool) => CondKind::Result(tool.clone()),
            Binding::Value(v) => CondKind::Lit(v.clone()),
            Binding::Unknown(why) => CondKind::Unknown(why.clone()),
        };
    }
    match name {
        "config" => CondKind::Lit(scope.config.clone()),
        "system" => CondKind::Lit(serde_json::json!({"config": scope.config})),
        _ if SYSTEM_VARIABLES.contains(&name) => CondKind::Unknown(format!(
            "`${name}` is kept by NeMo Guardrails' runtime, and the check never has it"
        )),
        _ => CondKind::Fact(name.to_string()),
    }
}

pub(crate) fn literal(lit: &Literal) -> Value {
    match lit {
        // An integral number is written as one (`500`, not `500.0`); they compare alike.
        Literal::Number(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => {
            Value::from(*n as i64)
        }
        Literal::Number(n) => serde_json::Number::from_f64(*n)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Literal::Str(s) => Value::String(s.clone()),
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Null => Value::Null,
    }
}

fn function(name: &str) -> Option<Func> {
    Some(match name {
        "len" => Func::Len,
        "is_str" => Func::IsStr,
        "is_int" => Func::IsInt,
        "is_float" => Func::IsFloat,
        "is_bool" => Func::IsBool,
        "str" => Func::Str,
        "int" => Func::Int,
        "float" => Func::Float,
        _ => return None,
    })
}

fn method(name: &str) -> Option<StrMethod> {
    Some(match name {
        "lower" => StrMethod::Lower,
        "upper" => StrMethod::Upper,
        "strip" => StrMethod::Strip,
        "startswith" => StrMethod::StartsWith,
        "endswith" => StrMethod::EndsWith,
        _ => return None,
    })
}

fn method_arity(m: StrMethod) -> usize {
    match m {
        StrMethod::Lower | StrMethod::Upper | StrMethod::Strip => 0,
        StrMethod::StartsWith | StrMethod::EndsWith => 1,
    }
}

impl Cond {
    /// The condition in a fully parenthesised form, for tests and debugging (as
    /// `stalwart_syntax::expr::Expr::to_sexp` writes a condition, with `result(tool)` for a
    /// tool's result and `unknown` for what the check never has).
    pub fn to_sexp(&self) -> String {
        let list = |items: &[Cond]| {
            items
                .iter()
                .map(Cond::to_sexp)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match &self.kind {
            CondKind::Fact(n) => format!("${n}"),
            CondKind::Arg(n) => format!("$args.{n}"),
            CondKind::Lit(v) => v.to_string(),
            CondKind::List(items) => format!("[{}]", list(items)),
            CondKind::Member { base, field } => format!("{}.{field}", base.to_sexp()),
            CondKind::Not(inner) => format!("(not {})", inner.to_sexp()),
            CondKind::Logic { op, lhs, rhs } => {
                format!("({} {} {})", lhs.to_sexp(), op.as_str(), rhs.to_sexp())
            }
            CondKind::Compare { op, lhs, rhs } => {
                format!("({} {} {})", lhs.to_sexp(), op.as_str(), rhs.to_sexp())
            }
            CondKind::In {
                item,
                collection,
                negated,
            } => format!(
                "({} {}in {})",
                item.to_sexp(),
                if *negated { "not " } else { "" },
                collection.to_sexp()
            ),
            CondKind::IsNone { expr, negated } => format!(
                "({} is {}None)",
                expr.to_sexp(),
                if *negated { "not " } else { "" }
            ),
            CondKind::Call { func, args } => format!("{func:?}({})", list(args)).to_lowercase(),
            CondKind::Method {
                method,
                receiver,
                args,
            } => format!(
                "{}.{}({})",
                receiver.to_sexp(),
                format!("{method:?}").to_lowercase(),
                list(args)
            ),
            CondKind::Result(tool) => format!("result({tool})"),
            CondKind::Unknown(_) => "unknown".to_string(),
        }
    }

    /// The first reason this condition reads something the check never has, if it does.
    pub fn unknown(&self) -> Option<(&str, Span)> {
        if let CondKind::Unknown(why) = &self.kind {
            return Some((why, self.span));
        }
        self.children().into_iter().find_map(Cond::unknown)
    }

    /// The conditions directly inside this one.
    pub fn children(&self) -> Vec<&Cond> {
        match &self.kind {
            CondKind::Fact(_)
            | CondKind::Arg(_)
            | CondKind::Lit(_)
            | CondKind::Result(_)
            | CondKind::Unknown(_) => Vec::new(),
            CondKind::Member { base, .. } => vec![base],
            CondKind::Not(inner) => vec![inner],
            CondKind::IsNone { expr, .. } => vec![expr],
            CondKind::Logic { lhs, rhs, .. } | CondKind::Compare { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            CondKind::In {
                item, collection, ..
            } => vec![item, collection],
            CondKind::List(items) | CondKind::Call { args: items, .. } => items.iter().collect(),
            CondKind::Method { receiver, args, .. } => {
                std::iter::once(&**receiver).chain(args.iter()).collect()
            }
        }
    }
}

/// What the condition language reads, for the help of a condition it cannot read.
pub const SUPPORTED: &str = "a condition reads facts (`$name`), arguments (`$args.name`), what a \
    tool this flow ran returned (`$x = execute tool`, then `$x.field`), the config \
    (`$config.x`, `$system.config.x`), literals and lists, `== != < <= > >=`, `in` / `not in`, \
    `is None` / `is not None`, `len`, `is_str`, `is_int`, `is_float`, `is_bool`, `str`, `int`, \
    `float`, `.lower()`, `.upper()`, `.strip()`, `.startswith(…)`, `.endswith(…)`, `and`, `or`, \
    `not` and parentheses";
