//! The store's error codes (E0040 on; `stalwart-host` holds E0020–E0033). Each is a
//! [`Code`]: a stable id and a slug naming the bad pattern, as the command line prints them.

use stalwart_host::Code;

/// The store's URL is not one the store reads (an unknown scheme, no path, no server).
pub const STORE_URL: Code = Code {
    id: "E0040",
    slug: "store-url",
};
/// The store cannot be opened or reached: a file that cannot be made, a server that does not
/// answer, a login refused.
pub const STORE_UNREACHABLE: Code = Code {
    id: "E0041",
    slug: "store-unreachable",
};
/// The database was written by a newer version of the store's schema: it is refused, never
/// altered.
pub const STORE_NEWER: Code = Code {
    id: "E0042",
    slug: "store-newer",
};
/// The SQLite file is not a database, or is damaged: reported, and left as it is.
pub const STORE_DAMAGED: Code = Code {
    id: "E0043",
    slug: "store-damaged",
};
/// A statement failed (the connection was lost for longer than the store waits, the disk is
/// full): nothing of that transaction was kept.
pub const STORE_FAILED: Code = Code {
    id: "E0044",
    slug: "store-failed",
};
/// No such conversation or turn, or no such call in a turn.
pub const NOT_FOUND: Code = Code {
    id: "E0045",
    slug: "not-found",
};
/// What was asked does not fit the turn's state: answering a turn that waits for nothing,
/// starting a turn while another waits, resuming a turn another process runs.
pub const TURN_STATE: Code = Code {
    id: "E0046",
    slug: "turn-state",
};
/// A conversation opened for another agent or under another record than it was made for.
pub const CONVERSATION_MISMATCH: Code = Code {
    id: "E0047",
    slug: "conversation-mismatch",
};
/// A resumed turn's program called another tool at a number where it had called one before:
/// its code is not deterministic given its inputs and replies.
pub const PROGRAM_DIVERGED: Code = Code {
    id: "E0048",
    slug: "program-diverged",
};
/// A database that is not a store: it holds other tables and no store schema.
pub const NOT_A_STORE: Code = Code {
    id: "E0049",
    slug: "not-a-store",
};
/// The conversation's stored history does not verify (an entry edited, removed or reordered in
/// the database): no turn runs on it.
pub const HISTORY_INVALID: Code = Code {
    id: "E0050",
    slug: "history-invalid",
};
