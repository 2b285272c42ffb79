"""The errors the package raises, each with its exact message."""

from __future__ import annotations

from pathlib import Path

import pytest

from stalwart_agents import (
    Agent,
    Client,
    NotVerified,
    Record,
    RulebookNotHeld,
    SelectorUnavailableError,
    compile_agent,
)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


REFUND_TOOL = {
    "name": "refund_card",
    "effects": "changes",
    "arguments": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
        "required": ["order_id", "amount"],
    },
}


def test_a_rulebook_the_compiler_cannot_lower_is_not_held(tmp_path: Path) -> None:
    write(tmp_path, "policy.co", (
        "define user ask refund\n"
        "  \"refund order 4411\"\n"
        "\n"
        "define flow refunds\n"
        "  user ask refund\n"
        "  if $order_paid @@ 2\n"
        "    execute refund_card\n"
    ))
    with pytest.raises(RulebookNotHeld) as raised:
        Agent(agents={"billing": {"tools": ["refund_card"]}}, tools=[REFUND_TOOL],
              rulebook="policy.co", folder=tmp_path, verify=False)
    assert raised.value.reason == "rulebook_unsupported"
    assert raised.value.diagnostics.startswith("error[E0451[rulebook-unsupported]]: the gate cannot lower this: ")
    assert "policy.co:6:" in raised.value.diagnostics
    assert str(raised.value).startswith(
        "the rulebook was not compiled whole, so the agent does not run:\n"
    )


def test_a_rulebook_given_as_source_under_compiled_only_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "policy.co", (
        "define user ask refund\n"
        "  \"refund order 4411\"\n"
        "\n"
        "define flow refunds\n"
        "  user ask refund\n"
        "  execute refund_card\n"
    ))
    with pytest.raises(RulebookNotHeld) as raised:
        Agent(agents={"billing": {"tools": ["refund_card"]}}, tools=[REFUND_TOOL],
              rulebook="policy.co", settings={"compiled_only": True}, folder=tmp_path,
              verify=False)
    assert raised.value.reason == "policy_input_refused"
    assert str(raised.value) == (
        f"`{tmp_path / 'Agent(...)'}` sets `compiled_only: true`, so only a rulebook folder "
        "`stalwart rules compile` wrote is accepted, and the rulebook `policy.co` was given as "
        "source: the agent does not run"
    )


def test_a_finding_that_stops_the_agent_raises_not_verified(tmp_path: Path) -> None:
    run_python = {
        "name": "run_python",
        "effects": "reads",
        "arguments": {"type": "object", "properties": {"source": {"type": "string"}}},
        "argument_kinds": {"source": "code"},
    }
    agents = {"analyst": {"model": "anthropic:claude-sonnet-5-5", "tools": ["run_python"],
                          "budget": {"steps": 20}}}
    with pytest.raises(NotVerified) as raised:
        Agent(agents=agents, tools=[run_python], folder=tmp_path)
    assert [f["rule"] for f in raised.value.findings] == ["QG017"]
    assert raised.value.findings[0]["stops_agent"] is True
    assert raised.value.report["format"] == "stalwart-proof/1"
    assert str(raised.value).startswith(
        f"the proof of `{tmp_path / 'Agent(...)'}` does not let this agent run:\n  QG017 Model writes code that runs on run_python (Agent(...):"
    )
    # Without the proof the same agent compiles (and says it was not proved).
    agent = Agent(agents=agents, tools=[run_python], folder=tmp_path, verify=False)
    assert agent.verified is False


def test_bad_input_is_a_value_error_with_the_compilers_diagnostic(tmp_path: Path) -> None:
    write(tmp_path, "agent.yaml", "agents:\n  billing:\n    tols: [refund_card]\n")
    with pytest.raises(ValueError) as raised:
        Agent.from_file(tmp_path / "agent.yaml")
    text = str(raised.value)
    assert text.startswith("error[E")
    assert "unknown key `tols`" in text
    assert "agent.yaml:3:5" in text


def test_a_missing_agent_yaml_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        Agent.from_file(tmp_path / "nothing.yaml")
    assert str(raised.value) == f"`{tmp_path / 'nothing.yaml'}` does not exist"


