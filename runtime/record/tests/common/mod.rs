//! Record bodies for the tests: a rich one with every field and enum variant populated, a small
//! one, and helpers to damage encoded bytes and to walk a loaded record.

#![allow(dead_code)]

use stalwart_record::*;

pub const COMPILER: &str = "stalwart 0.1.0";

/// A record body in which every field holds something and every enum variant occurs (apart from
/// the ones [`rich_body_alt`] swaps in: `RecordKind::Rulebook`, `TaintPolicy::Confirm`,
/// `Language::En`).
pub fn rich_body() -> RecordBody {
    RecordBody {
        kind: RecordKind::Agent,
        sources: vec![
            Source {
                path: "agent.yaml".into(),
                digest: "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262".into(),
            },
            Source {
                path: "rules/refunds.co".into(),
                digest: "d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24".into(),
            },
        ],
        tools: vec![get_order(), read_inbox(), refund(), undo_refund()],
        agents: vec![
            Agent {
                name: "support".into(),
                model: Some("gpt-4.1".into()),
                tools: vec![0, 1, 2, 3],
                hands_off_to: vec![1],
                privilege: Trust::High,
                on_unread: OnUnread::Refuse,
                language: None,
                budget_steps: Some(20),
                span: span(0, 10, 3),
            },
            Agent {
                name: "triage".into(),
                model: None,
                tools: vec![1],
                hands_off_to: vec![0, 2],
                privilege: Trust::Low,
                on_unread: OnUnread::Model,
                language: None,
                budget_steps: None,
                span: span(0, 30, 9),
            },
            Agent {
                name: "untrusted_reader".into(),
                model: None,
                tools: vec![],
                hands_off_to: vec![],
                privilege: Trust::Untrusted,
                on_unread: OnUnread::Ask,
                language: None,
                budget_steps: Some(1),
                span: span(0, 50, 14),
            },
            Agent {
                name: "writer".into(),
                model: Some("local".into()),
                tools: vec![2],
                hands_off_to: vec![3],
                privilege: Trust::Medium,
                on_unread: OnUnread::Answer,
                language: None,
                budget_steps: None,
                span: span(0, 70, 18),
            },
        ],
        settings: Settings {
            taint_policy: TaintPolicy::Refuse,
            confirmation_expiry_secs: 3_600,
            language: Language::PtBr,
            lapsed_refuses_all: true,
            compiled_only: true,
        },
        facts: vec![
            Fact {
                name: "order_paid".into(),
                tool: 0,
                field: "status".into(),
                equals: Some(3),
                same: Some("order_id".into()),
                span: span(0, 90, 22),
            },
            Fact {
                name: "order_known".into(),
                tool: 0,
                field: "order_id".into(),
                equals: None,
                same: None,
                span: span(0, 120, 23),
            },
        ],
        intents: vec!["refund".into(), "status".into()],
        budget_steps: Some(40),
        values: vec![
            Value::Null,
            Value::Bool(true),
            Value::Number(40.5),
            Value::String("paid".into()),
            Value::Array(vec![0, 1, 2, 3]),
            Value::Object(vec![("status".into(), 3), ("amount".into(), 2)]),
            Value::Number(-0.25),
        ],
        schema_nodes: schema_nodes(),
        expr_spans: (0..20).map(|i| span(1, 40 + i * 3, 4)).collect(),
        exprs: vec![
            Expr::Fact("order_paid".into()),
            Expr::Arg("amount".into()),
            Expr::Literal(2),
            Expr::Compare {
                op: CompareOp::Le,
                left: 1,
                right: 2,
            },
            Expr::Not(0),
            Expr::And(3, 4),
            Expr::Or(5, 0),
            Expr::Compare {
                op: CompareOp::Eq,
                left: 1,
                right: 2,
            },
            Expr::Compare {
                op: CompareOp::Ne,
                left: 1,
                right: 2,
            },
            Expr::Compare {
                op: CompareOp::Lt,
                left: 1,
                right: 2,
            },
            Expr::Compare {
                op: CompareOp::Gt,
                left: 1,
                right: 2,
            },
            Expr::Compare {
                op: CompareOp::Ge,
                left: 1,
                right: 2,
            },
            // 12…
            Expr::Member {
                base: 0,
                field: "is_blocked".into(),
            },
            Expr::List(vec![1, 2]),
            Expr::In {
                item: 1,
                collection: 13,
            },
            Expr::IsNone(0),
            Expr::Call {
                func: Func::Len,
                args: vec![13],
            },
            Expr::Method {
                method: StrMethod::StartsWith,
                receiver: 1,
                args: vec![2],
            },
            Expr::Result("get_order".into()),
            Expr::Unknown,
        ],
        selector: Selector {
            intents: vec![Intent {
                name: "ask refund".into(),
                examples: vec!["refund order 4411".into()],
                span: span(1, 0, 1),
            }],
            routes: vec![
                Route {
                    intent: Some(0),
                    flow: Some("refunds".into()),
                    target: RouteTarget::Tool(2),
                    conditional: true,
                },
                Route {
                    intent: Some(0),
                    flow: Some("refuse".into()),
                    target: RouteTarget::Say {
                        message: "refuse".into(),
                    },
                    conditional: false,
                },
                Route {
                    intent: None,
                    flow: None,
                    target: RouteTarget::Ask {
                        message: "ask which order".into(),
                        text: Some("Which order?".into()),
                    },
                    conditional: false,
                },
            ],
            readers: vec![Reader {
                language: Language::PtBr,
                terms: vec![
                    Term {
                        text: "@look".into(),
                        class: TermClass::Look,
                        postings: vec![],
                    },
                    Term {
                        text: "@refund".into(),
                        class: TermClass::Action,
                        postings: vec![Posting {
                            route: 0,
                            role: Role::Action,
                        }],
                    },
                    Term {
                        text: "@order".into(),
                        class: TermClass::Object,
                        postings: vec![
                            Posting {
                                route: 0,
                                role: Role::Name,
                            },
                            Posting {
                                route: 1,
                                role: Role::Object,
                            },
                        ],
                    },
                    Term {
                        text: "cliente".into(),
                        class: TermClass::Other,
                        postings: vec![Posting {
                            route: 2,
                            role: Role::Context,
                        }],
                    },
                ],
                words: vec![
                    Word {
                        text: "dois".into(),
                        kind: WordKind::Number(2),
                    },
                    Word {
                        text: "e".into(),
                        kind: WordKind::Then,
                    },
                    Word {
                        text: "mais".into(),
                        kind: WordKind::Operator,
                    },
                    Word {
                        text: "metade".into(),
                        kind: WordKind::Compute,
                    },
                    Word {
                        text: "nao".into(),
                        kind: WordKind::Negation,
                    },
                    Word {
                        text: "negativo".into(),
                        kind: WordKind::No,
                    },
                    Word {
                        text: "o".into(),
                        kind: WordKind::Stop,
                    },
                    Word {
                        text: "pedido".into(),
                        kind: WordKind::Term(2),
                    },
                    Word {
                        text: "por que".into(),
                        kind: WordKind::Question,
                    },
                    Word {
                        text: "reembolso".into(),
                        kind: WordKind::Term(1),
                    },
                    Word {
                        text: "sim".into(),
                        kind: WordKind::Yes,
                    },
                    Word {
                        text: "the".into(),
                        kind: WordKind::Foreign,
                    },
                ],
                phrases: vec![Word {
                    text: "dinheiro de volta".into(),
                    kind: WordKind::Term(1),
                }],
                stems: vec![StemEntry {
                    stem: "reembols".into(),
                    term: 1,
                }],
                near: vec![NearEntry {
                    key: "reembolo".into(),
                    word: 9,
                }],
                profiles: vec![
                    Profile {
                        examples: vec![vec![1, 2]],
                    },
                    Profile::default(),
                    Profile::default(),
                ],
            }],
        },
    }
}

