"""Spec ch45's and ch32's Python programs, run as written, from the shop's folder.

`spec/ch45_rulebook.py` and `spec/ch32_one_call.py` are the programs the chapters print, token for
token (ch45's lost its indentation in the chapter's text; it is restored here), and the `.out`
files what the chapters print they print. A program is run with the names it uses (`Agent`,
`Client`) and nothing else; the person's intent is read from its turn by the shop's intent reader,
which stands in for the selector until it is in this build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stalwart_agents import Agent, Client, reading_intents

from conftest import SPEC, read_shop_intent


def run_program(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    text = (SPEC / f"{name}.py").read_text()
    namespace = {"__name__": "__main__", "Agent": Agent, "Client": Client}
    with reading_intents(read_shop_intent):
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