def test_wrong_types_are_type_errors_naming_the_parameter(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        cases = [
            (lambda: billing.check_tool_call(42), "tool must be the tool's name as a string, not int"),
            (lambda: billing.check_tool_call("refund_card", ["4411"]),
             "args must be a dict of names to values, not list"),
            (lambda: billing.check_tool_call("refund_card", {}, origins={"amount": 1}),
             'origins["amount"] must be a string such as "typed" or "model", not int'),
            (lambda: billing.check_tool_call("refund_card", {}, labels={"call": "untrusted"}),
             'labels["call"] must be a list of strings, not str'),
            (lambda: billing.check_tool_call("refund_card", {}, context=["order_paid"]),
             "context must be a dict of names to values, not list"),
            (lambda: billing.check_tool_call("refund_card", {}, confirmation=7),
             "confirmation must be a string or None, not int"),
            (lambda: billing.check_tool_call("refund_card", {}, compensates="2"),
             "compensates must be the step number of the call it undoes (an int), not str"),
            (lambda: billing.check_tool_call("refund_card", {"amount": object()}),
             'args["amount"]: a object is not a JSON value (dict, list, str, int, float, bool or None)'),
            (lambda: billing.check_tool_call("refund_card", {1: "x"}), "args: keys must be strings, found int `1`"),
            (lambda: billing.read(b"refund"), "turn must be a string, not bytes"),
            (lambda: billing.report("1", "ran"), "step must be the call's step number (an int), not str"),
            (lambda: client.session(7), "agent must be the agent's name as a string, not int"),
            (lambda: client.session("billing", catalogue=3.5),
             "catalogue must be an Agent, its catalogue() or rules(), a Record or a record folder's path, not float"),
            (lambda: Agent.from_file("agent.yaml", verify="yes"), "verify must be True or False, not str"),
            (lambda: Agent(agents=["billing"]), "agents must be a mapping of agent names to agents, not list"),
        ]
        for call, message in cases:
            with pytest.raises(TypeError) as raised:
                call()
            assert str(raised.value) == message


def test_values_the_runtime_cannot_take_are_value_errors(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        with pytest.raises(ValueError) as raised:
            billing.check_tool_call("refund_card", {}, labels={"call": ["trusted"]})
        assert str(raised.value) == (
            "labels: unknown label `trusted`: a label is `untrusted`, `untrusted:<where>`, `low`, "
            "`medium`, `high` or `agent:<name>` with an agent of the record (billing, desk)"
        )
        with pytest.raises(ValueError) as raised:
            billing.check_tool_call("refund_card", {"amount": float("nan")})
        assert str(raised.value) == 'args["amount"]: NaN is not a number JSON can hold'
        with pytest.raises(ValueError) as raised:
            billing.report(1, "done")
        assert str(raised.value) == "unknown outcome `done`: one of ran, failed, outcome_unknown, compensated"
        with pytest.raises(ValueError) as raised:
            billing.report(9, "ran")
        assert str(raised.value) == "cannot report on call 9: the history has no call 9"
        with pytest.raises(ValueError) as raised:
            client.session("support", catalogue=desk.catalogue())
        assert str(raised.value) == "unknown agent `support`: the record has billing, desk"


def test_no_usable_key_means_the_runtime_cannot_answer(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    monkeypatch.setenv("STALWART_LICENCE", str(shop / "no-such-licence.json"))
    with Client() as client:
        with pytest.raises(SelectorUnavailableError) as raised:
            client.session("billing", catalogue=desk.catalogue())
    assert str(raised.value) == f"the licence: cannot read `{shop / 'no-such-licence.json'}`: No such file or directory (os error 2)"


def test_a_damaged_key_means_the_runtime_cannot_answer(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    licence = shop / "licence.json"
    licence.write_text("{\"id\": 3}")
    monkeypatch.setenv("STALWART_LICENCE", str(licence))
    with pytest.raises(SelectorUnavailableError) as raised:
        Client().session("billing", catalogue=desk.catalogue())
    assert str(raised.value).startswith(f"the licence `{licence}`: ")


def test_a_record_of_another_format_version_is_refused_naming_both(shop: Path) -> None:
    folder = Path(compile_agent("agent.yaml", "out"))
    data = bytearray((folder / "record.bin").read_bytes())
    data[8:12] = (9).to_bytes(4, "little")
    (folder / "record.bin").write_bytes(bytes(data))
    with pytest.raises(ValueError) as raised:
        Record.open(folder)
    assert str(raised.value) == (
        f"cannot use the record `{folder / 'record.bin'}`: unsupported record format version 9: "
        "this runtime reads version 4; compile the record again with a matching compiler"
    )


def test_a_missing_record_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        Record.open(tmp_path / "nowhere")
    assert str(raised.value) == (
        f"no record at `{tmp_path / 'nowhere'}`: compile one with `stalwart compile agent.yaml -o DIR` "
        "or `stalwart rules compile RULEBOOK -o DIR`"
    )


def test_a_session_with_nothing_to_find_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Client() as client:
        with pytest.raises(FileNotFoundError) as raised:
            client.session("billing")
    assert str(raised.value) == (
        f"no agent to open a session with: looked for $STALWART_AGENT (not set), then `agent.yaml` in "
        f"`{tmp_path}` (none), then the record folder `.stalwart/record` in `{tmp_path}` (none); pass "
        "catalogue= (an Agent's catalogue() or a Record), or set STALWART_AGENT"
    )
    monkeypatch.setenv("STALWART_AGENT", str(tmp_path / "gone.yaml"))
    with pytest.raises(FileNotFoundError) as raised:
        Client().session("billing")
    assert str(raised.value) == (
        f"$STALWART_AGENT names `{tmp_path / 'gone.yaml'}`, which does not exist: it names an "
        "agent.yaml or a record folder"
    )


def test_a_closed_client_ends_its_sessions(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
    with pytest.raises(ValueError) as raised:
        billing.read("refund order 4411")
    assert str(raised.value) == "the session's client is closed: open a new one"
    with pytest.raises(ValueError) as raised:
        client.session("billing", catalogue=desk.catalogue())
    assert str(raised.value) == "the client is closed: open a new one"


