"""Conversations whose turns wait for a person and go on anywhere (spec tools-that-ask-first.txt).

    from stalwart_agents import conversation, turns, Waiting

    chat = conversation(gardener, "notes", store="notes-chats/", approve="changes")
    try:
        chat("Merge groceries.md into todo.md.")
    except Waiting:
        pass
    t = turns(chat)[-1]
    t.waiting                     # [Approval(gardener/write_note #2, changes)]
    t.approve(by="ana")           # from this process or any other: the turn goes on, its answer returned
    t.deny(reason="not today")    # or no

A conversation is held in a store (`stalwart-store`): `sqlite:PATH`, a path (a folder ending in
`/` holds `conversations.sqlite`), or `postgres://…`. Its turns run the host's program, a
function of the running turn (`RunningTurn`) that asks the model with `turn.model(request, ask)`
and calls tools with `turn.tool(fn, args)`, and returns the turn's answer. Every call is checked
under the agent's record, asked about when it needs a person, and journaled: a resumed turn runs
the program again, and a model request made before gets its recorded reply (nothing paid twice),
a tool that ran its recorded result (nothing run twice).

Who answers (`approve=`): a rule a person answers later — `"changes"` (tools that change things
or say nothing), `"all"`, or a list of tool names and approval paths (`"gardener/write_note"` or
its ending) — beside every call the check confirms; or a function of an `Approval`, answered at
once with `True`, `False` or a reason to refuse. Without a store (`store=None`) nothing is kept
past the process and nobody can be asked later: a call that needs a person raises
`ApprovalError` (`approval_required`) before its tool runs.

The agent is the program's name (`gardener`) unless `agent=` names it; its record is found as
`Client.session` finds one (`catalogue=`, `$STALWART_AGENT`, `agent.yaml` in the current folder,
`.stalwart/record`).
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from . import _native
from .agent import ContextLike, _check_context
from .errors import ApprovalError, Interrupted, Waiting


def _default_by() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "person"


@dataclass(frozen=True)
class Approval:
    """A call that waits for (or had) a person's answer: the tool, its arguments with their
    origins, what it does (`effects`), its approval path, its number in the turn (`invocation`),
    the question shown, the check's reasons, and how it was answered."""

    conversation: str
    turn: int
    invocation: int
    tool: str
    path: str
    arguments: dict[str, Any]
    origins: dict[str, str]
    effects: str
    question: str
    reasons: list[str]
    state: str
    answered_by: str | None = None
    answered_at: int | None = None
    why: str | None = None
    asked: int = 0

    @property
    def name(self) -> str:
        """The tool's name (the spec's `Approval.name`)."""
        return self.tool

    @property
    def input(self) -> dict[str, Any]:
        """The call's arguments (the spec's `Approval.input`)."""
        return self.arguments

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "Approval":
        return Approval(
            conversation=value["conversation"],
            turn=value["turn"],
            invocation=value["invocation"],
            tool=value["tool"],
            path=value["path"],
            arguments=dict(value["arguments"]),
            origins=dict(value["origins"]),
            effects=value["effects"],
            question=value["question"],
            reasons=list(value["reasons"]),
            state=value["state"],
            answered_by=value.get("answered_by"),
            answered_at=value.get("answered_at"),
            why=value.get("why"),
            asked=value.get("asked", 0),
        )

    def __repr__(self) -> str:
        return f"Approval({self.path} #{self.invocation}, {self.effects})"


@dataclass(frozen=True)
class Unfinished:
    """A call whose last record is `started`: it may have run (the process died while it ran).
    It is never run again on its own; `resolution` is what a person said (`result`, `rerun`)."""

    invocation: int
    name: str
    input: Any
    resolution: str | None = None

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "Unfinished":
        return Unfinished(value["invocation"], value["name"], value["input"], value.get("resolution"))


@dataclass(frozen=True)
class Reply:
    """A tool call's reply, as the program reads it: `kind` is `ran`, `failed`, `denied` (a
    person or the approve function refused: `value` is `The person did not allow this call.`
    then the reason) or `refused` (the check refused); `replayed` when it was read from the
    journal rather than made now."""

    invocation: int
    kind: str
    value: Any
    replayed: bool

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "Reply":
        return Reply(value["invocation"], value["kind"], value["value"], value["replayed"])

    @property
    def text(self) -> str:
        """What the model reads: the result, a text as it is and anything else as JSON."""
        import json

        return self.value if isinstance(self.value, str) else json.dumps(self.value, separators=(",", ":"))


