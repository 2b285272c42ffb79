//! Editor sessions against the server in-process: the diagnostics `stalwart compile` gives,
//! cleared as you type, navigation across files, hover, completion, rename, fixes, proof findings
//! on save, and positions in both encodings.

mod support;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use support::{Client, range_of};

/// The workspace's policy.co with its misspelt tool corrected.
fn fixed_policy(c: &Client) -> String {
    std::fs::read_to_string(c.path("policy.co"))
        .unwrap()
        .replace("refund_crd", "refund_card")
}

/// The labels of a completion answer, in order.
fn labels_of(items: &Value) -> Vec<&str> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect()
}

#[test]
fn a_broken_rulebook_is_flagged_then_cleared_as_you_type() {
    let mut c = Client::start(false);
    c.open("agent.yaml");
    c.open("policy.co");
    let list = c.diagnostics_with_codes("policy.co", &["E1605"]);
    assert_eq!(range_of(&list[0]["range"]), (7, 12, 7, 22));
    assert_eq!(list[0]["severity"], 1);
    assert_eq!(list[0]["source"], "stalwart");
    assert_eq!(
        list[0]["message"],
        "tool `refund_crd` is not in the catalogue: no such tool"
    );
    // The fix: `refund_crd` → `refund_card`, one line edited in place.
    c.edit(
        "policy.co",
        2,
        json!({"start": {"line": 7, "character": 12}, "end": {"line": 7, "character": 22}}),
        "refund_card",
    );
    let cleared = c.diagnostics_until("policy.co", <[Value]>::is_empty);
    assert!(cleared.is_empty());
    assert!(c.stop());
}

#[test]
fn a_fix_is_offered_as_a_code_action() {
    let mut c = Client::start(false);
    c.open("policy.co");
    c.diagnostics_with_codes("policy.co", &["E1605"]);
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": c.uri("policy.co")},
            "range": {"start": {"line": 7, "character": 14}, "end": {"line": 7, "character": 14}},
            "context": {"diagnostics": []},
        }),
    );
    let action = &actions[0];
    assert_eq!(action["title"], "did you mean `refund_card`");
    assert_eq!(action["kind"], "quickfix");
    let edits = &action["edit"]["changes"][c.uri("policy.co")];
    assert_eq!(range_of(&edits[0]["range"]), (7, 12, 7, 22));
    assert_eq!(edits[0]["newText"], "refund_card");
    assert!(c.stop());
}

#[test]
fn renaming_a_tool_in_the_catalogue_flags_agent_yaml_and_the_rulebook() {
    let mut c = Client::start(false);
    let fixed = fixed_policy(&c);
    c.open("agent.yaml");
    c.open_text("policy.co", &fixed);
    c.open("tools.yaml");
    let catalogue = std::fs::read_to_string(c.path("tools.yaml"))
        .unwrap()
        .replace("name: refund_card", "name: refund_money");
    c.change("tools.yaml", 2, &catalogue);
    let agent = c.diagnostics_with_codes("agent.yaml", &["E0150"]);
    assert_eq!(range_of(&agent[0]["range"]), (4, 23, 4, 34));
    // No catalogue tool is near the name now: an action NeMo Guardrails runs itself.
    let rulebook = c.diagnostics_with_codes("policy.co", &["W1618"]);
    assert_eq!(range_of(&rulebook[0]["range"]), (7, 12, 7, 23));
    assert_eq!(rulebook[0]["severity"], 2);
    assert!(c.stop());
}

