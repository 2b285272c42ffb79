//! `stalwart compile` end to end: the shop compiles to identical bytes every time, its record
//! holds the five tools exactly as DESIGN §10 declares them, and bad input exits 2 with a
//! placed, coded diagnostic and writes nothing.

use stalwart_record::{Effects, Idempotency, Record, Undo};
use stalwart_tests::{copy_tree, run, shop, stderr, stdout};

#[test]
fn the_shop_compiles_to_the_same_bytes_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    let agent = shop().join("agent.yaml");
    let agent = agent.to_str().unwrap();
    let first = run(tmp.path(), &["compile", agent, "-o", a.to_str().unwrap()]);
    assert_eq!(first.status.code(), Some(0), "stderr: {}", stderr(&first));
    let second = run(tmp.path(), &["compile", agent, "-o", b.to_str().unwrap()]);
    assert_eq!(second.status.code(), Some(0), "stderr: {}", stderr(&second));
    for file in ["record.bin", "manifest.json"] {
        assert_eq!(
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
            "{file} differs"
        );
    }
    let printed = stdout(&first);
    assert!(printed.starts_with("Compiled "), "{printed}");
    assert!(printed.contains("refund_card"), "{printed}");
}

#[test]
fn the_shops_record_holds_the_declarations_of_design_10() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let agent = shop().join("agent.yaml");
    let res = run(
        tmp.path(),
        &[
            "compile",
            agent.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(res.status.code(), Some(0), "stderr: {}", stderr(&res));
    let record = Record::open(out.join("record.bin")).unwrap();
    let body = record.to_body().unwrap();
    let names: Vec<&str> = body.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "charge_card",
            "get_order",
            "read_inbox",
            "refund_card",
            "send_receipt"
        ]
    );
    let idx = |n: &str| names.iter().position(|x| *x == n).unwrap() as u32;
    let tool = |n: &str| &body.tools[idx(n) as usize];

    let get_order = tool("get_order");
    assert_eq!(get_order.effects, Effects::Reads);
    assert_eq!(get_order.argument_names, ["order_id"]);
    assert_eq!(
        get_order.result_fields,
        ["order_id", "status", "card", "total"]
    );
    assert!(!get_order.reads_outside && !get_order.sends_out);

    let read_inbox = tool("read_inbox");
    assert_eq!(read_inbox.effects, Effects::Reads);
    assert!(read_inbox.reads_outside);
    assert!(read_inbox.argument_names.is_empty());
    assert_eq!(read_inbox.result_fields, ["messages"]);

    let charge = tool("charge_card");
    assert_eq!(charge.effects, Effects::Changes);
    assert_eq!(charge.argument_names, ["order_id", "amount"]);
    assert_eq!(charge.after.len(), 1);
    assert_eq!(charge.after[0].tool, idx("get_order"));
    assert_eq!(
        charge.after[0].bind,
        [("order_id".to_string(), "order_id".to_string())]
    );
    assert_eq!(charge.at_most.map(|a| (a.count, a.per)), Some((1, None)));
    assert_eq!(
        charge.undo,
        Undo::Tool {
            tool: idx("refund_card"),
            bind: vec![
                ("order_id".into(), "order_id".into()),
                ("amount".into(), "amount".into())
            ]
        }
    );
    assert_eq!(charge.idempotency, Idempotency::None);
    assert!(charge.result.is_none() && !charge.irreversible && !charge.sends_out);

    let receipt = tool("send_receipt");
    assert_eq!(receipt.effects, Effects::Changes);
    assert_eq!(receipt.argument_names, ["order_id", "to"]);
    assert!(receipt.sends_out && receipt.irreversible);
    assert_eq!(receipt.idempotency, Idempotency::Key("order_id".into()));
    assert_eq!(receipt.after[0].tool, idx("charge_card"));
    assert_eq!(
        receipt.after[0].bind,
        [("order_id".to_string(), "order_id".to_string())]
    );
    assert!(receipt.result.is_none());

    let refund = tool("refund_card");
    assert_eq!(refund.effects, Effects::Changes);
    assert_eq!(refund.argument_names, ["order_id", "amount"]);
    assert_eq!(refund.undo, Undo::Unset);
    assert_eq!(refund.idempotency, Idempotency::None);
    assert!(refund.result.is_none() && !refund.irreversible && refund.after.is_empty());

    let agents: Vec<(&str, Vec<u32>)> = body
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.tools.clone()))
        .collect();
    assert_eq!(
        agents,
        [
            ("billing", vec![idx("refund_card")]),
            ("desk", {
                let mut v = vec![
                    idx("get_order"),
                    idx("charge_card"),
                    idx("send_receipt"),
                    idx("read_inbox"),
                ];
                v.sort();
                v
            })
        ]
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["counts"]["tools"], 5);
    assert_eq!(manifest["sources"][0]["path"], "agent.yaml");
    assert_eq!(manifest["sources"][1]["path"], "shop/tools.py");
}

/// Each edit of the shop's agent.yaml, and the `file:line:col` and code its diagnostic must name.
const BAD_EDITS: &[(&str, &str, &str, &str)] = &[
    (
        "tools: [refund_card]",
        "tools: [refund_cart]",
        "agent.yaml:10:13",
        "E01",
    ),
    (
        "hands_off_to: [billing]",
        "hands_off_to: [biling]",
        "agent.yaml:6:20",
        "E01",
    ),
    (
        "on_unread: refuse",
        "on_unread: maybe",
        "agent.yaml:7:16",
        "E01",
    ),
    (
        "privilege: high",
        "privilidge: high",
        "agent.yaml:9:5",
        "E01",
    ),
    (
        "  - python: shop.tools",
        "  - python: shop.toolz",
        "agent.yaml:12:13",
        "E0501",
    ),
];

