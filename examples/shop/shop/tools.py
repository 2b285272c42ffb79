"""The shop's five tools.

Stalwart reads this module statically: the `@tool(...)` keyword arguments are each tool's
declaration, the type hints its argument schema and the docstring its description.
"""

from typing import Optional, TypedDict

from stalwart_agents import tool

# The shop's state, in memory: an example, not a payment system.
ORDERS: dict = {"4411": {"order_id": "4411", "status": "paid", "card": "visa-4242", "total": 40.0}}
INBOX: list = []
LEDGER: list = []
OUTBOX: list = []


class Order(TypedDict):
    order_id: str
    status: str
    card: Optional[str]
    total: float


class Inbox(TypedDict):
    messages: list


@tool(effects="reads")
def get_order(order_id: str) -> Order:
    """Look up an order: its status, the card on file and its total."""
    return ORDERS[order_id]


@tool(effects="reads", reads_outside=True)
def read_inbox() -> Inbox:
    """Read the shop's inbox; what it returns was written by anyone."""
    return {"messages": list(INBOX)}


@tool(
    effects="changes",
    after=[{"tool": "get_order", "bind": {"order_id": "order_id"}}],
    at_most=1,
    undo={"tool": "refund_card", "bind": {"order_id": "order_id", "amount": "amount"}},
)
def charge_card(order_id: str, amount: float):
    """Charge the card on file for an order."""
    LEDGER.append(("charge", order_id, amount))


@tool(
    effects="changes",
    sends_out=True,
    irreversible=True,
    idempotency={"key": "order_id"},
    after=[{"tool": "charge_card", "bind": {"order_id": "order_id"}}],
)
def send_receipt(order_id: str, to: str):
    """Send the receipt for a charged order to an address."""
    OUTBOX.append((to, f"Receipt for order {order_id}"))


@tool(effects="changes")
def refund_card(order_id: str, amount: float):
    """Refund an amount of an order to the card it was paid with."""
    LEDGER.append(("refund", order_id, amount))