#[test]
fn definitions_and_references_cross_files() {
    let mut c = Client::start(false);
    c.open("agent.yaml");
    c.open("policy.co");
    // `refund_card` in agent.yaml's `tools:` → its declaration in the catalogue.
    let def = c.request("textDocument/definition", c.at("agent.yaml", 4, 26));
    assert_eq!(def[0]["uri"], c.uri("tools.yaml"));
    assert_eq!(range_of(&def[0]["range"]), (9, 10, 9, 21));
    // `user ask refund` → `define user ask refund`.
    let def = c.request("textDocument/definition", c.at("policy.co", 5, 8));
    assert_eq!(def[0]["uri"], c.uri("policy.co"));
    assert_eq!(range_of(&def[0]["range"]), (0, 12, 0, 22));
    // Every place `get_order` is named: agent.yaml, its declaration, refund_card's `after`.
    let refs = c.request(
        "textDocument/references",
        json!({
            "textDocument": {"uri": c.uri("tools.yaml")},
            "position": {"line": 1, "character": 12},
            "context": {"includeDeclaration": true},
        }),
    );
    let places: Vec<(String, (u64, u64, u64, u64))> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let uri = l["uri"].as_str().unwrap();
            let name = uri.rsplit('/').next().unwrap().to_string();
            (name, range_of(&l["range"]))
        })
        .collect();
    assert_eq!(
        places,
        [
            ("agent.yaml".to_string(), (4, 12, 4, 21)),
            ("tools.yaml".to_string(), (1, 10, 1, 19)),
            ("tools.yaml".to_string(), (12, 12, 12, 21)),
        ]
    );
    assert!(c.stop());
}

#[test]
fn rename_writes_every_file_that_names_the_tool() {
    let mut c = Client::start(false);
    let fixed = fixed_policy(&c);
    c.open_text("policy.co", &fixed);
    let prepared = c.request("textDocument/prepareRename", c.at("policy.co", 7, 15));
    assert_eq!(prepared["placeholder"], "refund_card");
    let mut params = c.at("policy.co", 7, 15);
    params["newName"] = json!("refund_order");
    let edit = c.request("textDocument/rename", params);
    let changes = edit["changes"].as_object().unwrap();
    let mut files: Vec<(&str, usize)> = changes
        .iter()
        .map(|(uri, edits)| {
            (
                uri.rsplit('/').next().unwrap(),
                edits.as_array().unwrap().len(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [("agent.yaml", 1), ("policy.co", 1), ("tools.yaml", 1)]
    );
    let in_catalogue = &changes[&c.uri("tools.yaml")][0];
    assert_eq!(range_of(&in_catalogue["range"]), (9, 10, 9, 21));
    assert_eq!(in_catalogue["newText"], "refund_order");
    let mut bad = c.at("policy.co", 7, 15);
    bad["newName"] = json!("refund order");
    let id = c.send_request("textDocument/rename", bad);
    let answer = c.response(&id);
    assert_eq!(
        answer.response_result.unwrap_err().message,
        "`refund order` cannot name a tool"
    );
    assert!(c.stop());
}

#[test]
fn hover_shows_a_tools_declaration_and_an_intents_examples() {
    let mut c = Client::start(false);
    c.open("agent.yaml");
    c.open("policy.co");
    let tool = c.request("textDocument/hover", c.at("agent.yaml", 4, 26));
    assert_eq!(
        tool["contents"]["value"],
        "**tool** `refund_card`: changes\ndeclared in the catalogue `tools.yaml`\n\nRefund an \
         order's card.\n\narguments:\n- `order_id`: string\n- `amount`: number\n\n- after \
         `get_order`"
    );
    let intent = c.request("textDocument/hover", c.at("policy.co", 5, 9));
    assert_eq!(
        intent["contents"]["value"],
        "**user message** `ask refund`\n\nexamples:\n- \"refund order 4411\"\n- \"give the \
         customer their money back\""
    );
    let key = c.request("textDocument/hover", c.at("agent.yaml", 7, 2));
    assert!(
        key["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`rulebook` (agent.yaml)\n\nThe rulebook: a Colang 1.0/2.x file"),
        "{key}"
    );
    assert!(c.stop());
}

#[test]
fn completion_offers_tools_after_execute_and_keys_in_agent_yaml() {
    let mut c = Client::start(false);
    c.open("agent.yaml");
    let text = std::fs::read_to_string(c.path("policy.co")).unwrap();
    c.open_text(
        "policy.co",
        &format!("{text}\ndefine flow other\n  execute \n"),
    );
    let items = c.request("textDocument/completion", c.at("policy.co", 12, 10));
    let labels = labels_of(&items);
    assert_eq!(labels, ["get_order", "refund_card"]);
    let agent = std::fs::read_to_string(c.path("agent.yaml")).unwrap();
    c.change("agent.yaml", 2, &format!("{agent}fa"));
    let items = c.request("textDocument/completion", c.at("agent.yaml", 8, 2));
    let labels = labels_of(&items);
    assert_eq!(
        labels,
        [
            "agents",
            "tools",
            "rulebook",
            "facts",
            "settings",
            "budget",
            "steps",
            "channels",
            "stores",
            "overrides"
        ]
    );
    assert!(c.stop());
}

#[test]
fn document_symbols_list_what_a_file_defines() {
    let mut c = Client::start(false);
    c.open("policy.co");
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": c.uri("policy.co")}}),
    );
    let names: Vec<(&str, &str)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("ask refund", "user message"), ("refunds", "flow")]);
    assert!(c.stop());
}

