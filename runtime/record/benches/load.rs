//! Load cost of a record by size: validating load (`Record::from_bytes`), access after
//! validation (`Record::body` and one field), and, for comparison, parsing the same body from JSON
//! with serde_json. Prints a table of medians and ratios at the end.
//!
//! `cargo bench -p stalwart-record --bench load`

#![allow(clippy::expect_used, reason = "a benchmark stops at its first failure")]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode};
use stalwart_record::*;

/// The sizes measured: a label, the number of tools and the properties of each tool's arguments.
const SIZES: [(&str, usize, usize); 3] = [("1KB", 1, 1), ("1MB", 635, 4), ("10MB", 6_350, 4)];

fn main() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("criterion");
    let mut c = Criterion::default()
        .output_directory(&out)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut sizes = Vec::new();
    for (label, tools, properties) in SIZES {
        sizes.push(bench_size(&mut c, label, tools, properties));
    }
    c.final_summary();
    print_table(&out, &sizes);
}

/// Sizes of one case, in bytes.
struct Sizes {
    label: &'static str,
    tools: usize,
    record: usize,
    json: usize,
}

fn bench_size(c: &mut Criterion, label: &'static str, tools: usize, properties: usize) -> Sizes {
    let body = body_with_tools(tools, properties);
    let bytes = encode(&body, "stalwart 0.1.0").expect("encode");
    let json = serde_json::to_string(&body).expect("json");
    let last = body.tools.last().map(|t| t.name.clone());
    let record = Record::from_bytes(&bytes).expect("load");
    assert_eq!(record.body().tools.last().map(|t| t.name.to_string()), last);

    let mut group = c.benchmark_group(format!("record_load_{label}"));
    if tools > 100 {
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
    }
    group.bench_function(BenchmarkId::new("from_bytes", label), |b| {
        b.iter(|| Record::from_bytes(black_box(&bytes)).expect("load"))
    });
    // Where (a) goes: the digest and bytecheck alone.
    let body_bytes = record.body_bytes();
    group.bench_function(BenchmarkId::new("digest", label), |b| {
        b.iter(|| blake3::hash(black_box(body_bytes)))
    });
    group.bench_function(BenchmarkId::new("bytecheck", label), |b| {
        b.iter(|| {
            rkyv::access::<ArchivedRecordBody, rkyv::rancor::BoxedError>(black_box(body_bytes))
                .is_ok()
        })
    });
    group.bench_function(BenchmarkId::new("access", label), |b| {
        b.iter(|| {
            let body = black_box(&record).body();
            black_box(
                body.tools
                    .last()
                    .map(|t| t.name.as_str())
                    .unwrap_or_default()
                    .len(),
            )
        })
    });
    group.bench_function(BenchmarkId::new("json", label), |b| {
        b.iter(|| {
            let body: RecordBody = serde_json::from_str(black_box(&json)).expect("json");
            black_box(body.tools.last().map(|t| t.name.len()).unwrap_or_default())
        })
    });
    group.finish();
    Sizes {
        label,
        tools,
        record: bytes.len(),
        json: json.len(),
    }
}

/// A body with `n` tools, each with an argument schema of `properties` string properties (one
/// schema node each, plus the object's), three values, three expressions, a check and a gate
/// path, all reached by one agent.
fn body_with_tools(n: usize, properties: usize) -> RecordBody {
    let mut body = RecordBody {
        sources: vec![Source {
            path: "agent.yaml".into(),
            digest: "ab".repeat(32),
        }],
        intents: vec!["refund".into()],
        ..RecordBody::default()
    };
    for i in 0..n {
        let tool = tool(&mut body, i, properties);
        body.tools.push(tool);
    }
    body.agents.push(Agent {
        name: "support".into(),
        model: None,
        tools: (0..n as u32).collect(),
        hands_off_to: vec![],
        privilege: Trust::Medium,
        on_unread: OnUnread::Refuse,
        language: None,
        budget_steps: Some(40),
        span: SourceSpan::default(),
    });
    body
}

