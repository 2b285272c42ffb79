"""`Agent`: compiled on this machine from agent.yaml or from Python values; its catalogue,
rulebook, facts, graph and context."""

from __future__ import annotations

from pathlib import Path

from stalwart_agents import Agent, Client


REFUND = {"order_id": "4411", "amount": 40.00}
TYPED = {"order_id": "typed", "amount": "typed"}


def test_from_file_gives_the_catalogue_the_rulebook_and_the_graph(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml")
    assert desk.verified is True
    assert desk.report["gate"] == "passed"
    assert [f["rule"] for f in desk.report["findings"]] == ["QG023", "QG105"]
    catalogue = desk.catalogue()
    assert list(catalogue) == ["charge_card", "get_order", "read_inbox", "refund_card", "send_receipt"]
    assert "refund_card" in catalogue and len(catalogue) == 5
    assert catalogue.agents["billing"] == ["refund_card"]
    assert desk.rules().governs == ["refund_card"]
    assert desk.rules().record == desk.record
    assert desk.facts == {}
    graph = desk.export()
    assert graph["format"] == "qls-graph/1"
    assert {n["id"] for n in graph["nodes"]} >= {"turn", "desk_model", "tool:refund_card", "end"}


def test_agent_from_values_reads_facts_from_the_tools_answers(shop: Path) -> None:
    agent = Agent(
        agents={"billing": {"privilege": "high", "tools": ["get_order", "refund_card"]}},
        tools=[{"python": "shop.tools"}],
        rulebook="policy.co",
        facts={"order_paid": {"from": "get_order.status == paid", "same": "order_id"}},
    )
    assert agent.facts == {"order_paid": {
        "from": "get_order.status == paid", "tool": "get_order", "field": "status", "equals": "paid",
        "same": "order_id"}}
    with Client() as client:
        billing = client.session("billing", catalogue=agent.catalogue())
        billing.read("refund order 4411 40.00")
        before = billing.check_tool_call("refund_card", REFUND, origins=TYPED)
        assert (before.decision, before.reasons, before.detail["flow"]) == ("refuse", ["refuse"], "refunds")
        # The rulebook's `bot refuse`, under the `else` of `if $order_paid`.
        assert (before.detail["source"], before.detail["condition_source"]) == ("policy.co:10:5", "policy.co:7:6")
        looked = billing.check_tool_call("get_order", {"order_id": "4411"}, origins={"order_id": "typed"})
        billing.report(looked.step, "ran", result={"order_id": "4411", "status": "paid", "card": "visa", "total": 40.0})
        after = billing.check_tool_call("refund_card", REFUND, origins=TYPED)
        assert (after.decision, after.reasons) == ("confirm", ["write"])
        # `same: order_id`: the answer about 4411 says nothing about another order.
        other = billing.check_tool_call("refund_card", {"order_id": "9999", "amount": 40.0},
                                        origins={"order_id": "model", "amount": "typed"})
        assert (other.decision, other.reasons) == ("refuse", ["refuse"])


def test_the_agents_context_is_a_function_of_the_user_called_at_each_check(shop: Path) -> None:
    paid_for = {"ana"}
    desk = Agent.from_file("agent.yaml", context=lambda user: {"order_paid": user in paid_for}, verify=False)
    with Client() as client:
        ana = client.session("billing", catalogue=desk.catalogue(), user="ana")
        bob = client.session("billing", catalogue=desk.catalogue(), user="bob")
        for session in (ana, bob):
            session.read("refund order 4411 40.00")
        assert ana.check_tool_call("refund_card", REFUND, origins=TYPED).decision == "confirm"
        assert bob.check_tool_call("refund_card", REFUND, origins=TYPED).decision == "refuse"
        paid_for.add("bob")
        assert bob.check_tool_call("refund_card", REFUND, origins=TYPED).decision == "confirm"
        # The call's own context is laid over the agent's.
        check = ana.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": False})
        assert check.decision == "refuse"


def test_the_intent_of_a_turn_holds_until_the_next_turn(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        plan = billing.read("refund order 4411 40.00")
        assert (plan.kind, plan.intent, billing.intent) == ("confirm", "ask refund", "ask refund")
        check = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
        assert (check.decision, check.reasons) == ("confirm", ["write"])
        # A turn nothing reads leaves no intent: the rulebook's gate then finds no flow.
        plan = billing.read("and the other one?")
        assert (plan.kind, plan.on_unread, plan.intent, plan.record_as) == ("unread", "ask_again", None, "read")
        assert plan.question is not None
        assert billing.intent is None
        check = billing.check_tool_call("refund_card", REFUND, origins=TYPED, context={"order_paid": True})
        assert (check.decision, check.reasons, check.detail["flows"]) == ("refuse", ["no_flow"], ["refunds"])
        # Said again, the turn is the answer to the request to say it again (a reply); an
        # intent given with a turn stands over the plan's.
        plan = billing.read("refund order 4411 40.00", intent="ask refund")
        assert (plan.intent, plan.record_as, billing.intent) == ("ask refund", "reply", "ask refund")
        assert [e["kind"] for e in billing.history.entries][-1] == "reply"
        plan = billing.read("refund order 4411 40.00", intent="something else")
        assert (plan.intent, billing.intent) == ("ask refund", "something else")


def test_a_check_reads_as_the_command_line_prints_it(shop: Path) -> None:
    desk = Agent.from_file("agent.yaml", verify=False)
    with Client() as client:
        billing = client.session("billing", catalogue=desk.catalogue())
        billing.read("refund order 4411 40.00")
        check = billing.check_tool_call("refund_card", REFUND, origins={"order_id": "typed", "amount": "model"},
                                        context={"order_paid": True})
        as_dict = check.to_dict()
        assert list(as_dict) == ["decision", "reasons", "detail", "confirmation", "idempotency_key"]
        assert as_dict["decision"] == "confirm" and as_dict["reasons"] == ["argument_origin"]
        assert list(as_dict["detail"]) == ["arguments", "question", "source"]
        assert as_dict["detail"]["arguments"] == ["amount"]
        # Where the answer was decided: the tool's `effects=` in its decorator.
        assert check.detail["source"] == as_dict["detail"]["source"] == "shop/tools.py:64:7"
        assert check.confirmation is not None and check.idempotency_key is None
        assert repr(check) == "<Check confirm ['argument_origin']>"
