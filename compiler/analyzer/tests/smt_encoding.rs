//! The SMT engine's formula as SMT-LIB text, for a tiny graph: one agent with a model, a read and
//! a write that must follow the read and runs at most once a session. Variable names are
//! deterministic, so the text is a snapshot: review a change to it like code.

#![cfg(feature = "z3")]

mod common;

use common::{AgentSpec, Spec, ToolSpec};
use stalwart_analyzer::smt;
use stalwart_analyzer::system::{Bounds, System};

#[test]
fn a_write_after_a_read_unrolls_to_this_smtlib() {
    let mut write = ToolSpec::write();
    write.after = vec![0];
    write.at_most = Some(1);
    let spec = Spec {
        tools: vec![ToolSpec::read(), write],
        agents: vec![AgentSpec {
            model: true,
            tools: vec![0, 1],
            hands_off_to: Vec::new(),
            privilege: 0,
            on_unread: "refuse",
        }],
        ..Spec::default()
    };
    let graph = spec.graph();
    let catalogue = spec.catalogue();
    let bounds = Bounds {
        depth: 2,
        turns: 2,
        ..Bounds::default()
    };
    let sys = System::new(&graph, &catalogue, bounds);
    insta::assert_snapshot!(smt::smtlib(&sys, 2));
}
