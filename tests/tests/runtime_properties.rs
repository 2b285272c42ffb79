//! Properties of the tool check (DESIGN §5.3, §5.5, §9), over the conformance store agent:
//! any edit, removal, reordering, truncation-then-extension or splice of a signed history is
//! `history_invalid` (cutting off only the newest entries gives a history that was once valid,
//! which no stateless check can tell from an older copy); a token covers nothing once the tool, an argument, the session or the
//! point of the history differs, nor after its expiry; the check never panics and never allows a
//! write without a token or a passed undo.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use stalwart_record::Record;
use stalwart_runtime::{Call, Decision, Env, Key, Outcome, RecordKey, Session};
use stalwart_tests::workspace;

fn record() -> &'static Record {
    static RECORD: OnceLock<Record> = OnceLock::new();
    RECORD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let agent = workspace().join("tests/conformance/agents/store/agent.yaml");
        let out = dir.path().join("rec");
        let outcome = stalwart_driver::compile_agent(
            Arc::new(stalwart_driver::DiskLoader),
            &agent,
            &stalwart_driver::CompileOptions {
                out: Some(out.clone()),
            },
        );
        assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
        Record::read(out.join("record.bin")).unwrap()
    })
}

const NOW: u64 = 1_796_040_000;

fn key() -> RecordKey {
    Key::new("prop", [7; 32], NOW + 86_400 * 365).for_record(&record().header().digest)
}

fn call(tool: &str, args: Value) -> Call {
    let arguments: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let origins = arguments
        .keys()
        .map(|k| (k.clone(), "typed".to_string()))
        .collect::<BTreeMap<_, _>>();
    Call {
        tool: tool.into(),
        arguments: arguments.into(),
        origins: origins.into(),
        context:
            json!({"usage": {"create_order": {"day": 0}}, "spent": {"create_order": {"day": 0}}})
                .as_object()
                .cloned()
                .unwrap(),
        ..Default::default()
    }
}

/// A session with turns, reads, reported outcomes, a confirm and an allowed write.
fn busy_session(id: &str) -> Session {
    let key = key();
    let env = Env {
        key: &key,
        now: NOW,
    };
    let body = record().body();
    let mut s = Session::new("clerk", id);
    stalwart_runtime::read(env, &mut s, "order 2 of A-1 for 30");
    stalwart_runtime::check_tool_call(
        body,
        env,
        &mut s,
        &call("check_stock", json!({"sku": "A-1"})),
    );
    stalwart_runtime::report(
        env,
        &mut s,
        1,
        Outcome::Ran,
        Some(json!({"sku": "A-1", "in_stock": 5})),
    )
    .unwrap();
    let order = call(
        "create_order",
        json!({"sku": "A-1", "quantity": 2, "total": 30}),
    );
    let asked = stalwart_runtime::check_tool_call(body, env, &mut s, &order);
    let approved = Call {
        confirmation: asked.confirmation,
        ..order
    };
    stalwart_runtime::check_tool_call(body, env, &mut s, &approved);
    stalwart_runtime::report(
        env,
        &mut s,
        3,
        Outcome::Ran,
        Some(json!({"order_id": "o-1"})),
    )
    .unwrap();
    stalwart_runtime::check_tool_call(body, env, &mut s, &call("lookup", json!({"sku": "A-1"})));
    s
}

fn verdict(s: Session) -> Vec<String> {
    let key = key();
    let mut s = s;
    let c = stalwart_runtime::check_tool_call(
        record().body(),
        Env {
            key: &key,
            now: NOW,
        },
        &mut s,
        &call("lookup", json!({"sku": "B"})),
    );
    c.reasons.iter().map(ToString::to_string).collect()
}

/// Edits one JSON leaf of the history (a string, number or boolean) to a different value.
fn edit_leaf(v: &mut Value, target: usize, counter: &mut usize, replacement: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .values_mut()
            .any(|x| edit_leaf(x, target, counter, replacement)),
        Value::Array(a) => a
            .iter_mut()
            .any(|x| edit_leaf(x, target, counter, replacement)),
        leaf => {
            if *counter == target {
                if leaf != replacement {
                    *leaf = replacement.clone();
                    return true;
                }
                *leaf = json!("something else");
                return true;
            }
            *counter += 1;
            false
        }
    }
}

