//! Rule sheets whose conditions only the theories of numbers, texts and absent values decide: a
//! row that no call can reach (`$args.amount > 500 and $args.amount < 100`) is a dead action
//! (QG010), a row the rows before it always take first is shadowed (QG010), and an allowing
//! default no call reaches raises no QG004. Each case has a close variant that raises nothing,
//! and on every case both engines decide, alike.

#![cfg(feature = "z3")]

mod common;

use common::{AgentSpec, Spec, ToolSpec};
use stalwart_analyzer::findings::{Inputs, from_structure};
use stalwart_analyzer::gate::enumerate_paths;
use stalwart_analyzer::smt::gate_paths;
use stalwart_record::{
    CompareOp, Expr, ExprIdx, Gate, GateAction, GateDefault, GatePath, RecordBody, Source,
    SourceSpan, Value,
};

/// A condition's nodes, built as the lowering builds them: each operand a node of its own.
#[derive(Default)]
struct Conds {
    exprs: Vec<Expr>,
    values: Vec<Value>,
}

impl Conds {
    fn push(&mut self, e: Expr) -> ExprIdx {
        self.exprs.push(e);
        (self.exprs.len() - 1) as ExprIdx
    }

    /// `$args.<arg> <op> <value>`.
    fn arg(&mut self, arg: &str, op: CompareOp, value: Value) -> ExprIdx {
        let left = self.push(Expr::Arg(arg.to_string()));
        self.values.push(value);
        let right = self.push(Expr::Literal((self.values.len() - 1) as u32));
        self.push(Expr::Compare { op, left, right })
    }

    fn amount(&mut self, op: CompareOp, n: f64) -> ExprIdx {
        self.arg("amount", op, Value::Number(n))
    }

    fn currency(&mut self, op: CompareOp, s: &str) -> ExprIdx {
        self.arg("currency", op, Value::String(s.to_string()))
    }

    fn and(&mut self, a: ExprIdx, b: ExprIdx) -> ExprIdx {
        self.push(Expr::And(a, b))
    }

    fn or(&mut self, a: ExprIdx, b: ExprIdx) -> ExprIdx {
        self.push(Expr::Or(a, b))
    }

    fn not(&mut self, a: ExprIdx) -> ExprIdx {
        self.push(Expr::Not(a))
    }
}

use CompareOp::{Eq, Ge, Gt, Lt, Ne};

/// One row of the sheet: its rule, its `when` cell as written, its condition, and its `then`.
struct Row<'a> {
    rule: &'a str,
    when: &'a str,
    condition: ExprIdx,
    then: &'a str,
}

/// The findings of QG004, QG010 and QG312 that a sheet `rules.csv` of `rows` for the write `t0`
/// raises (with an allowing default when `allowing`), as `RULE at FILE:LINE (START..END):
/// message`; each row's path spans its line. Both engines decide every path, alike.
fn findings(conds: Conds, rows: &[Row<'_>], allowing: bool) -> Vec<String> {
    let mut text = String::from("rule,tool,when,then,say\n");
    let mut paths = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let start = text.len() as u32;
        let say = if row.then == "allow" { "" } else { "refuse" };
        text.push_str(&format!("{},t0,{},{},{say}", row.rule, row.when, row.then));
        let end = text.len() as u32;
        text.push('\n');
        paths.push(GatePath {
            flow: row.rule.to_string(),
            intent: None,
            condition: Some(row.condition),
            action: match row.then {
                "allow" => GateAction::Allow,
                "ask" => GateAction::Ask {
                    message: "refuse".to_string(),
                },
                _ => GateAction::Refuse {
                    message: "refuse".to_string(),
                },
            },
            span: SourceSpan {
                source: 0,
                start,
                end,
                line: i as u32 + 2,
                col: 1,
            },
        });
    }
    let body = RecordBody {
        exprs: conds.exprs,
        values: conds.values,
        sources: vec![Source {
            path: "rules.csv".to_string(),
            digest: blake3::hash(text.as_bytes()).to_hex().to_string(),
        }],
        ..RecordBody::default()
    };
    let gate = Gate {
        governed: true,
        paths,
        flows: rows.iter().map(|r| r.rule.to_string()).collect(),
        default: allowing.then_some(GateDefault::Allow),
    };
    let enumerated = enumerate_paths(&body, &gate);
    assert!(enumerated.iter().all(Option::is_some), "{enumerated:?}");
    assert_eq!(enumerated, gate_paths(&body, &gate));
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
        body: &body,
        rulebook_errors: &[],
        has_rulebook: true,
        rulebook: &stalwart_analyzer::rulebook::RulebookInput::default(),
    };
    from_structure(&inputs)
        .into_iter()
        .filter(|f| ["QG004", "QG010", "QG312"].contains(&f.rule.as_str()))
        .map(|f| {
            let p = &f.place;
            format!(
                "{} at {}:{} ({}..{}): {}",
                f.rule, p.file, p.line, p.start, p.end, f.message
            )
        })
        .collect()
}

