"""`Context`: the facts a guarded graph gives each check (spec ch45, "The rulebook's facts").

A rule such as `if $order_paid` reads a fact. The file's facts (`facts:` in agent.yaml, or
`Agent(..., facts=...)`) are read by the runtime itself from the tools' answers: the guard reports
every result, so `Context(facts=agent.facts)` needs no code of yours to keep them. What your
application knows goes in `values`: a mapping, or a function of the graph's state that returns
one, called at each check. Where both give a fact, the file's stands.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Union

Values = Union[Mapping[str, Any], Callable[[Any], Mapping[str, Any]], None]


class Context:
    """The facts for each check: the file's (read from the tools' answers) and your own."""

    def __init__(self, facts: Mapping[str, Any] | None = None, values: Values = None) -> None:
        if facts is not None and not isinstance(facts, Mapping):
            raise TypeError(f"facts must be a mapping (an agent's `facts`), not {type(facts).__name__}")
        if values is not None and not callable(values) and not isinstance(values, Mapping):
            raise TypeError(
                f"values must be a mapping, or a function of the state that returns one, "
                f"not {type(values).__name__}"
            )
        self.facts = dict(facts or {})
        self.values = values

    def __call__(self, state: Any = None) -> dict[str, Any]:
        """The application's facts for a check made in `state`."""
        values = self.values
        if values is None:
            return {}
        if callable(values) and not isinstance(values, Mapping):
            values = values(state)
        if not isinstance(values, Mapping):
            raise TypeError(f"the context's values must be a mapping, not {type(values).__name__}")
        return dict(values)

    def __repr__(self) -> str:
        return f"<Context facts from answers: {', '.join(self.facts) or 'none'}>"


__all__ = ["Context", "Values"]
