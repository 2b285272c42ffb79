//! The rule sheet's tree: cells with their spans (and how their text maps back to the source),
//! rows with their parsed `when` and `then`, and the sheet's default.

use stalwart_diagnostics::{FileId, Span};

use crate::expr::Expr;

/// A rule sheet: its rows in file order (the first that holds decides) and its default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sheet {
    pub rows: Vec<Row>,
    /// `default: allow|refuse` and where it is written; `None`: not written (refuse).
    pub default: Option<(SheetDefault, Span)>,
}

impl Sheet {
    /// The decision when no row holds: the written default, else refuse.
    pub fn default_decision(&self) -> SheetDefault {
        self.default.map_or(SheetDefault::Refuse, |(d, _)| d)
    }
}

/// What a sheet decides when no row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SheetDefault {
    Allow,
    Refuse,
}

impl SheetDefault {
    pub fn from_word(word: &str) -> Option<Self> {
        match word {
            "allow" => Some(SheetDefault::Allow),
            "refuse" => Some(SheetDefault::Refuse),
            _ => None,
        }
    }
}

/// One rule row. `then` and `when` are `None` when the cell could not be read (reported).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub rule: Cell,
    pub tool: Cell,
    /// The raw `when` cell; empty means the row always holds.
    pub when_cell: Cell,
    /// The parsed condition; `None` for an empty cell or one that did not parse.
    pub when: Option<Expr>,
    pub then_cell: Cell,
    pub then: Option<Then>,
    pub say: Cell,
    /// The whole row.
    pub span: Span,
}

impl Row {
    /// The row holds whatever the call: its `when` is empty.
    pub fn is_unconditional(&self) -> bool {
        self.when_cell.text.trim().is_empty()
    }
}

/// What a row decides when it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    Allow,
    Refuse,
    Ask,
}

impl Then {
    pub fn from_word(word: &str) -> Option<Self> {
        match word {
            "allow" => Some(Then::Allow),
            "refuse" => Some(Then::Refuse),
            "ask" => Some(Then::Ask),
            _ => None,
        }
    }
}

/// A cell's text and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    /// The cell's content (inside the quotes of a quoted cell; for a missing cell, an empty span
    /// where it would be).
    pub span: Span,
    pub map: CellMap,
}

/// How byte offsets in a cell's text map to the source.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CellMap {
    /// The text is written as is from `span.start`.
    #[default]
    Verbatim,
    /// A quoted CSV cell whose doubled quotes (`""`) were read as one: the offsets (in the text)
    /// of each quote that stands for two source bytes.
    Collapsed(Vec<u32>),
    /// The text is not written as is (a YAML scalar with escapes): every offset maps to the
    /// whole cell.
    Opaque,
}

impl Cell {
    /// A verbatim cell.
    pub fn new(text: impl Into<String>, span: Span) -> Self {
        Self {
            text: text.into(),
            span,
            map: CellMap::Verbatim,
        }
    }

    /// The source span of the bytes `l..r` of the cell's text.
    pub fn span_of(&self, l: u32, r: u32) -> Span {
        match &self.map {
            CellMap::Verbatim => self.shifted(l, r),
            CellMap::Collapsed(quotes) => {
                let before = |at: u32| {
                    u32::try_from(quotes.iter().filter(|&&q| q < at).count()).unwrap_or(0)
                };
                self.shifted(l.saturating_add(before(l)), r.saturating_add(before(r)))
            }
            CellMap::Opaque => self.span,
        }
    }

    fn shifted(&self, l: u32, r: u32) -> Span {
        Span::new(
            self.span.file,
            self.span.start.saturating_add(l).min(self.span.end),
            self.span.start.saturating_add(r).min(self.span.end),
        )
    }

    /// Maps a span relative to the cell's text (as `parse_condition` with offset 0 gives) to
    /// the source.
    pub fn map_span(&self, s: Span) -> Span {
        self.span_of(s.start, s.end)
    }

    pub fn file(&self) -> FileId {
        self.span.file
    }
}
