//! Reading a turn with one language's reader: every token (or run of tokens the lexicon reads as
//! one) becomes an [`Item`] with its byte span — a term, a word of a known kind, a slot value, a
//! symbol, or a word nobody knows — and the counts the selector decides on are taken.
//!
//! Lookups are binary searches over the reader's sorted tables in the record: no hashing, no
//! allocation but the folded words the tokens already hold. A word not found as written is looked
//! up by its stem (Snowball), then as a typo of a known word of five letters or more (one letter
//! added, left out, changed, or two swapped), and only then counts as unknown.

use rust_stemmers::Stemmer;
use stalwart_record::{
    ArchivedReader, ArchivedTermClass, ArchivedWord, ArchivedWordKind, Language, TermClass,
};

use crate::compile::{MAX_PHRASE, TYPO_MIN, deletions};
use crate::fold::{Token, TokenKind, tokens};

/// At most this many tokens of a turn are read.
pub const MAX_TOKENS: usize = 256;

/// What an item of a turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A term of the reader.
    Term {
        term: u32,
        class: TermClass,
    },
    /// A word that carries nothing for the routes.
    Stop,
    Negation,
    Question,
    Compute,
    Operator,
    Foreign,
    Number(u32),
    Yes,
    No,
    Then,
    /// A word the reader does not know.
    Unknown,
    /// A value: the token at `token` (a number, a code, an address, a URL, a quoted text).
    Value,
    /// Punctuation and other single characters.
    Symbol(char),
}

/// One item of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    pub kind: ItemKind,
    /// Byte span in the turn.
    pub start: usize,
    pub end: usize,
    /// The first token of the item, and how many it took.
    pub token: usize,
    pub len: usize,
}

/// A turn, read.
#[derive(Debug, Clone)]
pub struct Reading {
    pub tokens: Vec<Token>,
    pub items: Vec<Item>,
    /// Words of this language (known words of any kind but foreign).
    pub native: u32,
    pub foreign: u32,
    pub unknown: u32,
    /// Letters outside the Latin script, and all letters.
    pub other_script: u32,
    pub letters: u32,
}

/// Whether a word is a verb's past form (`charged`, `refunded`, `sent`; `cobrado`, `cobrou`,
/// `estornaram`): it tells what happened rather than asks for it.
fn is_past(word: &str, language: Language) -> bool {
    let long = word.chars().count() > 4;
    match language {
        Language::En => {
            (long && word.ends_with("ed")) || matches!(word, "sent" | "paid" | "took" | "gave")
        }
        Language::PtBr => {
            long && [
                "ado", "ada", "ido", "ida", "ou", "aram", "eram", "iram", "ei", "ados", "idos",
            ]
            .iter()
            .any(|e| word.ends_with(e))
        }
    }
}

/// Reads `turn` with `reader`.
pub fn read(reader: &ArchivedReader, stemmer: &Stemmer, turn: &str) -> Reading {
    let toks = tokens(turn, MAX_TOKENS);
    let mut items = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let (mut kind, len) = item_at(reader, stemmer, &toks, i);
        let len = len.max(1);
        // An action in a past form tells what happened: it is read as a thing, not a request.
        if let ItemKind::Term {
            term,
            class: TermClass::Action,
        } = kind
            && len == 1
            && toks
                .get(i)
                .is_some_and(|t| is_past(&t.folded, language_of(reader)))
        {
            kind = ItemKind::Term {
                term,
                class: TermClass::Other,
            };
        }
        let start = toks.get(i).map_or(0, |t| t.start);
        let end = toks.get(i + len - 1).map_or(start, |t| t.end);
        items.push(Item {
            kind,
            start,
            end,
            token: i,
            len,
        });
        i += len;
    }
    let mut reading = Reading {
        tokens: toks,
        items,
        native: 0,
        foreign: 0,
        unknown: 0,
        other_script: 0,
        letters: 0,
    };
    for item in &reading.items {
        match item.kind {
            ItemKind::Foreign => reading.foreign += 1,
            ItemKind::Unknown => reading.unknown += 1,
            ItemKind::Value | ItemKind::Symbol(_) => {}
            _ => reading.native += 1,
        }
    }
    for c in turn.chars().take(4096) {
        if c.is_alphabetic() {
            reading.letters += 1;
            if !is_latin(c) {
                reading.other_script += 1;
            }
        }
    }
    reading
}