@dataclass(frozen=True)
class JournalRecord:
    """A record of the turn's journal: a model request or a tool call (`kind`), `started` or
    `done`, with its result, and which run of the turn wrote it (`writer`)."""

    kind: str
    number: int
    name: str
    input: Any
    state: str
    outcome: str | None
    result: Any
    writer: int
    resolution: str | None = None
    resolved_by: str | None = None

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> "JournalRecord":
        return JournalRecord(
            value["kind"], value["number"], value["name"], value.get("input"), value["state"],
            value.get("outcome"), value.get("result"), value["writer"], value.get("resolution"),
            value.get("resolved_by"),
        )


class Turn:
    """A turn of a conversation, as the store holds it: each property reads the store again, so
    it says how the turn stands now, whichever process answered it. Who answers (`by=`) is
    recorded with each answer; it defaults to the user running the process."""

    def __init__(self, chat: "Conversation", number: int) -> None:
        self._chat = chat
        self.number = number

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = self._chat._native.turn(self.number)
        return info

    @property
    def conversation(self) -> "Conversation":
        return self._chat

    @property
    def state(self) -> str:
        """`running`, `waiting`, `interrupted`, `done` or `abandoned`."""
        return str(self._info()["state"])

    @property
    def input(self) -> str:
        return str(self._info()["input"])

    @property
    def answer(self) -> str | None:
        answer: str | None = self._info()["answer"]
        return answer

    @property
    def writer(self) -> int:
        """How many runs the turn has had (a resumed turn's records are a later writer's)."""
        return int(self._info()["writer"])

    @property
    def waiting(self) -> list[Approval]:
        """What the turn waits for."""
        return [Approval.from_json(a) for a in self._info()["waiting"]]

    @property
    def approvals(self) -> list[Approval]:
        """Every approval the turn asked for, answered or not."""
        return [Approval.from_json(a) for a in self._info()["approvals"]]

    @property
    def unfinished(self) -> list[Unfinished]:
        """The calls a crash left unfinished (their last record is `started`)."""
        return [Unfinished.from_json(u) for u in self._info()["unfinished"]]

    @property
    def journal(self) -> list[JournalRecord]:
        return [JournalRecord.from_json(r) for r in self._info()["journal"]]

    def approve(self, *, by: str | None = None, invocation: int | None = None) -> str | None:
        """Approves what the turn waits for (one call, when `invocation` is given), as `by`; the
        turn goes on in this process and its answer is returned. Raises `ApprovalError`
        (`already_answered`) when another answer came first, `Waiting` when the turn still waits
        for another call. A turn of a graph (a conversation opened with no program) only
        records the answer and returns None: the graph goes on when it is resumed."""
        answered = self._chat._native.approve(self.number, by or _default_by(), invocation)
        self._check_answered(answered)
        if self._chat._hosted:
            return None
        return self._chat._go_on(self.number)

    def deny(
        self, *, reason: str | None = None, by: str | None = None, invocation: int | None = None
    ) -> str | None:
        """Refuses what the turn waits for: the model reads `The person did not allow this call.`
        then `reason`, and may try something else. The turn goes on here; its answer is returned
        (None for a turn of a graph, which goes on when it is resumed)."""
        answered = self._chat._native.deny(self.number, by or _default_by(), reason, invocation)
        self._check_answered(answered)
        if self._chat._hosted:
            return None
        return self._chat._go_on(self.number)

    def resume(
        self,
        *,
        results: Mapping[int, Any] | None = None,
        rerun: list[int] | None = None,
        by: str | None = None,
    ) -> str:
        """Goes on with the turn: `results` says what unfinished calls returned (they ran),
        `rerun` which to run again (they did not). Its answer is returned."""
        if results is not None and not isinstance(results, Mapping):
            raise TypeError(f"results must be a dict of call numbers to results, not {type(results).__name__}")
        if rerun is not None and not isinstance(rerun, (list, tuple)):
            raise TypeError(f"rerun must be a list of call numbers, not {type(rerun).__name__}")
        if self._chat._hosted:
            raise TypeError("a turn of a graph goes on when the graph is resumed, not from its conversation")
        run = self._chat._native.resume(
            self.number, results=dict(results) if results else None, rerun=list(rerun) if rerun else None,
            by=by or _default_by(),
        )
        return self._chat._end(run)

    def abandon(self, *, by: str | None = None, why: str | None = None) -> None:
        """Ends the turn without going on."""
        self._chat._native.abandon(self.number, by or _default_by(), why)

    def _check_answered(self, answered: dict[str, Any]) -> None:
        if answered["answered"] == "already":
            approvals = [Approval.from_json(a) for a in answered["approvals"]]
            who = ", ".join(
                f"call {a.invocation} {a.state} by {a.answered_by}" for a in approvals if a.answered_by
            )
            raise ApprovalError(
                f"turn {self.number} of `{self._chat.id}` was already answered"
                + (f": {who}" if who else ""),
                "already_answered",
                approvals,
            )

    def __repr__(self) -> str:
        return f"<Turn {self.number} of {self._chat.id!r}: {self.state}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and other._chat is self._chat and other.number == self.number

    def __hash__(self) -> int:
        return hash((id(self._chat), self.number))


