//! Compiling the readers: for each language, the words the selector knows and the routes each
//! term points to, built from a record body whose tools, intents and routes are lowered. The
//! compiler calls [`compile_readers`]; the runtime never builds a reader.
//!
//! Everything is sorted and deduplicated in a fixed order, so the same body always gives the
//! same readers. A word listed twice keeps its first meaning, in this order: concepts, number
//! words, calculation words, negations, how/why words, yes, no, joining words, operators, words
//! that carry nothing, and last the words of other languages.

use std::collections::BTreeMap;

use rust_stemmers::Stemmer;
use stalwart_record::{
    Language, NearEntry, Posting, Profile, Reader, RecordBody, Role, RouteTarget, StemEntry, Term,
    TermClass, Word, WordKind,
};

use crate::fold::{TokenKind, tokens};
use crate::lexicon::{LANGUAGES, Lexicon, lexicon};

/// One reader per language the selector reads, in the order of [`LANGUAGES`].
pub fn compile_readers(body: &RecordBody) -> Vec<Reader> {
    LANGUAGES.iter().map(|&l| compile_reader(body, l)).collect()
}

/// What a word or run of words is, before terms are numbered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    Term(String),
    Kind(WordKind),
}

struct Build<'a> {
    lex: &'a Lexicon,
    /// Names (of tools, arguments, intents) are identifiers, written in English whatever the
    /// language: their words are read through the English concepts when this language does not
    /// know them.
    identifiers: BTreeMap<String, String>,
    stemmer: Stemmer,
    /// Term text → class and postings (route → strongest role).
    terms: BTreeMap<String, (TermClass, BTreeMap<u32, Role>)>,
    words: BTreeMap<String, Pending>,
    phrases: BTreeMap<String, Pending>,
    stems: BTreeMap<String, String>,
}

fn compile_reader(body: &RecordBody, language: Language) -> Reader {
    let lex = lexicon(language);
    let mut b = Build {
        lex,
        identifiers: identifier_concepts(),
        stemmer: Stemmer::create(crate::lexicon::algorithm(language)),
        terms: BTreeMap::new(),
        words: BTreeMap::new(),
        phrases: BTreeMap::new(),
        stems: BTreeMap::new(),
    };
    b.add_lexicon();
    let mut examples: Vec<Vec<Vec<String>>> = Vec::new();
    for (index, route) in body.selector.routes.iter().enumerate() {
        let r = index as u32;
        let mut route_examples = Vec::new();
        if let Some(intent) = route
            .intent
            .and_then(|i| body.selector.intents.get(i as usize))
        {
            for part in name_parts(&intent.name) {
                b.post_name(&part, r, Role::Name);
            }
            for example in &intent.examples {
                let terms = b.post_text(&strip_placeholders(example), r, Role::Object, true);
                let mut set: Vec<String> = terms;
                set.sort();
                set.dedup();
                if !set.is_empty() {
                    route_examples.push(set);
                }
            }
        }
        match &route.target {
            RouteTarget::Tool(t) => {
                if let Some(tool) = body.tools.get(*t as usize) {
                    for part in name_parts(&tool.name) {
                        b.post_name(&part, r, Role::Name);
                    }
                    for argument in &tool.argument_names {
                        for part in name_parts(argument) {
                            b.post_name(&part, r, Role::Object);
                        }
                    }
                    b.post_text(&tool.description, r, Role::Context, false);
                }
            }
            RouteTarget::Say { message } | RouteTarget::Ask { message, .. } => {
                for part in name_parts(message) {
                    b.post_text(&part, r, Role::Context, false);
                }
            }
        }
        examples.push(route_examples);
    }
    b.finish(language, examples)
}

