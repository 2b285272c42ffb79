//! The crate layering of STYLE.md §1, enforced over `cargo metadata`: a dependency edge
//! between workspace crates that is not in the allowed list fails, and the runtime's crates
//! must not pull in the compiler's heavy machinery.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Allowed edges: crate → the workspace crates it may depend on (normal and build dependencies).
const ALLOWED: &[(&str, &[&str])] = &[
    ("stalwart-record", &[]),
    ("stalwart-runtime", &["stalwart-record"]),
    // The selector reads the record and nothing else (DESIGN §6).
    ("stalwart-router", &["stalwart-record"]),
    ("stalwart-host", &["stalwart-record", "stalwart-runtime"]),
    (
        "stalwart-store",
        &["stalwart-record", "stalwart-runtime", "stalwart-host"],
    ),
    ("stalwart-diagnostics", &[]),
    ("stalwart-syntax", &["stalwart-diagnostics"]),
    ("stalwart-agent", &["stalwart-diagnostics"]),
    ("stalwart-db", &["stalwart-diagnostics"]),
    (
        "stalwart-sema",
        &[
            "stalwart-diagnostics",
            "stalwart-db",
            "stalwart-agent",
            "stalwart-syntax",
        ],
    ),
    (
        "stalwart-lower",
        &[
            "stalwart-diagnostics",
            "stalwart-db",
            "stalwart-agent",
            "stalwart-syntax",
            "stalwart-sema",
            "stalwart-record",
            // The readers are built by the code that reads turns with them.
            "stalwart-router",
        ],
    ),
    (
        "stalwart-graph",
        &[
            "stalwart-diagnostics",
            "stalwart-agent",
            "stalwart-record",
            "stalwart-sema",
            "stalwart-db",
            "stalwart-lower",
        ],
    ),
    (
        "stalwart-analyzer",
        &[
            "stalwart-graph",
            "stalwart-diagnostics",
            "stalwart-agent",
            "stalwart-record",
            "stalwart-sema",
            "stalwart-db",
            "stalwart-lower",
        ],
    ),
    (
        "stalwart-driver",
        &[
            "stalwart-diagnostics",
            "stalwart-db",
            "stalwart-agent",
            "stalwart-syntax",
            "stalwart-sema",
            "stalwart-lower",
            "stalwart-record",
            "stalwart-runtime",
            "stalwart-router",
            "stalwart-host",
            "stalwart-store",
            "stalwart-graph",
            "stalwart-analyzer",
        ],
    ),
    // Scenario files run against the check of the agent each names (compiled by the driver).
    (
        "stalwart-scenario",
        &[
            "stalwart-agent",
            "stalwart-diagnostics",
            "stalwart-driver",
            "stalwart-record",
            "stalwart-runtime",
            "stalwart-router",
        ],
    ),
    // Editor features as plain data, over the compiler's façade and the explicit-state proof.
    (
        "stalwart-ide",
        &[
            "stalwart-diagnostics",
            "stalwart-db",
            "stalwart-agent",
            "stalwart-syntax",
            "stalwart-sema",
            "stalwart-graph",
            "stalwart-driver",
            "stalwart-analyzer",
            "stalwart-scenario",
        ],
    ),
    // The only crate that speaks LSP.
    ("stalwart-lsp", &["stalwart-ide", "stalwart-diagnostics"]),
    (
        "stalwart-cli",
        &[
            "stalwart-lsp",
            "stalwart-driver",
            "stalwart-graph",
            "stalwart-analyzer",
            "stalwart-diagnostics",
            "stalwart-record",
            "stalwart-runtime",
            "stalwart-scenario",
            "stalwart-syntax",
        ],
    ),
    // The Python package's native part: conversions over the runtime and its host side, the
    // selector, the store, and the compiler's façade as the command line uses it (the driver, the
    // proof's report and rule table, the diagnostics' renderer). It holds no logic the runtime
    // lacks.
    (
        "stalwart-python",
        &[
            "stalwart-record",
            "stalwart-runtime",
            "stalwart-host",
            "stalwart-router",
            "stalwart-store",
            "stalwart-driver",
            "stalwart-analyzer",
            "stalwart-diagnostics",
        ],
    ),
    (
        "stalwart-tests",
        &[
            "stalwart-agent",
            "stalwart-diagnostics",
            "stalwart-driver",
            "stalwart-record",
            "stalwart-runtime",
            "stalwart-host",
            "stalwart-store",
            "stalwart-router",
            "stalwart-scenario",
        ],
    ),
];

