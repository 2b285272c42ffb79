//! The condition language in its own theories, as the tool check reads a condition (runtime
//! `check::gate`): every fact, argument and opaque expression is one JSON value (a *term*);
//! `< <= > >=` hold only between two numbers; `==` is JSON equality (numbers as numbers); a
//! condition holds when its value is truthy. An argument the call does not give, and a fact
//! nothing gives, is null, so a term may be any JSON value: null, a boolean, a number, a text, a
//! list or a mapping.
//!
//! Terms are named by [`term_key`]: a fact or an argument by its name, an expression the
//! analysis does not look into (a member, a call, `in`, a tool's result) by its structure, so
//! two nodes that compute the same thing are the same value, and `Unknown` (something the check
//! never has) by its node, a free value of its own.
//!
//! The decision procedure the enumeration engine runs ([`Fragment`]) is exact where every term
//! is only read as a truth, tested with `is None`, or compared with a constant: each term's
//! values then fall into finitely many classes (the intervals between its numeric constants,
//! each constant, the texts it is not compared with, …) and one value of each class that the
//! conditions tell apart stands for the class. A comparison of two terms is beyond it.

use std::collections::BTreeMap;

use stalwart_record::{CompareOp, Expr, ExprIdx, RecordBody, Value, ValueIdx};

use crate::gate::MAX_DEPTH;

/// A JSON value as the condition language compares it. Lists and mappings are compared by their
/// canonical text (numbers as numbers, a mapping's members sorted).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    /// A list or a mapping, by its canonical text: `[]` and `{}` are the empty ones.
    Other(String),
}

/// The canonical text of the empty list and the empty mapping: the only falsy lists and
/// mappings.
pub const EMPTY_LIST: &str = "[]";
pub const EMPTY_MAP: &str = "{}";

impl Json {
    /// Truthy: `true`, a number other than 0, a non-empty text, list or mapping.
    pub fn truthy(&self) -> bool {
        match self {
            Json::Null => false,
            Json::Bool(b) => *b,
            Json::Num(n) => *n != 0.0,
            Json::Str(s) => !s.is_empty(),
            Json::Other(o) => o != EMPTY_LIST && o != EMPTY_MAP,
        }
    }
}

/// A comparison as the check makes it: JSON equality, or an order between two numbers.
pub fn compare(op: CompareOp, l: &Json, r: &Json) -> bool {
    let nums = match (l, r) {
        (Json::Num(a), Json::Num(b)) => Some((*a, *b)),
        _ => None,
    };
    match op {
        CompareOp::Eq => l == r,
        CompareOp::Ne => l != r,
        CompareOp::Lt => nums.is_some_and(|(a, b)| a < b),
        CompareOp::Le => nums.is_some_and(|(a, b)| a <= b),
        CompareOp::Gt => nums.is_some_and(|(a, b)| a > b),
        CompareOp::Ge => nums.is_some_and(|(a, b)| a >= b),
    }
}

/// A literal of the record as a [`Json`]; `None` when it names a value that is not there.
pub fn literal(body: &RecordBody, v: ValueIdx) -> Option<Json> {
    Some(match body.values.get(v as usize)? {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        // 0 and -0 are one number.
        Value::Number(n) => Json::Num(if *n == 0.0 { 0.0 } else { *n }),
        Value::String(s) => Json::Str(s.clone()),
        other => Json::Other(canonical(body, other, 0)?),
    })
}

fn canonical(body: &RecordBody, v: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let at = |i: &ValueIdx| canonical(body, body.values.get(*i as usize)?, depth + 1);
    Some(match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("{:?}", if *n == 0.0 { 0.0 } else { *n }),
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => {
            let items: Option<Vec<String>> = items.iter().map(at).collect();
            format!("[{}]", items?.join(","))
        }
        Value::Object(members) => {
            let mut members: Vec<String> = members
                .iter()
                .map(|(k, v)| Some(format!("{k:?}:{}", at(v)?)))
                .collect::<Option<_>>()?;
            members.sort();
            members.dedup();
            format!("{{{}}}", members.join(","))
        }
    })
}

/// What a node of a condition is to the theories.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A value the state gives: a fact, an argument, or an expression not looked into.
    Term(String),
    Literal(Json),
    Not(ExprIdx),
    And(ExprIdx, ExprIdx),
    Or(ExprIdx, ExprIdx),
    Compare(CompareOp, ExprIdx, ExprIdx),
    IsNone(ExprIdx),
}

