import os
from typing import Any

from ._native import COMPILER_VERSION as COMPILER_VERSION
from ._native import FORMAT_VERSION as FORMAT_VERSION
from ._native import Check as Check
from ._native import Record as Record
from ._native import Session as Session
from .agent import Agent as Agent
from .agent import Catalogue as Catalogue
from .agent import Rules as Rules
from .client import Client as Client
from .plan import Plan as Plan
from .declare import tool as tool
from .conversation import Approval as Approval
from .conversation import Conversation as Conversation
from .conversation import Reply as Reply
from .conversation import Turn as Turn
from .conversation import Unfinished as Unfinished
from .conversation import conversation as conversation
from .conversation import turns as turns
from .errors import ApprovalError as ApprovalError
from .errors import Interrupted as Interrupted
from .errors import NotVerified as NotVerified
from .errors import RulebookNotHeld as RulebookNotHeld
from .errors import SelectorUnavailableError as SelectorUnavailableError
from .errors import StoreError as StoreError
from .errors import Waiting as Waiting
from .history import History as History
from .langgraph import Guard as Guard
from .langgraph import build_stalwart_graph as build_stalwart_graph

def compile_agent(path: str | os.PathLike[str] = "agent.yaml", out: str | os.PathLike[str] | None = None) -> str: ...
def compile_rules(path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str: ...
def __getattr__(name: str) -> Any: ...

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
