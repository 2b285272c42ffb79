//! The shared condition language: precedence, literals, spans shifted into the enclosing file,
//! and error fixtures (`test_data/expr/err/*.cond`) rendered and snapshotted.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::path::{Path, PathBuf};

use stalwart_diagnostics::{FileId, Files, Span, render_text};
use stalwart_syntax::expr::try_condition;
use stalwart_syntax::expr::{ExprKind, Literal};
use stalwart_syntax::parse_condition;

fn sexp(text: &str) -> String {
    let parsed = parse_condition(FileId(0), text, 0);
    assert_eq!(parsed.diagnostics, vec![], "{text}");
    parsed.value.unwrap().to_sexp()
}

#[test]
fn precedence_not_comparison_and_or() {
    let cases = [
        ("$a", "$a"),
        ("$a or $b and $c", "($a or ($b and $c))"),
        ("$a and $b or $c", "(($a and $b) or $c)"),
        ("$a or $b or $c", "(($a or $b) or $c)"),
        ("not $a and $b", "((not $a) and $b)"),
        // Python's precedence, as the reference evaluates conditions.
        ("not $a == 1", "(not ($a == 1))"),
        ("not $x != True", "(not ($x != true))"),
        ("not not $a", "(not (not $a))"),
        ("$a == 1 and $b != 2", "(($a == 1) and ($b != 2))"),
        ("not ($a or $b)", "(not ($a or $b))"),
        ("($a or $b) and $c", "(($a or $b) and $c)"),
        ("$args.amount > 500", "($args.amount > 500)"),
        (
            "$args.amount >= 0.5 or $x <= -2",
            "(($args.amount >= 0.5) or ($x <= -2))",
        ),
        ("$x < 1", "($x < 1)"),
    ];
    for (text, want) in cases {
        assert_eq!(sexp(text), want, "{text}");
    }
}

#[test]
fn member_access_in_is_none_calls_and_lists() {
    let cases = [
        ("$result.action", "$result.action"),
        ("$config.rails.input", "$config.rails.input"),
        ("$args.order.id == 1", "($args.order.id == 1)"),
        ("$response.is_blocked", "$response.is_blocked"),
        ("$x in [1, 2, \"a\"]", "($x in [1, 2, \"a\"])"),
        ("$x not in $blocked", "($x not in $blocked)"),
        ("\"refund\" in $text", "(\"refund\" in $text)"),
        ("$user_message is not None", "($user_message is not None)"),
        ("$x is None or $y", "(($x is None) or $y)"),
        ("not $x is None", "(not ($x is None))"),
        ("len($flows) == 0", "(len($flows) == 0)"),
        ("is_str($prompt)", "is_str($prompt)"),
        ("$t.lower() == \"yes\"", "($t.lower() == \"yes\")"),
        (
            "$t.strip().startswith(\"a\", )",
            "$t.strip().startswith(\"a\")",
        ),
        ("[]", "[]"),
        ("$a.b.c.d", "$a.b.c.d"),
    ];
    for (text, want) in cases {
        assert_eq!(sexp(text), want, "{text}");
    }
}

#[test]
fn literals() {
    let cases = [
        ("$a == true", "($a == true)"),
        ("$a == True", "($a == true)"),
        ("$a == false", "($a == false)"),
        ("$a == False", "($a == false)"),
        ("$a == null", "($a == null)"),
        ("$a == None", "($a == null)"),
        ("$a == \"EUR\"", "($a == \"EUR\")"),
        ("$a == 'EUR'", "($a == \"EUR\")"),
        ("$a == \"say \\\"hi\\\"\"", "($a == \"say \"hi\"\")"),
        ("$a == 42", "($a == 42)"),
        // Numbers as Python (and Colang 2.x) writes them.
        ("$a == 1_000", "($a == 1000)"),
        ("$a == .5", "($a == 0.5)"),
        ("$a == 1e3", "($a == 1000)"),
        ("$a == 2.5E-2", "($a == 0.025)"),
        ("$a > -1_000.000_5", "($a > -1000.0005)"),
    ];
    for (text, want) in cases {
        assert_eq!(sexp(text), want, "{text}");
    }
}

