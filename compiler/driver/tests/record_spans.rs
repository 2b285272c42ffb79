//! The record places what decides an answer: each tool's keys (wherever they were written, the
//! catalogue or an override in agent.yaml), each schema node and keyword, each gate path's action
//! and each node of its condition, at the line and the column (in characters) where it is
//! written, for Colang 1.0, Colang 2.x and rule sheets alike.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_diagnostics::Diagnostic;
use stalwart_driver::{Database, MemoryLoader};
use stalwart_record::{RecordBody, SourceSpan, Tool};

/// `path:line:col` of a span, as an answer's `source` reads.
fn at(body: &RecordBody, span: &SourceSpan) -> String {
    let path = &body.sources[span.source as usize].path;
    format!("{path}:{}:{}", span.line, span.col)
}

/// Each gate path of `name`: its statement's place and its condition's.
fn path_places(body: &RecordBody, name: &str) -> Vec<(String, String)> {
    tool(body, name)
        .gate
        .paths
        .iter()
        .map(|p| {
            let condition = body.expr_spans[p.condition.unwrap() as usize];
            (at(body, &p.span), at(body, &condition))
        })
        .collect()
}

fn tool<'a>(body: &'a RecordBody, name: &str) -> &'a Tool {
    body.tools.iter().find(|t| t.name == name).unwrap()
}

fn lowered(files: &[(&str, &str)]) -> RecordBody {
    let mut loader = MemoryLoader::default();
    for (name, text) in files {
        loader
            .files
            .insert(PathBuf::from("/agent").join(name), text.to_string());
    }
    let (db, file) = Database::open(Arc::new(loader), Path::new("/agent/agent.yaml")).unwrap();
    let analysis = stalwart_sema::analyze_agent(&db, file);
    let errors: Vec<&Diagnostic> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    stalwart_lower::lower_agent_file(&db, file).body.clone()
}

const CATALOGUE: &str = "\
- name: refund_card
  effects: changes
  arguments:
    type: object
    properties:
      order_id: {type: string}
      amount: {type: number, maximum: 500}
    required: [order_id, amount]
  after: [get_order]
  checks:
    amount: {at_most: 400}
  at_most: 5
  undo: none
  irreversible: true
- name: get_order
  effects: reads
  arguments:
    type: object
    properties: {order_id: {type: string}}
";

const AGENT: &str = "\
# A desk whose refunds the rulebook decides.
agents:
  desk:
    privilege: high
    tools: [get_order, refund_card]
tools:
  - catalogue: tools.yaml
overrides:
  refund_card: {at_most: 2, spend: {argument: amount, at_most: 900, per: day}}
rulebook: ./policy.co
";

const COLANG_1: &str = "\
define user ask refund
  \"refund order 4411\"

define flow refunds
  user ask refund
  if $args.amount > 100
    bot refuse
  else
    execute refund_card
";

#[test]
fn a_tools_keys_are_placed_where_they_are_written() {
    let body = lowered(&[
        ("agent.yaml", AGENT),
        ("tools.yaml", CATALOGUE),
        ("policy.co", COLANG_1),
    ]);
    let refund = tool(&body, "refund_card");
    let spans = &refund.spans;
    assert_eq!(at(&body, &refund.span), "tools.yaml:1:3");
    assert_eq!(at(&body, &spans.effects.unwrap()), "tools.yaml:2:3");
    assert_eq!(at(&body, &spans.arguments.unwrap()), "tools.yaml:3:3");
    assert_eq!(spans.after.len(), 1);
    assert_eq!(at(&body, &spans.after[0]), "tools.yaml:9:11");
    assert_eq!(spans.checks.len(), 1);
    assert_eq!(at(&body, &spans.checks[0]), "tools.yaml:11:14");
    assert_eq!(at(&body, &spans.undo.unwrap()), "tools.yaml:13:3");
    assert_eq!(at(&body, &spans.irreversible.unwrap()), "tools.yaml:14:3");
    // The override in agent.yaml replaced the catalogue's `at_most` and added `spend`: they are
    // placed where the override writes them.
    assert_eq!(at(&body, &spans.at_most.unwrap()), "agent.yaml:9:17");
    assert_eq!(at(&body, &spans.spend.unwrap()), "agent.yaml:9:29");
    assert_eq!(spans.requires, None);
    assert_eq!(spans.sends_out, None);
    assert!(spans.not_after.is_empty());
    // The agent is placed at its declaration (its name).
    let desk = body.agents.iter().find(|a| a.name == "desk").unwrap();
    assert_eq!(at(&body, &desk.span), "agent.yaml:3:3");
}

#[test]
fn schema_nodes_and_their_keywords_are_placed() {
    let body = lowered(&[
        ("agent.yaml", AGENT),
        ("tools.yaml", CATALOGUE),
        ("policy.co", COLANG_1),
    ]);
    let refund = tool(&body, "refund_card");
    let root = &body.schema_nodes[refund.arguments.unwrap() as usize];
    assert_eq!(at(&body, &root.span), "tools.yaml:4:5");
    let keyword = |node: &stalwart_record::SchemaNode, name: &str| {
        let (_, span) = node.keyword_spans.iter().find(|(k, _)| k == name).unwrap();
        at(&body, span)
    };
    assert_eq!(keyword(root, "type"), "tools.yaml:4:5");
    assert_eq!(keyword(root, "required"), "tools.yaml:8:5");
    let (_, amount) = root.properties.iter().find(|(n, _)| n == "amount").unwrap();
    let amount = &body.schema_nodes[*amount as usize];
    assert_eq!(at(&body, &amount.span), "tools.yaml:7:7");
    assert_eq!(keyword(amount, "maximum"), "tools.yaml:7:30");
    assert_eq!(keyword(amount, "type"), "tools.yaml:7:16");
}

