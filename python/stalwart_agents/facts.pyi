from typing import Any, Callable, Mapping, Union

Values = Union[Mapping[str, Any], Callable[[Any], Mapping[str, Any]], None]

class Context:
    facts: dict[str, Any]
    values: Values
    def __init__(self, facts: Mapping[str, Any] | None = None, values: Values = None) -> None: ...
    def __call__(self, state: Any = None) -> dict[str, Any]: ...

__all__ = ["Context", "Values"]
