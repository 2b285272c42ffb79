#!/bin/sh
# The language server's bench (BENCHMARKS.md, "Language server"): a generated workspace of 2,000
# rulebook files and an agent.yaml with 500 tools; one-line edits → publishDiagnostics over stdio,
# the server's memory after opening, and a cold `stalwart compile` of the same workspace.
# Not part of .ci/run (the test suite runs it at a smoke size). Arguments go to the bench
# (e.g. --files 200 --tools 50 --edits 50).
set -eu
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$(pwd)/target}"
cargo build --release --locked --quiet -p stalwart-cli -p stalwart-lsp
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$target/release/stalwart-lsp-bench" --stalwart "$target/release/stalwart" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
