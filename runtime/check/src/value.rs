//! Reading the record's value arena: looking values up by index, comparing a JSON value of a call
//! with an archived record value (numbers compared as numbers, so `40` equals `40.0`; object
//! members compared whatever their order), and turning a record value back into JSON.
//!
//! A record's arenas are flat, so a hand-made record could make a value contain itself; every
//! walk here is bounded by [`MAX_DEPTH`] and never recurses without limit.

use serde_json::{Number, Value as Json};
use stalwart_record::{ArchivedRecordBody, ArchivedValue};

/// How deep the walks of this crate follow nested values and schemas.
pub const MAX_DEPTH: usize = 128;

/// The deepest a call's arguments, a reported result or a check's context may nest, counting
/// the outermost object or array as level 1. A history adds three levels around them (the
/// session, its entries, the entry), so whatever a check accepts is read back by any JSON reader
/// with the usual limit of 128 levels.
pub const MAX_NESTING: usize = 64;

/// Whether `value` nests deeper than `limit` levels of arrays and objects.
pub fn too_deep(value: &Json, limit: usize) -> bool {
    exceeds(value, 0, limit)
}

/// Where an object's members nest deeper than `limit` levels (the object itself is level 1),
/// as a JSON pointer to the first array or object past the limit; `None` when none does. On the
/// check's path: a flat call costs a look at each member, and nothing is allocated unless the
/// limit is passed.
pub fn deeper_than(members: &serde_json::Map<String, Json>, limit: usize) -> Option<String> {
    if !members.values().any(|m| exceeds(m, 1, limit)) {
        return None;
    }
    let mut pointer = Vec::new();
    for (name, member) in members {
        pointer.push(name.clone());
        if find_excess(member, 1, limit, &mut pointer) {
            return Some(render_pointer(&pointer));
        }
        pointer.pop();
    }
    None
}

/// Whether `value`, found under `depth` levels, goes past `limit`. Recurses at most `limit + 1`
/// times.
fn exceeds(value: &Json, depth: usize, limit: usize) -> bool {
    match value {
        Json::Array(items) => depth >= limit || items.iter().any(|v| exceeds(v, depth + 1, limit)),
        Json::Object(members) => {
            depth >= limit || members.values().any(|v| exceeds(v, depth + 1, limit))
        }
        _ => false,
    }
}

/// [`exceeds`], leaving `pointer` at the first array or object past the limit.
fn find_excess(value: &Json, depth: usize, limit: usize, pointer: &mut Vec<String>) -> bool {
    let children: Vec<(String, &Json)> = match value {
        Json::Array(items) => items.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
        Json::Object(members) => members.iter().map(|(k, v)| (k.clone(), v)).collect(),
        _ => return false,
    };
    if depth >= limit {
        return true;
    }
    for (key, child) in children {
        pointer.push(key);
        if find_excess(child, depth + 1, limit, pointer) {
            return true;
        }
        pointer.pop();
    }
    false
}