class Conversation:
    """A conversation held in a store; calling it runs a turn and returns its answer."""

    def __init__(self, native: Any, hosted: bool = False) -> None:
        self._native = native
        # Whether a host makes the turns' calls itself (the LangGraph guard): no program runs.
        self._hosted = hosted

    @property
    def id(self) -> str:
        return str(self._native.id)

    @property
    def agent(self) -> str:
        return str(self._native.agent)

    @property
    def store(self) -> str:
        """The store's address, as messages show it (a password hidden)."""
        return str(self._native.store)

    def __call__(
        self, input: str, *, approve: str | list[str] | Callable[[Approval], bool | str] | None = None
    ) -> str:
        """Runs a turn with the person's words; returns its answer. `approve` sets who answers
        for this turn alone. Raises `Waiting` when it waits for a person, `ApprovalError` when a
        call needs a person and nobody can be asked, `Interrupted` when a call it needs is
        unfinished, and the program's own exceptions."""
        if self._hosted:
            raise TypeError("this conversation's turns are a graph's: run the graph, not the conversation")
        return self._end(self._native.start(input, approve=approve))

    def turns(self) -> list[Turn]:
        """The conversation's turns, oldest first."""
        return [Turn(self, n) for n in self._native.turn_numbers()]

    def _go_on(self, number: int) -> str:
        return self._end(self._native.resume(number))

    def _end(self, out: dict[str, Any]) -> str:
        run = out["run"]
        end = run["end"]
        turn = Turn(self, run["turn"])
        state = end["state"]
        if state == "done":
            return str(end["answer"])
        if state == "waiting":
            approvals = [Approval.from_json(a) for a in end["approvals"]]
            raise Waiting(
                f"turn {turn.number} of `{self.id}` waits for a person: "
                + ", ".join(repr(a) for a in approvals),
                turn,
                approvals,
            )
        if state == "interrupted":
            unfinished = [Unfinished.from_json(u) for u in end["unfinished"]]
            why = end.get("why")
            raise Interrupted(
                f"turn {turn.number} of `{self.id}` is interrupted: "
                + (why if why else "unfinished calls " + ", ".join(str(u.invocation) for u in unfinished)),
                turn,
                unfinished,
            )
        required = out.get("approval_required")
        approvals = [Approval.from_json(required)] if required else []
        raise ApprovalError(
            f"{end.get('why', 'approval_required')}: nobody can be asked, so the call did not run",
            "approval_required",
            approvals,
        )

    def __repr__(self) -> str:
        return f"<Conversation {self.id!r} of {self.agent!r} in {self.store}>"


#: A turn's program: a function of the running turn that returns the turn's answer.
Program = Callable[[Any], str]


def _no_program(turn: Any) -> str:
    raise TypeError("this conversation's turns are a graph's: run the graph, not the conversation")


def conversation(
    program: Program | None,
    id: str | None = None,
    *,
    store: str | os.PathLike[str] | None = None,
    approve: str | list[str] | Callable[[Approval], bool | str] | None = None,
    agent: str | None = None,
    catalogue: Any = None,
    context: ContextLike = None,
    user: Any = None,
    verify: bool = True,
) -> Conversation:
    """Opens the conversation `id` (a new one when None) of the agent `program` runs, in
    `store`; see the module's documentation. With no program (`None`, and `agent=` naming the
    agent), the conversation's turns are a graph's (the LangGraph guard makes their calls): its
    turns are read and answered here, and go on when the graph is resumed."""
    from .client import Client

    hosted = program is None
    if program is None:
        if agent is None:
            raise TypeError("a conversation with no program names its agent with agent=")
        program = _no_program
    if not callable(program):
        raise TypeError(f"program must be a function of a turn, not {type(program).__name__}")
    if agent is None:
        agent = getattr(program, "__name__", None)
        if not isinstance(agent, str):
            raise TypeError("the program has no name: name its agent with agent=")
    _check_context(context)
    record, agent_context = Client(verify=verify)._record(catalogue, None)
    native = _native.open_conversation(
        record,
        agent,
        program,
        id,
        store=os.fspath(store) if isinstance(store, os.PathLike) else store,
        approve=approve,
        context=context if context is not None else agent_context,
        user=user,
    )
    return Conversation(native, hosted)


def turns(chat: Conversation) -> list[Turn]:
    """The conversation's turns, oldest first."""
    if not isinstance(chat, Conversation):
        raise TypeError(f"turns takes a Conversation, not {type(chat).__name__}")
    return chat.turns()


__all__ = [
    "Approval",
    "Conversation",
    "JournalRecord",
    "Program",
    "Reply",
    "Turn",
    "Unfinished",
    "conversation",
    "turns",
]
