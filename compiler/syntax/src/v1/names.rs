//! Where the message name ends in the text of a `user` or `bot` line, and the rewrites the
//! reference applies to such a line first (`says` dropped, `something` read as `*` or `...`).
//!
//! The two lines are read differently. A `user` line's intent ends before ` as $var`, before
//! ` with|for $params` or ` with|for name=value…`, and at the first `(`; a line starting with a
//! quote is an example, not a name. A `bot` line's message ends before the parameters at its end
//! (` with|for $x, name="v", …`, only when all of the rest reads as parameters), at the first
//! `"` (its utterance) and at the first `(`; a line starting with `{` or `"` has no name. So
//! `user ask for help` waits for the intent `ask for help`, and `bot offer help with booking`
//! says the message `offer help with booking`.

/// Which statement a line of text follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Speaker {
    User,
    Bot,
}

/// The end of the message name in `text` (the text after the `user` or `bot` keyword, starting
/// at a token), before trimming.
pub(crate) fn name_end(text: &str, speaker: Speaker) -> usize {
    match speaker {
        Speaker::User => user_name_end(text),
        Speaker::Bot => bot_name_end(text),
    }
}

fn user_name_end(text: &str) -> usize {
    if text.starts_with(['"', '\'']) {
        return 0;
    }
    let intent = keyword_at(text, &["as"], var_then_more).unwrap_or(text.len());
    let head = text.get(..intent).unwrap_or(text);
    let params = keyword_at(head, &["with", "for"], var_then_more)
        .or_else(|| keyword_at(head, &["with", "for"], assignment))
        .unwrap_or(head.len());
    let head = head.get(..params).unwrap_or(head);
    head.find('(').unwrap_or(head.len())
}

fn bot_name_end(text: &str) -> usize {
    if text.starts_with(['"', '{']) {
        return 0;
    }
    let params = params_at_end(text).unwrap_or(text.len());
    let head = text.get(..params).unwrap_or(text);
    let utterance = head.find('"').unwrap_or(head.len());
    let head = head.get(..utterance).unwrap_or(head);
    head.find('(').unwrap_or(head.len())
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `\w` of the reference's patterns.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first position of a run of spaces followed by one of `words`, then spaces, then a rest
/// for which `rest_ok` holds. (Spaces only: the reference collapses runs of spaces, and its
/// patterns look for ` with `, ` for ` and ` as ` with a space on each side.)
fn keyword_at(text: &str, words: &[&str], rest_ok: impl Fn(&str) -> bool) -> Option<usize> {
    keyword_positions(text, words)
        .find(|&(_, rest)| rest_ok(rest))
        .map(|(at, _)| at)
}

/// Each run of spaces in `text` followed by one of `words` and more spaces: where the run
/// starts and what follows the second run.
fn keyword_positions<'a>(
    text: &'a str,
    words: &'a [&'a str],
) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    let mut prev_space = false;
    text.char_indices().filter_map(move |(i, c)| {
        let starts_run = c == ' ' && !prev_space;
        prev_space = c == ' ';
        if !starts_run || i == 0 {
            return None;
        }
        let after = text.get(i..)?.trim_start_matches(' ');
        let word = words
            .iter()
            .find(|w| after.strip_prefix(**w).is_some_and(|r| r.starts_with(' ')))?;
        let rest = after.get(word.len()..)?.trim_start_matches(' ');
        Some((i, rest))
    })
}

/// `\$.+`: a `$` and at least one more character.
fn var_then_more(rest: &str) -> bool {
    rest.strip_prefix('$').is_some_and(|r| !r.is_empty())
}

/// `\w+\s*=\s*.+`.
fn assignment(rest: &str) -> bool {
    let after_name = rest.trim_start_matches(is_word);
    if after_name.len() == rest.len() {
        return false;
    }
    after_name
        .trim_start_matches(is_space)
        .strip_prefix('=')
        .is_some_and(|v| !v.trim_start_matches(is_space).is_empty())
}

/// Where the parameters at the end of a `bot` line start: the last ` with ` or ` for ` after
/// which the whole rest is a list of parameters (`$x`, `name=value`, `$name=value`, separated
/// by commas; values `"…"`, `$var` or a number, the first parameter a variable or an
/// assignment).
fn params_at_end(text: &str) -> Option<usize> {
    let mut found = None;
    for (at, rest) in keyword_positions(text, &["with", "for"]) {
        if param_list(rest) {
            found = Some(at);
        }
    }
    found
}

