import os
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Union

from ._native import Record as Record

ContextLike = Union[Mapping[str, Any], Callable[[Any], Mapping[str, Any]], None]
AGENT_YAML_KEYS: tuple[str, ...]
IN_MEMORY_NAME: str

class Catalogue:
    record: Record
    context: ContextLike
    def __init__(self, record: Record, context: ContextLike = None) -> None: ...
    @property
    def tools(self) -> list[str]: ...
    @property
    def agents(self) -> dict[str, list[str]]: ...
    def tool(self, name: str) -> dict[str, Any]: ...
    def __getitem__(self, name: str) -> dict[str, Any]: ...
    def __contains__(self, name: object) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...

class Rules:
    record: Record
    def __init__(self, record: Record) -> None: ...
    @property
    def governs(self) -> list[str]: ...
    @property
    def intents(self) -> list[str]: ...

class Agent:
    path: Path
    record: Record
    report: dict[str, Any] | None
    context: ContextLike
    def __init__(
        self,
        *,
        agents: Mapping[str, Any],
        tools: list[Any] | None = None,
        rulebook: str | os.PathLike[str] | None = None,
        facts: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
        budget: Mapping[str, Any] | None = None,
        steps: Mapping[str, Any] | None = None,
        channels: Mapping[str, Any] | None = None,
        stores: Mapping[str, Any] | None = None,
        context: ContextLike = None,
        verify: bool = True,
        folder: str | os.PathLike[str] | None = None,
    ) -> None: ...
    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str] = "agent.yaml",
        *,
        context: ContextLike = None,
        verify: bool = True,
    ) -> Agent: ...
    @property
    def name(self) -> str: ...
    @property
    def agents(self) -> list[str]: ...
    @property
    def facts(self) -> dict[str, dict[str, Any]]: ...
    @property
    def verified(self) -> bool: ...
    def catalogue(self) -> Catalogue: ...
    def rules(self) -> Rules: ...
    def export(self) -> dict[str, Any]: ...

__all__ = ["AGENT_YAML_KEYS", "Agent", "Catalogue", "ContextLike", "Record", "Rules"]
