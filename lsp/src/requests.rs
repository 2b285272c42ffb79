//! Requests: LSP positions to byte offsets, the `ide` feature, its answer back in LSP types.

// `WorkspaceEdit::changes` is keyed by `Uri`, whose parsed form caches in cells (clippy's mutable
// key type): the keys are never changed once made.
#![allow(clippy::mutable_key_type)]

use std::collections::HashMap;
use std::path::PathBuf;

use lsp_server::ErrorCode;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CompletionItem,
    CompletionItemKind, CompletionParams, CompletionResponse, DocumentSymbol, DocumentSymbolParams,
    DocumentSymbolResponse, Documentation, GotoDefinitionParams, GotoDefinitionResponse, Hover,
    HoverContents, HoverParams, Location, MarkupContent, MarkupKind, Position,
    PrepareRenameResponse, ReferenceParams, RenameParams, SymbolKind, TextDocumentIdentifier,
    TextDocumentPositionParams, TextEdit, Uri, WorkspaceEdit,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use stalwart_ide::{CompletionKind, FileRange, NameKind};

use crate::encoding::LineIndex;
use crate::server::Server;

type Answer = Result<Value, (ErrorCode, String)>;

/// Runs one request.
pub(crate) fn handle(server: &mut Server, method: &str, params: Value) -> Answer {
    match method {
        "textDocument/definition" => definition(server, parse(params)?),
        "textDocument/references" => references(server, parse(params)?),
        "textDocument/hover" => hover(server, parse(params)?),
        "textDocument/completion" => completion(server, parse(params)?),
        "textDocument/documentSymbol" => symbols(server, parse(params)?),
        "textDocument/prepareRename" => prepare_rename(server, parse(params)?),
        "textDocument/rename" => rename(server, parse(params)?),
        "textDocument/codeAction" => code_actions(server, parse(params)?),
        #[cfg(feature = "test-hooks")]
        "stalwart/panic" => panic!("a request that panics on purpose"),
        _ => Err((
            ErrorCode::MethodNotFound,
            format!("the server does not answer `{method}`"),
        )),
    }
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(params)
        .map_err(|e| (ErrorCode::InvalidParams, format!("invalid parameters: {e}")))
}

fn json(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

/// The file and byte offset of a position (clamped to the text).
fn at(server: &Server, doc: &TextDocumentIdentifier, pos: Position) -> Option<(PathBuf, u32)> {
    let path = crate::uri::to_path(&doc.uri)?;
    let text = server.host.text(&path)?;
    let offset = LineIndex::new(&text).offset(pos, server.enc);
    Some((path, offset))
}

fn location(server: &Server, r: &FileRange) -> Option<Location> {
    crate::publish::location(&server.host, &r.path, r.start, r.end, server.enc)
}

fn definition(server: &Server, p: GotoDefinitionParams) -> Answer {
    let TextDocumentPositionParams {
        text_document,
        position,
    } = p.text_document_position_params;
    let Some((path, offset)) = at(server, &text_document, position) else {
        return Ok(Value::Null);
    };
    let mut found: Vec<Location> = server
        .host
        .definition(&path, offset)
        .iter()
        .filter_map(|r| location(server, r))
        .collect();
    if found.is_empty()
        && let Some(answer) = server.host.scenario_answer(&path, offset)
    {
        // A scenario's step: where its answer was decided.
        found = answer
            .sources
            .iter()
            .filter_map(|r| location(server, r))
            .collect();
    }
    if found.is_empty() {
        return Ok(Value::Null);
    }
    json(GotoDefinitionResponse::Array(found))
}

fn references(server: &Server, p: ReferenceParams) -> Answer {
    let pos = p.text_document_position;
    let Some((path, offset)) = at(server, &pos.text_document, pos.position) else {
        return Ok(Value::Null);
    };
    let found: Vec<Location> = server
        .host
        .references(&path, offset, p.context.include_declaration)
        .iter()
        .filter_map(|r| location(server, r))
        .collect();
    json(found)
}

fn hover(server: &Server, p: HoverParams) -> Answer {
    let pos = p.text_document_position_params;
    let Some((path, offset)) = at(server, &pos.text_document, pos.position) else {
        return Ok(Value::Null);
    };
    let mut parts = Vec::new();
    let mut range = None;
    if let Some(h) = server.host.hover(&path, offset) {
        parts.push(h.markdown);
        range = h
            .range
            .as_ref()
            .and_then(|r| location(server, r))
            .map(|l| l.range);
    }
    // A scenario's step: what the check answers there, and where it was decided.
    if parts.is_empty()
        && let Some(answer) = server.host.scenario_answer(&path, offset)
    {
        parts.push(answer.markdown);
        range = location(server, &answer.range).map(|l| l.range);
    }
    // A proof finding under the cursor: its rule's page.
    for d in server.proof_diagnostics(&path) {
        if d.range.start <= offset
            && offset <= d.range.end
            && let Some(page) = stalwart_ide::rule_page(&d.code)
        {
            parts.push(page.to_string());
        }
    }
    if parts.is_empty() {
        return Ok(Value::Null);
    }
    json(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range,
    })
}

