"""`Agent`: an agent compiled (and proved) on this machine, from agent.yaml or from Python values.

`Agent.from_file("agent.yaml")` compiles agent.yaml and everything it names (tool modules,
catalogues, the rulebook) with the compiler `stalwart compile` runs, into a record held in
memory; `Agent(agents=..., tools=..., rulebook=...)` does the same from the same keys given as
Python values. With `verify=True` (the default) the agent's graph is proved first, as `stalwart
verify` proves it, once per graph (the proof is cached in `.stalwart/cache/` beside agent.yaml):
a finding that stops the agent raises `NotVerified` and nothing runs.
"""

from __future__ import annotations

import json
import os
import types
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Union

from . import _native
from .declare import declaration_of

Record = _native.Record

#: A context: the facts an application gives every check, as a mapping, or as a function of the
#: session's user that returns them (called at each check).
ContextLike = Union[Mapping[str, Any], Callable[[Any], Mapping[str, Any]], None]

#: agent.yaml's top-level keys, which `Agent(...)` takes as keyword arguments.
AGENT_YAML_KEYS = ("agents", "tools", "rulebook", "facts", "settings", "budget", "steps", "channels", "stores")

#: The name an agent given as Python values has in diagnostics and in its graph.
IN_MEMORY_NAME = "Agent(...)"


def _check_context(context: Any) -> None:
    if context is not None and not callable(context) and not isinstance(context, Mapping):
        raise TypeError(
            f"context must be a mapping of facts, or a function of the user that returns one, "
            f"not {type(context).__name__}"
        )


def _check_verify(verify: Any) -> None:
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be True or False, not {type(verify).__name__}")


class Catalogue:
    """The agent's catalogue: every agent's tools, as the compiled record holds them."""

    def __init__(self, record: Any, context: ContextLike = None) -> None:
        self.record = record
        self.context = context

    @property
    def tools(self) -> list[str]:
        return self.record.tools

    @property
    def agents(self) -> dict[str, list[str]]:
        return self.record.agents

    def tool(self, name: str) -> dict[str, Any]:
        found = self.record.tool(name)
        if found is None:
            raise KeyError(f"the catalogue has no tool `{name}`: it has {', '.join(self.tools)}")
        return found

    def __getitem__(self, name: str) -> dict[str, Any]:
        return self.tool(name)

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __iter__(self) -> Iterator[str]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def __repr__(self) -> str:
        return f"<Catalogue {len(self)} tools: {', '.join(self.tools)}>"


class Rules:
    """The agent's rulebook, compiled into the record the tool check evaluates."""

    def __init__(self, record: Any) -> None:
        self.record = record

    @property
    def governs(self) -> list[str]:
        """The tools the rulebook governs."""
        return self.record.governed

    @property
    def intents(self) -> list[str]:
        return self.record.intents

    def __repr__(self) -> str:
        return f"<Rules governing {', '.join(self.governs) or 'no tool'}>"


def _module_of(fn: Any, folder: Path, at: str) -> str:
    """The module a tool function is declared in, as agent.yaml's `python:` names it."""
    module = getattr(fn, "__module__", None)
    if module and module != "__main__":
        return module
    file = getattr(getattr(fn, "__code__", None), "co_filename", None)
    if not file:
        raise ValueError(f"{at}: cannot tell which module declares `{getattr(fn, '__name__', fn)}`")
    try:
        relative = Path(file).resolve().relative_to(folder.resolve())
    except ValueError:
        raise ValueError(
            f"{at}: `{fn.__name__}` is declared in `{file}`, outside the agent's folder `{folder}`; "
            "the compiler reads tool modules from that folder"
        ) from None
    return ".".join(relative.with_suffix("").parts)