#[test]
fn saving_proves_the_agent_and_publishes_findings_on_its_lines() {
    let mut c = Client::start(false);
    let fixed = fixed_policy(&c);
    std::fs::write(c.path("policy.co"), &fixed).unwrap();
    c.open("agent.yaml");
    c.open("policy.co");
    c.save("agent.yaml");
    let list = c.diagnostics_with_codes("agent.yaml", &["QG023", "QG105"]);
    assert_eq!(range_of(&list[0]["range"]), (2, 2, 2, 6));
    assert_eq!(list[0]["severity"], 2);
    assert_eq!(
        list[0]["codeDescription"]["href"],
        "https://stalwart.dev/rules/QG023.md"
    );
    let witness = list[0]["relatedInformation"].as_array().unwrap();
    assert_eq!(witness.len(), 5);
    assert_eq!(witness[0]["message"], "witness step 1: turn → router");
    assert_eq!(range_of(&witness[1]["location"]["range"]), (3, 11, 3, 40));
    assert_eq!(range_of(&list[1]["range"]), (4, 23, 4, 34));
    // The rule's page shows on the finding.
    let hover = c.request("textDocument/hover", c.at("agent.yaml", 2, 3));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("# QG023 Unbounded loop"),
        "{hover}"
    );
    assert!(c.stop());
}

/// A line with an accent, a CJK character and an emoji before the end of a diagnostic.
const UNICODE: &str =
    "define flow greet\n  user express greeting\n  do réfunds中😀x\n  bot refuse\n";

#[test]
fn utf16_columns_count_code_units() {
    let mut c = Client::start(false);
    c.open_text("uni.co", UNICODE);
    let list = c.diagnostics_with_codes("uni.co", &["W1602"]);
    assert_eq!(range_of(&list[0]["range"]), (2, 5, 2, 16));
    assert!(c.stop());
}

#[test]
fn utf8_columns_count_bytes_when_the_client_offers_them() {
    let mut c = Client::start(true);
    c.open_text("uni.co", UNICODE);
    let list = c.diagnostics_with_codes("uni.co", &["W1602"]);
    assert_eq!(range_of(&list[0]["range"]), (2, 5, 2, 21));
    // An edit placed after the emoji, in bytes: `x` becomes `y`.
    c.edit(
        "uni.co",
        2,
        json!({"start": {"line": 2, "character": 20}, "end": {"line": 2, "character": 21}}),
        "y",
    );
    let list = c.diagnostics_until("uni.co", |l| {
        l.first()
            .is_some_and(|d| d["message"].as_str().unwrap().contains("réfunds中😀y"))
    });
    assert_eq!(range_of(&list[0]["range"]), (2, 5, 2, 21));
    assert!(c.stop());
}

#[test]
fn a_request_cancelled_before_it_runs_is_answered_request_cancelled() {
    let (dir, root) = support::workspace();
    let mut c = Client::start_queued(root, Some(dir), false, |root| {
        let at = json!({
            "textDocument": {"uri": support::uri(&root.join("policy.co"))},
            "position": {"line": 5, "character": 8},
        });
        vec![
            Message::Request(Request::new(
                RequestId::from(100),
                "textDocument/definition".into(),
                at.clone(),
            )),
            Message::Notification(Notification::new(
                "$/cancelRequest".into(),
                json!({"id": 100}),
            )),
            Message::Request(Request::new(
                RequestId::from(101),
                "textDocument/hover".into(),
                at,
            )),
        ]
    });
    let cancelled = c.response(&RequestId::from(100));
    let error = cancelled.response_result.unwrap_err();
    assert_eq!(error.code, ErrorCode::RequestCanceled as i32);
    assert_eq!(error.message, "cancelled");
    // The next request is answered as usual.
    let hover = c.response(&RequestId::from(101));
    assert!(hover.response_result.is_ok(), "{hover:?}");
    assert!(c.stop());
}

