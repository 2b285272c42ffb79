//! The facts of a Colang 1.0 file, as the reference parser reports them: the examples of each
//! user intent, the utterances of each bot message, the flows (id and subflow flag) and the
//! imports. Also the id the reference gives an anonymous flow.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::ast::*;
use super::lines::Lines;
use smol_str::SmolStr;

/// The facts of a parsed file as JSON: `version`, `user_messages`, `bot_messages`, `flows`
/// (`id`, `subflow`) and `imports`.
pub fn inspect_v1(module: &Module) -> Value {
    let mut users = Map::new();
    let mut bots = Map::new();
    let mut flows: Vec<Value> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    // The ids of the flows `bot …` lines in message bodies start (see `direct_flow`).
    let mut direct_ids: Vec<String> = Vec::new();
    let mut imports: Vec<Value> = Vec::new();
    let add_flow =
        |id: &str, subflow: bool, flows: &mut Vec<Value>, ids: &[&str], direct: &[String]| {
            if !ids.contains(&id) && !direct.iter().any(|d| d == id) {
                flows.push(json!({ "id": id, "subflow": subflow }));
            }
        };
    for item in &module.items {
        match item {
            Item::User(u) => {
                let mut examples = Vec::new();
                user_examples(u, &mut examples);
                append(&mut users, &u.name.text, examples);
                if let Some(id) = direct_flow(&u.name.text, &u.lines, true) {
                    add_flow(&id, false, &mut flows, &ids, &direct_ids);
                    direct_ids.push(id);
                }
            }
            Item::Bot(b) => {
                let mut utterances = Vec::new();
                bot_utterances(&b.lines, &mut utterances);
                append(&mut bots, &b.name.text, utterances);
                if let Some(id) = direct_flow(&b.name.text, &b.lines, false) {
                    add_flow(&id, false, &mut flows, &ids, &direct_ids);
                    direct_ids.push(id);
                }
            }
            Item::Flow(f) => {
                add_flow(&f.id, f.subflow, &mut flows, &ids, &direct_ids);
                ids.push(&f.id);
                for stmt in &f.body {
                    inline_bot_messages(stmt, &mut bots);
                }
            }
            Item::Stmt(stmt) => {
                add_flow("", false, &mut flows, &ids, &direct_ids);
                ids.push("");
                inline_bot_messages(stmt, &mut bots);
            }
            Item::Import(i) => {
                let name = Value::String(i.name.clone());
                if !imports.contains(&name) {
                    imports.push(name);
                }
            }
            Item::Other(_) => {}
        }
    }
    json!({
        "version": "1.0",
        "user_messages": users,
        "bot_messages": bots,
        "flows": flows,
        "imports": imports,
    })
}

const PARAM_WORDS: &[&str] = &[
    "param",
    "parameter",
    "entity",
    "property",
    "attribute",
    "attr",
    "prop",
    "set",
    "context",
];

/// The id of the flow a `bot …` line inside a `define user|bot` body starts: the reference ends
/// the body there and reads `<name>_direct` (an intent's spaces as `|`) with the lines from the
/// `bot` line on as a flow.
pub(crate) fn direct_flow(name: &str, lines: &[MessageLine], user: bool) -> Option<String> {
    // In a bot body, a `bot` line under an `if` counts too.
    let found = if user {
        lines
            .iter()
            .any(|l| matches!(l, MessageLine::Text(t) if starts_with_bot(&t.text)))
    } else {
        has_bot_line(lines)
    };
    found.then(|| {
        if user {
            format!("{}_direct", name.replace(' ', "|"))
        } else {
            format!("{name}_direct")
        }
    })
}

fn has_bot_line(lines: &[MessageLine]) -> bool {
    lines.iter().any(|l| match l {
        MessageLine::Text(t) => starts_with_bot(&t.text),
        MessageLine::Branch(b) => has_bot_line(&b.lines),
    })
}

/// Whether the first word of `text` is `bot` (`text.split_whitespace().next() == Some("bot")`,
/// without the iterator: most lines start with `"`, which no whitespace is).
fn starts_with_bot(text: &str) -> bool {
    let text = if text.starts_with(|c: char| c.is_ascii_graphic()) {
        text
    } else {
        text.trim_start()
    };
    text.strip_prefix("bot")
        .is_some_and(|rest| rest.chars().next().is_none_or(char::is_whitespace))
}

