//! Confirmation tokens and idempotency keys (DESIGN §5.5).
//!
//! A token is `<step>.<expiry>.<mac>`: the MAC covers the signature (entry token) of the confirm
//! asked at `step`, and the expiry. That signature covers the session (the chain starts from its
//! id and agent), the tool, the digest of the arguments and the step, so the token covers a later
//! check of exactly that call while that confirm is still the newest entry of the history,
//! and not after the expiry. The history is bound to its record (the key is), so the token is
//! too: it covers nothing under another record, agent or rulebook version.

use crate::canonical::{base64url_is, encode_hash, hash_text, write_u64};
use crate::check::Env;
use crate::session::{Decision, Entry, Session};

/// Room on the stack for the bytes of a MAC; longer inputs (long ids or names) go to the heap.
const STACK_FRAME: usize = 256;

/// The keyed hash of `parts`, each with its length first (so no two lists of parts give one
/// input), followed by `tail` as it is.
fn mac_framed(env: Env<'_>, parts: &[&str], tail: &[&[u8]]) -> [u8; 32] {
    let size = parts.iter().map(|p| p.len() + 8).sum::<usize>()
        + tail.iter().map(|t| t.len()).sum::<usize>();
    let mut stack = [0u8; STACK_FRAME];
    let mut heap = Vec::new();
    let buf: &mut [u8] = if size <= STACK_FRAME {
        &mut stack
    } else {
        heap.resize(size, 0);
        &mut heap
    };
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        if let Some(slot) = buf.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
        at += bytes.len();
    };
    for part in parts {
        put(&(part.len() as u64).to_le_bytes());
        put(part.as_bytes());
    }
    for bytes in tail {
        put(bytes);
    }
    // INVARIANT: `size` counts every byte put, so `at == size <= buf.len()`.
    *env.key.mac(buf.get(..at).unwrap_or(&[])).as_bytes()
}

/// The MAC of a confirmation: the confirm's entry token, the expiry, then the word `confirm`. The
/// parts after the token have fixed sizes, so the input reads one way only; it fits one BLAKE3
/// block. It cannot be the input of another MAC under the key: an entry's starts with the
/// 8-byte length of the token before it, an idempotency key's with the length of its word, and
/// neither length's bytes are base64url characters.
fn confirm_mac(env: Env<'_>, entry_token: &str, expiry: u64) -> [u8; 32] {
    mac_framed(
        env,
        &[],
        &[entry_token.as_bytes(), &expiry.to_le_bytes(), b"confirm"],
    )
}

/// The token of the confirm asked at `step`, whose entry's token is `entry_token`.
pub fn issue(env: Env<'_>, entry_token: &str, step: u32, expiry: u64) -> String {
    let encoded = encode_hash(&confirm_mac(env, entry_token, expiry));
    // Written as bytes and read as text once: digits, dots and base64url are ASCII.
    let mut out = Vec::with_capacity(64);
    write_u64(&mut out, u64::from(step));
    out.push(b'.');
    write_u64(&mut out, expiry);
    out.push(b'.');
    out.extend_from_slice(&encoded);
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `token` covers this call at this point of this session's history (a history that
/// verifies: the newest entry's token is its signature). The confirm must be the newest entry
/// of any kind: a turn read after it (the person's "no, cancel"), a report or another call ends
/// what the token covers.
pub fn covers(env: Env<'_>, session: &Session, token: &str, tool: &str, digest: &str) -> bool {
    let mut parts = token.splitn(3, '.');
    let (Some(step), Some(expiry), Some(given)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let (Ok(step), Ok(expiry)) = (step.parse::<u32>(), expiry.parse::<u64>()) else {
        return false;
    };
    if env.now > expiry {
        return false;
    }
    let Some(Entry::Call(newest)) = session.entries().last() else {
        return false;
    };
    if newest.step != step
        || newest.decision != Decision::Confirm
        || newest.tool != tool
        || newest.digest != digest
    {
        return false;
    }
    base64url_is(&confirm_mac(env, &newest.token, expiry), given.as_bytes())
}

/// The idempotency key of an allowed call: derived from session, step and argument digest.
pub fn idempotency_key(env: Env<'_>, session: &Session, step: u32, digest: &str) -> String {
    let mac = mac_framed(
        env,
        &["idempotency", session.id.as_str(), digest],
        &[&step.to_le_bytes()],
    );
    let encoded = encode_hash(&mac);
    hash_text(&encoded).get(..22).unwrap_or("").to_string()
}
