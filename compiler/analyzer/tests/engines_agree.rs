//! The z3 engine and the explicit search agree on every obligation of random agent graphs, and
//! every witness z3 gives replays through the tool check's transitions with the length of the
//! explicit search's shortest one. On the rulebook's gates, the enumeration and z3 decide every
//! path of random conditions comparing one argument with numbers and another with texts, and
//! agree.

#![cfg(feature = "z3")]

mod common;

use common::{AgentSpec, At, Spec, StepSpec, StoreSpec, ToolSpec, Undo};
use proptest::prelude::*;
use stalwart_analyzer::gate::enumerate_paths;
use stalwart_analyzer::system::{Answer, Bounds, System};
use stalwart_analyzer::{explicit, smt};
use stalwart_record::{
    ArgumentKind, CompareOp, Expr, ExprIdx, Gate, GateAction, GatePath, RecordBody, SourceSpan,
    Value,
};

const KINDS: [ArgumentKind; 4] = [
    ArgumentKind::Code,
    ArgumentKind::Shell,
    ArgumentKind::Sql,
    ArgumentKind::Url,
];

fn subset(n: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::btree_set(0..n.max(1), 0..=n.min(3))
        .prop_map(move |s| s.into_iter().filter(|&i| i < n).collect())
}

/// Mostly empty: a tool with many order rules is rarely callable.
fn sparse(n: usize) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![3 => Just(Vec::new()), 1 => subset(n)]
}

fn undo(n: usize) -> impl Strategy<Value = Undo> {
    prop_oneof![2 => Just(Undo::Missing), 1 => Just(Undo::None), 1 => (0..n).prop_map(Undo::Tool)]
}

fn tool(n: usize, stores: usize) -> impl Strategy<Value = ToolSpec> {
    (
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (undo(n), sparse(n), sparse(n), any::<bool>()),
        (
            prop_oneof![Just(None), (1u32..3).prop_map(Some)],
            prop_oneof![Just(None), (0..KINDS.len()).prop_map(Some)],
            prop_oneof![Just(None), (0..stores.max(1)).prop_map(Some)],
            prop_oneof![Just(None), (0..stores.max(1)).prop_map(Some)],
        ),
    )
        .prop_map(move |(flags, order, rest)| {
            let (write, reads_outside, sends_out, irreversible, confidential) = flags;
            let (undo, after, not_after, not_after_untrusted) = order;
            let (at_most, argument, retrieves, writes) = rest;
            ToolSpec {
                write,
                reads_outside,
                sends_out,
                irreversible: irreversible && write,
                confidential,
                undo,
                after,
                not_after,
                not_after_untrusted,
                at_most,
                argument: argument.and_then(|k| KINDS.get(k).copied()),
                retrieves_from: retrieves.filter(|_| stores > 0),
                writes_to: writes.filter(|_| stores > 0),
            }
        })
}

fn agent(agents: usize, tools: usize) -> impl Strategy<Value = AgentSpec> {
    (
        any::<bool>(),
        subset(tools),
        subset(agents),
        0u8..3,
        prop_oneof![Just("refuse"), Just("model"), Just("ask")],
    )
        .prop_map(
            |(model, tools, hands_off_to, privilege, on_unread)| AgentSpec {
                model,
                tools,
                hands_off_to,
                privilege,
                on_unread,
            },
        )
}

fn place(agents: usize, tools: usize) -> impl Strategy<Value = At> {
    prop_oneof![
        Just(At::Router),
        Just(At::Guard),
        Just(At::End),
        (0..agents).prop_map(At::Model),
        (0..tools).prop_map(At::Tool),
    ]
}

fn step(agents: usize, tools: usize) -> impl Strategy<Value = StepSpec> {
    (
        0..agents,
        proptest::collection::vec(place(agents, tools), 0..3),
        proptest::collection::vec(place(agents, tools), 0..3),
        subset(tools),
        any::<bool>(),
    )
        .prop_map(|(agent, from, routes, calls, guarded)| StepSpec {
            agent,
            from,
            routes,
            calls,
            guarded,
        })
}

fn store() -> impl Strategy<Value = StoreSpec> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(multi_tenant, bound, persistent)| {
        StoreSpec {
            multi_tenant,
            bound,
            persistent,
        }
    })
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..4, 1usize..6, 0usize..3).prop_flat_map(|(agents, tools, stores)| {
        (
            proptest::collection::vec(tool(tools, stores), tools),
            proptest::collection::vec(agent(agents, tools), agents),
            proptest::collection::vec(step(agents, tools), 0..3),
            proptest::collection::vec(store(), stores),
            proptest::collection::vec(0..agents, 0..2),
        )
            .prop_map(|(tools, agents, steps, stores, channels)| Spec {
                tools,
                agents,
                steps,
                stores,
                channels,
            })
    })
}

fn bounds() -> impl Strategy<Value = Bounds> {
    (0u32..12, 0u32..3).prop_map(|(depth, turns)| Bounds {
        depth,
        turns,
        ..Bounds::default()
    })
}

