"""Turns that wait for a person and go on anywhere (spec tools-that-ask-first.txt), through the
Python package, on SQLite always and on PostgreSQL when `STALWART_TEST_POSTGRES` names a server
(`.ci/test` starts one; under CI a missing server fails the PostgreSQL tests, never skips them).

The gardener (`gardener_host.py`) runs in this process and as processes of its own: its model
counts the requests it is paid for (`model.log`) and its tools log every run (`tools.log`), so
each test says exactly what was paid and what ran, across processes and a SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from stalwart_agents import (
    Approval,
    ApprovalError,
    Interrupted,
    StoreError,
    Unfinished,
    Waiting,
    compile_agent,
    conversation,
    turns,
)

from gardener_host import AGENT_YAML, Gardener, log_lines

HOST = Path(__file__).resolve().parent / "gardener_host.py"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store's URL: a folder of the test's own, or the test server."""
    if request.param == "sqlite":
        return f"{tmp_path / 'notes-chats'}/"
    server = os.environ.get("STALWART_TEST_POSTGRES")
    if not server:
        if os.environ.get("CI"):
            pytest.fail("STALWART_TEST_POSTGRES is not set: CI runs the PostgreSQL tests (.ci/test starts a server)")
        pytest.skip("no PostgreSQL server: set STALWART_TEST_POSTGRES (.ci/test starts one)")
    return server


@pytest.fixture
def garden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The gardener's record (`rec`), logs and notes, in the test's folder (the current one)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "agent.yaml").write_text(AGENT_YAML)
    compile_agent(tmp_path / "src" / "agent.yaml", tmp_path / "rec")
    (tmp_path / "logs" / "notes").mkdir(parents=True)
    (tmp_path / "logs" / "notes" / "groceries.md").write_text("- milk\n")
    (tmp_path / "logs" / "notes" / "todo.md").write_text("- call Ana\n")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def new_id() -> str:
    return f"notes-{uuid.uuid4().hex[:12]}"


def host(garden: Path, store: str, conversation_id: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HOST), *args, "--store", store, "--record", str(garden / "rec"),
         "--logs", str(garden / "logs"), "--conversation", conversation_id],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=garden,
    )


def run_host(garden: Path, store: str, conversation_id: str, *args: str) -> dict[str, Any]:
    proc = host(garden, store, conversation_id, *args)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def chat_in(garden: Path, store: str | None, conversation_id: str, approve: Any = "changes", hang: str | None = None) -> Any:
    host = Gardener(garden / "logs", hang=hang)
    return conversation(host.gardener, conversation_id, store=store, approve=approve, catalogue=garden / "rec")


def test_write_note_waits_in_one_process_and_is_approved_and_finished_by_another(garden: Path, store: str) -> None:
    chat_id = new_id()
    started = run_host(garden, store, chat_id, "start", "--input", "Merge groceries.md into todo.md.")
    assert started == {"waiting": ["Approval(gardener/write_note #3, changes)"]}
    # What waits, seen from a third process (this one).
    t = turns(chat_in(garden, store, chat_id))[-1]
    assert (t.number, t.state, t.input) == (1, "waiting", "Merge groceries.md into todo.md.")
    [waiting] = t.waiting
    assert isinstance(waiting, Approval) and repr(waiting) == "Approval(gardener/write_note #3, changes)"
    assert (waiting.tool, waiting.invocation, waiting.effects, waiting.state) == ("write_note", 3, "changes", "pending")
    assert waiting.arguments == {"name": "todo.md", "text": "- call Ana\n- milk\n"}
    assert waiting.origins == {"name": "model", "text": "model"}
    assert log_lines(garden / "logs" / "tools.log") == ["read_note", "read_note"]

    finished = run_host(garden, store, chat_id, "approve", "--by", "ana")
    assert finished == {"answer": "Merged groceries.md into todo.md."}
    assert (garden / "logs" / "notes" / "todo.md").read_text() == "- call Ana\n- milk\n"
    # Each tool ran once; each model request was paid once: the approving process paid only for
    # the request after the write (requests 0 and 2 were answered from the journal).
    assert log_lines(garden / "logs" / "tools.log") == ["read_note", "read_note", "write_note"]
    assert log_lines(garden / "logs" / "model.log") == ["request 0", "request 2", "request 3"]
    assert (t.state, t.answer, t.writer) == ("done", "Merged groceries.md into todo.md.", 2)
    [answered] = t.approvals
    assert (answered.state, answered.answered_by) == ("approved", "ana")
    # A second answer is told who answered first.
    with pytest.raises(ApprovalError) as already:
        t.deny(reason="too late", by="bob")
    assert already.value.code == "already_answered"
    assert str(already.value) == f"turn 1 of `{chat_id}` was already answered: call 3 approved by ana"


