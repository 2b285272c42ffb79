"""One run, side by side: the shop's refund decided by

- `rust`: `stalwart_runtime::check_tool_call` in a Rust loop inside this process (the call's
  arguments held as Rust values), alone and with the session anchored after each check as the
  binding anchors it;
- `python`: `session.check_tool_call(...)` from Python (arguments converted, the check, the
  session anchored, the answer built as Python objects);
- `floor`: a call into the module with the same arguments doing nothing, and `convert`: the same
  call converting them as `check_tool_call` does;
- `nemo`: NeMo Guardrails 0.24.1, `RailsConfig` + `LLMRails` over the shop's policy.co with a fake
  model (`FakeListLLM`) and an exact-match index for the intent's examples (no embedding model,
  no network), `generate_async` with the person's turn and the fact as context.

Two cases: `paid` (`order_paid: true`: ours confirm `write`, NeMo runs the refund action) and
`unpaid` (ours refuse `refuse`, NeMo answers the `refuse` message). Every figure is taken in
batches, interleaved (one batch of each figure, then the next round), in the process's CPU time
(`time.process_time_ns`, all threads; on a shared machine, waiting for a core is not the
decider's time), and reported as the median of the batches' per-call times with the 10th–90th
percentiles.
"""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
TURN = "refund order 4411 40.00"
ARGS = {"order_id": "4411", "amount": 40.00}
ORIGINS = {"order_id": "typed", "amount": "typed"}
CHECKS = int(os.environ.get("CHECKS", "2000"))
BATCHES = int(os.environ.get("BATCHES", "21"))
NEMO_CALLS = int(os.environ.get("NEMO_CALLS", "20"))


