//! The selector's built-in word knowledge, per language: concepts (the words and runs of words
//! that mean one thing, such as `refund`, `money back` and `devolução`), the words that carry no
//! meaning here, and the words that change how a turn is read (negations, how/why questions,
//! calculations, yes and no, number words, words of other languages).
//!
//! Concepts are named `@name` and shared by both languages, so an intent whose examples are in
//! English is read from a Portuguese turn through the concepts both share. Words are written as
//! a person writes them; the compiler folds them (`fold::fold`) into the record's reader, where
//! the runtime looks them up. Nothing here is read at run time except through the record.

use stalwart_record::{Language, TermClass};

mod en;
mod pt_br;

/// One concept: its name, what kind of word it is, and the words and runs of words for it.
#[derive(Debug, Clone, Copy)]
pub struct Concept {
    pub name: &'static str,
    pub class: TermClass,
    pub words: &'static [&'static str],
}

/// One language's word knowledge.
#[derive(Debug, Clone, Copy)]
pub struct Lexicon {
    pub concepts: &'static [Concept],
    /// Words (and runs) that carry no meaning for the selector.
    pub stop: &'static [&'static str],
    /// Words that turn a request around.
    pub negation: &'static [&'static str],
    /// Words that ask how or why: a question about a thing, not a request for it.
    pub question: &'static [&'static str],
    /// Words that ask for a calculation wherever they stand.
    pub compute: &'static [&'static str],
    /// Words that ask for a calculation between two numbers (`40 plus 2`).
    pub operators: &'static [&'static str],
    pub yes: &'static [&'static str],
    pub no: &'static [&'static str],
    /// Words that join two requests.
    pub then: &'static [&'static str],
    /// Number words for small counts.
    pub numbers: &'static [(&'static str, u32)],
    /// Frequent words of other languages that are not words of this one.
    pub foreign: &'static [&'static str],
}

/// The lexicon of `language`.
pub fn lexicon(language: Language) -> &'static Lexicon {
    match language {
        Language::En => &en::LEXICON,
        Language::PtBr => &pt_br::LEXICON,
    }
}

/// The Snowball algorithm of `language`.
pub fn algorithm(language: Language) -> rust_stemmers::Algorithm {
    match language {
        Language::En => rust_stemmers::Algorithm::English,
        Language::PtBr => rust_stemmers::Algorithm::Portuguese,
    }
}

/// Every language the selector reads, in the order of the record's readers.
pub const LANGUAGES: [Language; 2] = [Language::En, Language::PtBr];

/// The name the plan and the command line give a language.
pub fn language_name(language: Language) -> &'static str {
    match language {
        Language::En => "en",
        Language::PtBr => "pt-BR",
    }
}

/// A language by the name the command line and a plan request give it.
pub fn language_by_name(name: &str) -> Option<Language> {
    match name {
        "en" => Some(Language::En),
        "pt-BR" => Some(Language::PtBr),
        _ => None,
    }
}