fn count_leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(count_leaves).sum(),
        Value::Array(a) => a.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_edit_of_an_entry_is_history_invalid(pick in any::<prop::sample::Index>(), replacement in prop_oneof![
        Just(json!("get_order")), Just(json!(0)), Just(json!(true)), Just(json!(99.5)), Just(json!("allow"))
    ]) {
        let s = busy_session("edit");
        let mut entries = json!(s.entries());
        let leaves = count_leaves(&entries);
        let target = pick.index(leaves);
        let mut counter = 0;
        prop_assert!(edit_leaf(&mut entries, target, &mut counter, &replacement));
        let mut j = s.to_json();
        j["entries"] = entries;
        let edited = Session::from_json(j).unwrap();
        prop_assert_eq!(verdict(edited), vec!["history_invalid".to_string()]);
    }

    #[test]
    fn removing_or_reordering_entries_is_history_invalid(a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>(), remove in any::<bool>()) {
        let s = busy_session("order");
        let mut entries = s.entries().to_vec();
        let n = entries.len();
        let (i, j) = (a.index(n), b.index(n));
        if remove {
            // Cutting off the newest entries leaves a history that was once valid: a stateless
            // check cannot tell it from an older copy (truncation then extension is refused).
            prop_assume!(i + 1 != n);
            entries.remove(i);
        } else {
            prop_assume!(i != j);
            entries.swap(i, j);
        }
        let edited = Session::from_parts(s.agent.clone(), s.id.clone(), entries);
        prop_assert_eq!(verdict(edited), vec!["history_invalid".to_string()]);
    }

    #[test]
    fn truncation_then_extension_and_splices_are_history_invalid(cut in 1usize..7, from in 0usize..9) {
        let s = busy_session("mine");
        let other = busy_session("theirs");
        let mut t = s.entries().to_vec();
        t.truncate(cut.min(s.entries().len() - 1));
        // Extend with an entry of this session from another point, or with another session's.
        let extra = if from % 2 == 0 { s.entries().get(from % s.entries().len()) } else { other.entries().get(from % other.entries().len()) };
        let extra = extra.cloned().unwrap();
        prop_assume!(s.entries().get(t.len()) != Some(&extra));
        t.push(extra);
        let spliced = Session::from_parts(s.agent.clone(), s.id.clone(), t);
        prop_assert_eq!(verdict(spliced), vec!["history_invalid".to_string()]);
    }

    #[test]
    fn a_token_covers_only_its_exact_call(change in 0usize..6, amount in 1i64..5) {
        let key = key();
        let body = record().body();
        let mut s = busy_session("tokens");
        let env = Env { key: &key, now: NOW };
        let order = call("create_order", json!({"sku": "A-1", "quantity": 2, "total": 30}));
        let asked = stalwart_runtime::check_tool_call(body, env, &mut s, &order);
        prop_assert_eq!(asked.decision, Decision::Confirm);
        let token = asked.confirmation.clone();
        let mut later = env;
        let mut presented = Call { confirmation: token, ..order.clone() };
        match change {
            0 => Arc::make_mut(&mut presented.arguments).insert("quantity".into(), json!(2 + amount)).map(|_| ()).unwrap_or(()),
            1 => presented.tool = "cancel_order".into(),
            2 => s.id = "another-session".into(),
            3 => {
                // The same call asked again: the first token is for an earlier point.
                stalwart_runtime::check_tool_call(body, env, &mut s, &order);
            }
            4 => later.now = NOW + 3600 + 1,
            _ => {
                stalwart_runtime::check_tool_call(body, env, &mut s, &call("lookup", json!({"sku": "A-1"})));
            }
        }
        let c = stalwart_runtime::check_tool_call(body, later, &mut s, &presented);
        prop_assert!(c.reasons != vec!["confirmed".to_string()], "{:?} with change {}", c, change);
    }

    #[test]
    fn the_check_never_panics_and_never_allows_a_write_unasked(
        tool in prop::sample::select(vec!["create_order", "cancel_order", "mail_receipt", "lookup", "check_stock", "read_mail", "nope"]),
        sku in "[A-Z]-[0-9]|https?://[a-z]{1,8}\\.(com|test)/x|[a-z@.]{0,12}",
        quantity in prop_oneof![Just(json!(1)), Just(json!(-3)), Just(json!("two")), Just(json!(null)), Just(json!(2.5))],
        origin in prop::sample::select(vec!["typed", "model", "context", "result:1", "result:3.order_id", "computed", "???"]),
        label in prop::sample::select(vec!["", "untrusted", "low", "agent:auditor", "high"]),
        undoes in prop::option::of(0u32..6),
        token in prop::option::of("[0-9]\\.[0-9]{1,10}\\.[A-Za-z0-9_-]{0,43}"),
    ) {
        let key = key();
        let body = record().body();
        let mut s = busy_session("fuzz");
        let mut c = call(tool, json!({"sku": sku, "quantity": quantity, "order_id": "o-1"}));
        for o in Arc::make_mut(&mut c.origins).values_mut() {
            *o = origin.to_string();
        }
        if !label.is_empty() {
            c.labels.insert("call".into(), vec![label.to_string()]);
        }
        c.undoes = undoes;
        c.confirmation = token;
        // The traced check (coverage) answers and records exactly as the check does.
        let mut traced_session = s.clone();
        let (traced, trace) = stalwart_runtime::check_tool_call_traced(body, Env { key: &key, now: NOW }, &mut traced_session, &c);
        let answer = stalwart_runtime::check_tool_call(body, Env { key: &key, now: NOW }, &mut s, &c);
        prop_assert_eq!(traced.to_json(), answer.to_json());
        prop_assert_eq!(traced_session.to_json(), s.to_json());
        if trace.stop == stalwart_runtime::trace::Stop::BeforeRules {
            prop_assert!(trace.events.is_empty(), "{:?}", trace);
        }
        let writes = ["create_order", "cancel_order", "mail_receipt"];
        if answer.decision == Decision::Allow && writes.contains(&tool) {
            prop_assert!(answer.reasons == vec!["compensation".to_string()] || answer.reasons == vec!["confirmed".to_string()], "{:?}", answer);
        }
    }

    /// An anchored session (the head its host kept after every operation) cut back at any
    /// point and presented with any token it was ever given: refused as `history_invalid`,
    /// never allowed; and the whole history presented with an old token is never `confirmed`.
    #[test]
    fn a_history_cut_anywhere_with_any_earlier_token_is_refused(
        ops in prop::collection::vec(0u8..5, 1..14),
        cut in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let key = key();
        let body = record().body();
        let env = Env { key: &key, now: NOW };
        let mut s = busy_session("anchored");
        let order = call("create_order", json!({"sku": "A-1", "quantity": 1, "total": 5}));
        let mut tokens: Vec<String> = Vec::new();
        for op in ops {
            match op {
                0 => stalwart_runtime::read(env, &mut s, "go on"),
                1 => {
                    stalwart_runtime::check_tool_call(body, env, &mut s, &call("lookup", json!({"sku": "A-1"})));
                }
                2 => {
                    let asked = stalwart_runtime::check_tool_call(body, env, &mut s, &order);
                    tokens.extend(asked.confirmation);
                }
                3 => {
                    let presented = Call { confirmation: tokens.last().cloned(), ..order.clone() };
                    stalwart_runtime::check_tool_call(body, env, &mut s, &presented);
                }
                _ => {
                    let step = s.next_step() - 1;
                    let _ = stalwart_runtime::report(env, &mut s, step, Outcome::Ran, None);
                }
            }
            // The host keeps the head after every operation; the session carries it on.
            let head = s.head();
            s.set_anchor(head);
        }
        let anchor = s.head();
        prop_assume!(!tokens.is_empty());
        let token = tokens[pick.index(tokens.len())].clone();
        let mut cut_back = Session::from_json(s.to_json()).unwrap();
        cut_back.truncate(cut.index(s.entries().len()));
        let mut cut_back = Session::from_json(cut_back.to_json()).unwrap();
        cut_back.set_anchor(anchor.clone());
        let presented = Call { confirmation: Some(token.clone()), ..order.clone() };
        let c = stalwart_runtime::check_tool_call(body, env, &mut cut_back, &presented);
        prop_assert_eq!(c.decision, Decision::Refuse);
        prop_assert_eq!(c.reasons.iter().map(ToString::to_string).collect::<Vec<_>>(), vec!["history_invalid".to_string()]);
        // The whole history, with a token that is not for its newest entry, covers nothing.
        let mut whole = Session::from_json(s.to_json()).unwrap();
        whole.set_anchor(anchor);
        let newest_is_its_confirm = tokens.last() == Some(&token)
            && matches!(s.entries().last(), Some(stalwart_runtime::Entry::Call(c)) if c.decision == Decision::Confirm);
        let c = stalwart_runtime::check_tool_call(body, env, &mut whole, &presented);
        if !newest_is_its_confirm {
            prop_assert!(c.reasons != vec!["confirmed".to_string()], "{:?}", c);
        }
    }
}
