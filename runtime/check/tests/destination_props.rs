//! Destination detection never panics, agrees with its fast path, and reports only text it was given.

use proptest::prelude::*;
use serde_json::{Value, json};
use stalwart_runtime::destination::{find_destinations, has_destination};

fn holds(text: &str) -> Result<(), TestCaseError> {
    let value = json!(text);
    let found = find_destinations(&value);
    prop_assert_eq!(has_destination(&value), !found.is_empty());
    for (at, destination) in found.iter().enumerate() {
        prop_assert!(!destination.is_empty());
        prop_assert!(
            text.contains(destination.as_str()),
            "{destination:?} not in {text:?}"
        );
        prop_assert!(
            !found.iter().take(at).any(|seen| seen == destination),
            "{destination:?} twice"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_text(text in any::<String>()) {
        holds(&text)?;
    }

    #[test]
    fn text_made_of_separators(
        text in "[a-fA-F0-9xnw.:@%/\\[\\]()\\- _．。｡ｃｏｍ，]{0,48}(com|io|rs|invalid|localhost)?[.:/]?"
    ) {
        holds(&text)?;
    }

    #[test]
    fn text_made_of_look_alikes(
        text in "[a-zA-Z0-9.:/\\\\@%_\\- ．。｡․﹒⒈𝐞𝐯𝐢𝐥𝐜𝐨𝐦𝐥𝐚𝐡𝐬𝐭ⓔⓒⓜＥｃｍ㏄™ü中\u{200B}\u{200D}\u{00AD}\u{FE0F}]{0,40}(com|pl|rs|io|localhost)?(:443)?"
    ) {
        holds(&text)?;
    }

    #[test]
    fn percent_escapes_anywhere(text in "(%[0-9a-fA-F]{2}|[a-z.:/@%]){0,40}") {
        holds(&text)?;
    }

    #[test]
    fn an_array_yields_its_strings_destinations_in_order(
        texts in proptest::collection::vec("[a-z0-9.:@/%]{0,24}", 0..6)
    ) {
        let mut expected: Vec<String> = Vec::new();
        for text in &texts {
            for destination in find_destinations(&json!(text)) {
                if !expected.contains(&destination) {
                    expected.push(destination);
                }
            }
        }
        let args = Value::Array(texts.iter().map(|text| json!(text)).collect());
        prop_assert_eq!(find_destinations(&args), expected);
    }
}
