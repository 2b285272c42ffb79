//! The standard library's data (`compiler/sema/data/nemo-library.json`) is made from the
//! reference package's own files: this test reads them again and compares. The package's files
//! are found at `$STALWART_NEMO_SRC` (the folder that holds `nemoguardrails/`, as `.ci/setup`
//! unpacks the pinned wheel); a missing folder fails the test unless `STALWART_SKIP_NEMO=1`
//! says to skip it. `UPDATE_EXPECT=1` writes the data file instead of comparing.

#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use stalwart_diagnostics::FileId;
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

/// The version of the reference package the data is made from.
const VERSION: &str = "0.24.1";

fn package_root() -> Option<PathBuf> {
    let root = std::env::var_os("STALWART_NEMO_SRC").map(PathBuf::from);
    match root {
        Some(r) if r.join("nemoguardrails").is_dir() => Some(r),
        other => {
            if std::env::var("STALWART_SKIP_NEMO").as_deref() == Ok("1") {
                println!("skipping: STALWART_SKIP_NEMO=1 and no package at {other:?}");
                return None;
            }
            panic!(
                "the reference package's files are missing: set STALWART_NEMO_SRC to the folder \
                 that holds `nemoguardrails/` (nemoguardrails {VERSION}, as .ci/setup unpacks it), \
                 or STALWART_SKIP_NEMO=1 to skip this test (found {other:?})"
            )
        }
    }
}

/// Every file under `dir` whose name passes `keep`, sorted.
fn files(dir: &Path, keep: &dyn Fn(&str) -> bool, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, keep, out);
        } else if keep(p.file_name().unwrap().to_str().unwrap()) {
            out.push(p);
        }
    }
}

/// The actions a 1.0 body runs (`execute x`), as tool names.
fn v1_actions(stmts: &[v1::Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        s.walk(&mut |s| {
            if let v1::StmtKind::Run(run) = &s.kind {
                out.insert(run.action.text.to_string());
            }
        });
    }
}

/// The actions a 2.x body runs (`await XAction`), as tool names.
fn v2_actions(stmts: &[v2::Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        if let v2::StmtKind::Spec { expr, .. } = &s.kind {
            spec_actions(expr, out);
        }
        for body in stalwart_sema::checks::v2_bodies(&s.kind) {
            v2_actions(body, out);
        }
        if let v2::StmtKind::Flow(f) = &s.kind {
            v2_actions(&f.body, out);
        }
    }
}

fn spec_actions(expr: &v2::SpecExpr, out: &mut BTreeSet<String>) {
    match expr {
        v2::SpecExpr::Spec(spec) => {
            if let v2::SpecTarget::Name { name, .. } = &spec.target
                && spec.kind() == v2::SpecKind::Action
                && let Some(tool) = stalwart_syntax::v2::action_tool_name(name)
            {
                out.insert(tool);
            }
        }
        v2::SpecExpr::And(items, _) | v2::SpecExpr::Or(items, _) => {
            for i in items.iter() {
                spec_actions(i, out);
            }
        }
    }
}

