import os
from contextlib import AbstractContextManager
from typing import Any, Callable, Optional

from ._native import Session
from .agent import ContextLike

IntentReader = Callable[[str], Optional[str]]

def reading_intents(reader: IntentReader | None) -> AbstractContextManager[None]: ...

class Client:
    closed: bool
    def __init__(
        self,
        *,
        read_intent: IntentReader | None = None,
        state: str | os.PathLike[str] | bool | None = None,
        verify: bool = True,
    ) -> None: ...
    def __enter__(self) -> Client: ...
    def __exit__(self, *exc: Any) -> None: ...
    def close(self) -> None: ...
    def session(
        self,
        agent: str,
        *,
        catalogue: Any = None,
        rulebook: Any = None,
        history: Any = None,
        user: Any = None,
        context: ContextLike = None,
    ) -> Session: ...

__all__ = ["Client", "IntentReader", "reading_intents"]
