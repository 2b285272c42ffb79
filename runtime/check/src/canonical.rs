//! Canonical JSON, streamed: object keys sorted by their UTF-8 bytes, no whitespace, numbers
//! with an integral value below 2^53 written as integers (so `40.0` and `40` are one value), and
//! strings escaped as `serde_json` escapes them. Used for argument digests and for the bytes the
//! history's signatures cover; written into a byte buffer that is hashed in one pass (many small
//! writes into a hasher cost more than the hashing itself).

use serde_json::{Map, Value};

/// Something canonical bytes can be written to (a hasher or a buffer).
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);

    /// Writes one byte (the punctuation of JSON).
    fn put_byte(&mut self, byte: u8) {
        self.put(&[byte]);
    }

    /// Writes `bytes` between double quotes (a string that needs no escape).
    fn put_quoted(&mut self, bytes: &[u8]) {
        self.put_byte(b'"');
        self.put(bytes);
        self.put_byte(b'"');
    }
}

impl Sink for blake3::Hasher {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn put_byte(&mut self, byte: u8) {
        self.push(byte);
    }

    fn put_quoted(&mut self, bytes: &[u8]) {
        self.reserve(bytes.len() + 2);
        self.push(b'"');
        self.extend_from_slice(bytes);
        self.push(b'"');
    }
}

/// Writes a value's canonical JSON.
pub fn write_value<S: Sink + ?Sized>(out: &mut S, value: &Value) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.put_byte(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put_byte(b',');
                }
                write_value(out, item);
            }
            out.put_byte(b']');
        }
        Value::Object(map) => write_object(out, map),
    }
}

/// Objects up to this size are sorted on the stack.
const SMALL_OBJECT: usize = 16;

/// Writes an object's canonical JSON (keys sorted).
pub fn write_object<S: Sink + ?Sized>(out: &mut S, map: &Map<String, Value>) {
    static NULL: Value = Value::Null;
    let sorted = map.keys().is_sorted_by(|a, b| a.as_bytes() <= b.as_bytes());
    if sorted {
        write_members(out, map.iter().map(|(k, v)| (k.as_str(), v)));
    } else if map.len() <= SMALL_OBJECT {
        let mut members = [("", &NULL); SMALL_OBJECT];
        for (slot, (k, v)) in members.iter_mut().zip(map) {
            *slot = (k.as_str(), v);
        }
        let members = members.get_mut(..map.len()).unwrap_or(&mut []);
        members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        write_members(out, members.iter().copied());
    } else {
        let mut members: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
        members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        write_members(out, members.into_iter());
    }
}

fn write_members<'v, S: Sink + ?Sized>(
    out: &mut S,
    members: impl Iterator<Item = (&'v str, &'v Value)>,
) {
    out.put_byte(b'{');
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.put_byte(b',');
        }
        write_str(out, k);
        out.put_byte(b':');
        write_value(out, v);
    }
    out.put_byte(b'}');
}

fn write_number<S: Sink + ?Sized>(out: &mut S, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        write_int(out, i);
        return;
    }
    if let Some(u) = n.as_u64() {
        let mut buf = itoa_buf();
        out.put(fmt_u64(u, &mut buf));
        return;
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        write_int(out, f as i64);
    } else {
        out.put(format!("{f:?}").as_bytes());
    }
}

/// Writes an unsigned integer in decimal.
pub fn write_u64<S: Sink + ?Sized>(out: &mut S, n: u64) {
    let mut buf = itoa_buf();
    out.put(fmt_u64(n, &mut buf));
}

/// Appends a number as `serde_json` displays it, without the formatter, when that is plain
/// digits: an integer, or a float with an integral value below 10^15 (`40.0`, `-3.0`). Answers
/// false, writing nothing, for any other number (the caller displays it).
pub(crate) fn push_plain_number(out: &mut String, n: &serde_json::Number) -> bool {
    let mut buf = itoa_buf();
    let (negative, magnitude, float) = if let Some(u) = n.as_u64() {
        (false, u, false)
    } else if let Some(i) = n.as_i64() {
        (i < 0, i.unsigned_abs(), false)
    } else {
        match n.as_f64() {
            Some(f)
                if f.fract() == 0.0 && f.abs() < 1e15 && !(f == 0.0 && f.is_sign_negative()) =>
            {
                (f < 0.0, f.abs() as u64, true)
            }
            _ => return false,
        }
    };
    if negative {
        out.push('-');
    }
    // Decimal digits are ASCII.
    out.push_str(std::str::from_utf8(fmt_u64(magnitude, &mut buf)).unwrap_or(""));
    if float {
        out.push_str(".0");
    }
    true
}

