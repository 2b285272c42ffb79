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

/// A condition read once, its terms numbered: what the enumeration evaluates.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Term(usize),
    Const(Json),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Compare(CompareOp, Box<Cond>, Box<Cond>),
    IsNone(Box<Cond>),
}

impl Cond {
    /// Its value when term `i` is `terms[i]` (a term past the end is null).
    pub fn eval(&self, terms: &[Json]) -> Json {
        match self {
            Cond::Term(i) => terms.get(*i).cloned().unwrap_or(Json::Null),
            Cond::Const(j) => j.clone(),
            Cond::Not(x) => Json::Bool(!x.eval(terms).truthy()),
            Cond::And(a, b) => Json::Bool(a.eval(terms).truthy() && b.eval(terms).truthy()),
            Cond::Or(a, b) => Json::Bool(a.eval(terms).truthy() || b.eval(terms).truthy()),
            Cond::Compare(op, l, r) => Json::Bool(compare(*op, &l.eval(terms), &r.eval(terms))),
            Cond::IsNone(x) => Json::Bool(x.eval(terms) == Json::Null),
        }
    }

    fn has_terms(&self) -> bool {
        match self {
            Cond::Term(_) => true,
            Cond::Const(_) => false,
            Cond::Not(x) | Cond::IsNone(x) => x.has_terms(),
            Cond::And(a, b) | Cond::Or(a, b) | Cond::Compare(_, a, b) => {
                a.has_terms() || b.has_terms()
            }
        }
    }
}

/// The terms of some conditions inside the exact fragment, and how each is read.
#[derive(Debug, Clone, Default)]
pub struct Fragment {
    keys: Vec<String>,
    /// Each term's reads beside its truth, by the term's number.
    reads: Vec<Vec<Read>>,
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
    /// Reads a condition, numbering its terms; `Err` when it is beyond the fragment.
    pub fn add(&mut self, body: &RecordBody, e: ExprIdx, depth: usize) -> Result<Cond, Beyond> {
        let at = |f: &mut Self, x: ExprIdx| f.add(body, x, depth + 1).map(Box::new);
        Ok(match node(body, e, depth) {
            Node::Term(k) => Cond::Term(self.term(k)),
            Node::Literal(j) => Cond::Const(j),
            Node::Not(x) => Cond::Not(at(self, x)?),
            Node::And(a, b) => Cond::And(at(self, a)?, at(self, b)?),
            Node::Or(a, b) => Cond::Or(at(self, a)?, at(self, b)?),
            Node::IsNone(x) => {
                let x = at(self, x)?;
                if let Cond::Term(i) = *x {
                    self.read(i, Read::IsNone);
                }
                Cond::IsNone(x)
            }
            Node::Compare(op, l, r) => {
                let (l, r) = (at(self, l)?, at(self, r)?);
                match (&*l, &*r) {
                    (Cond::Term(i), c) | (c, Cond::Term(i)) if !c.has_terms() => {
                        let read = Read::Compare {
                            op,
                            constant: c.eval(&[]),
                            term_left: matches!(*l, Cond::Term(_)),
                        };
                        self.read(*i, read);
                    }
                    (a, b) if a.has_terms() && b.has_terms() => return Err(Beyond),
                    _ => {}
                }
                Cond::Compare(op, l, r)
            }
        })
    }

    /// The terms' keys, by their numbers.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    fn term(&mut self, key: String) -> usize {
        if let Some(i) = self.keys.iter().position(|k| *k == key) {
            return i;
        }
        self.keys.push(key);
        self.reads.push(Vec::new());
        self.keys.len() - 1
    }

    fn read(&mut self, term: usize, read: Read) {
        if let Some(reads) = self.reads.get_mut(term)
            && !reads.contains(&read)
        {
            reads.push(read);
        }
    }

    /// The values that stand for each term's classes, by the term's number; `Err` when their
    /// combinations are more than [`MAX_COMBINATIONS`] (or a class has no value a JSON number
    /// can take).
    pub fn standing(&self) -> Result<Vec<Vec<Json>>, Beyond> {
        let mut combinations: usize = 1;
        let mut out = Vec::new();
        for reads in &self.reads {
            let values = standing_values(reads)?;
            combinations = combinations.saturating_mul(values.len());
            if combinations > MAX_COMBINATIONS {
                return Err(Beyond);
            }
            out.push(values);
        }
        Ok(out)
    }
}

/// Every combination of one value per term, as the next one after `at` (digits into
/// `standing`): `false` once past the last.
pub fn next_combination(at: &mut [usize], standing: &[Vec<Json>]) -> bool {
    for (digit, values) in at.iter_mut().zip(standing) {
        *digit += 1;
        if *digit < values.len() {
            return true;
        }
        *digit = 0;
    }
    false
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