const NONE: [&str; 0] = [];

fn row<'a>(rule: &'a str, when: &'a str, condition: ExprIdx, then: &'a str) -> Row<'a> {
    Row {
        rule,
        when,
        condition,
        then,
    }
}

#[test]
fn an_amount_above_500_and_below_100_is_a_dead_action() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 500.0), c.amount(Lt, 100.0));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "odd",
            "$args.amount > 500 and $args.amount < 100",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:2 (24..79): the path of flow 'odd' to 't0' can never be taken: its condition never holds"
        ]
    );
}

#[test]
fn an_amount_above_100_and_below_500_is_taken() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 100.0), c.amount(Lt, 500.0));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "mid",
            "$args.amount > 100 and $args.amount < 500",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn an_amount_equal_to_5_and_to_6_is_a_dead_action() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Eq, 5.0), c.amount(Eq, 6.0));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "odd",
            "$args.amount == 5 and $args.amount == 6",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:2 (24..77): the path of flow 'odd' to 't0' can never be taken: its condition never holds"
        ]
    );
}

#[test]
fn an_amount_equal_to_5_and_not_to_6_is_taken() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Eq, 5.0), c.amount(Ne, 6.0));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "five",
            "$args.amount == 5 and $args.amount != 6",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn an_amount_above_500_and_not_above_500_is_a_dead_action() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 500.0), c.amount(Gt, 500.0));
    let not_b = c.not(b);
    let when = c.and(a, not_b);
    let found = findings(
        c,
        &[row(
            "odd",
            "$args.amount > 500 and not ($args.amount > 500)",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:2 (24..85): the path of flow 'odd' to 't0' can never be taken: its condition never holds"
        ]
    );
}

#[test]
fn an_amount_above_500_and_not_above_600_is_taken() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 500.0), c.amount(Gt, 600.0));
    let not_b = c.not(b);
    let when = c.and(a, not_b);
    let found = findings(
        c,
        &[row(
            "band",
            "$args.amount > 500 and not ($args.amount > 600)",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn a_currency_equal_to_two_texts_is_a_dead_action() {
    let mut c = Conds::default();
    let (a, b) = (c.currency(Eq, "EUR"), c.currency(Eq, "USD"));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "odd",
            "$args.currency == \"EUR\" and $args.currency == \"USD\"",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:2 (24..89): the path of flow 'odd' to 't0' can never be taken: its condition never holds"
        ]
    );
}

#[test]
fn a_currency_equal_to_one_text_and_not_another_is_taken() {
    let mut c = Conds::default();
    let (a, b) = (c.currency(Eq, "EUR"), c.currency(Ne, "USD"));
    let when = c.and(a, b);
    let found = findings(
        c,
        &[row(
            "euro",
            "$args.currency == \"EUR\" and $args.currency != \"USD\"",
            when,
            "allow",
        )],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn a_row_for_amounts_above_500_after_one_for_amounts_above_100_is_shadowed() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 100.0), c.amount(Gt, 500.0));
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 100", a, "refuse"),
            row("huge", "$args.amount > 500", b, "ask"),
        ],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:3 (66..103): the path of flow 'huge' to 't0' can never be taken: the paths before it with the same intent take every call it would"
        ]
    );
}

