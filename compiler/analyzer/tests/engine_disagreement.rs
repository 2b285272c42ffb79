//! How the engines' answers combine: a forced disagreement is QG312 on the obligation's subject
//! and fails the gate; a witness that does not replay is one too; an engine that could not decide
//! defers to one that did.

mod common;

use std::collections::BTreeMap;

use common::{AgentSpec, At, Spec, StepSpec, ToolSpec};
use stalwart_analyzer::engine::{Engine, Explicit};
use stalwart_analyzer::findings::{self, Inputs};
use stalwart_analyzer::system::{Answer, Bounds, Obligation, System};
use stalwart_analyzer::{Hunt, hunt};

/// An engine that gives one answer to every obligation.
struct Stub(Answer);

impl Engine for Stub {
    fn name(&self) -> &'static str {
        "stub"
    }

    fn solve(&self, sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
        sys.obligations
            .iter()
            .map(|o| (o.clone(), self.0.clone()))
            .collect()
    }
}

/// One agent whose custom step calls `t0` itself, around the check.
fn spec() -> Spec {
    Spec {
        tools: vec![ToolSpec::read()],
        agents: vec![AgentSpec {
            model: true,
            tools: vec![0],
            hands_off_to: Vec::new(),
            privilege: 0,
            on_unread: "refuse",
        }],
        steps: vec![StepSpec {
            agent: 0,
            from: vec![At::Router],
            routes: vec![At::End],
            calls: vec![0],
            guarded: false,
        }],
        ..Spec::default()
    }
}

fn check(stub: Answer) -> Hunt {
    let spec = spec();
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let body = stalwart_record::RecordBody::default();
    let inputs = Inputs {
        graph: &graph,
        catalogue: &catalogue,
        body: &body,
        rulebook_errors: &[],
        has_rulebook: false,
        rulebook: &stalwart_analyzer::rulebook::RulebookInput::default(),
    };
    let bounds = Bounds {
        depth: 6,
        turns: 1,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    hunt(&inputs, &sys, &[&Explicit, &Stub(stub)])
}

fn obligation(rule: &'static str) -> Obligation {
    Obligation {
        rule,
        subject: "t0".to_string(),
    }
}

fn messages(h: &Hunt, rule: &str) -> Vec<String> {
    h.findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| format!("{} on {}: {}", f.rule, f.subject, f.message))
        .collect()
}

#[test]
fn an_engine_that_finds_no_path_where_the_search_does_is_qg312_and_fails_the_gate() {
    let h = check(Answer::Unreachable);
    assert_eq!(
        messages(&h, "QG312"),
        [
            "QG312 on a0: the engines disagree on reach_model for 'a0': explicit says reachable, stub says unreachable",
            "QG312 on t0: the engines disagree on QG001 for 't0': explicit says reachable, stub says unreachable",
        ]
    );
    // The path finding stands, with the search's witness.
    assert_eq!(
        h.answers.get(&obligation("QG001")),
        Some(&Answer::Reachable(vec![0, 7, 9]))
    );
    assert_eq!(messages(&h, "QG001").len(), 1);
    assert!(
        h.findings
            .iter()
            .filter(|f| f.rule == "QG312")
            .all(findings::fails_gate)
    );
}

#[test]
fn a_witness_that_does_not_replay_is_qg312_and_does_not_count() {
    // The stub claims every obligation with a path of one edge that raises nothing.
    let h = check(Answer::Reachable(vec![0]));
    let qg312 = messages(&h, "QG312");
    assert!(qg312.contains(
        &"QG312 on t0: the engines disagree on QG001 for 't0': explicit says reachable, stub says reachable, and the witness stub gives does not replay through the tool check"
            .to_string()
    ), "{qg312:?}");
    assert!(qg312.contains(
        &"QG312 on step0: the engines disagree on QG011 for 'step0': explicit says unreachable, stub says reachable, and the witness stub gives does not replay through the tool check"
            .to_string()
    ), "{qg312:?}");
    assert_eq!(
        h.answers.get(&obligation("QG001")),
        Some(&Answer::Reachable(vec![0, 7, 9]))
    );
    let qg011 = Obligation {
        rule: "QG011",
        subject: "step0".to_string(),
    };
    assert_eq!(h.answers.get(&qg011), Some(&Answer::Unreachable));
}

#[test]
fn an_undecided_engine_defers_to_the_one_that_decided() {
    let h = check(Answer::Undecided);
    assert_eq!(messages(&h, "QG312"), Vec::<String>::new());
    assert!(h.undecided.is_empty());
    let qg001 = h
        .verdicts
        .iter()
        .find(|v| v.rule == "QG001")
        .map(|v| v.engines.clone());
    assert_eq!(
        qg001,
        Some(vec![
            ("explicit".to_string(), "reachable".to_string()),
            ("stub".to_string(), "undecided".to_string()),
        ])
    );
}