/// Reads node `e` at `depth`. A node past the depth limit, or naming a node or value that is
/// not there, is null, as the check reads it; so is one naming a node that is not before it
/// (the lowering writes every node after the nodes it reads, so a condition is never a cycle).
pub fn node(body: &RecordBody, e: ExprIdx, depth: usize) -> Node {
    let null = Node::Literal(Json::Null);
    if depth > MAX_DEPTH {
        return null;
    }
    let Some(expr) = body.exprs.get(e as usize) else {
        return null;
    };
    if children(expr).iter().any(|&c| c >= e) {
        return null;
    }
    match expr {
        Expr::Literal(v) => literal(body, *v).map_or(null, Node::Literal),
        Expr::Not(x) => Node::Not(*x),
        Expr::And(a, b) => Node::And(*a, *b),
        Expr::Or(a, b) => Node::Or(*a, *b),
        Expr::Compare { op, left, right } => Node::Compare(*op, *left, *right),
        Expr::IsNone(x) => Node::IsNone(*x),
        _ => term_key(body, e, depth).map_or(null, Node::Term),
    }
}

/// The nodes a node reads.
fn children(expr: &Expr) -> Vec<ExprIdx> {
    match expr {
        Expr::Not(x) | Expr::IsNone(x) => vec![*x],
        Expr::And(a, b) | Expr::Or(a, b) => vec![*a, *b],
        Expr::Compare { left, right, .. } => vec![*left, *right],
        Expr::Member { base, .. } => vec![*base],
        Expr::In { item, collection } => vec![*item, *collection],
        Expr::List(items) | Expr::Call { args: items, .. } => items.clone(),
        Expr::Method { receiver, args, .. } => std::iter::once(*receiver)
            .chain(args.iter().copied())
            .collect(),
        Expr::Fact(_) | Expr::Arg(_) | Expr::Literal(_) | Expr::Result(_) | Expr::Unknown => {
            Vec::new()
        }
    }
}

/// The name of the term node `e` is: what makes two nodes one value.
pub fn term_key(body: &RecordBody, e: ExprIdx, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let expr = body.exprs.get(e as usize)?;
    if children(expr).iter().any(|&c| c >= e) {
        return None;
    }
    let at = |x: &ExprIdx| term_key(body, *x, depth + 1);
    let all = |xs: &[ExprIdx]| -> Option<String> {
        Some(xs.iter().map(at).collect::<Option<Vec<_>>>()?.join(", "))
    };
    Some(match expr {
        Expr::Fact(name) => format!("fact {name}"),
        Expr::Arg(name) => format!("arg {name}"),
        Expr::Literal(v) => canonical(body, body.values.get(*v as usize)?, 0)?,
        Expr::Not(x) => format!("not ({})", at(x)?),
        Expr::And(a, b) => format!("({}) and ({})", at(a)?, at(b)?),
        Expr::Or(a, b) => format!("({}) or ({})", at(a)?, at(b)?),
        Expr::Compare { op, left, right } => format!("({}) {op:?} ({})", at(left)?, at(right)?),
        Expr::Member { base, field } => format!("({}).{field}", at(base)?),
        Expr::List(items) => format!("[{}]", all(items)?),
        Expr::In { item, collection } => format!("({}) in ({})", at(item)?, at(collection)?),
        Expr::IsNone(x) => format!("({}) is None", at(x)?),
        Expr::Call { func, args } => format!("{func:?}({})", all(args)?),
        Expr::Method {
            method,
            receiver,
            args,
        } => format!("({}).{method:?}({})", at(receiver)?, all(args)?),
        Expr::Result(tool) => format!("result {tool}"),
        Expr::Unknown => format!("unknown #{e}"),
    })
}

/// The most combinations of term values the enumeration evaluates for one question.
pub const MAX_COMBINATIONS: usize = 1 << 16;

