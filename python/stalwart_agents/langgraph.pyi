from typing import Any, Callable, Mapping, Sequence

from ._native import Session
from .facts import Context

YES: tuple[str, ...]

ContextArg = Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | Context | None
OriginsArg = Mapping[str, str] | Callable[[dict[str, Any], Any], Mapping[str, str]] | None

class Guard:
    session: Session
    context: ContextArg
    origins: OriginsArg
    tools: dict[str, Any]
    def __init__(
        self,
        session: Session,
        *,
        context: ContextArg = None,
        origins: OriginsArg = None,
        tools: Sequence[Any] | Mapping[str, Any] | None = None,
    ) -> None: ...
    def __call__(self, request: Any, execute: Callable[[Any], Any]) -> Any: ...
    def wrap_tool_call(self, request: Any, execute: Callable[[Any], Any]) -> Any: ...
    def call_with(self, node: Any, *, context: ContextArg = None) -> Any: ...
    def decide(self, call: dict[str, Any], state: Any, run: Callable[[dict[str, Any]], Any]) -> Any: ...

def build_stalwart_graph(
    model: Any,
    tools: Sequence[Any],
    *,
    session: Session,
    context: ContextArg = None,
    origins: OriginsArg = None,
    checkpointer: Any = None,
) -> Any: ...

__all__ = ["Guard", "YES", "build_stalwart_graph"]
