//! Where the cursor is in agent.yaml or a catalogue, read from the lines around it (indentation
//! and keys), so that it works while the file does not parse: the key under the cursor, the
//! mapping a new key would go into, and the key whose value is being written.

use std::path::Path;

use crate::docs::KeyContext;
use crate::host::is_agent_file;

/// One line's key: its indentation (a `- ` counts as indentation), the key and its byte range.
struct LineKey {
    indent: usize,
    key: String,
    start: usize,
    end: usize,
}

fn line_key(line: &str, line_start: usize) -> Option<LineKey> {
    let trimmed = line.trim_start();
    let mut indent = line.len() - trimmed.len();
    let mut rest = trimmed;
    while let Some(r) = rest.strip_prefix("- ") {
        let r2 = r.trim_start();
        indent += rest.len() - r2.len();
        rest = r2;
    }
    let quoted = rest.starts_with('"');
    let body = if quoted { &rest[1..] } else { rest };
    let len = body
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '$'))
        .unwrap_or(body.len());
    if len == 0 {
        return None;
    }
    let after = &body[len..];
    let after = if quoted {
        after.strip_prefix('"')?
    } else {
        after
    };
    if !after.trim_start().starts_with(':') {
        return None;
    }
    let start = line_start + indent + usize::from(quoted);
    Some(LineKey {
        indent,
        key: body[..len].to_string(),
        start,
        end: start + len,
    })
}

/// The lines of a text with their start offsets.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        out.push((start, line));
        start += line.len() + 1;
    }
    out
}

/// The keys of the mappings that hold a line indented `indent`, outermost first.
fn parents(all: &[(usize, &str)], line: usize, indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut limit = indent;
    for i in (0..line).rev() {
        let (start, text) = all[i];
        if text.trim().is_empty() || text.trim_start().starts_with('#') {
            continue;
        }
        let own = text.len() - text.trim_start().len();
        if own >= limit {
            continue;
        }
        if let Some(k) = line_key(text, start) {
            out.push(k.key);
        }
        limit = own;
        if limit == 0 {
            break;
        }
    }
    out.reverse();
    out
}

/// The mapping a key at this path of parents belongs to.
fn context(parents: &[String], path: &Path) -> Option<KeyContext> {
    let agent = is_agent_file(path);
    let p: Vec<&str> = parents.iter().map(String::as_str).collect();
    if !agent {
        return match p.as_slice() {
            [] | ["tools"] => Some(KeyContext::Tool),
            _ => None,
        };
    }
    Some(match p.as_slice() {
        [] => KeyContext::AgentTop,
        ["agents", _] => KeyContext::Agent,
        ["tools"] | ["overrides", _] => KeyContext::Tool,
        ["facts", _] => KeyContext::Fact,
        ["settings"] => KeyContext::Settings,
        ["steps", _] => KeyContext::Step,
        ["channels", _] => KeyContext::Channel,
        ["stores", _] => KeyContext::Store,
        _ => return None,
    })
}

fn line_at(all: &[(usize, &str)], offset: u32) -> usize {
    let offset = offset as usize;
    all.iter().rposition(|(s, _)| *s <= offset).unwrap_or(0)
}

/// The key under the cursor: its context, text and byte range.
pub fn key_at(text: &str, offset: u32, path: &Path) -> Option<(KeyContext, String, u32, u32)> {
    if !is_yaml_or_json(path) {
        return None;
    }
    let all = lines(text);
    let i = line_at(&all, offset);
    let (start, line) = all[i];
    let k = line_key(line, start)?;
    if (offset as usize) < k.start || (offset as usize) > k.end {
        return None;
    }
    let ctx = if path.to_string_lossy().ends_with(".json") {
        KeyContext::Tool
    } else {
        context(&parents(&all, i, k.indent), path)?
    };
    Some((ctx, k.key, k.start as u32, k.end as u32))
}

/// Where a key typed at the cursor would go: the mapping's context, when the line holds only
/// the beginning of a key.
pub fn key_context_at(text: &str, offset: u32, path: &Path) -> Option<KeyContext> {
    if !is_yaml_or_json(path) || path.to_string_lossy().ends_with(".json") {
        return None;
    }
    let all = lines(text);
    let i = line_at(&all, offset);
    let (start, line) = all[i];
    let before = line.get(..(offset as usize).saturating_sub(start))?;
    let word = before.trim_start().trim_start_matches("- ").trim_start();
    if !word.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let indent = before.len() - word.len();
    context(&parents(&all, i, indent), path)
}

/// The key whose value the cursor is in (`tools` in `tools: [get_order, |`, or in a list item
/// under `tools:`), with its parents.
pub fn value_key_at(text: &str, offset: u32) -> Option<(Vec<String>, String)> {
    let all = lines(text);
    let i = line_at(&all, offset);
    let (start, line) = all[i];
    let before = line.get(..(offset as usize).saturating_sub(start))?;
    if let Some(k) = line_key(line, start)
        && before.len() > k.end - start
    {
        let parents = parents(&all, i, k.indent);
        return Some((parents, k.key));
    }
    let trimmed = before.trim_start();
    if trimmed.starts_with("- ") || trimmed == "-" {
        let indent = before.len() - trimmed.len();
        let mut p = parents(&all, i, indent + 1);
        let key = p.pop()?;
        return Some((p, key));
    }
    None
}

fn is_yaml_or_json(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
}
