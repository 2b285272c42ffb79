//! Which Colang dialect a file is written in: the content heuristic of the reference package
//! and the `colang_version` key of a configuration folder's `config.yml`.

/// A Colang dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Colang 1.0 (`define user|bot|flow|subflow`).
    V1,
    /// Colang 2.x (`flow`, decorators, `import`).
    V2,
}

impl Dialect {
    /// The version as `config.yml` and `inspect` spell it: `1.0` or `2.x`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::V1 => "1.0",
            Dialect::V2 => "2.x",
        }
    }
}

/// Guesses the dialect of a `.co` file the way the reference package does: text between triple
/// quotes and everything after a `#` is dropped; if a line then starts with optional whitespace
/// and `define`, the file is 1.0, otherwise 2.x (so an empty or comment-only file is 2.x).
pub fn detect_dialect(text: &str) -> Dialect {
    let without_docstrings = drop_triple_quoted(text);
    let v1 = without_docstrings.split('\n').any(|line| {
        let code = line.split('#').next().unwrap_or("");
        code.trim_start_matches(is_python_space)
            .starts_with("define")
    });
    if v1 { Dialect::V1 } else { Dialect::V2 }
}

/// Removes each `"""…"""` (shortest match, leftmost first, across lines); an unclosed `"""` stays.
fn drop_triple_quoted(text: &str) -> std::borrow::Cow<'_, str> {
    const QUOTES: &str = "\"\"\"";
    let Some(first) = text.find(QUOTES) else {
        return std::borrow::Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut next = Some(first);
    while let Some(open) = next {
        let (before, from_open) = rest.split_at(open);
        let after_open = from_open.get(QUOTES.len()..).unwrap_or("");
        let Some(close) = after_open.find(QUOTES) else {
            break;
        };
        out.push_str(before);
        rest = after_open.get(close + QUOTES.len()..).unwrap_or("");
        next = rest.find(QUOTES);
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Python's `\s` for text: Unicode whitespace plus the ASCII separators U+001C–U+001F.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Reads the top-level `colang_version` key of a `config.yml` (`"1.0"` or `"2.x"`, quoted or
/// not, a trailing comment allowed). `None` when the key is missing or has another value; the
/// reference's default is then 1.0.
pub fn dialect_from_config(config_yml_text: &str) -> Option<Dialect> {
    config_yml_text.lines().find_map(|line| {
        let rest = line.strip_prefix("colang_version")?;
        let value = rest.trim_start().strip_prefix(':')?;
        let value = value.split(" #").next().unwrap_or("").trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        match value {
            "1.0" => Some(Dialect::V1),
            "2.x" => Some(Dialect::V2),
            _ => None,
        }
    })
}