def test_a_denial_is_an_answer_the_model_reads(garden: Path, store: str) -> None:
    chat = chat_in(garden, store, new_id())
    with pytest.raises(Waiting) as waiting:
        chat("Merge groceries.md into todo.md.")
    assert waiting.value.code == "turn_waiting"
    assert [repr(a) for a in waiting.value.approvals] == ["Approval(gardener/write_note #3, changes)"]
    t = turns(chat)[-1]
    assert waiting.value.turn == t and t.state == "waiting"
    answer = t.deny(reason="not today", by="ana")
    assert answer == "I left todo.md as it was: The person did not allow this call. not today"
    assert (garden / "logs" / "notes" / "todo.md").read_text() == "- call Ana\n"
    assert log_lines(garden / "logs" / "tools.log") == ["read_note", "read_note"]
    assert log_lines(garden / "logs" / "model.log") == ["request 0", "request 2", "request 3"]
    [denied] = t.approvals
    assert (denied.state, denied.answered_by, denied.why) == ("denied", "ana", "not today")
    assert t.state == "done"


def crash_while_sending(garden: Path, store: str, chat_id: str) -> None:
    """Starts `Send the summary.` in a process of its own and kills it (SIGKILL) while
    `send_email` runs: between its `started` and its `done`."""
    proc = host(garden, store, chat_id, "start", "--input", "Send the summary.", "--approve", "yes",
                "--hang", "send_email")
    deadline = time.monotonic() + 120
    while not (garden / "logs" / "hanging").exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the host never ran send_email"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    (garden / "logs" / "hanging").unlink()


@pytest.mark.parametrize("how", ["result", "rerun", "abandon"])
def test_a_call_a_crash_left_unfinished_is_never_run_again_on_its_own(garden: Path, store: str, how: str) -> None:
    chat_id = new_id()
    crash_while_sending(garden, store, chat_id)
    assert log_lines(garden / "logs" / "tools.log") == ["send_email"]
    chat = chat_in(garden, store, chat_id, approve=lambda approval: True)
    t = turns(chat)[-1]
    assert t.state == "interrupted"
    assert t.unfinished == [Unfinished(1, "send_email", {"to": "ana", "text": "the summary"})]
    # Going on without saying what became of it runs nothing.
    with pytest.raises(Interrupted) as interrupted:
        t.resume()
    assert [u.invocation for u in interrupted.value.unfinished] == [1]
    assert log_lines(garden / "logs" / "tools.log") == ["send_email"]
    if how == "result":
        assert t.resume(results={1: "sent"}, by="ana") == "Sent the summary: sent"
        assert log_lines(garden / "logs" / "tools.log") == ["send_email"]
    elif how == "rerun":
        assert t.resume(rerun=[1], by="ana") == "Sent the summary: sent"
        assert log_lines(garden / "logs" / "tools.log") == ["send_email", "send_email"]
    else:
        t.abandon(by="ana", why="sent by hand")
        assert t.state == "abandoned"
        assert log_lines(garden / "logs" / "model.log") == ["request 0"]
        return
    # The request the killed process paid for was answered from the journal.
    assert log_lines(garden / "logs" / "model.log") == ["request 0", "request 1"]
    assert (t.state, t.writer) == ("done", 2)
    assert [(r.kind, r.number, r.state, r.writer) for r in t.journal if r.kind == "tool"] == [("tool", 1, "done", 2)]


def test_a_crashed_turn_goes_on_in_another_process(garden: Path, store: str) -> None:
    chat_id = new_id()
    crash_while_sending(garden, store, chat_id)
    assert run_host(garden, store, chat_id, "resume", "--approve", "yes") == {"interrupted": [1]}
    assert run_host(garden, store, chat_id, "resume", "--approve", "yes", "--result", "1=sent", "--by", "ana") == {
        "answer": "Sent the summary: sent"}
    assert log_lines(garden / "logs" / "tools.log") == ["send_email"]
    assert log_lines(garden / "logs" / "model.log") == ["request 0", "request 1"]


def test_the_approve_function_answers_at_once_true_false_or_a_reason(garden: Path, store: str) -> None:
    asked: list[Approval] = []

    def approve(a: Approval) -> bool | str:
        asked.append(a)
        return "only todo.md" if a.name == "write_note" and a.input["name"] != "todo.md" else True

    chat = chat_in(garden, store, new_id(), approve=approve)
    assert chat("Note b") == "Wrote b.md: The person did not allow this call. only todo.md"
    assert chat("Note todo") == "Wrote todo.md: ok"
    assert [(a.tool, a.invocation, a.reasons) for a in asked] == [("write_note", 2, ["argument_origin"])] * 2
    assert log_lines(garden / "logs" / "tools.log") == ["read_note", "read_note", "write_note"]
    assert [t.state for t in turns(chat)] == ["done", "done"]


