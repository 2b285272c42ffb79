//! The detail of a check's answer: a few named values, in the order the check added them.
//!
//! A check adds at most a handful of entries, each under a name of its own words, so they are
//! kept as a list of pairs: no hash table to build, hash into or drop on every call. The detail
//! serialises as a JSON object with its entries in that order, as a `serde_json::Map` (with
//! `preserve_order`) would. The values the check writes on every confirm (the question, the
//! untrusted arguments' names, the marks) are typed: they serialise straight to JSON, with no
//! `serde_json::Value` tree (and its strings and maps) built and dropped in between.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};
use serde_json::{Map, Value};
use smol_str::SmolStr;

/// A mark less trusted than the tool requires, on an argument (or on the whole call: `call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taint {
    pub mark: SmolStr,
    pub argument: SmolStr,
}

/// One value of the detail.
#[derive(Debug, Clone, PartialEq)]
pub enum DetailValue {
    /// Any JSON value.
    Json(Value),
    /// A JSON string.
    Text(String),
    /// A list of JSON strings.
    Names(Vec<SmolStr>),
    /// Marks and what carries them: `[{"mark": …, "argument": …}, …]`.
    Marks(Vec<Taint>),
}

impl DetailValue {
    /// The value as a JSON value.
    pub fn to_json(&self) -> Value {
        match self {
            DetailValue::Json(v) => v.clone(),
            DetailValue::Text(s) => Value::String(s.clone()),
            DetailValue::Names(names) => {
                names.iter().map(|n| Value::String(n.to_string())).collect()
            }
            DetailValue::Marks(marks) => marks
                .iter()
                .map(|t| {
                    let mut object = Map::with_capacity(2);
                    object.insert("mark".into(), Value::String(t.mark.to_string()));
                    object.insert("argument".into(), Value::String(t.argument.to_string()));
                    Value::Object(object)
                })
                .collect(),
        }
    }

    /// The text, when the value is a JSON string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            DetailValue::Json(v) => v.as_str(),
            DetailValue::Text(s) => Some(s),
            DetailValue::Names(_) | DetailValue::Marks(_) => None,
        }
    }
}

impl From<Value> for DetailValue {
    fn from(value: Value) -> Self {
        DetailValue::Json(value)
    }
}

impl PartialEq<Value> for DetailValue {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (DetailValue::Json(v), _) => v == other,
            (DetailValue::Text(s), Value::String(o)) => s == o,
            _ => self.to_json() == *other,
        }
    }
}

impl fmt::Display for DetailValue {
    /// The value's JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl Serialize for Taint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Taint", 2)?;
        object.serialize_field("mark", self.mark.as_str())?;
        object.serialize_field("argument", self.argument.as_str())?;
        object.end()
    }
}

impl Serialize for DetailValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DetailValue::Json(v) => v.serialize(serializer),
            DetailValue::Text(s) => serializer.serialize_str(s),
            DetailValue::Names(names) => {
                let mut seq = serializer.serialize_seq(Some(names.len()))?;
                for n in names {
                    seq.serialize_element(n.as_str())?;
                }
                seq.end()
            }
            DetailValue::Marks(marks) => {
                let mut seq = serializer.serialize_seq(Some(marks.len()))?;
                for t in marks {
                    seq.serialize_element(t)?;
                }
                seq.end()
            }
        }
    }
}

/// Named values that explain an answer (`question`, `arguments`, `marks`, `flow`, `undo`, …).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detail {
    entries: Vec<(&'static str, DetailValue)>,
}

impl Detail {
    /// No detail.
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// Sets `key` to `value`: in place when it is there already, else after the others.
    pub fn insert(&mut self, key: &'static str, value: impl Into<DetailValue>) {
        let value = value.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&DetailValue> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entries, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &DetailValue)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    /// The detail as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect()
    }
}

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_serialises_in_the_order_it_was_added_like_a_map() {
        let mut detail = Detail::new();
        detail.insert("question", Value::String("Run `x`?".into()));
        detail.insert("arguments", serde_json::json!(["amount"]));
        detail.insert("question", Value::String("Run `y`?".into()));
        let mut map = Map::new();
        map.insert("question".into(), Value::String("Run `y`?".into()));
        map.insert("arguments".into(), serde_json::json!(["amount"]));
        assert_eq!(
            serde_json::to_string(&detail).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(detail.to_map(), map);
        assert_eq!(
            serde_json::to_string(&detail).unwrap(),
            r#"{"question":"Run `y`?","arguments":["amount"]}"#
        );
    }

    #[test]
    fn typed_values_serialise_as_their_json_trees_do() {
        let values = [
            DetailValue::Text("Run `x` with \"q\"?\n".into()),
            DetailValue::Names(vec![]),
            DetailValue::Names(vec!["amount".into(), "a \"quoted\" name é".into()]),
            DetailValue::Marks(vec![]),
            DetailValue::Marks(vec![
                Taint {
                    mark: "untrusted:read_inbox".into(),
                    argument: "note".into(),
                },
                Taint {
                    mark: "agent:a-very-long-agent-name-beyond-inline".into(),
                    argument: "call".into(),
                },
            ]),
        ];
        for value in values {
            let tree = value.to_json();
            assert_eq!(
                serde_json::to_string(&value).unwrap(),
                serde_json::to_string(&tree).unwrap()
            );
            assert_eq!(serde_json::to_value(&value).unwrap(), tree);
            assert!(value == tree);
            assert_eq!(value.to_string(), tree.to_string());
        }
        let marks = DetailValue::Marks(vec![Taint {
            mark: "untrusted".into(),
            argument: "to".into(),
        }]);
        assert_eq!(
            marks.to_string(),
            r#"[{"mark":"untrusted","argument":"to"}]"#
        );
        assert!(marks != serde_json::json!([{"argument": "to", "mark": "low"}]));
        assert_eq!(DetailValue::Text("q".into()).as_str(), Some("q"));
        assert_eq!(DetailValue::Names(vec!["q".into()]).as_str(), None);
    }
}
