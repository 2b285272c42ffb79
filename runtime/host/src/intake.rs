//! Taking JSON in, strictly: from the command line as written, from a file (`@FILE`) or from
//! standard input (`-`), so calls over the command line's size limit can be checked.
//!
//! JSON that repeats a key in an object is refused (with the last one winning, a URL in the
//! first would never be checked, and a token for one value would cover another), and so is JSON
//! nested deeper than [`MAX_NESTING`] levels of arrays and objects (what a check writes must
//! always be read back). Errors carry the input's name, line and column.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

pub use stalwart_runtime::value::MAX_NESTING;

use crate::{
    DUPLICATE_KEY, HostError, INPUT_UNREADABLE, NOT_JSON, Place, STDIN_TWICE, TOO_DEEP, WRONG_SHAPE,
};

/// The JSON a history file may nest: a call's arguments or a result at [`MAX_NESTING`], inside
/// the session, its entries and the entry.
pub const HISTORY_NESTING: usize = MAX_NESTING + 3;

/// The text of one input, with the name errors give it (the flag, or the file's path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub name: String,
    pub text: String,
}

/// Reads the inputs of several flags, each given as JSON text, `@FILE` or `-` (standard input,
/// which at most one of them may name). `None` values stay `None`.
pub fn read_flags<const N: usize>(
    flags: [(&str, Option<&str>); N],
) -> Result<[Option<Text>; N], HostError> {
    let stdin_users: Vec<&str> = flags
        .iter()
        .filter(|(_, v)| *v == Some("-"))
        .map(|(f, _)| *f)
        .collect();
    if stdin_users.len() > 1 {
        return Err(HostError::new(
            STDIN_TWICE,
            format!(
                "standard input (`-`) is named by {}: one flag at most may read it",
                stdin_users.join(" and ")
            ),
        ));
    }
    let mut out: [Option<Text>; N] = std::array::from_fn(|_| None);
    for ((flag, value), slot) in flags.iter().zip(out.iter_mut()) {
        if let Some(v) = value {
            *slot = Some(read_flag(flag, v)?);
        }
    }
    Ok(out)
}

/// The text a flag's value stands for: itself, the file `@FILE` names, or standard input.
pub fn read_flag(flag: &str, value: &str) -> Result<Text, HostError> {
    if value == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            HostError::new(
                INPUT_UNREADABLE,
                format!("{flag}: cannot read standard input: {e}"),
            )
        })?;
        return Ok(Text {
            name: format!("{flag} (standard input)"),
            text,
        });
    }
    if let Some(path) = value.strip_prefix('@') {
        return Ok(Text {
            name: path.to_string(),
            text: read_text(Path::new(path), flag)?,
        });
    }
    Ok(Text {
        name: flag.to_string(),
        text: value.to_string(),
    })
}

/// A file's text, with an error naming what it was for.
pub fn read_text(path: &Path, what: &str) -> Result<String, HostError> {
    let bytes = std::fs::read(path).map_err(|e| {
        HostError::new(
            INPUT_UNREADABLE,
            format!("{what}: cannot read `{}`: {e}", path.display()),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        HostError::new(
            INPUT_UNREADABLE,
            format!(
                "{what}: `{}` is not UTF-8 text (byte {at} is not)",
                path.display()
            ),
        )
    })
}

/// Parses JSON strictly: a repeated key, nesting deeper than `limit`, or anything after the value
/// is an error at its line and column.
pub fn parse_strict(input: &Text, limit: usize) -> Result<Value, HostError> {
    let mut de = serde_json::Deserializer::from_str(&input.text);
    let parsed = Strict { depth: 0, limit }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| json_error(input, &e))
}

/// A JSON object, strictly parsed, with at most [`MAX_NESTING`] levels.
pub fn object(input: &Text) -> Result<Map<String, Value>, HostError> {
    match parse_strict(input, MAX_NESTING)? {
        Value::Object(map) => Ok(map),
        other => Err(HostError::new(
            WRONG_SHAPE,
            format!("{} must be a JSON object, not {}", input.name, kind(&other)),
        )),
    }
}

/// An object of strings (`--origins`).
pub fn string_map(input: &Text) -> Result<BTreeMap<String, String>, HostError> {
    object(input)?
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            other => Err(HostError::new(
                WRONG_SHAPE,
                format!(
                    "{}: the origin of `{k}` must be a string, not {}",
                    input.name,
                    kind(&other)
                ),
            )),
        })
        .collect()
}