/// Extra edges allowed only as dev-dependencies (tests that cross a boundary on purpose).
const ALLOWED_DEV: &[(&str, &[&str])] = &[
    ("stalwart-lower", &["stalwart-runtime"]),
    // The rule fixtures and pages are checked against the analyzer's rule table.
    ("stalwart-tests", &["stalwart-analyzer"]),
    // The record's tests and benchmark use the crate itself with its `serde` feature on.
    ("stalwart-record", &["stalwart-record"]),
    // The server's tests turn on its `test-hooks` feature (a request that panics on purpose).
    ("stalwart-lsp", &["stalwart-lsp"]),
];

/// Crates the runtime side must never depend on, directly or not.
const NOT_IN_RUNTIME: &[&str] = &[
    "salsa",
    "saphyr",
    "serde_yaml",
    "z3",
    "lalrpop",
    "lalrpop-util",
    "logos",
    "codespan-reporting",
    "tree-sitter",
];

/// The host's target triple, as `rustc -vV` prints it.
fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

fn metadata(no_deps: bool) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["metadata", "--format-version", "1", "--offline"]);
    if no_deps {
        cmd.arg("--no-deps");
    } else {
        // The packages this machine builds with: those of other platforms are never downloaded
        // by a build, and `--offline` could not resolve them.
        cmd.args(["--filter-platform", &host_triple()]);
    }
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let out = cmd.output().expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn workspace_crates_depend_only_along_the_allowed_layers() {
    let meta = metadata(true);
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let allowed_dev: BTreeMap<&str, &[&str]> = ALLOWED_DEV.iter().copied().collect();
    let mut violations = Vec::new();
    let mut seen = BTreeSet::new();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        seen.insert(name.to_string());
        let Some(ok) = allowed.get(name) else {
            violations.push(format!(
                "`{name}` is not in the layering table: add it deliberately"
            ));
            continue;
        };
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            if !dep_name.starts_with("stalwart-") {
                continue;
            }
            let is_dev = dep["kind"].as_str() == Some("dev");
            let allowed_edge = ok.contains(&dep_name)
                || (is_dev && allowed_dev.get(name).is_some_and(|d| d.contains(&dep_name)));
            if !allowed_edge {
                violations.push(format!(
                    "`{name}` → `{dep_name}`{} is not an allowed edge",
                    if is_dev { " (dev)" } else { "" }
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering violations:\n{}",
        violations.join("\n")
    );
    for (name, _) in ALLOWED {
        assert!(
            seen.contains(*name),
            "the layering table names `{name}`, which is not in the workspace"
        );
    }
}

#[test]
fn the_runtime_pulls_in_no_compiler_machinery() {
    let meta = metadata(false);
    let resolve = &meta["resolve"]["nodes"];
    let packages = meta["packages"].as_array().unwrap();
    let name_of: BTreeMap<&str, &str> = packages
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let deps_of: BTreeMap<&str, Vec<(&str, bool)>> = resolve
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let deps = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    let normal = d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null());
                    (d["pkg"].as_str().unwrap(), normal)
                })
                .collect();
            (n["id"].as_str().unwrap(), deps)
        })
        .collect();
    for root in [
        "stalwart-runtime",
        "stalwart-record",
        "stalwart-host",
        "stalwart-store",
        "stalwart-router",
    ] {
        let id = name_of
            .iter()
            .find(|(_, n)| **n == root)
            .map(|(id, _)| *id)
            .unwrap();
        let mut stack = vec![id];
        let mut reached = BTreeSet::new();
        while let Some(next) = stack.pop() {
            for (dep, normal) in deps_of.get(next).cloned().unwrap_or_default() {
                if normal && reached.insert(dep) {
                    stack.push(dep);
                }
            }
        }
        let names: BTreeSet<&str> = reached.iter().map(|id| name_of[id]).collect();
        for forbidden in NOT_IN_RUNTIME {
            assert!(
                !names.contains(forbidden),
                "`{root}` depends on `{forbidden}`"
            );
        }
    }
}

/// The language server builds without z3 (DESIGN §1): in the editor the explicit-state engine
/// answers. `cargo tree -p` resolves the features of that package alone, as its build does.
#[test]
fn the_language_server_builds_without_z3() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "stalwart-lsp",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        tree.lines().any(|l| l.starts_with("stalwart-ide ")),
        "{tree}"
    );
    let z3: Vec<&str> = tree.lines().filter(|l| l.starts_with("z3")).collect();
    assert!(z3.is_empty(), "stalwart-lsp depends on {z3:?}");
}
