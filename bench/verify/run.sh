#!/bin/sh
# Times `stalwart verify` on the shop and on generated agents of 10, 100, 1,000 and 10,000 tools
# (BENCHMARKS.md, "Proof"). Not part of .ci/run: the 1,000- and 10,000-tool agents take minutes.
# Arguments are passed to verify-bench (e.g. --sizes shop,10 --runs 3).
set -eu
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
cargo build --release --quiet
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$CARGO_TARGET_DIR/release/verify-bench" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
