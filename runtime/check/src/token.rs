//! Confirmation tokens and idempotency keys (DESIGN §5.5).
//!
//! A token is `<step>.<expiry>.<mac>`: the MAC covers the session (id and agent), the tool, the
//! digest of the arguments, the step the confirm was asked at and the expiry. It covers a later
//! check of exactly that call while that confirm is still the newest call entry of the history,
//! and not after the expiry.

use std::fmt::Write as _;

use crate::canonical::{base64url, base64url_is};
use crate::check::Env;
use crate::session::{Decision, Session};

/// The parts a MAC covers, each with its length first, so no two lists of parts give one input.
/// Room is left for the numbers that follow the parts.
fn framed(parts: &[&str]) -> Vec<u8> {
    let size: usize = parts.iter().map(|p| p.len() + 8).sum::<usize>() + 12;
    let mut buf = Vec::with_capacity(size);
    for part in parts {
        buf.extend_from_slice(&(part.len() as u64).to_le_bytes());
        buf.extend_from_slice(part.as_bytes());
    }
    buf
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
    let mut buf = framed(&parts);
    buf.extend_from_slice(&step.to_le_bytes());
    buf.extend_from_slice(&expiry.to_le_bytes());
    *env.key.mac(&buf).as_bytes()
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
    let mut out = String::with_capacity(64);
    let _ = write!(out, "{step}.{expiry}.");
    out.push_str(&base64url(&mac(env, session, tool, digest, step, expiry)));
    out
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
    let mut buf = framed(&["idempotency", session.id.as_str(), digest]);
    buf.extend_from_slice(&step.to_le_bytes());
    let mut full = base64url(env.key.mac(&buf).as_bytes());
    full.truncate(22);
    full
}
