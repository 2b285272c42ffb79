#!/usr/bin/env bash
# The store's benchmark: compiles the gardener (tests/src/gardener.rs's agent), starts a throwaway
# PostgreSQL cluster (.ci/postgres) unless STALWART_BENCH_POSTGRES names a server, and runs
# the benchmark in release mode. Prints the tables BENCHMARKS.md quotes.
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../.. && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$root/tests/src/gardener.rs" "$work/agent.yaml" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
yaml = re.search(r'pub const AGENT_YAML: &str = r#"(.*?)"#;', src, re.S).group(1)
open(sys.argv[2], "w").write(yaml)
PY
(cd "$root" && cargo run -q -p stalwart-cli -- compile "$work/agent.yaml" -o "$work/rec" >/dev/null)
printf '%s' '{"id":"bench","key":"KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio","expires":"2099-01-01"}' >"$work/rec/licence.json"
url="${STALWART_BENCH_POSTGRES:-}"
if [[ -z $url ]]; then
  url="$(bash "$root/.ci/postgres" start)"
  trap 'bash "$root/.ci/postgres" stop || true; rm -rf "$work"' EXIT
fi
# A database of its own, made afresh.
base="${url%/*}"
psql "$url" -qc "DROP DATABASE IF EXISTS stalwart_bench WITH (FORCE)" -c "CREATE DATABASE stalwart_bench" >/dev/null
cargo run -q --release -- "$work/rec" "$base/stalwart_bench"
