"""Writes the labelled turn sets of the selector: shop-en.tsv (examples/shop) and
shop-pt-br.tsv (examples/shop-ptbr). Each line: agent, expected kind, expected tool (or tools,
`a|b`), expected arguments (JSON, for tool steps and confirms), the turn. The phrasings are
written by hand; this script only fills in the order numbers, amounts and addresses, so the
set is the same every time it is run (`python3 make_sets.py`)."""

import json

IDS = ["4411", "1002", "7719", "5530"]
EN_AMOUNTS = [("40.00", 40.0), ("25.50", 25.5), ("1,234.56", 1234.56), ("$12", 12.0)]
PT_AMOUNTS = [("40,00", 40.0), ("25,50", 25.5), ("1.234,56", 1234.56), ("R$ 12", 12.0)]
EMAILS = ["ann@example.com", "joe.silva@example.org", "billing@shop.example", "ana@exemplo.com.br"]


def rows_for(agent, kind, tool, phrasings, with_amount=False, with_email=False, amounts=None, n=4):
    out = []
    for p_i, p in enumerate(phrasings):
        for k in range(n):
            i = (p_i + k) % len(IDS)
            oid = IDS[i]
            args = {}
            text = p
            if "{id}" in p:
                text = text.replace("{id}", oid)
                args["order_id"] = oid
            if with_amount and "{amt}" in p:
                written, value = amounts[(p_i + 2 * k) % len(amounts)]
                text = text.replace("{amt}", written)
                args["amount"] = value
            if with_email and "{email}" in p:
                email = EMAILS[(p_i + k) % len(EMAILS)]
                text = text.replace("{email}", email)
                args["to"] = email
            out.append((agent, kind, tool, args if kind in ("tool_step", "confirm") else {}, text))
            if "{" not in p:
                break
    return out


