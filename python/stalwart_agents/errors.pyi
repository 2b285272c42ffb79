from typing import Any

from .conversation import Approval, Turn, Unfinished

class RulebookNotHeld(Exception):
    reason: str
    diagnostics: str
    def __init__(self, message: str, reason: str, diagnostics: str = "") -> None: ...

class NotVerified(Exception):
    findings: list[dict[str, Any]]
    report: dict[str, Any]
    def __init__(self, message: str, findings: list[dict[str, Any]], report: dict[str, Any]) -> None: ...

class SelectorUnavailableError(Exception): ...

class Waiting(Exception):
    code: str
    turn: Turn
    approvals: list[Approval]
    def __init__(self, message: str, turn: Turn, approvals: list[Approval]) -> None: ...

class Interrupted(Exception):
    code: str
    turn: Turn
    unfinished: list[Unfinished]
    def __init__(self, message: str, turn: Turn, unfinished: list[Unfinished]) -> None: ...

class ApprovalError(Exception):
    code: str
    approvals: list[Approval]
    def __init__(self, message: str, code: str, approvals: list[Approval]) -> None: ...

class StoreError(Exception):
    code: str
    slug: str
    def __init__(self, message: str, code: str, slug: str) -> None: ...

class _TurnStopped(BaseException): ...

__all__ = [
    "ApprovalError",
    "Interrupted",
    "NotVerified",
    "RulebookNotHeld",
    "SelectorUnavailableError",
    "StoreError",
    "Waiting",
]
