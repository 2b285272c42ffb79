//! The z3 engine's shortcuts past bounded model checking: induction over runs (with a session's
//! run bit tied to its count) and merged tool nodes in a large catalogue's views. Each answer is
//! the explicit search's, and each z3 witness replays through the real check.

#![cfg(feature = "z3")]

mod common;

use std::collections::BTreeMap;

use common::{AgentSpec, Spec, ToolSpec, Undo};
use stalwart_analyzer::{Answer, Bounds, Obligation, System, explicit, smt};

fn agent(tools: Vec<usize>, hands_off_to: Vec<usize>, privilege: u8) -> AgentSpec {
    AgentSpec {
        model: true,
        tools,
        hands_off_to,
        privilege,
        on_unread: "refuse",
    }
}

/// The shop's desks: `t0` reads an order, `t1` charges (after `t0`, once a session, undone by
/// `t3`), `t2` sends a receipt (after `t1`, irreversible); `a0` calls those three and hands off
/// to `a1`, which refunds (`t3`) and hands back.
fn desks() -> Spec {
    let mut charge = ToolSpec::write();
    charge.after = vec![0];
    charge.at_most = Some(1);
    charge.undo = Undo::Tool(3);
    let mut send = ToolSpec::write();
    send.after = vec![1];
    send.irreversible = true;
    send.sends_out = true;
    let mut refund = ToolSpec::write();
    refund.undo = Undo::None;
    Spec {
        tools: vec![ToolSpec::read(), charge, send, refund],
        agents: vec![agent(vec![0, 1, 2], vec![1], 0), agent(vec![3], vec![0], 2)],
        ..Spec::default()
    }
}

/// QG013 on `t2`: a write that has an undo runs after the receipt went out, in the same run.
fn receipt_then_charge() -> Obligation {
    Obligation {
        rule: "QG013",
        subject: "t2".to_string(),
    }
}

#[test]
fn a_run_too_short_for_the_second_charge_is_proved_by_runs_however_many_turns() {
    // After the receipt the session has charged once already, so charging again needs a new
    // session of a0: a hand-off to a1 and back, then t0 and t1 again. With t0 and t1 run in an
    // earlier turn (the session outlives the turn) that run is 13 steps, so at 12 no run raises
    // the event. 100 turns are 1,299 transitions, far past what unrolling could rule out; the
    // question over one run from any state a run starts in settles it.
    let spec = desks();
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 12,
        turns: 100,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let o = receipt_then_charge();
    assert_eq!(smt::solve(&sys).get(&o), Some(&Answer::Unreachable));
    assert_eq!(explicit::solve(&sys).get(&o), Some(&Answer::Unreachable));
}

#[test]
fn one_more_step_and_two_turns_reach_it_with_the_same_witness_length() {
    // Depth 13: turn one runs t0 and t1 and ends; turn two sends the receipt, hands off and back,
    // and charges again: 23 edges in all (the next turn included), in both engines.
    let spec = desks();
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 13,
        turns: 2,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let o = receipt_then_charge();
    let answers = smt::solve(&sys);
    let Some(Answer::Reachable(path)) = answers.get(&o) else {
        panic!("QG013 on t2: {:?}", answers.get(&o));
    };
    assert_eq!(path.len(), 23);
    assert!(explicit::replay(&sys, path, &o));
    let Some(Answer::Reachable(theirs)) = explicit::solve(&sys).get(&o).cloned() else {
        panic!("the explicit search does not reach QG013 on t2");
    };
    assert_eq!(theirs.len(), 23);
}

#[test]
fn in_one_turn_the_charge_after_the_receipt_needs_twenty_steps() {
    // In one turn the first run also has to read and charge before the receipt: 20 steps.
    let spec = desks();
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let o = receipt_then_charge();
    for (depth, reached) in [(19, false), (20, true)] {
        let bounds = Bounds {
            depth,
            turns: 1,
            ..Bounds::default()
        };
        let sys = System::new(&graph, &catalogue, bounds);
        match smt::solve(&sys).get(&o) {
            Some(Answer::Reachable(path)) if reached => {
                assert_eq!(path.len(), 20);
                assert!(explicit::replay(&sys, path, &o));
            }
            Some(Answer::Unreachable) if !reached => {}
            other => panic!("depth {depth}: {other:?}"),
        }
    }
}

/// A catalogue too large to encode whole (more than 16 tools tracked by the check): `t0` reads,
/// `t1` is a confidential read, `t2` sends out after `t0`, and `t3`..`t20` are writes limited
/// to one call a session with no undo declared, alike but for their names; `t21` is a plain
/// write. One agent calls them all.
fn many_alike() -> Spec {
    let mut confidential = ToolSpec::read();
    confidential.confidential = true;
    let mut send = ToolSpec::write();
    send.after = vec![0];
    send.sends_out = true;
    send.undo = Undo::None;
    let mut tools = vec![ToolSpec::read(), confidential, send];
    for _ in 3..21 {
        let mut w = ToolSpec::write();
        w.at_most = Some(1);
        tools.push(w);
    }
    tools.push(ToolSpec::write());
    Spec {
        agents: vec![agent((0..tools.len()).collect(), Vec::new(), 0)],
        tools,
        ..Spec::default()
    }
}

#[test]
fn merged_tool_nodes_give_the_answers_of_the_whole_system() {
    let spec = many_alike();
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 8,
        turns: 2,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    let z3 = smt::solve(&sys);
    let search = explicit::solve(&sys);
    assert_eq!(z3.len(), sys.obligations.len());
    let verdicts = |answers: &BTreeMap<Obligation, Answer>| -> Vec<(String, &'static str)> {
        answers
            .iter()
            .map(|(o, a)| (format!("{} {}", o.rule, o.subject), a.verdict()))
            .collect()
    };
    assert_eq!(verdicts(&z3), verdicts(&search));
    // Every z3 witness replays and is as short as the explicit search's.
    for (o, a) in &z3 {
        let Answer::Reachable(path) = a else { continue };
        assert!(explicit::replay(&sys, path, o), "{} {}", o.rule, o.subject);
        let Some(Answer::Reachable(theirs)) = search.get(o) else {
            panic!("{} {}", o.rule, o.subject);
        };
        assert_eq!(path.len(), theirs.len(), "{} {}", o.rule, o.subject);
    }
    // The confidential read reaches the send out after `t0` (QG019); each limited write
    // followed by another write without an undo (QG105) is reachable, one by one.
    let reached: Vec<String> = verdicts(&z3)
        .into_iter()
        .filter(|(_, v)| *v == "reachable")
        .map(|(o, _)| o)
        .collect();
    assert!(reached.contains(&"QG019 t2".to_string()), "{reached:?}");
    for t in 3..21 {
        assert!(reached.contains(&format!("QG105 t{t}")), "{reached:?}");
    }
}
