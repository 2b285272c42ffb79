"""The LangGraph guard with a store: a confirm waits in the store, is answered from any process and
goes on in any other, on SQLite always and on PostgreSQL when `STALWART_TEST_POSTGRES` names a
server (`.ci/test` starts one; under CI a missing server fails these tests, never skips them).

The graph (`refund_graph_host.py`) runs in this process and as processes of its own; its tool
adds a line to `ledger.log` each time it runs, so each test says exactly what ran."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command

from stalwart_agents import Agent, conversation
from stalwart_agents.langgraph import AnsweredAlready

HOST = Path(__file__).resolve().parent / "refund_graph_host.py"
REFUNDED = "refunded 40.0 on order 4411"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store's URL: a folder of the test's own, or the test server."""
    if request.param == "sqlite":
        return f"{tmp_path / 'chats'}/"
    server = os.environ.get("STALWART_TEST_POSTGRES")
    if not server:
        if os.environ.get("CI"):
            pytest.fail("STALWART_TEST_POSTGRES is not set: CI runs the PostgreSQL tests (.ci/test starts a server)")
        pytest.skip("no PostgreSQL server: set STALWART_TEST_POSTGRES (.ci/test starts one)")
    return server


@pytest.fixture
def thread() -> str:
    return f"refund-{uuid.uuid4().hex[:12]}"


