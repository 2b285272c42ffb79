"""The selector's plan for a turn (spec ch45, "The router"), as `session.read(turn)` returns it.

Its fields are the plan's, as `stalwart plan` prints them: where the turn goes (`kind`), what it
was read as (`intent`, `flow`, `score`), the call it writes (`call`, with each argument's origin),
a chain's reads, the values taken and where they were (`slots`), what is missing, the question
the turn ends with, why it was declined or unread, and how the turn was recorded (`record_as`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class PlannedCall:
    """A call the plan writes: the tool, its arguments, and each argument's origin (`typed`, or
    `result:<step>.<field>`), in declaration order."""

    tool: str
    arguments: dict[str, Any]
    origins: dict[str, str]

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "PlannedCall":
        return PlannedCall(value["tool"], dict(value["arguments"]), dict(value["origins"]))


@dataclass(frozen=True)
class PlanSlot:
    """A value the plan took, and where it was: a byte span of a turn (`turn` 0 for this turn,
    -1 for the one before, …), or the result of call `result_of` of this run."""

    argument: str
    value: Any
    turn: int | None = None
    start: int | None = None
    end: int | None = None
    result_of: int | None = None

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "PlanSlot":
        return PlanSlot(
            value["argument"],
            value["value"],
            turn=value.get("turn"),
            start=value.get("start"),
            end=value.get("end"),
            result_of=value.get("result_of"),
        )


@dataclass(frozen=True)
class Score:
    """What the turn was read as (an intent, or a tool read by its own words), its score, and
    the runner-up's (`(read_as, score)`)."""

    read_as: str | None
    score: float
    runner_up: tuple[str, float] | None

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "Score":
        runner = value.get("runner_up")
        return Score(
            value.get("read_as"),
            float(value.get("score") or 0.0),
            (runner["read_as"], float(runner["score"])) if runner else None,
        )


@dataclass(frozen=True)
class Plan:
    """The selector's plan for one turn.

    `kind` is where the turn goes: `tool_step`, `chain`, `ask`, `confirm`, `declined` or
    `unread` (then `on_unread` says what becomes of it: `ask_again`, `refuse`, `model`, `ask`,
    `answer`). `record_as` is `read` (a new turn) or `reply` (the answer to the last plan's
    question)."""

    kind: str
    language: str
    intent: str | None
    flow: str | None
    call: PlannedCall | None
    reads: list[PlannedCall] = field(default_factory=list)
    slots: list[PlanSlot] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    question: str | None = None
    reason: str | None = None
    rule: str | None = None
    agents: list[str] = field(default_factory=list)
    on_unread: str | None = None
    for_model: str | None = None
    record_as: str = "read"
    score: Score = field(default_factory=lambda: Score(None, 0.0, None))

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "Plan":
        """The plan from its JSON form (what `stalwart plan` prints)."""
        call = value.get("call")
        return Plan(
            kind=value["kind"],
            language=value["language"],
            intent=value.get("intent"),
            flow=value.get("flow"),
            call=PlannedCall.from_json(call) if call else None,
            reads=[PlannedCall.from_json(r) for r in value.get("reads", [])],
            slots=[PlanSlot.from_json(s) for s in value.get("slots", [])],
            missing=list(value.get("missing", [])),
            choices=list(value.get("choices", [])),
            question=value.get("question"),
            reason=value.get("reason"),
            rule=value.get("rule"),
            agents=list(value.get("agents", [])),
            on_unread=value.get("on_unread"),
            for_model=value.get("for_model"),
            record_as=value.get("record_as", "read"),
            score=Score.from_json(value.get("score") or {}),
        )

    def asks(self) -> bool:
        """Whether the turn ends with a question the person's next turn answers."""
        return self.kind == "ask" or self.on_unread in ("ask_again", "ask")


__all__ = ["Plan", "PlanSlot", "PlannedCall", "Score"]
