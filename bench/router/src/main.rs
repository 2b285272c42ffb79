//! `router-bench RECORD SET OUT [ROUNDS]`: plans every turn of a labelled set (tests/router/*.tsv)
//! ROUNDS times with the record at RECORD (a `record.bin`), and prints one JSON object: plans per
//! second over the whole run, the median and 99th percentile of a plan's time, and the count of
//! turns. Writes to OUT, one JSON line per turn, what the turn was read as (kind, tool, rule,
//! choices), for the run script to score against the labels beside the baseline's. Also writes
//! OUT.examples.json: the examples the record's selector was compiled from (each intent's
//! examples with the tool its route reaches, and each tool's name and description), which the
//! baseline is trained on.

use std::time::Instant;

use serde_json::{Value, json};
use stalwart_record::{ArchivedRouteTarget, Record};
use stalwart_router::{Request, plan};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(record), Some(set), Some(out)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: router-bench RECORD SET OUT [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(200);
    let record = Record::open(record).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let body = record.body();
    let text = std::fs::read_to_string(set).unwrap_or_default();
    let turns: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut p = l.splitn(5, '\t');
            let agent = p.next()?.to_string();
            let turn = p.nth(3)?.to_string();
            Some((agent, turn))
        })
        .collect();
    let mut lines = String::new();
    for (agent, turn) in &turns {
        let request = Request {
            agent,
            turn,
            language: None,
            earlier: &[],
            results: &[],
        };
        let p = plan(body, &request).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
        let j = p.to_json();
        lines.push_str(
            &json!({
                "kind": j["kind"], "tool": j["call"]["tool"], "rule": j["rule"],
                "choices": j["choices"], "arguments": j["call"]["arguments"],
            })
            .to_string(),
        );
        lines.push('\n');
    }
    std::fs::write(out, lines).unwrap_or_else(|e| eprintln!("{e}"));
    std::fs::write(format!("{out}.examples.json"), examples(body).to_string())
        .unwrap_or_else(|e| eprintln!("{e}"));
    // Timing: every turn once per round, each plan timed on its own.
    let mut samples: Vec<u64> = Vec::with_capacity(turns.len() * rounds);
    let started = Instant::now();
    for _ in 0..rounds {
        for (agent, turn) in &turns {
            let request = Request {
                agent,
                turn,
                language: None,
                earlier: &[],
                results: &[],
            };
            let t = Instant::now();
            let p = plan(body, &request);
            samples.push(t.elapsed().as_nanos() as u64);
            std::hint::black_box(p).ok();
        }
    }
    let total = started.elapsed();
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!(
        "{}",
        json!({
            "turns": turns.len(),
            "plans": samples.len(),
            "plans_per_second": samples.len() as f64 / total.as_secs_f64(),
            "median_ns": at(0.5),
            "p99_ns": at(0.99),
            "min_ns": samples[0],
            "max_ns": samples[samples.len() - 1],
        })
    );
}

/// The examples the selector was compiled from: each intent's examples with the tool its route
/// reaches, and each tool's name (words) and description.
fn examples(body: &stalwart_record::ArchivedRecordBody) -> Value {
    let mut out = Vec::new();
    for route in body.selector.routes.iter() {
        let ArchivedRouteTarget::Tool(t) = route.target else {
            continue;
        };
        let tool = &body.tools[t.to_native() as usize];
        if let Some(i) = route.intent.as_ref() {
            let intent = &body.selector.intents[i.to_native() as usize];
            for e in intent.examples.iter() {
                out.push(json!({"text": e.as_str(), "tool": tool.name.as_str()}));
            }
        }
    }
    for tool in body.tools.iter() {
        out.push(json!({
            "text": format!("{} {}", tool.name.as_str().replace('_', " "), tool.description.as_str()),
            "tool": tool.name.as_str(),
        }));
    }
    let agents: Value = body
        .agents
        .iter()
        .map(|a| {
            (
                a.name.as_str().to_string(),
                Value::from(
                    a.tools
                        .iter()
                        .map(|t| body.tools[t.to_native() as usize].name.as_str().to_string())
                        .collect::<Vec<_>>(),
                ),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    json!({"examples": out, "agents": agents})
}
