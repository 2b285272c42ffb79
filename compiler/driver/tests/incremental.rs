//! The salsa database re-runs only what an edit touches: editing the Python tool module re-reads
//! that module and what depends on it, never agent.yaml's parse or the rulebook's; an edit inside
//! one flow of one rulebook file re-runs that file's own queries (parse, names, problems, checks,
//! gate) and no other file's, no whole-rulebook query and no lowering; an edit to a tool's
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
            "agent_file_diagnostics",
            // The catalogue changed: the rulebook's checks read it again.
            "rule_check_inputs",
            "check_rule_file",
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
    // The edited file's own queries; its names, checks and gate are as before, so nothing that
    // reads them runs again (no other file, no whole-rulebook query, no lowering).
    assert_eq!(
        rerun,
        [
            "rulebook_dialect",
            "parse_rulebook_as",
            "rule_file_names",
            "rule_file_problems",
            "check_rule_file",
            "file_gates"
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
    // The catalogue's parse and what reads the catalogue; nothing of the rulebook (the tools'
    // names and arguments are as before, so its checks and gate are kept).
    assert_eq!(
        ran_all(&log),
        [
            "parse_catalogue_tools",
            "agent_catalogue",
            "analyze_agent",
            "agent_file_diagnostics",
            "rule_check_inputs",
            "tool_lowering_diagnostics",
            "catalogue_tool_names"
        ]
    );
}

/// agent.yaml with `tools` inline tools and a config folder of `files` Colang files, each a user
/// message and a flow that executes one tool (the language server's bench, small).
fn many_files(files: usize, tools: usize) -> MemoryLoader {
    let mut loader = MemoryLoader::default();
    let mut agent =
        String::from("agents:\n  desk:\n    model: \"anthropic:claude-sonnet-5-5\"\n    tools: [");
    let names: Vec<String> = (0..tools).map(|i| format!("tool_{i:02}")).collect();
    agent.push_str(&names.join(", "));
    agent.push_str("]\ntools:\n");
    for name in &names {
        agent.push_str(&format!(
            "  - name: {name}\n    description: A tool.\n    effects: reads\n"
        ));
    }
    agent.push_str("rulebook: rails\n");
    loader
        .files
        .insert(PathBuf::from("/many/agent.yaml"), agent);
    for i in 0..files {
        let text = format!(
            "define user ask {i}\n  \"question {i}\"\n\ndefine flow flow {i}\n  user ask {i}\n  if $order_paid\n    execute tool_{:02}\n  else\n    bot refuse\n",
            i % tools
        );
        loader
            .files
            .insert(PathBuf::from(format!("/many/rails/f{i:02}.co")), text);
    }
    loader
}

#[test]
fn edit_in_one_flow_body_of_many_files_reruns_that_files_queries_only() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let mut db = Database::with_events(
        Arc::new(many_files(40, 10)),
        "/many",
        Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                sink.lock().unwrap().push(format!("{database_key:?}"));
            }
        })),
    );
    let agent = db.load(Path::new("/many/agent.yaml")).unwrap();
    let first = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert!(first.is_empty(), "{first:?}");
    let initial = ran_all(&log);
    for q in ["rulebook_outline", "lowering_diagnostics", "file_gates"] {
        assert!(initial.iter().any(|n| n == q), "{q} ran: {initial:?}");
    }
    // The whole record is never built for diagnostics.
    assert!(
        !initial.iter().any(|n| n == "lower_agent_file"),
        "{initial:?}"
    );

    let edited = db.loaded(Path::new("/many/rails/f07.co")).unwrap();
    let own = [
        "rulebook_dialect",
        "parse_rulebook_as",
        "rule_file_names",
        "rule_file_problems",
        "check_rule_file",
        "file_gates",
    ];
    let body_edits = [
        // Another condition, and lines that move what follows: the file's gate is as before.
        (
            "if $order_paid",
            "if $order_paid and $amount < 500\n    $note = 1",
            &own[..],
        ),
        // Another tool of the catalogue: the file governs another tool, so the join of the
        // files' gates runs again (it walks no other file).
        (
            "execute tool_07",
            "execute tool_03",
            &[&own[..], &["rulebook_gate_diagnostics"]].concat()[..],
        ),
    ];
    for (from, to, expected) in body_edits {
        let text = edited.text(&db).replace(from, to);
        db.set_text(edited, text);
        let after = stalwart_driver::compile::agent_diagnostics(&db, agent);
        assert!(after.is_empty(), "{after:?}");
        assert_eq!(ran_all(&log), expected, "{from} → {to}");
    }

    // A tool the catalogue lacks: the file's checks find it and nothing else runs but what
    // reads the file's diagnostics.
    let text = edited
        .text(&db)
        .replace("execute tool_03", "execute tool_03x");
    db.set_text(edited, text);
    let after = stalwart_driver::compile::agent_diagnostics(&db, agent);
    assert_eq!(
        after.iter().map(|d| d.code.id).collect::<Vec<_>>(),
        ["E1605"]
    );
    let rerun = ran_all(&log);
    assert!(
        !rerun.iter().any(|q| [
            "rulebook_outline",
            "rulebook_model",
            "flow_index",
            "lower_agent_file"
        ]
        .contains(&q.as_str())),
        "{rerun:?}"
    );
    assert_eq!(
        rerun.iter().filter(|q| *q == "check_rule_file").count(),
        1,
        "{rerun:?}"
    );
}
