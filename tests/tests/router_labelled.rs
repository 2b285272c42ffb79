//! The selector on its labelled sets (`tests/router/`): at least 300 turns per language for the
//! shop and its pt-BR twin. It never writes a wrong tool step, and its accuracy per plan kind
//! stays at or above the floor recorded here (BENCHMARKS.md reports the figures).

use stalwart_tests::labelled::{Verdict, compile, read_set, run_set};
use stalwart_tests::workspace;

fn check(set: &str, agent: &str, floor: f64) {
    let root = workspace();
    let record = compile(&root.join(agent)).unwrap();
    let turns = read_set(&root.join("tests").join("router").join(set)).unwrap();
    assert!(turns.len() >= 300, "{set} holds {} turns", turns.len());
    let (tally, misses) = run_set(&record, &turns).unwrap();
    let (total, right) = tally
        .values()
        .fold((0, 0), |(t, r), (n, ok)| (t + n, r + ok));
    println!(
        "{set}: {right}/{total} right ({:.1} %)",
        100.0 * right as f64 / total as f64
    );
    for (kind, (n, ok)) in &tally {
        println!(
            "  {kind:<10} {ok:>3}/{n:<3} {:.1} %",
            100.0 * *ok as f64 / *n as f64
        );
    }
    for (verdict, line) in &misses {
        println!("  {verdict:?}: {line}");
    }
    let wrong: Vec<&String> = misses
        .iter()
        .filter(|(v, _)| *v == Verdict::WrongToolStep)
        .map(|(_, l)| l)
        .collect();
    assert!(
        wrong.is_empty(),
        "wrong tool steps:\n{}",
        wrong
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let accuracy = right as f64 / total as f64;
    assert!(
        accuracy >= floor,
        "{set}: accuracy {accuracy:.3} below {floor}"
    );
}

#[test]
fn the_shop_in_english_never_a_wrong_tool_step() {
    check("shop-en.tsv", "examples/shop/agent.yaml", 0.95);
}

#[test]
fn the_shops_twin_in_brazilian_portuguese_never_a_wrong_tool_step() {
    check("shop-pt-br.tsv", "examples/shop-ptbr/agent.yaml", 0.95);
}
