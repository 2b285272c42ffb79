#!/usr/bin/env bash
# `stalwart test` on 1,000 scenario steps against examples/shop: 20 scenario files of 50 steps
# each (a turn, then 49 checks of refund_card with `order_paid` false and true by turns, each
# compared with its expected answer), run RUNS times (default 5) without and with `--coverage`.
# Prints the median, the fastest and the slowest wall-clock time of each.
#
#   bash bench/test/run.sh            # builds the release binary first
#   PROFILE=debug bash bench/test/run.sh   # the debug binary (a quick look, not a figure)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
target="${CARGO_TARGET_DIR:-target}"
profile="${PROFILE:-release}"
if [[ $profile == release ]]; then
  cargo build --release -q -p stalwart-cli
else
  cargo build -q -p stalwart-cli
fi
bin="$(cd "$target/$profile" && pwd)/stalwart"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
shop="$(pwd)/examples/shop/agent.yaml"
for f in $(seq -w 1 20); do
  {
    echo "agent: $shop"
    echo "session: {agent: billing, id: bench-$f}"
    echo "steps:"
    echo "  - read: \"refund order 4411 40.00\""
    for i in $(seq 1 49); do
      if (( i % 2 )); then
        paid=false; expect='{decision: refuse, reasons: [refuse], detail: {flow: refunds}}'
      else
        paid=true; expect='{decision: confirm, reasons: [write]}'
      fi
      echo "  - check: {tool: refund_card, intent: ask refund, args: {order_id: \"4411\", amount: 40.00}, origins: {order_id: typed, amount: typed}, context: {order_paid: $paid}}"
      echo "    expect: $expect"
    done
  } > "$work/s$f.yaml"
done
steps=$(grep -c '^  - ' "$work"/*.yaml | awk -F: '{s+=$2} END {print s}')
echo "scenario files: 20, steps: $steps"
time_runs() {
  local label="$1"; shift
  local times=()
  for _ in $(seq 1 "$runs"); do
    local start end
    start=$(date +%s%N)
    "$bin" test "$work" "$@" > /dev/null
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" '
    { t[NR] = $1 }
    END { printf "%-28s median %d ms  (min %d, max %d, %d runs)\n", label, t[int((NR + 1) / 2)], t[1], t[NR], NR }'
}
(cd "$work" && time_runs "stalwart test")
(cd "$work" && time_runs "stalwart test --coverage" --coverage)
