//! Diagnostic codes of the semantic checks of Colang rulebooks (E1600–E1699; warnings keep the
//! range with a `W`).

use stalwart_diagnostics::Code;

/// `bot X` with no `define bot X` (1.0) or flow `bot X` (2.x without imports).
pub const UNDEFINED_BOT_MESSAGE: Code = Code {
    id: "W1601",
    slug: "undefined-bot-message",
};
/// `do X` (1.0) or a flow spec (2.x without imports) naming a flow the file does not define.
pub const UNDEFINED_FLOW: Code = Code {
    id: "W1602",
    slug: "undefined-flow",
};
/// Two flows with one name (2.x: neither marked `@override`).
pub const DUPLICATE_FLOW: Code = Code {
    id: "E1603",
    slug: "duplicate-flow",
};
/// A variable read in a condition before the flow sets it, and not a declared fact.
pub const READ_BEFORE_SET: Code = Code {
    id: "W1604",
    slug: "variable-read-before-set",
};
/// `execute X`, `bot execute_X` or an action naming a tool the catalogue lacks.
pub const UNKNOWN_TOOL: Code = Code {
    id: "E1605",
    slug: "unknown-tool",
};
/// A statement after `stop`, `return` or `abort` in the same block.
pub const UNREACHABLE: Code = Code {
    id: "W1606",
    slug: "unreachable-statement",
};
/// 2.x: two flows with one name, neither marked `@override` (the reference parser accepts the
/// file; its runtime wants one marked).
pub const DUPLICATE_FLOW_WITHOUT_OVERRIDE: Code = Code {
    id: "W1607",
    slug: "duplicate-flow-without-override",
};
/// A `bot` line whose message names a catalogue tool (`bot refund_card`): something the bot
/// says, so the tool it seems to call is neither called nor governed.
pub const BOT_NAMES_A_TOOL: Code = Code {
    id: "W1608",
    slug: "bot-message-names-a-tool",
};
/// `execute X` or an action naming something the catalogue does not declare, and no tool of it
/// is near that name: an action NeMo Guardrails runs itself, which the check never sees.
pub const NOT_A_TOOL: Code = Code {
    id: "W1618",
    slug: "action-not-a-tool",
};
