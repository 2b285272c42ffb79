//! Input errors, every one with its code, from the command line: a folder, a binary file, a file
//! that is not UTF-8 (which byte, where) or one with a byte-order mark, as the input or named in
//! agent.yaml; an empty rulebook; a sheet separated by `;`; a consequence after its cause. Each
//! is checked as `--format json` prints it: code, message, place.

use std::path::Path;

use serde_json::Value;
use stalwart_tests::run;

/// One diagnostic as `(code, file, line, column, message)`.
type Found = (String, String, u64, u64, String);

/// The diagnostics `stalwart compile agent.yaml --format json` prints, and its exit code.
fn compile(dir: &Path) -> (Vec<Found>, Option<i32>) {
    let out = run(dir, &["compile", "agent.yaml", "--format", "json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let found = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("code").is_some())
        .map(|v| {
            (
                v["code"].as_str().unwrap().to_owned(),
                v["file"].as_str().unwrap().to_owned(),
                v["start"]["line"].as_u64().unwrap(),
                v["start"]["column"].as_u64().unwrap(),
                v["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (found, out.status.code())
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

const AGENT: &str = "agents:\n  desk:\n    tools: [lookup]\ntools:\n  - mcp: servers/tools.json\n";
const ANSWER: &str = r#"{"tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]}"#;

fn one(found: &[Found]) -> (&str, u64, u64, &str) {
    assert_eq!(found.len(), 1, "{found:#?}");
    let (code, _, line, column, message) = &found[0];
    (code.as_str(), *line, *column, message.as_str())
}

#[test]
fn agent_yaml_that_is_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("agent.yaml")).unwrap();
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        one(&found),
        ("E0004", 1, 1, "`agent.yaml` is a folder, not a file")
    );
}

#[test]
fn agent_yaml_that_is_binary() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agent.yaml", b"agents:\x00\x01\x02");
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        one(&found),
        (
            "E0005",
            1,
            1,
            "`agent.yaml` is a binary file, not text: byte 7 is a NUL byte"
        )
    );
}

#[test]
fn agent_yaml_that_is_not_utf8_says_which_byte_where() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agent.yaml", b"agents:\n  d\xe9sk: {}\n");
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        one(&found),
        (
            "E0006",
            2,
            4,
            "`agent.yaml` is not UTF-8 text: byte `0xE9` at line 2, column 4 starts no character"
        )
    );
}

#[test]
fn a_byte_order_mark_is_a_warning_and_the_file_is_read_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = b"\xef\xbb\xbf".to_vec();
    text.extend_from_slice(AGENT.as_bytes());
    write(dir.path(), "agent.yaml", &text);
    write(dir.path(), "servers/tools.json", ANSWER.as_bytes());
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(0));
    assert_eq!(
        one(&found),
        (
            "W0007",
            1,
            1,
            "`agent.yaml` starts with a byte-order mark: it is read without it"
        )
    );
}

#[test]
fn an_mcp_answer_named_in_agent_yaml_that_is_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agent.yaml", AGENT.as_bytes());
    std::fs::create_dir_all(dir.path().join("servers/tools.json")).unwrap();
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        one(&found),
        (
            "E0004",
            5,
            10,
            "`servers/tools.json` is a folder, not a file"
        )
    );
}

#[test]
fn an_mcp_answer_named_in_agent_yaml_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agent.yaml", AGENT.as_bytes());
    write(
        dir.path(),
        "servers/tools.json",
        b"{\"tools\": [\n{\"name\": \"l\xffokup\"}]}",
    );
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        one(&found),
        (
            "E0006",
            5,
            10,
            "`servers/tools.json` is not UTF-8 text: byte `0xFF` at line 2, column 12 starts no character"
        )
    );
}

#[test]
fn a_python_module_named_in_agent_yaml_that_is_binary() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "agent.yaml",
        b"agents:\n  desk: {}\ntools:\n  - python: shop.tools\n",
    );
    write(dir.path(), "shop/tools.py", b"\x7fELF\x02\x01\x01\x00");
    let (found, _) = compile(dir.path());
    assert_eq!(
        one(&found),
        (
            "E0005",
            4,
            13,
            "`shop/tools.py` is a binary file, not text: byte 7 is a NUL byte"
        )
    );
}

#[test]
fn an_empty_rulebook_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let agent = format!("{AGENT}rulebook: policy.co\n");
    write(dir.path(), "agent.yaml", agent.as_bytes());
    write(dir.path(), "servers/tools.json", ANSWER.as_bytes());
    write(dir.path(), "policy.co", b"# nothing yet\n\n");
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(0));
    assert_eq!(
        one(&found),
        (
            "W1617",
            1,
            1,
            "the rulebook `policy.co` defines nothing: it governs no tool"
        )
    );
}

#[test]
fn a_sheet_separated_by_semicolons_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "rules.csv",
        b"rule;tool;when;then;say\nrefunds;refund_card;;allow;\n",
    );
    let out = run(
        dir.path(),
        &["rules", "compile", "rules.csv", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["code"], "E1522");
    assert_eq!(first["message"], "the sheet's columns are separated by `;`");
    assert_eq!(first["start"]["line"], 1);
}

#[test]
fn a_name_that_does_not_resolve_follows_the_error_of_the_file_that_should_declare_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agent.yaml", AGENT.as_bytes());
    write(
        dir.path(),
        "servers/tools.json",
        br#"{"tools": [{"inputSchema": {}}]}"#,
    );
    let (found, code) = compile(dir.path());
    assert_eq!(code, Some(2));
    let codes: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(codes, vec!["E0254", "E0150"], "{found:#?}");
}

#[test]
fn rules_compile_takes_a_folder_and_several_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "rules/a.csv",
        b"rule,tool,when,then,say\nrefunds,refund_card,,allow,\n",
    );
    write(
        dir.path(),
        "rules/b.csv",
        b"rule,tool,when,then,say\nreceipts,send_receipt,,allow,\n",
    );
    let out = run(dir.path(), &["rules", "compile", "rules", "-o", "out1"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("it governs refund_card, send_receipt\n"),
        "{text}"
    );
    let out = run(
        dir.path(),
        &[
            "rules",
            "compile",
            "rules/b.csv",
            "rules/a.csv",
            "-o",
            "out2",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out2/manifest.json")).unwrap(),
    )
    .unwrap();
    let sources: Vec<&str> = manifest["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(sources, vec!["b.csv", "a.csv"]);
}