/// The lines of a body before a `bot …` line (see [`direct_flow`]).
fn before_bot(lines: &[MessageLine]) -> &[MessageLine] {
    let end = lines
        .iter()
        .position(|l| matches!(l, MessageLine::Text(t) if starts_with_bot(&t.text)))
        .unwrap_or(lines.len());
    lines.get(..end).unwrap_or(lines)
}

/// A message that ran on over several lines keeps what its first line gives (the reference
/// splits the joined text on ` and `, then keeps the first line of the result).
fn first_line(text: String) -> String {
    match text.split_once('\n') {
        Some((first, _)) => first.to_string(),
        None => text,
    }
}

/// A line of a message body as the reference reads it: rewritten by the three rules it applies
/// to such lines, or `None` for a line that gives no message (a parameter line such as
/// `param $x as str`, a `set` line, a `context` line).
fn message_text(text: &str) -> Option<Cow<'_, str>> {
    let text = markdown_rules(text);
    let first = text.split_whitespace().next().unwrap_or("");
    (!PARAM_WORDS.contains(&first)).then_some(text)
}

/// The reference's rewrites of a message line: `^(in )?(the )?context( of)?(.*)$` to
/// `context\4`, then `expecting user (.*)$` to `expecting("\1")`, then `context user (.*)$` to
/// `context expecting("\1")` (`.` stops at a line break, which `(.*)$` must not cross).
fn markdown_rules(text: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(text);
    let t = text.strip_prefix("in ").unwrap_or(&text);
    let t = t.strip_prefix("the ").unwrap_or(t);
    if let Some(rest) = t.strip_prefix("context") {
        let rest = rest.strip_prefix(" of").unwrap_or(rest);
        if !rest.contains('\n') && rest.len() + "context".len() != text.len() {
            text = Cow::Owned(format!("context{rest}"));
        }
    }
    for (pattern, replacement) in [
        ("expecting user ", "expecting"),
        ("context user ", "context expecting"),
    ] {
        if let Some(at) = text.find(pattern)
            && let Some(rest) = text.get(at + pattern.len()..)
            && !rest.contains('\n')
        {
            let head = text.get(..at).unwrap_or("");
            text = Cow::Owned(format!("{head}{replacement}(\"{rest}\")"));
        }
    }
    text
}

fn user_examples(u: &UserDef, out: &mut Vec<Value>) {
    if u.lines.is_empty() {
        // The reference gives a body-less `define user <name>` the one line `<name>`.
        if let Some(text) = message_text(&u.name.text) {
            user_example(&text, out);
        }
        return;
    }
    for line in before_bot(&u.lines) {
        let MessageLine::Text(t) = line else { continue };
        if let Some(text) = message_text(&t.text) {
            user_example(&text, out);
        }
    }
}

/// The example a line of a `define user` body gives.
fn user_example(text: &str, out: &mut Vec<Value>) {
    let parts: Vec<String> = split_outside_quotes(text, " and ")
        .into_iter()
        .map(|part| match quoted(part) {
            Some(inner) => replace_params(inner),
            None => format!("{{intent:{}}}", part.replace(' ', "|")),
        })
        .collect();
    out.push(Value::String(first_line(
        brackets_to_braces(&parts.join(" {intent:and} "))
            .trim()
            .to_string(),
    )));
}

/// The utterances `bot <message> "…"` statements define inside a flow: the inline one, then the
/// example lines under the statement, appended to what the message already has.
fn inline_bot_messages(stmt: &Stmt, bots: &mut Map<String, Value>) {
    stmt.walk(&mut |s| {
        let StmtKind::Bot(bot) = &s.kind else { return };
        if !bot.defines_message() {
            return;
        }
        let mut utterances = Vec::new();
        if let Some(u) = bot.utterance() {
            bot_utterances(
                std::slice::from_ref(&MessageLine::Text(u.clone())),
                &mut utterances,
            );
        }
        bot_utterances(bot.example_lines(), &mut utterances);
        append(bots, &bot.message.text, utterances);
    });
}

