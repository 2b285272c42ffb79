"""A session's history: exported, loaded again, anchored, and refused when edited by hand."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from stalwart_agents import Agent, Client, History


REFUND = {"order_id": "4411", "amount": 40.00}
TYPED = {"order_id": "typed", "amount": "typed"}


@pytest.fixture
def desk(shop: Path) -> Agent:
    return Agent.from_file("agent.yaml", verify=False)


def answer(check) -> str:
    return f"{check.decision} {', '.join(check.reasons)}"


def refund_once(billing) -> object:
    billing.read("refund order 4411 40.00")
    return billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})


def test_the_history_lists_each_entry_as_checks_write_it(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        asked = refund_once(billing)
        assert answer(asked) == "confirm write"
        assert asked.step == 1
        history = billing.history
        assert isinstance(history, History)
        assert (history.agent, history.id, len(history)) == ("billing", billing.id, 2)
        read, call = history.entries
        assert set(read) == {"kind", "text", "token"}
        assert (read["kind"], read["text"]) == ("read", "refund order 4411 40.00")
        assert (call["kind"], call["step"], call["tool"], call["agent"]) == ("call", 1, "refund_card", "billing")
        assert call["arguments"] == REFUND and call["origins"] == TYPED
        assert (call["decision"], call["reasons"]) == ("confirm", ["write"])
        # The list handed out stays the session's: it grows as the session goes on.
        entries = history.entries
        allowed = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True},
                                          confirmation=asked.confirmation)
        assert answer(allowed) == "allow confirmed"
        billing.report(allowed.step, "ran")
        assert [e["kind"] for e in entries] == ["read", "call", "call", "outcome"]
        assert entries is billing.history.entries
        assert history.edited is False


def test_an_exported_history_loads_and_goes_on(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        asked = refund_once(billing)
        text = billing.history.to_json()
        assert json.loads(text) == billing.history.to_dict()
        for kept in (text, json.loads(text), billing.history):
            again = client.session("billing", catalogue=desk.catalogue(), history=kept)
            assert again.id == billing.id
            again.read("refund order 4411 40.00")
            check = again.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
            assert answer(check) == "confirm write"
            assert check.step == 2
        # The token of the first confirm covers its call while that confirm is the newest entry.
        loaded = client.session("billing", catalogue=desk.catalogue(), history=text)
        # (The person's intent goes with the turn it was read from, not with the history.)
        check = loaded.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True},
                                       confirmation=asked.confirmation, intent="ask refund")
        assert answer(check) == "allow confirmed"


@pytest.mark.parametrize(
    "edit",
    [
        "set a field",
        "add a field",
        "delete an entry",
        "swap two entries",
        "edit an argument",
        "edit a reason",
        "cut the newest entry",
        "put in a value that is not JSON",
    ],
)
def test_a_history_edited_by_hand_is_history_invalid(desk: Agent, edit: str) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        billing.check_tool_call("refund_card", REFUND, origins=TYPED)
        entries = billing.history.entries
        old_id = billing.id
        if edit == "set a field":
            entries[1]["tool"] = "get_order"
        elif edit == "add a field":
            entries[0]["tool"] = "get_order"
        elif edit == "delete an entry":
            del entries[1]
        elif edit == "swap two entries":
            entries[1], entries[2] = entries[2], entries[1]
        elif edit == "edit an argument":
            entries[1]["arguments"]["amount"] = 4.0
        elif edit == "edit a reason":
            entries[1]["reasons"].append("confirmed")
        elif edit == "cut the newest entry":
            entries.pop()
        elif edit == "put in a value that is not JSON":
            entries[1]["arguments"]["amount"] = object()
        assert billing.history.edited is True
        check = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
        assert answer(check) == "refuse history_invalid"
        assert check.step is None
        # The session starts again, under a new id, from an empty history.
        assert billing.id != old_id
        assert billing.history.entries == [] and billing.history.edited is False
        check = refund_once(billing)
        assert answer(check) == "confirm write"
        assert check.step == 1


def test_an_edit_that_changes_nothing_is_no_edit(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        entries = billing.history.entries
        entries[1]["tool"] = "get_order"
        entries[1]["tool"] = "refund_card"
        check = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
        assert answer(check) == "confirm write"


def test_copies_of_the_entries_are_plain_and_editing_them_changes_nothing(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        kept = copy.deepcopy(billing.history.entries)
        assert type(kept) is list and type(kept[1]) is dict and type(kept[1]["arguments"]) is dict
        kept[1]["tool"] = "get_order"
        assert billing.history.edited is False
        check = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
        assert answer(check) == "confirm write"


def test_an_edited_history_exported_is_refused_where_it_is_loaded(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        billing.history.entries[1]["arguments"]["amount"] = 400.0
        text = billing.history.to_json()
        assert json.loads(text)["entries"][1]["arguments"]["amount"] == 400.0
        other = client.session("billing", catalogue=desk.catalogue(), history=text)
        check = other.check_tool_call("refund_card", REFUND, origins=TYPED)
        assert answer(check) == "refuse history_invalid"


def test_another_agents_history_is_not_this_sessions(desk: Agent) -> None:
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        text = billing.history.to_json()
        as_desk = client.session("desk", catalogue=desk.catalogue(), history=text)
        assert as_desk.id == billing.id
        assert answer(as_desk.check_tool_call("get_order", {"order_id": "4411"})) == "refuse history_invalid"


def test_a_history_is_bound_to_its_record(desk: Agent, tmp_path: Path) -> None:
    # The same shop with one more example in its rulebook is another record.
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    (other_folder / "shop").mkdir()
    for name in ("agent.yaml", "shop/tools.py", "shop/__init__.py"):
        (other_folder / name).write_text(Path(name).read_text())
    (other_folder / "policy.co").write_text(Path("policy.co").read_text().replace(
        '"refund order 4411"', '"refund order 4411"\n  "refund it"'))
    other = Agent.from_file(other_folder / "agent.yaml", verify=False)
    assert other.record.digest != desk.record.digest
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        refund_once(billing)
        moved = client.session("billing", catalogue=other.catalogue(), history=billing.history)
        assert answer(moved.check_tool_call("refund_card", REFUND, origins=TYPED)) == "refuse history_invalid"


def test_a_loaded_history_is_anchored_where_a_state_folder_keeps_its_head(desk: Agent, tmp_path: Path) -> None:
    state = tmp_path / "anchors"
    with Client(state=state) as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        early = billing.history.to_json()  # an empty history: nothing is anchored yet
        refund_once(billing)
        behind = billing.history.to_json()
        billing.check_tool_call("refund_card", REFUND, origins=TYPED)
        # A copy taken before the last check is behind the kept head: refused.
        stale = client.session("billing", catalogue=desk.catalogue(), history=behind)
        assert answer(stale.check_tool_call("refund_card", REFUND, origins=TYPED)) == "refuse history_invalid"
        # Refused once, refused again: the session went on under a new id, its old id's head kept.
        assert stale.id != billing.id
        again = client.session("billing", catalogue=desk.catalogue(), history=behind)
        assert answer(again.check_tool_call("refund_card", REFUND, origins=TYPED)) == "refuse history_invalid"
        current = client.session("billing", catalogue=desk.catalogue(), history=billing.history)
        check = current.check_tool_call("refund_card", REFUND, origins=TYPED, intent="ask refund")
        assert answer(check) == "refuse refuse"
        # The first session's copy is now behind the head its copy went on to: a second branch.
        assert answer(billing.check_tool_call("refund_card", REFUND, origins=TYPED)) == "refuse history_invalid"
        assert json.loads(early)["entries"] == []
    # Without a state folder a copy cut back is verified only: it is accepted (the threat model
    # in ARCHITECTURE.md says so; a store or a state folder anchors it).
    with Client() as client:
        loose = client.session("billing", catalogue=desk.catalogue(), history=behind)
        check = loose.check_tool_call("refund_card", REFUND, origins=TYPED, intent="ask refund")
        assert answer(check) == "refuse refuse"


def test_history_text_that_is_not_a_history_is_bad_input(desk: Agent) -> None:
    with Client() as client:
        cases = [
            ("[]", "history: not a history (not a JSON object)"),
            ('{"agent": "billing"}', "history: not a history (an object without `entries`)"),
            ('{"entries": [], "entries": []}', "history: duplicate key `entries` (history:1:25)"),
        ]
        for text, message in cases:
            with pytest.raises(ValueError) as raised:
                client.session("billing", catalogue=desk.catalogue(), history=text)
            assert str(raised.value) == message
        with pytest.raises(TypeError) as raised:
            client.session("billing", catalogue=desk.catalogue(), history=42)
        assert str(raised.value) == "history must be JSON text, a dict or a History, not int"
