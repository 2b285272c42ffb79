//! MCP answers as servers and clients save them: Server-Sent Events streams, JSON-RPC batches,
//! JSON lines, and the pages of a paginated `tools/list` read together.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::parse_mcp;
use stalwart_diagnostics::FileId;

fn names(text: &str) -> (Vec<String>, Vec<String>) {
    let parse = parse_mcp(FileId(0), text, "answer");
    (
        parse.value.iter().map(|t| t.name.value.clone()).collect(),
        parse
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code.id, d.message))
            .collect(),
    )
}

const PAGE_1: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}"#;
const PAGE_2: &str =
    r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}"#;

#[test]
fn a_server_sent_events_stream_is_read_event_by_event() {
    let text = format!(
        "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{}}}}\n\nevent: message\nid: 7\ndata: {PAGE_2}\n\n"
    );
    assert_eq!(names(&text), (vec!["b".to_string()], vec![]));
}

#[test]
fn an_event_whose_data_spans_several_lines_keeps_its_spans() {
    let text = "event: message\ndata: {\"tools\": [\ndata:   {\"name\": \"split\", \"inputSchema\": {\"type\": 3}}]}\n\n";
    let parse = parse_mcp(FileId(0), text, "answer");
    assert_eq!(parse.diagnostics.len(), 1);
    let d = &parse.diagnostics[0];
    assert_eq!(&text[d.primary.span.range()], "3");
}

#[test]
fn a_json_rpc_batch_and_json_lines_give_every_answer_s_tools() {
    let batch = format!("[{PAGE_1}, {PAGE_2}]");
    assert_eq!(
        names(&batch),
        (vec!["a".to_string(), "b".to_string()], vec![])
    );
    let lines = format!("{PAGE_1}\n{PAGE_2}\n");
    assert_eq!(
        names(&lines),
        (vec!["a".to_string(), "b".to_string()], vec![])
    );
}

#[test]
fn only_a_last_page_that_still_has_a_cursor_is_a_warning() {
    let lines = format!("{PAGE_2}\n{PAGE_1}\n");
    assert_eq!(
        names(&lines),
        (
            vec!["b".to_string(), "a".to_string()],
            vec![
                "E0252 the MCP answer is one page of several: only the tools of the pages given are read"
                    .to_string()
            ]
        )
    );
}

#[test]
fn an_error_response_in_a_batch_is_reported_and_the_others_read() {
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":1,"error":{{"code":-32601,"message":"nope"}}}}, {PAGE_2}]"#
    );
    assert_eq!(
        names(&batch),
        (
            vec!["b".to_string()],
            vec!["E0251 the MCP answer is an error: `nope`".to_string()]
        )
    );
}
