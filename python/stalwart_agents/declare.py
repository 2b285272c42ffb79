"""The `@tool` decorator: a tool's declaration where its function is written.

Its keyword arguments are exactly the fields of a tool's declaration (DESIGN §2.2), the ones the
compiler reads statically from a Python module named in agent.yaml (`tools: [{python: shop.tools}]`)
without running it; so one module serves both the compiler and the program that runs the tools.
The arguments' schema comes from the type hints and the description from the docstring, unless
`arguments=` or `description=` says otherwise. The decorator returns the function unchanged and
keeps the declaration on it (`fn.__stalwart_tool__`); it checks nothing itself — the compiler
reads the same keywords and reports what is wrong with them, with file, line and column.

Values must be literals (strings, numbers, booleans, None, lists and dicts of them): the compiler
reads the source text, so a name bound elsewhere cannot be read.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])

#: The keyword arguments of `tool`, in the order the compiler's declaration reader lists them
#: (`stalwart_agent::declaration::TOOL_KEYS`, and `docs/schemas/catalogue.schema.json`).
DECLARATION_KEYS = (
    "name",
    "description",
    "effects",
    "arguments",
    "result",
    "sends_out",
    "reads_outside",
    "requires",
    "after",
    "not_after",
    "at_most",
    "undo",
    "irreversible",
    "idempotency",
    "checks",
    "spend",
    "confidential",
    "argument_kinds",
    "source",
    "retrieves_from",
    "writes_to",
)


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


def tool(
    fn: Any = None,
    /,
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
) -> Any:
    """Declares a module-level function as a tool. `@tool` alone declares it with no field."""
    given = {
        "name": name,
        "description": description,
        "effects": effects,
        "arguments": arguments,
        "result": result,
        "sends_out": sends_out,
        "reads_outside": reads_outside,
        "requires": requires,
        "after": after,
        "not_after": not_after,
        "at_most": at_most,
        "undo": undo,
        "irreversible": irreversible,
        "idempotency": idempotency,
        "checks": checks,
        "spend": spend,
        "confidential": confidential,
        "argument_kinds": argument_kinds,
        "source": source,
        "retrieves_from": retrieves_from,
        "writes_to": writes_to,
    }

    def decorate(f: Any) -> Any:
        declaration = {k: v for k, v in given.items() if v is not None}
        declaration.setdefault("name", getattr(f, "__name__", None))
        f.__stalwart_tool__ = declaration
        return f

    if fn is not None:
        if not callable(fn):
            raise TypeError(
                f"tool() takes the function it declares, or keyword arguments only, not {type(fn).__name__}"
            )
        return decorate(fn)
    return decorate


def declaration_of(fn: Any) -> dict[str, Any] | None:
    """The declaration `@tool(...)` kept on `fn`, or None when it is not a declared tool."""
    return getattr(fn, "__stalwart_tool__", None)


__all__ = ["DECLARATION_KEYS", "declaration_of", "tool"]
