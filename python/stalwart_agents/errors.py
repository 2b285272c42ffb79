"""The exceptions of `stalwart_agents` (spec ch45).

Bad input raises the usual Python exceptions: `TypeError` naming the parameter for a value of the
wrong type, `ValueError` for a value the compiler or the runtime refuses (with the compiler's
diagnostics as text), `FileNotFoundError` for a file that is not there. The exceptions below are
the ones the spec names.
"""

from __future__ import annotations

from typing import Any


class RulebookNotHeld(Exception):
    """The agent's rulebook could not be compiled whole, so the agent does not run.

    `reason` is `"rulebook_unsupported"` (the compiler refused the rulebook; `diagnostics` names
    the line) or `"policy_input_refused"` (the agent's settings accept only a compiled rulebook
    folder, and it was given as source).
    """

    def __init__(self, message: str, reason: str, diagnostics: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.diagnostics = diagnostics


class NotVerified(Exception):
    """The proof of the agent's graph found what stops the agent (a finding of a rule that stops
    `Agent(...)`), or could not decide an obligation. Nothing runs.

    `findings` lists the findings that stop it (dicts as `stalwart verify --format json` prints
    them); `report` is the whole report.
    """

    def __init__(self, message: str, findings: list[dict[str, Any]], report: dict[str, Any]) -> None:
        super().__init__(message)
        self.findings = findings
        self.report = report


class SelectorUnavailableError(Exception):
    """The runtime cannot answer (no usable licence key, an unusable state folder, or a failure
    inside the runtime), so the call is not made: an agent never falls back to an unchecked call.
    """


class Waiting(Exception):
    """A conversation's turn stopped, saved, waiting for a person (`turn-waiting`): `turn` is the
    turn (`stalwart_agents.Turn`), `approvals` what it waits for. Any process that opens the
    conversation answers it (`turn.approve(by=...)` / `turn.deny(reason=...)`), and the turn goes
    on there."""

    code = "turn_waiting"

    def __init__(self, message: str, turn: Any, approvals: list[Any]) -> None:
        super().__init__(message)
        self.turn = turn
        self.approvals = approvals


class Interrupted(Exception):
    """A turn stopped and cannot go on by itself (`turn-interrupted`): a call a crash left
    unfinished (`unfinished`) waits for a person to say what it returned or to run it again
    (`turn.resume(results=...)`, `turn.resume(rerun=[...])`), or the turn is abandoned."""

    code = "turn_interrupted"

    def __init__(self, message: str, turn: Any, unfinished: list[Any]) -> None:
        super().__init__(message)
        self.turn = turn
        self.unfinished = unfinished


class ApprovalError(Exception):
    """An approval that cannot be given: `code` is `"approval_required"` (a call needs a person
    and nobody can be asked: it did not run) or `"already_answered"` (another answer came first;
    `approvals` say who answered, when and how)."""

    def __init__(self, message: str, code: str, approvals: list[Any]) -> None:
        super().__init__(message)
        self.code = code
        self.approvals = approvals


class StoreError(Exception):
    """The store refused or failed: `code` (`E0040`…) and `slug` as `stalwart turns` prints them
    (`store-url`, `store-unreachable`, `not-found`, `turn-state`, `history-invalid`, …)."""

    def __init__(self, message: str, code: str, slug: str) -> None:
        super().__init__(f"error[{code}]: {message}")
        self.code = code
        self.slug = slug


class _TurnStopped(BaseException):
    """Unwinds a turn's program when the turn stopped (it waits, or cannot go on): raised by the
    turn's calls, and not an `Exception`, so a program's own `except Exception` lets it through."""


__all__ = [
    "ApprovalError",
    "Interrupted",
    "NotVerified",
    "RulebookNotHeld",
    "SelectorUnavailableError",
    "StoreError",
    "Waiting",
]
