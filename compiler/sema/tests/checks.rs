//! The semantic checks of Colang rulebooks: one rendered snapshot per input, no diagnostic for
//! the shop's policy, and no error on any file of the Colang corpus.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use stalwart_diagnostics::{Diagnostic, FileId, Files, render_text};
use stalwart_sema::checks::{Known, check_v1, check_v2, used_flows_v1, used_flows_v2};
use stalwart_syntax::parse_v1;
use stalwart_syntax::v2::parse_v2;

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

const SHOP_TOOLS: [&str; 5] = [
    "get_order",
    "charge_card",
    "send_receipt",
    "read_inbox",
    "refund_card",
];

/// Checks a 1.0 (`v1`) or 2.x (`v2`) text, asserting it parses cleanly, and renders the result.
fn check(dialect: &str, text: &str, catalogue: Option<&[&str]>, facts: &[&str]) -> String {
    let catalogue = catalogue.map(set);
    let facts = set(facts);
    let diagnostics: Vec<Diagnostic> = match dialect {
        "v1" => {
            let parsed = parse_v1(FileId(0), text);
            assert_eq!(parsed.diagnostics, vec![], "the input must parse");
            check_v1(&parsed.value, catalogue.as_ref(), &facts, &Known::default())
        }
        _ => {
            let parsed = parse_v2(FileId(0), text);
            assert_eq!(parsed.diagnostics, vec![], "the input must parse");
            check_v2(
                &parsed.value,
                text,
                catalogue.as_ref(),
                &facts,
                &known_v2(&parsed.value),
            )
        }
    };
    let mut files = Files::new();
    files.insert(FileId(0), "rails.co", text);
    render_text(&files, &diagnostics)
}

#[test]
fn v1_undefined_bot_message_suggests_the_nearest() {
    let text = "define bot ask order number\n  \"Which order?\"\n\ndefine flow refunds\n  user ask refund\n  bot ask ordr number\n  bot refuse\n  bot stop\n  bot \"inline text\"\n  bot greet \"Hello!\"\n  bot explain policy\n";
    insta::assert_snapshot!("v1_undefined_bot", check("v1", text, None, &[]));
}

#[test]
fn v1_a_message_defined_inline_in_any_flow_is_defined() {
    let text = "define flow a\n  bot greet\n  bot farewell\n\ndefine flow b\n  bot greet \"Hello!\"\n  if $x\n    bot farewell\n      \"Bye.\"\n";
    assert_eq!(check("v1", text, None, &["x"]), "");
}

#[test]
fn v1_undefined_subflow() {
    let text = "define subflow check order\n  execute get_order\n\ndefine flow refunds\n  do check ordr\n  do check order\n  do unknown thing\n";
    insta::assert_snapshot!("v1_undefined_subflow", check("v1", text, None, &[]));
}

#[test]
fn v1_duplicate_flows() {
    let text = "define user greet\n  \"hi\"\n\ndefine user greet\n  \"hello\"\n\ndefine flow refunds\n  bot refuse\n\ndefine subflow refunds\n  bot refuse\n\ndefine flow\n  bot refuse\n\ndefine flow\n  bot refuse\n";
    insta::assert_snapshot!("v1_duplicate_flows", check("v1", text, None, &[]));
}

#[test]
fn v1_variable_read_before_set() {
    let text = "define flow refunds\n  if $amount > 500\n    bot refuse\n  $amount = execute get_amount\n  if $amount > 500\n    bot refuse\n  if $order_paid\n    execute refund_card\n  while $tries < 3\n    $tries = 1\n\ndefine flow other\n  if $limit\n    bot refuse\n\ndefine flow setter\n  $limit = 3\n  if $declared\n    bot refuse\n  $declared = True\n";
    insta::assert_snapshot!("v1_read_before_set", check("v1", text, None, &["declared"]));
}