def spread(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    q = statistics.quantiles(ordered, n=10, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 9
    return statistics.median(ordered), q[0], q[-1]


def show(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def nemo_rails():
    from langchain_core.language_models.fake import FakeListLLM
    from nemoguardrails import LLMRails, RailsConfig
    from nemoguardrails.embeddings.index import EmbeddingsIndex

    class ExactIndex(EmbeddingsIndex):
        """The intents' examples, found by exact text (no embedding model is loaded)."""

        def __init__(self, *args, **kwargs):
            self.items = []

        @property
        def embedding_size(self):
            return 0

        async def add_item(self, item):
            self.items.append(item)

        async def add_items(self, items):
            self.items.extend(items)

        async def build(self):
            pass

        async def search(self, text, max_results, threshold=None):
            hits = [i for i in self.items if i.text.strip().lower() == text.strip().lower()]
            return (hits + [i for i in self.items if i not in hits])[:max_results]

    colang = (SHOP / "policy.co").read_text() + '\ndefine bot refuse\n  "I cannot refund that order."\n'
    yaml = (
        "models: []\n"
        "core:\n  embedding_search_provider:\n    name: exact\n"
        "rails:\n  dialog:\n    user_messages:\n      embeddings_only: true\n"
    )
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        rails = LLMRails(RailsConfig.from_content(colang_content=colang, yaml_content=yaml),
                         llm=FakeListLLM(responses=["  ask refund"]))
    rails.register_embedding_search_provider("exact", ExactIndex)
    ran: list[dict] = []

    async def refund_card(**kwargs):
        ran.append(kwargs)
        return "refunded"

    rails.register_action(refund_card, "refund_card")
    return rails, ran


def nemo_messages(paid: bool) -> list[dict]:
    return [{"role": "context", "content": {"order_paid": paid}}, {"role": "user", "content": "refund order 4411"}]


def main() -> None:
    scratch = Path(tempfile.mkdtemp())
    os.environ["XDG_CONFIG_HOME"] = str(scratch / "config")
    os.environ["STALWART_STATE"] = str(scratch / "state")
    shutil.copytree(SHOP, scratch / "shop")
    os.chdir(scratch / "shop")

    from stalwart_agents import Agent, Client, _native

    desk = Agent.from_file("agent.yaml", verify=False)
    client = Client()
    rails, ran = nemo_rails()
    loop = asyncio.new_event_loop()

    cases = {"paid": True, "unpaid": False}
    expect = {"paid": ("confirm", ["write"]), "unpaid": ("refuse", ["refuse"])}
    # The deciders agree before anything is timed.
    for case, paid in cases.items():
        session = client.session("billing", catalogue=desk.catalogue())
        session.read(TURN, intent="ask refund")
        check = session.check_tool_call("refund_card", ARGS, origins=ORIGINS, context={"order_paid": paid})
        assert (check.decision, check.reasons) == expect[case], (case, check)
        ran.clear()
        answer = loop.run_until_complete(rails.generate_async(messages=nemo_messages(paid)))
        assert (len(ran) == 1) == paid, (case, ran, answer)
        assert paid or answer["content"] == "I cannot refund that order.", answer

    figures = ["rust", "rust+anchor", "python", "floor", "convert", "nemo"]
    samples = {(case, f): [] for case in cases for f in figures}
    started = time.time()
    for _ in range(BATCHES):
        for case, paid in cases.items():
            context = {"order_paid": paid}
            for anchor, name in ((False, "rust"), (True, "rust+anchor")):
                samples[(case, name)] += _native.rust_check_ns(
                    desk.record, "billing", TURN, "ask refund", "refund_card", ARGS, ORIGINS, context,
                    CHECKS, 1, anchor)
            session = client.session("billing", catalogue=desk.catalogue())
            session.read(TURN, intent="ask refund")
            check = session.check_tool_call
            t = time.process_time_ns()
            for _ in range(CHECKS):
                check("refund_card", ARGS, origins=ORIGINS, context=context)
            samples[(case, "python")].append((time.process_time_ns() - t) / CHECKS)
            for name, f in (("floor", _native.ffi_floor), ("convert", _native.ffi_convert)):
                t = time.process_time_ns()
                for _ in range(CHECKS):
                    f("refund_card", ARGS, origins=ORIGINS, context=context)
                samples[(case, name)].append((time.process_time_ns() - t) / CHECKS)
            messages = nemo_messages(paid)

            async def nemo_batch() -> None:
                for _ in range(NEMO_CALLS):
                    await rails.generate_async(messages=messages)

            t = time.process_time_ns()
            loop.run_until_complete(nemo_batch())
            samples[(case, "nemo")].append((time.process_time_ns() - t) / NEMO_CALLS)
    took = time.time() - started

    import nemoguardrails

    load = open("/proc/loadavg").read().split()[:3] if Path("/proc/loadavg").exists() else ["?"] * 3
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; took {took:.0f} s")
    print(f"machine: {os.cpu_count()} cores, {cpu}; load after: {' '.join(load)}")
    print(f"python {platform.python_version()}, {rustc}, nemoguardrails {nemoguardrails.__version__}")
    print(f"sampling: {BATCHES} batches of {CHECKS} checks (ours) and {NEMO_CALLS} decisions (NeMo), per figure and case")
    print()
    print("| case | figure | median | p10–p90 |")
    print("|---|---|---:|---:|")
    med = {}
    for case in cases:
        for f in figures:
            m, lo, hi = spread(samples[(case, f)])
            med[(case, f)] = m
            print(f"| {case} | {f} | {show(m)} | {show(lo)}–{show(hi)} |")
    print()
    print("| case | python ÷ rust | python ÷ rust+anchor | goal: python ≤ 2 × rust + floor | nemo ÷ python |")
    print("|---|---:|---:|---|---:|")
    for case in cases:
        py, rust, anchored, floor = (med[(case, f)] for f in ("python", "rust", "rust+anchor", "floor"))
        bound = 2 * rust + floor
        verdict = f"{'met' if py <= bound else 'missed'} ({show(py)} vs {show(bound)})"
        print(f"| {case} | {py / rust:.2f}× | {py / anchored:.2f}× | {verdict} | {med[(case, 'nemo')] / py:.0f}× |")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
