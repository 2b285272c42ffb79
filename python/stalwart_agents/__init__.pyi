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
from .client import reading_intents as reading_intents
from .declare import tool as tool
from .errors import NotVerified as NotVerified
from .errors import RulebookNotHeld as RulebookNotHeld
from .errors import SelectorUnavailableError as SelectorUnavailableError
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
    "Catalogue",
    "Check",
    "Client",
    "Guard",
    "History",
    "NotVerified",
    "Record",
    "Rules",
    "RulebookNotHeld",
    "SelectorUnavailableError",
    "Session",
    "build_stalwart_graph",
    "compile_agent",
    "compile_rules",
    "reading_intents",
    "tool",
]
