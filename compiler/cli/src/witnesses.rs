//! `stalwart verify --witnesses DIR`: each finding's witness path written as a scenario of the
//! conformance format, one file per finding, named after its rule and subject.

use std::path::{Component, Path, PathBuf};

use stalwart_driver::verify::VerifyOutcome;

/// Writes the witness sessions of a verify into `dir` (created when missing).
pub fn write(dir: &Path, agent: &Path, outcome: &VerifyOutcome) -> Result<(), String> {
    let (Some(graph), Some(body), Some(proof)) = (&outcome.graph, &outcome.body, &outcome.proof)
    else {
        return Ok(());
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the folder `{}`: {e}", dir.display()))?;
    let agent_path = relative_to(dir, agent);
    let sessions = stalwart_analyzer::witness::witness_sessions(
        graph,
        body,
        &proof.findings,
        &agent_path.to_string_lossy(),
    );
    for s in sessions {
        let path = dir.join(&s.file);
        std::fs::write(&path, stalwart_analyzer::witness::to_yaml(&s.scenario))
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// `target` as a path relative to the folder `from` (both made absolute first); the absolute
/// path when they share no root.
fn relative_to(from: &Path, target: &Path) -> PathBuf {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, target) = (absolute(from), absolute(target));
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = target.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return target;
    }
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in b.iter().skip(common) {
        out.push(c.as_os_str());
    }
    out
}