fn language_of(reader: &ArchivedReader) -> Language {
    match reader.language {
        stalwart_record::ArchivedLanguage::En => Language::En,
        stalwart_record::ArchivedLanguage::PtBr => Language::PtBr,
    }
}

/// Latin letters (with their accents): Basic Latin to Latin Extended Additional.
fn is_latin(c: char) -> bool {
    matches!(c as u32, 0x41..=0x5a | 0x61..=0x7a | 0xaa | 0xba | 0xc0..=0x24f | 0x1e00..=0x1eff)
}

fn item_at(
    reader: &ArchivedReader,
    stemmer: &Stemmer,
    toks: &[Token],
    i: usize,
) -> (ItemKind, usize) {
    let Some(tok) = toks.get(i) else {
        return (ItemKind::Unknown, 1);
    };
    match tok.kind {
        TokenKind::Number
        | TokenKind::Code
        | TokenKind::Email
        | TokenKind::Url
        | TokenKind::Quoted => return (ItemKind::Value, 1),
        TokenKind::Word | TokenKind::Symbol => {}
    }
    if let Some((kind, len)) = phrase_at(reader, toks, i) {
        return (kind, len);
    }
    if let Some(word) = find(&reader.words, &tok.folded) {
        return (kind_of(reader, &word.kind), 1);
    }
    if tok.kind == TokenKind::Symbol {
        let c = tok.folded.chars().next().unwrap_or(' ');
        return (ItemKind::Symbol(c), 1);
    }
    // A word with an apostrophe (`customer's`, `d'água`): the part before it.
    let base = tok.folded.split('\'').next().unwrap_or(&tok.folded);
    if base != tok.folded
        && let Some(word) = find(&reader.words, base)
    {
        return (kind_of(reader, &word.kind), 1);
    }
    let stem = stemmer.stem(base);
    if let Ok(at) = reader
        .stems
        .binary_search_by(|e| e.stem.as_str().cmp(stem.as_ref()))
        && let Some(entry) = reader.stems.get(at)
    {
        return (term_kind(reader, entry.term.to_native()), 1);
    }
    if let Some(kind) = typo(reader, base) {
        return (kind, 1);
    }
    (ItemKind::Unknown, 1)
}

/// The longest run of words at `i` that the reader knows as one.
fn phrase_at(reader: &ArchivedReader, toks: &[Token], i: usize) -> Option<(ItemKind, usize)> {
    if reader.phrases.is_empty() {
        return None;
    }
    let mut key = String::new();
    let mut found = None;
    for len in 1..=MAX_PHRASE {
        let Some(tok) = toks.get(i + len - 1) else {
            break;
        };
        if !matches!(tok.kind, TokenKind::Word | TokenKind::Symbol) {
            break;
        }
        if len > 1 {
            key.push(' ');
        }
        key.push_str(&tok.folded);
        if len > 1
            && let Some(word) = find(&reader.phrases, &key)
        {
            found = Some((kind_of(reader, &word.kind), len));
        }
        // No phrase starts with what we have: stop early.
        let at = reader
            .phrases
            .partition_point(|w| w.text.as_str() < key.as_str());
        if !reader
            .phrases
            .get(at)
            .is_some_and(|w| w.text.as_str().starts_with(key.as_str()))
        {
            break;
        }
    }
    found
}

fn find<'r>(table: &'r [ArchivedWord], text: &str) -> Option<&'r ArchivedWord> {
    let at = table.binary_search_by(|w| w.text.as_str().cmp(text)).ok()?;
    table.get(at)
}