/// The terms of some conditions inside the exact fragment, and the values that stand for each
/// term's classes.
#[derive(Debug, Clone, Default)]
pub struct Fragment {
    /// Each term's constants, with the comparison and the side the term is on.
    reads: BTreeMap<String, Vec<Read>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Read {
    /// Compared with a constant: `term op constant` (`term_left`), or `constant op term`.
    Compare {
        op: CompareOp,
        constant: Json,
        term_left: bool,
    },
    IsNone,
}

/// Why conditions are beyond the exact fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beyond;

impl Fragment {
    /// Adds a condition's terms; `Err` when it is beyond the fragment.
    pub fn add(&mut self, body: &RecordBody, e: ExprIdx, depth: usize) -> Result<(), Beyond> {
        match node(body, e, depth) {
            Node::Term(k) => {
                self.reads.entry(k).or_default();
                Ok(())
            }
            Node::Literal(_) => Ok(()),
            Node::Not(x) => self.add(body, x, depth + 1),
            Node::And(a, b) | Node::Or(a, b) => {
                self.add(body, a, depth + 1)?;
                self.add(body, b, depth + 1)
            }
            Node::IsNone(x) => match node(body, x, depth + 1) {
                Node::Term(k) => {
                    self.reads.entry(k).or_default().push(Read::IsNone);
                    Ok(())
                }
                _ => self.add(body, x, depth + 1),
            },
            Node::Compare(op, l, r) => {
                let (ln, rn) = (node(body, l, depth + 1), node(body, r, depth + 1));
                let constant = |n: &Node, x: ExprIdx| {
                    if terms_free(body, x, depth + 1) {
                        eval(body, x, &BTreeMap::new(), depth + 1)
                    } else {
                        None
                    }
                    .filter(|_| !matches!(n, Node::Term(_)))
                };
                match (&ln, &rn) {
                    (Node::Term(k), _) => {
                        let c = constant(&rn, r).ok_or(Beyond)?;
                        self.compared(k, op, c, true);
                        Ok(())
                    }
                    (_, Node::Term(k)) => {
                        let c = constant(&ln, l).ok_or(Beyond)?;
                        self.compared(k, op, c, false);
                        Ok(())
                    }
                    _ if terms_free(body, l, depth + 1) || terms_free(body, r, depth + 1) => {
                        self.add(body, l, depth + 1)?;
                        self.add(body, r, depth + 1)
                    }
                    _ => Err(Beyond),
                }
            }
        }
    }

    fn compared(&mut self, key: &str, op: CompareOp, constant: Json, term_left: bool) {
        let reads = self.reads.entry(key.to_string()).or_default();
        let read = Read::Compare {
            op,
            constant,
            term_left,
        };
        if !reads.contains(&read) {
            reads.push(read);
        }
    }

