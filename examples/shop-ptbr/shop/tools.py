"""As cinco ferramentas da loja.

O Stalwart lê este módulo sem executá-lo: os argumentos nomeados de `@tool(...)` são a
declaração de cada ferramenta, as anotações de tipo o esquema dos argumentos e a docstring a
descrição.
"""

from typing import Optional, TypedDict

from stalwart_agents import tool

# O estado da loja, em memória: um exemplo, não um sistema de pagamentos.
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
    """Consulta um pedido: a situação, o cartão cadastrado e o total."""
    return ORDERS[order_id]


@tool(effects="reads", reads_outside=True)
def read_inbox() -> Inbox:
    """Lê a caixa de entrada da loja; o que ela traz foi escrito por qualquer pessoa."""
    return {"messages": list(INBOX)}


@tool(
    effects="changes",
    after=[{"tool": "get_order", "bind": {"order_id": "order_id"}}],
    at_most=1,
    undo={"tool": "refund_card", "bind": {"order_id": "order_id", "amount": "amount"}},
)
def charge_card(order_id: str, amount: float):
    """Cobra um valor no cartão cadastrado de um pedido."""
    LEDGER.append(("charge", order_id, amount))


@tool(
    effects="changes",
    sends_out=True,
    irreversible=True,
    idempotency={"key": "order_id"},
    after=[{"tool": "charge_card", "bind": {"order_id": "order_id"}}],
)
def send_receipt(order_id: str, to: str):
    """Envia o recibo de um pedido cobrado para um endereço."""
    OUTBOX.append((to, f"Recibo do pedido {order_id}"))


@tool(effects="changes")
def refund_card(order_id: str, amount: float):
    """Reembolsa um valor de um pedido no cartão com que foi pago."""
    LEDGER.append(("refund", order_id, amount))
