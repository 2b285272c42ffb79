//! The salsa database re-runs only what an edit touches: editing the Python tool module re-reads
//! that module and what depends on it, never agent.yaml's parse or the rulebook's.

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