/// Appends `values` to the list of `key`. The reference lists a message only once it has a
/// value: a body of parameter lines alone gives none.
fn append(map: &mut Map<String, Value>, key: &str, values: Vec<Value>) {
    if values.is_empty() {
        return;
    }
    let entry = map.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = entry {
        list.extend(values);
    }
}

/// The utterances of a bot body, up to a `bot …` line (see [`direct_flow`]); whether one was met.
fn bot_utterances<'a>(
    lines: impl IntoIterator<Item = &'a MessageLine>,
    out: &mut Vec<Value>,
) -> bool {
    for line in lines {
        match line {
            MessageLine::Text(t) if starts_with_bot(&t.text) => return true,
            MessageLine::Text(t) => {
                let Some(text) = message_text(&t.text) else {
                    continue;
                };
                // A string spanning lines keeps only its first line.
                let first_line = text.split('\n').next().unwrap_or("");
                let parts: Vec<String> = split_outside_quotes(first_line, " and ")
                    .into_iter()
                    .map(|part| match quoted(part) {
                        Some(inner) => inner.to_string(),
                        None if part.starts_with('"') => part.get(1..).unwrap_or("").to_string(),
                        None => format!("{{intent:{}}}", part.replace(' ', "|")),
                    })
                    .collect();
                let text = brackets_to_braces(&parts.join(" {intent:and} "));
                out.push(Value::String(backticks_to_vars(text.trim())));
            }
            MessageLine::Branch(b) => {
                if bot_utterances(&b.lines, out) {
                    return true;
                }
            }
        }
    }
    false
}

/// The inside of `"…"`, when the part is quoted.
fn quoted(part: &str) -> Option<&str> {
    part.strip_prefix('"')?.strip_suffix('"')
}

