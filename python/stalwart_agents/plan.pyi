from dataclasses import dataclass
from typing import Any, Mapping

@dataclass(frozen=True)
class PlannedCall:
    tool: str
    arguments: dict[str, Any]
    origins: dict[str, str]
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> PlannedCall: ...

@dataclass(frozen=True)
class PlanSlot:
    argument: str
    value: Any
    turn: int | None = None
    start: int | None = None
    end: int | None = None
    result_of: int | None = None
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> PlanSlot: ...

@dataclass(frozen=True)
class Score:
    read_as: str | None
    score: float
    runner_up: tuple[str, float] | None
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Score: ...

@dataclass(frozen=True)
class Plan:
    kind: str
    language: str
    intent: str | None
    flow: str | None
    call: PlannedCall | None
    reads: list[PlannedCall] = ...
    slots: list[PlanSlot] = ...
    missing: list[str] = ...
    choices: list[str] = ...
    question: str | None = None
    reason: str | None = None
    rule: str | None = None
    agents: list[str] = ...
    on_unread: str | None = None
    for_model: str | None = None
    record_as: str = "read"
    score: Score = ...
    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Plan: ...
    def asks(self) -> bool: ...

__all__ = ["Plan", "PlanSlot", "PlannedCall", "Score"]
