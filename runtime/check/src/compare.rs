//! Comparing call values: JSON equality with numbers compared as numbers, truthiness, and
//! reading an earlier call's argument or result field.

use serde_json::{Map, Value};

use crate::session::{CallEntry, Session};

/// JSON equality; numbers compare as numbers (`40` equals `40.0`), objects as sets of members.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Objects up to this size are searched by a scan of their names, not by hashing the name.
const SMALL_OBJECT: usize = 8;

/// An object's member by name, as `Map::get` finds it; a call's few arguments are scanned, which
/// costs less than hashing the name.
#[inline]
pub fn member<'m>(members: &'m Map<String, Value>, name: &str) -> Option<&'m Value> {
    if members.len() <= SMALL_OBJECT {
        members
            .iter()
            .find_map(|(k, v)| (k.as_str() == name).then_some(v))
    } else {
        members.get(name)
    }
}

/// Truthy: `true`, a number other than 0, a non-empty text, list or mapping.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// An earlier call's argument `name`, or else its reported result's field `name`.
pub fn argument_or_result<'s>(
    session: &'s Session,
    call: &'s CallEntry,
    name: &str,
) -> Option<&'s Value> {
    call.arguments
        .get(name)
        .or_else(|| session.result_of(call).and_then(|r| r.get(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_as_numbers() {
        assert!(json_eq(&json!(40), &json!(40.0)));
        assert!(!json_eq(&json!(40), &json!("40")));
        assert!(json_eq(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
    }

    #[test]
    fn truthiness_follows_the_facts_rule() {
        for (v, t) in [
            (json!(true), true),
            (json!(0), false),
            (json!(0.5), true),
            (json!(""), false),
            (json!("paid"), true),
            (json!([]), false),
            (json!({"a": 1}), true),
            (json!(null), false),
        ] {
            assert_eq!(truthy(&v), t, "{v}");
        }
    }
}
