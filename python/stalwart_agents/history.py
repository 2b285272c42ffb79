"""A session's history as Python objects: exportable, loadable, and checked again after any edit.

`session.history.entries` is a list of dicts, the entries of the signed history the caller
carries. The list and every dict and list inside it are tracked containers: any change made
through them (an item set or deleted, an append, a `pop`, …) marks the session's history edited,
and the next operation reads the edited entries back as the history the caller now carries.
Unless the edit changed nothing, the check then answers `history_invalid`, as it does for an
edited history file. Nothing is compared while nothing was edited: the mark is one flag.

Copies (`copy.deepcopy`, `pickle`, `json.dumps`) are plain dicts and lists.
"""

from __future__ import annotations

import json
from typing import Any, Iterator


def _edited(container: Any) -> None:
    mark = getattr(container, "_mark", None)
    if mark is not None:
        mark.edited = True


class TrackedDict(dict):
    """A dict of a history's entries: changing it marks the history edited."""

    __slots__ = ("_mark",)

    def __setitem__(self, key: Any, value: Any) -> None:
        _edited(self)
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        _edited(self)
        super().__delitem__(key)

    def __ior__(self, other: Any) -> "TrackedDict":
        _edited(self)
        super().update(other)
        return self

    def clear(self) -> None:
        _edited(self)
        super().clear()

    def pop(self, *args: Any) -> Any:
        _edited(self)
        return super().pop(*args)

    def popitem(self) -> Any:
        _edited(self)
        return super().popitem()

    def setdefault(self, key: Any, default: Any = None, /) -> Any:
        if key not in self:
            _edited(self)
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        _edited(self)
        super().update(*args, **kwargs)

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class TrackedList(list):
    """A list of a history's entries: changing it marks the history edited."""

    __slots__ = ("_mark",)

    def __setitem__(self, index: Any, value: Any) -> None:
        _edited(self)
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        _edited(self)
        super().__delitem__(index)

    def __iadd__(self, other: Any) -> "TrackedList":
        _edited(self)
        super().extend(other)
        return self

    def __imul__(self, n: Any) -> "TrackedList":
        _edited(self)
        return super().__imul__(n)

    def append(self, object: Any, /) -> None:
        _edited(self)
        super().append(object)

    def extend(self, iterable: Any, /) -> None:
        _edited(self)
        super().extend(iterable)

    def insert(self, index: Any, object: Any, /) -> None:
        _edited(self)
        super().insert(index, object)

    def pop(self, *args: Any) -> Any:
        _edited(self)
        return super().pop(*args)

    def remove(self, value: Any, /) -> None:
        _edited(self)
        super().remove(value)

    def clear(self) -> None:
        _edited(self)
        super().clear()

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        _edited(self)
        super().sort(key=key, reverse=reverse)

    def reverse(self) -> None:
        _edited(self)
        super().reverse()

    def __reduce__(self) -> Any:
        return (list, (list(self),))


def track(value: Any, mark: Any) -> Any:
    """`value` with its dicts and lists as tracked containers that set `mark.edited`."""
    if isinstance(value, dict):
        out: Any = TrackedDict()
        for k, v in value.items():
            dict.__setitem__(out, k, track(v, mark))
    elif isinstance(value, list):
        out = TrackedList()
        for v in value:
            list.append(out, track(v, mark))
    else:
        return value
    out._mark = mark
    return out


class History:
    """A session's signed history.

    `entries` are the entries, oldest first (the same list every time, kept up to date as the
    session goes on). `to_json()` exports it for a host to store; `Client.session(agent,
    history=...)` loads it again (JSON text, a dict, or a `History`).
    """

    __slots__ = ("_session",)

    def __init__(self, session: Any) -> None:
        self._session = session

    @property
    def entries(self) -> list[dict[str, Any]]:
        return self._session._entries()

    @property
    def agent(self) -> str:
        return self._session.agent

    @property
    def id(self) -> str:
        return self._session.id

    @property
    def edited(self) -> bool:
        """Whether the entries were changed by hand since the session's last operation."""
        return self._session._edited()

    def to_json(self) -> str:
        """The history as JSON text: what the caller carries, edits included."""
        return self._session._history_json()

    def to_dict(self) -> dict[str, Any]:
        """The history as plain Python values (`{"agent", "id", "entries"}`)."""
        return json.loads(self.to_json())

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries)

    def __repr__(self) -> str:
        return f"<History agent={self.agent!r} id={self.id!r} entries={len(self)}>"


__all__ = ["History", "TrackedDict", "TrackedList", "track"]