/// [`rich_body`] with the enum variants it does not use.
pub fn rich_body_alt() -> RecordBody {
    let mut body = rich_body();
    body.kind = RecordKind::Rulebook;
    body.settings.taint_policy = TaintPolicy::Confirm;
    body.settings.language = Language::En;
    body
}

/// One tool with one schema and one value: a few hundred bytes encoded.
pub fn small_body() -> RecordBody {
    let mut tool = read_inbox();
    tool.arguments = Some(0);
    tool.span = span(0, 0, 1);
    tool.checks = vec![ArgumentCheck {
        argument: "folder".into(),
        op: CheckOp::Equals,
        operand: CheckOperand::Value(0),
    }];
    RecordBody {
        sources: vec![Source {
            path: "agent.yaml".into(),
            digest: "00".into(),
        }],
        tools: vec![tool],
        values: vec![Value::String("inbox".into())],
        schema_nodes: vec![SchemaNode {
            types: TypeSet::STRING,
            enum_values: vec![0],
            has_enum: true,
            ..SchemaNode::default()
        }],
        exprs: vec![Expr::Arg("folder".into())],
        ..RecordBody::default()
    }
}

pub fn span(source: u32, start: u32, line: u32) -> SourceSpan {
    SourceSpan {
        source,
        start,
        end: start + 7,
        line,
        col: 5,
    }
}

