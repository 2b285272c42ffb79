#!/bin/sh
# Times `stalwart diff` (the release binary) on the shop and on generated agents of 100 and 1,000
# tools (BENCHMARKS.md, "Diff"): wall time over RUNS runs (default 5), median and spread, and what
# the diff found. The shop is compared with itself and with a copy whose rulebook lost its `else`
# branch; a generated agent with the NEW that gen.py writes (a few tools changed in each of four
# ways). Usage: bench/diff/run.sh [SIZE...] (default: shop 100 1000).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && cargo build --release --quiet -p stalwart-cli)
bin="$CARGO_TARGET_DIR/release/stalwart"
runs="${RUNS:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
sizes="${*:-shop 100 1000}"
echo "| case | tools | changed | median s | min s | max s | differ | undecided | same |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in $sizes; do
  if [ "$size" = shop ]; then
    cp -r "$root/examples/shop" "$tmp/shop-old"
    cp -r "$root/examples/shop" "$tmp/shop-new"
    # The refusal when the order is not paid is gone: such a call now has no flow.
    python3 - "$tmp/shop-new/policy.co" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("  else\n    bot refuse\n", "")
open(p, "w").write(s)
PY
    cases="shop-same:$tmp/shop-old:$tmp/shop-old:0 shop-changed:$tmp/shop-old:$tmp/shop-new:1"
  else
    changed=$(python3 "$here/gen.py" "$size" "$tmp/gen$size")
    cases="gen-$size:$tmp/gen$size/old:$tmp/gen$size/new:$changed"
  fi
  for c in $cases; do
    python3 - "$bin" "$runs" "$c" <<'PY'
import json, subprocess, sys, time
bin, runs, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
name, old, new, changed = case.split(":")
times, summary = [], None
for _ in range(runs):
    t = time.perf_counter()
    out = subprocess.run([bin, "diff", old + "/agent.yaml", new + "/agent.yaml", "--format", "json"],
                         capture_output=True, text=True)
    times.append(time.perf_counter() - t)
    if out.returncode not in (0, 1):
        sys.exit(f"{name}: exit {out.returncode}: {out.stderr}")
    summary = json.loads(out.stdout)["summary"]
times.sort()
median = times[len(times) // 2]
print(f"| {name} | {summary['tools']} | {changed} | {median:.3f} | {times[0]:.3f} | {times[-1]:.3f} "
      f"| {summary['differ']} | {summary['undecided']} | {summary['same']} |")
PY
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
