from typing import Any, Callable, Mapping, Sequence

from ._native import Session
from .conversation import Approval, Conversation
from .facts import Context

YES: tuple[str, ...]

ContextArg = Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | Context | None
OriginsArg = Mapping[str, str] | Callable[[dict[str, Any], Any], Mapping[str, str]] | None

class AnsweredAlready(UserWarning): ...

class Guard:
    session: Session
    context: ContextArg
    origins: OriginsArg
    tools: dict[str, Any]
    conversation: Conversation | None
    by: str | None
    def __init__(
        self,
        session: Session,
        *,
        context: ContextArg = None,
        origins: OriginsArg = None,
        tools: Sequence[Any] | Mapping[str, Any] | None = None,
        store: str | Conversation | None = None,
        conversation_id: str | None = None,
        by: str | None = None,
        approve: str | list[str] | Callable[[Approval], bool | str] | None = None,
    ) -> None: ...
    def __call__(self, request: Any, execute: Callable[[Any], Any]) -> Any: ...
    def wrap_tool_call(self, request: Any, execute: Callable[[Any], Any]) -> Any: ...
    def call_with(self, node: Any, *, context: ContextArg = None) -> Any: ...
    def decide(self, call: dict[str, Any], state: Any, run: Callable[[dict[str, Any]], Any]) -> Any: ...
    def read(self, number: int, text: str) -> None: ...

def build_stalwart_graph(
    model: Any,
    tools: Sequence[Any],
    *,
    session: Session,
    context: ContextArg = None,
    origins: OriginsArg = None,
    checkpointer: Any = None,
    store: str | Conversation | None = None,
    conversation_id: str | None = None,
    by: str | None = None,
) -> Any: ...

__all__ = ["AnsweredAlready", "Guard", "YES", "build_stalwart_graph"]
