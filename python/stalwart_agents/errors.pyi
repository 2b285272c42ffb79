from typing import Any

class RulebookNotHeld(Exception):
    reason: str
    diagnostics: str
    def __init__(self, message: str, reason: str, diagnostics: str = "") -> None: ...

class NotVerified(Exception):
    findings: list[dict[str, Any]]
    report: dict[str, Any]
    def __init__(self, message: str, findings: list[dict[str, Any]], report: dict[str, Any]) -> None: ...

class SelectorUnavailableError(Exception): ...

__all__ = ["NotVerified", "RulebookNotHeld", "SelectorUnavailableError"]