#[test]
fn v1_unknown_tools_with_a_catalogue() {
    let text = "define flow refunds\n  execute refund_crd\n  bot execute_get_ordr\n  execute refund_card\n  $x = execute wholly_unknown\n";
    insta::assert_snapshot!(
        "v1_unknown_tools",
        check("v1", text, Some(&SHOP_TOOLS), &[])
    );
    // Without a catalogue, tools are not checked.
    assert_eq!(check("v1", text, None, &[]), "");
}

#[test]
fn v1_bot_message_naming_a_tool_calls_nothing() {
    let text = "define bot refund_card\n  \"Refunded.\"\n\ndefine flow refunds\n  bot refund_card\n  bot refund card\n  bot execute_refund_card\n  bot refund_crd\n";
    insta::assert_snapshot!(
        "v1_bot_names_a_tool",
        check("v1", text, Some(&SHOP_TOOLS), &[])
    );
    // Without a catalogue, no message names a tool: the defined one is silent, the others are
    // undefined.
    insta::assert_snapshot!(
        "v1_bot_names_a_tool_without_catalogue",
        check("v1", text, None, &[])
    );
}

#[test]
fn v1_unreachable_statements() {
    let text = "define flow refunds\n  if $x\n    stop\n    bot refuse\n    bot refuse\n  execute refund_card\n  return\n  label again\n  bot refuse\n  abort\n  bot refuse\n";
    insta::assert_snapshot!("v1_unreachable", check("v1", text, None, &[]));
}

#[test]
fn v2_undefined_flows_without_imports() {
    let text = "flow main\n  await greet usr\n  await bot refuse\n  await bot say hello\n  await nothing like it\n\nflow greet user\n  await bot greeting\n\nflow bot greeting\n  pass\n";
    insta::assert_snapshot!("v2_undefined_flows", check("v2", text, None, &[]));
}

#[test]
fn v2_imports_bring_the_standard_library_by_name() {
    // `import core` brings `user said` and `bot say`; a flow core does not have is undefined.
    let text = "import core\n\nflow main\n  await user said \"hi\"\n  await bot say \"hello\"\n  await some library flow\n";
    insta::assert_snapshot!("v2_imports_core", check("v2", text, None, &[]));
    // Without the import, the library's flows are named with the module that has them.
    let text = "flow main\n  await user said \"hi\"\n  await bot say \"hello\"\n";
    insta::assert_snapshot!("v2_library_not_imported", check("v2", text, None, &[]));
    // A module the checks cannot see leaves every name alone.
    let text = "import my_rails\n\nflow main\n  await some other flow\n";
    assert_eq!(check("v2", text, None, &[]), "");
}

#[test]
fn v2_duplicate_flows_need_override() {
    let text = "flow main\n  pass\n\nflow refunds\n  pass\n\n@override\nflow refunds\n  pass\n\nflow refunds\n  pass\n";
    insta::assert_snapshot!("v2_duplicate_flows", check("v2", text, None, &[]));
}

#[test]
fn v2_variable_read_before_set() {
    let text = "flow refunds $order\n  if $amount > 500\n    await bot refuse\n  $amount = 3\n  if $order and $amount\n    pass\n  global $shared\n  while $shared\n    $shared = False\n  when user said \"x\" as $ref\n    pass\n  or when UtteranceUserActionFinished(final_transcript=$ref2)\n    pass\n  $ref2 = 1\n  if $context and $ref and $declared\n    pass\n  $declared = 1\n\nflow user said $text\n  pass\n";
    insta::assert_snapshot!("v2_read_before_set", check("v2", text, None, &["declared"]));
}

#[test]
fn v2_unknown_actions_with_a_catalogue() {
    let text = "flow refunds\n  await RefundCrdAction(amount=1)\n  start GetOrderAction()\n  await bot execute_send_recipt\n  await StartUtteranceBotAction(script=\"x\")\n";
    insta::assert_snapshot!(
        "v2_unknown_actions",
        check("v2", text, Some(&SHOP_TOOLS), &[])
    );
}