#[test]
fn bad_agent_yaml_exits_2_names_the_place_and_writes_nothing() {
    for (from, to, place, code) in BAD_EDITS {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("shop");
        copy_tree(&shop(), &dir);
        let yaml = std::fs::read_to_string(dir.join("agent.yaml")).unwrap();
        assert!(yaml.contains(from), "{from}");
        std::fs::write(dir.join("agent.yaml"), yaml.replace(from, to)).unwrap();
        let out = tmp.path().join("out");
        let res = run(
            &dir,
            &["compile", "agent.yaml", "-o", out.to_str().unwrap()],
        );
        let err = stderr(&res);
        assert_eq!(res.status.code(), Some(2), "{to}: {err}");
        assert!(err.contains(place), "{to}: expected {place} in:\n{err}");
        assert!(
            err.contains(&format!("error[{code}")),
            "{to}: expected code {code} in:\n{err}"
        );
        assert!(!out.exists(), "{to}: an output folder was written");
        assert!(
            !dir.join(".stalwart").exists(),
            "{to}: a default output folder was written"
        );
    }
}

#[test]
fn a_missing_agent_yaml_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let res = run(tmp.path(), &["compile", "nowhere/agent.yaml"]);
    assert_eq!(res.status.code(), Some(2));
    assert!(
        stderr(&res)
            .contains("error[E0001[unreadable-input]]: `nowhere/agent.yaml` does not exist"),
        "{}",
        stderr(&res)
    );
}

#[test]
fn json_diagnostics_are_one_object_per_line_with_place_and_code() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    copy_tree(&shop(), &dir);
    let yaml = std::fs::read_to_string(dir.join("agent.yaml")).unwrap();
    std::fs::write(
        dir.join("agent.yaml"),
        yaml.replace("tools: [refund_card]", "tools: [refund_cart]"),
    )
    .unwrap();
    let res = run(&dir, &["compile", "agent.yaml", "--format", "json"]);
    assert_eq!(res.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = stdout(&res)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let d = lines
        .iter()
        .find(|d| d["message"].as_str().unwrap_or("").contains("refund_cart"))
        .expect("a diagnostic on refund_cart");
    assert_eq!(d["file"], "agent.yaml");
    assert_eq!(d["start"]["line"], 10);
    assert_eq!(d["start"]["column"], 13);
    assert_eq!(d["severity"], "error");
    assert!(d["code"].as_str().unwrap().starts_with("E01"));
}

#[test]
fn a_schema_pattern_that_is_not_a_regular_expression_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = stalwart_tests::workspace().join("tests/fixtures/compile/bad-pattern/agent.yaml");
    let out = tmp.path().join("out");
    let res = run(
        tmp.path(),
        &[
            "compile",
            agent.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let err = stderr(&res);
    assert_eq!(res.status.code(), Some(2), "{err}");
    assert!(err.contains("error[E0453[schema-invalid]]"), "{err}");
    assert!(
        err.contains(
            "the arguments schema of `lookup` cannot be compiled at `/properties/sku/pattern`"
        ),
        "{err}"
    );
    assert!(err.contains("agent.yaml:8:7"), "{err}");
    assert!(!out.exists());
}

#[test]
fn compile_writes_the_agent_graph_beside_the_record() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let agent = shop().join("agent.yaml");
    let res = run(
        tmp.path(),
        &[
            "compile",
            agent.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(res.status.code(), Some(0), "{}", stderr(&res));
    let graph: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("graph.json")).unwrap()).unwrap();
    assert_eq!(graph["format"], "qls-graph/1", "{graph}");
    let text = graph.to_string();
    for node in [
        "turn",
        "router",
        "desk_model",
        "guard",
        "confirm",
        "tool:refund_card",
        "end",
    ] {
        assert!(text.contains(node), "graph.json names `{node}`");
    }
}

#[test]
fn a_missing_tool_module_is_one_error_not_one_per_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    copy_tree(&shop(), &dir);
    let yaml = std::fs::read_to_string(dir.join("agent.yaml")).unwrap();
    std::fs::write(
        dir.join("agent.yaml"),
        yaml.replace("python: shop.tools", "python: shop.toolz"),
    )
    .unwrap();
    let res = run(&dir, &["compile", "agent.yaml"]);
    let err = stderr(&res);
    assert_eq!(res.status.code(), Some(2));
    assert_eq!(err.matches("error[").count(), 1, "{err}");
    assert!(
        err.contains("cannot find the Python module `shop.toolz`"),
        "{err}"
    );
    assert!(
        err.contains("looked for `shop/toolz.py` and `shop/toolz/__init__.py`"),
        "{err}"
    );
}

#[test]
fn an_agent_named_two_folders_up_compiles_as_by_its_full_path() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&shop(), &tmp.path().join("shop"));
    let deep = tmp.path().join("a").join("b");
    std::fs::create_dir_all(&deep).unwrap();
    let by_parents = run(&deep, &["compile", "../../shop/agent.yaml", "-o", "out"]);
    assert_eq!(
        by_parents.status.code(),
        Some(0),
        "stderr: {}",
        stderr(&by_parents)
    );
    let full = tmp.path().join("shop").join("agent.yaml");
    let by_full = run(
        tmp.path(),
        &["compile", full.to_str().unwrap(), "-o", "out"],
    );
    assert_eq!(
        by_full.status.code(),
        Some(0),
        "stderr: {}",
        stderr(&by_full)
    );
    assert_eq!(
        std::fs::read(deep.join("out").join("record.bin")).unwrap(),
        std::fs::read(tmp.path().join("out").join("record.bin")).unwrap()
    );
}