fn schema_nodes() -> Vec<SchemaNode> {
    vec![
        // 0: refund's arguments
        SchemaNode {
            span: span(0, 240, 32),
            keyword_spans: vec![
                ("type".into(), span(0, 250, 33)),
                ("required".into(), span(0, 270, 38)),
            ],
            types: TypeSet::OBJECT,
            properties: vec![
                ("order_id".into(), 1),
                ("amount".into(), 2),
                ("tags".into(), 3),
                ("note".into(), 4),
            ],
            required: vec!["order_id".into(), "amount".into()],
            additional: Additional::Deny,
            ..SchemaNode::default()
        },
        // 1: an order id
        SchemaNode {
            types: TypeSet::STRING,
            enum_values: vec![3],
            has_enum: true,
            min_length: Some(1),
            max_length: Some(64),
            pattern: Some("^o-[0-9]+$".into()),
            ..SchemaNode::default()
        },
        // 2: an amount
        SchemaNode {
            types: TypeSet::NUMBER | TypeSet::INTEGER,
            constant: Some(2),
            minimum: Some(0.0),
            maximum: Some(1_000.0),
            exclusive_minimum: Some(-1.0),
            exclusive_maximum: Some(1_000.5),
            ..SchemaNode::default()
        },
        // 3: tags
        SchemaNode {
            types: TypeSet::ARRAY,
            items: Some(1),
            min_items: Some(0),
            max_items: Some(10),
            ..SchemaNode::default()
        },
        // 4: an optional note
        SchemaNode {
            types: 0,
            any_of: vec![1, 5],
            additional: Additional::Schema(5),
            ..SchemaNode::default()
        },
        // 5: null
        SchemaNode {
            types: TypeSet::NULL | TypeSet::BOOLEAN,
            additional: Additional::Allow,
            ..SchemaNode::default()
        },
        // 6: get_order's result
        SchemaNode {
            types: TypeSet::OBJECT,
            properties: vec![("status".into(), 1), ("amount".into(), 2)],
            all_of: vec![7],
            one_of: vec![1, 5],
            reference: Some(6),
            property_names: Some(7),
            pattern_properties: vec![("^x-".into(), 5)],
            ..SchemaNode::default()
        },
        // 7: a date-time
        SchemaNode {
            types: TypeSet::STRING,
            format: Some(StringFormat::DateTime),
            ..SchemaNode::default()
        },
    ]
}

fn base_tool(name: &str) -> Tool {
    Tool {
        name: name.into(),
        description: format!("the {name} tool"),
        effects: Effects::Reads,
        arguments: None,
        argument_names: vec![],
        result: None,
        result_fields: vec![],
        sends_out: false,
        reads_outside: false,
        requires: None,
        after: vec![],
        not_after: vec![],
        at_most: None,
        undo: Undo::Unset,
        irreversible: false,
        idempotency: Idempotency::None,
        checks: vec![],
        spend: None,
        confidential: false,
        argument_kinds: vec![],
        source: None,
        retrieves_from: None,
        writes_to: None,
        schema_partial: false,
        schema_partial_keywords: vec![],
        gate: Gate::default(),
        span: span(0, 200, 30),
        spans: ToolSpans::default(),
    }
}

fn get_order() -> Tool {
    Tool {
        arguments: Some(0),
        argument_names: vec!["order_id".into()],
        result: Some(6),
        result_fields: vec!["status".into(), "amount".into()],
        not_after: vec![NotAfter::Untrusted],
        at_most: Some(AtMost {
            count: 3,
            per: None,
        }),
        idempotency: Idempotency::RetrySafe,
        argument_kinds: vec![("order_id".into(), ArgumentKind::Query)],
        source: Some(ToolSource {
            kind: ToolSourceKind::Mcp,
            name: "orders".into(),
            pin: None,
        }),
        retrieves_from: Some("orders".into()),
        ..base_tool("get_order")
    }
}

fn read_inbox() -> Tool {
    Tool {
        sends_out: true,
        reads_outside: true,
        requires: Some(Trust::Untrusted),
        undo: Undo::None,
        source: Some(ToolSource {
            kind: ToolSourceKind::Package,
            name: "mail-tools".into(),
            pin: Some("1.4.2".into()),
        }),
        span: span(1, 0, 1),
        ..base_tool("read_inbox")
    }
}

