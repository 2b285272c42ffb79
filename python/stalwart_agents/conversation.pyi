import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ._native import RunningTurn
from .agent import ContextLike

@dataclass(frozen=True)
class Approval:
    conversation: str
    turn: int
    invocation: int
    tool: str
    path: str
    arguments: dict[str, Any]
    origins: dict[str, str]
    effects: str
    question: str
    reasons: list[str]
    state: str
    answered_by: str | None = None
    answered_at: int | None = None
    why: str | None = None
    asked: int = 0
    @property
    def name(self) -> str: ...
    @property
    def input(self) -> dict[str, Any]: ...
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Approval: ...

@dataclass(frozen=True)
class Unfinished:
    invocation: int
    name: str
    input: Any
    resolution: str | None = None
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Unfinished: ...

@dataclass(frozen=True)
class Reply:
    invocation: int
    kind: str
    value: Any
    replayed: bool
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Reply: ...
    @property
    def text(self) -> str: ...

@dataclass(frozen=True)
class JournalRecord:
    kind: str
    number: int
    name: str
    input: Any
    state: str
    outcome: str | None
    result: Any
    writer: int
    resolution: str | None = None
    resolved_by: str | None = None
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> JournalRecord: ...

class Turn:
    number: int
    def __init__(self, chat: Conversation, number: int) -> None: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def state(self) -> str: ...
    @property
    def input(self) -> str: ...
    @property
    def answer(self) -> str | None: ...
    @property
    def writer(self) -> int: ...
    @property
    def waiting(self) -> list[Approval]: ...
    @property
    def approvals(self) -> list[Approval]: ...
    @property
    def unfinished(self) -> list[Unfinished]: ...
    @property
    def journal(self) -> list[JournalRecord]: ...
    def approve(self, *, by: str | None = None, invocation: int | None = None) -> str | None: ...
    def deny(
        self, *, reason: str | None = None, by: str | None = None, invocation: int | None = None
    ) -> str | None: ...
    def resume(
        self,
        *,
        results: Mapping[int, Any] | None = None,
        rerun: list[int] | None = None,
        by: str | None = None,
    ) -> str: ...
    def abandon(self, *, by: str | None = None, why: str | None = None) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Conversation:
    _native: Any
    _hosted: bool
    def __init__(self, native: Any, hosted: bool = False) -> None: ...
    @property
    def id(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def store(self) -> str: ...
    def __call__(
        self, input: str, *, approve: str | list[str] | Callable[[Approval], bool | str] | None = None
    ) -> str: ...
    def turns(self) -> list[Turn]: ...

Program = Callable[[RunningTurn], str]

def _default_by() -> str: ...
def conversation(
    program: Program | None,
    id: str | None = None,
    *,
    store: str | os.PathLike[str] | None = None,
    approve: str | list[str] | Callable[[Approval], bool | str] | None = None,
    agent: str | None = None,
    catalogue: Any = None,
    context: ContextLike = None,
    user: Any = None,
    verify: bool = True,
) -> Conversation: ...
def turns(chat: Conversation) -> list[Turn]: ...

__all__ = [
    "Approval",
    "Conversation",
    "JournalRecord",
    "Program",
    "Reply",
    "Turn",
    "Unfinished",
    "conversation",
    "turns",
]