fn tool(body: &mut RecordBody, i: usize, property_count: usize) -> Tool {
    let value = body.values.len() as u32;
    body.values.push(Value::String(format!("status_{i}_open")));
    body.values
        .push(Value::String(format!("status_{i}_closed")));
    body.values.push(Value::Number(i as f64));
    let mut properties = Vec::new();
    for p in 0..property_count {
        properties.push((format!("field_{p}"), body.schema_nodes.len() as u32));
        body.schema_nodes.push(SchemaNode {
            types: TypeSet::STRING,
            enum_values: vec![value, value + 1],
            has_enum: true,
            max_length: Some(64),
            pattern: Some(format!("^[a-z_0-9]{{1,{}}}$", p + 8)),
            ..SchemaNode::default()
        });
    }
    let arguments = body.schema_nodes.len() as u32;
    body.schema_nodes.push(SchemaNode {
        types: TypeSet::OBJECT,
        properties: properties.clone(),
        required: vec!["field_0".into()],
        additional: Additional::Deny,
        ..SchemaNode::default()
    });
    let expr = body.exprs.len() as u32;
    body.exprs.push(Expr::Arg("field_0".into()));
    body.exprs.push(Expr::Literal(value + 2));
    body.exprs.push(Expr::Compare {
        op: CompareOp::Le,
        left: expr,
        right: expr + 1,
    });
    let span = SourceSpan {
        source: 0,
        start: i as u32 * 40,
        end: i as u32 * 40 + 30,
        line: i as u32 + 1,
        col: 1,
    };
    body.expr_spans.extend([span; 3]);
    Tool {
        name: format!("tool_{i:06}"),
        description: format!("tool number {i}: looks up and changes records in the back office"),
        effects: if i.is_multiple_of(2) {
            Effects::Reads
        } else {
            Effects::Changes
        },
        arguments: Some(arguments),
        argument_names: properties.iter().map(|(name, _)| name.clone()).collect(),
        result: None,
        result_fields: vec![],
        sends_out: false,
        reads_outside: false,
        requires: Some(Trust::Medium),
        after: vec![],
        not_after: vec![NotAfter::Untrusted],
        at_most: None,
        undo: Undo::Unset,
        irreversible: false,
        idempotency: Idempotency::None,
        checks: vec![ArgumentCheck {
            argument: "field_1".into(),
            op: CheckOp::Equals,
            operand: CheckOperand::Value(value),
        }],
        spend: None,
        confidential: false,
        argument_kinds: vec![],
        source: None,
        retrieves_from: None,
        writes_to: None,
        schema_partial: false,
        schema_partial_keywords: vec![],
        spans: ToolSpans {
            effects: Some(span),
            arguments: Some(span),
            requires: Some(span),
            not_after: vec![span],
            checks: vec![span],
            ..ToolSpans::default()
        },
        gate: Gate {
            governed: true,
            paths: vec![GatePath {
                flow: format!("flow_{i}"),
                intent: Some("refund".into()),
                condition: Some(expr + 2),
                action: GateAction::Allow,
                span,
            }],
            flows: vec![format!("flow_{i}")],
            default: None,
        },
        span,
    }
}

/// The median of one benchmark in nanoseconds, from criterion's saved estimates.
fn median_ns(out: &Path, group: &str, function: &str, label: &str) -> Option<f64> {
    let path: PathBuf = [out, Path::new(group), Path::new(function), Path::new(label)]
        .iter()
        .collect::<PathBuf>()
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates.get("median")?.get("point_estimate")?.as_f64()
}

fn print_table(out: &Path, sizes: &[Sizes]) {
    print_main_table(out, sizes);
    println!();
    println!("| record | (a) from_bytes | digest alone | bytecheck alone |");
    println!("|---|---:|---:|---:|");
    for size in sizes {
        let group = format!("record_load_{}", size.label);
        let median = |function| median_ns(out, &group, function, size.label);
        if let (Some(a), Some(d), Some(b)) =
            (median("from_bytes"), median("digest"), median("bytecheck"))
        {
            println!(
                "| {} | {} | {} | {} |",
                size.label,
                time(a),
                time(d),
                time(b)
            );
        }
    }
}

fn print_main_table(out: &Path, sizes: &[Sizes]) {
    println!();
    println!(
        "| record | tools | record bytes | JSON bytes | (a) from_bytes | (b) access | (c) JSON | (c)/(b) | (c)/(a) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for size in sizes {
        let group = format!("record_load_{}", size.label);
        let median = |function| median_ns(out, &group, function, size.label);
        let (Some(a), Some(b), Some(c)) = (median("from_bytes"), median("access"), median("json"))
        else {
            println!("| {} | no estimates (run with `cargo bench`) |", size.label);
            continue;
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0}× | {:.1}× |",
            size.label,
            size.tools,
            size.record,
            size.json,
            time(a),
            time(b),
            time(c),
            c / b,
            c / a
        );
    }
}

fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}
