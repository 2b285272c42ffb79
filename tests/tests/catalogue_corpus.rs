//! The corpus of real catalogues (`tests/corpus/catalogues/`, sources in its README): every input
//! compiles with its agent.yaml, and `tools.table` states, for each input, the tools it declares
//! and how the record holds them (effects, flags, arguments, argument kinds, what agent.yaml's
//! overrides set). `UPDATE_EXPECT=1 cargo test -p stalwart-tests --test catalogue_corpus` writes
//! the table again; review its diff like code.
//!
//! The MCP SDK's examples are in the corpus twice, as the Python module and as the `tools/list`
//! answer the SDK gives for it: both readings must declare the same tools with the same arguments,
//! the same required ones and the same top-level types.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_driver::{CompileOptions, DiskLoader, compile_agent};
use stalwart_record::{Effects, RecordBody, TypeSet};
use stalwart_tests::workspace;

fn corpus() -> PathBuf {
    workspace().join("tests").join("corpus").join("catalogues")
}

fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".agent.yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus is missing: {files:?}");
    files
}

/// Compiles one input; every diagnostic is a failure (the corpus compiles clean).
fn compile(agent: &Path) -> RecordBody {
    let out = tempfile::tempdir().unwrap();
    let outcome = compile_agent(
        Arc::new(DiskLoader),
        agent,
        &CompileOptions {
            out: Some(out.path().join("record")),
        },
    );
    let rendered = stalwart_diagnostics::render_text(&outcome.files, &outcome.diagnostics);
    assert!(
        outcome.diagnostics.is_empty() && outcome.fatal.is_none(),
        "{}:\n{rendered}{:?}",
        agent.display(),
        outcome.fatal
    );
    outcome.written.unwrap().body
}

fn type_names(bits: u8) -> String {
    let names = [
        (TypeSet::NULL, "null"),
        (TypeSet::BOOLEAN, "boolean"),
        (TypeSet::INTEGER, "integer"),
        (TypeSet::NUMBER, "number"),
        (TypeSet::STRING, "string"),
        (TypeSet::ARRAY, "array"),
        (TypeSet::OBJECT, "object"),
    ];
    let set: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    if set.is_empty() {
        "any".to_owned()
    } else {
        set.join("|")
    }
}

/// The top-level type of a property's schema, looking through one `$ref` and an `anyOf` of
/// alternatives (`Optional[X]` reads `X|null`).
fn property_type(body: &RecordBody, idx: u32, depth: usize) -> u8 {
    let Some(node) = body.schema_nodes.get(idx as usize) else {
        return 0;
    };
    if node.types != 0 || depth > 4 {
        return node.types;
    }
    if let Some(target) = node.reference {
        return property_type(body, target, depth + 1);
    }
    let alternatives: Vec<u8> = node
        .any_of
        .iter()
        .map(|&i| property_type(body, i, depth + 1))
        .collect();
    if alternatives.contains(&0) {
        0
    } else {
        alternatives.iter().fold(0, |a, b| a | b)
    }
}

/// Each tool's arguments: `name: type` in declaration order, `*` after a required one.
fn arguments(body: &RecordBody, tool: &stalwart_record::Tool) -> Vec<(String, String, bool)> {
    let Some(root) = tool
        .arguments
        .and_then(|i| body.schema_nodes.get(i as usize))
    else {
        return Vec::new();
    };
    root.properties
        .iter()
        .map(|(name, idx)| {
            (
                name.clone(),
                type_names(property_type(body, *idx, 0)),
                root.required.contains(name),
            )
        })
        .collect()
}

fn table_of(agent: &Path, body: &RecordBody, overridden: &BTreeMap<String, Vec<String>>) -> String {
    let name = agent.file_name().unwrap().to_string_lossy().into_owned();
    let mut out = format!("## {name}\n");
    for tool in &body.tools {
        let effects = match tool.effects {
            Effects::Reads => "reads",
            Effects::Changes => "changes",
            Effects::Unknown => "unknown",
        };
        let mut flags = Vec::new();
        if tool.sends_out {
            flags.push("sends_out");
        }
        if tool.reads_outside {
            flags.push("reads_outside");
        }
        if tool.irreversible {
            flags.push("irreversible");
        }
        if tool.confidential {
            flags.push("confidential");
        }
        if tool.schema_partial {
            flags.push("schema_partial");
        }
        let args: Vec<String> = arguments(body, tool)
            .into_iter()
            .map(|(n, t, required)| format!("{n}{}: {t}", if required { "*" } else { "" }))
            .collect();
        let kinds: Vec<String> = tool
            .argument_kinds
            .iter()
            .map(|(a, k)| format!("{a}={}", format!("{k:?}").to_lowercase()))
            .collect();
        out.push_str(&format!(
            "{} | {effects} | {} | ({}) | {} | {}\n",
            tool.name,
            if flags.is_empty() {
                "-".to_owned()
            } else {
                flags.join(" ")
            },
            args.join(", "),
            if kinds.is_empty() {
                "-".to_owned()
            } else {
                kinds.join(" ")
            },
            overridden
                .get(&tool.name)
                .filter(|k| !k.is_empty())
                .map_or("-".to_owned(), |k| format!("overrides: {}", k.join(" "))),
        ));
    }
    out
}

/// The keys agent.yaml's `overrides:` sets, per tool, as the manifest reports them.
fn overridden(agent: &Path) -> BTreeMap<String, Vec<String>> {
    let out = tempfile::tempdir().unwrap();
    let outcome = compile_agent(
        Arc::new(DiskLoader),
        agent,
        &CompileOptions {
            out: Some(out.path().join("record")),
        },
    );
    let manifest = outcome.written.unwrap().manifest;
    manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let keys = t["overrides"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|k| k.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            (t["name"].as_str().unwrap().to_owned(), keys)
        })
        .collect()
}

#[test]
fn every_catalogue_of_the_corpus_compiles_as_the_table_states() {
    let mut table = String::from(
        "# tool | effects | flags | (arguments: type, * required) | argument kinds | overrides\n",
    );
    for agent in inputs() {
        let body = compile(&agent);
        table.push('\n');
        table.push_str(&table_of(&agent, &body, &overridden(&agent)));
    }
    let path = corpus().join("tools.table");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == table,
        "tools.table differs (UPDATE_EXPECT=1 writes it):\n{table}"
    );
}

#[test]
fn sdk_examples_read_statically_match_the_answer_the_sdk_gives() {
    let examples = [
        "complex_inputs",
        "parameter_descriptions",
        "weather_structured",
        "desktop",
        "echo",
        "simple_echo",
        "unicode_example",
    ];
    let mut wrong = Vec::new();
    for example in examples {
        let python = compile(&corpus().join(format!("python-mcp-{example}.agent.yaml")));
        let mcp = compile(&corpus().join(format!("mcp-sdk-{example}.agent.yaml")));
        let names = |b: &RecordBody| b.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        if names(&python) != names(&mcp) {
            wrong.push(format!(
                "{example}: tools {:?} / {:?}",
                names(&python),
                names(&mcp)
            ));
            continue;
        }
        for (p, m) in python.tools.iter().zip(&mcp.tools) {
            let (pa, ma) = (arguments(&python, p), arguments(&mcp, m));
            if pa != ma {
                wrong.push(format!("{example} {}: {pa:?} / {ma:?}", p.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