impl Build<'_> {
    /// The lexicon's words, in the order of precedence the module documents.
    fn add_lexicon(&mut self) {
        let lex = self.lex;
        for concept in lex.concepts {
            self.terms
                .entry(concept.name.to_string())
                .or_insert_with(|| (concept.class, BTreeMap::new()));
            for word in concept.words {
                self.add_word(word, Pending::Term(concept.name.to_string()));
                // Inflected forms of a one-word concept read as the concept.
                let key = folded_text(word);
                if !key.contains(' ') {
                    let stem = self.stemmer.stem(&key).into_owned();
                    self.stems
                        .entry(stem)
                        .or_insert_with(|| concept.name.to_string());
                }
            }
        }
        let kinds: [(&[&str], WordKind); 8] = [
            (lex.compute, WordKind::Compute),
            (lex.negation, WordKind::Negation),
            (lex.question, WordKind::Question),
            (lex.yes, WordKind::Yes),
            (lex.no, WordKind::No),
            (lex.then, WordKind::Then),
            (lex.operators, WordKind::Operator),
            (lex.stop, WordKind::Stop),
        ];
        for (number, value) in lex.numbers {
            self.add_word(number, Pending::Kind(WordKind::Number(*value)));
        }
        for (list, kind) in kinds {
            for word in list {
                self.add_word(word, Pending::Kind(kind));
            }
        }
        for word in lex.foreign {
            self.add_word(word, Pending::Kind(WordKind::Foreign));
        }
    }

    /// Adds a word or a run of words, unless it already has a meaning.
    fn add_word(&mut self, text: &str, meaning: Pending) {
        let key = folded_text(text);
        if key.is_empty() {
            return;
        }
        let table = if key.contains(' ') {
            &mut self.phrases
        } else {
            &mut self.words
        };
        table.entry(key).or_insert(meaning);
    }

    /// Posts one word of a name: as this language reads it when it knows it as a term, else
    /// as the English concept it names, else as its stem. A verb of a name is the route's action.
    fn post_name(&mut self, part: &str, r: u32, role: Role) {
        let key = crate::fold::fold(part);
        let known = matches!(self.words.get(&key), Some(Pending::Term(_)));
        if !known && let Some(concept) = self.identifiers.get(&key).cloned() {
            let class = self.terms.get(&concept).map_or(TermClass::Other, |t| t.0);
            let role = match class {
                TermClass::Action | TermClass::Look => Role::Action,
                TermClass::Object | TermClass::Other => role,
            };
            if let Some((_, postings)) = self.terms.get_mut(&concept) {
                let slot = postings.entry(r).or_insert(role);
                if role < *slot {
                    *slot = role;
                }
            }
            return;
        }
        let actions = role != Role::Object;
        self.post_text(part, r, role, actions);
    }

    /// Reads `text` as the runtime reads a turn, and posts each term it holds to route `r`
    /// with `role` (verbs as the route's action where `actions` says so; a description's verbs
    /// are incidental and not posted). Returns the terms, in order.
    fn post_text(&mut self, text: &str, r: u32, role: Role, actions: bool) -> Vec<String> {
        let toks = tokens(text, 512);
        let folded: Vec<Option<&str>> = toks
            .iter()
            .map(|t| match t.kind {
                TokenKind::Word | TokenKind::Symbol => Some(t.folded.as_str()),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < folded.len() {
            let (meaning, used) = self.meaning_at(&folded, i);
            i += used.max(1);
            let Some(meaning) = meaning else { continue };
            let Pending::Term(term) = meaning else {
                continue;
            };
            let class = self.terms.get(&term).map_or(TermClass::Other, |t| t.0);
            let role = match class {
                TermClass::Action | TermClass::Look if actions => Role::Action,
                TermClass::Action | TermClass::Look => continue,
                TermClass::Object | TermClass::Other => role,
            };
            if let Some((_, postings)) = self.terms.get_mut(&term) {
                let slot = postings.entry(r).or_insert(role);
                if role < *slot {
                    *slot = role;
                }
            }
            out.push(term);
        }
        out
    }

    /// The meaning of the word at `i` (a known run of words, a known word, or a new stem term),
    /// and how many words it took.
    fn meaning_at(&mut self, folded: &[Option<&str>], i: usize) -> (Option<Pending>, usize) {
        for len in (2..=MAX_PHRASE).rev() {
            let Some(run) = folded.get(i..i + len) else {
                continue;
            };
            let words: Option<Vec<&str>> = run.iter().copied().collect();
            if let Some(words) = words
                && let Some(m) = self.phrases.get(&words.join(" "))
            {
                return (Some(m.clone()), len);
            }
        }
        let Some(Some(word)) = folded.get(i) else {
            return (None, 1);
        };
        if let Some(m) = self.words.get(*word) {
            return (Some(m.clone()), 1);
        }
        if !word.chars().any(char::is_alphabetic) {
            return (None, 1);
        }
        let stem = self.stemmer.stem(word).into_owned();
        let term = match self.stems.get(&stem) {
            Some(term) => term.clone(),
            None => {
                self.stems.insert(stem.clone(), stem.clone());
                self.terms
                    .entry(stem.clone())
                    .or_insert_with(|| (TermClass::Other, BTreeMap::new()));
                stem
            }
        };
        self.words
            .insert((*word).to_string(), Pending::Term(term.clone()));
        (Some(Pending::Term(term)), 1)
    }

    fn finish(self, language: Language, examples: Vec<Vec<Vec<String>>>) -> Reader {
        let names: Vec<String> = self.terms.keys().cloned().collect();
        let term_index: BTreeMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i as u32))
            .collect();
        let kind_of = |p: &Pending| match p {
            Pending::Term(t) => term_index.get(t.as_str()).map(|&i| WordKind::Term(i)),
            Pending::Kind(k) => Some(*k),
        };
        let words: Vec<Word> = self
            .words
            .iter()
            .filter_map(|(text, p)| {
                Some(Word {
                    text: text.clone(),
                    kind: kind_of(p)?,
                })
            })
            .collect();
        let phrases: Vec<Word> = self
            .phrases
            .iter()
            .filter_map(|(text, p)| {
                Some(Word {
                    text: text.clone(),
                    kind: kind_of(p)?,
                })
            })
            .collect();
        let stems: Vec<StemEntry> = self
            .stems
            .iter()
            .filter_map(|(stem, term)| {
                Some(StemEntry {
                    stem: stem.clone(),
                    term: *term_index.get(term.as_str())?,
                })
            })
            .collect();
        let mut near: Vec<NearEntry> = Vec::new();
        for (i, word) in words.iter().enumerate() {
            if !matches!(word.kind, WordKind::Term(_)) || word.text.chars().count() < TYPO_KNOWN {
                continue;
            }
            for key in deletions(&word.text) {
                near.push(NearEntry {
                    key,
                    word: i as u32,
                });
            }
        }
        near.sort_by(|a, b| (a.key.as_str(), a.word).cmp(&(b.key.as_str(), b.word)));
        near.dedup();
        let terms: Vec<Term> = self
            .terms
            .into_iter()
            .map(|(text, (class, postings))| Term {
                text,
                class,
                postings: postings
                    .into_iter()
                    .map(|(route, role)| Posting { route, role })
                    .collect(),
            })
            .collect();
        let profiles = examples
            .into_iter()
            .map(|route_examples| Profile {
                examples: route_examples
                    .into_iter()
                    .map(|set| {
                        let mut ids: Vec<u32> = set
                            .iter()
                            .filter_map(|t| term_index.get(t.as_str()).copied())
                            .collect();
                        ids.sort_unstable();
                        ids.dedup();
                        ids
                    })
                    .collect(),
            })
            .collect();
        Reader {
            language,
            terms,
            words,
            phrases,
            stems,
            near,
            profiles,
        }
    }
}

