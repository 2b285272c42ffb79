//! The diagnostics `stalwart compile` and the language server report for lowering come from
//! `lowering_diagnostics` (the tools' schemas, and the gate file by file), without the record;
//! the record's own lowering (`lower_agent_file`, over the whole rulebook's model) must give the
//! same list. Checked on every agent.yaml of the repository (examples and fixtures) whose analysis
//! finds no error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_diagnostics::Diagnostic;
use stalwart_driver::{Database, DiskLoader};

fn agent_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                agent_files(&path, out);
            }
        } else if name == "agent.yaml" {
            out.push(path);
        }
    }
}

fn sorted(mut list: Vec<Diagnostic>) -> Vec<Diagnostic> {
    stalwart_diagnostics::sort(&mut list);
    list
}

#[test]
fn lowering_diagnostics_are_the_records_lowerings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["examples", "tests", "docs", "python"] {
        agent_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut compared = 0;
    for path in &files {
        let Ok((db, file)) = Database::open(Arc::new(DiskLoader), path) else {
            continue;
        };
        let analysis = stalwart_sema::analyze_agent(&db, file);
        if analysis.diagnostics.iter().any(Diagnostic::is_error) {
            continue;
        }
        let without = sorted(stalwart_lower::lowering_diagnostics(&db, file).clone());
        let with = sorted(
            stalwart_lower::lower_agent_file(&db, file)
                .diagnostics
                .clone(),
        );
        assert_eq!(without, with, "{}", path.display());
        compared += 1;
    }
    assert!(compared > 10, "only {compared} agents compared");
}
