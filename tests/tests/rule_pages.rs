//! Every rule of the hunter's catalogue has its page, `docs/rules/<rule>.md`: its first heading
//! names the rule's id and title, its type / gate / stop line is the rule table's, its OWASP line
//! is the rule's, and its example is the rule's `raises/` fixture with the report `stalwart verify`
//! really prints for it. `docs/rules/README.md` links every page.

use std::path::Path;

use stalwart_analyzer::RULES;
use stalwart_tests::{run, workspace};

fn page(id: &str) -> String {
    let path = workspace().join("docs/rules").join(format!("{id}.md"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The `Code checks:` line may differ in its file count and the rule set's digest only.
fn normalise(text: &str) -> String {
    let re = regex_lite::Regex::new(
        r"Code checks: no finding in \d+ file\(s\) \(rules [0-9a-f]{12}\)\.",
    )
    .unwrap();
    re.replace_all(text, "Code checks: no finding in N file(s) (rules DIGEST).")
        .into_owned()
}

#[test]
fn every_rule_has_its_page_with_the_tables_title_type_gate_and_stop() {
    for rule in RULES {
        let text = page(rule.id);
        assert_eq!(
            text.lines().next(),
            Some(format!("# {} {}", rule.id, rule.title).as_str()),
            "{}",
            rule.id
        );
        let line = format!(
            "Type: {} | Fails the gate: {} | Stops Agent(...): {}",
            rule.kind.as_str(),
            yes_no(rule.fails_gate),
            yes_no(rule.stops_agent)
        );
        assert!(
            text.lines().any(|l| l == line),
            "{}: no line `{line}`",
            rule.id
        );
        assert!(
            text.lines().any(|l| l == rule.owasp_line()),
            "{}: no line `{}`",
            rule.id,
            rule.owasp_line()
        );
        for section in [
            "## What it proves",
            "## What it does not prove",
            "## How to fix",
        ] {
            assert!(text.lines().any(|l| l == section), "{}: {section}", rule.id);
        }
        let fix = format!("Fix: {}", rule.fix_for("<subject>"));
        assert!(
            text.lines().any(|l| l == fix),
            "{}: no line `{fix}`",
            rule.id
        );
    }
}

/// A fixture file as the page shows it: its name, then a fenced block holding it whole.
fn shown(text: &str, name: &str, content: &str) -> bool {
    let lang = match Path::new(name).extension().and_then(|e| e.to_str()) {
        Some("yaml") => "yaml",
        Some("co") => "colang",
        Some("csv") => "csv",
        _ => "json",
    };
    text.contains(&format!("`{name}`:\n\n```{lang}\n{content}```\n"))
}

#[test]
fn every_page_example_is_its_fixture_with_the_report_verify_prints() {
    for rule in RULES {
        let dir = workspace()
            .join("tests/fixtures/proof")
            .join(rule.id)
            .join("raises");
        let text = page(rule.id);
        if !dir.is_dir() {
            assert_eq!(rule.id, "QG312", "only QG312 has no fixture");
            assert!(text.contains("no agent.yaml raises it"), "{}", rule.id);
            continue;
        }
        let mut args = vec!["verify", "agent.yaml", "--no-cache"];
        let mut shown_args = String::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let content = std::fs::read_to_string(dir.join(&name)).unwrap();
            assert!(shown(&text, &name, &content), "{}: {name}", rule.id);
            if name == "advisories.json" {
                shown_args = " --advisories advisories.json".to_string();
            }
        }
        if !shown_args.is_empty() {
            args.extend(["--advisories", "advisories.json"]);
        }
        let out = run(&dir, &args);
        let report = String::from_utf8(out.stdout).unwrap();
        let code = out.status.code().unwrap();
        let expected = format!(
            "```text\n$ stalwart verify agent.yaml{shown_args}\n{report}$ echo $?\n{code}\n```\n"
        );
        assert!(
            normalise(&text).contains(&normalise(&expected)),
            "{}: the page's report is not what verify prints:\n{report}",
            rule.id
        );
    }
}

#[test]
fn the_index_links_every_page() {
    let index = std::fs::read_to_string(workspace().join("docs/rules/README.md")).unwrap();
    for rule in RULES {
        let row = format!(
            "| [{id}]({id}.md) | {} | {} | {} | {} |",
            rule.title,
            rule.kind.as_str(),
            yes_no(rule.fails_gate),
            yes_no(rule.stops_agent),
            id = rule.id
        );
        assert!(index.contains(&row), "{}", rule.id);
    }
}

/// SARIF's `helpUri` of every rule is absolute: the published page of `docs/rules/<rule>.md`,
/// which exists in the repository.
#[test]
fn sarif_help_uris_are_absolute_and_name_an_existing_page() {
    let dir = tempfile::tempdir().unwrap();
    stalwart_tests::copy_tree(&stalwart_tests::shop(), dir.path());
    let out = stalwart_tests::run(dir.path(), &["verify", "agent.yaml", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.len() > 20);
    for rule in rules {
        let id = rule["id"].as_str().unwrap();
        assert_eq!(
            rule["helpUri"],
            format!("https://stalwart.dev/rules/{id}.md"),
            "{rule}"
        );
        assert!(
            workspace().join(format!("docs/rules/{id}.md")).exists(),
            "no page for {id}"
        );
    }
}
