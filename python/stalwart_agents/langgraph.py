"""The LangGraph guard: every tool call a model asks for is checked before it runs.

- `Guard(session, context=...)` is the guard middleware: a `wrap_tool_call` for LangGraph's
  `ToolNode(tools, wrap_tool_call=guard)`. `guard.call_with(node)` wraps a `ToolNode`, or any node
  that runs the tool calls of the newest AI message, with it.
- `build_stalwart_graph(model, tools, session=...)` builds the whole loop: the person's turn is
  read into the session, the model answers, and its tool calls go through the guard.

What each answer of the check becomes:

- **allow**: the tool runs once; what it returned is reported to the session (`ran` with the
  result, or `failed` when the tool failed), so the file's facts and `after` bindings see it with
  no code of yours.
- **confirm**: `interrupt()` with `{"question", "tool", "arguments", "reasons", "step"}`, where
  `arguments` gives each argument's value and origin. The graph resumes with the person's answer
  (`Command(resume=...)`): yes (`True`, `"yes"`, `"y"`, `"ok"`, `"approve"`, or `{"approved":
  True}`) checks the call again with the confirmation's token, and it runs only if that check
  allows it; anything else is recorded as the person's reply and reaches the model as "The person
  did not allow this call." with their words.
- **refuse**: nothing runs; a `ToolMessage` (status `error`) names the reasons, so the model may
  try something else. When earlier writes of the run ran, the undo plan the check lists runs
  first, last write first, each undo checked as the undo of its step.

The arguments of a tool call are the model's: their origin is `model` unless `origins=` says
otherwise (a mapping, or a function of the tool call and the state).

**With a store** (`Guard(session, store="sqlite:PATH" | "postgres://…" | a conversation)`), the
conversation's history, approvals and journal are the store's (`stalwart-store`), so a graph
stopped in one process goes on in any other:

- The graph's n-th person message is the conversation's turn n, and a tool call is call k of the
  turn when it is the k-th tool call the model asked for since that message. A conversation
  given to a guard holds one graph thread's turns.
- A confirm is saved as the turn's waiting approval (tool, arguments with their origins, effects,
  path, invocation, question: what `stalwart turns list` shows), and `interrupt()` carries its
  id (`approval`: `conversation/turn/invocation`) beside the question.
- On resume, in this process or another, the answer is the store's: one given elsewhere
  (`stalwart turns approve|deny`, or `turn.approve(by=...)` / `turn.deny(reason=...)` of
  `conversation(None, id, store=..., agent=...)`) is taken as it is, without asking; one given
  with `Command(resume=...)` is recorded first (as `by=`, or the answer's `"by"`). Exactly one
  answer wins: an answer given after another is not recorded, and a warning names who answered.
- A yes runs the tool once, checked again with the confirmation's token; a no gives the model
  "The person did not allow this call." and the reason. A changing tool is journaled `started`
  before it runs and `done` after, so a node the graph runs again gets the recorded result and
  never runs the tool twice; a call whose last record is `started` raises `Interrupted` until a
  person says what it returned (`stalwart turns resume --result`) or asks for a rerun.
"""

from __future__ import annotations

import json
import threading
import warnings
from typing import Any, Callable, Mapping, Sequence

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt

from . import _native
from .conversation import Approval, Conversation, Turn, Unfinished, _default_by, conversation
from .errors import ApprovalError, Interrupted
from .facts import Context

#: The answers that approve a confirmation.
YES = ("yes", "y", "ok", "approve", "approved")

#: The detail a refusal's message names, in this order.
_NAMED = ("flow", "rule", "pointer", "destinations", "agents", "limit", "check", "question")

ContextArg = Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | Context | None
OriginsArg = Mapping[str, str] | Callable[[dict[str, Any], Any], Mapping[str, str]] | None


def _approved(answer: Any) -> bool:
    if answer is True:
        return True
    if isinstance(answer, str):
        return answer.strip().lower() in YES
    if isinstance(answer, Mapping):
        return answer.get("approved") is True
    return False


def _words(answer: Any) -> str:
    if isinstance(answer, str) and answer.strip():
        return answer
    if isinstance(answer, Mapping) and isinstance(answer.get("reason"), str):
        return answer["reason"]
    return "no"


def _reported(result: Any) -> tuple[str, Any]:
    """What became of a call, from what its node returned: `(outcome, result)`."""
    if isinstance(result, ToolMessage):
        if result.status == "error":
            return "failed", None
        content = result.content
        if isinstance(content, str):
            try:
                return "ran", json.loads(content)
            except ValueError:
                return "ran", content
        return "ran", content
    return "ran", None


