import os
from typing import Any

from ._native import Session
from .agent import ContextLike

class Client:
    closed: bool
    def __init__(
        self,
        *,
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

__all__ = ["Client"]
