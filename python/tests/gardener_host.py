"""The gardener of spec/tools-that-ask-first.txt as a Python host of a conversation, importable and
runnable as its own process (so a test can answer a turn in one process and finish it in
another, and kill a process while a tool runs).

The model is a counting fake: a function of its request (the input and the results so far), so
a resumed program asks the same requests, and each request it is paid for adds a line to
`model.log`. Each tool run adds a line to `tools.log`; `notes/` holds the notes. A tool told to
hang makes the file `hanging` once it has run, then sleeps until the process is killed.

    python gardener_host.py start|approve|deny|resume|abandon --store URL --record DIR --logs DIR
        --conversation ID [--approve changes|all|yes|NAMES] [--input TEXT] [--hang TOOL]
        [--by WHO] [--reason TEXT] [--result N=TEXT] [--rerun N]

prints one JSON line: `{"answer": …}`, `{"waiting": [approvals]}`, `{"interrupted": [calls]}` or
`{"error": kind, "message": …}`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from stalwart_agents import ApprovalError, Interrupted, Waiting, conversation, turns

AGENT_YAML = """
agents:
  gardener:
    tools: [read_note, write_note, send_email]
tools:
  - name: read_note
    description: The text of one note.
    effects: reads
    arguments: {type: object, properties: {name: {type: string}}}
  - name: write_note
    description: Replace a note's text.
    effects: changes
    arguments: {type: object, properties: {name: {type: string}, text: {type: string}}}
  - name: send_email
    description: Send a text to a person.
    effects: changes
    sends_out: true
    arguments: {type: object, properties: {to: {type: string}, text: {type: string}}}
"""


def log_line(path: Path, line: str) -> None:
    with open(path, "a") as f:
        f.write(line + "\n")


def log_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def model_reply(request: dict[str, Any]) -> dict[str, Any]:
    """The scripted model: `Merge A into B.` reads both notes, writes B with both texts, then
    answers; `Send …` sends an email and answers with its result; `Note N` reads and writes
    `N.md` and answers with the write's result."""
    text: str = request["input"]
    results: list[dict[str, Any]] = request["results"]
    if text.startswith("Merge "):
        source, into = text[len("Merge "):].rstrip(".").split(" into ")
        if not results:
            return {"calls": [{"tool": "read_note", "arguments": {"name": source}},
                              {"tool": "read_note", "arguments": {"name": into}}]}
        if len(results) == 2:
            return {"calls": [{"tool": "write_note",
                               "arguments": {"name": into, "text": results[1]["text"] + results[0]["text"]}}]}
        last = results[2]["text"]
        return {"answer": f"Merged {source} into {into}." if last == "ok" else f"I left {into} as it was: {last}"}
    if text.startswith("Send "):
        if not results:
            return {"calls": [{"tool": "send_email", "arguments": {"to": "ana", "text": "the summary"}}]}
        return {"answer": f"Sent the summary: {results[0]['text']}"}
    if text.startswith("Note "):
        name = text[len("Note "):] + ".md"
        if not results:
            return {"calls": [{"tool": "read_note", "arguments": {"name": name}}]}
        if len(results) == 1:
            return {"calls": [{"tool": "write_note", "arguments": {"name": name, "text": f"note {name}"}}]}
        return {"answer": f"Wrote {name}: {results[1]['text']}"}
    return {"answer": "I do not know how to do that."}


class Gardener:
    """The gardener's host: its model, its tools, and the turn's program (`gardener`)."""

    def __init__(self, logs: Path, hang: str | None = None) -> None:
        self.logs = logs
        self.hang = hang
        (logs / "notes").mkdir(parents=True, exist_ok=True)

    def model(self, request: dict[str, Any]) -> dict[str, Any]:
        log_line(self.logs / "model.log", f"request {len(request['results'])}")
        return model_reply(request)

    def _ran(self, tool: str) -> None:
        log_line(self.logs / "tools.log", tool)
        if self.hang == tool:
            (self.logs / "hanging").write_text(tool)
            while True:
                time.sleep(60)

    def read_note(self, name: str) -> str:
        self._ran("read_note")
        path = self.logs / "notes" / name
        return path.read_text() if path.exists() else ""

    def write_note(self, name: str, text: str) -> str:
        (self.logs / "notes" / name).write_text(text)
        self._ran("write_note")
        return "ok"

    def send_email(self, to: str, text: str) -> str:
        self._ran("send_email")
        return "sent"

    def gardener(self, turn: Any) -> str:
        """Tend the notes: ask the model, run the calls it asks for, until it answers."""
        results: list[dict[str, Any]] = []
        while True:
            reply = turn.model({"system": "Tend the notes.", "input": turn.input, "results": results}, self.model)
            if "answer" in reply:
                return str(reply["answer"])
            for call in reply["calls"]:
                done = turn.tool(getattr(self, call["tool"]), call["arguments"])
                results.append({"tool": call["tool"], "invocation": done.invocation, "text": done.text})


def approve_setting(text: str) -> Any:
    if text == "yes":
        return lambda approval: True
    if text in ("changes", "all"):
        return text
    return text.split(",")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["start", "approve", "deny", "resume", "abandon"])
    for flag in ("--store", "--record", "--logs", "--conversation"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--approve", default="changes")
    parser.add_argument("--input", default="")
    parser.add_argument("--hang")
    parser.add_argument("--by")
    parser.add_argument("--reason")
    parser.add_argument("--result", action="append", default=[])
    parser.add_argument("--rerun", action="append", type=int, default=[])
    args = parser.parse_args(argv)
    host = Gardener(Path(args.logs), hang=args.hang)
    chat = conversation(host.gardener, args.conversation, store=args.store, approve=approve_setting(args.approve),
                        catalogue=args.record)
    try:
        if args.command == "start":
            answer = chat(args.input)
        else:
            t = turns(chat)[-1]
            if args.command == "approve":
                answer = t.approve(by=args.by)
            elif args.command == "deny":
                answer = t.deny(reason=args.reason, by=args.by)
            elif args.command == "abandon":
                t.abandon(by=args.by)
                answer = None
            else:
                results = {int(n): v for n, v in (r.split("=", 1) for r in args.result)}
                answer = t.resume(results=results or None, rerun=args.rerun or None, by=args.by)
        print(json.dumps({"answer": answer}))
    except Waiting as e:
        print(json.dumps({"waiting": [repr(a) for a in e.approvals]}))
    except Interrupted as e:
        print(json.dumps({"interrupted": [u.invocation for u in e.unfinished]}))
    except ApprovalError as e:
        print(json.dumps({"error": e.code, "message": str(e)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