def _tools_entries(tools: Any, folder: Path) -> list[Any]:
    if not isinstance(tools, (list, tuple)):
        raise TypeError(f"tools must be a list, not {type(tools).__name__}")
    entries: list[Any] = []
    seen: set[str] = set()
    for i, entry in enumerate(tools):
        at = f"tools[{i}]"
        if isinstance(entry, Mapping):
            entries.append(dict(entry))
            continue
        if isinstance(entry, types.ModuleType):
            module = entry.__name__
        elif callable(entry) and declaration_of(entry) is not None:
            module = _module_of(entry, folder, at)
        else:
            raise TypeError(
                f"{at} must be a declaration (a dict), a module of tools, or a function declared "
                f"with @tool, not {type(entry).__name__}"
            )
        if module not in seen:
            seen.add(module)
            entries.append({"python": module})
    return entries


def _plain(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Agent:
    """An agent compiled on this machine: its catalogue, its rulebook, its facts and its graph."""

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
    ) -> None:
        if not isinstance(agents, Mapping):
            raise TypeError(f"agents must be a mapping of agent names to agents, not {type(agents).__name__}")
        if rulebook is not None and not isinstance(rulebook, (str, os.PathLike)):
            raise TypeError(f"rulebook must be a path, not {type(rulebook).__name__}")
        for name, value in (("facts", facts), ("settings", settings), ("budget", budget),
                            ("steps", steps), ("channels", channels), ("stores", stores)):
            if value is not None and not isinstance(value, Mapping):
                raise TypeError(f"{name} must be a mapping, not {type(value).__name__}")
        _check_context(context)
        _check_verify(verify)
        base = Path(os.fspath(folder)) if folder is not None else Path.cwd()
        document: dict[str, Any] = {"agents": _plain(agents)}
        if tools is not None:
            document["tools"] = _tools_entries(tools, base)
        for key, value in (("rulebook", rulebook), ("facts", facts), ("settings", settings),
                           ("budget", budget), ("steps", steps), ("channels", channels),
                           ("stores", stores)):
            if value is not None:
                document[key] = _plain(value)
        try:
            text = json.dumps(document, indent=2)
        except (TypeError, ValueError) as e:
            raise TypeError(f"the agent's keys must be plain values (str, numbers, lists, dicts): {e}") from None
        self._load(base / IN_MEMORY_NAME, text, context, verify)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str] = "agent.yaml",
        *,
        context: ContextLike = None,
        verify: bool = True,
    ) -> "Agent":
        """Compiles agent.yaml at `path` (and proves it, unless `verify=False`)."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a path to agent.yaml, not {type(path).__name__}")
        _check_context(context)
        _check_verify(verify)
        agent = cls.__new__(cls)
        agent._load(Path(os.fspath(path)), None, context, verify)
        return agent

    def _load(self, path: Path, text: str | None, context: ContextLike, verify: bool) -> None:
        record, report = _native.compile_agent(str(path), text, verify)
        self.path = path
        self.record = record
        self.report: dict[str, Any] | None = report
        self.context = context

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def agents(self) -> list[str]:
        return list(self.record.agents)

    @property
    def facts(self) -> dict[str, dict[str, Any]]:
        """The file's facts (`facts:`): name → `{from, tool, field, equals, same}`."""
        return self.record.facts

    @property
    def verified(self) -> bool:
        """Whether the agent's graph was proved (and nothing stopped it)."""
        return self.report is not None

    def catalogue(self) -> Catalogue:
        """Every agent's tools, made on this machine."""
        return Catalogue(self.record, self.context)

    def rules(self) -> Rules:
        """The rulebook, compiled into the record the tool check evaluates."""
        return Rules(self.record)

    def export(self) -> dict[str, Any]:
        """The agent graph (qls-graph/1)."""
        graph = self.record.graph()
        if graph is None:  # pragma: no cover - every agent compiled here has one
            raise ValueError("the record has no agent graph")
        return graph

    def __repr__(self) -> str:
        return f"<Agent {self.path} agents={self.agents}>"


__all__ = ["AGENT_YAML_KEYS", "Agent", "Catalogue", "ContextLike", "Record", "Rules"]
