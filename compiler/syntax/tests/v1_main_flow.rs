//! Colang 1.0 statements outside any definition: the file's main flow (id ""), accepted beside
//! message definitions and refused beside flows, as the reference parser accepts and refuses them.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use stalwart_diagnostics::FileId;
use stalwart_syntax::{inspect_v1, parse_v1};

/// The E1027 errors of a file, as (line, message).
fn beside_flows(text: &str) -> Vec<(usize, String)> {
    parse_v1(FileId(0), text)
        .diagnostics
        .iter()
        .filter(|d| d.code.id == "E1027")
        .map(|d| {
            let line = text
                .get(..d.primary.span.start as usize)
                .unwrap_or("")
                .matches('\n')
                .count()
                + 1;
            (line, d.message.clone())
        })
        .collect()
}

const AFTER: &str = "a statement outside any flow, in a file that defines a flow";
const BEFORE: &str = "a flow defined after statements outside any flow";

#[test]
fn the_main_flow_stands_beside_message_definitions() {
    for text in [
        "bot y\n",
        "user x\nbot y\n",
        "define user x\n  \"hi\"\nbot y\n",
        "define user q\n  \"a\"\nbot y\ndefine bot r\n  \"b\"\n",
        "bot y\n# a comment\n",
    ] {
        let parsed = parse_v1(FileId(0), text);
        assert!(
            parsed.diagnostics.is_empty(),
            "{text:?}: {:?}",
            parsed.diagnostics
        );
        let facts = inspect_v1(&parsed.value);
        assert_eq!(facts["flows"][0]["id"], "", "{text:?}");
    }
}

#[test]
fn statements_after_a_flow_are_refused_at_the_first_one() {
    assert_eq!(
        beside_flows("define flow a\n  user x\n\nbot y\nbot z\n"),
        [(4, AFTER.into())]
    );
    assert_eq!(
        beside_flows("define subflow a\n  bot x\nuser y\n"),
        [(3, AFTER.into())]
    );
    assert_eq!(beside_flows("greet\n  bot x\nbot y\n"), [(3, AFTER.into())]);
    assert_eq!(
        beside_flows("define flow\n  bot x\nbot y\n"),
        [(3, AFTER.into())]
    );
    assert_eq!(
        beside_flows("define flow a\n  bot x\ndefine user q\n  \"a\"\nbot y\n"),
        [(5, AFTER.into())]
    );
    assert_eq!(
        beside_flows("define flow a\n  if $a\n    bot x\nif $b\n  bot y\n"),
        [(4, AFTER.into())]
    );
    // A `bot` line in a message body starts the flow `<name>_direct`.
    assert_eq!(
        beside_flows("define bot deny\n  \"DENY\"\n  bot deny\nbot y\n"),
        [(4, AFTER.into())]
    );
}

#[test]
fn a_flow_after_statements_is_refused_at_its_header() {
    assert_eq!(
        beside_flows("bot y\ndefine flow a\n  bot x\n"),
        [(2, BEFORE.into())]
    );
    assert_eq!(
        beside_flows("bot y\n\ndefine subflow s\n  bot x\n"),
        [(3, BEFORE.into())]
    );
    assert_eq!(
        beside_flows("bot y\ngreet\n  bot x\n"),
        [(2, BEFORE.into())]
    );
    assert_eq!(
        beside_flows("bot y\ndefine bot deny\n  \"DENY\"\n  bot deny\n"),
        [(2, BEFORE.into())]
    );
}

#[test]
fn a_line_reported_already_is_no_statement() {
    let parsed = parse_v1(
        FileId(0),
        "define tool refund_card\n  execute refund_card\n\ndefine flow refunds\n  user ask refund\n",
    );
    let codes: Vec<&str> = parsed.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E1022"]);
}
