//! Positions: the compiler speaks byte offsets; the client speaks lines and columns in the
//! encoding the two agreed on at `initialize` (UTF-8 when the client offers it, else UTF-16, the
//! protocol's default). A position past the end of a line or of the file is clamped to the end of
//! that line or file; a column inside a character is moved back to the character's start.

use lsp_types::{Position, Range};

/// The encoding columns are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Where each line of a text starts.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { text, starts }
    }

    /// The line's text without its line break.
    fn line(&self, line: usize) -> (usize, &'a str) {
        let start = self.starts.get(line).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |next| next - 1);
        let text = self.text.get(start..end.max(start)).unwrap_or("");
        (start, text.strip_suffix('\r').unwrap_or(text))
    }

    /// The byte offset of a position, clamped to the text.
    pub fn offset(&self, pos: Position, enc: Encoding) -> u32 {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return self.text.len() as u32;
        }
        let (start, text) = self.line(line);
        let col = pos.character as usize;
        let within = match enc {
            Encoding::Utf8 => {
                let mut c = col.min(text.len());
                while !text.is_char_boundary(c) {
                    c -= 1;
                }
                c
            }
            Encoding::Utf16 => {
                let mut units = 0;
                let mut bytes = text.len();
                for (i, ch) in text.char_indices() {
                    let next = units + ch.len_utf16();
                    if next > col {
                        bytes = i;
                        break;
                    }
                    units = next;
                }
                bytes
            }
        };
        (start + within) as u32
    }

    /// The position of a byte offset (clamped to the text, and back to a character's start).
    pub fn position(&self, offset: u32, enc: Encoding) -> Position {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let (start, text) = self.line(line);
        let col = offset.saturating_sub(start).min(text.len());
        let character = match enc {
            Encoding::Utf8 => col,
            Encoding::Utf16 => text.get(..col).map_or(0, |s| s.encode_utf16().count()),
        };
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, start: u32, end: u32, enc: Encoding) -> Range {
        Range::new(self.position(start, enc), self.position(end, enc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str, enc: Encoding, line: u32, character: u32) -> (u32, Position) {
        let index = LineIndex::new(text);
        let offset = index.offset(Position::new(line, character), enc);
        (offset, index.position(offset, enc))
    }

    #[test]
    fn utf16_counts_accents_cjk_and_emoji_as_the_protocol_does() {
        // é: 2 bytes, 1 unit; 中: 3 bytes, 1 unit; 😀: 4 bytes, 2 units.
        let text = "a é中😀 b\nx";
        assert_eq!(round(text, Encoding::Utf16, 0, 2).0, 2);
        assert_eq!(round(text, Encoding::Utf16, 0, 3).0, 4);
        assert_eq!(round(text, Encoding::Utf16, 0, 4).0, 7);
        // Inside the emoji's surrogate pair: back to its start.
        assert_eq!(round(text, Encoding::Utf16, 0, 5), (7, Position::new(0, 4)));
        assert_eq!(round(text, Encoding::Utf16, 0, 6).0, 11);
        assert_eq!(round(text, Encoding::Utf16, 0, 7).0, 12);
    }

    #[test]
    fn utf8_columns_are_bytes() {
        let text = "a é中😀 b";
        assert_eq!(round(text, Encoding::Utf8, 0, 7), (7, Position::new(0, 7)));
        // Inside `中`: back to its start.
        assert_eq!(round(text, Encoding::Utf8, 0, 5), (4, Position::new(0, 4)));
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        let text = "ab\r\ncd";
        assert_eq!(
            round(text, Encoding::Utf16, 0, 99),
            (2, Position::new(0, 2))
        );
        assert_eq!(round(text, Encoding::Utf16, 9, 0), (6, Position::new(1, 2)));
        let index = LineIndex::new(text);
        assert_eq!(index.position(999, Encoding::Utf16), Position::new(1, 2));
    }
}