/// An object of strings or lists of strings (`--labels`).
pub fn list_map(input: &Text) -> Result<BTreeMap<String, Vec<String>>, HostError> {
    let shape = |k: &str| {
        HostError::new(
            WRONG_SHAPE,
            format!(
                "{}: the labels of `{k}` must be a string or a list of strings",
                input.name
            ),
        )
    };
    object(input)?
        .into_iter()
        .map(|(k, v)| {
            let list = match v {
                Value::String(s) => vec![s],
                Value::Array(items) => items
                    .into_iter()
                    .map(|i| match i {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| shape(&k))?,
                _ => return Err(shape(&k)),
            };
            Ok((k, list))
        })
        .collect()
}

/// The words for a JSON value's kind.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Turns a parse error into a coded one at its place.
fn json_error(input: &Text, e: &serde_json::Error) -> HostError {
    let text = e.to_string();
    // serde_json appends " at line L column C"; the place is given apart.
    let message = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m)
        .to_string();
    let code = if message.starts_with("duplicate key") {
        DUPLICATE_KEY
    } else if message.starts_with("nested deeper") || message == "recursion limit exceeded" {
        TOO_DEEP
    } else {
        NOT_JSON
    };
    let message = match code.id {
        "E0021" => format!("{} is not JSON: {message}", input.name),
        _ => format!("{}: {message}", input.name),
    };
    HostError::new(code, message).at(Place {
        source: input.name.clone(),
        line: e.line().max(1),
        column: e.column().max(1),
    })
}

/// Builds a [`Value`] as serde_json does, refusing repeated keys and nesting past `limit`.
#[derive(Clone, Copy)]
struct Strict {
    /// Levels of arrays and objects around the value being read.
    depth: usize,
    limit: usize,
}

impl Strict {
    fn inner<E: serde::de::Error>(self) -> Result<Self, E> {
        if self.depth >= self.limit {
            return Err(E::custom(format_args!(
                "nested deeper than {} levels of arrays and objects",
                self.limit
            )));
        }
        Ok(Self {
            depth: self.depth + 1,
            limit: self.limit,
        })
    }
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.contains_key(&key) {
                return Err(A::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let value = map.next_value_seed(inner)?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Text {
        Text {
            name: "--args".into(),
            text: s.into(),
        }
    }

    fn fails(s: &str, limit: usize) -> HostError {
        match parse_strict(&text(s), limit) {
            Err(e) => e,
            Ok(v) => panic!("{s} parsed as {v}"),
        }
    }

    #[test]
    fn a_repeated_key_is_refused_at_its_place() {
        let e = fails(r#"{"url": "https://evil.com", "url": "ok"}"#, 64);
        assert_eq!(e.code, DUPLICATE_KEY);
        assert_eq!(e.message, "--args: duplicate key `url`");
        let place = e.place.unwrap();
        // The place is where the repeated key ends.
        assert_eq!((place.line, place.column), (1, 33));
        let nested = fails("{\"a\": {\"b\": 1,\n \"b\": 2}}", 64);
        assert_eq!(nested.code, DUPLICATE_KEY);
        assert_eq!(nested.place.map(|p| p.line), Some(2));
        // The same key in two objects is not repeated.
        assert!(parse_strict(&text(r#"{"a": {"k": 1}, "b": {"k": 1}}"#), 64).is_ok());
    }

    #[test]
    fn nesting_past_the_limit_is_refused_and_up_to_it_read() {
        let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_strict(&text(&deep(64)), 64).is_ok());
        let e = fails(&deep(65), 64);
        assert_eq!(e.code, TOO_DEEP);
        assert_eq!(
            e.message,
            "--args: nested deeper than 64 levels of arrays and objects"
        );
        // Far past serde_json's own limit, still the coded error.
        assert_eq!(fails(&deep(100_000), 64).code, TOO_DEEP);
    }

    #[test]
    fn what_is_not_json_says_so() {
        let e = fails("{\"a\": }", 64);
        assert_eq!(e.code, NOT_JSON);
        assert!(
            e.message.starts_with("--args is not JSON: "),
            "{}",
            e.message
        );
        assert_eq!(fails("{} {}", 64).code, NOT_JSON);
        let shape = object(&text("[1]")).unwrap_err();
        assert_eq!(shape.code, WRONG_SHAPE);
        assert_eq!(shape.message, "--args must be a JSON object, not an array");
    }

    #[test]
    fn numbers_and_strings_read_as_serde_json_reads_them() {
        let v = parse_strict(&text(r#"{"n": 40.00, "i": -3, "u": 18446744073709551615, "s": "é\u00e9", "z": null, "b": true}"#), 64).unwrap();
        let expected: Value = serde_json::from_str(r#"{"n": 40.00, "i": -3, "u": 18446744073709551615, "s": "é\u00e9", "z": null, "b": true}"#).unwrap();
        assert_eq!(v, expected);
    }
}
