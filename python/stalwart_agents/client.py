"""`Client`: opens sessions, each a conversation with one agent, checked under a compiled record.

Where a session's record comes from, in order:

1. `catalogue=` / `rulebook=`: an `Agent`, its `catalogue()` or `rules()`, a `Record`, or a
   record folder's path. Given both, they must be one record (an agent's catalogue and rulebook
   compile together).
2. Otherwise the client looks for the agent, and says where it looked when it finds none:
   `$STALWART_AGENT` (an agent.yaml, or a record folder), else `agent.yaml` in the current folder
   (compiled and proved once per client, as `Agent.from_file` does), else the record folder
   `stalwart compile` writes by default, `.stalwart/record` in the current folder (loaded with no
   compiler).

The key that signs each session's history is found as `stalwart check` finds it:
`$STALWART_LICENCE`, else `licence.json` in the record folder, else the user's own key
(`~/.config/stalwart/licence.json`, made on first use). It is bound to the record before it signs
anything, so a history made under one record is `history_invalid` under any other.

`session.read(turn)` runs the selector compiled into the record and returns its plan
(`stalwart_agents.Plan`); the plan's intent is the person's intent for the checks of that turn,
as `stalwart check --plan` takes it, unless `read(turn, intent=...)` names one.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any

from . import _native
from .agent import Agent, Catalogue, ContextLike, Rules, _check_context

def _record_of(value: Any, param: str) -> tuple[Any, ContextLike]:
    if isinstance(value, Agent):
        return value.record, value.context
    if isinstance(value, Catalogue):
        return value.record, value.context
    if isinstance(value, Rules):
        return value.record, None
    if isinstance(value, _native.Record):
        return value, None
    if isinstance(value, (str, os.PathLike)):
        return _native.Record.open(os.fspath(value)), None
    raise TypeError(
        f"{param} must be an Agent, its catalogue() or rules(), a Record or a record folder's "
        f"path, not {type(value).__name__}"
    )


class Client:
    """Opens sessions; closing the client (or leaving its `with` block) ends them."""

    def __init__(
        self,
        *,
        state: str | os.PathLike[str] | bool | None = None,
        verify: bool = True,
    ) -> None:
        if state is not None and not isinstance(state, (bool, str, os.PathLike)):
            raise TypeError(f"state must be a folder's path, True or None, not {type(state).__name__}")
        if not isinstance(verify, bool):
            raise TypeError(f"verify must be True or False, not {type(verify).__name__}")
        self._state = os.fspath(state) if isinstance(state, os.PathLike) else state
        self._verify = verify
        self._sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._found: dict[str, tuple[Any, ContextLike]] = {}
        self.closed = False

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends every session this client opened."""
        for session in list(self._sessions):
            session._close()
        self._sessions.clear()
        self.closed = True

    def session(
        self,
        agent: str,
        *,
        catalogue: Any = None,
        rulebook: Any = None,
        history: Any = None,
        user: Any = None,
        context: ContextLike = None,
    ) -> Any:
        """A session of `agent` (a conversation), new or loaded from `history`."""
        if self.closed:
            raise ValueError("the client is closed: open a new one")
        if not isinstance(agent, str):
            raise TypeError(f"agent must be the agent's name as a string, not {type(agent).__name__}")
        _check_context(context)
        record, agent_context = self._record(catalogue, rulebook)
        session = _native.open_session(
            record,
            agent,
            history=history,
            context=context if context is not None else agent_context,
            user=user,
            state=self._state,
        )
        self._sessions.add(session)
        return session

    def _record(self, catalogue: Any, rulebook: Any) -> tuple[Any, ContextLike]:
        found = [_record_of(v, p) for v, p in ((catalogue, "catalogue"), (rulebook, "rulebook")) if v is not None]
        if len(found) == 2 and found[0][0] != found[1][0]:
            raise ValueError(
                f"the rulebook's record ({found[1][0].digest[:12]}…) is not the catalogue's "
                f"({found[0][0].digest[:12]}…): a catalogue and its rulebook are compiled together "
                "(name the rulebook in agent.yaml's `rulebook:`), so pass them from one agent"
            )
        if found:
            record = found[0][0]
            context = next((c for _, c in found if c is not None), None)
            return record, context
        return self._find()

    def _find(self) -> tuple[Any, ContextLike]:
        """The agent of a session given neither catalogue nor rulebook (see the module's docs)."""
        cwd = Path.cwd()
        named = os.environ.get("STALWART_AGENT")
        looked: list[str] = []
        if named:
            path = Path(named)
            if path.is_file() and path.name != "record.bin":
                return self._compiled(path)
            if path.is_dir() and not (path / "record.bin").exists() and (path / "agent.yaml").is_file():
                return self._compiled(path / "agent.yaml")
            if path.exists():
                return _native.Record.open(os.fspath(path)), None
            raise FileNotFoundError(
                f"$STALWART_AGENT names `{named}`, which does not exist: it names an agent.yaml "
                "or a record folder"
            )
        looked.append("$STALWART_AGENT (not set)")
        yaml = cwd / "agent.yaml"
        if yaml.is_file():
            return self._compiled(yaml)
        looked.append(f"`agent.yaml` in `{cwd}` (none)")
        folder = cwd / ".stalwart" / "record"
        if (folder / "record.bin").is_file():
            key = str(folder)
            if key not in self._found:
                self._found[key] = (_native.Record.open(key), None)
            return self._found[key]
        looked.append(f"the record folder `.stalwart/record` in `{cwd}` (none)")
        raise FileNotFoundError(
            "no agent to open a session with: looked for " + ", then ".join(looked)
            + "; pass catalogue= (an Agent's catalogue() or a Record), or set STALWART_AGENT"
        )

    def _compiled(self, path: Path) -> tuple[Any, ContextLike]:
        key = str(path.resolve())
        if key not in self._found:
            agent = Agent.from_file(path, verify=self._verify)
            self._found[key] = (agent.record, agent.context)
        return self._found[key]


__all__ = ["Client"]