#[test]
fn a_row_for_amounts_above_50_after_one_for_amounts_above_100_is_taken() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 100.0), c.amount(Gt, 50.0));
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 100", a, "refuse"),
            row("some", "$args.amount > 50", b, "ask"),
        ],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn an_overlapping_pair_of_rows_takes_every_amount_of_a_third() {
    let mut c = Conds::default();
    let (a, b, d) = (c.amount(Gt, 100.0), c.amount(Lt, 200.0), c.amount(Ge, 0.0));
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 100", a, "refuse"),
            row("small", "$args.amount < 200", b, "allow"),
            row("any", "$args.amount >= 0", d, "ask"),
        ],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:4 (101..136): the path of flow 'any' to 't0' can never be taken: the paths before it with the same intent take every call it would"
        ]
    );
}

#[test]
fn an_overlapping_pair_of_rows_leaves_a_call_without_an_amount_to_a_third() {
    // `not ($args.amount > 100)` holds for a call that gives no amount, which neither row
    // before it takes.
    let mut c = Conds::default();
    let (a, b, d) = (
        c.amount(Gt, 100.0),
        c.amount(Lt, 200.0),
        c.amount(Gt, 100.0),
    );
    let not_d = c.not(d);
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 100", a, "refuse"),
            row("small", "$args.amount < 200", b, "allow"),
            row("other", "not ($args.amount > 100)", not_d, "ask"),
        ],
        false,
    );
    assert_eq!(found, NONE);
}

#[test]
fn rows_above_500_and_not_above_500_decide_every_call_so_an_allowing_default_is_not_qg004() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 500.0), c.amount(Gt, 500.0));
    let not_b = c.not(b);
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 500", a, "refuse"),
            row("rest", "not ($args.amount > 500)", not_b, "allow"),
        ],
        true,
    );
    assert_eq!(found, NONE);
}

#[test]
fn rows_above_500_and_at_most_500_leave_a_call_without_an_amount_to_an_allowing_default() {
    let mut c = Conds::default();
    let (a, b) = (c.amount(Gt, 500.0), c.amount(CompareOp::Le, 500.0));
    let found = findings(
        c,
        &[
            row("large", "$args.amount > 500", a, "refuse"),
            row("rest", "$args.amount <= 500", b, "allow"),
        ],
        true,
    );
    assert_eq!(
        found,
        [
            "QG004 at agent.yaml:5 (0..0): the rule sheet allows the write 't0' by default: a call no row decides passes the gate"
        ]
    );
}

#[test]
fn a_currency_or_an_amount_covers_only_what_it_names() {
    // Either row may hold alone: a call in euros with no amount, or one of 600 in dollars.
    let mut c = Conds::default();
    let (a, b) = (c.currency(Eq, "EUR"), c.amount(Gt, 500.0));
    let either = c.or(a, b);
    let (d, e) = (c.currency(Ne, "EUR"), c.amount(Gt, 500.0));
    let both = c.and(d, e);
    let found = findings(
        c,
        &[
            row(
                "either",
                "$args.currency == \"EUR\" or $args.amount > 500",
                either,
                "refuse",
            ),
            row(
                "both",
                "$args.currency != \"EUR\" and $args.amount > 500",
                both,
                "allow",
            ),
        ],
        false,
    );
    assert_eq!(
        found,
        [
            "QG010 at rules.csv:3 (94..155): the path of flow 'both' to 't0' can never be taken: the paths before it with the same intent take every call it would"
        ]
    );
}