#[test]
fn spans_are_shifted_by_the_offset() {
    let parsed = parse_condition(FileId(3), "$order_paid and $args.amount > 500", 100);
    let expr = parsed.value.unwrap();
    assert_eq!(expr.span, Span::new(FileId(3), 100, 134));
    let ExprKind::Logic { lhs, rhs, .. } = expr.kind else {
        panic!()
    };
    assert_eq!(lhs.span, Span::new(FileId(3), 100, 111));
    assert_eq!(lhs.kind, ExprKind::Fact("order_paid".into()));
    assert_eq!(rhs.span, Span::new(FileId(3), 116, 134));
    let ExprKind::Compare {
        lhs: arg, rhs: lit, ..
    } = rhs.kind
    else {
        panic!()
    };
    assert_eq!(arg.kind, ExprKind::Arg("amount".into()));
    assert_eq!(arg.span, Span::new(FileId(3), 116, 128));
    assert_eq!(lit.kind, ExprKind::Lit(Literal::Number(500.0)));
    assert_eq!(lit.span, Span::new(FileId(3), 131, 134));
}

#[test]
fn parenthesised_span_includes_the_parentheses() {
    let parsed = parse_condition(FileId(0), " ( $a ) ", 10);
    assert_eq!(parsed.value.unwrap().span, Span::new(FileId(0), 11, 17));
}

#[test]
fn errors_give_no_value_and_exact_spans() {
    let parsed = parse_condition(FileId(0), "$a and", 5);
    assert_eq!(parsed.value, None);
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].code.id, "E1201");
    assert_eq!(
        parsed.diagnostics[0].primary.span,
        Span::new(FileId(0), 11, 11)
    );

    let parsed = parse_condition(FileId(0), "$a == b", 0);
    assert_eq!(parsed.value, None);
    assert_eq!(parsed.diagnostics[0].code.id, "E1207");
    assert_eq!(parsed.diagnostics[0].message, "`b` is not a value");
    assert_eq!(
        parsed.diagnostics[0].primary.span,
        Span::new(FileId(0), 6, 7)
    );
}

#[test]
fn deep_nesting_is_reported_not_crashed() {
    let deep = format!("{}$a{}", "(".repeat(5000), ")".repeat(5000));
    let parsed = parse_condition(FileId(0), &deep, 0);
    assert_eq!(parsed.value, None);
    assert_eq!(parsed.diagnostics[0].code.id, "E1204");
    let long = vec!["$a"; 3000].join(" and ");
    assert_eq!(
        parse_condition(FileId(0), &long, 0).diagnostics[0].code.id,
        "E1204"
    );
    let nots = format!("{}$a", "not ".repeat(3000));
    assert_eq!(
        parse_condition(FileId(0), &nots, 0).diagnostics[0].code.id,
        "E1204"
    );
}

/// `try_condition` gives the tree `parse_condition` gives, and `None` where it reports errors.
fn check_try_matches_parse(text: &str, offset: u32) {
    let parsed = parse_condition(FileId(2), text, offset);
    assert_eq!(
        parsed.value.is_none(),
        !parsed.diagnostics.is_empty(),
        "{text:?}"
    );
    assert_eq!(
        try_condition(FileId(2), text, offset),
        parsed.value,
        "{text:?}"
    );
}

#[test]
fn try_condition_matches_parse_condition() {
    for text in [
        "$a",
        " ( $a ) ",
        "$a or $b and $c",
        "not $a == 1",
        "$args.amount >= 0.5 or $x <= -2",
        "$a == \"EUR\"",
        "",
        "   ",
        "$a and",
        "$a == b",
        "$a = 1",
        "$a.b",
        "$a == \"open",
        "$a @ 1",
        "$a == 1 == 2",
        "len($x) > 2",
        "($a",
        "== $a",
    ] {
        check_try_matches_parse(text, 7);
    }
    let deep = format!("{}$a{}", "(".repeat(300), ")".repeat(300));
    check_try_matches_parse(&deep, 0);
    for path in fixtures() {
        check_try_matches_parse(&std::fs::read_to_string(&path).unwrap(), 0);
    }
}

proptest::proptest! {
    #[test]
    fn try_condition_matches_parse_condition_on_any_text(
        text in "(\\$[ab]|[ab]|\\$args\\.x|[0-9]|\"x\"|'|\"|==|!=|<=|=|>|\\(|\\)|and|or|not|\\.| |@){0,12}",
        offset in 0u32..100,
    ) {
        check_try_matches_parse(&text, offset);
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/expr/err");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn err_fixtures() {
    let files = fixtures();
    assert!(files.len() >= 6);
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_condition(FileId(0), &text, 0);
        assert_eq!(parsed.value, None, "{name}");
        assert!(!parsed.diagnostics.is_empty(), "{name}");
        let mut files = Files::new();
        files.insert(FileId(0), "condition", text.as_str());
        insta::assert_snapshot!(
            format!("expr_err_{name}"),
            render_text(&files, &parsed.diagnostics)
        );
    }
}
