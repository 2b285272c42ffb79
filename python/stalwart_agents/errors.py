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


__all__ = ["NotVerified", "RulebookNotHeld", "SelectorUnavailableError"]
