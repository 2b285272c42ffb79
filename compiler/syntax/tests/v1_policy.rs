//! The shop's `policy.co` parses cleanly into the tree the gate lowers.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use stalwart_diagnostics::FileId;
use stalwart_syntax::expr::{Expr, ExprKind};
use stalwart_syntax::v1::ast::{ConditionExpr, Item, MessageLine, StmtKind};
use stalwart_syntax::{inspect_v1, parse_v1};

const POLICY: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/shop/policy.co"
));

#[test]
fn shop_policy_parses_without_diagnostics() {
    let parsed = parse_v1(FileId(7), POLICY);
    assert_eq!(parsed.diagnostics, vec![]);
    let items = &parsed.value.items;
    assert_eq!(items.len(), 2);

    let Item::User(user) = &items[0] else {
        panic!("expected `define user`, got {:?}", items[0])
    };
    assert_eq!(user.name.text, "ask refund");
    let examples: Vec<&str> = user
        .lines
        .iter()
        .map(|l| match l {
            MessageLine::Text(t) => t.text.as_str(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        examples,
        [
            "\"refund order 4411\"",
            "\"give the customer their money back\""
        ]
    );

    let Item::Flow(flow) = &items[1] else {
        panic!("expected a flow, got {:?}", items[1])
    };
    assert_eq!(flow.id, "refunds");
    assert!(!flow.subflow);
    assert_eq!(flow.body.len(), 2);
    let StmtKind::User(refs) = &flow.body[0].kind else {
        panic!("{:?}", flow.body[0])
    };
    assert_eq!(refs.len(), 1);
    assert_eq!(refs[0].intent.text, "ask refund");
    assert_eq!(&POLICY[refs[0].intent.span.range()], "ask refund");

    let StmtKind::If(if_stmt) = &flow.body[1].kind else {
        panic!("{:?}", flow.body[1])
    };
    assert_eq!(if_stmt.branches.len(), 1);
    let branch = &if_stmt.branches[0];
    let condition = branch.condition.as_ref().unwrap();
    assert_eq!(condition.text, "$order_paid");
    assert_eq!(&POLICY[condition.span.range()], "$order_paid");
    let ConditionExpr::Parsed(Expr {
        kind: ExprKind::Fact(fact),
        span,
    }) = &condition.expr
    else {
        panic!("{:?}", condition.expr)
    };
    assert_eq!(fact, "order_paid");
    assert_eq!(span.file, FileId(7));
    assert_eq!(&POLICY[span.range()], "$order_paid");

    let StmtKind::Run(run) = &branch.body[0].kind else {
        panic!("{:?}", branch.body)
    };
    assert_eq!(run.action.text, "refund_card");
    assert!(run.result.is_none() && run.args.is_empty());
    let else_body = if_stmt.else_body.as_ref().unwrap();
    let StmtKind::Bot(bot) = &else_body[0].kind else {
        panic!("{else_body:?}")
    };
    assert_eq!(bot.message.text, "refuse");
    assert_eq!(bot.tool(), None);
}

#[test]
fn shop_policy_facts() {
    let parsed = parse_v1(FileId(0), POLICY);
    let facts = inspect_v1(&parsed.value);
    assert_eq!(
        facts,
        serde_json::json!({
            "version": "1.0",
            "user_messages": {"ask refund": ["refund order 4411", "give the customer their money back"]},
            "bot_messages": {},
            "flows": [{"id": "refunds", "subflow": false}],
            "imports": [],
        })
    );
}