/// A JSON pointer (RFC 6901) from its reference tokens.
fn render_pointer(tokens: &[String]) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push('/');
        out.push_str(&token.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// The value at `idx` in the record's value arena, if there is one.
pub fn value(body: &ArchivedRecordBody, idx: u32) -> Option<&ArchivedValue> {
    body.values.get(usize::try_from(idx).ok()?)
}

/// Whether `json` equals the record's value at `idx` (JSON Schema equality: numbers as numbers,
/// arrays in order, objects as sets of members). A missing index equals nothing.
pub fn json_equals(body: &ArchivedRecordBody, json: &Json, idx: u32) -> bool {
    equals_at(body, json, idx, 0)
}

fn equals_at(body: &ArchivedRecordBody, json: &Json, idx: u32, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Some(stored) = value(body, idx) else {
        return false;
    };
    match (json, stored) {
        (Json::Null, ArchivedValue::Null) => true,
        (Json::Bool(a), ArchivedValue::Bool(b)) => a == b,
        (Json::Number(a), ArchivedValue::Number(b)) => number_equals_f64(a, b.to_native()),
        (Json::String(a), ArchivedValue::String(b)) => a.as_str() == b.as_str(),
        (Json::Array(items), ArchivedValue::Array(stored)) => {
            items.len() == stored.len()
                && items
                    .iter()
                    .zip(stored.iter())
                    .all(|(item, idx)| equals_at(body, item, idx.to_native(), depth + 1))
        }
        (Json::Object(members), ArchivedValue::Object(stored)) => {
            members.len() == stored.len()
                && stored.iter().all(|member| {
                    members
                        .get(member.0.as_str())
                        .is_some_and(|json| equals_at(body, json, member.1.to_native(), depth + 1))
                })
                // Both ways, so a stored object with a repeated key cannot pass for another.
                && members.keys().all(|key| stored.iter().any(|member| member.0.as_str() == key))
        }
        _ => false,
    }
}

/// Whether a JSON number equals an `f64`, as numbers: integers are compared exactly.
pub fn number_equals_f64(a: &Number, b: f64) -> bool {
    match as_integer(a) {
        Some(a) => integral_f64(b) == Some(a),
        None => a.as_f64() == Some(b),
    }
}

/// Whether two JSON numbers are equal as numbers (`40.00` and `40` are).
pub fn number_equals(a: &Number, b: &Number) -> bool {
    match (as_integer(a), as_integer(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(_), None) => b.as_f64().is_some_and(|b| number_equals_f64(a, b)),
        (None, _) => a.as_f64().is_some_and(|a| number_equals_f64(b, a)),
    }
}

/// A JSON integer (`i64` or `u64`) widened to `i128`; `None` for a number with a fraction part.
fn as_integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// `f` as an integer, when it is a whole number within `i128`'s reach of the `i64`/`u64` range.
fn integral_f64(f: f64) -> Option<i128> {
    // 2^64 bounds both i64 and u64; beyond it no JSON integer can be equal.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0;
    if f.is_finite() && f.fract() == 0.0 && f.abs() <= LIMIT {
        // INVARIANT: `f` is whole and within ±2^64, so the cast is exact.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "whole and in range, checked above"
        )]
        Some(f as i128)
    } else {
        None
    }
}

/// The record's value at `idx` as JSON (whole numbers come back as integers); `None` when an index is missing or values nest deeper than
/// [`MAX_DEPTH`].
pub fn to_json(body: &ArchivedRecordBody, idx: u32) -> Option<Json> {
    to_json_at(body, idx, 0)
}

fn to_json_at(body: &ArchivedRecordBody, idx: u32, depth: usize) -> Option<Json> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match value(body, idx)? {
        ArchivedValue::Null => Json::Null,
        ArchivedValue::Bool(b) => Json::Bool(*b),
        ArchivedValue::Number(n) => {
            let n = n.to_native();
            if let Some(i) = integral_f64(n).and_then(|i| i64::try_from(i).ok()) {
                Json::Number(i.into())
            } else {
                Json::Number(Number::from_f64(n)?)
            }
        }
        ArchivedValue::String(s) => Json::String(s.as_str().to_owned()),
        ArchivedValue::Array(items) => Json::Array(
            items
                .iter()
                .map(|idx| to_json_at(body, idx.to_native(), depth + 1))
                .collect::<Option<_>>()?,
        ),
        ArchivedValue::Object(members) => Json::Object(
            members
                .iter()
                .map(|member| {
                    let value = to_json_at(body, member.1.to_native(), depth + 1)?;
                    Some((member.0.as_str().to_owned(), value))
                })
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> Json {
        let mut v = Json::from(1);
        for _ in 0..levels {
            v = Json::Array(vec![v]);
        }
        v
    }

    #[test]
    fn nesting_is_counted_from_the_outermost_object() {
        let mut members = serde_json::Map::new();
        members.insert("a".into(), Json::from(1));
        members.insert("deep".into(), nested(63));
        assert_eq!(deeper_than(&members, 64), None, "64 levels with the object");
        members.insert("deep".into(), nested(64));
        let pointer = format!("/deep{}", "/0".repeat(63));
        assert_eq!(deeper_than(&members, 64), Some(pointer));
        assert!(!too_deep(&nested(64), 64));
        assert!(too_deep(&nested(65), 64));
        let mut odd = serde_json::Map::new();
        odd.insert("a/b~c".into(), nested(70));
        assert!(deeper_than(&odd, 64).is_some_and(|p| p.starts_with("/a~1b~0c/0")));
    }
}