/// The English concepts of one-word entries, by folded word: how names are read.
fn identifier_concepts() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for concept in lexicon(Language::En).concepts {
        for word in concept.words {
            let key = folded_text(word);
            if !key.contains(' ') {
                out.entry(key).or_insert_with(|| concept.name.to_string());
            }
        }
    }
    out
}

/// The longest run of words the lexicon reads as one.
pub(crate) const MAX_PHRASE: usize = 4;
/// Words shorter than this are never read as a typo of another.
pub(crate) const TYPO_MIN: usize = 5;
/// Known words shorter than this are never taken for what a typo meant (`conta` is not read
/// from `canta`).
pub(crate) const TYPO_KNOWN: usize = 6;

/// A word with each of its letters left out in turn, and the word itself.
pub(crate) fn deletions(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = vec![word.to_string()];
    for skip in 0..chars.len() {
        out.push(
            chars
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, c)| *c)
                .collect(),
        );
    }
    out
}

/// A lexicon entry as the runtime sees it: its tokens' folded forms joined by single spaces.
fn folded_text(text: &str) -> String {
    tokens(text, 16)
        .iter()
        .map(|t| t.folded.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a name: `refund_card` → `refund`, `card`; `RefundCard` → `refund`, `card`;
/// `ask refund` → `ask`, `refund`.
pub(crate) fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == ' ' || c == '.' || c == '|' {
            if !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// An example without its placeholders: `{intent:…}` parts and `$parameters` are left out.
fn strip_placeholders(example: &str) -> String {
    let mut out = String::with_capacity(example.len());
    let mut depth = 0u32;
    let mut in_param = false;
    for c in example.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            '$' if depth == 0 => in_param = true,
            _ if depth > 0 => {}
            c if in_param && (c.is_alphanumeric() || c == '_' || c == '.') => {}
            c => {
                in_param = false;
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_parts("refund_card"), ["refund", "card"]);
        assert_eq!(name_parts("RefundCardAction"), ["refund", "card", "action"]);
        assert_eq!(name_parts("ask refund"), ["ask", "refund"]);
    }

    #[test]
    fn placeholders_are_left_out_of_examples() {
        assert_eq!(
            strip_placeholders("refund order $order_id now {intent:x|y}"),
            "refund order  now "
        );
    }

    #[test]
    fn deletions_cover_each_letter() {
        assert_eq!(deletions("abc"), ["abc", "bc", "ac", "ab"]);
    }
}