/// Splits on `sep` outside double-quoted strings; parts are trimmed and empty ones dropped.
fn split_outside_quotes<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut in_string = false;
    let mut start = 0;
    let mut i = 0;
    while let Some(rest) = text.get(i..) {
        let Some(c) = rest.chars().next() else { break };
        if c == '"' {
            in_string = !in_string;
        } else if !in_string && rest.starts_with(sep) && i + sep.len() < text.len() {
            parts.push(text.get(start..i).unwrap_or("").trim());
            i += sep.len();
            start = i;
            continue;
        }
        i += c.len_utf8();
    }
    parts.push(text.get(start..).unwrap_or("").trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// `$name` in an example becomes `{name}`: the name runs up to a space, quote, `!`, `?`, `-`,
/// `,`, `;`, `<` or `/` and must end in a word character or `]`.
fn replace_params(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(rest.get(..dollar).unwrap_or(""));
        let after = rest.get(dollar + 1..).unwrap_or("");
        let run_len = after
            .find(|c: char| " \"'!?-,;</".contains(c))
            .unwrap_or(after.len());
        let run = after.get(..run_len).unwrap_or("");
        let name_len = run
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == ']')
            .map_or(0, |(i, c)| i + c.len_utf8());
        if name_len == 0 {
            out.push('$');
            rest = after;
            continue;
        }
        out.push('{');
        out.push_str(run.get(..name_len).unwrap_or(""));
        out.push('}');
        rest = after.get(name_len..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// `[text](param)` becomes `{param}`, as the reference's message patterns do.
fn brackets_to_braces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find("](") else { break };
        let params = after.get(close + 2..).unwrap_or("");
        let Some(end) = params.find(')') else { break };
        out.push_str(rest.get(..open).unwrap_or(""));
        out.push('{');
        out.push_str(params.get(..end).unwrap_or(""));
        out.push('}');
        rest = params.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// `` `field` `` in an utterance becomes `$field`.
fn backticks_to_vars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find('`') else { break };
        out.push_str(rest.get(..open).unwrap_or(""));
        out.push('$');
        out.push_str(after.get(..close).unwrap_or(""));
        rest = after.get(close + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// The reference's 32-bit string hash (a JavaScript-compatible `hash * 31 + char` over the code
/// points, negative results negated), in lowercase hex.
pub fn string_hash(s: &str) -> String {
    let mut hash = StringHash::default();
    hash.push_str(s);
    hash.hex()
}

/// [`string_hash`] fed piece by piece, so that a text made of pieces is hashed without being
/// built.
#[derive(Default)]
struct StringHash(u32);

impl StringHash {
    fn push_str(&mut self, s: &str) {
        if !s.is_ascii() {
            for c in s.chars() {
                self.push(c);
            }
            return;
        }
        // ASCII: a char per byte, four bytes a step (the same sum modulo 2^32).
        let mut hash = self.0;
        let mut quads = s.as_bytes().chunks_exact(4);
        for q in &mut quads {
            let &[a, b, c, d] = q else { continue };
            let [a, b, c, d] = [a, b, c, d].map(u32::from);
            hash = hash
                .wrapping_mul(923_521)
                .wrapping_add(a.wrapping_mul(29_791))
                .wrapping_add(b.wrapping_mul(961))
                .wrapping_add(c.wrapping_mul(31))
                .wrapping_add(d);
        }
        for &b in quads.remainder() {
            hash = hash.wrapping_mul(31).wrapping_add(u32::from(b));
        }
        self.0 = hash;
    }

    fn push(&mut self, c: char) {
        self.0 = self.0.wrapping_mul(31).wrapping_add(u32::from(c));
    }

    /// The magnitude of the hash read as a signed 32-bit number.
    fn magnitude(&self) -> u64 {
        let hash = self.0;
        if hash >= 1 << 31 {
            (1u64 << 32) - u64::from(hash)
        } else {
            u64::from(hash)
        }
    }

    fn hex(&self) -> String {
        format!("{:x}", self.magnitude())
    }

    /// `anonymous-` and [`StringHash::hex`], written without the formatting machinery and, being
    /// at most 19 bytes, kept inline in the name.
    fn anonymous_id(&self) -> SmolStr {
        const PREFIX: &[u8] = b"anonymous-";
        let mut id = [0u8; 19];
        let mut n = self.magnitude();
        let mut digits = 1;
        while n >> (4 * digits) != 0 {
            digits += 1;
        }
        for (slot, &b) in id.iter_mut().zip(PREFIX) {
            *slot = b;
        }
        // The low digit goes last.
        for slot in id.iter_mut().skip(PREFIX.len()).take(digits).rev() {
            *slot = b"0123456789abcdef"
                .get((n & 15) as usize)
                .copied()
                .unwrap_or(b'0');
            n >>= 4;
        }
        let id = id.get(..PREFIX.len() + digits).unwrap_or(&[]);
        SmolStr::new(std::str::from_utf8(id).unwrap_or(""))
    }
}

/// The id of an anonymous flow whose body lines (stripped, comments cut, continued lines joined)
/// concatenate to `body`.
pub fn anonymous_flow_id(body: &str) -> String {
    format!("anonymous-{}", string_hash(body))
}

/// The id of the anonymous flow whose `define flow` line starts at byte `header_start`, a line
/// at or after `lines.lines[*from]`; `*from` becomes the line after the header, where the next
/// anonymous flow's search starts (the flows are read in text order; a body read as deeper lines
/// may hold the next header, indented). `*from` stays when no line starts at `header_start`.
pub(crate) fn anonymous_id_at(
    text: &str,
    lines: &Lines,
    header_start: u32,
    from: &mut usize,
) -> SmolStr {
    // The hash of the body text, fed as the body is read: the same as `anonymous_flow_id` of the
    // body built whole.
    let mut body = StringHash::default();
    let mut found: Option<u32> = None;
    let start = first_line_from(&lines.lines, *from, header_start);
    let rest = lines.lines.get(start..).unwrap_or(&[]);
    for (i, line) in rest.iter().enumerate() {
        match found {
            None if line.start == header_start => {
                found = Some(line.indent);
                *from = start + i + 1;
            }
            None => {}
            Some(indent) if line.indent > indent => {
                for (n, seg) in lines.segments_of(start + i).iter().enumerate() {
                    if n > 0 {
                        body.push(' ');
                    }
                    let piece = text.get(seg.start as usize..seg.end as usize).unwrap_or("");
                    for physical in piece.split('\n') {
                        body.push_str(super::lines::trim_str(physical));
                    }
                }
            }
            Some(_) => break,
        }
    }
    body.anonymous_id()
}

/// The first line at or after `lines[from]` that starts at or after `start`.
///
/// INVARIANT: `lines` is in text order. The line is searched from `from` with steps that double
/// (it is usually a few lines on), then by binary search within the last step: a scan from the
/// first line made a file of many anonymous flows quadratic, and a binary search over all the
/// lines reads a line far away at each of its steps.
fn first_line_from(lines: &[super::lines::Line], from: usize, start: u32) -> usize {
    let rest = lines.get(from..).unwrap_or(&[]);
    let (mut low, mut step) = (0, 1);
    while let Some(line) = rest.get(low + step - 1)
        && line.start < start
    {
        low += step;
        step *= 2;
    }
    let high = (low + step).min(rest.len());
    from + low
        + rest
            .get(low..high)
            .unwrap_or(&[])
            .partition_point(|l| l.start < start)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::StringHash;
    use crate::v1::lines::Line;

    /// The hash fed four ASCII bytes at a time and the id written by hand are those of the
    /// character-by-character hash and `format!`.
    fn same_as_by_char(text: &str) {
        let mut by_char = StringHash::default();
        for c in text.chars() {
            by_char.push(c);
        }
        let mut fast = StringHash::default();
        fast.push_str(text);
        assert_eq!(fast.0, by_char.0, "{text:?}");
        assert_eq!(
            fast.anonymous_id().as_str(),
            format!("anonymous-{}", by_char.hex()),
            "{text:?}"
        );
    }

    #[test]
    fn ascii_hash_and_ids_match_the_general_path() {
        for text in [
            "",
            "a",
            "abcd",
            "abcde",
            "bot say hi",
            "é",
            "user express greeting",
        ] {
            same_as_by_char(text);
        }
        for hash in [0, 1, 15, 16, (1 << 31) - 1, 1 << 31, u32::MAX] {
            let id = StringHash(hash);
            assert_eq!(
                id.anonymous_id().as_str(),
                format!("anonymous-{}", id.hex())
            );
        }
    }

    /// A header indented under the flow before it (whose body, read as the deeper lines, holds
    /// it) is found as a search from the first line finds it.
    #[test]
    fn anonymous_ids_are_those_of_a_search_from_the_first_line() {
        use crate::v1::ast::Item;
        use stalwart_diagnostics::FileId;
        let text = "define flow\n  user a\n\n define flow\n  user b\ndefine flow\n  user c\n";
        let lines = crate::v1::lines::split_lines(FileId(0), text);
        let parsed = crate::parse_v1(FileId(0), text);
        let mut ids = Vec::new();
        for item in &parsed.value.items {
            if let Item::Flow(f) = item {
                let alone = super::anonymous_id_at(text, &lines, f.header.start, &mut 0);
                assert_eq!(f.id, alone);
                ids.push(f.id.clone());
            }
        }
        assert_eq!(ids.len(), 3, "{ids:?}");
        assert!(ids.iter().all(|id| id != "anonymous-0"), "{ids:?}");
    }

    proptest! {
        #[test]
        fn hashes_match(text in "[ -~é]{0,40}") {
            same_as_by_char(&text);
        }

        /// The search from a line finds the line a binary search over the lines after it finds.
        #[test]
        fn lines_are_found_as_by_binary_search(
            mut starts in prop::collection::vec(0u32..50, 0..40),
            from in 0usize..45,
            start in 0u32..60,
        ) {
            starts.sort_unstable();
            let lines: Vec<Line> = starts
                .iter()
                .map(|&s| Line { indent: 0, first: 0, start: s, end: s })
                .collect();
            let from = from.min(lines.len());
            let after = lines.get(from..).unwrap_or(&[]);
            let expected = from + after.partition_point(|l| l.start < start);
            prop_assert_eq!(super::first_line_from(&lines, from, start), expected);
        }
    }
}
