//! The signed history (DESIGN §5.3) and the key that signs it (§5.2).
//!
//! Each entry carries `token_i = BLAKE3-keyed(key, token_{i-1} ‖ canonical(entry_i))`, with
//! `token_{-1}` the session's id and agent, and `key` the key file's key bound to the record
//! ([`RecordKey`]): a history signed under one record, agent or session verifies under no other. Verification recomputes the chain: an edited,
//! removed, reordered, truncated or foreign entry breaks it. Call entries are also checked to
//! number their steps from 1 and to carry the digest of their own arguments, and outcomes to
//! name an earlier call. `canonical(entry)` is a compact binary form (see `write_entry`), not
//! JSON: it needs no escaping and keeps the MAC input short; a call's digest is left out of it,
//! since it is a function of the arguments, which are signed, and verification recomputes it.

use std::ops::Range;

use serde_json::Value;

use crate::canonical::{
    base64url, base64url_decode, base64url_is, decode_hash, encode_hash, hash_text, write_object,
    write_value,
};
use crate::session::{CallEntry, Decision, Entry, Session};

/// The key file ("the licence"): the MAC key, an id and an expiry.
#[derive(Clone)]
pub struct Key {
    pub id: String,
    secret: [u8; 32],
    /// Seconds since the Unix epoch after which the licence has lapsed.
    pub expires_at: u64,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("id", &self.id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// Why a key file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

impl Key {
    pub fn new(id: impl Into<String>, secret: [u8; 32], expires_at: u64) -> Self {
        Self {
            id: id.into(),
            secret,
            expires_at,
        }
    }

    /// Reads a key file: `{"id": "...", "key": "<32 bytes, base64url>", "expires": "2027-01-01" |
    /// "2027-01-01T00:00:00Z" | <seconds>}`.
    pub fn from_json(text: &str) -> Result<Self, KeyError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| KeyError(format!("the key file is not JSON: {e}")))?;
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| KeyError("the key file has no `id`".into()))?;
        let key = v
            .get("key")
            .and_then(Value::as_str)
            .ok_or_else(|| KeyError("the key file has no `key`".into()))?;
        let bytes =
            base64url_decode(key).ok_or_else(|| KeyError("`key` is not base64url".into()))?;
        let secret: [u8; 32] = bytes
            .try_into()
            .map_err(|_| KeyError("`key` must be 32 bytes (43 base64url characters)".into()))?;
        let expires_at = match v.get("expires") {
            Some(Value::Number(n)) => n
                .as_u64()
                .ok_or_else(|| KeyError("`expires` must be positive".into()))?,
            Some(Value::String(s)) => {
                parse_time(s).ok_or_else(|| KeyError(format!("`expires` is not a date: `{s}`")))?
            }
            _ => return Err(KeyError("the key file has no `expires`".into())),
        };
        Ok(Self::new(id, secret, expires_at))
    }

    /// The key file's JSON.
    pub fn to_json(&self) -> String {
        serde_json::json!({"id": self.id, "key": base64url(&self.secret), "expires": self.expires_at}).to_string()
    }

    pub fn lapsed(&self, now: u64) -> bool {
        now > self.expires_at
    }

    /// This key bound to one record (by the BLAKE3 digest of its body, as its header holds it):
    /// the key every MAC of a session under that record is made with. A history, a
    /// confirmation token or an idempotency key made under one record therefore verifies under
    /// no other record — another catalogue, agent set or rulebook version — even where both
    /// records are signed with the same key file.
    pub fn for_record(&self, digest: &[u8; 32]) -> RecordKey {
        let mut input = [0u8; 48];
        let (label, rest) = input.split_at_mut(16);
        label.copy_from_slice(b"stalwart record\0");
        rest.copy_from_slice(digest);
        let secret = *blake3::keyed_hash(&self.secret, &input).as_bytes();
        RecordKey {
            id: self.id.clone(),
            fingerprint: fingerprint(&secret),
            secret,
            expires_at: self.expires_at,
            record: *digest,
        }
    }
}

