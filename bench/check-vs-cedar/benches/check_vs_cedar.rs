//! The tool check against Cedar on the shop's refund, side by side in one run: medians of the
//! full check at history lengths 1, 10, 100 and 1,000, of the history's verification alone, of
//! the BLAKE3 hashing alone over the bytes the verification hashes (the hashing floor), of Cedar's
//! `is_authorized` (pre-built request, and request built from JSON) and of a hand-written Rust
//! function; then the ratios. Prints Markdown tables.
//!
//! The check appends the call's entry to the history; each timed iteration truncates the history
//! back to its length after the check (the truncation, which drops the new entry, is inside the
//! timed part). "Our check" runs on a session the caller holds between checks (its history was
//! verified at its first check, and the runtime's own appends are signed as they are written);
//! "stored history" on a session made afresh from the same entries outside the timed part, as
//! when a history is read back from storage: that check verifies the whole history. Cedar's JSON
//! inputs are cloned outside the timed part.
//!
//! `BENCH_QUICK=1` samples less (for a smoke run).

use std::collections::BTreeMap;

use stalwart_bench_check_vs_cedar::harness::{Budget, Figure, measure, measure_batched, show};
use stalwart_bench_check_vs_cedar::{Case, LENGTHS, cedar, floor, ours};
use stalwart_runtime::canonical::{decode_hash, write_object};
use stalwart_runtime::{Entry, Session, history};

/// One case at one history length: every figure of the table's row.
struct Row {
    n: usize,
    case: Case,
    answer: String,
    check: Figure,
    stored: Figure,
    verify: Figure,
    hashing: Figure,
    cedar_pre: Figure,
    cedar_json: Figure,
    hand: Figure,
}

/// The bytes the verification of `session` hashes: for each entry, the keyed input (the length
/// of the link as one LEB128 byte, the link: the genesis bytes or the previous token's 32 bytes,
/// then the entry's canonical bytes) and, for a call, its arguments' canonical JSON (the
/// digest's input).
fn hashed_bytes(session: &Session) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let mut prev = format!("{}\0{}", session.id, session.agent).into_bytes();
    session
        .entries()
        .iter()
        .map(|entry| {
            assert!(prev.len() < 128, "a link's length is one LEB128 byte");
            let mut keyed = vec![prev.len() as u8];
            keyed.extend_from_slice(&prev);
            keyed.extend_from_slice(&history::canonical_entry(entry));
            let arguments = match entry {
                Entry::Call(c) => {
                    let mut buf = Vec::new();
                    write_object(&mut buf, &c.arguments);
                    Some(buf)
                }
                _ => None,
            };
            prev = decode_hash(entry.token())
                .expect("a signed entry's token is the text of 32 bytes")
                .to_vec();
            (keyed, arguments)
        })
        .collect()
}

/// The hashing alone: BLAKE3 over pre-written bytes, with no canonical JSON and no comparison.
fn hash_only(hashed: &[(Vec<u8>, Option<Vec<u8>>)]) -> u8 {
    let mut acc = 0u8;
    for (keyed, arguments) in hashed {
        acc ^= blake3::keyed_hash(&[42; 32], keyed).as_bytes()[0];
        if let Some(a) = arguments {
            acc ^= blake3::hash(a).as_bytes()[0];
        }
    }
    acc
}

fn ratio(a: f64, b: f64) -> String {
    let r = a / b;
    if r >= 10.0 {
        format!("{r:.0}×")
    } else {
        format!("{r:.2}×")
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let budget = if std::env::var_os("BENCH_QUICK").is_some() {
        Budget {
            warm_up: std::time::Duration::from_millis(50),
            sample: std::time::Duration::from_millis(1),
            samples: 31,
        }
    } else {
        Budget::DEFAULT
    };
    let record = ours::shop_record().unwrap_or_else(|e| panic!("{e}"));
    let body = record.body();
    let key = ours::key(&record);
    let base = ours::base_history(body, &key, 1000);
    let cedar = cedar::Cedar::new().unwrap_or_else(|e| panic!("{e}"));

    let prebuilt: BTreeMap<&str, _> = Case::ALL
        .iter()
        .map(|case| {
            let built = cedar
                .build(&cedar::input(*case))
                .unwrap_or_else(|e| panic!("{e}"));
            (case.name(), built)
        })
        .collect();

    // Every figure of a row is measured in one stretch, one after the other, so that the load
    // of the shared machine weighs on the figures compared in a row alike.
    let mut rows = Vec::new();
    for n in LENGTHS {
        for case in Case::ALL {
            let mut session = ours::history(body, &key, &base, case, n);
            let call = ours::refund_call(case);
            let check = ours::check_once(body, &key, &mut session, &call);
            let answer = format!("{} {}", check.decision.as_str(), check.reasons.join(", "));
            let (request, entities) = &prebuilt[case.name()];
            let input = cedar::input(case);
            let hashed = hashed_bytes(&session);
            let row = Row {
                n,
                case,
                answer,
                check: measure(budget, || ours::check_once(body, &key, &mut session, &call)),
                stored: measure_batched(
                    budget,
                    || {
                        Session::from_parts(
                            session.agent.clone(),
                            session.id.clone(),
                            session.entries().to_vec(),
                        )
                    },
                    // The session is returned so that dropping it is not timed.
                    |mut s| (ours::check_once(body, &key, &mut s, &call), s),
                ),
                verify: measure(budget, || history::verify(&key, &session)),
                hashing: measure(budget, || hash_only(&hashed)),
                cedar_pre: measure(budget, || cedar.decide(request, entities)),
                cedar_json: measure_batched(budget, || input.clone(), |i| cedar.decide_json(i)),
                hand: measure(budget, || floor::decide(&call, &session)),
            };
            eprintln!("{} at {}: {}", case.name(), n, show(row.check.median));
            rows.push(row);
        }
    }

    println!("### Medians\n");
    println!(
        "| case | history | answer | our check | our check, stored history | verify alone | hashing alone | Cedar pre-built | Cedar from JSON | hand-written |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.case.name(),
            r.n,
            r.answer,
            show(r.check.median),
            show(r.stored.median),
            show(r.verify.median),
            show(r.hashing.median),
            show(r.cedar_pre.median),
            show(r.cedar_json.median),
            show(r.hand.median),
        );
    }
    println!("\n### Ratios (our check ÷ the other)\n");
    println!(
        "| case | history | ÷ Cedar pre-built | stored ÷ Cedar pre-built | ÷ Cedar from JSON | ÷ hand-written | stored ÷ verify alone | stored ÷ hashing alone | stored − verify |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.case.name(),
            r.n,
            ratio(r.check.median, r.cedar_pre.median),
            ratio(r.stored.median, r.cedar_pre.median),
            ratio(r.check.median, r.cedar_json.median),
            ratio(r.check.median, r.hand.median),
            ratio(r.stored.median, r.verify.median),
            ratio(r.stored.median, r.hashing.median),
            show(r.stored.median - r.verify.median),
        );
    }
    println!("\n### Spread (p10 – p90 of the samples)\n");
    println!("| case | history | our check | verify alone | Cedar pre-built | Cedar from JSON |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} – {} | {} – {} | {} – {} | {} – {} |",
            r.case.name(),
            r.n,
            show(r.check.p10),
            show(r.check.p90),
            show(r.verify.p10),
            show(r.verify.p90),
            show(r.cedar_pre.p10),
            show(r.cedar_pre.p90),
            show(r.cedar_json.p10),
            show(r.cedar_json.p90),
        );
    }
}
