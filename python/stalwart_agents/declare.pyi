from typing import Any, Callable, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])

DECLARATION_KEYS: tuple[str, ...]

@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    effects: str | None = None,
    arguments: dict[str, Any] | None = None,
    result: dict[str, Any] | None = None,
    sends_out: bool | None = None,
    reads_outside: bool | None = None,
    requires: str | None = None,
    after: list[Any] | None = None,
    not_after: list[str] | None = None,
    at_most: int | dict[str, Any] | None = None,
    undo: dict[str, Any] | str | None = None,
    irreversible: bool | None = None,
    idempotency: dict[str, Any] | None = None,
    checks: dict[str, Any] | None = None,
    spend: dict[str, Any] | None = None,
    confidential: bool | None = None,
    argument_kinds: dict[str, str] | None = None,
    source: dict[str, Any] | str | None = None,
    retrieves_from: str | None = None,
    writes_to: str | None = None,
) -> Callable[[F], F]: ...
def declaration_of(fn: Any) -> dict[str, Any] | None: ...

__all__ = ["DECLARATION_KEYS", "declaration_of", "tool"]
