//! Values in a turn: numbers (read as the language writes them: `1,234.56` in English,
//! `1.234,56` in Brazilian Portuguese), codes (`A-4411`), e-mail addresses, URLs, quoted texts and
//! number words for small counts, each with its byte span and the word that names it
//! (`order 4411`, `pedido nº 4411`, `40 dollars`).

use stalwart_record::{Language, TermClass};

use crate::fold::TokenKind;
use crate::read::{ItemKind, Reading};

/// What a value is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlotKind {
    /// A number as written: its value; whether it was written without a decimal part; its
    /// count of digits; whether a currency marks it.
    Number {
        value: f64,
        whole: bool,
        digits: u32,
        money: bool,
    },
    /// Letters and digits together (`A-4411`, `visa4242`).
    Code,
    Email,
    Url,
    /// The inside of quotes.
    Text,
    /// A number word (`two`, `duas`).
    Count(u32),
}

/// A value found in a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub kind: SlotKind,
    /// As written.
    pub text: String,
    /// Byte span in the turn.
    pub start: usize,
    pub end: usize,
    /// The term just before it (stop words, `#`, `:` and `nº` skipped), if any.
    pub before: Option<u32>,
    /// The term just after it, if any.
    pub after: Option<u32>,
    /// Its item's index in the reading.
    pub item: usize,
}

/// Every value of a read turn, in order.
pub fn slots(reading: &Reading, language: Language, turn: &str) -> Vec<Slot> {
    let mut out = Vec::new();
    for (index, item) in reading.items.iter().enumerate() {
        let kind = match item.kind {
            ItemKind::Value => {
                let Some(tok) = reading.tokens.get(item.token) else {
                    continue;
                };
                match tok.kind {
                    TokenKind::Number => match read_number(&tok.folded, language) {
                        Some((value, whole)) => SlotKind::Number {
                            value,
                            whole,
                            digits: tok.folded.chars().filter(char::is_ascii_digit).count() as u32,
                            money: money_before(reading, index),
                        },
                        None => SlotKind::Code,
                    },
                    TokenKind::Code => SlotKind::Code,
                    TokenKind::Email => SlotKind::Email,
                    TokenKind::Url => SlotKind::Url,
                    TokenKind::Quoted => SlotKind::Text,
                    TokenKind::Word | TokenKind::Symbol => continue,
                }
            }
            ItemKind::Number(n) => SlotKind::Count(n),
            _ => continue,
        };
        let text = turn.get(item.start..item.end).unwrap_or("").to_string();
        out.push(Slot {
            kind,
            text,
            start: item.start,
            end: item.end,
            before: term_before(reading, index),
            after: term_after(reading, index),
            item: index,
        });
    }
    out
}

/// A currency sign or code right before the value.
fn money_before(reading: &Reading, index: usize) -> bool {
    let Some(prev) = index.checked_sub(1).and_then(|i| reading.items.get(i)) else {
        return false;
    };
    match prev.kind {
        ItemKind::Symbol(c) => matches!(c, '$' | '€' | '£' | '¥'),
        _ => reading
            .tokens
            .get(prev.token)
            .is_some_and(|t| matches!(t.folded.as_str(), "usd" | "brl" | "eur" | "r$" | "us$")),
    }
}

/// The term naming the value from before it: the nearest item before, past stop words and the
/// signs that sit between a name and its value.
fn term_before(reading: &Reading, index: usize) -> Option<u32> {
    let mut i = index;
    for _ in 0..3 {
        i = i.checked_sub(1)?;
        match reading.items.get(i)?.kind {
            ItemKind::Term { term, class } if class != TermClass::Action => return Some(term),
            ItemKind::Stop => {}
            ItemKind::Symbol('#' | ':' | '=' | '°' | 'º') => {}
            _ => return None,
        }
    }
    None
}

fn term_after(reading: &Reading, index: usize) -> Option<u32> {
    match reading.items.get(index + 1)?.kind {
        ItemKind::Term { term, .. } => Some(term),
        _ => None,
    }
}

/// A number as `language` writes it, and whether it has no decimal part. `None` for a run of
/// digits and separators that is no number (a version, grouping that is not in threes).
pub fn read_number(text: &str, language: Language) -> Option<(f64, bool)> {
    let dots = text.matches('.').count();
    let commas = text.matches(',').count();
    let (group, decimal) = match (language, dots, commas) {
        (_, 0, 0) => return parse(text, "", None),
        // Both: the last one written is the decimal separator.
        (_, _, _) if dots > 0 && commas > 0 => {
            let last_dot = text.rfind('.')?;
            let last_comma = text.rfind(',')?;
            if last_dot > last_comma {
                (',', '.')
            } else {
                ('.', ',')
            }
        }
        (Language::En, 1, 0) => return parse(text, "", Some('.')),
        (Language::En, _, 0) => return None,
        (Language::En, 0, 1) => {
            let after = text.rsplit(',').next()?.len();
            if after == 3 {
                (',', '.')
            } else if after <= 2 {
                return parse(text, "", Some(','));
            } else {
                return None;
            }
        }
        (Language::En, 0, _) => (',', '.'),
        (Language::PtBr, 0, 1) => return parse(text, "", Some(',')),
        (Language::PtBr, 0, _) => return None,
        (Language::PtBr, _, 0) => {
            let grouped = text.split('.').skip(1).all(|g| g.len() == 3);
            if grouped {
                ('.', ',')
            } else if dots == 1 {
                return parse(text, "", Some('.'));
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let (whole, fraction) = match text.split_once(decimal) {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    if fraction.is_some_and(|f| f.contains(decimal) || f.contains(group)) {
        return None;
    }
    let mut groups = whole.split(group);
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 || !groups.all(|g| g.len() == 3) {
        return None;
    }
    let digits: String = whole.chars().filter(char::is_ascii_digit).collect();
    match fraction {
        Some(f) => parse(&format!("{digits}.{f}"), "", Some('.')),
        None => parse(&digits, "", None),
    }
}

fn parse(text: &str, _group: &str, decimal: Option<char>) -> Option<(f64, bool)> {
    let normal: String = match decimal {
        Some(d) => text.replace(d, "."),
        None => text.to_string(),
    };
    if normal.is_empty() || normal.starts_with('.') || normal.ends_with('.') {
        return None;
    }
    let value: f64 = normal.parse().ok()?;
    value.is_finite().then_some((value, !normal.contains('.')))
}

#[cfg(test)]
mod tests {
    use super::read_number;
    use stalwart_record::Language::{En, PtBr};

    #[test]
    fn numbers_read_as_each_language_writes_them() {
        assert_eq!(read_number("40.00", En), Some((40.0, false)));
        assert_eq!(read_number("1,234.56", En), Some((1234.56, false)));
        assert_eq!(read_number("4,411", En), Some((4411.0, true)));
        assert_eq!(read_number("40,5", En), Some((40.5, false)));
        assert_eq!(read_number("1.234,56", PtBr), Some((1234.56, false)));
        assert_eq!(read_number("40,00", PtBr), Some((40.0, false)));
        assert_eq!(read_number("1.234", PtBr), Some((1234.0, true)));
        assert_eq!(read_number("1.234", En), Some((1.234, false)));
        assert_eq!(read_number("40.5", PtBr), Some((40.5, false)));
        assert_eq!(read_number("4411", PtBr), Some((4411.0, true)));
        assert_eq!(read_number("1.2.3", En), None);
        assert_eq!(read_number("12,34,5", En), None);
    }
}
