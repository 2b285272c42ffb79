//! Dead paths of a rulebook's gate (QG010): a path whose condition never holds, and a path the
//! paths before it with the same intent always take first. The enumeration and z3 give the same
//! verdict on every path both decide, on a fixed gate and on random ones.

#![cfg(feature = "z3")]

mod common;

use common::{AgentSpec, Spec, ToolSpec};
use proptest::prelude::*;
use stalwart_analyzer::findings::{Inputs, from_structure};
use stalwart_analyzer::gate::{PathVerdict, default_verdicts, enumerate_paths};
use stalwart_analyzer::smt::gate_paths;
use stalwart_record::{
    CompareOp, Expr, ExprIdx, Gate, GateAction, GateDefault, GatePath, RecordBody, SourceSpan,
    Value,
};

fn path(intent: Option<&str>, condition: Option<ExprIdx>) -> GatePath {
    GatePath {
        flow: "refunds".to_string(),
        intent: intent.map(str::to_string),
        condition,
        action: GateAction::Allow,
        span: SourceSpan {
            source: 0,
            start: 0,
            end: 0,
            line: 1,
            col: 1,
        },
    }
}

fn gate(paths: Vec<GatePath>) -> Gate {
    Gate {
        governed: true,
        paths,
        flows: vec!["refunds".to_string()],
        default: None,
    }
}

/// The findings of `rules` (and QG312) that one agent with one write governed by `gate` raises,
/// as `RULE on SUBJECT: message`.
fn structure_findings(body: &RecordBody, gate: Gate, rules: &[&str]) -> Vec<String> {
    let spec = Spec {
        tools: vec![ToolSpec::write()],
        agents: vec![AgentSpec {
            model: false,
            tools: vec![0],
            hands_off_to: Vec::new(),
            privilege: 0,
            on_unread: "refuse",
        }],
        ..Spec::default()
    };
    let graph = spec.graph();
    let mut catalogue = spec.catalogue();
    if let Some(t) = catalogue.tools.first_mut() {
        t.gate = gate;
    }
    let inputs = Inputs {
        graph: &graph,
        catalogue: &catalogue,
        body,
        rulebook_errors: &[],
        has_rulebook: true,
        rulebook: &stalwart_analyzer::rulebook::RulebookInput::default(),
    };
    from_structure(&inputs)
        .into_iter()
        .filter(|f| f.rule == "QG312" || rules.contains(&f.rule.as_str()))
        .map(|f| format!("{} on {}: {}", f.rule, f.subject, f.message))
        .collect()
}

#[test]
fn a_contradiction_and_a_covered_path_are_dead_for_both_engines() {
    let body = RecordBody {
        exprs: vec![
            Expr::Fact("paid".to_string()), // 0
            Expr::Not(0),                   // 1
            Expr::And(0, 1),                // 2: paid and not paid
            Expr::Fact("vip".to_string()),  // 3
            Expr::Or(0, 3),                 // 4: paid or vip
        ],
        ..RecordBody::default()
    };
    let g = gate(vec![
        path(Some("refund"), Some(2)),
        path(Some("refund"), Some(0)),
        path(Some("refund"), Some(0)),
        path(None, Some(4)),
        path(Some("other"), None),
        path(None, Some(3)),
        path(Some("other"), Some(1)),
    ]);
    let expected = vec![
        Some(PathVerdict::Never),
        Some(PathVerdict::Live),
        Some(PathVerdict::Shadowed),
        Some(PathVerdict::Live),
        Some(PathVerdict::Live),
        Some(PathVerdict::Shadowed),
        Some(PathVerdict::Shadowed),
    ];
    assert_eq!(enumerate_paths(&body, &g), expected);
    assert_eq!(gate_paths(&body, &g), expected);
}

#[test]
fn a_call_reaches_the_default_unless_the_paths_without_intent_take_every_call() {
    let body = RecordBody {
        exprs: vec![
            Expr::Fact("paid".to_string()), // 0
            Expr::Not(0),                   // 1
        ],
        ..RecordBody::default()
    };
    let reaches = |paths: Vec<GatePath>| {
        let verdicts = default_verdicts(&body, &gate(paths));
        let engines: Vec<&str> = verdicts.iter().map(|(e, _)| *e).collect();
        assert_eq!(engines, ["enumeration", "z3"]);
        let answers: Vec<Option<bool>> = verdicts.iter().map(|(_, v)| *v).collect();
        assert_eq!(answers[0], answers[1], "the engines agree");
        answers[0]
    };
    // Paid or not paid: every call is decided.
    assert_eq!(
        reaches(vec![path(None, Some(0)), path(None, Some(1))]),
        Some(false)
    );
    // A row with no condition decides every call.
    assert_eq!(reaches(vec![path(None, None)]), Some(false));
    // Only paid calls are decided.
    assert_eq!(reaches(vec![path(None, Some(0))]), Some(true));
    // A call of another intent meets neither row.
    assert_eq!(
        reaches(vec![
            path(Some("refund"), Some(0)),
            path(Some("refund"), Some(1))
        ]),
        Some(true)
    );
    assert_eq!(reaches(Vec::new()), Some(true));
}

