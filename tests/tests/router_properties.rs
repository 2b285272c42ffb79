//! Properties of the selector over generated turns, on the compiled shop and its pt-BR twin:
//! every value a plan writes is in the turn, where its slot says (or in a chain's result); the
//! same turn and record always give the same plan; no input panics, 1 MB turns included.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::Value;
use stalwart_record::{Language, Record};
use stalwart_router::{Earlier, Plan, PlanKind, Request, SlotAt};
use stalwart_tests::labelled::compile;
use stalwart_tests::workspace;

fn shop() -> &'static Record {
    static R: OnceLock<Record> = OnceLock::new();
    R.get_or_init(|| compile(&workspace().join("examples/shop/agent.yaml")).unwrap())
}

fn twin() -> &'static Record {
    static R: OnceLock<Record> = OnceLock::new();
    R.get_or_init(|| compile(&workspace().join("examples/shop-ptbr/agent.yaml")).unwrap())
}

fn plan(record: &Record, agent: &str, turn: &str, earlier: &[Earlier<'_>]) -> Plan {
    stalwart_router::plan(
        record.body(),
        &Request {
            agent,
            turn,
            language: None,
            earlier,
            results: &[],
        },
    )
    .unwrap()
}

/// Whether the text of a slot reads as the value the plan gave it.
fn reads_as(text: &str, value: &Value, language: Language) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Number(n) => {
            let want = n.as_f64();
            let digits: String = text
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .to_string();
            stalwart_router::slots::read_number(&digits, language).map(|(v, _)| v) == want
        }
        _ => false,
    }
}

/// Every argument of the plan's call has a slot, and every slot's text is its value.
fn values_come_from_the_turns(p: &Plan, turns: &[&str]) -> Result<(), String> {
    let Some(call) = &p.call else { return Ok(()) };
    for (name, value) in &call.arguments {
        let slot = p
            .slots
            .iter()
            .find(|s| &s.argument == name)
            .ok_or_else(|| format!("argument {name} has no slot: {}", p.to_json()))?;
        if slot.value != *value {
            return Err(format!("slot and argument differ for {name}"));
        }
        match slot.at {
            SlotAt::Turn { turn, start, end } => {
                let index = turns.len() as i32 - 1 + turn;
                let text = usize::try_from(index)
                    .ok()
                    .and_then(|i| turns.get(i))
                    .and_then(|t| t.get(start..end))
                    .ok_or_else(|| format!("slot of {name} is outside its turn"))?;
                if !reads_as(text, value, p.language) {
                    return Err(format!("{name}: `{text}` does not read as {value}"));
                }
            }
            SlotAt::Result { .. } => return Err("a result with no chain run".into()),
        }
    }
    Ok(())
}

const WORDS_EN: &[&str] = &[
    "refund", "order", "show", "me", "charge", "send", "the", "receipt", "to", "inbox", "check",
    "money", "back", "please", "and", "then", "don't", "how", "why", "card", "amount", "of",
    "give", "customer", "their", "#", "number", "$", "dollars", "what", "is", "plus", "?", ",",
];
const WORDS_PT: &[&str] = &[
    "reembolsar",
    "pedido",
    "mostre",
    "o",
    "cobre",
    "envie",
    "recibo",
    "para",
    "caixa",
    "de",
    "entrada",
    "dinheiro",
    "volta",
    "por",
    "favor",
    "e",
    "depois",
    "não",
    "como",
    "cartão",
    "valor",
    "devolução",
    "devolucao",
    "nº",
    "R$",
    "reais",
    "quanto",
    "é",
    "mais",
    "?",
    ",",
];
const VALUES: &[&str] = &[
    "4411",
    "40.00",
    "40,00",
    "1.234,56",
    "1,234.56",
    "A-12",
    "ann@example.com",
    "\"a note\"",
    "two",
    "duas",
    "12",
    "0",
    "99999999999999999999",
    "https://x.example/a",
    "4411's",
    "-3",
];

fn turn_from(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(words).prop_map(str::to_string),
            1 => prop::sample::select(VALUES).prop_map(str::to_string),
            1 => "\\PC{0,8}",
        ],
        0..12,
    )
    .prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_plan_writes_only_values_of_the_turn(turn in turn_from(WORDS_EN), agent in prop::sample::select(&["desk", "billing"][..])) {
        let p = plan(shop(), agent, &turn, &[]);
        prop_assert!(values_come_from_the_turns(&p, &[&turn]).is_ok(), "{:?} {}", values_come_from_the_turns(&p, &[&turn]), p.to_json());
    }

    #[test]
    fn a_plan_in_portuguese_writes_only_values_of_the_turn(turn in turn_from(WORDS_PT), agent in prop::sample::select(&["desk", "billing"][..])) {
        let p = plan(twin(), agent, &turn, &[]);
        prop_assert!(values_come_from_the_turns(&p, &[&turn]).is_ok(), "{:?} {}", values_come_from_the_turns(&p, &[&turn]), p.to_json());
    }

    #[test]
    fn an_answer_takes_values_only_from_the_two_turns(first in turn_from(WORDS_EN), second in turn_from(WORDS_EN)) {
        let earlier = [Earlier { text: &first, reply: false }];
        let p = plan(shop(), "billing", &second, &earlier);
        prop_assert!(values_come_from_the_turns(&p, &[&first, &second]).is_ok(), "{:?} {}", values_come_from_the_turns(&p, &[&first, &second]), p.to_json());
    }

    #[test]
    fn the_same_turn_and_record_give_the_same_plan(turn in turn_from(WORDS_EN), pt in turn_from(WORDS_PT)) {
        prop_assert_eq!(plan(shop(), "desk", &turn, &[]), plan(shop(), "desk", &turn, &[]));
        prop_assert_eq!(plan(twin(), "billing", &pt, &[]), plan(twin(), "billing", &pt, &[]));
    }

    #[test]
    fn any_text_is_planned_without_a_panic(turn in "\\PC*", bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = plan(shop(), "desk", &turn, &[]);
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        let _ = plan(twin(), "billing", &lossy, &[]);
        let earlier = [Earlier { text: &lossy, reply: true }];
        let _ = plan(shop(), "billing", &turn, &earlier);
    }
}

#[test]
fn a_one_megabyte_turn_is_unread_and_nothing_panics() {
    let words = "refund order 4411 40.00 devolução 1.234,56 ann@example.com 🙂 ";
    let big: String = words.repeat((1 << 20) / words.len() + 1);
    assert!(big.len() >= 1 << 20);
    for (record, agent) in [(shop(), "desk"), (twin(), "billing")] {
        let p = plan(record, agent, &big, &[]);
        assert_eq!(p.kind, PlanKind::Unread);
        assert_eq!(p.reason.as_deref(), Some("too_long"));
    }
    // A long earlier turn is read again without a panic either.
    let cut: String = big.chars().take(300_000).collect();
    let earlier = [Earlier {
        text: &cut,
        reply: false,
    }];
    let p = plan(shop(), "billing", "40.00", &earlier);
    assert_eq!(p.kind, PlanKind::Unread);
}