/// The library's data, made from the package at `root`.
fn make(root: &Path) -> Value {
    let pkg = root.join("nemoguardrails");
    // 1.0: the runtime's own flows and every library rail's `flows.v1.co`.
    let mut v1_files = vec![pkg.join("rails/llm/llm_flows.co")];
    files(&pkg.join("library"), &|n| n == "flows.v1.co", &mut v1_files);
    let mut v1_flows = BTreeSet::new();
    let mut v1_messages = BTreeSet::new();
    let mut v1_acts = BTreeSet::new();
    for f in &v1_files {
        let text = std::fs::read_to_string(f).unwrap();
        let parsed = stalwart_syntax::parse_v1(FileId(0), &text);
        for item in &parsed.value.items {
            match item {
                v1::Item::Flow(flow) => {
                    v1_flows.insert(flow.id.to_string());
                    v1_actions(&flow.body, &mut v1_acts);
                }
                v1::Item::Bot(b) => {
                    v1_messages.insert(b.name.text.to_string());
                }
                _ => {}
            }
        }
    }
    // 2.x: the standard library's modules, and each library rail's `flows.co` under its import
    // path.
    let mut modules = serde_json::Map::new();
    let mut v2_acts = BTreeSet::new();
    let mut v2_files: Vec<(String, PathBuf)> = Vec::new();
    let mut std_files = Vec::new();
    files(
        &pkg.join("colang/v2_x/library"),
        &|n| n.ends_with(".co"),
        &mut std_files,
    );
    for f in std_files {
        let name = f.file_stem().unwrap().to_str().unwrap().to_string();
        v2_files.push((name, f));
    }
    let mut rails = Vec::new();
    files(&pkg.join("library"), &|n| n == "flows.co", &mut rails);
    for f in rails {
        let rel = f.parent().unwrap().strip_prefix(root).unwrap();
        v2_files.push((rel.to_str().unwrap().replace('\\', "/"), f));
    }
    for (path, f) in &v2_files {
        let text = std::fs::read_to_string(f).unwrap();
        let parsed = stalwart_syntax::v2::parse_v2(FileId(0), &text);
        let mut flows = Vec::new();
        let mut imports = Vec::new();
        for item in &parsed.value.items {
            if let v2::Item::Import(i) = item {
                imports.push(i.path.trim_matches('"').to_string());
            }
            if let v2::Item::Flow(flow) = item {
                flows.push(json!({
                    "name": flow.name.as_str(),
                    "parameters": flow.parameters.iter().map(|p| p.name.to_string()).collect::<Vec<_>>(),
                }));
                v2_actions(&flow.body, &mut v2_acts);
            }
        }
        modules.insert(path.clone(), json!({"flows": flows, "imports": imports}));
    }
    json!({
        "source": format!("nemoguardrails {VERSION} (PyPI, Apache-2.0): rails/llm/llm_flows.co, library/**/flows.v1.co (1.0); colang/v2_x/library/*.co and library/**/flows.co (2.x)"),
        "v1": {
            "flows": v1_flows,
            "bot_messages": v1_messages,
            "actions": v1_acts,
        },
        "v2": {
            "modules": modules,
            "actions": v2_acts,
        },
    })
}

#[test]
fn the_library_data_is_what_the_reference_package_defines() {
    let Some(root) = package_root() else { return };
    let made = make(&root);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/nemo-library.json");
    let mut text = serde_json::to_string_pretty(&made).unwrap();
    text.push('\n');
    if std::env::var("UPDATE_EXPECT").as_deref() == Ok("1") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let shipped = std::fs::read_to_string(&path).unwrap();
    assert!(
        shipped == text,
        "compiler/sema/data/nemo-library.json differs from what nemoguardrails {VERSION} defines; \
         run this test with UPDATE_EXPECT=1 and review the difference"
    );
}

#[test]
fn the_shipped_library_knows_what_nemo_configs_use() {
    let lib = stalwart_sema::model::library::library();
    assert!(
        lib.source.starts_with("nemoguardrails 0.24.1"),
        "{}",
        lib.source
    );
    for message in ["refuse to respond", "inform answer unknown"] {
        assert!(lib.v1_bot_messages.contains(message), "{message}");
    }
    for flow in ["self check input", "generate user intent"] {
        assert!(lib.v1_flows.contains(flow), "{flow}");
    }
    let core = lib.v2_module("core").expect("core");
    let said = core
        .iter()
        .find(|f| f.name == "user said")
        .expect("user said");
    assert_eq!(said.parameters, ["text"]);
    assert!(lib.v2_module("llm").is_some());
    assert!(lib.v2_module("guardrails").is_some());
    assert!(lib.v2_module("avatars").is_some());
    assert!(
        lib.v2_module("nemoguardrails/library/self_check/input_check")
            .is_some_and(|m| m.iter().any(|f| f.name == "self check input"))
    );
    assert_eq!(lib.v2_flow_module("bot say"), Some("core"));
    assert!(lib.actions.contains("self_check_input"));
    // `import llm` brings `timing` with it.
    let closure = lib.v2_imports_closure(["llm"]);
    assert_eq!(closure, ["core", "llm", "timing"]);
}
