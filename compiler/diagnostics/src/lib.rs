//! The one diagnostic model of the compiler, and its renderers.
//!
//! Front ends and checks produce [`Diagnostic`] values: a stable code (`E0104`) with a kebab
//! slug, a severity, a primary label at an exact byte span, secondary labels, notes, help and an
//! optional fix. Spans are byte ranges plus a [`FileId`]; line and column are computed only by the
//! renderers ([`render_text`], [`render_json`]), from a [`Files`] set that maps ids to names and text.

mod json;
mod text;

pub use json::{render_json, to_json};
pub use text::render_text;

/// An opaque id of a source file, assigned by whoever owns the file set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        Self {
            file,
            start,
            end: end.max(start),
        }
    }

    /// The range as `usize`s.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A stable diagnostic code: `E0104` plus the slug naming the bad pattern (`unknown-key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code {
    pub id: &'static str,
    pub slug: &'static str,
}

/// A label: a span and what it says about it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A machine-applicable suggestion: replace the span with the text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fix {
    pub span: Span,
    pub replacement: String,
    pub message: String,
}

/// One diagnostic, structured until it is rendered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// One line, lowercase start, no final period, user text in backticks.
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Option<String>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// An error with a primary label.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, span, message)
    }

    /// A warning with a primary label.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, span, message)
    }

    /// A note: something the reader should know that needs no change.
    pub fn note(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Note, span, message)
    }

    fn new(code: Code, severity: Severity, span: Span, message: impl Into<String>) -> Self {
        Self {
            code,
            severity,
            message: message.into(),
            primary: Label {
                span,
                message: String::new(),
            },
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
        }
    }

    /// Sets the primary label's text.
    pub fn with_label(mut self, message: impl Into<String>) -> Self {
        self.primary.message = message.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(
        mut self,
        span: Span,
        replacement: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        self.fix = Some(Fix {
            span,
            replacement: replacement.into(),
            message: message.into(),
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A set of source files by id, for rendering.
#[derive(Debug, Clone, Default)]
pub struct Files {
    files: Vec<(FileId, String, String, Vec<usize>)>,
}

impl Files {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file under an id chosen by the caller.
    pub fn insert(&mut self, id: FileId, name: impl Into<String>, text: impl Into<String>) {
        let text = text.into();
        let starts = line_starts(&text);
        self.files.retain(|(fid, ..)| *fid != id);
        self.files.push((id, name.into(), text, starts));
    }

    pub fn name(&self, id: FileId) -> Option<&str> {
        self.get(id).map(|f| f.1.as_str())
    }

    pub fn text(&self, id: FileId) -> Option<&str> {
        self.get(id).map(|f| f.2.as_str())
    }

    fn get(&self, id: FileId) -> Option<&(FileId, String, String, Vec<usize>)> {
        self.files.iter().find(|f| f.0 == id)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, id: FileId, offset: u32) -> (u32, u32) {
        let Some((_, _, text, starts)) = self.get(id) else {
            return (1, 1);
        };
        let offset = (offset as usize).min(text.len());
        let line = match starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = starts.get(line).copied().unwrap_or(0);
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        (line as u32 + 1, col as u32 + 1)
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Sorts diagnostics by file, position and code, the order every renderer prints them in.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (
            a.primary.span.file,
            a.primary.span.start,
            a.code.id,
            &a.message,
        )
            .cmp(&(
                b.primary.span.file,
                b.primary.span.start,
                b.code.id,
                &b.message,
            ))
    });
}

/// Suggests the candidate nearest to `word` (edit distance at most a third of its length, at least 1).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_picks_the_nearest_key() {
        assert_eq!(
            did_you_mean("toolz", ["tools", "agents", "facts"]),
            Some("tools")
        );
        assert_eq!(
            did_you_mean("hands_of_to", ["hands_off_to", "tools"]),
            Some("hands_off_to")
        );
        assert_eq!(did_you_mean("zzzzzz", ["tools", "agents"]), None);
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let mut files = Files::new();
        files.insert(FileId(0), "a.yaml", "ab\ncdé f\n");
        assert_eq!(files.line_col(FileId(0), 0), (1, 1));
        assert_eq!(files.line_col(FileId(0), 3), (2, 1));
        // `f` is after a two-byte character.
        assert_eq!(files.line_col(FileId(0), 8), (2, 5));
    }
}
