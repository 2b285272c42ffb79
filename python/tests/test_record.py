"""Record folders `stalwart compile` and `stalwart rules compile` write, loaded with no compiler."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stalwart_agents import FORMAT_VERSION, Agent, Record, compile_agent, compile_rules


def test_a_compiled_agent_folder_opens_as_its_record(shop: Path) -> None:
    folder = Path(compile_agent("agent.yaml"))
    assert folder == shop / ".stalwart" / "record"
    assert sorted(p.name for p in folder.iterdir()) == ["graph.json", "manifest.json", "record.bin"]
    record = Record.open(folder)
    assert record.kind == "agent"
    assert record.format_version == FORMAT_VERSION == 4
    assert record.agents == {
        "billing": ["refund_card"],
        "desk": ["charge_card", "get_order", "read_inbox", "send_receipt"],
    }
    assert record.tools == ["charge_card", "get_order", "read_inbox", "refund_card", "send_receipt"]
    assert record.governed == ["refund_card"]
    assert record.folder == folder
    assert record.graph()["format"] == "qls-graph/1"
    assert record == Record.open(folder / "record.bin")
    # The record an Agent compiles in memory is the same record, byte for byte.
    assert Agent.from_file("agent.yaml", verify=False).record == record
    assert record.tool("refund_card") == {
        "name": "refund_card",
        "description": "Refund an amount of an order to the card it was paid with.",
        "effects": "changes",
        "arguments": ["order_id", "amount"],
        "result_fields": [],
        "sends_out": False,
        "reads_outside": False,
        "irreversible": False,
        "confidential": False,
        "schema_partial": False,
        "governed_by_rulebook": True,
        "flows": ["refunds"],
        "agents": ["billing"],
    }
    assert record.tool("delete_order") is None


def test_a_rulebook_compiled_on_its_own_opens(shop: Path) -> None:
    folder = Path(compile_rules("policy.co", "rules"))
    record = Record.open(folder)
    assert record.kind == "rulebook"
    assert record.agents == {}
    assert record.governed == ["refund_card"]


PROGRAM = textwrap.dedent(
    """
    import stalwart_agents
    from stalwart_agents import _native

    def absent(*args, **kwargs):
        raise AssertionError("the compiler was called")

    for name in ("compile_agent", "write_agent_record", "write_rules_record"):
        setattr(_native, name, absent)
    stalwart_agents.Agent.from_file = absent

    from stalwart_agents import Client, Record

    record = Record.open(".stalwart/record")
    print(record.kind, ", ".join(record.tools))
    with Client() as client:
        billing = client.session("billing")   # found: the record folder in this folder
        billing.read("refund order 4411 40.00", intent="ask refund")
        for paid in (False, True):
            check = billing.check_tool_call("refund_card", {"order_id": "4411", "amount": 40.00},
                                            origins={"order_id": "typed", "amount": "typed"},
                                            context={"order_paid": paid})
            print(paid, check.decision, ", ".join(check.reasons))
    """
)


def test_a_record_folder_alone_is_checked_with_no_compiler(shop: Path, tmp_path: Path) -> None:
    folder = Path(compile_agent("agent.yaml"))
    alone = tmp_path / "deployed"
    shutil.copytree(folder, alone / ".stalwart" / "record")
    assert sorted(p.name for p in alone.rglob("*") if p.is_file()) == ["graph.json", "manifest.json", "record.bin"]
    env = {k: v for k, v in os.environ.items() if k not in ("PATH", "STALWART_AGENT")}
    env["PATH"] = str(alone)  # no `stalwart` binary to be found
    ran = subprocess.run([sys.executable, "-c", PROGRAM], cwd=alone, env=env, capture_output=True, text=True,
                         check=False)
    assert ran.stderr == ""
    assert ran.stdout == (
        "agent charge_card, get_order, read_inbox, refund_card, send_receipt\n"
        "False refuse refuse\n"
        "True confirm write\n"
    )


def test_stalwart_agent_names_the_agent_or_its_record_folder(
    shop: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stalwart_agents import Client

    folder = Path(compile_agent("agent.yaml", tmp_path / "deployed"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for named in (folder, folder / "record.bin", shop / "agent.yaml", shop):
        monkeypatch.setenv("STALWART_AGENT", str(named))
        with Client() as client:
            billing = client.session("billing")
            assert billing.record == Record.open(folder), named
            billing.read("refund order 4411 40.00", intent="ask refund")
            check = billing.check_tool_call("refund_card", {"order_id": "4411", "amount": 40.00},
                                            origins={"order_id": "typed", "amount": "typed"},
                                            context={"order_paid": True})
            assert (check.decision, check.reasons) == ("confirm", ["write"])
