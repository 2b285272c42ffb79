//! The runtime's host side: what a program that runs checks outside a database keeps on disk,
//! and how it takes its input.
//!
//! - [`intake`]: JSON from the command line, a file (`@FILE`) or standard input (`-`), read
//!   strictly: a repeated key, or nesting deeper than the stated limit, is bad input.
//! - [`key`]: the key file that signs histories (DESIGN §5.2), found or made (mode 0600).
//! - [`state`]: the state folder (DESIGN §5.3): each session's head (its anchor) and the locks
//!   that make concurrent checks of one session run one after another.
//! - [`history_file`]: a session held from a history file under its locks, and written back.
//! - [`files`]: writing a file whole or not at all (an unpredictable temporary name, created
//!   exclusively, then renamed), private folders, random bytes.
//!
//! Every failure is a [`HostError`] with a stable code, a message, and where known the place in
//! the input. The crate depends on the record and the runtime only: a host that loads a record
//! needs no compiler.

pub mod files;
pub mod history_file;
pub mod intake;
pub mod key;
pub mod state;

use std::fmt;

/// A stable error code and the slug that names the bad pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub id: &'static str,
    pub slug: &'static str,
}

/// A file named on the command line, standard input, the history, the key or the state folder
/// cannot be read.
pub const INPUT_UNREADABLE: Code = Code {
    id: "E0020",
    slug: "input-unreadable",
};
/// The input is not JSON.
pub const NOT_JSON: Code = Code {
    id: "E0021",
    slug: "not-json",
};
/// A JSON object repeats a key.
pub const DUPLICATE_KEY: Code = Code {
    id: "E0022",
    slug: "duplicate-key",
};
/// JSON nested deeper than the stated limit.
pub const TOO_DEEP: Code = Code {
    id: "E0023",
    slug: "nested-too-deep",
};
/// JSON of the wrong shape: not an object, an origin that is not a string, a label list that is
/// not strings.
pub const WRONG_SHAPE: Code = Code {
    id: "E0024",
    slug: "wrong-shape",
};
/// A label the check does not know.
pub const UNKNOWN_LABEL: Code = Code {
    id: "E0025",
    slug: "unknown-label",
};
/// An agent the record does not have.
pub const UNKNOWN_AGENT: Code = Code {
    id: "E0026",
    slug: "unknown-agent",
};
/// The history file is JSON but not a history.
pub const NOT_A_HISTORY: Code = Code {
    id: "E0027",
    slug: "not-a-history",
};
/// The record folder holds no record this runtime can use.
pub const RECORD_UNUSABLE: Code = Code {
    id: "E0028",
    slug: "record-unusable",
};
/// The key file cannot be used.
pub const LICENCE_UNUSABLE: Code = Code {
    id: "E0029",
    slug: "licence-unusable",
};
/// The state folder cannot be used (made, locked, read or written).
pub const STATE_UNUSABLE: Code = Code {
    id: "E0030",
    slug: "state-unusable",
};
/// A file could not be written.
pub const WRITE_FAILED: Code = Code {
    id: "E0031",
    slug: "write-failed",
};
/// A report the history cannot take: an unknown outcome, a call it does not have, a history
/// that does not verify, a result nested too deep.
pub const REPORT_REFUSED: Code = Code {
    id: "E0032",
    slug: "report-refused",
};
/// Standard input named by more than one flag.
pub const STDIN_TWICE: Code = Code {
    id: "E0033",
    slug: "stdin-twice",
};

/// Where in an input an error lies: the input's name (a flag such as `--args`, or a path), and
/// the 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub source: String,
    pub line: usize,
    pub column: usize,
}

/// Bad input or a failed read or write, with its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    pub code: Code,
    pub message: String,
    pub place: Option<Place>,
}

impl HostError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            place: None,
        }
    }

    pub fn at(mut self, place: Place) -> Self {
        self.place = Some(place);
        self
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(p) = &self.place {
            write!(f, " ({}:{}:{})", p.source, p.line, p.column)?;
        }
        Ok(())
    }
}

impl std::error::Error for HostError {}
