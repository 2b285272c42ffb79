//! The three deciders agree on the four refund cases at every history length: the tool check,
//! Cedar (pre-built and from JSON) and the hand-written floor give the same decision, and the
//! reasons Cedar can give are the check's.

use stalwart_bench_check_vs_cedar::{Case, LENGTHS, Verdict, cedar, floor, ours};

fn v(decision: &'static str, reasons: &[&str]) -> Verdict {
    Verdict {
        decision,
        reasons: reasons.iter().map(|r| r.to_string()).collect(),
    }
}

#[test]
fn the_tool_check_decides_the_four_cases_at_every_length() {
    let record = ours::shop_record().unwrap();
    let body = record.body();
    let key = ours::key(&record);
    let base = ours::base_history(body, &key, 1000);
    assert_eq!(base.entries().len(), 1000);
    for n in LENGTHS {
        for case in Case::ALL {
            let mut session = ours::history(body, &key, &base, case, n);
            assert_eq!(session.entries().len(), n, "{case:?} at {n}");
            let call = ours::refund_call(case);
            let check = ours::check_once(body, &key, &mut session, &call);
            assert_eq!(session.entries().len(), n, "the entry is removed again");
            let want = match case {
                Case::Paid => v("confirm", &["write"]),
                Case::Unpaid => v("refuse", &["refuse"]),
                Case::Note => v("refuse", &["argument_schema"]),
                Case::Tainted => v("confirm", &["argument_origin", "tainted_call"]),
            };
            assert_eq!(ours::verdict(&check), want, "{case:?} at {n}");
            assert_eq!(
                floor::decide(&call, &session).verdict(),
                want,
                "floor, {case:?} at {n}"
            );
            // The same check twice at the same length answers the same.
            let again = ours::check_once(body, &key, &mut session, &call);
            assert_eq!(again, check, "{case:?} at {n}");
        }
    }
}

#[test]
fn cedar_decides_the_four_cases_like_the_check() {
    let cedar = cedar::Cedar::new().unwrap();
    for case in Case::ALL {
        let input = cedar::input(case);
        let (request, entities) = cedar.build(&input).unwrap();
        let prebuilt = cedar.verdict(&cedar.decide(&request, &entities));
        let from_json = cedar.verdict(&cedar.decide_json(input).unwrap());
        assert_eq!(prebuilt, from_json, "{case:?}");
        let want = match case {
            Case::Paid => v("confirm", &["write"]),
            Case::Unpaid => v("refuse", &["refuse"]),
            Case::Note => v("refuse", &["argument_schema"]),
            Case::Tainted => v("confirm", &["tainted_call"]),
        };
        assert_eq!(prebuilt, want, "{case:?}");
    }
}

#[test]
fn cedar_rejects_a_context_the_schema_does_not_declare() {
    let cedar = cedar::Cedar::new().unwrap();
    let mut input = cedar::input(Case::Paid);
    input.context["coupon"] = serde_json::json!("x");
    let err = cedar.build(&input).err().unwrap();
    assert!(err.contains("coupon"), "{err}");
}
