#!/usr/bin/env bash
# The selector against the cheap baseline a team would write (scikit-learn TF-IDF + nearest
# example, trained on the same examples), side by side in one run, on the labelled sets of the
# shop (tests/router/shop-en.tsv) and its pt-BR twin (shop-pt-br.tsv): plans (turns) per second,
# median and p99 per turn, accuracy by the same measure, and wrong tool steps.
#
# Usage: bench/router-vs-sklearn.sh
# Environment:
#   ROUNDS=N            rounds over the set for the selector (default 200) and the baseline (BASE_ROUNDS, 20)
#   VENV=DIR            the throwaway venv (default bench/.venv, git-ignored)
#   SKLEARN_VERSION=X   scikit-learn version to install (default 1.9.*)
#   CARGO_TARGET_DIR    where the release binaries are built (default bench/router/target)
#   STALWART=PATH       a `stalwart` binary to compile the records with (default: built here, release)
#
# Not part of .ci/run: it installs a package from PyPI and takes a few minutes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rounds="${ROUNDS:-200}"
base_rounds="${BASE_ROUNDS:-20}"
venv="${VENV:-$here/.venv}"
sklearn_version="${SKLEARN_VERSION:-1.9.*}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/router/target}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== baseline: scikit-learn==$sklearn_version in $venv" >&2
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q "scikit-learn==$sklearn_version" >&2

echo "== building (release)" >&2
if [ -z "${STALWART:-}" ]; then
    cargo build -q --release --manifest-path "$repo/Cargo.toml" -p stalwart-cli
fi
cargo build -q --release --manifest-path "$here/router/Cargo.toml"
stalwart="${STALWART:-$CARGO_TARGET_DIR/release/stalwart}"
bench="$CARGO_TARGET_DIR/release/router-bench"

printf '%-12s %-9s %12s %10s %10s %9s %7s\n' set who "turns/s" "median" "p99" accuracy wrong
for pair in "shop-en:shop" "shop-pt-br:shop-ptbr"; do
    set_name="${pair%%:*}"
    example="${pair##*:}"
    cp -r "$repo/examples/$example" "$out/$example"
    "$stalwart" compile "$out/$example/agent.yaml" -o "$out/$example/record" > /dev/null
    timing="$("$bench" "$out/$example/record/record.bin" "$repo/tests/router/$set_name.tsv" "$out/$set_name.plans" "$rounds")"
    scores="$("$venv/bin/python" "$here/router/baseline.py" "$out/$set_name.plans.examples.json" \
        "$repo/tests/router/$set_name.tsv" "$out/$set_name.plans" "$base_rounds")"
    python3 - "$set_name" "$timing" "$scores" <<'PY'
import json, sys
name, timing, scores = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
b, s = scores["baseline"], scores["selector"]
def us(ns): return f"{ns / 1000:.2f} µs"
print(f"{name:<12} {'selector':<9} {timing['plans_per_second']:>12,.0f} {us(timing['median_ns']):>10} {us(timing['p99_ns']):>10} {s['accuracy']:>8.1%} {s['wrong_tool_steps']:>7}")
print(f"{name:<12} {'baseline':<9} {b['turns_per_second']:>12,.0f} {us(b['median_ns']):>10} {us(b['p99_ns']):>10} {b['accuracy']:>8.1%} {b['wrong_tool_steps']:>7}  (threshold {b['threshold']:.2f})")
print(f"{name:<12} {'ratio':<9} {timing['plans_per_second'] / b['turns_per_second']:>11,.0f}x")
PY
done
