//! Confirmation tokens and idempotency keys (DESIGN §5.5).
//!
//! A token is `<step>.<expiry>.<mac>`: the MAC covers the session (id and agent), the tool, the
//! digest of the arguments, the step the confirm was asked at and the expiry. It covers a later
//! check of exactly that call while that confirm is still the newest call entry of the history,
//! and not after the expiry.

use crate::canonical::{base64url_is, encode_hash, hash_text, write_u64};
use crate::check::Env;
use crate::session::{Decision, Session};

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

fn mac(
    env: Env<'_>,
    session: &Session,
    tool: &str,
    digest: &str,
    step: u32,
    expiry: u64,
) -> [u8; 32] {
    let parts = [
        "confirm",
        session.id.as_str(),
        session.agent.as_str(),
        tool,
        digest,
    ];
    mac_framed(env, &parts, &[&step.to_le_bytes(), &expiry.to_le_bytes()])
}

/// The token of a confirm asked at `step`.
pub fn issue(
    env: Env<'_>,
    session: &Session,
    tool: &str,
    digest: &str,
    step: u32,
    expiry: u64,
) -> String {
    let encoded = encode_hash(&mac(env, session, tool, digest, step, expiry));
    // Written as bytes and read as text once: digits, dots and base64url are ASCII.
    let mut out = Vec::with_capacity(64);
    write_u64(&mut out, u64::from(step));
    out.push(b'.');
    write_u64(&mut out, expiry);
    out.push(b'.');
    out.extend_from_slice(&encoded);
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `token` covers this call at this point of this session's history.
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
    let Some(newest) = session.calls().next_back() else {
        return false;
    };
    if newest.step != step
        || newest.decision != Decision::Confirm
        || newest.tool != tool
        || newest.digest != digest
    {
        return false;
    }
    base64url_is(
        &mac(env, session, tool, digest, step, expiry),
        given.as_bytes(),
    )
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
