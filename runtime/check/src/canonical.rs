//! Canonical JSON, streamed: object keys sorted by their UTF-8 bytes, no whitespace, numbers
//! with an integral value below 2^53 written as integers (so `40.0` and `40` are one value), and
//! strings escaped as `serde_json` escapes them. Used for argument digests and for the bytes the
//! history's signatures cover; written into a byte buffer that is hashed in one pass (many small
//! writes into a hasher cost more than the hashing itself).

use serde_json::{Map, Value};

/// Something canonical bytes can be written to (a hasher or a buffer).
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);
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
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_value(out, item);
            }
            out.put(b"]");
        }
        Value::Object(map) => write_object(out, map),
    }
}

/// Writes an object's canonical JSON (keys sorted).
pub fn write_object<S: Sink + ?Sized>(out: &mut S, map: &Map<String, Value>) {
    let sorted = map.keys().is_sorted_by(|a, b| a.as_bytes() <= b.as_bytes());
    if sorted {
        write_members(out, map.iter());
    } else {
        let mut keys: Vec<(&String, &Value)> = map.iter().collect();
        keys.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        write_members(out, keys.into_iter());
    }
}

fn write_members<'v, S: Sink + ?Sized>(
    out: &mut S,
    members: impl Iterator<Item = (&'v String, &'v Value)>,
) {
    out.put(b"{");
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.put(b",");
        }
        write_str(out, k);
        out.put(b":");
        write_value(out, v);
    }
    out.put(b"}");
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

fn write_int<S: Sink + ?Sized>(out: &mut S, i: i64) {
    let mut buf = itoa_buf();
    if i < 0 {
        out.put(b"-");
    }
    out.put(fmt_u64(i.unsigned_abs(), &mut buf));
}

fn itoa_buf() -> [u8; 20] {
    [0u8; 20]
}

fn fmt_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    buf.get(i..).unwrap_or(&[])
}

/// Writes a JSON string literal.
pub fn write_str<S: Sink + ?Sized>(out: &mut S, s: &str) {
    out.put(b"\"");
    let mut rest = s.as_bytes();
    while let Some(at) = rest
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
    {
        out.put(rest.get(..at).unwrap_or(&[]));
        let b = rest.get(at).copied().unwrap_or(0);
        match b {
            b'"' => out.put(b"\\\""),
            b'\\' => out.put(b"\\\\"),
            b'\n' => out.put(b"\\n"),
            b'\r' => out.put(b"\\r"),
            b'\t' => out.put(b"\\t"),
            0x08 => out.put(b"\\b"),
            0x0c => out.put(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get((b >> 4) as usize).copied().unwrap_or(b'0');
                let lo = HEX.get((b & 0xf) as usize).copied().unwrap_or(b'0');
                out.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
            }
        }
        rest = rest.get(at + 1..).unwrap_or(&[]);
    }
    out.put(rest);
    out.put(b"\"");
}

/// BLAKE3 of the arguments' canonical JSON, base64url.
pub fn digest_arguments(arguments: &Map<String, Value>) -> String {
    let mut buf = Vec::with_capacity(128);
    write_object(&mut buf, arguments);
    digest_of(&buf)
}

/// The digest of arguments whose canonical JSON is `written`.
pub fn digest_of(written: &[u8]) -> String {
    base64url(blake3::hash(written).as_bytes())
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
    out.reserve(bytes.len().div_ceil(3) * 4);
    let mut chunks = bytes.chunks_exact(3);
    for chunk in &mut chunks {
        if let [b0, b1, b2] = *chunk {
            let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
            out.extend_from_slice(&[sextet(n >> 18), sextet(n >> 12), sextet(n >> 6), sextet(n)]);
        }
    }
    match *chunks.remainder() {
        [b0] => {
            let n = u32::from(b0) << 16;
            out.extend_from_slice(&[sextet(n >> 18), sextet(n >> 12)]);
        }
        [b0, b1] => {
            let n = (u32::from(b0) << 16) | (u32::from(b1) << 8);
            out.extend_from_slice(&[sextet(n >> 18), sextet(n >> 12), sextet(n >> 6)]);
        }
        _ => {}
    }
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
    let mut buf = [0u8; 43];
    let mut at = 0;
    for chunk in bytes.chunks(3) {
        let b0 = chunk.first().copied().unwrap_or(0) as u32;
        let b1 = chunk.get(1).copied().unwrap_or(0) as u32;
        let b2 = chunk.get(2).copied().unwrap_or(0) as u32;
        let n = (b0 << 16) | (b1 << 8) | b2;
        let chars = [(n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63];
        for c in chars.iter().take(chunk.len() + 1) {
            if let Some(slot) = buf.get_mut(at) {
                *slot = ALPHABET.get(*c as usize).copied().unwrap_or(b'A');
            }
            at += 1;
        }
    }
    text.len() == buf.len() && buf.iter().zip(text).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

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
