//! Runs one part of the benchmark in a loop, for a profiler: `profile <check|verify|digest>
//! <history length> <seconds> [paid|unpaid|note|tainted]` (the case defaults to `paid`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use stalwart_bench_check_vs_cedar::{Case, ours};
use stalwart_runtime::canonical::digest_arguments;
use stalwart_runtime::history;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("check");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let secs: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let record = ours::shop_record().unwrap_or_else(|e| panic!("{e}"));
    let body = record.body();
    let key = ours::key(&record);
    let base = ours::base_history(body, &key, n.max(1));
    let case = match args.get(4).map(String::as_str) {
        Some("unpaid") => Case::Unpaid,
        Some("note") => Case::Note,
        Some("tainted") => Case::Tainted,
        _ => Case::Paid,
    };
    let mut session = ours::history(body, &key, &base, case, n);
    let call = ours::refund_call(case);
    let end = Instant::now() + Duration::from_secs(secs);
    let mut runs = 0u64;
    while Instant::now() < end {
        for _ in 0..100 {
            match what {
                "verify" => {
                    black_box(history::verify(&key, &session));
                }
                "digest" => {
                    black_box(digest_arguments(&call.arguments));
                }
                _ => {
                    black_box(ours::check_once(body, &key, &mut session, &call));
                }
            }
        }
        runs += 100;
    }
    println!(
        "{what} at {n}: {runs} runs, {:.0} ns each",
        secs as f64 * 1e9 / runs as f64
    );
}
