//! A nesting past the limit is reported once, not once per level: an input of a hundred thousand
//! brackets gives a handful of diagnostics, not a hundred thousand.
#![cfg(test)]

use stalwart_diagnostics::FileId;

#[test]
fn brackets_nested_past_the_limit_are_reported_once() {
    let text = format!("flow main\n  x{}\n", "(".repeat(100_000));
    let parse = stalwart_syntax::v2::parse_v2(FileId(0), &text);
    let too_deep: Vec<_> = parse
        .diagnostics
        .iter()
        .filter(|d| d.message == "brackets are nested too deeply")
        .collect();
    assert_eq!(
        too_deep.len(),
        1,
        "{:?}",
        parse
            .diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    assert!(
        parse.diagnostics.len() <= 5,
        "{} diagnostics",
        parse.diagnostics.len()
    );
}

#[test]
fn blocks_nested_past_the_limit_are_reported_once() {
    let mut text = String::from("flow main\n");
    for depth in 1..400 {
        text.push_str(&" ".repeat(depth * 2));
        text.push_str("if $x\n");
    }
    text.push_str(&" ".repeat(800));
    text.push_str("pass\n");
    let parse = stalwart_syntax::v2::parse_v2(FileId(0), &text);
    let too_deep = parse
        .diagnostics
        .iter()
        .filter(|d| d.message == "blocks are nested too deeply")
        .count();
    assert_eq!(too_deep, 1);
}
