//! The language server: the only crate that speaks LSP.
//!
//! It holds one long-lived analysis ([`stalwart_ide::AnalysisHost`]: the compiler's salsa
//! databases, the very queries `stalwart compile` runs) and turns LSP messages into its plain
//! calls: positions to byte offsets in the negotiated encoding (`encoding`), `file:` URIs to paths
//! (`uri`), answers back into LSP types (`requests`, `publish`). `server` is the main loop,
//! `transport` the stdio frames (a malformed frame is answered, never fatal), `scan` the
//! workspace read at start. `stalwart-lsp` and `stalwart lsp` both call [`run_stdio`].

pub mod encoding;
mod publish;
mod requests;
mod scan;
mod server;
pub mod transport;
pub mod uri;

use std::path::PathBuf;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    HoverProviderCapability, InitializeParams, InitializeResult, OneOf, PositionEncodingKind,
    RenameOptions, SaveOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};

use encoding::Encoding;

/// Serves on standard input and output until `exit`; the process's exit code (0 after a
/// `shutdown`, 1 otherwise, as the protocol asks).
pub fn run_stdio() -> i32 {
    let stdio = transport::Stdio::start();
    let clean = run(&stdio.receiver, stdio.sender.clone());
    stdio.join();
    if clean { 0 } else { 1 }
}

/// Serves the messages of `receiver`, answering on `sender`, until `exit` or the end of the
/// input; whether `shutdown` came first.
pub fn run(receiver: &Receiver<Message>, sender: Sender<Message>) -> bool {
    let Some((id, params)) = wait_for_initialize(receiver, &sender) else {
        return false;
    };
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let enc = negotiate(&params);
    let rule_pages = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("rulePages"))
        .and_then(|v| v.as_str())
        .unwrap_or(publish::RULE_PAGES)
        .to_string();
    let watch = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false);
    let result = InitializeResult {
        capabilities: capabilities(enc),
        server_info: Some(ServerInfo {
            name: "stalwart-lsp".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let _ = sender.send(Message::Response(Response::new_ok(
        id,
        serde_json::to_value(result).unwrap_or_default(),
    )));
    let mut server = server::Server::new(sender, enc, rule_pages, watch);
    server.start_scan(roots(&params));
    server.main_loop(receiver);
    server.shut_down()
}

fn wait_for_initialize(
    receiver: &Receiver<Message>,
    sender: &Sender<Message>,
) -> Option<(lsp_server::RequestId, serde_json::Value)> {
    loop {
        match receiver.recv().ok()? {
            Message::Request(req) if req.method == "initialize" => {
                return Some((req.id, req.params));
            }
            Message::Request(req) => {
                let _ = sender.send(Message::Response(Response::new_err(
                    req.id,
                    ErrorCode::ServerNotInitialized as i32,
                    "the server is not initialized yet".to_string(),
                )));
            }
            Message::Notification(n) if n.method == "exit" => return None,
            _ => {}
        }
    }
}

/// UTF-8 when the client offers it, else UTF-16.
fn negotiate(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    if offered.is_some_and(|e| e.contains(&PositionEncodingKind::UTF8)) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

#[allow(deprecated)]
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    if let Some(folders) = &params.workspace_folders {
        return folders
            .iter()
            .filter_map(|f| uri::to_path(&f.uri))
            .collect();
    }
    params
        .root_uri
        .as_ref()
        .and_then(uri::to_path)
        .into_iter()
        .collect()
}

fn capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match enc {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![" ".into(), "$".into(), ",".into()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}