def en():
    r = []
    r += rows_for("desk", "tool_step", "get_order", [
        "show me order {id}", "what's the status of order {id}?", "look up order {id}",
        "can you check order {id} for me", "where is my order {id}?", "order {id} status please",
        "I'd like to see order #{id}", "pull up order number {id}", "track order {id}",
        "details for order {id}", "find order {id}", "get order {id}", "has order {id} shipped?",
        "shwo me order {id}", "pls look up order {id} thx", "Order {id}?",
        "could you tell me about order {id}", "check on order no. {id}", "open order {id}",
        "what's going on with order {id}",
        "status of order {id}", "lookup order {id} please", "is order {id} paid?",
        "I want to check order {id}", "view order {id}", "see order {id}", "info on order {id}",
        "can I see the details of order #{id}?", "order {id}",
    ], n=4)
    r += rows_for("desk", "tool_step", "read_inbox", [
        "check my inbox", "read the inbox", "any new messages?", "show me the messages",
        "what's in the inbox", "open the mailbox", "read my messages please",
        "check the shop's inbox", "inbox please", "could you read the inbox for me",
        "look at the messages", "see if there are new messages in the inbox",
    ], n=1)
    r += rows_for("desk", "confirm", "charge_card", [
        "charge order {id} {amt}", "charge {amt} to order {id}", "bill order {id} for {amt}",
        "please charge the card on order {id} {amt}", "take payment of {amt} for order {id}",
        "debit {amt} from the card for order {id}", "chrage order {id} {amt}",
        "charge the customer {amt} for order {id}",
    ], with_amount=True, amounts=EN_AMOUNTS, n=4)
    r += rows_for("desk", "confirm", "send_receipt", [
        "send the receipt for order {id} to {email}", "email the receipt of order {id} to {email}",
        "forward the receipt for order {id} to {email}", "please send a receipt for order {id} to {email}",
        "send order {id}'s receipt to {email}", "mail the receipt of order {id} to {email} please",
    ], with_email=True, n=4)
    r += rows_for("billing", "confirm", "refund_card", [
        "refund order {id} {amt}", "refund {amt} on order {id}", "please refund {amt} for order {id}",
        "give the customer their money back for order {id}, {amt}",
        "I want my money back: order {id}, {amt}", "reimburse order {id} {amt}",
        "refnd order {id} {amt}", "issue a refund of {amt} for order {id}",
        "refund the card for order {id}: {amt}", "can you refund order #{id} {amt}?",
    ], with_amount=True, amounts=EN_AMOUNTS, n=4)
    r += rows_for("billing", "ask", "refund_card", [
        "refund order {id}", "I want a refund for order {id}", "refund {amt}", "I want my money back",
        "give the customer their money back", "please refund the customer",
    ], with_amount=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "charge_card", ["charge order {id}", "charge {amt}", "bill order {id}"],
                  with_amount=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "send_receipt", [
        "send the receipt for order {id}", "email the receipt to {email}", "send a receipt",
    ], with_email=True, n=2)
    r += rows_for("desk", "ask", "get_order", ["show me my order", "what's the status of my order?"], n=1)
    r += rows_for("desk", "ask", "charge_card|send_receipt", [
        "charge order {id} {amt} and send the receipt to {email}",
        "send the receipt to {email} and charge order {id} {amt}",
        "charge {amt} on order {id} then email the receipt to {email}",
    ], with_amount=True, with_email=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "get_order|charge_card", [
        "look up order {id} and then charge it {amt}",
    ], with_amount=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("desk", "declined", "compute", [
        "what is 15% of {amt}", "calculate the total of orders {id} and 1002", "how much is 40 plus 2",
        "add up 10, 20 and 30", "what's the average of 10 and 20", "what is 40 * 3",
    ], with_amount=True, amounts=EN_AMOUNTS, n=1)
    r += rows_for("billing", "declined", "compute", ["refund half of order {id}", "refund 10% of order {id}"], n=2)
    r += rows_for("desk", "declined", "unknown_tool", [
        "refund order {id} {amt}", "please refund order {id}", "I want my money back for order {id}",
    ], with_amount=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("billing", "declined", "unknown_tool", ["show me order {id}", "check my inbox"], n=1)
    r += rows_for("desk", "unread", "", [
        "what's the weather today", "tell me a joke", "who won the game last night", "hello",
        "thanks!", "can you help me?", "I love this shop", "asdfgh", "what time do you open?",
        "do you sell shoes?", "don't refund order {id}", "never charge order {id}",
        "how do refunds work?", "why was I charged twice?", "cancel order {id}",
        "change the address on order {id}", "delete order {id}", "rembourser la commande {id}",
        "ich möchte eine Rückerstattung für Bestellung {id}", "reembolsar el pedido {id}",
        "quiero mi dinero", "rimborso ordine {id}", "返金してください", "Верните деньги за заказ {id}",
        "reembolsar o pedido {id} 40,00", "mostre o pedido {id}", "", "???", "ok",
        "what do you think about politics", "write me a poem", "translate this into French",
        "I need to reset my password", "book a table for two", "is it going to rain tomorrow?",
        "my cat is sick", "sing me a song", "who are you?", "open the pod bay doors",
        "4411", "the receipt", "money", "good morning", "bye", "lol",
        "what can you do?", "are you a robot?", "I'm not happy", "call me back",
        "the package never arrived", "please hurry", "yes",
    ], n=1)
    r += rows_for("billing", "unread", "", [
        "what's the weather today", "tell me a joke", "hello there", "don't refund order {id}",
        "how do refunds work?", "reembolso del pedido {id}", "por favor, reembolso del pedido {id}",
        "cancel my subscription", "I was charged twice, why?",
    ], n=1)
    # Turns that tell what happened, undo something, or hold two values for one argument.
    r += rows_for("desk", "unread", "", [
        "what was I charged for order {id}, 10.00?", "order {id} was charged 10.00 by mistake",
        "reverse the charge for order {id} 10.00", "you charged order {id} 10.00 twice",
        "undo the charge on order {id}",
    ], n=1)
    r += rows_for("billing", "unread", "", ["should I refund order {id} 40.00?"], n=1)
    r += rows_for("billing", "confirm", "refund_card", [
        "order {id} was charged {amt} by mistake, refund it",
    ], with_amount=True, amounts=EN_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "get_order", ["check order {id} and 5530"], n=1)
    r += rows_for("desk", "ask", "send_receipt", [
        "send the receipt for order {id} to ann@example.com and bob@example.com",
    ], n=1)
    return r


def pt():
    r = []
    r += rows_for("desk", "tool_step", "get_order", [
        "mostre o pedido {id}", "qual a situação do pedido {id}?", "consulte o pedido {id}",
        "pode verificar o pedido {id} pra mim", "cadê meu pedido {id}?", "status do pedido {id} por favor",
        "quero ver o pedido nº {id}", "rastreie o pedido {id}", "detalhes do pedido {id}",
        "busque o pedido {id}", "o pedido {id} já foi enviado?", "mostra o pedido numero {id}",
        "consultar pedido {id}", "mostre o pedio {id}", "me passa o pedido {id}",
        "como está o andamento do pedido {id}?", "Pedido {id}?", "quero saber do pedido {id}",
        "verifica o pedido {id} ai", "situacao do pedido {id}",
        "ver pedido {id}", "checar o pedido {id}", "o pedido {id} está pago?", "informações do pedido {id}",
        "consulta o pedido nº {id} por favor", "acompanhar pedido {id}", "verificar pedido {id}",
        "quero consultar o pedido {id}", "pedido {id}",
    ], n=4)
    r += rows_for("desk", "tool_step", "read_inbox", [
        "verifique a caixa de entrada", "leia as mensagens", "tem mensagens novas?",
        "mostre as mensagens", "o que tem na caixa de entrada", "abra a caixa de entrada",
        "leia meus e-mails", "confira o inbox", "caixa de entrada por favor",
        "pode ler a caixa de entrada pra mim", "olhe as mensagens", "veja se chegou mensagem nova",
    ], n=1)
    r += rows_for("desk", "confirm", "charge_card", [
        "cobre {amt} no pedido {id}", "cobrar o pedido {id} em {amt}", "debite {amt} do cartão do pedido {id}",
        "faça a cobrança de {amt} no pedido {id}", "pode cobrar {amt} do pedido {id}",
        "cobra {amt} do pedido {id} no cartao", "cobrar pedido {id} valor {amt}", "cobre o cliente em {amt} pelo pedido {id}",
    ], with_amount=True, amounts=PT_AMOUNTS, n=4)
    r += rows_for("desk", "confirm", "send_receipt", [
        "envie o recibo do pedido {id} para {email}", "mande o comprovante do pedido {id} para {email}",
        "encaminhe o recibo do pedido {id} para {email}", "manda o recibo do pedido {id} pro {email}",
        "envia o comprovante do pedido {id} para o email {email}", "reenvie o recibo do pedido {id} para {email}",
    ], with_email=True, n=3)
    r += rows_for("billing", "confirm", "refund_card", [
        "reembolsar o pedido {id} {amt}", "reembolse {amt} do pedido {id}",
        "quero a devolução do pedido {id}, {amt}", "faça o estorno de {amt} do pedido {id}",
        "devolva o dinheiro do cliente, pedido {id}, {amt}", "quero meu dinheiro de volta: pedido {id}, {amt}",
        "devolucao do pedido {id} valor {amt}", "estorne {amt} no pedido {id}",
        "reembolço do pedido {id} {amt}", "pode reembolsar o pedido {id}? {amt}",
    ], with_amount=True, amounts=PT_AMOUNTS, n=4)
    r += rows_for("billing", "ask", "refund_card", [
        "reembolsar o pedido {id}", "quero um reembolso do pedido {id}", "reembolse {amt}",
        "quero meu dinheiro de volta", "devolva o dinheiro do cliente", "faça o estorno pro cliente",
    ], with_amount=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "charge_card", ["cobre o pedido {id}", "cobre {amt}", "faça a cobrança do pedido {id}"],
                  with_amount=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "send_receipt", [
        "envie o recibo do pedido {id}", "mande o recibo para {email}", "envie um comprovante",
    ], with_email=True, n=2)
    r += rows_for("desk", "ask", "get_order", ["mostre meu pedido", "qual a situação do meu pedido?"], n=1)
    r += rows_for("desk", "ask", "charge_card|send_receipt", [
        "cobre {amt} no pedido {id} e envie o recibo para {email}",
        "envie o recibo para {email} e cobre o pedido {id} {amt}",
        "cobre {amt} no pedido {id} depois mande o recibo para {email}",
    ], with_amount=True, with_email=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "get_order|charge_card", [
        "consulte o pedido {id} e depois cobre {amt}",
    ], with_amount=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("desk", "declined", "compute", [
        "quanto é 10% de {amt}", "calcule o total dos pedidos {id} e 1002", "quanto dá 40 mais 2",
        "some 10, 20 e 30", "qual a média de 10 e 20", "quanto é 40 x 3",
    ], with_amount=True, amounts=PT_AMOUNTS, n=1)
    r += rows_for("billing", "declined", "compute", ["reembolse metade do pedido {id}", "reembolse 10% do pedido {id}"], n=2)
    r += rows_for("desk", "declined", "unknown_tool", [
        "reembolsar o pedido {id} {amt}", "por favor reembolse o pedido {id}", "quero meu dinheiro de volta do pedido {id}",
    ], with_amount=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("billing", "declined", "unknown_tool", ["mostre o pedido {id}", "verifique a caixa de entrada"], n=1)
    r += rows_for("desk", "unread", "", [
        "qual a previsão do tempo hoje", "me conta uma piada", "quem ganhou o jogo ontem", "oi",
        "obrigado!", "você pode me ajudar?", "adoro essa loja", "asdfgh", "que horas vocês abrem?",
        "vocês vendem sapatos?", "não reembolse o pedido {id}", "nunca cobre o pedido {id}",
        "como funciona o reembolso?", "por que fui cobrado duas vezes?", "cancele o pedido {id}",
        "mude o endereço do pedido {id}", "apague o pedido {id}", "rembourser la commande {id}",
        "ich möchte eine Rückerstattung für Bestellung {id}", "quiero un reembolso del pedido {id}",
        "necesito mi dinero", "rimborso ordine {id}", "返金してください", "Верните деньги за заказ {id}",
        "refund order {id} 40.00", "show me order {id}", "", "???", "ok",
        "o que você acha de política", "escreva um poema", "traduza isso para o inglês",
        "preciso redefinir minha senha", "reserve uma mesa para dois", "vai chover amanhã?",
        "meu gato está doente", "canta uma música", "quem é você?", "faz um pix de 50 reais",
        "4411", "o recibo", "dinheiro", "bom dia", "tchau", "kkkk",
        "o que você faz?", "você é um robô?", "não estou satisfeito", "me liga depois",
        "o pacote nunca chegou", "anda logo", "sim",
    ], n=1)
    r += rows_for("billing", "unread", "", [
        "qual a previsão do tempo hoje", "me conta uma piada", "olá", "não reembolse o pedido {id}",
        "como funciona o reembolso?", "refund order {id} 40.00 please", "quiero la devolución del pedido {id}",
        "cancele minha assinatura", "fui cobrado duas vezes, por quê?",
    ], n=1)
    r += rows_for("desk", "unread", "", [
        "desfaça a cobrança do pedido {id} 10,00", "reverta a cobrança do pedido {id}",
        "o pedido {id} foi cobrado 10,00 por engano", "já enviei o recibo do pedido {id} para a@b.co",
        "você cobrou o pedido {id} duas vezes, 10,00",
    ], n=1)
    r += rows_for("billing", "unread", "", ["devo reembolsar o pedido {id} 40,00?"], n=1)
    r += rows_for("billing", "confirm", "refund_card", [
        "o pedido {id} foi cobrado {amt} por engano, estorne",
    ], with_amount=True, amounts=PT_AMOUNTS, n=2)
    r += rows_for("desk", "ask", "get_order", ["verifique os pedidos {id} e 5530"], n=1)
    r += rows_for("desk", "ask", "send_receipt", [
        "envie o recibo do pedido {id} para ana@exemplo.com e bia@exemplo.com",
    ], n=1)
    return r


def write(name, rows):
    with open(name, "w", encoding="utf-8") as f:
        f.write("# agent\tkind\ttool\targuments\tturn  (written by make_sets.py)\n")
        for agent, kind, tool, args, text in rows:
            f.write(f"{agent}\t{kind}\t{tool}\t{json.dumps(args, ensure_ascii=False)}\t{text}\n")
    print(name, len(rows))


write("shop-en.tsv", en())
write("shop-pt-br.tsv", pt())
