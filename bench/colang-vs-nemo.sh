#!/usr/bin/env bash
# Times the Colang 1.0 and 2.x front ends of stalwart-syntax against the reference parsers
# (NeMo Guardrails, from PyPI) on the corpus, and prints the ratio of files/s per dialect. Also
# times our parsers on one large input per dialect, made by concatenating the valid corpus files.
#
# Usage: bench/colang-vs-nemo.sh [CORPUS_DIR]
#   CORPUS_DIR   holds v1/*.co and v2/*.co (default: ../shared/corpus/colang beside the repo)
# Environment:
#   RUNS=N                 timed runs per parser and dialect (default 15 ours, NEMO_RUNS=5 reference)
#   BIG_MB=M               size of the concatenated input (default 10, in 10^6 bytes)
#   VENV=DIR               the throwaway venv (default bench/.venv, git-ignored)
#   NEMO_VERSION=X         nemoguardrails version to install (default 0.24.1)
#   CARGO_TARGET_DIR       where the release binary is built (default bench/colang/target)
#
# Not part of .ci/run: it installs a package from PyPI and takes a few minutes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="${1:-$repo/../shared/corpus/colang}"
runs="${RUNS:-15}"
nemo_runs="${NEMO_RUNS:-5}"
big_mb="${BIG_MB:-10}"
venv="${VENV:-$here/.venv}"
nemo_version="${NEMO_VERSION:-0.24.1}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/colang/target}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for d in v1 v2; do
    if ! compgen -G "$corpus/$d/*.co" > /dev/null; then
        echo "no $corpus/$d/*.co: pass the corpus folder as the first argument" >&2
        exit 2
    fi
done

echo "== reference: nemoguardrails==$nemo_version in $venv" >&2
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import nemoguardrails, sys; sys.exit(nemoguardrails.__version__ != '$nemo_version')" 2> /dev/null; then
    "$venv/bin/pip" install --quiet "nemoguardrails==$nemo_version"
fi

echo "== ours: building bench/colang (release)" >&2
cargo build --quiet --release --manifest-path "$here/colang/Cargo.toml"
bench="$CARGO_TARGET_DIR/release/colang-bench"

python3 -c 'import platform; print("python", platform.python_version())' >&2
rustc --version >&2
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

for d in v1 v2; do
    echo "== $d: reference" >&2
    "$venv/bin/python" "$here/nemo_parse.py" --dialect "$d" --runs "$nemo_runs" \
        --accepted "$out/$d.accepted" "$corpus/$d"/*.co | tee "$out/$d.nemo.json"
    mapfile -t files < "$out/$d.accepted"
    echo "== $d: stalwart-syntax, the files the reference accepts" >&2
    "$bench" time --dialect "$d" --runs "$runs" "${files[@]}" | tee "$out/$d.ours.json"
    "$bench" time --dialect "$d" --runs "$runs" --inspect "${files[@]}" | tee "$out/$d.ours-inspect.json"
    echo "== $d: stalwart-syntax, one concatenated input of at least $big_mb MB" >&2
    "$bench" big --dialect "$d" --runs "$((runs < 7 ? runs : 7))" --min-mb "$big_mb" "${files[@]}" \
        | tee "$out/$d.big.json"
done

python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
load = lambda name: json.load(open(f"{out}/{name}.json"))
print()
print("| dialect | files | KB | reference files/s | ours files/s | ratio | ours +inspect files/s | ratio | ours MB/s (files) | ours MB/s (big input) | big input MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
ok = True
for d in ("v1", "v2"):
    nemo, ours, insp, big = load(f"{d}.nemo"), load(f"{d}.ours"), load(f"{d}.ours-inspect"), load(f"{d}.big")
    r, ri = ours["files_per_s"] / nemo["files_per_s"], insp["files_per_s"] / nemo["files_per_s"]
    ok &= r >= 300 and big["mb_per_s"] >= 50
    print(f"| {d} | {ours['files']} | {ours['bytes'] / 1e3:.1f} | {nemo['files_per_s']:.1f} | "
          f"{ours['files_per_s']:.0f} | {r:.0f}x | {insp['files_per_s']:.0f} | {ri:.0f}x | "
          f"{ours['mb_per_s']:.2f} | {big['mb_per_s']:.2f} | {big['bytes'] / 1e6:.1f} |")
for d in ("v1", "v2"):
    nemo = load(f"{d}.nemo")
    print(f"reference {d}: import {nemo['import_s']} s, warm-up run {nemo['warmup_s']} s, "
          f"{nemo['rejected']} file(s) rejected")
print("goals (300x files/s, 50 MB/s on the big input):", "met" if ok else "not met")
EOF