fn write_int<S: Sink + ?Sized>(out: &mut S, i: i64) {
    let mut buf = itoa_buf();
    if i < 0 {
        out.put_byte(b'-');
    }
    out.put(fmt_u64(i.unsigned_abs(), &mut buf));
}

fn itoa_buf() -> [u8; 20] {
    [0u8; 20]
}

/// `"00010203…99"`: the two digits of every number below 100.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes `n` in decimal at the end of `buf`, two digits a step; answers the digits.
fn fmt_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        if let (Some(slot), Some(digits)) = (buf.get_mut(i..i + 2), DIGIT_PAIRS.get(pair..pair + 2))
        {
            slot.copy_from_slice(digits);
        }
    }
    // INVARIANT: a u64 has at most 20 digits, so `i >= 2` here (18 written at most above).
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        if let (Some(slot), Some(digits)) = (buf.get_mut(i..i + 2), DIGIT_PAIRS.get(pair..pair + 2))
        {
            slot.copy_from_slice(digits);
        }
    } else {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + n as u8;
        }
    }
    buf.get(i..).unwrap_or(&[])
}

/// Writes a JSON string literal.
pub fn write_str<S: Sink + ?Sized>(out: &mut S, s: &str) {
    // Most strings (names, words, digests) need no escape: one reserve and one copy.
    if next_escape(s.as_bytes(), 0).is_none() {
        out.put_quoted(s.as_bytes());
        return;
    }
    out.put_byte(b'"');
    escape_pieces(s, |piece| out.put(piece.as_bytes()));
    out.put_byte(b'"');
}

/// Appends a JSON string literal to a `String` (as [`write_str`] writes it).
pub fn push_str_literal(out: &mut String, s: &str) {
    out.push('"');
    escape_pieces(s, |piece| out.push_str(piece));
    out.push('"');
}

/// Hands the escaped form of `s` to `put` in pieces: runs of bytes that need no escape, copied
/// whole, and the escape of each byte that needs one.
#[inline]
fn escape_pieces(s: &str, mut put: impl FnMut(&str)) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(at) = next_escape(bytes, start) {
        // INVARIANT: `at` indexes an ASCII byte, so both slices lie on character boundaries.
        if at > start {
            put(s.get(start..at).unwrap_or(""));
        }
        let b = bytes.get(at).copied().unwrap_or(0);
        match b {
            b'"' => put("\\\""),
            b'\\' => put("\\\\"),
            b'\n' => put("\\n"),
            b'\r' => put("\\r"),
            b'\t' => put("\\t"),
            0x08 => put("\\b"),
            0x0c => put("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get((b >> 4) as usize).copied().unwrap_or(b'0');
                let lo = HEX.get((b & 0xf) as usize).copied().unwrap_or(b'0');
                let escaped = [b'\\', b'u', b'0', b'0', hi, lo];
                put(std::str::from_utf8(&escaped).unwrap_or(""));
            }
        }
        start = at + 1;
    }
    put(s.get(start..).unwrap_or(""));
}

/// The lanes of an eight-byte word (little-endian) that hold a byte escaped in a JSON string: a
/// control character, `"` or `\`, each flagged by its lane's high bit.
#[inline]
fn special_lanes(w: u64) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_lane = |w: u64| w.wrapping_sub(LOW) & !w & HIGH;
    (w.wrapping_sub(LOW * 0x20) & !w & HIGH)
        | zero_lane(w ^ (LOW * u64::from(b'"')))
        | zero_lane(w ^ (LOW * u64::from(b'\\')))
}

