//! The compiler's diagnostics as LSP diagnostics: code and rule page (`codeDescription`), the
//! message with its label, notes and help, secondary labels and witness steps as related
//! information, the fix kept in `data` for code actions.

use std::path::Path;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Uri,
};
use stalwart_ide::{AnalysisHost, FileDiagnostic, Severity};

use crate::encoding::{Encoding, LineIndex};

/// Where rule pages live (`{base}QG023.md`), unless the client says otherwise.
pub const RULE_PAGES: &str = "https://stalwart.dev/rules/";

/// Converts one file's diagnostics (`text` is the file's text as analysed).
pub fn to_lsp(
    host: &AnalysisHost,
    text: &str,
    diagnostics: &[FileDiagnostic],
    enc: Encoding,
    rule_pages: &str,
) -> Vec<Diagnostic> {
    let index = LineIndex::new(text);
    diagnostics
        .iter()
        .map(|d| {
            let related: Vec<DiagnosticRelatedInformation> = d
                .related
                .iter()
                .filter_map(|(range, message)| {
                    Some(DiagnosticRelatedInformation {
                        location: location(host, &range.path, range.start, range.end, enc)?,
                        message: message.clone(),
                    })
                })
                .collect();
            Diagnostic {
                range: index.range(d.range.start, d.range.end, enc),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Note => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(d.code.clone())),
                code_description: rule_page(&d.code, rule_pages),
                source: Some("stalwart".to_string()),
                message: d.full_message(),
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: Some(serde_json::json!({"slug": d.slug})),
            }
        })
        .collect()
}

/// The page that documents a code (see `stalwart_ide::code_page`): a rule's under `base`, any
/// other under the documentation's root (`base` without its `rules/`).
fn rule_page(code: &str, base: &str) -> Option<CodeDescription> {
    let page = stalwart_ide::code_page(code)?;
    let href = match page.strip_prefix("rules/") {
        Some(rule) => format!("{base}{rule}"),
        None => match base.strip_suffix("rules/") {
            Some(root) => format!("{root}{page}"),
            None => format!("{base}../{page}"),
        },
    };
    let href: Uri = href.parse().ok()?;
    Some(CodeDescription { href })
}

/// A location in any file the host knows.
pub fn location(
    host: &AnalysisHost,
    path: &Path,
    start: u32,
    end: u32,
    enc: Encoding,
) -> Option<Location> {
    let text = host.text_or_disk(path)?;
    let index = LineIndex::new(&text);
    Some(Location {
        uri: crate::uri::from_path(path),
        range: index.range(start, end, enc),
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE_PAGES, rule_page};

    fn href(code: &str, base: &str) -> Option<String> {
        rule_page(code, base).map(|d| d.href.as_str().to_string())
    }

    #[test]
    fn every_documented_code_links_to_its_page() {
        assert_eq!(
            href("QG105", RULE_PAGES).as_deref(),
            Some("https://stalwart.dev/rules/QG105.md")
        );
        assert_eq!(
            href("W1604", RULE_PAGES).as_deref(),
            Some("https://stalwart.dev/rules/QG007.md")
        );
        assert_eq!(
            href("W1617", RULE_PAGES).as_deref(),
            Some("https://stalwart.dev/catalogues.md#input-errors")
        );
        assert_eq!(
            href("E0257", "file:///docs/pages/").as_deref(),
            Some("file:///docs/pages/../catalogues.md#mcp-answers")
        );
        assert_eq!(href("E1605", RULE_PAGES), None);
    }
}
