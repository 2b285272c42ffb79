"""Stalwart for Python agents: every tool call checked by the native runtime, and the agent's
graph proved before it runs (spec ch32 and ch45).

    from stalwart_agents import Agent, Client

    desk = Agent.from_file("agent.yaml")
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue(), rulebook=desk.rules().record)
        billing.read("refund order 4411 40.00")
        check = billing.check_tool_call("refund_card", {"order_id": "4411", "amount": 40.00},
                                        origins={"order_id": "typed", "amount": "typed"})

The LangGraph guard (`build_stalwart_graph`, `Guard`) is imported from
`stalwart_agents.langgraph`, or from here once LangGraph is installed.
"""

from __future__ import annotations

import os
from typing import Any

from . import _native
from ._native import COMPILER_VERSION, FORMAT_VERSION, Check, Record, Session
from .agent import Agent, Catalogue, Rules
from .client import Client
from .declare import tool
from .conversation import Approval, Conversation, Reply, Turn, Unfinished, conversation, turns
from .errors import (
    ApprovalError,
    Interrupted,
    NotVerified,
    RulebookNotHeld,
    SelectorUnavailableError,
    StoreError,
    Waiting,
)
from .history import History
from .plan import Plan


def compile_agent(path: Any = "agent.yaml", out: Any = None) -> str:
    """Compiles agent.yaml into a record folder, as `stalwart compile agent.yaml -o OUT` does
    (default `.stalwart/record` beside agent.yaml), and returns the folder's path."""
    return os.path.abspath(_native.write_agent_record(path, out))


def compile_rules(path: Any, out: Any) -> str:
    """Compiles a rulebook on its own into a record folder, as `stalwart rules compile` does."""
    return os.path.abspath(_native.write_rules_record(path, out))


_LANGGRAPH = ("Guard", "build_stalwart_graph")


def __getattr__(name: str) -> Any:
    if name in _LANGGRAPH:
        from . import langgraph

        return getattr(langgraph, name)
    raise AttributeError(f"module 'stalwart_agents' has no attribute {name!r}")


__all__ = [
    "COMPILER_VERSION",
    "FORMAT_VERSION",
    "Agent",
    "Approval",
    "ApprovalError",
    "Catalogue",
    "Check",
    "Client",
    "Conversation",
    "Guard",
    "History",
    "Interrupted",
    "NotVerified",
    "Plan",
    "Record",
    "Reply",
    "Rules",
    "RulebookNotHeld",
    "SelectorUnavailableError",
    "Session",
    "StoreError",
    "Turn",
    "Unfinished",
    "Waiting",
    "build_stalwart_graph",
    "compile_agent",
    "compile_rules",
    "conversation",
    "tool",
    "turns",
]
