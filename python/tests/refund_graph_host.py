"""The shop's refund as a guarded LangGraph graph whose conversation is kept in a store, importable
and runnable as its own process (so a test can stop the graph in one process, answer it in a
second and resume it in a third).

The model is a function of the messages: it asks for `refund_card` until a tool's answer came,
then says what the tool answered. The tool adds a line to `ledger.log` each time it runs. The
graph's checkpoints are kept in a file (`checkpoints.pickle`), so another process resumes the
same thread.

    python refund_graph_host.py start|resume|approve|deny --store URL --conversation ID
        [--answer JSON] [--by WHO] [--reason TEXT]

prints one JSON line: `{"interrupt": value}`, `{"messages": [[kind, content, status], ...]}`,
`{"recorded": true}` or `{"error": code, "message": ...}`.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import threading
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from stalwart_agents import Agent, ApprovalError, Client, conversation
from stalwart_agents.facts import Context
from stalwart_agents.langgraph import build_stalwart_graph

LEDGER = Path("ledger.log")
CHECKPOINTS = Path("checkpoints.pickle")


@tool
def refund_card(order_id: str, amount: float) -> str:
    """Refund an amount of an order to the card it was paid with."""
    with LEDGER.open("a") as f:
        f.write(f"refund {order_id} {amount}\n")
    return f"refunded {amount} on order {order_id}"


class Model:
    """Asks for the refund until a tool answered, then repeats the tool's answer."""

    def invoke(self, messages: list[Any]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=f"Done: {messages[-1].content}")
        call = {"name": "refund_card", "args": {"order_id": "4411", "amount": 40.0}, "id": "call-1",
                "type": "tool_call"}
        return AIMessage(content="", tool_calls=[call])

    def bind_tools(self, tools: Any) -> Any:
        raise NotImplementedError


class FileSaver(InMemorySaver):
    """An in-memory checkpointer whose checkpoints outlive the process, in a file."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.lock = threading.Lock()
        if path.exists():
            storage, writes, blobs = pickle.loads(path.read_bytes())
            for thread, spaces in storage.items():
                for ns, saved in spaces.items():
                    self.storage[thread][ns].update(saved)
            self.writes.update(writes)
            self.blobs.update(blobs)

    def _save(self) -> None:
        storage = {t: {ns: dict(s) for ns, s in spaces.items()} for t, spaces in self.storage.items()}
        temporary = self.path.with_suffix(".tmp")
        temporary.write_bytes(pickle.dumps((storage, dict(self.writes), dict(self.blobs))))
        temporary.replace(self.path)

    # LangGraph saves checkpoints and writes from its worker threads: each change and the file
    # that holds it are made under one lock, so a later save never loses to an earlier one.
    def put(self, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            out = super().put(*args, **kwargs)
            self._save()
        return out

    def put_writes(self, *args: Any, **kwargs: Any) -> None:
        with self.lock:
            super().put_writes(*args, **kwargs)
            self._save()


def graph(store: str, conversation_id: str, by: str | None = None) -> Any:
    desk = Agent.from_file("agent.yaml")
    billing = Client().session("billing", catalogue=desk.catalogue())
    return build_stalwart_graph(
        Model(),
        [refund_card],
        session=billing,
        context=Context(facts=desk.facts, values={"order_paid": True}),
        checkpointer=FileSaver(CHECKPOINTS),
        store=store,
        conversation_id=conversation_id,
        by=by,
    )


def shown(state: dict[str, Any]) -> dict[str, Any]:
    if state.get("__interrupt__"):
        return {"interrupt": state["__interrupt__"][0].value}
    return {"messages": [[type(m).__name__, m.content, getattr(m, "status", None)] for m in state["messages"]]}


def main(argv: list[str]) -> dict[str, Any]:
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["start", "resume", "approve", "deny"])
    p.add_argument("--store", required=True)
    p.add_argument("--conversation", required=True)
    p.add_argument("--answer", default="null")
    p.add_argument("--by")
    p.add_argument("--reason")
    a = p.parse_args(argv)
    config = {"configurable": {"thread_id": a.conversation}}
    if a.command == "start":
        state = graph(a.store, a.conversation, a.by).invoke({"messages": [HumanMessage("refund order 4411 40.00")]},
                                                             config)
        return shown(state)
    if a.command == "resume":
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            answer = json.loads(a.answer)
            given = None if answer is None else Command(resume=answer)
            state = graph(a.store, a.conversation, a.by).invoke(given, config)
        return {**shown(state), "warnings": [str(w.message) for w in seen]}
    chat = conversation(None, a.conversation, store=a.store, agent="billing", catalogue=Agent.from_file("agent.yaml"))
    turn = chat.turns()[-1]
    try:
        if a.command == "approve":
            turn.approve(by=a.by)
        else:
            turn.deny(reason=a.reason, by=a.by)
    except ApprovalError as e:
        return {"error": e.code, "message": str(e)}
    return {"recorded": True}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
