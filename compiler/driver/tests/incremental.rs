//! The salsa database re-runs only what an edit touches: editing the Python tool module re-reads
//! that module and what depends on it, never agent.yaml's parse or the rulebook's; an edit inside
//! one flow of one rulebook file parses that file again and no other; an edit to a tool's
//! description in a catalogue runs nothing of the rulebook. The language server keeps this
//! database for a whole session and asks these very queries after each edit.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stalwart_driver::{Database, MemoryLoader};

fn shop_files() -> MemoryLoader {
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop");
    let mut loader = MemoryLoader::default();
    for name in ["agent.yaml", "policy.co", "shop/tools.py"] {
        let text = std::fs::read_to_string(shop.join(name)).unwrap();
        loader.files.insert(PathBuf::from("/shop").join(name), text);
    }
    loader
}

/// Names of the queries that ran, without their ids, in order.
fn ran(log: &Mutex<Vec<String>>) -> Vec<String> {
    let mut names: Vec<String> = log
        .lock()
        .unwrap()
        .drain(..)
        .map(|k| k.split('(').next().unwrap_or("").to_string())
        .collect();
    names.dedup();
    names
}

#[test]
fn editing_the_tool_module_reruns_only_what_reads_it() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let mut db = Database::with_events(
        Arc::new(shop_files()),
        "/shop",
        Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                sink.lock().unwrap().push(format!("{database_key:?}"));
            }
        })),
    );
    let agent = db.load(Path::new("/shop/agent.yaml")).unwrap();
    let first = stalwart_sema::analyze_agent(&db, agent).diagnostics.clone();
    assert!(first.is_empty(), "{first:?}");
    let body = stalwart_lower::lower_agent_file(&db, agent).body.clone();
    assert_eq!(body.tools.len(), 5);
    let initial = ran(&log);
    for q in [
        "parse_agent_file",
        "parse_python_tools",
        "agent_catalogue",
        "analyze_agent",
        "parse_rulebook_as",
        "rulebook_model",
        "lower_agent_file",
    ] {
        assert!(
            initial.iter().any(|n| n == q),
            "{q} ran the first time: {initial:?}"
        );
    }

    // Nothing changed: nothing runs again.
    let _ = stalwart_sema::analyze_agent(&db, agent);
    let _ = stalwart_lower::lower_agent_file(&db, agent);
    assert_eq!(ran(&log), Vec::<String>::new());

    // Edit the module: a sixth tool.
    let module = db.load(Path::new("/shop/shop/tools.py")).unwrap();
    let mut text = module.text(&db).clone();
    text.push_str("\n\n@tool(effects=\"reads\")\ndef list_orders() -> list:\n    \"\"\"Every order.\"\"\"\n    return []\n");
    db.set_text(module, text);
    let after = stalwart_sema::analyze_agent(&db, agent).diagnostics.clone();
    assert!(after.is_empty(), "{after:?}");
    let body = stalwart_lower::lower_agent_file(&db, agent).body.clone();
    assert_eq!(body.tools.len(), 6);
    let rerun = ran(&log);
    assert_eq!(
        rerun,
        [
            "parse_python_tools",
            "agent_catalogue",
            "analyze_agent",
            "lower_agent_file",
            // The edited module's line index, for the places of its tools' spans.
            "line_starts"
        ],
        "{rerun:?}"
    );
}

