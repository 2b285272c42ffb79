//! Code checks of Python tool modules: what the proof of the graph cannot see in a tool's own
//! code. Two checks: a network call in a tool not declared `sends_out`, and a credential written
//! into the source. The rule set has a digest, printed with the result, so a report says which
//! checks it ran.

use serde::{Deserialize, Serialize};

/// `(id, what it looks for, the patterns)`.
const RULES: &[(&str, &str, &[&str])] = &[
    (
        "network_call",
        "a network call in a tool not declared sends_out",
        &[
            "requests.",
            "httpx.",
            "urllib.request",
            "urlopen(",
            "http.client",
            "socket.",
            "aiohttp.",
            "smtplib.",
        ],
    ),
    (
        "hardcoded_credential",
        "a credential written into the source",
        &["api_key", "apikey", "password", "secret", "token", "AKIA"],
    ),
];

/// One code finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeFinding {
    pub check: String,
    pub file: String,
    pub line: u32,
    pub message: String,
}

/// The checks' result over a set of files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeReport {
    pub files: usize,
    /// The first 12 hex digits of the rule set's BLAKE3 digest.
    pub rules_digest: String,
    pub findings: Vec<CodeFinding>,
}

/// The digest of the rule set.
pub fn rules_digest() -> String {
    let mut text = String::new();
    for (id, what, patterns) in RULES {
        text.push_str(id);
        text.push('\t');
        text.push_str(what);
        for p in *patterns {
            text.push('\t');
            text.push_str(p);
        }
        text.push('\n');
    }
    blake3::hash(text.as_bytes())
        .to_hex()
        .chars()
        .take(12)
        .collect()
}

/// Checks Python modules: `(path, text)` each, with the names of the tools declared
/// `sends_out`.
pub fn check_python(files: &[(String, String)], sends_out: &[String]) -> CodeReport {
    let mut findings = Vec::new();
    let credential = regex_lite::Regex::new(
        r#"(?i)\b(api_?key|password|passwd|secret|token|access_key)\w*\s*[:=]\s*["'][^"'\s]{8,}["']|\bAKIA[0-9A-Z]{16}\b"#,
    )
    .ok();
    for (path, text) in files {
        let mut function: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(rest) = trimmed
                .strip_prefix("def ")
                .or_else(|| trimmed.strip_prefix("async def "))
            {
                function = rest.split('(').next().map(|n| n.trim().to_string());
            } else if !line.starts_with(' ')
                && !line.starts_with('\t')
                && !trimmed.is_empty()
                && !trimmed.starts_with('@')
            {
                function = None;
            }
            let code = trimmed.split('#').next().unwrap_or("");
            if let Some(f) = &function
                && !sends_out.contains(f)
                && let Some(pattern) = RULES
                    .first()
                    .and_then(|r| r.2.iter().find(|p| code.contains(**p)))
            {
                findings.push(CodeFinding {
                    check: "network_call".to_string(),
                    file: path.clone(),
                    line: i as u32 + 1,
                    message: format!("the tool `{f}` makes a network call (`{pattern}`) and is not declared sends_out"),
                });
            }
            if credential.as_ref().is_some_and(|re| re.is_match(code)) {
                findings.push(CodeFinding {
                    check: "hardcoded_credential".to_string(),
                    file: path.clone(),
                    line: i as u32 + 1,
                    message: "a credential is written into the source".to_string(),
                });
            }
        }
    }
    CodeReport {
        files: files.len(),
        rules_digest: rules_digest(),
        findings,
    }
}
