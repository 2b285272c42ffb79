//! The names the reference reads in `user` and `bot` lines (each expected value is what
//! NeMo Guardrails 0.24.1 takes as the intent or message name of the same line), and the
//! rewrites of `says` and `something`.

use proptest::prelude::*;

use super::{Speaker, drop_says, name_end, rewrite_something};
use crate::v1::layout::{collapse, collapse_name};

fn name(text: &str, speaker: Speaker) -> &str {
    text.get(..name_end(text, speaker)).unwrap_or("").trim_end()
}

#[test]
fn user_names_end_before_parameters_a_variable_and_brackets_only() {
    for (text, expected) in [
        ("ask for help", "ask for help"),
        ("treat me as friend", "treat me as friend"),
        ("ask with care", "ask with care"),
        ("ask for $x", "ask"),
        ("ask for x=1", "ask"),
        ("ask for x = 1", "ask"),
        ("ask for x =", "ask for x ="),
        ("ask for $x with $y", "ask"),
        ("ask for x=1 with $y", "ask for x=1"),
        ("x as $v", "x"),
        ("x with $a as $v", "x"),
        ("ask(a=1)", "ask"),
        ("ask  about  it (a=1)", "ask  about  it"),
        ("inform $x", "inform $x"),
        ("\"hello\"", ""),
        ("'hello'", ""),
        ("ask \"x\"", "ask \"x\""),
        ("ask\u{a0}for $x", "ask\u{a0}for $x"),
        ("ask\tfor $x", "ask\tfor $x"),
        ("", ""),
    ] {
        assert_eq!(name(text, Speaker::User), expected, "{text:?}");
    }
}

#[test]
fn bot_names_end_before_the_parameters_at_the_end_the_utterance_and_brackets() {
    for (text, expected) in [
        ("ask for details", "ask for details"),
        ("offer help with booking", "offer help with booking"),
        ("ask for details \"t\"", "ask for details"),
        ("ask for details \"t\" with $a", "ask for details"),
        ("say with $a", "say"),
        ("say with $a \"t\"", "say with $a"),
        ("inform with x = 1", "inform"),
        ("inform with x = \"a, b\", $y, z=$w.v, n=-1.5", "inform"),
        ("inform with $x , $y.z", "inform"),
        ("inform with x", "inform with x"),
        ("inform with x, $y", "inform with x, $y"),
        ("inform with $x, y", "inform"),
        ("inform with $x for $y", "inform with $x"),
        ("inform for $x with y", "inform for $x with y"),
        ("with $x", "with $x"),
        ("say $x", "say $x"),
        ("say 'hi'", "say 'hi'"),
        ("inform(x=1)", "inform"),
        ("\"hi\"", ""),
        ("{\"a\": 1}", ""),
    ] {
        assert_eq!(name(text, Speaker::Bot), expected, "{text:?}");
    }
}

#[test]
fn says_is_dropped_when_it_is_a_word() {
    assert_eq!(drop_says("says hi"), "hi");
    assert_eq!(drop_says("says"), "");
    assert_eq!(drop_says("saysomething"), "saysomething");
    assert_eq!(drop_says("hi"), "hi");
}

#[test]
fn something_is_rewritten_as_the_reference_rewrites_it() {
    let rewrite = |names: &[&str]| rewrite_something(names);
    let owned = |names: &[&str]| Some(names.iter().map(|n| (*n).to_string()).collect());
    assert_eq!(rewrite(&["express greeting"]), None);
    assert_eq!(rewrite(&["something"]), owned(&["*"]));
    assert_eq!(rewrite(&["something else"]), owned(&["*"]));
    assert_eq!(rewrite(&["something else foo"]), owned(&["* foo"]));
    assert_eq!(rewrite(&["something elsewhere"]), owned(&["* elsewhere"]));
    assert_eq!(rewrite(&["somethings"]), owned(&["somethings"]));
    assert_eq!(rewrite(&["ask something"]), owned(&["ask ..."]));
    assert_eq!(rewrite(&["ask something else"]), owned(&["ask ..."]));
    assert_eq!(
        rewrite(&["ask something about something"]),
        owned(&["ask something about ..."])
    );
    assert_eq!(rewrite(&["something something"]), owned(&["* ..."]));
    assert_eq!(rewrite(&["x", "something"]), owned(&["x", "..."]));
    assert_eq!(rewrite(&["something", "something"]), owned(&["*", "..."]));
    assert_eq!(rewrite(&["something", "y"]), owned(&["*", "y"]));
    assert_eq!(
        rewrite(&["a \"b\" something"]),
        owned(&["a \"b\" something"])
    );
}

proptest! {
    /// A name read whole goes through `collapse_name` as through `collapse`.
    #[test]
    fn names_collapse_alike(text in "[ \t\x0bab(\"$é]{0,6}(with |for |as )?[ \ta-c\u{a0}]{0,6}") {
        let name = collapse_name(&text);
        prop_assert_eq!(name.as_str(), collapse(&text));
    }

    /// The end of a name is within the text, at a character boundary.
    #[test]
    fn names_end_inside_the_text(text in "[ \t\x0bab(\"$={é,.\u{a0}-]{0,8}(with |for |as )?[ \ta-c$=\"\u{a0}1]{0,8}") {
        for speaker in [Speaker::User, Speaker::Bot] {
            let end = name_end(&text, speaker);
            prop_assert!(text.get(..end).is_some());
        }
    }
}
