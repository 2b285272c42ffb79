//! Every witness the proof prints, replayed through the runtime: each proof fixture with a
//! finding on a path is verified, its witness sessions are written as scenarios (as
//! `stalwart verify --witnesses DIR` writes them) and run by the conformance runner, which asks
//! `check_tool_call` each call and compares its decision with the one the proof's model claims.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_analyzer::witness::{to_yaml, witness_sessions};
use stalwart_driver::DiskLoader;
use stalwart_driver::verify::{VerifyOptions, verify_agent};
use stalwart_tests::scenario::run_scenario;
use stalwart_tests::{run, workspace};

/// Every agent.yaml of the proof fixtures and the examples.
fn proof_fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let proof = workspace().join("tests/fixtures/proof");
    for rule in std::fs::read_dir(&proof).unwrap().flatten() {
        for variant in ["raises", "clean"] {
            let agent = rule.path().join(variant).join("agent.yaml");
            if agent.exists() {
                out.push(agent);
            }
        }
    }
    for example in std::fs::read_dir(workspace().join("examples"))
        .unwrap()
        .flatten()
    {
        let agent = example.path().join("agent.yaml");
        if agent.exists() {
            out.push(agent);
        }
    }
    out.sort();
    out
}

/// Verifies `agent` with the explicit engine and writes its witness sessions into `dir`; the
/// files written.
fn write_witnesses(agent: &Path, dir: &Path) -> Vec<PathBuf> {
    let options = VerifyOptions {
        cache: false,
        engines: Some(vec!["explicit".to_string()]),
        ..VerifyOptions::default()
    };
    let outcome = verify_agent(Arc::new(DiskLoader), agent, &options);
    let (Some(graph), Some(body), Some(proof)) = (&outcome.graph, &outcome.body, &outcome.proof)
    else {
        return Vec::new();
    };
    let sessions = witness_sessions(graph, body, &proof.findings, &agent.to_string_lossy());
    sessions
        .iter()
        .map(|s| {
            let path = dir.join(&s.file);
            std::fs::write(&path, to_yaml(&s.scenario)).unwrap();
            path
        })
        .collect()
}

#[test]
fn every_witness_of_every_proof_fixture_replays_through_the_tool_check() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    let mut fixtures_with_witnesses = 0;
    for agent in proof_fixtures() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_witnesses(&agent, dir.path());
        fixtures_with_witnesses += usize::from(!written.is_empty());
        for file in written {
            match run_scenario(&file) {
                Ok(_) => replayed += 1,
                Err(e) => failures.push(format!(
                    "{} ({}):\n{e}\n{}",
                    agent.display(),
                    file.file_name().unwrap().to_string_lossy(),
                    std::fs::read_to_string(&file).unwrap()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        fixtures_with_witnesses >= 10,
        "only {fixtures_with_witnesses} fixtures have witnesses"
    );
    assert!(replayed >= fixtures_with_witnesses);
}

fn qg003_witness(dir: &Path) -> PathBuf {
    let agent = workspace().join("tests/fixtures/proof/QG003/raises/agent.yaml");
    let written = write_witnesses(&agent, dir);
    written
        .into_iter()
        .find(|f| f.ends_with("QG003-refund_card.yaml"))
        .expect("the QG003 fixture's witness")
}

#[test]
fn a_witness_replays_only_when_the_runtime_decides_what_it_claims() {
    let dir = tempfile::tempdir().unwrap();
    let file = qg003_witness(dir.path());
    assert_eq!(run_scenario(&file).map(|_| ()), Ok(()));
    // The last check of refund_card, in billing's own session, claimed allowed: claim a refusal.
    let text = std::fs::read_to_string(&file).unwrap();
    let claim = "expect: {decision: \"allow\"";
    let at = text.rfind(claim).unwrap();
    let mut wrong = text.clone();
    wrong.replace_range(at..at + claim.len(), "expect: {decision: \"refuse\"");
    std::fs::write(&file, wrong).unwrap();
    let err = run_scenario(&file).unwrap_err();
    assert!(err.contains("expected \"refuse\""), "{err}");
}

#[test]
fn verify_writes_one_witness_file_per_finding_named_after_its_rule_and_subject() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = workspace().join("tests/fixtures/proof/QG003/raises");
    let out = dir.path().join("witnesses");
    let status = run(
        &fixture,
        &[
            "verify",
            "agent.yaml",
            "--no-cache",
            "--witnesses",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(status.status.code(), Some(1), "{status:?}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.contains(&"QG003-refund_card.yaml".to_string()),
        "{names:?}"
    );
    for name in &names {
        let file = out.join(name);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# The witness of "), "{text}");
        assert_eq!(run_scenario(&file).map(|_| ()), Ok(()), "{text}");
    }
    // The same proof writes the same bytes.
    let again = dir.path().join("again");
    run(
        &fixture,
        &[
            "verify",
            "agent.yaml",
            "--no-cache",
            "--witnesses",
            again.to_str().unwrap(),
        ],
    );
    for name in &names {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap()
        );
    }
}