fn param_list(text: &str) -> bool {
    let Some(mut rest) = param(text, true) else {
        return false;
    };
    loop {
        rest = rest.trim_start_matches(is_space);
        if rest.is_empty() {
            return true;
        }
        let Some(after) = rest.strip_prefix(',') else {
            return false;
        };
        match param(after.trim_start_matches(is_space), false) {
            Some(r) => rest = r,
            None => return false,
        }
    }
}

/// One parameter: `$?[\w.]+` with `\s*=\s*value`, which the first parameter needs unless it is
/// a variable. The text after it.
fn param(text: &str, first: bool) -> Option<&str> {
    let (var, name) = match text.strip_prefix('$') {
        Some(n) => (true, n),
        None => (false, text),
    };
    let after = name.trim_start_matches(|c| is_word(c) || c == '.');
    if after.len() == name.len() {
        return None;
    }
    let value = after
        .trim_start_matches(is_space)
        .strip_prefix('=')
        .and_then(|v| param_value(v.trim_start_matches(is_space)));
    match value {
        Some(rest) => Some(rest),
        None if var || !first => Some(after),
        None => None,
    }
}

/// `"[^"]*"`, `\$[\w.]+` or `[-\d.]+`: the text after it.
fn param_value(text: &str) -> Option<&str> {
    if let Some(s) = text.strip_prefix('"') {
        return s.find('"').and_then(|i| s.get(i + 1..));
    }
    if let Some(v) = text.strip_prefix('$') {
        let rest = v.trim_start_matches(|c| is_word(c) || c == '.');
        return (rest.len() < v.len()).then_some(rest);
    }
    let rest = text.trim_start_matches(|c: char| c == '-' || c == '.' || c.is_ascii_digit());
    (rest.len() < text.len()).then_some(rest)
}

/// `text` without a first word `says` (`says\b`), as the reference drops it after `user` and
/// `bot`.
pub(crate) fn drop_says(text: &str) -> &str {
    match text.strip_prefix("says") {
        Some(rest) if !rest.starts_with(is_word) => rest.trim_start_matches(is_space),
        _ => text,
    }
}

/// `something` or `something else` (ending at a word boundary) at the start of `text`: its
/// length.
fn something_at(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("something")?;
    let boundary = |r: &str| !r.starts_with(is_word);
    if let Some(after_else) = rest.strip_prefix(" else")
        && boundary(after_else)
    {
        return Some(text.len() - after_else.len());
    }
    boundary(rest).then_some(text.len() - rest.len())
}

/// The names of one `user`/`bot` line (several for `user a or user b`), whitespace collapsed,
/// as the reference rewrites them: a name starting with `something` (or `something else`)
/// starts with `*` instead, then the last `something` after the first word of the line becomes
/// `...` (only one per line; not after a `"`). `None` when nothing changes.
///
/// The parts of `user a or user b` are read again as lines of their own, so each part gets the
/// same rewrites once more.
pub(crate) fn rewrite_something(names: &[&str]) -> Option<Vec<String>> {
    if !names.iter().any(|n| n.contains("something")) {
        return None;
    }
    let mut names: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
    rewrite_line(&mut names);
    if names.len() > 1 {
        for name in &mut names {
            rewrite_line(std::slice::from_mut(name));
        }
    }
    Some(names)
}

/// The rewrites of one line whose names are `names`.
fn rewrite_line(names: &mut [String]) {
    if let Some(first) = names.first_mut()
        && let Some(len) = something_at(first)
    {
        first.replace_range(..len, "*");
    }
    // The last `something` preceded by a space (or starting a part after the first), with no
    // `"` before it on the line.
    let mut last = None;
    for (k, name) in names.iter().enumerate() {
        let before_quote = name.find('"').unwrap_or(name.len());
        for (i, _) in name.match_indices("something") {
            let preceded = if i == 0 {
                k > 0
            } else {
                name.get(..i).is_some_and(|b| b.ends_with(' '))
            };
            if preceded
                && i < before_quote
                && let Some(len) = name.get(i..).and_then(something_at)
            {
                last = Some((k, i, len));
            }
        }
        if before_quote < name.len() {
            break;
        }
    }
    if let Some((k, i, len)) = last
        && let Some(name) = names.get_mut(k)
    {
        name.replace_range(i..i + len, "...");
    }
}

#[cfg(test)]
mod tests;
