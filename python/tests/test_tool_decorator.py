"""`@tool`: its keywords are the declaration the compiler reads statically, so one module serves
the compiler and the program that runs the tools."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

import pytest

from stalwart_agents import Agent, tool
from stalwart_agents.declare import DECLARATION_KEYS, declaration_of

from conftest import ROOT


def test_its_keywords_are_the_declarations_fields() -> None:
    schema = json.loads((ROOT / "docs" / "schemas" / "catalogue.schema.json").read_text())
    fields = list(schema["$defs"]["tool"]["properties"])
    assert list(DECLARATION_KEYS) == fields
    parameters = inspect.signature(tool).parameters
    assert [p for p in parameters if parameters[p].kind is inspect.Parameter.KEYWORD_ONLY] == fields


def test_the_shops_tools_keep_their_declarations_and_still_run(shop: Path) -> None:
    tools = importlib.import_module("shop.tools")
    assert declaration_of(tools.get_order) == {"effects": "reads", "name": "get_order"}
    assert declaration_of(tools.charge_card) == {
        "effects": "changes",
        "after": [{"tool": "get_order", "bind": {"order_id": "order_id"}}],
        "at_most": 1,
        "undo": {"tool": "refund_card", "bind": {"order_id": "order_id", "amount": "amount"}},
        "name": "charge_card",
    }
    assert tools.get_order("4411")["status"] == "paid"
    tools.refund_card("4411", 40.0)
    assert tools.LEDGER == [("refund", "4411", 40.0)]
    assert declaration_of(len) is None


def test_a_module_of_declared_tools_compiles_as_declared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "desk_tools.py").write_text(
        "from stalwart_agents import tool\n"
        "\n"
        "@tool\n"
        "def look(order_id: str) -> dict:\n"
        "    \"\"\"Looks.\"\"\"\n"
        "    return {}\n"
        "\n"
        "@tool(name='mail', effects='changes', sends_out=True, irreversible=True,\n"
        "      idempotency={'key': 'to'}, confidential=False, requires='high')\n"
        "def send(to: str, body: str) -> None:\n"
        "    \"\"\"Sends a mail.\"\"\"\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("desk_tools")
    assert declaration_of(module.look) == {"name": "look"}
    agent = Agent(agents={"desk": {"tools": ["look", "mail"]}}, tools=[module.send, module.look],
                  folder=tmp_path, verify=False)
    mail = agent.catalogue().tool("mail")
    assert (mail["effects"], mail["sends_out"], mail["irreversible"], mail["arguments"]) == (
        "changes", True, True, ["to", "body"])
    look = agent.catalogue()["look"]
    assert (look["effects"], look["description"], look["arguments"]) == ("unknown", "Looks.", ["order_id"])


def test_a_keyword_it_does_not_know_is_a_type_error() -> None:
    with pytest.raises(TypeError) as raised:
        tool(efects="reads")  # type: ignore[call-overload]
    assert "unexpected keyword argument 'efects'" in str(raised.value)
    with pytest.raises(TypeError) as raised:
        tool("reads")  # type: ignore[call-overload]
    assert str(raised.value) == "tool() takes the function it declares, or keyword arguments only, not str"