#[test]
fn v2_bot_message_naming_a_tool_calls_nothing_even_with_imports() {
    let text = "import core\n\nflow refunds\n  await bot refund card\n  await bot say \"refund_card\"\n  await RefundCardAction(amount=1)\n";
    insta::assert_snapshot!(
        "v2_bot_names_a_tool",
        check("v2", text, Some(&SHOP_TOOLS), &[])
    );
}

#[test]
fn v2_unreachable_statements() {
    let text = "flow main\n  if True\n    return\n    # a comment is not a statement\n    await bot refuse\n  abort\n  await bot refuse\n  await bot refuse\n";
    insta::assert_snapshot!("v2_unreachable", check("v2", text, None, &[]));
}

/// The flows a text defines or runs, as `name@line`.
fn used(dialect: &str, text: &str) -> Vec<String> {
    let flows = if dialect == "v1" {
        used_flows_v1(&parse_v1(FileId(0), text).value)
    } else {
        used_flows_v2(&parse_v2(FileId(0), text).value)
    };
    flows
        .into_iter()
        .map(|(name, span)| {
            let line = text[..span.start as usize].matches('\n').count() + 1;
            format!("{name}@{line}")
        })
        .collect()
}

#[test]
fn used_flows_are_the_defined_and_the_run_ones() {
    let v1 = "define subflow check order\n  execute get_order\n\ndefine flow refunds\n  user ask refund\n  if $x\n    do check order\n  else\n    do self check input\n  bot refuse\n";
    assert_eq!(
        used("v1", v1),
        [
            "check order@1",
            "refunds@4",
            "check order@7",
            "self check input@9"
        ]
    );
    let v2 = "import guardrails\n\nflow input rails $input_text\n  await self check input\n  activate llm continuation\n  await bot say \"hi\"\n  when user said \"x\"\n    content safety check input $model=\"content_safety\"\n  await GetOrderAction()\n";
    assert_eq!(
        used("v2", v2),
        [
            "input rails@3",
            "self check input@4",
            "llm continuation@5",
            "content safety check input@8"
        ]
    );
}

#[test]
fn the_shop_policy_gives_no_diagnostic() {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/shop/policy.co"
    ));
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(check("v1", &text, Some(&SHOP_TOOLS), &[]), "");
    assert_eq!(check("v1", &text, None, &[]), "");
}

#[path = "../../syntax/src/test_inputs/corpus.rs"]
mod corpus;

/// The corpus's files of `dialect`; `None` when it is skipped (see `corpus::corpus_dir`).
fn corpus(dialect: &str) -> Option<Vec<PathBuf>> {
    let dir = corpus::corpus_dir(&format!("colang/{dialect}"))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn corpus_files_raise_no_errors() {
    for dialect in ["v1", "v2"] {
        let Some(files) = corpus(dialect) else {
            continue;
        };
        let (mut warnings, mut errors) = (0usize, Vec::new());
        let empty = BTreeSet::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let diagnostics = if dialect == "v1" {
                check_v1(
                    &parse_v1(FileId(0), &text).value,
                    None,
                    &empty,
                    &Known::default(),
                )
            } else {
                {
                    let m = parse_v2(FileId(0), &text).value;
                    check_v2(&m, &text, None, &empty, &known_v2(&m))
                }
            };
            for d in diagnostics {
                if d.is_error() {
                    let mut f = Files::new();
                    f.insert(FileId(0), path.display().to_string(), text.as_str());
                    errors.push(render_text(&f, &[d]));
                } else {
                    warnings += 1;
                }
            }
        }
        println!(
            "{dialect}: {} files, {warnings} warnings, {} errors",
            files.len(),
            errors.len()
        );
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }
}

/// What a lone 2.x file knows: its own flows and the library modules it imports.
fn known_v2(m: &stalwart_syntax::v2::ast::Module) -> Known {
    let module = stalwart_sema::RulebookModule::V2(m.clone());
    stalwart_sema::rulebook::known_names(&[&module], false)
}