fn completion(server: &Server, p: CompletionParams) -> Answer {
    let pos = p.text_document_position;
    let Some((path, offset)) = at(server, &pos.text_document, pos.position) else {
        return Ok(Value::Null);
    };
    let items: Vec<CompletionItem> = server
        .host
        .completions(&path, offset)
        .into_iter()
        .map(|c| CompletionItem {
            label: c.label.clone(),
            kind: Some(match c.kind {
                CompletionKind::Keyword => CompletionItemKind::KEYWORD,
                CompletionKind::Flow => CompletionItemKind::FUNCTION,
                CompletionKind::Intent | CompletionKind::BotMessage => CompletionItemKind::EVENT,
                CompletionKind::Tool => CompletionItemKind::METHOD,
                CompletionKind::Fact => CompletionItemKind::VARIABLE,
                CompletionKind::Agent => CompletionItemKind::CLASS,
                CompletionKind::Key => CompletionItemKind::PROPERTY,
            }),
            detail: c.detail,
            documentation: c.documentation.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            insert_text: c.insert,
            ..CompletionItem::default()
        })
        .collect();
    json(CompletionResponse::Array(items))
}

fn symbols(server: &Server, p: DocumentSymbolParams) -> Answer {
    let Some(path) = crate::uri::to_path(&p.text_document.uri) else {
        return Ok(Value::Null);
    };
    let Some(text) = server.host.text(&path) else {
        return Ok(Value::Null);
    };
    let index = LineIndex::new(&text);
    #[allow(deprecated)]
    let symbols: Vec<DocumentSymbol> = server
        .host
        .symbols(&path)
        .into_iter()
        .map(|s| {
            let range = index.range(s.range.start, s.range.end, server.enc);
            DocumentSymbol {
                name: s.name,
                detail: Some(s.kind.word().to_string()),
                kind: match s.kind {
                    NameKind::Flow => SymbolKind::FUNCTION,
                    NameKind::Intent | NameKind::BotMessage => SymbolKind::EVENT,
                    NameKind::Tool => SymbolKind::METHOD,
                    NameKind::Fact => SymbolKind::VARIABLE,
                    NameKind::Agent => SymbolKind::CLASS,
                    NameKind::Step => SymbolKind::OBJECT,
                    NameKind::Rule => SymbolKind::KEY,
                },
                tags: None,
                deprecated: None,
                range,
                selection_range: range,
                children: None,
            }
        })
        .collect();
    json(DocumentSymbolResponse::Nested(symbols))
}

fn prepare_rename(server: &Server, p: TextDocumentPositionParams) -> Answer {
    let Some((path, offset)) = at(server, &p.text_document, p.position) else {
        return Ok(Value::Null);
    };
    let Some(name) = server.host.name_at(&path, offset) else {
        return Err((
            ErrorCode::RequestFailed,
            "there is no name to rename here".to_string(),
        ));
    };
    let Some(loc) = location(server, &name.range) else {
        return Ok(Value::Null);
    };
    json(PrepareRenameResponse::RangeWithPlaceholder {
        range: loc.range,
        placeholder: name.name,
    })
}

fn rename(server: &Server, p: RenameParams) -> Answer {
    let pos = p.text_document_position;
    let Some((path, offset)) = at(server, &pos.text_document, pos.position) else {
        return Ok(Value::Null);
    };
    let edits = server
        .host
        .rename(&path, offset, &p.new_name)
        .map_err(|e| (ErrorCode::RequestFailed, e))?;
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (file, list) in edits {
        let lsp: Vec<TextEdit> = list
            .iter()
            .filter_map(|e| {
                Some(TextEdit {
                    range: location(server, &e.range)?.range,
                    new_text: e.new_text.clone(),
                })
            })
            .collect();
        changes.insert(crate::uri::from_path(&file), lsp);
    }
    json(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    })
}

fn code_actions(server: &Server, p: CodeActionParams) -> Answer {
    let Some(path) = crate::uri::to_path(&p.text_document.uri) else {
        return Ok(Value::Null);
    };
    let Some(text) = server.host.text(&path) else {
        return Ok(Value::Null);
    };
    let index = LineIndex::new(&text);
    let start = index.offset(p.range.start, server.enc);
    let end = index.offset(p.range.end, server.enc);
    let actions: Vec<CodeActionOrCommand> = server
        .host
        .fixes(&path, start, end)
        .into_iter()
        .filter_map(|fix| {
            let range = location(server, &fix.edit.range)?.range;
            let mut changes = HashMap::new();
            changes.insert(
                crate::uri::from_path(&fix.edit.range.path),
                vec![TextEdit {
                    range,
                    new_text: fix.edit.new_text.clone(),
                }],
            );
            let diagnostic = crate::publish::to_lsp(
                &server.host,
                &text,
                &[fix.diagnostic],
                server.enc,
                &server.rule_pages,
            )
            .pop();
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: diagnostic.map(|d| vec![d]),
                edit: Some(WorkspaceEdit {
                    changes: Some(changes),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect();
    json(actions)
}