fn refund() -> Tool {
    let kinds = [
        ("code", ArgumentKind::Code),
        ("shell", ArgumentKind::Shell),
        ("sql", ArgumentKind::Sql),
        ("query", ArgumentKind::Query),
        ("path", ArgumentKind::Path),
        ("url", ArgumentKind::Url),
        ("template", ArgumentKind::Template),
    ];
    Tool {
        effects: Effects::Changes,
        arguments: Some(0),
        argument_names: vec![
            "order_id".into(),
            "amount".into(),
            "tags".into(),
            "note".into(),
        ],
        requires: Some(Trust::High),
        after: vec![After {
            tool: 0,
            bind: vec![("order_id".into(), "order_id".into())],
        }],
        not_after: vec![NotAfter::Tool(1), NotAfter::Untrusted],
        at_most: Some(AtMost {
            count: 1,
            per: Some(Period::Day),
        }),
        undo: Undo::Tool {
            tool: 3,
            bind: vec![("refund_id".into(), "id".into())],
        },
        idempotency: Idempotency::Key("order_id".into()),
        checks: vec![
            check("amount", CheckOp::AtMost, CheckOperand::Value(2)),
            check(
                "amount",
                CheckOp::AtLeast,
                CheckOperand::From {
                    tool: 0,
                    field: "amount".into(),
                },
            ),
            check("order_id", CheckOp::Equals, CheckOperand::Value(3)),
            check("tags", CheckOp::OneOf, CheckOperand::Value(4)),
        ],
        spend: Some(Spend {
            argument: "amount".into(),
            at_most: 500.0,
            per: Period::Week,
        }),
        confidential: true,
        argument_kinds: kinds.iter().map(|(n, k)| ((*n).into(), *k)).collect(),
        source: Some(ToolSource {
            kind: ToolSourceKind::Mcp,
            name: "payments".into(),
            pin: Some("sha256:0011".into()),
        }),
        writes_to: Some("payments".into()),
        schema_partial: true,
        schema_partial_keywords: vec!["oneOf".into(), "$ref".into()],
        spans: ToolSpans {
            effects: Some(span(0, 220, 31)),
            arguments: Some(span(0, 240, 32)),
            sends_out: None,
            requires: Some(span(0, 260, 40)),
            after: vec![span(0, 280, 41)],
            not_after: vec![span(0, 300, 42), span(0, 310, 42)],
            at_most: Some(span(0, 320, 43)),
            undo: Some(span(0, 340, 44)),
            irreversible: None,
            checks: vec![
                span(0, 360, 46),
                span(0, 380, 47),
                span(0, 400, 48),
                span(0, 420, 49),
            ],
            spend: Some(span(0, 440, 50)),
        },
        gate: Gate {
            governed: true,
            paths: vec![
                GatePath {
                    flow: "refunds".into(),
                    intent: Some("refund".into()),
                    condition: Some(6),
                    action: GateAction::Allow,
                    span: span(1, 40, 4),
                },
                GatePath {
                    flow: "refunds".into(),
                    intent: None,
                    condition: Some(4),
                    action: GateAction::Refuse {
                        message: "refuse unpaid".into(),
                    },
                    span: span(1, 80, 6),
                },
                GatePath {
                    flow: "refunds".into(),
                    intent: Some("refund".into()),
                    condition: None,
                    action: GateAction::Ask {
                        message: "ask amount".into(),
                    },
                    span: span(1, 120, 8),
                },
            ],
            flows: vec!["refunds".into()],
            default: Some(GateDefault::Refuse),
        },
        ..base_tool("refund")
    }
}

fn undo_refund() -> Tool {
    Tool {
        effects: Effects::Unknown,
        requires: Some(Trust::Medium),
        irreversible: true,
        at_most: Some(AtMost {
            count: 5,
            per: Some(Period::Hour),
        }),
        spend: Some(Spend {
            argument: "amount".into(),
            at_most: 10.0,
            per: Period::Month,
        }),
        gate: Gate {
            governed: true,
            paths: vec![],
            flows: vec!["refunds".into(), "undo".into()],
            default: Some(GateDefault::Allow),
        },
        ..base_tool("undo_refund")
    }
}

fn check(argument: &str, op: CheckOp, operand: CheckOperand) -> ArgumentCheck {
    ArgumentCheck {
        argument: argument.into(),
        op,
        operand,
    }
}

