//! The explicit search keeps only what an obligation needs, and keeps more when a witness does
//! not replay through the real check: the answers are those of the whole system.

mod common;

use common::{AgentSpec, Spec, ToolSpec, Undo};
use stalwart_analyzer::explicit;
use stalwart_analyzer::{Answer, Bounds, Obligation, System};

/// One agent with a model and these tools; `t0` is a confidential read, `t1` a write that sends
/// out, `t2` a plain read.
fn spec(after: Vec<usize>, listed: Vec<usize>) -> Spec {
    let mut confidential = ToolSpec::read();
    confidential.confidential = true;
    let mut send = ToolSpec::write();
    send.sends_out = true;
    send.irreversible = true;
    send.after = after;
    Spec {
        tools: vec![confidential, send, ToolSpec::read(), ToolSpec::read()],
        agents: vec![AgentSpec {
            model: true,
            tools: listed,
            hands_off_to: Vec::new(),
            privilege: 0,
            on_unread: "refuse",
        }],
        ..Spec::default()
    }
}

fn qg019() -> Obligation {
    Obligation {
        rule: "QG019",
        subject: "t1".to_string(),
    }
}

fn tools_on(graph: &stalwart_graph::AgentGraph, path: &[usize]) -> Vec<String> {
    path.iter()
        .filter_map(|&i| graph.edges.get(i))
        .filter(|e| e.kind == stalwart_graph::EdgeKind::Call)
        .map(|e| e.to.clone())
        .collect()
}

#[test]
fn a_witness_stopped_by_an_order_rule_is_searched_again_with_that_rule() {
    // Sending out after a confidential read: the way that skips `t2` is refused by `after: [t2]`,
    // so the witness found runs t0, t2 and then t1: the shortest such route, 10 edges.
    let spec = spec(vec![2], vec![0, 1, 2, 3]);
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 12,
        turns: 1,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let answers = explicit::solve(&sys);
    let Some(Answer::Reachable(path)) = answers.get(&qg019()) else {
        panic!("QG019 on t1: {:?}", answers.get(&qg019()));
    };
    assert!(explicit::replay(&sys, path, &qg019()));
    assert_eq!(path.len(), 10);
    let mut called = tools_on(&graph, path);
    let last = called.pop();
    assert_eq!(last.as_deref(), Some("tool:t1"));
    called.sort();
    assert_eq!(called, ["tool:t0", "tool:t2"]);
}

#[test]
fn an_order_rule_no_route_satisfies_makes_the_obligation_unreachable() {
    // `t1` must come after `t3`, which the agent cannot call: no route sends out.
    let spec = spec(vec![3], vec![0, 1, 2]);
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 8,
        turns: 2,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let answers = explicit::solve(&sys);
    assert_eq!(answers.get(&qg019()), Some(&Answer::Unreachable));
}

#[test]
fn a_depth_too_small_for_the_order_rule_leaves_it_unreachable() {
    // Nine steps are enough for t0 then t1 (seven), not for t0, t2 and t1 (ten): reachable
    // without the order rule, unreachable with it.
    let bounds = Bounds {
        depth: 9,
        turns: 1,
        ..Bounds::default()
    };
    let answer = |after: Vec<usize>| {
        let spec = spec(after, vec![0, 1, 2, 3]);
        let graph = spec.graph();
        let catalogue = spec.catalogue();
        let sys = System::new(&graph, &catalogue, bounds);
        explicit::solve(&sys).get(&qg019()).map(Answer::verdict)
    };
    assert_eq!(answer(Vec::new()), Some("reachable"));
    assert_eq!(answer(vec![2]), Some("unreachable"));
}

/// Desks of four tools, each its own agent handing off to the next: `r` a confidential
/// read, `w` a write after `r`, once a session, undone by `u`; `s` an irreversible write after
/// `w` that sends out; `u` a write with no undo, or with `not_after: [r of the desk before]`
/// on every third desk (a bit a run carries from one session to the next). Twelve desks put more
/// than 32 edges out of `confirm`, and each desk's views keep only its own agent's bits.
fn desks(n: usize) -> Spec {
    let mut tools = Vec::new();
    let mut agents = Vec::new();
    for k in 0..n {
        let base = 4 * k;
        let mut read = ToolSpec::read();
        read.confidential = true;
        let mut write = ToolSpec::write();
        write.after = vec![base];
        write.at_most = Some(1);
        write.undo = Undo::Tool(base + 3);
        let mut send = ToolSpec::write();
        send.after = vec![base + 1];
        send.irreversible = true;
        send.sends_out = true;
        let mut undo = ToolSpec::write();
        undo.undo = Undo::None;
        if k > 0 && k % 3 == 0 {
            undo.not_after = vec![base - 4];
        }
        tools.extend([read, write, send, undo]);
        agents.push(AgentSpec {
            model: true,
            tools: vec![base, base + 1, base + 2, base + 3],
            hands_off_to: if k + 1 < n { vec![k + 1] } else { Vec::new() },
            privilege: 0,
            on_unread: "refuse",
        });
    }
    Spec {
        tools,
        agents,
        ..Spec::default()
    }
}

#[cfg(feature = "z3")]
#[test]
fn desks_of_many_agents_searched_together_answer_as_z3_does() {
    let spec = desks(12);
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 12,
        turns: 2,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let confirm = graph
        .nodes
        .iter()
        .position(|n| n.id == "confirm")
        .and_then(|i| sys.out.get(i))
        .map_or(0, Vec::len);
    assert!(confirm > 32, "confirm has {confirm} edges out");
    let ours = explicit::solve(&sys);
    let theirs = stalwart_analyzer::smt::solve(&sys);
    assert_eq!(ours.len(), sys.obligations.len());
    let mut reachable = 0;
    for (o, answer) in &ours {
        let z3 = theirs.get(o);
        match answer {
            Answer::Reachable(path) => {
                reachable += 1;
                assert!(explicit::replay(&sys, path, o), "{o:?}: {path:?}");
                assert!(
                    matches!(z3, Some(Answer::Reachable(_))),
                    "{o:?}: explicit reachable, z3 {z3:?}"
                );
            }
            Answer::Unreachable => assert!(
                matches!(z3, Some(Answer::Unreachable)),
                "{o:?}: explicit unreachable, z3 {z3:?}"
            ),
            Answer::Undecided => panic!("{o:?} undecided"),
        }
    }
    // Every desk sends out after its confidential read (r, w, s), and so QG019 holds of each.
    for k in 0..12 {
        let o = Obligation {
            rule: "QG019",
            subject: format!("t{}", 4 * k + 2),
        };
        assert!(
            matches!(ours.get(&o), Some(Answer::Reachable(_))),
            "{o:?}: {:?}",
            ours.get(&o)
        );
    }
    assert!(reachable >= 12);
}