#[test]
fn colang_1_paths_and_conditions_are_placed() {
    let body = lowered(&[
        ("agent.yaml", AGENT),
        ("tools.yaml", CATALOGUE),
        ("policy.co", COLANG_1),
    ]);
    let gate = &tool(&body, "refund_card").gate;
    assert_eq!(gate.paths.len(), 2);
    assert_eq!(body.exprs.len(), body.expr_spans.len());
    let places = path_places(&body, "refund_card");
    assert_eq!(
        places,
        [
            ("policy.co:7:5".to_string(), "policy.co:6:6".to_string()),
            ("policy.co:9:5".to_string(), "policy.co:6:6".to_string()),
        ]
    );
}

#[test]
fn colang_2_paths_and_conditions_are_placed() {
    let policy = "\
flow user ask refund
  user said \"refund order 4411\"

flow refunds
  user ask refund
  if $args.amount > 100
    bot refuse
  else
    await RefundCardAction(order_id=$order_id, amount=$args.amount)
";
    let body = lowered(&[
        ("agent.yaml", AGENT),
        ("tools.yaml", CATALOGUE),
        ("policy.co", policy),
    ]);
    let places = path_places(&body, "refund_card");
    assert_eq!(
        places,
        [
            ("policy.co:7:5".to_string(), "policy.co:6:6".to_string()),
            ("policy.co:9:5".to_string(), "policy.co:6:6".to_string()),
        ]
    );
}

#[test]
fn rule_sheet_rows_and_their_conditions_are_placed() {
    let sheet = "\
rule,tool,when,then,say
large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?
refunds,refund_card,$args.amount <= 500,allow,
";
    let agent = AGENT.replace("./policy.co", "./policy.csv");
    let body = lowered(&[
        ("agent.yaml", &agent),
        ("tools.yaml", CATALOGUE),
        ("policy.csv", sheet),
    ]);
    let places = path_places(&body, "refund_card");
    assert_eq!(
        places,
        [
            ("policy.csv:2:1".to_string(), "policy.csv:2:19".to_string()),
            ("policy.csv:3:1".to_string(), "policy.csv:3:21".to_string()),
        ]
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    // `ü` takes two bytes and `—` three before the override's `at_most` on its line.
    let agent = AGENT.replace(
        "refund_card: {at_most: 2,",
        "refund_card: {description: \"Rück — x\", at_most: 2,",
    );
    let body = lowered(&[
        ("agent.yaml", &agent),
        ("tools.yaml", CATALOGUE),
        ("policy.co", COLANG_1),
    ]);
    let spans = &tool(&body, "refund_card").spans;
    assert_eq!(at(&body, &spans.at_most.unwrap()), "agent.yaml:9:42");
}

#[test]
fn a_rulebook_compiled_alone_places_its_paths_and_conditions() {
    let mut loader = MemoryLoader::default();
    loader
        .files
        .insert(PathBuf::from("/rules/policy.co"), COLANG_1.to_string());
    let loader = Arc::new(loader);
    let db = Database::new(loader.clone(), PathBuf::from("/rules"));
    let set = stalwart_driver::rules::load_rulebook(
        &db,
        loader.as_ref(),
        &[PathBuf::from("/rules/policy.co")],
    )
    .unwrap();
    let (diagnostics, body) = stalwart_driver::rules::rulebook_body(&db, set);
    assert!(
        !diagnostics.iter().any(Diagnostic::is_error),
        "{diagnostics:?}"
    );
    let body = body.unwrap();
    let places = path_places(&body, "refund_card");
    assert_eq!(
        places,
        [
            ("policy.co:7:5".to_string(), "policy.co:6:6".to_string()),
            ("policy.co:9:5".to_string(), "policy.co:6:6".to_string()),
        ]
    );
    // A rulebook alone declares no tool: the tool's entry has no place.
    assert_eq!(tool(&body, "refund_card").span.line, 0);
}

#[test]
fn a_file_outside_the_agents_folder_is_named_relative_to_it() {
    let mut loader = MemoryLoader::default();
    let agent = AGENT.replace("./policy.co", "../shared/rules/policy.co");
    for (path, text) in [
        ("/work/agent/agent.yaml", agent.as_str()),
        ("/work/agent/tools.yaml", CATALOGUE),
        ("/work/shared/rules/policy.co", COLANG_1),
    ] {
        loader.files.insert(PathBuf::from(path), text.to_string());
    }
    let (db, file) = Database::open(Arc::new(loader), Path::new("/work/agent/agent.yaml")).unwrap();
    let body = stalwart_lower::lower_agent_file(&db, file).body.clone();
    let paths: Vec<&str> = body.sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        ["agent.yaml", "tools.yaml", "../shared/rules/policy.co"]
    );
    let gate = &tool(&body, "refund_card").gate;
    assert_eq!(
        at(&body, &gate.paths[0].span),
        "../shared/rules/policy.co:7:5"
    );
}