fn kind_of(reader: &ArchivedReader, kind: &ArchivedWordKind) -> ItemKind {
    match kind {
        ArchivedWordKind::Term(t) => term_kind(reader, t.to_native()),
        ArchivedWordKind::Stop => ItemKind::Stop,
        ArchivedWordKind::Negation => ItemKind::Negation,
        ArchivedWordKind::Question => ItemKind::Question,
        ArchivedWordKind::Compute => ItemKind::Compute,
        ArchivedWordKind::Foreign => ItemKind::Foreign,
        ArchivedWordKind::Number(n) => ItemKind::Number(n.to_native()),
        ArchivedWordKind::Yes => ItemKind::Yes,
        ArchivedWordKind::No => ItemKind::No,
        ArchivedWordKind::Then => ItemKind::Then,
        ArchivedWordKind::Operator => ItemKind::Operator,
    }
}

fn term_kind(reader: &ArchivedReader, term: u32) -> ItemKind {
    let class = reader
        .terms
        .get(term as usize)
        .map_or(TermClass::Other, |t| match t.class {
            ArchivedTermClass::Action => TermClass::Action,
            ArchivedTermClass::Look => TermClass::Look,
            ArchivedTermClass::Object => TermClass::Object,
            ArchivedTermClass::Other => TermClass::Other,
        });
    ItemKind::Term { term, class }
}

/// A known word `word` is a typo of: one whose typo keys share a key with `word`'s, within one
/// edit; `None` unless every such word reads as the same term.
fn typo(reader: &ArchivedReader, word: &str) -> Option<ItemKind> {
    let length = word.chars().count();
    if !(TYPO_MIN..=24).contains(&length) {
        return None;
    }
    let mut found: Option<u32> = None;
    for key in deletions(word) {
        let from = reader
            .near
            .partition_point(|e| e.key.as_str() < key.as_str());
        for entry in reader.near.get(from..).unwrap_or(&[]) {
            if entry.key.as_str() != key {
                break;
            }
            let Some(candidate) = reader.words.get(entry.word.to_native() as usize) else {
                continue;
            };
            let ArchivedWordKind::Term(term) = candidate.kind else {
                continue;
            };
            if !within_one_edit(word, candidate.text.as_str()) {
                continue;
            }
            match found {
                None => found = Some(term.to_native()),
                Some(t) if t == term.to_native() => {}
                Some(_) => return None,
            }
        }
    }
    found.map(|t| term_kind(reader, t))
}

/// Whether `a` becomes `b` by one letter added, left out or changed, or two neighbours swapped.
pub(crate) fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b {
        return true;
    }
    let (la, lb) = (a.len(), b.len());
    if la.abs_diff(lb) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let rest_a = a.get(prefix..).unwrap_or(&[]);
    let rest_b = b.get(prefix..).unwrap_or(&[]);
    if la == lb {
        // Changed, or swapped with the next.
        let changed = rest_a.get(1..) == rest_b.get(1..);
        let swapped = rest_a.len() >= 2
            && rest_a.first() == rest_b.get(1)
            && rest_a.get(1) == rest_b.first()
            && rest_a.get(2..) == rest_b.get(2..);
        changed || swapped
    } else if la > lb {
        rest_a.get(1..) == Some(rest_b)
    } else {
        rest_b.get(1..) == Some(rest_a)
    }
}

#[cfg(test)]
mod tests {
    use super::within_one_edit;

    #[test]
    fn one_edit_apart() {
        assert!(within_one_edit("refnd", "refund"));
        assert!(within_one_edit("reciept", "receipt"));
        assert!(within_one_edit("recipt", "receipt"));
        assert!(within_one_edit("refunf", "refund"));
        assert!(!within_one_edit("refund", "rotund2"));
        assert!(!within_one_edit("charge", "change2"));
    }
}
