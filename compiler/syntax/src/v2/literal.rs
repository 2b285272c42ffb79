//! Literal evaluation of decorator arguments, as Python's `literal_eval` reads them: strings
//! (escapes decoded), numbers, `True`/`False`/`None`, signed numbers, lists, sets and dicts.
//! Anything else is not a literal.

use super::ast::{DictEntry, Expr, ExprKind, Literal, UnaryOp};

/// The literal value of `e`, or `None` when `e` is not a literal.
pub(crate) fn literal(text: &str, e: &Expr) -> Option<Literal> {
    let src = text.get(e.span.range())?;
    Some(match &e.kind {
        ExprKind::None => Literal::None,
        ExprKind::True => Literal::Bool(true),
        ExprKind::False => Literal::Bool(false),
        ExprKind::Int => int(src),
        ExprKind::Float => Literal::Float(src.replace('_', "").parse().ok()?),
        ExprKind::Str => Literal::Str(unescape(src.get(1..src.len().checked_sub(1)?)?)),
        ExprKind::LongStr => Literal::Str(unescape(src.get(3..src.len().checked_sub(3)?)?)),
        ExprKind::Unary {
            op: op @ (UnaryOp::Minus | UnaryOp::Plus),
            operand,
        } => {
            let negate = *op == UnaryOp::Minus;
            match literal(text, operand)? {
                Literal::Int(i) if negate => Literal::Int(i.checked_neg()?),
                Literal::Float(f) if negate => Literal::Float(-f),
                Literal::BigInt(s) if negate => Literal::BigInt(format!("-{s}")),
                v @ (Literal::Int(_) | Literal::Float(_) | Literal::BigInt(_)) => v,
                _ => return None,
            }
        }
        ExprKind::List(items) => Literal::List(
            items
                .iter()
                .map(|i| literal(text, i))
                .collect::<Option<_>>()?,
        ),
        ExprKind::Set(items) => Literal::Set(
            items
                .iter()
                .map(|i| literal(text, i))
                .collect::<Option<_>>()?,
        ),
        ExprKind::Dict(entries) => Literal::Dict(
            entries
                .iter()
                .map(|d| match d {
                    DictEntry::Pair(k, v) => Some((literal(text, k)?, literal(text, v)?)),
                    DictEntry::Spread(_) => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

fn int(src: &str) -> Literal {
    let digits = src.replace('_', "");
    match digits.parse::<i64>() {
        Ok(i) => Literal::Int(i),
        Err(_) => Literal::BigInt(digits),
    }
}

/// Decodes Python string escapes; unknown escapes keep their backslash, as Python does.
pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n)
                    .filter_map(|_| chars.next_if(char::is_ascii_hexdigit))
                    .collect();
                match u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .filter(|_| hex.len() == n)
                {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(v));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}
