//! Canonical strings escape exactly as `serde_json` escapes them, objects write their keys sorted
//! whatever their size, and base64url round-trips, for any input (the escape scan tests eight bytes
//! at a time, so every position within a word counts).

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value};
use stalwart_runtime::canonical::{
    base64url, base64url_decode, base64url_is, write_object, write_str,
};

fn escapes_like_serde_json(text: &str) -> Result<(), TestCaseError> {
    let mut buf = Vec::new();
    write_str(&mut buf, text);
    let expected = serde_json::to_string(text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(String::from_utf8_lossy(&buf), expected);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_escapes_like_serde_json(text in any::<String>()) {
        escapes_like_serde_json(&text)?;
    }

    #[test]
    fn text_dense_in_escapes_escapes_like_serde_json(
        text in "[\\x00-\\x1f\"\\\\a\\x7f é\u{1F600}!#]{0,40}"
    ) {
        escapes_like_serde_json(&text)?;
    }

    #[test]
    fn objects_of_any_size_write_their_keys_sorted(
        pairs in proptest::collection::vec(("[a-zé]{0,4}", "[a-z\"]{0,4}"), 0..40)
    ) {
        let map: Map<String, Value> = pairs
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let sorted: BTreeMap<&String, &Value> = map.iter().collect();
        let mut buf = Vec::new();
        write_object(&mut buf, &map);
        prop_assert_eq!(
            String::from_utf8(buf).unwrap(),
            serde_json::to_string(&sorted).unwrap()
        );
    }

    #[test]
    fn base64url_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        prop_assert_eq!(base64url_decode(&base64url(&bytes)).unwrap(), bytes);
    }

    #[test]
    fn a_hash_compares_with_its_encoding(bytes in any::<[u8; 32]>()) {
        let text = base64url(&bytes);
        prop_assert_eq!(text.len(), 43);
        prop_assert!(base64url_is(&bytes, text.as_bytes()));
    }
}
