"""The native part of `stalwart_agents` (the crate `stalwart-python`)."""

import os
from typing import Any, Callable, Mapping, final

from .history import History
from .conversation import Reply
from .plan import Plan

FORMAT_VERSION: int
COMPILER_VERSION: str

_Path = str | os.PathLike[str]

@final
class Record:
    """A compiled record, loaded and validated once."""

    @staticmethod
    def open(path: _Path) -> Record: ...
    @property
    def digest(self) -> str: ...
    @property
    def format_version(self) -> int: ...
    @property
    def compiler_version(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def folder(self) -> os.PathLike[str]: ...
    @property
    def agents(self) -> dict[str, list[str]]: ...
    @property
    def tools(self) -> list[str]: ...
    @property
    def governed(self) -> list[str]: ...
    @property
    def intents(self) -> list[str]: ...
    @property
    def sources(self) -> list[dict[str, str]]: ...
    @property
    def facts(self) -> dict[str, dict[str, Any]]: ...
    def tool(self, name: str) -> dict[str, Any] | None: ...
    def graph(self) -> dict[str, Any] | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Check:
    """The check's answer."""

    @property
    def decision(self) -> str: ...
    @property
    def reasons(self) -> list[str]: ...
    @property
    def detail(self) -> dict[str, Any]: ...
    @property
    def confirmation(self) -> str | None: ...
    @property
    def idempotency_key(self) -> str | None: ...
    @property
    def step(self) -> int | None: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class EditMark:
    edited: bool

@final
class Session:
    """One conversation with one agent."""

    def read(self, turn: str, *, intent: str | None = None, language: str | None = None) -> Plan | None: ...
    def reply(self, text: str) -> None: ...
    def check_tool_call(
        self,
        tool: str,
        args: Mapping[str, Any] | None = None,
        *,
        origins: Mapping[str, str] | None = None,
        labels: Mapping[str, list[str]] | None = None,
        context: Mapping[str, Any] | None = None,
        confirmation: str | None = None,
        compensates: int | None = None,
        intent: str | None = None,
        agent: str | None = None,
    ) -> Check: ...
    def report(self, step: int, outcome: str, result: Any = None) -> None: ...
    @property
    def agent(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def record(self) -> Record: ...
    @property
    def intent(self) -> str | None: ...
    @property
    def head(self) -> dict[str, Any]: ...
    @property
    def history(self) -> History: ...
    def _entries(self) -> list[dict[str, Any]]: ...
    def _edited(self) -> bool: ...
    def _history_json(self) -> str: ...
    def _close(self) -> None: ...

@final
class Conversation:
    """A conversation held in a store (`stalwart_agents.Conversation` wraps it)."""

    def start(self, input: str, *, approve: Any = None) -> dict[str, Any]: ...
    def resume(
        self,
        number: int | None = None,
        *,
        results: Mapping[int, Any] | None = None,
        rerun: list[int] | None = None,
        by: str = "host",
    ) -> dict[str, Any]: ...
    def approve(self, number: int | None, by: str, invocation: int | None = None) -> dict[str, Any]: ...
    def deny(
        self, number: int | None, by: str, reason: str | None = None, invocation: int | None = None
    ) -> dict[str, Any]: ...
    def abandon(self, number: int | None, by: str, why: str | None = None) -> int: ...
    def turn(self, number: int | None = None) -> dict[str, Any]: ...
    def turn_numbers(self) -> list[int]: ...
    @property
    def id(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def store(self) -> str: ...
    @property
    def record(self) -> Record: ...
    @property
    def waits(self) -> bool: ...

@final
class RunningTurn:
    """A turn while its program runs: the program asks the model and calls the tools through it."""

    @property
    def input(self) -> str: ...
    @property
    def earlier(self) -> list[tuple[str, str | None]]: ...
    @property
    def conversation(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def writer(self) -> int: ...
    def model(self, request: Any, ask: Callable[[Any], Any]) -> Any: ...
    def tool(
        self,
        tool: str | Callable[..., Any],
        args: Mapping[str, Any] | None = None,
        *,
        run: Callable[..., Any] | None = None,
        origins: Mapping[str, str] | None = None,
        labels: Mapping[str, list[str]] | None = None,
        context: Mapping[str, Any] | None = None,
        intent: str | None = None,
    ) -> Reply: ...

def open_conversation(
    record: Record,
    agent: str,
    program: Callable[[RunningTurn], str],
    id: str | None = None,
    *,
    store: str | os.PathLike[str] | None = None,
    approve: Any = None,
    context: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | None = None,
    user: Any = None,
) -> Conversation: ...
def host_call(
    conversation: Conversation,
    number: int,
    input: str,
    invocation: int,
    tool: str,
    args: Mapping[str, Any] | None,
    run: Callable[[dict[str, Any]], Any],
    *,
    origins: Mapping[str, str] | None = None,
    labels: Mapping[str, list[str]] | None = None,
    context: Mapping[str, Any] | None = None,
    intent: str | None = None,
) -> dict[str, Any]: ...
def host_done(conversation: Conversation, number: int, answer: str) -> None: ...
def compile_agent(
    path: _Path, text: str | None = None, verify: bool = True
) -> tuple[Record, dict[str, Any] | None]: ...
def write_agent_record(path: _Path, out: _Path | None = None) -> os.PathLike[str]: ...
def write_rules_record(path: _Path, out: _Path) -> os.PathLike[str]: ...
def open_session(
    record: Record,
    agent: str,
    *,
    history: str | Mapping[str, Any] | History | None = None,
    context: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | None = None,
    user: Any = None,
    state: _Path | bool | None = None,
) -> Session: ...

__all__ = [
    "COMPILER_VERSION",
    "Check",
    "Conversation",
    "EditMark",
    "FORMAT_VERSION",
    "Record",
    "RunningTurn",
    "Session",
    "compile_agent",
    "host_call",
    "host_done",
    "open_conversation",
    "open_session",
    "write_agent_record",
    "write_rules_record",
]
