//! The shop's refund decision, three ways, for the benchmark of the tool check against Cedar:
//! the full tool check over a signed history (`ours`), cedar-policy's `is_authorized` on the
//! equivalent policy (`cedar`), and a hand-written Rust function that decides the same four cases
//! and nothing more (`floor`). Also a small timing harness that reports medians (`harness`).
//!
//! The four cases: a paid order's refund (`confirm`, reason `write`), an unpaid one (`refuse`, the
//! rulebook's `bot refuse`), one with an argument the tool does not declare (`refuse`,
//! `argument_schema`) and one proposed after `read_inbox` ran, with the amount written by the
//! model (`confirm`, `tainted_call`).

pub mod cedar;
pub mod floor;
pub mod harness;
pub mod ours;

/// The four refund calls the benchmark decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// The order is paid: a write, so the person confirms it.
    Paid,
    /// The order is not paid: the rulebook refuses.
    Unpaid,
    /// An argument the tool does not declare (`note`): refused.
    Note,
    /// After `read_inbox` ran, with the amount written by the model: confirm, tainted.
    Tainted,
}

impl Case {
    pub const ALL: [Case; 4] = [Case::Paid, Case::Unpaid, Case::Note, Case::Tainted];

    pub fn name(self) -> &'static str {
        match self {
            Case::Paid => "paid",
            Case::Unpaid => "unpaid",
            Case::Note => "note",
            Case::Tainted => "tainted",
        }
    }
}

/// A decision with its reasons, in the words of the tool check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: &'static str,
    pub reasons: Vec<String>,
}

/// The history lengths the benchmark measures at.
pub const LENGTHS: [usize; 4] = [1, 10, 100, 1000];
