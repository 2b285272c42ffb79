//! The floor: the refund decision written by hand in Rust for exactly this tool, reading the same
//! call and history as the tool check but verifying nothing, signing nothing, building no
//! question and allocating nothing. It is what the decision itself costs.

use serde_json::Value;
use stalwart_runtime::{Call, Decision, Session};

/// The hand-written decision: a decision and up to two reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloorVerdict {
    pub decision: Decision,
    pub reasons: [Option<&'static str>; 2],
}

fn one(decision: Decision, reason: &'static str) -> FloorVerdict {
    FloorVerdict {
        decision,
        reasons: [Some(reason), None],
    }
}

/// Decides a refund call: undeclared arguments refuse, an unpaid order refuses, a paid one
/// confirms, tainted when the model wrote an argument after `read_inbox` was allowed.
pub fn decide(call: &Call, session: &Session) -> FloorVerdict {
    if call.tool != "refund_card" {
        return one(Decision::Refuse, "unknown_tool");
    }
    if call
        .arguments
        .keys()
        .any(|k| k != "order_id" && k != "amount")
    {
        return one(Decision::Refuse, "argument_schema");
    }
    let paid = call.context.get("order_paid") == Some(&Value::Bool(true));
    if call.intent.as_deref() != Some("ask refund") || !paid {
        return one(Decision::Refuse, "refuse");
    }
    let by_model = call
        .arguments
        .keys()
        .any(|k| call.origins.get(k).is_none_or(|o| o == "model"));
    let tainted = by_model
        && session
            .calls()
            .any(|c| c.tool == "read_inbox" && c.decision == Decision::Allow);
    match (by_model, tainted) {
        (true, true) => FloorVerdict {
            decision: Decision::Confirm,
            reasons: [Some("argument_origin"), Some("tainted_call")],
        },
        (true, false) => one(Decision::Confirm, "argument_origin"),
        _ => one(Decision::Confirm, "write"),
    }
}

impl FloorVerdict {
    pub fn verdict(&self) -> crate::Verdict {
        crate::Verdict {
            decision: self.decision.as_str(),
            reasons: self
                .reasons
                .iter()
                .flatten()
                .map(|r| r.to_string())
                .collect(),
        }
    }
}