#[test]
fn qg004_stands_only_when_a_call_reaches_the_allowing_default() {
    let body = RecordBody {
        exprs: vec![Expr::Fact("paid".to_string()), Expr::Not(0)],
        ..RecordBody::default()
    };
    let found = |paths: Vec<GatePath>| {
        let allowing = Gate {
            default: Some(GateDefault::Allow),
            ..gate(paths)
        };
        structure_findings(&body, allowing, &["QG004"])
    };
    assert_eq!(
        found(vec![path(None, Some(0))]),
        [
            "QG004 on t0: the rule sheet allows the write 't0' by default: a call no row decides passes the gate"
        ]
    );
    assert_eq!(
        found(vec![path(None, Some(0)), path(None, Some(1))]),
        Vec::<String>::new()
    );
}

#[test]
fn dead_paths_are_qg010_with_why_and_no_engine_disagrees() {
    let body = RecordBody {
        exprs: vec![
            Expr::Fact("paid".to_string()),
            Expr::Not(0),
            Expr::And(0, 1),
        ],
        ..RecordBody::default()
    };
    let dead = gate(vec![
        path(Some("refund"), Some(2)),
        path(Some("refund"), Some(0)),
        path(Some("refund"), Some(0)),
    ]);
    let found = structure_findings(&body, dead, &["QG010"]);
    assert_eq!(
        found,
        [
            "QG010 on t0: the path of flow 'refunds' to 't0' can never be taken: its condition never holds",
            "QG010 on t0: the path of flow 'refunds' to 't0' can never be taken: the paths before it with the same intent take every call it would",
        ]
    );
}

#[test]
fn a_condition_naming_no_node_is_null_so_it_never_holds_for_both_engines() {
    let body = RecordBody::default();
    let g = gate(vec![path(None, Some(7))]);
    assert_eq!(enumerate_paths(&body, &g), vec![Some(PathVerdict::Never)]);
    assert_eq!(gate_paths(&body, &g), vec![Some(PathVerdict::Never)]);
}

/// A random condition over three facts, an argument and two comparisons, as nodes appended to
/// `exprs`; returns its root.
fn condition(choices: &[u8], exprs: &mut Vec<Expr>, at: &mut usize, depth: u32) -> ExprIdx {
    let pick = choices.get(*at).copied().unwrap_or(0);
    *at += 1;
    let node = match (pick % 9, depth) {
        (0..=2, _) | (_, 0) => Expr::Fact(["a", "b", "c"][usize::from(pick % 3)].to_string()),
        (3, _) => Expr::Arg("x".to_string()),
        (4, _) => Expr::Compare {
            op: CompareOp::Lt,
            left: 0,
            right: 1,
        },
        (5, _) => Expr::Literal(u32::from(pick % 2)),
        (6, _) => Expr::Not(condition(choices, exprs, at, depth - 1)),
        (7, _) => Expr::And(
            condition(choices, exprs, at, depth - 1),
            condition(choices, exprs, at, depth - 1),
        ),
        _ => Expr::Or(
            condition(choices, exprs, at, depth - 1),
            condition(choices, exprs, at, depth - 1),
        ),
    };
    exprs.push(node);
    (exprs.len() - 1) as ExprIdx
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_enumeration_and_z3_agree_on_every_path(
        paths in proptest::collection::vec(
            (0u8..3, any::<bool>(), proptest::collection::vec(any::<u8>(), 12)),
            1..6,
        )
    ) {
        let mut exprs = Vec::new();
        let mut gate_paths_ = Vec::new();
        for (intent, conditional, choices) in &paths {
            let condition = conditional.then(|| condition(choices, &mut exprs, &mut 0, 3));
            let intent = [None, Some("refund"), Some("other")][usize::from(*intent)];
            gate_paths_.push(path(intent, condition));
        }
        let body = RecordBody {
            exprs,
            values: vec![Value::Bool(false), Value::Bool(true)],
            ..RecordBody::default()
        };
        let g = gate(gate_paths_);
        // The comparison of two nodes may be beyond the enumeration's fragment; where both
        // engines decide, they agree, and z3 decides every path.
        let z3 = gate_paths(&body, &g);
        prop_assert!(z3.iter().all(Option::is_some));
        for (e, z) in enumerate_paths(&body, &g).into_iter().zip(z3) {
            if e.is_some() {
                prop_assert_eq!(e, z);
            }
        }
    }
}