#[test]
fn a_catalogue_changed_on_disk_is_read_again_when_the_watcher_says_so() {
    let mut c = Client::start(false);
    let fixed = fixed_policy(&c);
    c.open("agent.yaml");
    c.open_text("policy.co", &fixed);
    // tools.yaml is not open: its text is the disk's. Rename a tool there, then tell the server.
    let catalogue = std::fs::read_to_string(c.path("tools.yaml"))
        .unwrap()
        .replace("name: refund_card", "name: refund_money");
    std::fs::write(c.path("tools.yaml"), catalogue).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": c.uri("tools.yaml"), "type": 2}]}),
    );
    let agent = c.diagnostics_with_codes("agent.yaml", &["E0150"]);
    assert_eq!(range_of(&agent[0]["range"]), (4, 23, 4, 34));
    // Deleted: agent.yaml's `catalogue:` entry names a missing file.
    std::fs::remove_file(c.path("tools.yaml")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": c.uri("tools.yaml"), "type": 3}]}),
    );
    let agent = c.diagnostics_with_codes("agent.yaml", &["E0501"]);
    assert_eq!(range_of(&agent[0]["range"]), (6, 15, 6, 25));
    assert_eq!(
        agent[0]["message"],
        "cannot find the catalogue `tools.yaml`: no such file beside agent.yaml"
    );
    assert!(c.stop());
}

/// A workspace whose tools come from a Python module and an MCP answer, and whose rulebook is a
/// Colang 2.x config folder.
fn sources_workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |name: &str, text: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "agent.yaml",
        "agents:\n  billing:\n    tools: [refund_card, read_file]\ntools:\n  - python: shop.tools\n  \
         - mcp: servers/fs.json\nrulebook: ./rails\n",
    );
    write("shop/__init__.py", "");
    write(
        "shop/tools.py",
        "from stalwart_agents import tool\n\n\n@tool(effects=\"changes\")\ndef refund_card(order_id: \
         str, amount: float):\n    \"\"\"Refund an order's card.\"\"\"\n",
    );
    write(
        "servers/fs.json",
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"tools\": [\n  {\"name\": \"read_file\", \
         \"description\": \"Read a file\", \"inputSchema\": {\"type\": \"object\", \"properties\": \
         {\"path\": {\"type\": \"string\"}}, \"required\": [\"path\"]}, \"annotations\": \
         {\"readOnlyHint\": true}}\n]}}\n",
    );
    write("rails/config.yml", "colang_version: \"2.x\"\n");
    write(
        "rails/main.co",
        "import core\n\nflow main\n  activate refunds\n\nflow refunds\n  user said \"refund order \
         4411\"\n  await RefundCardAction(order_id=\"4411\", amount=40.0)\n",
    );
    (dir, root)
}

#[test]
fn definitions_reach_python_modules_and_mcp_answers_from_a_2x_rulebook() {
    let (dir, root) = sources_workspace();
    let mut c = Client::start_in(root, Some(dir), false);
    c.open("agent.yaml");
    c.open("rails/main.co");
    // `await RefundCardAction(...)` → the decorated function in the Python module.
    let def = c.request("textDocument/definition", c.at("rails/main.co", 7, 12));
    assert_eq!(def[0]["uri"], c.uri("shop/tools.py"));
    assert_eq!(range_of(&def[0]["range"]), (4, 4, 4, 15));
    // `read_file` in agent.yaml's `tools:` → its name in the MCP answer.
    let def = c.request("textDocument/definition", c.at("agent.yaml", 2, 28));
    assert_eq!(def[0]["uri"], c.uri("servers/fs.json"));
    assert_eq!(range_of(&def[0]["range"]), (1, 11, 1, 22));
    // The hover says where the declaration is.
    let hover = c.request("textDocument/hover", c.at("agent.yaml", 2, 14));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.starts_with(
            "**tool** `refund_card`: changes\ndeclared in the Python module `shop.tools`"
        ),
        "{text}"
    );
    assert!(c.stop());
}