def test_with_nobody_to_ask_a_changing_call_fails_before_its_tool_runs(garden: Path) -> None:
    chat = chat_in(garden, None, new_id(), approve="changes")
    with pytest.raises(ApprovalError) as error:
        chat("Note a")
    assert error.value.code == "approval_required"
    assert [repr(a) for a in error.value.approvals] == ["Approval(gardener/write_note #2, changes)"]
    assert log_lines(garden / "logs" / "tools.log") == ["read_note"]
    assert not (garden / "logs" / "notes" / "a.md").exists()


def test_a_rule_names_tools_and_approval_paths(garden: Path, store: str) -> None:
    # `read_note` is asked about by its approval path's ending; `write_note` by the check (every
    # write is confirmed), even though the rule does not name it.
    chat = chat_in(garden, store, new_id(), approve=["gardener/read_note"])
    with pytest.raises(Waiting) as waiting:
        chat("Note c")
    assert [repr(a) for a in waiting.value.approvals] == ["Approval(gardener/read_note #1, reads)"]
    t = waiting.value.turn
    with pytest.raises(Waiting) as again:
        t.approve(by="ana")
    assert [repr(a) for a in again.value.approvals] == ["Approval(gardener/write_note #2, changes)"]
    assert t.approve(by="ana") == "Wrote c.md: ok"
    assert log_lines(garden / "logs" / "model.log") == ["request 0", "request 1", "request 2"]


def test_wrong_settings_and_answers_are_refused_naming_what_is_wrong(garden: Path, store: str) -> None:
    with pytest.raises(ValueError, match="approve: `sometimes` is not a rule"):
        chat_in(garden, store, new_id(), approve="sometimes")
    with pytest.raises(TypeError, match="approve must be"):
        chat_in(garden, store, new_id(), approve=3)
    chat = chat_in(garden, store, new_id())
    with pytest.raises(StoreError) as error:
        chat._native.turn(None)
    assert error.value.slug == "not-found"
    with pytest.raises(StoreError) as unknown:
        conversation(Gardener(garden / "logs").gardener, "x", store="mysql://db/chats", catalogue=garden / "rec")
    assert (unknown.value.code, unknown.value.slug) == ("E0040", "store-url")


def test_a_program_that_fails_leaves_its_turn_interrupted_and_raises_its_error(garden: Path, store: str) -> None:
    def gardener(turn: Any) -> str:
        turn.model({"input": turn.input}, lambda request: {"answer": "?"})
        raise RuntimeError("the model's client broke")

    chat = conversation(gardener, new_id(), store=store, catalogue=garden / "rec")
    with pytest.raises(RuntimeError, match="the model's client broke"):
        chat("Note d")
    assert turns(chat)[-1].state == "interrupted"


def test_an_approve_function_that_fails_refuses_the_call_and_its_error_is_raised(garden: Path, store: str) -> None:
    chat = chat_in(garden, store, new_id(), approve=lambda approval: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        chat("Note e")
    t = turns(chat)[-1]
    assert (t.state, t.answer) == ("done", "Wrote e.md: The person did not allow this call.")
    assert log_lines(garden / "logs" / "tools.log") == ["read_note"]


def test_a_waiting_turn_stops_a_program_that_catches_every_exception(garden: Path, store: str) -> None:
    host = Gardener(garden / "logs")

    def gardener(turn: Any) -> str:
        try:
            turn.tool(host.write_note, {"name": "x.md", "text": "y"})
        except Exception:
            return "swallowed"
        return "ran"

    chat = conversation(gardener, new_id(), store=store, approve="changes", catalogue=garden / "rec")
    with pytest.raises(Waiting):
        chat("Write x.md.")
    assert turns(chat)[-1].approve(by="ana") == "ran"
    assert log_lines(garden / "logs" / "tools.log") == ["write_note"]


def test_approve_set_for_one_turn(garden: Path, store: str) -> None:
    chat = chat_in(garden, store, new_id(), approve="changes")
    assert chat("Note f", approve=lambda a: True) == "Wrote f.md: ok"
    with pytest.raises(Waiting):
        chat("Note g")
    assert [repr(a) for a in turns(chat)[-1].waiting] == ["Approval(gardener/write_note #2, changes)"]