/// A digest of a secret that names it without revealing it.
fn fingerprint(secret: &[u8; 32]) -> [u8; 16] {
    let digest = blake3::derive_key("stalwart key fingerprint", secret);
    let mut out = [0u8; 16];
    out.copy_from_slice(digest.get(..16).unwrap_or(&[0; 16]));
    out
}

/// A key file's key bound to one record ([`Key::for_record`]): what signs a session's history,
/// its confirmation tokens and its idempotency keys. There is no other way to make one, so no
/// check can sign with a key that is not bound to the record it decides under.
#[derive(Clone)]
pub struct RecordKey {
    /// The key file's id.
    pub id: String,
    secret: [u8; 32],
    fingerprint: [u8; 16],
    /// Seconds since the Unix epoch after which the licence has lapsed.
    pub expires_at: u64,
    record: [u8; 32],
}

impl std::fmt::Debug for RecordKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordKey")
            .field("id", &self.id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl RecordKey {
    pub fn lapsed(&self, now: u64) -> bool {
        now > self.expires_at
    }

    /// The digest of the record this key is bound to.
    pub fn record(&self) -> &[u8; 32] {
        &self.record
    }

    /// A name of this key that reveals nothing of it: equal for the same key file and record.
    pub fn fingerprint(&self) -> [u8; 16] {
        self.fingerprint
    }

    /// The keyed hash of `bytes`, in one call (cheaper than many small updates of a hasher).
    pub(crate) fn mac(&self, bytes: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.secret, bytes)
    }
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` to seconds since the epoch (UTC).
pub fn parse_time(s: &str) -> Option<u64> {
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t.trim_end_matches('Z'))),
        None => (s, None),
    };
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let (hh, mm, ss) = match time {
        None => (0, 0, 0),
        Some(t) => {
            let mut p = t.split(':');
            let hh: i64 = p.next()?.parse().ok()?;
            let mm: i64 = p.next()?.parse().ok()?;
            let ss: i64 = p.next().unwrap_or("0").split('.').next()?.parse().ok()?;
            (hh, mm, ss)
        }
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hh * 3600 + mm * 60 + ss).ok()
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC): what [`parse_time`] reads.
pub fn format_time(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The first link of a session's chain.
fn genesis(session: &Session) -> Vec<u8> {
    let mut g = Vec::with_capacity(session.id.len() + session.agent.len() + 1);
    g.extend_from_slice(session.id.as_bytes());
    g.push(0);
    g.extend_from_slice(session.agent.as_bytes());
    g
}

/// The hash of the entry that follows `prev`: the keyed BLAKE3 of `prev`'s length (LEB128),
/// `prev` (the genesis bytes, or the previous token's 32 bytes) and the entry's bytes. The
/// entry's bytes are written into `buf` (which is cleared first; reusing it across entries saves an allocation each). For a call entry, also the
/// range of `buf` that holds the canonical JSON of its arguments: the bytes its digest covers.
fn link(
    key: &RecordKey,
    prev: &[u8],
    entry: &Entry,
    buf: &mut Vec<u8>,
) -> (blake3::Hash, Option<Range<usize>>) {
    buf.clear();
    put_len(buf, prev.len() as u64);
    buf.extend_from_slice(prev);
    let range = write_entry(buf, entry);
    (blake3::keyed_hash(&key.secret, buf), range)
}

/// The canonical bytes of an entry without its token: the bytes its token covers after the
/// previous token (the format is in [`write_entry`]).
pub fn canonical_entry(entry: &Entry) -> Vec<u8> {
    let mut buf = Vec::with_capacity(256);
    write_entry(&mut buf, entry);
    buf
}

/// Appends `n` as LEB128 (seven bits a byte, low first; one byte below 128).
fn put_len(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends a text: its length in bytes, then its bytes.
fn put_text(out: &mut Vec<u8>, text: &str) {
    put_len(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// The reasons the check gives, each written as one byte (its place here, from 1) in a call's
/// canonical bytes; any other reason is written as `0` and its text. INVARIANT: words are only
/// ever added at the end (a changed place changes every signature over it).
const REASON_CODES: [&str; 23] = [
    "allow",
    "confirmed",
    "compensation",
    "write",
    "argument_origin",
    "tainted_call",
    "irreversible_pivot",
    "schema_partial",
    "gate_clarify",
    "unknown_tool",
    "agent_required",
    "history_invalid",
    "licence_lapsed",
    "argument_schema",
    "undeclared_destination",
    "order_rule",
    "condition_failed",
    "condition_unknown",
    "no_flow",
    "usage_unknown",
    "limit_reached",
    "spend_unknown",
    "spend_exceeded",
];

fn reason_code(reason: &str) -> Option<u8> {
    let at = REASON_CODES.iter().position(|r| *r == reason)?;
    u8::try_from(at + 1).ok()
}

/// Writes an entry's canonical bytes without its token; for a call, answers where its arguments'
/// canonical JSON lies in `out`.
///
/// The bytes are a kind byte, then the entry's fields in a fixed order: numbers and lengths as
/// LEB128, texts as their length and bytes, lists as their length and items, and a last field
/// that runs to the end (the MAC input ends with the entry, so it needs no length):
///
/// - read: `1`, the text to the end; reply: `2`, the text to the end;
/// - outcome: `3`, step, outcome word, then the result's canonical JSON to the end (nothing when
///   there is no result: JSON is never empty);
/// - call: `4`, step, tool, agent, at, the decision (`1` allow, `2` confirm, `3` refuse), the
///   marks (names in order, each with its list), the origins (names in order, each with its
///   origin), the reasons (each one byte, its place in [`REASON_CODES`], or `0` and its text),
///   `0` or `1` and the step it undoes, then the arguments' canonical JSON to the end.
///
/// A call's digest is not written: it is the hash of the arguments, which are, and verification
/// checks it against them. Every field before the last one is self-delimiting, so no two entries
/// give the same bytes.
fn write_entry(out: &mut Vec<u8>, entry: &Entry) -> Option<Range<usize>> {
    match entry {
        Entry::Read { text, .. } => {
            out.push(1);
            out.extend_from_slice(text.as_bytes());
            None
        }
        Entry::Reply { text, .. } => {
            out.push(2);
            out.extend_from_slice(text.as_bytes());
            None
        }
        Entry::Outcome {
            step,
            outcome,
            result,
            ..
        } => {
            out.push(3);
            put_len(out, u64::from(*step));
            put_text(out, outcome.as_str());
            if let Some(r) = result {
                write_value(out, r);
            }
            None
        }
        Entry::Call(c) => Some(write_call(out, c, None)),
    }
}

/// `arguments`: where `out` holds the canonical JSON of `c.arguments` already, when the caller
/// has written it (it is copied, not written again).
fn write_call(out: &mut Vec<u8>, c: &CallEntry, arguments: Option<Range<usize>>) -> Range<usize> {
    out.push(4);
    put_len(out, u64::from(c.step));
    put_text(out, &c.tool);
    put_text(out, &c.agent);
    put_len(out, c.at);
    out.push(match c.decision {
        Decision::Allow => 1,
        Decision::Confirm => 2,
        Decision::Refuse => 3,
    });
    put_len(out, c.marks.len() as u64);
    for (name, list) in c.marks.iter() {
        put_text(out, name);
        put_len(out, list.len() as u64);
        for mark in list {
            put_text(out, mark);
        }
    }
    put_len(out, c.origins.len() as u64);
    for (name, origin) in c.origins.iter() {
        put_text(out, name);
        put_text(out, origin);
    }
    put_len(out, c.reasons.len() as u64);
    for reason in &c.reasons {
        match reason_code(reason) {
            Some(code) => out.push(code),
            None => {
                out.push(0);
                put_text(out, reason);
            }
        }
    }
    match c.undoes {
        Some(u) => {
            out.push(1);
            put_len(out, u64::from(u));
        }
        None => out.push(0),
    }
    let start = out.len();
    match arguments {
        Some(written) => out.extend_from_within(written),
        None => write_object(out, &c.arguments),
    }
    start..out.len()
}

/// Verifies the whole history. `false` on any broken link or inconsistency.
///
/// Each entry's bytes are written once into one buffer: the token is the keyed hash of the
/// buffer, and a call's digest the hash of the part that holds its arguments.
pub fn verify(key: &RecordKey, session: &Session) -> bool {
    verify_from(key, session, 0, 0).is_some()
}

/// Verifies what the session has not verified yet with this key, and remembers it. A history
/// the runtime itself has signed since it was last verified needs no work here; a history read
/// from outside, or verified with another key, is verified in full.
pub fn verify_session(key: &RecordKey, session: &mut Session) -> bool {
    let memo = &session.verified;
    let (len, calls) = if memo.holds_for(key.fingerprint, &session.id, &session.agent)
        && memo.len <= session.entries().len()
    {
        (memo.len, memo.calls)
    } else {
        (0, 0)
    };
    if len == session.entries().len() && len > 0 {
        return true;
    }
    match verify_from(key, session, len, calls) {
        Some(calls) => {
            let len = session.entries().len();
            let memo = &mut session.verified;
            memo.len = len;
            memo.calls = calls;
            memo.key = key.fingerprint;
            if memo.id != session.id {
                memo.id.clone_from(&session.id);
            }
            if memo.agent != session.agent {
                memo.agent.clone_from(&session.agent);
            }
            true
        }
        None => false,
    }
}

/// Verifies `entries[from..]`, given that `entries[..from]` verifies and holds `calls` calls;
/// answers the number of calls of the whole history.
fn verify_from(key: &RecordKey, session: &Session, from: usize, calls: u32) -> Option<u32> {
    let entries = session.entries();
    let mut prev: Link = match from.checked_sub(1).and_then(|i| entries.get(i)) {
        Some(last) => Link::Token(decode_hash(last.token())?),
        None => Link::Genesis(genesis(session)),
    };
    let mut buf = Vec::with_capacity(512);
    let mut step = calls;
    for entry in entries.get(from..).unwrap_or(&[]) {
        match entry {
            Entry::Call(c) => {
                step += 1;
                if c.step != step {
                    return None;
                }
            }
            Entry::Outcome { step: s, .. } if (*s == 0 || *s > step) => {
                return None;
            }
            _ => {}
        }
        let (token, arguments) = link(key, prev.bytes(), entry, &mut buf);
        if let (Entry::Call(c), Some(range)) = (entry, arguments) {
            let digest = blake3::hash(buf.get(range).unwrap_or(&[]));
            if !base64url_is(digest.as_bytes(), c.digest.as_bytes()) {
                return None;
            }
        }
        if !base64url_is(token.as_bytes(), entry.token().as_bytes()) {
            return None;
        }
        // The entry's token is the link just computed.
        prev = Link::Token(*token.as_bytes());
    }
    Some(step)
}

/// What an entry's bytes are signed after: the session's genesis for the first entry, else the
/// previous entry's token (its 32 bytes, not their text).
enum Link {
    Genesis(Vec<u8>),
    Token([u8; 32]),
}

impl Link {
    /// The link after the last entry of `session` (whose history verifies, so its tokens are
    /// well-formed); `None` when that token is not the text of 32 bytes.
    fn after(session: &Session) -> Option<Link> {
        Some(match (session.entries().last(), session.last_raw_token()) {
            (Some(_), Some(raw)) => Link::Token(*raw),
            (Some(last), None) => Link::Token(decode_hash(last.token())?),
            (None, _) => Link::Genesis(genesis(session)),
        })
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Link::Genesis(g) => g,
            Link::Token(t) => t,
        }
    }
}

/// Appends an entry, signing it over the chain so far. The history must already verify.
pub fn append(key: &RecordKey, session: &mut Session, entry: Entry) {
    let mut buf = Vec::with_capacity(512);
    // A history that verifies has well-formed tokens; one that does not is not appended to
    // (the caller verifies first), and gets the genesis link here.
    let prev = Link::after(session).unwrap_or_else(|| Link::Genesis(genesis(session)));
    let (token, _) = link(key, prev.bytes(), &entry, &mut buf);
    push_signed(key, session, entry, token);
}

/// [`append`] for a call whose arguments' canonical JSON the check has written already (for
/// their digest) into `buf`, which holds nothing else: the entry's bytes are written after
/// them, reusing the buffer, and the arguments are copied there, not written again.
pub(crate) fn append_call(
    key: &RecordKey,
    session: &mut Session,
    entry: CallEntry,
    buf: &mut Vec<u8>,
) {
    let arguments = 0..buf.len();
    let start = buf.len();
    let prev = Link::after(session).unwrap_or_else(|| Link::Genesis(genesis(session)));
    put_len(buf, prev.bytes().len() as u64);
    buf.extend_from_slice(prev.bytes());
    write_call(buf, &entry, Some(arguments));
    let token = blake3::keyed_hash(&key.secret, buf.get(start..).unwrap_or(&[]));
    push_signed(key, session, Entry::Call(entry), token);
}

fn push_signed(key: &RecordKey, session: &mut Session, mut entry: Entry, token: blake3::Hash) {
    entry.set_token(hash_text(&encode_hash(token.as_bytes())).to_string());
    session.push_signed(entry, *token.as_bytes(), key.fingerprint);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_utc_dates_and_read_back() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_time(1_796_266_645), "2026-12-03T02:57:25Z");
        for secs in [0, 86_399, 951_782_400, 1_796_040_000, 4_102_444_800] {
            assert_eq!(parse_time(&format_time(secs)), Some(secs));
        }
    }

    #[test]
    fn dates_parse_to_unix_seconds() {
        assert_eq!(parse_time("1970-01-01"), Some(0));
        assert_eq!(parse_time("2026-11-30"), Some(1_795_996_800));
        assert_eq!(
            parse_time("2026-11-30T12:00:00Z"),
            Some(1_795_996_800 + 43_200)
        );
        assert_eq!(parse_time("2026-13-01"), None);
        assert_eq!(parse_time("soon"), None);
    }

    #[test]
    fn key_files_round_trip() {
        let key = Key::new("dev", [7; 32], 1_800_000_000);
        let back = Key::from_json(&key.to_json()).unwrap();
        assert_eq!(back.id, "dev");
        assert_eq!(back.expires_at, 1_800_000_000);
        assert!(Key::from_json(r#"{"id":"x","key":"AAAA","expires":1}"#).is_err());
    }

    /// A key bound to the record of digest zero.
    fn bound(id: &str, byte: u8) -> RecordKey {
        Key::new(id, [byte; 32], 0).for_record(&[0; 32])
    }

    #[test]
    fn a_history_verifies_only_under_the_record_it_was_signed_for() {
        let key = Key::new("a", [1; 32], 0);
        let (here, there) = (key.for_record(&[1; 32]), key.for_record(&[2; 32]));
        assert_ne!(here.fingerprint(), there.fingerprint());
        let mut s = Session::new("desk", "s1");
        append(&here, &mut s, turn("hello"));
        assert!(verify(&here, &s));
        assert!(!verify(&there, &s), "another record's key");
        assert!(!verify_session(&there, &mut s));
        assert!(verify_session(&here, &mut s));
        assert_eq!(
            key.for_record(&[1; 32]).fingerprint(),
            here.fingerprint(),
            "the same key file and record bind alike"
        );
    }

    fn turn(text: &str) -> Entry {
        Entry::Read {
            text: text.into(),
            token: String::new(),
        }
    }

    #[test]
    fn a_verified_history_is_verified_again_under_another_key() {
        let (a, b) = (bound("a", 1), bound("b", 2));
        let mut s = Session::new("desk", "s1");
        append(&a, &mut s, turn("hello"));
        append(&a, &mut s, turn("refund order 4411"));
        assert!(verify_session(&a, &mut s));
        assert!(!verify_session(&b, &mut s), "signed with a, not b");
        assert!(verify_session(&a, &mut s));
    }

    #[test]
    fn lengths_are_leb128() {
        for (n, bytes) in [
            (0u64, vec![0u8]),
            (127, vec![0x7f]),
            (128, vec![0x80, 0x01]),
            (300, vec![0xac, 0x02]),
            (
                u64::MAX,
                vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
        ] {
            let mut out = Vec::new();
            put_len(&mut out, n);
            assert_eq!(out, bytes, "{n}");
        }
    }

    fn call_entry(tool: &str, agent: &str, reasons: &[&str]) -> Entry {
        let mut arguments = serde_json::Map::new();
        arguments.insert("order_id".into(), Value::String("4411".into()));
        arguments.insert("amount".into(), serde_json::json!(40.0));
        let mut origins = std::collections::BTreeMap::new();
        origins.insert("order_id".to_string(), "typed".to_string());
        let mut marks = crate::session::Marks::new();
        marks.push("amount", "untrusted:read_inbox".into());
        Entry::Call(CallEntry {
            step: 3,
            tool: tool.into(),
            agent: agent.into(),
            arguments: arguments.into(),
            digest: "not signed".into(),
            origins: origins.into(),
            marks,
            decision: crate::session::Decision::Confirm,
            reasons: reasons.iter().map(|r| (*r).into()).collect(),
            undoes: Some(2),
            at: 300,
            token: String::new(),
        })
    }

    #[test]
    fn a_call_entry_has_these_canonical_bytes() {
        let bytes = canonical_entry(&call_entry("refund_card", "billing", &["write"]));
        let mut expected = vec![4u8, 3, 11];
        expected.extend_from_slice(b"refund_card");
        expected.push(7);
        expected.extend_from_slice(b"billing");
        expected.extend_from_slice(&[0xac, 0x02, 2, 1, 6]);
        expected.extend_from_slice(b"amount");
        expected.extend_from_slice(&[1, 20]);
        expected.extend_from_slice(b"untrusted:read_inbox");
        expected.extend_from_slice(&[1, 8]);
        expected.extend_from_slice(b"order_id");
        expected.push(5);
        expected.extend_from_slice(b"typed");
        // One reason, `write` (code 4); the undo of step 2.
        expected.extend_from_slice(&[1, 4, 1, 2]);
        expected.extend_from_slice(br#"{"amount":40,"order_id":"4411"}"#);
        assert_eq!(bytes, expected);
        let outcome = Entry::Outcome {
            step: 3,
            outcome: crate::session::Outcome::Ran,
            result: Some(serde_json::json!({"paid": true})),
            token: String::new(),
        };
        assert_eq!(canonical_entry(&outcome), b"\x03\x03\x03ran{\"paid\":true}");
        assert_eq!(canonical_entry(&turn("hi")), b"\x01hi");
    }

    #[test]
    fn fields_moved_across_a_boundary_give_other_bytes() {
        let a = canonical_entry(&call_entry("ab", "c", &["x", "y"]));
        let b = canonical_entry(&call_entry("a", "bc", &["x", "y"]));
        let c = canonical_entry(&call_entry("ab", "c", &["xy"]));
        assert_ne!(a, b);
        assert_ne!(a, c);
        // A reason the check gives is one byte; any other is `0` and its text.
        let known = canonical_entry(&call_entry("ab", "c", &["write", "x"]));
        let unknown = canonical_entry(&call_entry("ab", "c", &["\u{4}", "x"]));
        assert_ne!(known, unknown);
        assert!(known.windows(4).any(|w| w == [2, 4, 0, 1]), "{known:?}");
        for (i, reason) in REASON_CODES.iter().enumerate() {
            assert_eq!(reason_code(reason), Some(i as u8 + 1));
        }
        assert_eq!(reason_code("wrote"), None);
        let read = canonical_entry(&turn("hi"));
        let reply = canonical_entry(&Entry::Reply {
            text: "hi".into(),
            token: String::new(),
        });
        assert_ne!(read, reply);
    }

    #[test]
    fn a_history_read_back_is_extended_as_the_one_held() {
        let key = bound("a", 3);
        let mut held = Session::new("desk", "s1");
        append(&key, &mut held, turn("hello"));
        append(&key, &mut held, turn("refund order 4411"));
        let json = serde_json::to_value(&held).unwrap();
        // Read back, the session has the tokens as text only: the next link is decoded from it.
        let mut read = Session::from_json(json).unwrap();
        assert!(verify_session(&key, &mut read));
        append(&key, &mut held, turn("thanks"));
        append(&key, &mut read, turn("thanks"));
        assert_eq!(held, read);
        assert!(verify(&key, &read));
        assert_eq!(
            Link::after(&read).map(|l| l.bytes().to_vec()),
            Link::after(&held).map(|l| l.bytes().to_vec())
        );
        // Cut back, the held session still signs after the right token.
        held.truncate(1);
        read.truncate(1);
        append(&key, &mut held, turn("again"));
        append(&key, &mut read, turn("again"));
        assert_eq!(held, read);
        assert!(verify(&key, &held));
    }

    #[test]
    fn a_held_history_whose_id_or_agent_changed_is_verified_again() {
        let key = bound("a", 1);
        let mut s = Session::new("desk", "s1");
        append(&key, &mut s, turn("hello"));
        assert!(verify_session(&key, &mut s));
        s.id = "s2".into();
        assert!(
            !verify_session(&key, &mut s),
            "the chain starts from the id"
        );
        append(&key, &mut s, turn("appended under the new id"));
        assert!(!verify_session(&key, &mut s));
        s.id = "s1".into();
        s.agent = "billing".into();
        assert!(
            !verify_session(&key, &mut s),
            "the chain starts from the agent"
        );
        s.agent = "desk".into();
        assert!(
            verify_session(&key, &mut s),
            "signed over the chain of s1 and desk"
        );
        let mut fresh = Session::new("desk", "s1");
        fresh.id = "s3".into();
        append(&key, &mut fresh, turn("first entry under the new id"));
        assert!(verify_session(&key, &mut fresh));
    }

    #[test]
    fn entries_appended_to_an_unverified_history_do_not_make_it_verified() {
        let key = bound("a", 1);
        let mut s = Session::new("desk", "s1");
        append(&key, &mut s, turn("hello"));
        let mut entries = s.entries().to_vec();
        entries.push(turn("forged, with no token"));
        let mut forged = Session::from_parts("desk", "s1", entries);
        append(&key, &mut forged, turn("signed over the forged entry"));
        assert!(!verify_session(&key, &mut forged));
        assert!(!verify(&key, &forged));
    }

    #[test]
    fn a_truncated_history_stays_verified_and_counts_its_calls() {
        let key = bound("a", 1);
        let mut s = Session::new("desk", "s1");
        append(&key, &mut s, turn("hello"));
        let mut entries = s.entries().to_vec();
        entries.push(turn("forged"));
        let mut t = Session::from_parts("desk", "s1", entries);
        assert!(!verify_session(&key, &mut t));
        t.truncate(1);
        assert!(verify_session(&key, &mut t), "the prefix was signed");
        assert_eq!(t.next_step(), 1);
    }
}
