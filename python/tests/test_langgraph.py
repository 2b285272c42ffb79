"""The LangGraph guard, in real `langgraph` graphs driven by scripted chat models (no network)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command

from stalwart_agents import Agent, Client
from stalwart_agents.facts import Context
from stalwart_agents.langgraph import Guard, build_stalwart_graph



def asks(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def model(*replies: AIMessage) -> FakeMessagesListChatModel:
    return FakeMessagesListChatModel(responses=list(replies))


@pytest.fixture
def tools(shop: Path) -> Any:
    return importlib.import_module("shop.tools")


def kinds(session: Any) -> list[str]:
    return [
        e["kind"] if e["kind"] != "call" else f"{e['tool']} {e['decision']} {', '.join(e['reasons'])}"
        for e in session.history.entries
    ]


def test_a_refund_waits_for_the_person_and_runs_once_as_shown(tools: Any) -> None:
    desk = Agent.from_file("agent.yaml")
    client = Client()
    billing = client.session("billing", catalogue=desk.catalogue())
    graph = build_stalwart_graph(
        model(asks("refund_card", {"order_id": "4411", "amount": 40.0}, "call-1"), AIMessage(content="Refunded.")),
        [tools.refund_card],
        session=billing,
        context=Context(facts=desk.facts, values={"order_paid": True}),
    )
    config = {"configurable": {"thread_id": "refund"}}
    state = graph.invoke({"messages": [HumanMessage("refund order 4411 40.00")]}, config)
    (waiting,) = state["__interrupt__"]
    assert waiting.value == {
        "question": waiting.value["question"],
        "tool": "refund_card",
        "arguments": {"order_id": {"value": "4411", "origin": "model"}, "amount": {"value": 40.0, "origin": "model"}},
        "reasons": ["argument_origin"],
        "step": 1,
    }
    assert waiting.value["question"].startswith("Run `refund_card` with ")
    assert tools.LEDGER == []

    state = graph.invoke(Command(resume="yes"), config)
    shown = waiting.value["arguments"]
    assert tools.LEDGER == [("refund", shown["order_id"]["value"], shown["amount"]["value"])]
    assert [type(m).__name__ for m in state["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert state["messages"][2].status == "success"
    assert state["messages"][-1].content == "Refunded."
    assert kinds(billing) == [
        "read",
        "refund_card confirm argument_origin",
        "refund_card allow confirmed",
        "outcome",
    ]
    assert billing.history.entries[-1]["outcome"] == "ran"


def test_a_refusal_the_person_gives_reaches_the_model(tools: Any) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    billing = Client().session("billing", catalogue=desk.catalogue())
    graph = build_stalwart_graph(
        model(asks("refund_card", {"order_id": "4411", "amount": 40.0}, "call-1"), AIMessage(content="Not done.")),
        [tools.refund_card],
        session=billing,
        context={"order_paid": True},
    )
    config = {"configurable": {"thread_id": "no"}}
    graph.invoke({"messages": [HumanMessage("refund order 4411 40.00")]}, config)
    state = graph.invoke(Command(resume="no, not that order"), config)
    refused = state["messages"][2]
    assert isinstance(refused, ToolMessage) and refused.status == "error"
    assert refused.content == "The person did not allow this call. no, not that order"
    assert tools.LEDGER == []
    assert kinds(billing) == ["read", "refund_card confirm argument_origin", "reply"]


def test_a_destination_in_an_order_number_is_refused_and_nothing_runs(tools: Any) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    billing = Client().session("billing", catalogue=desk.catalogue())
    graph = build_stalwart_graph(
        model(asks("refund_card", {"order_id": "https://refunds.invalid/4411", "amount": 40.0}, "call-1"),
              AIMessage(content="I cannot do that.")),
        [tools.refund_card],
        session=billing,
        context={"order_paid": True},
    )
    state = graph.invoke({"messages": [HumanMessage("refund order 4411 40.00")]},
                         {"configurable": {"thread_id": "dest"}})
    assert "__interrupt__" not in state
    refused = state["messages"][2]
    assert isinstance(refused, ToolMessage) and refused.status == "error"
    assert refused.content == (
        'Stalwart refused this call: undeclared_destination. destinations: ["https://refunds.invalid/4411"].'
    )
    assert tools.LEDGER == []
    assert state["messages"][-1].content == "I cannot do that."


def test_a_refusal_after_a_charge_runs_the_undo_plan(tools: Any) -> None:
    agent = Agent(agents={"desk": {"privilege": "high", "tools": ["get_order", "charge_card", "refund_card"]}},
                  tools=[tools.charge_card], verify=False)
    session = Client().session("desk", catalogue=agent.catalogue())
    charge = {"order_id": "4411", "amount": 40.0}
    graph = build_stalwart_graph(
        model(
            asks("get_order", {"order_id": "4411"}, "call-1"),
            asks("charge_card", charge, "call-2"),
            asks("charge_card", charge, "call-3"),
            AIMessage(content="Charged once."),
        ),
        [tools.get_order, tools.charge_card, tools.refund_card],
        session=session,
    )
    config = {"configurable": {"thread_id": "undo"}}
    state = graph.invoke({"messages": [HumanMessage("charge order 4411")]}, config)
    assert state["__interrupt__"][0].value["tool"] == "charge_card"
    state = graph.invoke(Command(resume=True), config)
    assert tools.LEDGER == [("charge", "4411", 40.0), ("refund", "4411", 40.0)]
    refused = [m for m in state["messages"] if isinstance(m, ToolMessage)][-1]
    assert refused.content == (
        'Stalwart refused this call: order_rule. rule: "at_most 1". undone: refund_card undid step 3.'
    )
    assert kinds(session) == [
        "read",
        "get_order allow allow",
        "outcome",
        "charge_card confirm argument_origin",
        "charge_card allow confirmed",
        "outcome",
        "charge_card refuse order_rule",
        "refund_card allow compensation",
        "outcome",
    ]
    # The answer of get_order was reported with its result, as the file's facts read it.
    assert session.history.entries[2]["result"] == tools.ORDERS["4411"]


def test_call_with_guards_a_tool_node_and_any_tool_calling_node(tools: Any) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    session = Client().session("desk", catalogue=desk.catalogue())
    guard = Guard(session)
    ran: list[str] = []

    def run_tools(state: MessagesState) -> dict[str, Any]:
        last = state["messages"][-1]
        out = []
        for call in last.tool_calls:
            ran.append(call["name"])
            out.append(ToolMessage(content='{"messages": []}', name=call["name"], tool_call_id=call["id"]))
        return {"messages": out}

    for node in (ToolNode([tools.get_order, tools.read_inbox]), run_tools):
        graph = StateGraph(MessagesState)
        graph.add_node("tools", guard.call_with(node))
        graph.add_edge(START, "tools")
        graph.add_edge("tools", END)
        state = graph.compile().invoke({"messages": [AIMessage(content="", tool_calls=[
            {"name": "read_inbox", "args": {}, "id": "a", "type": "tool_call"},
            {"name": "delete_order", "args": {"order_id": "4411"}, "id": "b", "type": "tool_call"},
        ])]})
        answers = [m for m in state["messages"] if isinstance(m, ToolMessage)]
        assert [(m.tool_call_id, m.status) for m in answers] == [("a", "success"), ("b", "error")]
        assert answers[1].content == "Stalwart refused this call: unknown_tool."
    assert ran == ["read_inbox"]


def test_the_guard_is_importable_from_the_package() -> None:
    import stalwart_agents

    assert stalwart_agents.Guard is Guard
    assert stalwart_agents.build_stalwart_graph is build_stalwart_graph
    with pytest.raises(AttributeError):
        stalwart_agents.Nothing  # noqa: B018