/// A call reached through the rows of the graph's last node (`end`, then a custom step): the
/// rows of the last node once fell outside the bit-vector that named the edge.
#[test]
fn a_call_from_the_last_nodes_rows_is_found_by_both() {
    let mut t = ToolSpec::read();
    t.undo = Undo::Tool(0);
    let spec = Spec {
        tools: vec![t],
        agents: vec![AgentSpec {
            model: true,
            tools: vec![0],
            hands_off_to: Vec::new(),
            privilege: 0,
            on_unread: "refuse",
        }],
        steps: vec![
            StepSpec {
                agent: 0,
                from: vec![At::End],
                routes: Vec::new(),
                calls: vec![0],
                guarded: false,
            },
            StepSpec {
                agent: 0,
                from: Vec::new(),
                routes: vec![At::Router],
                calls: vec![0],
                guarded: true,
            },
        ],
        stores: Vec::new(),
        channels: vec![0],
    };
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 4,
        turns: 0,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let o = stalwart_analyzer::Obligation {
        rule: "QG001",
        subject: "t0".to_string(),
    };
    assert_eq!(
        explicit::solve(&sys).get(&o),
        Some(&Answer::Reachable(vec![0, 2, 7, 8]))
    );
    let Some(Answer::Reachable(witness)) = smt::solve(&sys).get(&o).cloned() else {
        panic!("z3 finds no path to `t0` around the check");
    };
    assert_eq!(witness.len(), 4);
    assert!(explicit::replay(&sys, &witness, &o));
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn z3_and_the_explicit_search_agree(spec in spec(), bounds in bounds()) {
        let graph = spec.graph();
        let catalogue = spec.catalogue();
        let sys = System::new(&graph, &catalogue, bounds);
        let by_search = explicit::solve(&sys);
        let by_z3 = smt::solve(&sys);
        for o in &sys.obligations {
            let e = by_search.get(o).cloned().unwrap_or(Answer::Undecided);
            let z = by_z3.get(o).cloned().unwrap_or(Answer::Undecided);
            prop_assert_eq!(e.verdict(), z.verdict(), "{:?}", o);
            if let (Answer::Reachable(we), Answer::Reachable(wz)) = (&e, &z) {
                prop_assert!(explicit::replay(&sys, wz, o), "z3's witness {:?} for {:?}", wz, o);
                prop_assert!(explicit::replay(&sys, we, o), "the search's witness {:?}", we);
                prop_assert_eq!(we.len(), wz.len(), "{:?}", o);
            }
        }
    }
}

const OPS: [CompareOp; 6] = [
    CompareOp::Eq,
    CompareOp::Ne,
    CompareOp::Lt,
    CompareOp::Le,
    CompareOp::Gt,
    CompareOp::Ge,
];
const NUMBERS: [f64; 6] = [0.0, 5.0, 100.0, 100.5, 500.0, -3.0];
const TEXTS: [&str; 3] = ["EUR", "USD", ""];

/// A random condition, as nodes appended to `body`: comparisons of `$args.amount` with numbers
/// (either side), of `$args.currency` with texts, either read as a truth, `is None`, the fact
/// `$paid`, under `not`, `and` and `or`. Returns its root.
fn arithmetic(choices: &[u8], body: &mut RecordBody, at: &mut usize, depth: u32) -> ExprIdx {
    let mut next = || {
        let c = choices.get(*at).copied().unwrap_or(0);
        *at += 1;
        usize::from(c)
    };
    let pick = next();
    let (op, constant) = (OPS[next() % OPS.len()], next());
    let push = |body: &mut RecordBody, e: Expr| {
        body.exprs.push(e);
        (body.exprs.len() - 1) as ExprIdx
    };
    let literal = |body: &mut RecordBody, v: Value| {
        body.values.push(v);
        Expr::Literal((body.values.len() - 1) as u32)
    };
    let node = match (pick % 10, depth) {
        (0..=2, _) | (_, 0) => {
            let arg = push(body, Expr::Arg("amount".to_string()));
            let n = literal(body, Value::Number(NUMBERS[constant % NUMBERS.len()]));
            let n = push(body, n);
            let (left, right) = if constant % 7 == 0 {
                (n, arg)
            } else {
                (arg, n)
            };
            Expr::Compare { op, left, right }
        }
        (3, _) => {
            let arg = push(body, Expr::Arg("currency".to_string()));
            let t = literal(
                body,
                Value::String(TEXTS[constant % TEXTS.len()].to_string()),
            );
            let right = push(body, t);
            let op = [CompareOp::Eq, CompareOp::Ne][constant % 2];
            Expr::Compare {
                op,
                left: arg,
                right,
            }
        }
        (4, _) => match constant % 4 {
            0 => Expr::Arg("amount".to_string()),
            1 => Expr::Arg("currency".to_string()),
            2 => Expr::Fact("paid".to_string()),
            _ => Expr::IsNone(push(body, Expr::Arg("amount".to_string()))),
        },
        (5 | 6, _) => Expr::Not(arithmetic(choices, body, at, depth - 1)),
        (7 | 8, _) => Expr::And(
            arithmetic(choices, body, at, depth - 1),
            arithmetic(choices, body, at, depth - 1),
        ),
        _ => Expr::Or(
            arithmetic(choices, body, at, depth - 1),
            arithmetic(choices, body, at, depth - 1),
        ),
    };
    push(body, node)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_enumeration_and_z3_agree_on_arithmetic_conditions(
        paths in proptest::collection::vec(
            (any::<bool>(), proptest::collection::vec(any::<u8>(), 24)),
            1..5,
        )
    ) {
        let mut body = RecordBody::default();
        let mut gate_paths = Vec::new();
        for (with_intent, choices) in &paths {
            let condition = arithmetic(choices, &mut body, &mut 0, 3);
            gate_paths.push(GatePath {
                flow: "refunds".to_string(),
                intent: with_intent.then(|| "refund".to_string()),
                condition: Some(condition),
                action: GateAction::Allow,
                span: SourceSpan::default(),
            });
        }
        let gate = Gate {
            governed: true,
            paths: gate_paths,
            flows: vec!["refunds".to_string()],
            default: None,
        };
        let enumerated = enumerate_paths(&body, &gate);
        prop_assert!(enumerated.iter().all(Option::is_some), "{:?}", enumerated);
        prop_assert_eq!(enumerated, smt::gate_paths(&body, &gate));
    }
}
