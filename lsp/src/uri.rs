//! `file://` URIs and paths, both ways (percent-encoding as RFC 3986 asks).

use std::path::{Path, PathBuf};

use lsp_types::Uri;

/// The path a `file:` URI names; `None` for other schemes.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` name the same file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(rest)?;
    Some(stalwart_ide::normalize(Path::new(&decoded)))
}

/// The `file:` URI of a path.
pub fn from_path(path: &Path) -> Uri {
    let mut out = String::from("file://");
    let text = path.to_string_lossy();
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        let keep = b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    // Every byte outside the unreserved set is encoded, so the text always parses.
    out.parse()
        .unwrap_or_else(|_| "file:///".parse().expect("`file:///` parses"))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_accents_round_trip() {
        let path = Path::new("/tmp/a b/café/agent.yaml");
        let uri = from_path(path);
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/caf%C3%A9/agent.yaml");
        assert_eq!(to_path(&uri).as_deref(), Some(path));
    }

    #[test]
    fn other_schemes_name_no_file() {
        let uri: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(to_path(&uri), None);
    }
}