    /// Every assignment of one standing value to each term, or `Err` past
    /// [`MAX_COMBINATIONS`] (or when a class has no value a JSON number can take).
    pub fn assignments(&self) -> Result<Vec<BTreeMap<String, Json>>, Beyond> {
        let mut out = vec![BTreeMap::new()];
        for (key, reads) in &self.reads {
            let values = standing_values(reads)?;
            if out.len().saturating_mul(values.len()) > MAX_COMBINATIONS {
                return Err(Beyond);
            }
            out = out
                .into_iter()
                .flat_map(|a| {
                    values.iter().map(move |v| {
                        let mut a = a.clone();
                        a.insert(key.clone(), v.clone());
                        a
                    })
                })
                .collect();
        }
        Ok(out)
    }
}

/// One value of each class of values the reads tell apart.
fn standing_values(reads: &[Read]) -> Result<Vec<Json>, Beyond> {
    let mut numbers = vec![0.0];
    let mut texts = vec![String::new()];
    let mut others = vec![EMPTY_LIST.to_string(), EMPTY_MAP.to_string()];
    for r in reads {
        match r {
            Read::Compare {
                constant: Json::Num(n),
                ..
            } => numbers.push(*n),
            Read::Compare {
                constant: Json::Str(s),
                ..
            } => texts.push(s.clone()),
            Read::Compare {
                constant: Json::Other(o),
                ..
            } => others.push(o.clone()),
            _ => {}
        }
    }
    numbers.sort_by(f64::total_cmp);
    numbers.dedup();
    let mut candidates = vec![Json::Null, Json::Bool(false), Json::Bool(true)];
    let (Some(&low), Some(&high)) = (numbers.first(), numbers.last()) else {
        return Err(Beyond);
    };
    let mut points = vec![low - low.abs().max(1.0)];
    for pair in numbers.windows(2) {
        if let [a, b] = pair {
            points.push(*a);
            let mid = a / 2.0 + b / 2.0;
            // Two neighbouring floats: no JSON number lies between them, reals do.
            if mid <= *a || mid >= *b {
                return Err(Beyond);
            }
            points.push(mid);
        }
    }
    points.push(high);
    points.push(high + high.abs().max(1.0));
    if points.iter().any(|p| !p.is_finite()) {
        return Err(Beyond);
    }
    candidates.extend(points.into_iter().map(Json::Num));
    let longest = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    texts.push("~".repeat(longest + 1));
    texts.dedup();
    candidates.extend(texts.into_iter().map(Json::Str));
    others.push("#another".to_string());
    candidates.extend(others.into_iter().map(Json::Other));
    let signature = |v: &Json| -> Vec<bool> {
        std::iter::once(v.truthy())
            .chain(reads.iter().map(|r| match r {
                Read::IsNone => *v == Json::Null,
                Read::Compare {
                    op,
                    constant,
                    term_left: true,
                } => compare(*op, v, constant),
                Read::Compare { op, constant, .. } => compare(*op, constant, v),
            }))
            .collect()
    };
    let mut seen: Vec<Vec<bool>> = Vec::new();
    let mut out = Vec::new();
    for v in candidates {
        let s = signature(&v);
        if !seen.contains(&s) {
            seen.push(s);
            out.push(v);
        }
    }
    Ok(out)
}

/// Whether node `e` reads no term.
fn terms_free(body: &RecordBody, e: ExprIdx, depth: usize) -> bool {
    match node(body, e, depth) {
        Node::Term(_) => false,
        Node::Literal(_) => true,
        Node::Not(x) | Node::IsNone(x) => terms_free(body, x, depth + 1),
        Node::And(a, b) | Node::Or(a, b) | Node::Compare(_, a, b) => {
            terms_free(body, a, depth + 1) && terms_free(body, b, depth + 1)
        }
    }
}

/// Node `e`'s value when each term has its value in `terms`; `None` when a term has no value.
pub fn eval(
    body: &RecordBody,
    e: ExprIdx,
    terms: &BTreeMap<String, Json>,
    depth: usize,
) -> Option<Json> {
    let at = |x: ExprIdx| eval(body, x, terms, depth + 1);
    Some(match node(body, e, depth) {
        Node::Term(k) => terms.get(&k)?.clone(),
        Node::Literal(j) => j,
        Node::Not(x) => Json::Bool(!at(x)?.truthy()),
        Node::And(a, b) => Json::Bool(at(a)?.truthy() && at(b)?.truthy()),
        Node::Or(a, b) => Json::Bool(at(a)?.truthy() || at(b)?.truthy()),
        Node::Compare(op, l, r) => Json::Bool(compare(op, &at(l)?, &at(r)?)),
        Node::IsNone(x) => Json::Bool(at(x)? == Json::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(reads: &[Read]) -> Vec<Json> {
        standing_values(reads).unwrap()
    }

    #[test]
    fn a_term_read_only_as_a_truth_has_two_values() {
        assert_eq!(values(&[]), [Json::Null, Json::Bool(true)]);
    }

    #[test]
    fn a_number_compared_with_constants_has_a_value_in_each_interval_and_at_each_constant() {
        let gt = |n: f64| Read::Compare {
            op: CompareOp::Gt,
            constant: Json::Num(n),
            term_left: true,
        };
        let got = values(&[gt(100.0), gt(500.0)]);
        // Falsy, truthy, then at or below 100, between 100 and 500, above 500.
        assert_eq!(
            got,
            [
                Json::Null,
                Json::Bool(true),
                Json::Num(300.0),
                Json::Num(1000.0)
            ]
        );
    }

    #[test]
    fn lists_and_mappings_compare_by_their_canonical_text() {
        let body = RecordBody {
            values: vec![
                Value::Number(1.0),
                Value::Number(-0.0),
                Value::Array(vec![0, 1]),
                Value::Object(vec![("b".to_string(), 0), ("a".to_string(), 1)]),
            ],
            ..RecordBody::default()
        };
        assert_eq!(
            literal(&body, 2),
            Some(Json::Other("[1.0,0.0]".to_string()))
        );
        assert_eq!(
            literal(&body, 3),
            Some(Json::Other(r#"{"a":0.0,"b":1.0}"#.to_string()))
        );
    }
}