/// Writes a correct digest for the body into encoded `bytes` (after the body was changed).
pub fn reseal(bytes: &mut [u8]) {
    let digest = blake3::hash(&bytes[HEADER_LEN..]);
    bytes[48..80].copy_from_slice(digest.as_bytes());
}

/// Walks every part of a loaded record: formats the archived body, follows every arena index by
/// plain indexing (which panics on an index out of range), deserialises the body and encodes it
/// again. Returns the owned body.
pub fn walk(record: &Record) -> RecordBody {
    let body = record.body();
    let text = format!("{body:?}");
    assert!(text.starts_with("ArchivedRecordBody"));
    follow_indices(body);
    let owned = record.to_body().unwrap();
    let again = encode(&owned, COMPILER).unwrap();
    let reloaded = Record::from_bytes(&again).unwrap();
    assert_eq!(reloaded.to_body().unwrap(), owned);
    owned
}

fn follow_indices(body: &ArchivedRecordBody) {
    let tool = |i: &rkyv::rend::u32_le| &body.tools[i.to_native() as usize];
    let agent = |i: &rkyv::rend::u32_le| &body.agents[i.to_native() as usize];
    let value = |i: &rkyv::rend::u32_le| &body.values[i.to_native() as usize];
    let node = |i: &rkyv::rend::u32_le| &body.schema_nodes[i.to_native() as usize];
    let expr = |i: &rkyv::rend::u32_le| &body.exprs[i.to_native() as usize];
    let source = |s: &ArchivedSourceSpan| &body.sources[s.source.to_native() as usize];
    for t in body.tools.iter() {
        t.arguments.as_ref().map(node);
        t.result.as_ref().map(node);
        t.after.iter().for_each(|a| _ = tool(&a.tool));
        for n in t.not_after.iter() {
            if let ArchivedNotAfter::Tool(i) = n {
                tool(i);
            }
        }
        if let ArchivedUndo::Tool { tool: i, .. } = &t.undo {
            tool(i);
        }
        for c in t.checks.iter() {
            match &c.operand {
                ArchivedCheckOperand::Value(i) => _ = value(i),
                ArchivedCheckOperand::From { tool: i, .. } => _ = tool(i),
            }
        }
        for p in t.gate.paths.iter() {
            p.condition.as_ref().map(expr);
            source(&p.span);
        }
        source(&t.span);
    }
    for a in body.agents.iter() {
        a.tools.iter().for_each(|i| _ = tool(i));
        a.hands_off_to.iter().for_each(|i| _ = agent(i));
        source(&a.span);
    }
    for f in body.facts.iter() {
        tool(&f.tool);
        f.equals.as_ref().map(value);
        source(&f.span);
    }
    for v in body.values.iter() {
        match v {
            ArchivedValue::Array(items) => items.iter().for_each(|i| _ = value(i)),
            ArchivedValue::Object(members) => members.iter().for_each(|m| _ = value(&m.1)),
            _ => {}
        }
    }
    for n in body.schema_nodes.iter() {
        n.properties.iter().for_each(|p| _ = node(&p.1));
        if let ArchivedAdditional::Schema(i) = &n.additional {
            node(i);
        }
        n.enum_values.iter().for_each(|i| _ = value(i));
        n.constant.as_ref().map(value);
        n.items.as_ref().map(node);
        n.any_of.iter().for_each(|i| _ = node(i));
    }
    for e in body.exprs.iter() {
        match e {
            ArchivedExpr::Literal(i) => _ = value(i),
            ArchivedExpr::Not(i) => _ = expr(i),
            ArchivedExpr::And(l, r) | ArchivedExpr::Or(l, r) => {
                expr(l);
                expr(r);
            }
            ArchivedExpr::Compare { left, right, .. } => {
                expr(left);
                expr(right);
            }
            ArchivedExpr::Member { base, .. } => _ = expr(base),
            ArchivedExpr::IsNone(i) => _ = expr(i),
            ArchivedExpr::In { item, collection } => {
                expr(item);
                expr(collection);
            }
            ArchivedExpr::List(items) | ArchivedExpr::Call { args: items, .. } => {
                items.iter().for_each(|i| _ = expr(i));
            }
            ArchivedExpr::Method { receiver, args, .. } => {
                expr(receiver);
                args.iter().for_each(|i| _ = expr(i));
            }
            ArchivedExpr::Fact(_)
            | ArchivedExpr::Arg(_)
            | ArchivedExpr::Result(_)
            | ArchivedExpr::Unknown => {}
        }
    }
}