class Guard:
    """The guard middleware: checks every tool call with `session` before it runs."""

    def __init__(
        self,
        session: Any,
        *,
        context: ContextArg = None,
        origins: OriginsArg = None,
        tools: Sequence[Any] | Mapping[str, Any] | None = None,
        store: str | Conversation | None = None,
        conversation_id: str | None = None,
        by: str | None = None,
        approve: str | list[str] | Callable[[Approval], bool | str] | None = None,
    ) -> None:
        if not hasattr(session, "check_tool_call"):
            raise TypeError(f"session must be a Session (client.session(...)), not {type(session).__name__}")
        if context is not None and not callable(context) and not isinstance(context, Mapping):
            raise TypeError(
                f"context must be a mapping, a function of the state, or a Context, not {type(context).__name__}"
            )
        if origins is not None and not callable(origins) and not isinstance(origins, Mapping):
            raise TypeError(
                f"origins must be a mapping, or a function of the tool call and the state, not {type(origins).__name__}"
            )
        self.session = session
        self.context = context
        self.origins = origins
        # The tools by name, for the undo calls a refusal runs (a request carries only its own).
        self.tools: dict[str, Any] = _by_name(tools)
        self._lock = threading.RLock()
        # Confirms waiting for the person, by tool call id, with the head they were asked at:
        # when the node runs again on resume, the same confirm is answered, not asked twice.
        self._pending: dict[str, tuple[Any, str]] = {}
        #: The conversation the guard's turns are kept in, when it has a store.
        self.conversation: Conversation | None = _conversation_of(session, store, conversation_id, approve)
        #: Who answers through `Command(resume=...)` (the user running the process by default).
        self.by = by
        # The turn whose person's words the session last read (for the selector's intent).
        self._read_for: tuple[int, str] | None = None

    # -- the middleware -----------------------------------------------------------------------

    def __call__(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        return self.wrap_tool_call(request, execute)

    def wrap_tool_call(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        """`ToolNode(wrap_tool_call=...)`: checks `request.tool_call`, and runs it through
        `execute` only where the check allows it."""

        def run(call: dict[str, Any]) -> Any:
            if call["name"] == request.tool_call["name"]:
                return execute(request.override(tool_call=call))
            return execute(request.override(tool_call=call, tool=self.tools.get(call["name"])))

        return self.decide(dict(request.tool_call), request.state, run)

    def call_with(self, node: Any, *, context: ContextArg = None) -> Any:
        """`node` guarded: a `ToolNode` gets this guard as its `wrap_tool_call`; any other node
        (a function of the state that runs the newest AI message's tool calls and returns their
        `ToolMessage`s) is given one checked call at a time."""
        guard = self if context is None else Guard(self.session, context=context, origins=self.origins,
                                                  tools=self.tools, store=self.conversation, by=self.by)
        if isinstance(node, ToolNode):
            guard.tools.update(node.tools_by_name)
            return ToolNode(list(node.tools_by_name.values()), name=node.name, wrap_tool_call=guard)
        if not callable(node):
            raise TypeError(f"node must be a ToolNode or a function of the state, not {type(node).__name__}")

        def guarded(state: Any) -> dict[str, list[AnyMessage]]:
            messages = _messages(state)
            last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
            out: list[AnyMessage] = []
            for call in (last.tool_calls if last is not None else []):

                def run(one: dict[str, Any], state: Any = state) -> Any:
                    return _run_one(node, state, one)

                out.append(guard.decide(dict(call), state, run))
            return {"messages": out}

        return guarded

    # -- the decision -------------------------------------------------------------------------

    def decide(self, call: dict[str, Any], state: Any, run: Callable[[dict[str, Any]], Any]) -> Any:
        """Checks one tool call and acts on the answer; returns what the node returns for it."""
        if self.conversation is not None:
            with self._lock:
                return self._decide_stored(self.conversation, call, state, run)
        with self._lock:
            name, args, call_id = call["name"], dict(call.get("args") or {}), call.get("id") or ""
            origins = self._origins(call, state)
            context = self._context(state)
            check = self._asked_already(call_id)
            if check is None:
                check = self.session.check_tool_call(name, args, origins=origins, context=context)
            while check.decision == "confirm":
                self._pending[call_id] = (check, self.session.head["token"])
                answer = interrupt(_question(check, name, args, origins))
                self._pending.pop(call_id, None)
                if not _approved(answer):
                    words = _words(answer)
                    self.session.reply(words)
                    return ToolMessage(
                        content=f"The person did not allow this call. {words}",
                        name=name,
                        tool_call_id=call_id,
                        status="error",
                    )
                check = self.session.check_tool_call(
                    name, args, origins=origins, context=context, confirmation=check.confirmation
                )
            if check.decision == "refuse":
                undone = self._undo(check, state, run, call_id, context)
                return ToolMessage(
                    content=_refusal(check, undone), name=name, tool_call_id=call_id, status="error"
                )
            return self._run(check, call, run)

    # -- with a store ---------------------------------------------------------------------------

    def read(self, number: int, text: str) -> None:
        """Reads the person's words of turn `number` into the session (the selector's intent for
        the turn's checks), once."""
        if self._read_for != (number, text):
            self.session.read(text)
            self._read_for = (number, text)

    def _decide_stored(self, chat: Conversation, call: dict[str, Any], state: Any,
                       run: Callable[[dict[str, Any]], Any]) -> Any:
        name, args, call_id = call["name"], dict(call.get("args") or {}), call.get("id") or ""
        origins = self._origins(call, state)
        context = self._context(state)
        number, text, invocation = _place(state, call_id)
        self.read(number, text)
        if _resume_given():
            self._answered_elsewhere(chat, number, invocation)
        ran: list[Any] = []
        raised: list[BaseException] = []

        def code(given: dict[str, Any]) -> Any:
            try:
                result = run({**call, "args": dict(given)})
            except BaseException as e:
                raised.append(e)
                raise
            ran.append(result)
            outcome, value = _reported(result)
            if outcome == "failed":
                raise RuntimeError(result.content if isinstance(result.content, str) else json.dumps(result.content))
            return value

        while True:
            out = _native.host_call(chat._native, number, text, invocation, name, args, code, origins=origins,
                                    context=context, intent=self.session.intent)
            if raised and not ran:
                raise raised[0]
            if "reply" in out:
                return _message(out["reply"], ran, name, call_id)
            stop = out["stop"]
            if stop == "waiting":
                approval = next(a for a in out["approvals"] if a["invocation"] == invocation)
                answer = interrupt(_stored_question(approval))
                if answer is not None:
                    self._answer(chat, approval, answer)
                continue
            if stop == "interrupted":
                unfinished = [Unfinished.from_json(u) for u in out["unfinished"]]
                raise Interrupted(
                    f"turn {number} of `{chat.id}` is interrupted: "
                    + (out["why"] or "unfinished calls " + ", ".join(str(u.invocation) for u in unfinished)),
                    Turn(chat, number),
                    unfinished,
                )
            approvals = [Approval.from_json(out["approval"])]
            raise ApprovalError(
                f"approval_required: {approvals[0]!r}: nobody can be asked, so the call did not run",
                "approval_required",
                approvals,
            )

    def _answered_elsewhere(self, chat: Conversation, number: int, invocation: int) -> None:
        """The graph was resumed with an answer: when the store holds one already for this call,
        the one given now is read (so it answers nothing else) and checked against it."""
        approvals = chat._native.turn(number)["approvals"] if number in chat._native.turn_numbers() else []
        approval = next((a for a in approvals if a["invocation"] == invocation), None)
        if approval is None or approval["state"] == "pending":
            return
        answer = interrupt(_stored_question(approval))
        if answer is None:
            return
        state = "approved" if _approved(answer) else "denied"
        by = self._by(answer)
        if approval["state"] != state or approval.get("answered_by") != by:
            self._answer(chat, approval, answer)

    def _by(self, answer: Any) -> str:
        given = answer.get("by") if isinstance(answer, Mapping) and isinstance(answer.get("by"), str) else None
        return given or self.by or _default_by()

    def _answer(self, chat: Conversation, approval: Mapping[str, Any], answer: Any) -> None:
        """Records the answer given with `Command(resume=...)`, unless another came first."""
        by = self._by(answer)
        turn, invocation = approval["turn"], approval["invocation"]
        if _approved(answer):
            answered = chat._native.approve(turn, by, invocation)
        else:
            answered = chat._native.deny(turn, by, _words(answer), invocation)
        if answered["answered"] == "already":
            who = ", ".join(
                f"call {a['invocation']} {a['state']} by {a['answered_by']}"
                for a in answered["approvals"] if a.get("answered_by")
            )
            warnings.warn(
                f"turn {turn} of `{chat.id}` was already answered ({who}): that answer stands",
                AnsweredAlready,
                stacklevel=4,
            )

    def _asked_already(self, call_id: str) -> Any:
        """The confirm this call was asked about, when the node runs again on resume and nothing
        has been added to the history since."""
        pending = self._pending.get(call_id)
        if pending is None:
            return None
        check, head = pending
        if self.session.head["token"] != head:
            self._pending.pop(call_id, None)
            return None
        return check

    def _run(self, check: Any, call: dict[str, Any], run: Callable[[dict[str, Any]], Any]) -> Any:
        try:
            result = run(call)
        except GraphBubbleUp:
            raise
        except Exception:
            self.session.report(check.step, "outcome_unknown")
            raise
        outcome, value = _reported(result)
        self.session.report(check.step, outcome, result=value)
        return result

    def _undo(self, check: Any, state: Any, run: Callable[[dict[str, Any]], Any], call_id: str,
              context: Any) -> list[str]:
        """Runs the check's undo plan (already last first); returns what was undone."""
        done: list[str] = []
        for undo in check.detail.get("undo", []):
            tool, args, step = undo["tool"], undo["arguments"], undo["undoes"]
            answer = self.session.check_tool_call(tool, args, compensates=step, context=context)
            if answer.decision != "allow":
                done.append(f"{tool} for step {step} was not undone: {answer.decision} {', '.join(answer.reasons)}")
                continue
            call = {"name": tool, "args": dict(args), "id": f"{call_id}-undo-{step}", "type": "tool_call"}
            result = self._run(answer, call, run)
            outcome, _ = _reported(result)
            done.append(f"{tool} undid step {step}" if outcome == "ran" else f"{tool} failed to undo step {step}")
        return done

    def _origins(self, call: dict[str, Any], state: Any) -> dict[str, str]:
        given = self.origins
        if callable(given) and not isinstance(given, Mapping):
            given = given(call, state)
        given = dict(given or {})
        return {arg: given.get(arg, "model") for arg in (call.get("args") or {})}

    def _context(self, state: Any) -> dict[str, Any] | None:
        context = self.context
        if context is None:
            return None
        if callable(context) and not isinstance(context, Mapping):
            context = context(state)
        return dict(context)


class AnsweredAlready(UserWarning):
    """An answer given with `Command(resume=...)` came after another (given elsewhere): it was
    not recorded, and the first answer stands."""


def _conversation_of(session: Any, store: Any, conversation_id: str | None, approve: Any) -> Conversation | None:
    if store is None:
        return None
    if isinstance(store, Conversation):
        return store
    return conversation(
        None,
        conversation_id or session.id,
        store=store,
        agent=session.agent,
        catalogue=session.record,
        approve=approve,
        verify=False,
    )


def _resume_given() -> bool:
    """Whether the node runs with an answer given by `Command(resume=...)`."""
    try:
        from langgraph._internal._constants import CONFIG_KEY_SCRATCHPAD
        from langgraph.config import get_config

        scratchpad = get_config()["configurable"][CONFIG_KEY_SCRATCHPAD]
    except Exception:
        return False
    return bool(scratchpad.resume) or scratchpad.get_null_resume(False) is not None


def _place(state: Any, call_id: str) -> tuple[int, str, int]:
    """The turn of a tool call (how many person messages came up to it), the person's words of
    that turn, and the call's place among the turn's tool calls (from 1)."""
    messages = _messages(state)
    number, text, seen = 0, "", 0
    for message in messages:
        if isinstance(message, HumanMessage):
            number += 1
            content = message.content
            text = content if isinstance(content, str) else json.dumps(content)
            seen = 0
        elif isinstance(message, AIMessage):
            for call in message.tool_calls:
                seen += 1
                if call.get("id") == call_id:
                    return max(number, 1), text, seen
    return max(number, 1), text, seen + 1


def _stored_question(approval: Mapping[str, Any]) -> dict[str, Any]:
    origins = approval.get("origins", {})
    return {
        "approval": f"{approval['conversation']}/{approval['turn']}/{approval['invocation']}",
        "conversation": approval["conversation"],
        "turn": approval["turn"],
        "invocation": approval["invocation"],
        "question": approval["question"],
        "tool": approval["tool"],
        "arguments": {k: {"value": v, "origin": origins.get(k, "model")} for k, v in approval["arguments"].items()},
        "effects": approval["effects"],
        "path": approval["path"],
        "reasons": list(approval["reasons"]),
    }


def _message(reply: Mapping[str, Any], ran: list[Any], name: str, call_id: str) -> Any:
    """What the node returns for a call the store answered: the tool's own message when it ran
    here, else one made from the recorded reply."""
    kind, value = reply["kind"], reply["value"]
    if ran and kind in ("ran", "failed"):
        return ran[-1]
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return ToolMessage(content=text, name=name, tool_call_id=call_id,
                       status="success" if kind == "ran" else "error")


def _question(check: Any, name: str, args: Mapping[str, Any], origins: Mapping[str, str]) -> dict[str, Any]:
    return {
        "question": check.detail.get("question", ""),
        "tool": name,
        "arguments": {k: {"value": v, "origin": origins.get(k, "model")} for k, v in args.items()},
        "reasons": list(check.reasons),
        "step": check.step,
    }


def _refusal(check: Any, undone: Sequence[str]) -> str:
    parts = [f"Stalwart refused this call: {', '.join(check.reasons)}"]
    for key in _NAMED:
        if key in check.detail:
            parts.append(f"{key}: {json.dumps(check.detail[key], ensure_ascii=False)}")
    if undone:
        parts.append("undone: " + "; ".join(undone))
    return ". ".join(parts) + "."


def _by_name(tools: Sequence[Any] | Mapping[str, Any] | None) -> dict[str, Any]:
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        return dict(tools)
    return {getattr(t, "name", None) or getattr(t, "__name__", str(t)): t for t in tools}


def _messages(state: Any) -> list[AnyMessage]:
    if isinstance(state, Mapping):
        return list(state.get("messages", []))
    if isinstance(state, list):
        return state
    return list(getattr(state, "messages", []))


def _run_one(node: Any, state: Any, call: dict[str, Any]) -> Any:
    """Runs one tool call through a node that runs the newest AI message's tool calls."""
    only = AIMessage(content="", tool_calls=[call])
    if isinstance(state, Mapping):
        sub = {**state, "messages": [*_messages(state), only]}
    else:
        sub = {"messages": [*_messages(state), only]}
    answer = node(sub)
    messages = answer.get("messages", []) if isinstance(answer, Mapping) else answer
    for message in messages if isinstance(messages, list) else [messages]:
        if isinstance(message, ToolMessage) and message.tool_call_id == call.get("id"):
            return message
    raise ValueError(f"the node returned no ToolMessage for the tool call `{call.get('id')}`")


def build_stalwart_graph(
    model: Any,
    tools: Sequence[Any],
    *,
    session: Any,
    context: ContextArg = None,
    origins: OriginsArg = None,
    checkpointer: Any = None,
    store: str | Conversation | None = None,
    conversation_id: str | None = None,
    by: str | None = None,
) -> Any:
    """The guarded agent loop, compiled: `turn` (the person's newest message read into the
    session) → `model` → `tools` (through the guard) → `model` …, until the model asks for no
    tool. Confirmations interrupt the graph, so it is compiled with a checkpointer (an in-memory
    one unless `checkpointer=` is given). With `store=`, the guard keeps the conversation there (see
    the module's documentation), and a turn's last answer is recorded as the turn's."""
    node = ToolNode(list(tools))
    guard = Guard(session, context=context, origins=origins, tools=node.tools_by_name, store=store,
                  conversation_id=conversation_id, by=by)
    try:
        bound = model.bind_tools(list(tools))
    except NotImplementedError:
        bound = model

    def turn(state: MessagesState) -> dict[str, Any]:
        human = next((m for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), None)
        if guard.conversation is not None:
            number, text, _ = _place(state, "")
            guard.read(number, text)
        elif human is not None:
            text = human.content if isinstance(human.content, str) else json.dumps(human.content)
            session.read(text)
        return {}

    def answer(state: MessagesState) -> dict[str, Any]:
        if guard.conversation is not None:
            number, _, _ = _place(state, "")
            last = state["messages"][-1]
            text = last.content if isinstance(last.content, str) else json.dumps(last.content)
            _native.host_done(guard.conversation._native, number, text)
        return {}

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("turn", turn)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(list(node.tools_by_name.values()), wrap_tool_call=guard))
    graph.add_edge(START, "turn")
    graph.add_edge("turn", "model")
    graph.add_node("answer", answer)
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: "answer"})
    graph.add_edge("answer", END)
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


__all__ = ["AnsweredAlready", "Guard", "YES", "build_stalwart_graph"]
