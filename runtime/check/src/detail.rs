//! The detail of a check's answer: a few named JSON values, in the order the check added them.
//!
//! A check adds at most a handful of entries, each under a name of its own words, so they are
//! kept as a list of pairs: no hash table to build, hash into or drop on every call. The detail
//! serialises as a JSON object with its entries in that order, as a `serde_json::Map` (with
//! `preserve_order`) would.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Named values that explain an answer (`question`, `arguments`, `marks`, `flow`, `undo`, …).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detail {
    entries: Vec<(&'static str, Value)>,
}

impl Detail {
    /// No detail.
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// Sets `key` to `value`: in place when it is there already, else after the others.
    pub fn insert(&mut self, key: &'static str, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
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
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    /// The detail as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
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
}