def host(shop: Path, store: str, thread: str, *args: str) -> dict[str, Any]:
    """Runs the graph's host as a process of its own; returns what it printed."""
    done = subprocess.run(
        [sys.executable, str(HOST), *args, "--store", store, "--conversation", thread],
        capture_output=True, text=True, cwd=shop, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def ledger(shop: Path) -> list[str]:
    path = shop / "ledger.log"
    return path.read_text().splitlines() if path.exists() else []


def turn_of(store: str, thread: str, agent: str = "billing") -> Any:
    chat = conversation(None, thread, store=store, agent=agent, catalogue=Agent.from_file("agent.yaml"))
    return chat.turns()[-1]


def test_an_interrupt_answered_in_a_second_process_goes_on_in_a_third(shop: Path, store: str, thread: str) -> None:
    asked = host(shop, store, thread, "start")["interrupt"]
    assert asked["approval"] == f"{thread}/1/1"
    assert asked["tool"] == "refund_card"
    assert asked["reasons"] == ["argument_origin"]
    turn = turn_of(store, thread)
    assert turn.state == "waiting"
    (waiting,) = turn.waiting
    assert (waiting.tool, waiting.invocation, waiting.path, waiting.effects) == (
        "refund_card", 1, "billing/refund_card", "changes")
    assert waiting.arguments == {"order_id": "4411", "amount": 40.0}
    assert waiting.origins == {"order_id": "model", "amount": "model"}
    assert waiting.question == asked["question"]
    assert waiting.question.startswith("Run `refund_card` with ")
    assert ledger(shop) == []

    assert host(shop, store, thread, "approve", "--by", "ana") == {"recorded": True}
    assert ledger(shop) == []

    went_on = host(shop, store, thread, "resume")
    assert went_on["messages"][2] == ["ToolMessage", REFUNDED, "success"]
    assert went_on["messages"][-1] == ["AIMessage", f"Done: {REFUNDED}", None]
    assert ledger(shop) == ["refund 4411 40.0"]
    turn = turn_of(store, thread)
    assert turn.state == "done"
    assert turn.answer == f"Done: {REFUNDED}"
    assert [(a.state, a.answered_by) for a in turn.approvals] == [("approved", "ana")]
    assert [(r.kind, r.name, r.state, r.outcome, r.result) for r in turn.journal] == [
        ("tool", "refund_card", "done", "ran", REFUNDED)]


def test_a_denial_and_its_reason_reach_the_model(shop: Path, store: str, thread: str) -> None:
    from refund_graph_host import graph

    config = {"configurable": {"thread_id": thread}}
    state = graph(store, thread).invoke({"messages": [HumanMessage("refund order 4411 40.00")]}, config)
    (asked,) = state["__interrupt__"]
    assert asked.value["approval"] == f"{thread}/1/1"

    state = graph(store, thread).invoke(
        Command(resume={"approved": False, "reason": "not today", "by": "ana"}), config)
    told = state["messages"][2]
    assert isinstance(told, ToolMessage)
    assert (told.content, told.status) == ("The person did not allow this call. not today", "error")
    assert ledger(shop) == []
    (approval,) = turn_of(store, thread).approvals
    assert (approval.state, approval.answered_by, approval.why) == ("denied", "ana", "not today")


def test_a_denial_given_in_another_process_reaches_the_model(shop: Path, store: str, thread: str) -> None:
    host(shop, store, thread, "start")
    assert host(shop, store, thread, "deny", "--by", "ana", "--reason", "the card was stolen") == {"recorded": True}
    went_on = host(shop, store, thread, "resume")
    assert went_on["messages"][2] == [
        "ToolMessage", "The person did not allow this call. the card was stolen", "error"]
    assert ledger(shop) == []


def test_an_answer_given_twice_tells_the_second_who_answered(shop: Path, store: str, thread: str) -> None:
    host(shop, store, thread, "start")
    assert host(shop, store, thread, "approve", "--by", "ana") == {"recorded": True}
    second = host(shop, store, thread, "deny", "--by", "bob", "--reason", "no")
    assert second["error"] == "already_answered"
    assert "call 1 approved by ana" in second["message"]

    # The graph resumed with another answer: ana's stands, and the one resuming is told.
    went_on = host(shop, store, thread, "resume", "--answer", '"no"', "--by", "bob")
    assert went_on["warnings"] == [
        f"turn 1 of `{thread}` was already answered (call 1 approved by ana): that answer stands"]
    assert went_on["messages"][2] == ["ToolMessage", REFUNDED, "success"]
    assert ledger(shop) == ["refund 4411 40.0"]
    assert [(a.state, a.answered_by) for a in turn_of(store, thread).approvals] == [("approved", "ana")]


def test_a_node_run_again_after_its_tool_ran_does_not_run_it_twice(shop: Path, store: str, thread: str) -> None:
    host(shop, store, thread, "start")
    # The checkpoint as the interrupt left it: a process that dies after the tool ran and before
    # the graph saved its node's result resumes from here.
    shutil.copy(shop / "checkpoints.pickle", shop / "interrupted.pickle")
    went_on = host(shop, store, thread, "resume", "--answer", '"yes"', "--by", "ana")
    assert went_on["messages"][2] == ["ToolMessage", REFUNDED, "success"]
    assert ledger(shop) == ["refund 4411 40.0"]

    shutil.copy(shop / "interrupted.pickle", shop / "checkpoints.pickle")
    again = host(shop, store, thread, "resume")
    assert again["messages"][2] == ["ToolMessage", REFUNDED, "success"]
    assert again["messages"][-1] == ["AIMessage", f"Done: {REFUNDED}", None]
    assert ledger(shop) == ["refund 4411 40.0"]
    assert [(r.state, r.outcome) for r in turn_of(store, thread).journal] == [("done", "ran")]


def test_a_graph_resumed_in_the_same_process_runs_the_tool_once(shop: Path, store: str, thread: str) -> None:
    from refund_graph_host import graph

    config = {"configurable": {"thread_id": thread}}
    guarded = graph(store, thread, by="ana")
    state = guarded.invoke({"messages": [HumanMessage("refund order 4411 40.00")]}, config)
    assert state["__interrupt__"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnsweredAlready)
        state = guarded.invoke(Command(resume="yes"), config)
    assert [type(m).__name__ for m in state["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert ledger(shop) == ["refund 4411 40.0"]
    turn = turn_of(store, thread)
    assert (turn.state, [(a.state, a.answered_by) for a in turn.approvals]) == ("done", [("approved", "ana")])


def test_a_read_beside_a_confirm_in_one_node_runs_once(shop: Path, store: str, thread: str) -> None:
    from langchain_core.messages import AIMessage

    from stalwart_agents import Client
    from stalwart_agents.langgraph import build_stalwart_graph

    ran: list[str] = []

    def get_order(order_id: str) -> dict[str, Any]:
        """Look up an order: its status, the card on file and its total."""
        ran.append(f"get_order {order_id}")
        return {"status": "paid", "card": "visa-4242", "total": 40.0}

    def charge_card(order_id: str, amount: float) -> str:
        """Charge the card on file for an order."""
        ran.append(f"charge_card {order_id} {amount}")
        return "charged"

    class Model:
        def invoke(self, messages: list[Any]) -> AIMessage:
            if isinstance(messages[-1], ToolMessage):
                return AIMessage(content="Charged.")
            return AIMessage(content="", tool_calls=[
                {"name": "get_order", "args": {"order_id": "4411"}, "id": "c1", "type": "tool_call"},
                {"name": "charge_card", "args": {"order_id": "4411", "amount": 40.0}, "id": "c2", "type": "tool_call"},
            ])

        def bind_tools(self, tools: Any) -> Any:
            raise NotImplementedError

    desk = Agent.from_file("agent.yaml")
    session = Client().session("desk", catalogue=desk.catalogue())
    graph = build_stalwart_graph(Model(), [get_order, charge_card], session=session, store=store,
                                 conversation_id=thread, by="ana")
    config = {"configurable": {"thread_id": thread}}
    state = graph.invoke({"messages": [HumanMessage("charge order 4411")]}, config)
    (asked,) = state["__interrupt__"]
    assert (asked.value["approval"], asked.value["tool"]) == (f"{thread}/1/2", "charge_card")
    assert ran == ["get_order 4411"]

    state = graph.invoke(Command(resume="yes"), config)
    assert ran == ["get_order 4411", "charge_card 4411 40.0"]
    told = {m.tool_call_id: (m.content, m.status) for m in state["messages"] if isinstance(m, ToolMessage)}
    assert told["c2"] == ("charged", "success")
    assert json.loads(told["c1"][0]) == {"status": "paid", "card": "visa-4242", "total": 40.0}
    turn = turn_of(store, thread, "desk")
    assert turn.state == "done"
    assert [(r.number, r.name, r.state, r.outcome) for r in turn.journal] == [
        (1, "get_order", "done", "ran"), (2, "charge_card", "done", "ran")]