/// The index of the first byte at or after `from` that needs an escape. Eight bytes are tested
/// at a time: a byte below 0x20, or equal to `"` or `\`, sets the high bit of its lane in
/// `special`; a lane above a flagged one may be flagged falsely (a borrow), never one below, so
/// the lowest flag is exact. The last partial word is tested as the eight bytes that end the
/// text: its lanes over bytes tested already hold no escape, so its lowest flag is exact too.
#[inline]
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let word_at = |at: usize| -> u64 {
        let word = rest.get(at..at + 8).unwrap_or(&[0; 8]);
        u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or([0; 8]))
    };
    if rest.len() < 8 {
        // Fewer than eight bytes, one by one: copying them into a padded word costs a call.
        return rest
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            .map(|at| from + at);
    }
    let mut at = 0;
    while at + 8 <= rest.len() {
        let special = special_lanes(word_at(at));
        if special != 0 {
            return Some(from + at + (special.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at < rest.len() {
        let last = rest.len() - 8;
        let special = special_lanes(word_at(last));
        if special != 0 {
            return Some(from + last + (special.trailing_zeros() / 8) as usize);
        }
    }
    None
}

/// BLAKE3 of the arguments' canonical JSON, base64url.
pub fn digest_arguments(arguments: &Map<String, Value>) -> String {
    let mut buf = Vec::with_capacity(128);
    write_object(&mut buf, arguments);
    digest_of(&buf)
}

/// The digest of arguments whose canonical JSON is `written`.
pub fn digest_of(written: &[u8]) -> String {
    hash_text(&encode_hash(blake3::hash(written).as_bytes())).to_string()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The character of a 6-bit group.
#[inline]
fn sextet(n: u32) -> u8 {
    // INVARIANT: `n & 63` is below the alphabet's length, so the lookup never fails.
    ALPHABET.get((n & 63) as usize).copied().unwrap_or(b'A')
}

/// Appends the base64url form (no padding) of `bytes` to `out`.
fn encode_into(bytes: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + bytes.len().div_ceil(3) * 4, 0);
    let written = encode_slice(bytes, out.get_mut(start..).unwrap_or(&mut []));
    out.truncate(start + written);
}

/// Writes the base64url form (no padding) of `bytes` into `out`, which holds at least
/// `bytes.len().div_ceil(3) * 4` bytes; answers how many it wrote.
#[inline]
fn encode_slice(bytes: &[u8], out: &mut [u8]) -> usize {
    let mut chunks = bytes.chunks_exact(3);
    let mut quads = out.chunks_exact_mut(4);
    let mut written = 0;
    for (chunk, quad) in (&mut chunks).zip(&mut quads) {
        if let (&[b0, b1, b2], [q0, q1, q2, q3]) = (chunk, quad) {
            let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
            *q0 = sextet(n >> 18);
            *q1 = sextet(n >> 12);
            *q2 = sextet(n >> 6);
            *q3 = sextet(n);
            written += 4;
        }
    }
    let tail = out.get_mut(written..).unwrap_or(&mut []);
    match (chunks.remainder(), tail) {
        (&[b0], [q0, q1, ..]) => {
            let n = u32::from(b0) << 16;
            *q0 = sextet(n >> 18);
            *q1 = sextet(n >> 12);
            written + 2
        }
        (&[b0, b1], [q0, q1, q2, ..]) => {
            let n = (u32::from(b0) << 16) | (u32::from(b1) << 8);
            *q0 = sextet(n >> 18);
            *q1 = sextet(n >> 12);
            *q2 = sextet(n >> 6);
            written + 3
        }
        _ => written,
    }
}

/// The base64url form (no padding) of a 32-byte hash, on the stack.
#[inline]
pub(crate) fn encode_hash(bytes: &[u8; 32]) -> [u8; 43] {
    let mut out = [0u8; 43];
    encode_slice(bytes, &mut out);
    out
}

/// [`encode_hash`] as text.
#[inline]
pub(crate) fn hash_text(encoded: &[u8; 43]) -> &str {
    // Every byte of the encoding is from the ASCII alphabet.
    std::str::from_utf8(encoded).unwrap_or("")
}

/// Base64url without padding.
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    encode_into(bytes, &mut out);
    // Every byte pushed is from the ASCII alphabet.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `text` is the base64url form of `bytes`, without allocating (and in time that depends
/// only on the lengths).
pub fn base64url_is(bytes: &[u8; 32], text: &[u8]) -> bool {
    let buf = encode_hash(bytes);
    text.len() == buf.len() && buf.iter().zip(text).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The 32 bytes whose [`encode_hash`] is `text`: `None` unless `text` is exactly such an
/// encoding (43 characters of the URL alphabet, the last one's two spare bits zero).
pub fn decode_hash(text: &str) -> Option<[u8; 32]> {
    let text: &[u8; 43] = text.as_bytes().try_into().ok()?;
    let v = |c: u8| u32::from(SEXTETS.get(usize::from(c)).copied().unwrap_or(0xFF));
    let mut out = [0u8; 32];
    // A character outside the alphabet reads as 0xFF: its high bits stay set in `bad`.
    let mut bad = 0u32;
    // Ten groups of four characters give 30 bytes; the last three characters give two.
    for (group, bytes) in text.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        if let ([a, b, c, d], [x, y, z]) = (group, bytes) {
            let (a, b, c, d) = (v(*a), v(*b), v(*c), v(*d));
            bad |= a | b | c | d;
            let n = (a << 18) | (b << 12) | (c << 6) | d;
            [*x, *y, *z] = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        }
    }
    let (a, b, c) = (v(text[40]), v(text[41]), v(text[42]));
    bad |= a | b | c;
    let n = (a << 12) | (b << 6) | c;
    if bad > 63 || n & 0b11 != 0 {
        return None;
    }
    out[30] = (n >> 10) as u8;
    out[31] = (n >> 2) as u8;
    Some(out)
}

/// Each byte's value as a base64url character, 0xFF for the bytes outside the alphabet.
// Worked out while compiling: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
const SEXTETS: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Decodes base64url (with or without padding); `None` on a bad character.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        } as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(v: &Value) -> String {
        let mut buf = Vec::new();
        write_value(&mut buf, v);
        String::from_utf8(buf).unwrap()
    }

    /// `write_str` writes `text` as `serde_json` does.
    fn escapes_as_serde_json(text: &str) {
        let mut buf = Vec::new();
        write_str(&mut buf, text);
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            serde_json::to_string(text).unwrap()
        );
    }

    #[test]
    fn an_escape_is_found_at_every_position_of_every_short_length() {
        for len in 0..24 {
            for at in 0..len {
                for special in ['"', '\\', '\n', '\u{1f}', '\u{0}'] {
                    let text: String = (0..len)
                        .map(|i| if i == at { special } else { 'a' })
                        .collect();
                    escapes_as_serde_json(&text);
                }
            }
        }
    }

    #[test]
    fn every_pair_of_escapes_is_found_in_short_texts() {
        for len in 2..24 {
            for first in 0..len {
                for second in first + 1..len {
                    let text: String = (0..len)
                        .map(|i| match i {
                            i if i == first => '"',
                            i if i == second => '\n',
                            _ => 'a',
                        })
                        .collect();
                    escapes_as_serde_json(&text);
                }
            }
        }
    }

    #[test]
    fn plain_numbers_are_pushed_as_serde_json_displays_them() {
        let mut floats = vec![
            0.0,
            1.0,
            -1.0,
            40.0,
            -40.0,
            1e14,
            999_999_999_999_999.0,
            -1e14,
        ];
        floats.extend((0..4000u64).map(|i| {
            let x = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 60 + 4)) % 1_000_000_000_000_000;
            if i % 2 == 0 || x == 0 {
                x as f64
            } else {
                -(x as f64)
            }
        }));
        for f in floats {
            let n = serde_json::Number::from_f64(f).unwrap();
            let mut out = String::new();
            assert!(push_plain_number(&mut out, &n), "{f}");
            assert_eq!(out, n.to_string());
        }
        for i in [0i64, 7, -7, 4411, i64::MIN, i64::MAX] {
            let n = serde_json::Number::from(i);
            let mut out = String::new();
            assert!(push_plain_number(&mut out, &n));
            assert_eq!(out, n.to_string());
        }
        let mut out = String::new();
        assert!(push_plain_number(
            &mut out,
            &serde_json::Number::from(u64::MAX)
        ));
        assert_eq!(out, u64::MAX.to_string());
        for f in [-0.0, 0.5, 1e15, 1e16, 1e300, 2.5e-8] {
            let n = serde_json::Number::from_f64(f).unwrap();
            let mut out = String::new();
            assert!(!push_plain_number(&mut out, &n), "{f}");
            assert!(out.is_empty());
        }
    }

    #[test]
    fn integers_are_written_as_display_writes_them() {
        let mut edges = vec![
            0,
            1,
            9,
            10,
            11,
            99,
            100,
            101,
            999,
            1000,
            1_796_040_000,
            u64::MAX,
        ];
        edges.extend((0..64).map(|b| 1u64 << b));
        edges.extend((1..20).map(|e| 10u64.pow(e) - 1));
        edges.extend((1..20).map(|e| 10u64.pow(e)));
        edges.extend((0..5000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64)));
        for n in edges {
            let mut buf = Vec::new();
            write_u64(&mut buf, n);
            assert_eq!(String::from_utf8(buf).unwrap(), n.to_string());
        }
    }

    #[test]
    fn keys_are_sorted_and_integral_numbers_are_integers() {
        let v: Value = serde_json::from_str(
            r#"{"b": 40.0, "a": [1, 2.5, -3.0], "c": {"z": null, "y": "q\"\n"}}"#,
        )
        .unwrap();
        assert_eq!(
            canonical(&v),
            r#"{"a":[1,2.5,-3],"b":40,"c":{"y":"q\"\n","z":null}}"#
        );
    }

    #[test]
    fn forty_and_forty_point_oh_have_one_digest() {
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"amount": 40, "order_id": "4411"}"#).unwrap();
        let b: Map<String, Value> =
            serde_json::from_str(r#"{"order_id": "4411", "amount": 40.00}"#).unwrap();
        assert_eq!(digest_arguments(&a), digest_arguments(&b));
        let c: Map<String, Value> =
            serde_json::from_str(r#"{"order_id": "4411", "amount": 45}"#).unwrap();
        assert_ne!(digest_arguments(&a), digest_arguments(&c));
    }

    #[test]
    fn strings_escape_like_serde_json() {
        for s in [
            "plain",
            "tab\there",
            "ctl\u{1}x",
            "quote\"back\\slash",
            "é ünïcode",
        ] {
            let mut buf = Vec::new();
            write_str(&mut buf, s);
            assert_eq!(
                String::from_utf8(buf).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }

    #[test]
    fn decode_hash_reads_back_exactly_the_encoding() {
        for seed in 0..64usize {
            let bytes: [u8; 32] = std::array::from_fn(|i| (i * 53 + seed * 31 + 7) as u8);
            let encoded = encode_hash(&bytes);
            let text = hash_text(&encoded);
            assert_eq!(decode_hash(text), Some(bytes), "{text}");
            let mut spare = encoded;
            // The last character carries two spare bits: set, the text is not an encoding.
            spare[42] = if spare[42] == b'A' { b'B' } else { b'A' };
            if (spare[42] - b'A') & 0b11 != 0 {
                assert_eq!(decode_hash(hash_text(&spare)), None);
            }
        }
        assert_eq!(decode_hash(""), None);
        assert_eq!(decode_hash(&"A".repeat(42)), None);
        assert_eq!(decode_hash(&"A".repeat(44)), None);
        assert_eq!(decode_hash(&format!("{}+", "A".repeat(42))), None);
        assert_eq!(decode_hash(&format!("{}=", "A".repeat(42))), None);
    }

    #[test]
    fn base64url_is_compares_with_the_encoding() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 53 + 7) as u8);
        let text = base64url(&bytes);
        assert!(base64url_is(&bytes, text.as_bytes()));
        let mut edited = text.clone().into_bytes();
        edited[42] = if edited[42] == b'A' { b'B' } else { b'A' };
        assert!(!base64url_is(&bytes, &edited));
        assert!(!base64url_is(&bytes, &text.as_bytes()[..42]));
    }

    #[test]
    fn sorted_and_unsorted_objects_write_alike() {
        let sorted: Map<String, Value> =
            serde_json::from_str(r#"{"amount": 40, "order_id": "4411"}"#).unwrap();
        let unsorted: Map<String, Value> =
            serde_json::from_str(r#"{"order_id": "4411", "amount": 40}"#).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_object(&mut a, &sorted);
        write_object(&mut b, &unsorted);
        assert_eq!(
            String::from_utf8(a).unwrap(),
            r#"{"amount":40,"order_id":"4411"}"#
        );
        assert_eq!(
            String::from_utf8(b).unwrap(),
            r#"{"amount":40,"order_id":"4411"}"#
        );
    }

    #[test]
    fn base64url_round_trips() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
    }
}
