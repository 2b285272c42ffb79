//! The tool check's side: the shop's record compiled from `examples/shop/agent.yaml`, the refund
//! calls of the four cases, and signed histories of a given length.
//!
//! A history of length `n` is the person's turn `refund order 4411 40.00` followed by `n - 1`
//! earlier checks of the paid refund (each a `confirm`), all signed by checking them in order. For
//! the tainted case its newest entry is instead an allowed `read_inbox` call by the desk (at
//! length 1 that call is the whole history). The session belongs to the desk, which hands the
//! refund off to billing: every refund call names `agent: billing`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use stalwart_record::{ArchivedRecordBody, Record};
use stalwart_runtime::{Call, Check, Env, Key, RecordKey, Session};

use crate::{Case, Verdict};

/// The clock: 2026-11-30T12:00:00Z.
pub const NOW: u64 = 1_796_040_000;

/// The licence the checks run with, bound to the record they decide under.
pub fn key(record: &Record) -> RecordKey {
    Key::new("bench", [42; 32], NOW + 365 * 86_400).for_record(&record.header().digest)
}

/// `examples/shop/agent.yaml`.
pub fn shop_agent() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop/agent.yaml")
}

/// Compiles the shop and loads its record.
pub fn shop_record() -> Result<Record, String> {
    let out = tempfile::tempdir().map_err(|e| e.to_string())?;
    let target = out.path().join("record");
    let outcome = stalwart_driver::compile_agent(
        Arc::new(stalwart_driver::DiskLoader),
        &shop_agent(),
        &stalwart_driver::CompileOptions {
            out: Some(target.clone()),
        },
    );
    if outcome.has_errors() {
        return Err(format!(
            "the shop does not compile: {:?} {:?}",
            outcome.fatal, outcome.diagnostics
        ));
    }
    Record::read(target.join("record.bin")).map_err(|e| e.to_string())
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn strings(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The refund call of a case.
pub fn refund_call(case: Case) -> Call {
    let (arguments, origins) = match case {
        Case::Paid | Case::Unpaid => (
            json!({"order_id": "4411", "amount": 40.00}),
            strings(&[("order_id", "typed"), ("amount", "typed")]),
        ),
        Case::Note => (
            json!({"order_id": "4411", "amount": 40.00, "note": "goodwill"}),
            strings(&[
                ("order_id", "typed"),
                ("amount", "typed"),
                ("note", "model"),
            ]),
        ),
        Case::Tainted => (
            json!({"order_id": "4411", "amount": 40.00}),
            strings(&[("order_id", "typed"), ("amount", "model")]),
        ),
    };
    let context = match case {
        Case::Unpaid => Map::new(),
        _ => object(json!({"order_paid": true})),
    };
    Call {
        tool: "refund_card".into(),
        agent: Some("billing".into()),
        arguments: object(arguments).into(),
        origins: origins.into(),
        context,
        intent: Some("ask refund".into()),
        ..Call::default()
    }
}

fn read_inbox_call() -> Call {
    Call {
        tool: "read_inbox".into(),
        agent: Some("desk".into()),
        ..Call::default()
    }
}

/// The shared history of length `max`: the turn, then `max - 1` paid refunds, each checked.
/// Every prefix of it is itself a valid history.
pub fn base_history(body: &ArchivedRecordBody, key: &RecordKey, max: usize) -> Session {
    let env = Env { key, now: NOW };
    let mut session = Session::new("desk", "bench-session");
    stalwart_runtime::read(env, &mut session, "refund order 4411 40.00");
    let call = refund_call(Case::Paid);
    while session.entries().len() < max {
        stalwart_runtime::check_tool_call(body, env, &mut session, &call);
    }
    session
}

/// The history of length `n` a case is checked against, cut from `base` (of length ≥ `n`).
pub fn history(
    body: &ArchivedRecordBody,
    key: &RecordKey,
    base: &Session,
    case: Case,
    n: usize,
) -> Session {
    let mut session = base.clone();
    match case {
        Case::Tainted => {
            session.truncate(n.saturating_sub(1));
            let env = Env { key, now: NOW };
            stalwart_runtime::check_tool_call(body, env, &mut session, &read_inbox_call());
        }
        _ => session.truncate(n),
    }
    session
}

/// The check's answer as a [`Verdict`].
pub fn verdict(check: &Check) -> Verdict {
    Verdict {
        decision: check.decision.as_str(),
        reasons: check.reasons.iter().map(ToString::to_string).collect(),
    }
}

/// One full check of a case's call at the session's current length; the call's entry is removed
/// again afterwards, so the history keeps its length.
pub fn check_once(
    body: &ArchivedRecordBody,
    key: &RecordKey,
    session: &mut Session,
    call: &Call,
) -> Check {
    let n = session.entries().len();
    let check = stalwart_runtime::check_tool_call(body, Env { key, now: NOW }, session, call);
    session.truncate(n);
    check
}
