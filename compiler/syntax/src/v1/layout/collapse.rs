//! Names and texts with their runs of whitespace (outside double quotes) collapsed into one
//! space, as the reference reads them, with fast paths for the common already-collapsed ASCII
//! text.

use smol_str::SmolStr;

/// Collapses runs of whitespace (outside double quotes) into one space.
pub fn collapse(text: &str) -> String {
    collapsed(text).map_or_else(|| collapse_slow(text.trim()), str::to_string)
}

/// [`collapse`] as a name of the tree: no allocation for a short text.
pub fn collapse_name(text: &str) -> SmolStr {
    if let Some((start, end, collapsed)) = ascii_words(text) {
        let name = text.get(start..end).unwrap_or("");
        return if collapsed {
            SmolStr::new(name)
        } else {
            SmolStr::from(collapse_slow(name))
        };
    }
    collapsed(text).map_or_else(
        || SmolStr::from(collapse_slow(crate::v1::lines::trim_str(text))),
        SmolStr::new,
    )
}

/// For an ASCII text: its trimmed range and whether the trimmed text is already collapsed (only
/// single spaces between its words), in one pass a word at a time. `None` for any other text.
fn ascii_words(text: &str) -> Option<(usize, usize, bool)> {
    let bytes = text.as_bytes();
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let mut i = 0;
    let mut start = None;
    let mut end = 0;
    let mut collapsed = true;
    while let Some(&b) = bytes.get(i) {
        if !b.is_ascii() {
            return None;
        }
        if blank(b) {
            // A gap between words: collapsed only when it is one space.
            let gap = i;
            i += 1;
            while let Some(&b) = bytes.get(i)
                && blank(b)
            {
                i += 1;
            }
            if start.is_some() && (i - gap != 1 || b != b' ') {
                collapsed = false;
            }
            continue;
        }
        start.get_or_insert(i);
        i += 1;
        while let Some(&b) = bytes.get(i)
            && !blank(b)
        {
            if !b.is_ascii() {
                return None;
            }
            i += 1;
        }
        end = i;
    }
    // A gap at the end is trimmed: it does not count.
    let start = start.unwrap_or(end);
    let collapsed = collapsed || text.get(start..end).is_some_and(is_collapsed);
    Some((start, end, collapsed))
}

/// The text trimmed, when it needs no other change.
fn collapsed(text: &str) -> Option<&str> {
    let text = crate::v1::lines::trim_str(text);
    is_collapsed(text).then_some(text)
}

fn collapse_slow(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut space = false;
    for c in text.chars() {
        if c == '"' {
            in_string = !in_string;
        }
        if !in_string && c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out
}

/// Whether a trimmed text is already collapsed: ASCII with no whitespace but single spaces (the
/// common case, which then needs no rewriting).
fn is_collapsed(text: &str) -> bool {
    let mut space = false;
    for &b in text.as_bytes() {
        match b {
            b' ' if space => return false,
            b' ' => space = true,
            b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x80.. => return false,
            _ => space = false,
        }
    }
    true
}