/// agent.yaml with a catalogue file and a rulebook of three Colang files in a config folder.
fn desk_files() -> MemoryLoader {
    let mut loader = MemoryLoader::default();
    let files = [
        (
            "agent.yaml",
            "agents:\n  desk:\n    model: \"anthropic:claude-sonnet-5-5\"\n    tools: [get_order, refund_card]\ntools:\n  - catalogue: tools.yaml\nrulebook: rails\n",
        ),
        (
            "tools.yaml",
            "tools:\n  - name: get_order\n    description: Look up an order.\n    effects: reads\n  - name: refund_card\n    description: Refund an order's card.\n    effects: changes\n",
        ),
        (
            "rails/refunds.co",
            "define user ask refund\n  \"refund order 4411\"\n\ndefine flow refunds\n  user ask refund\n  if $order_paid\n    execute refund_card\n  else\n    bot refuse\n",
        ),
        (
            "rails/orders.co",
            "define user ask order\n  \"where is my order\"\n\ndefine flow orders\n  user ask order\n  execute get_order\n",
        ),
        (
            "rails/greetings.co",
            "define user express greeting\n  \"hello\"\n\ndefine bot express greeting\n  \"Hello!\"\n\ndefine flow greeting\n  user express greeting\n  bot express greeting\n",
        ),
    ];
    for (name, text) in files {
        loader
            .files
            .insert(PathBuf::from("/desk").join(name), text.to_string());
    }
    loader
}

/// Every query that ran, without ids, in order, repeats kept.
fn ran_all(log: &Mutex<Vec<String>>) -> Vec<String> {
    log.lock()
        .unwrap()
        .drain(..)
        .map(|k| k.split('(').next().unwrap_or("").to_string())
        .collect()
}

/// The editor's database: what `stalwart compile` reports, asked again after each edit.
fn desk_database(log: &Arc<Mutex<Vec<String>>>) -> Database {
    let sink = log.clone();
    Database::with_events(
        Arc::new(desk_files()),
        "/desk",
        Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                sink.lock().unwrap().push(format!("{database_key:?}"));
            }
        })),
    )
}

#[test]
fn an_edit_inside_one_flow_reparses_that_file_only() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut db = desk_database(&log);
    let agent = db.load(Path::new("/desk/agent.yaml")).unwrap();
    let first = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert!(first.is_empty(), "{first:?}");
    let initial = ran_all(&log);
    let parses = initial.iter().filter(|q| *q == "parse_rulebook_as").count();
    assert_eq!(parses, 3, "{initial:?}");

    // Inside the flow `refunds`: a second condition.
    let refunds = db.loaded(Path::new("/desk/rails/refunds.co")).unwrap();
    let text = refunds
        .text(&db)
        .replace("if $order_paid", "if $order_paid and $amount < 500");
    db.set_text(refunds, text);
    let after = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert!(after.is_empty(), "{after:?}");
    let rerun = ran_all(&log);
    let parsed: Vec<&String> = rerun.iter().filter(|q| q.starts_with("parse_")).collect();
    // One file parsed again (the edited one: the others' parses are kept), no other parse.
    assert_eq!(parsed, ["parse_rulebook_as"], "{rerun:?}");
    // The edited file's dialect and parse, the rulebook's model over the three parses, and what
    // reads the model.
    assert_eq!(
        rerun,
        [
            "rulebook_dialect",
            "parse_rulebook_as",
            "rulebook_model",
            "analyze_agent",
            "lower_agent_file",
            "line_starts"
        ]
    );
}

#[test]
fn an_edit_to_a_tools_description_reruns_nothing_of_the_rulebooks_parse() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut db = desk_database(&log);
    let agent = db.load(Path::new("/desk/agent.yaml")).unwrap();
    let first = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert!(first.is_empty(), "{first:?}");
    ran_all(&log);

    let catalogue = db.loaded(Path::new("/desk/tools.yaml")).unwrap();
    let text = catalogue
        .text(&db)
        .replace("Refund an order's card.", "Give an order's money back.");
    db.set_text(catalogue, text);
    let after = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert!(after.is_empty(), "{after:?}");
    // The catalogue's parse and what reads the catalogue; nothing of the rulebook.
    assert_eq!(
        ran_all(&log),
        [
            "parse_catalogue_tools",
            "agent_catalogue",
            "analyze_agent",
            "lower_agent_file",
            "line_starts"
        ]
    );
}
