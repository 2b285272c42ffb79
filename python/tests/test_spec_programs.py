"""Spec ch45's and ch32's Python programs, run as written, from the shop's folder.

`spec/ch45_rulebook.py` and `spec/ch32_one_call.py` are the programs the chapters print, character
for character (ch45's lost its indentation in the chapter's text; it is restored here, and nothing
else), and the `.out` files what the chapters print they print. A program is run with the names it
uses (`Agent`, `Client`) and nothing else: `billing.read(...)` runs the selector compiled into the
record, and its plan's intent is what the rulebook's gate reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stalwart_agents import Agent, Client, Plan
from stalwart_agents.plan import PlannedCall

from conftest import SPEC


def run_program(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    text = (SPEC / f"{name}.py").read_text()
    namespace = {"__name__": "__main__", "Agent": Agent, "Client": Client}
    exec(compile(text, f"{name}.py", "exec"), namespace)
    return capsys.readouterr().out


def spec_output(name: str) -> list[str]:
    return (SPEC / f"{name}.out").read_text().splitlines()


def test_ch45_the_rulebook_it_runs_under(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_program("ch45_rulebook", capsys)
    # print() writes a space before the empty flow of the second line: the chapter's text cannot
    # show it, so lines are compared without trailing spaces, and the exact output is pinned too.
    assert [line.rstrip() for line in out.splitlines()] == spec_output("ch45_rulebook")
    assert out == "order_paid False: refuse refuse refunds\norder_paid True: confirm write \n"


def test_ch32_one_call_every_check(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_program("ch32_one_call", capsys)
    assert out.splitlines() == spec_output("ch32_one_call")
    assert out == (SPEC / "ch32_one_call.out").read_text()


def test_the_shops_turn_is_planned_as_the_refund_it_asks_for(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        plan = billing.read("refund order 4411 40.00")
        assert plan is not None
        assert (plan.intent, plan.flow, billing.intent) == ("ask refund", "refunds", "ask refund")


def test_the_plan_has_the_fields_stalwart_plan_prints(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        plan = billing.read("refund order 4411 40.00")
        assert isinstance(plan, Plan)
        assert (plan.kind, plan.language, plan.record_as, plan.question) == ("confirm", "en", "read", None)
        assert plan.call == PlannedCall("refund_card", {"order_id": "4411", "amount": 40.0},
                                        {"order_id": "typed", "amount": "typed"})
        assert [(s.argument, s.value, s.turn, s.start, s.end) for s in plan.slots] == [
            ("order_id", "4411", 0, 13, 17), ("amount", 40.0, 0, 18, 23)]
        assert plan.score.read_as == "ask refund"
        assert [e["kind"] for e in billing.history.entries] == ["read"]
        with pytest.raises(ValueError) as raised:
            billing.read("refund order 4411", language="fr")
        assert str(raised.value) == "unknown language `fr`: the selector reads `en` and `pt-BR`"
        with pytest.raises(TypeError) as wrong:
            billing.read("refund order 4411", intent=3)
        assert "intent" in str(wrong.value)
