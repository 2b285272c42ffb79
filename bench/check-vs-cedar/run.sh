#!/bin/sh
# The tool check against Cedar on the shop's refund (BENCHMARKS.md, "Tool check vs Cedar").
# Checks first that the three deciders agree on the four cases, then prints the tables.
# BENCH_QUICK=1 samples less, for a smoke run.
set -eu
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
cargo test --release --quiet
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rustc: $(rustc --version)"
cargo bench --bench check_vs_cedar
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
