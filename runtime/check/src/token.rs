//! Confirmation tokens and idempotency keys (DESIGN §5.5).
//!
//! A token is `<step>.<expiry>.<mac>`: the MAC covers the session (id and agent), the tool, the
//! digest of the arguments, the step the confirm was asked at and the expiry. It covers a later
//! check of exactly that call while that confirm is still the newest call entry of the history,
//! and not after the expiry.

use crate::canonical::base64url;
use crate::check::Env;
use crate::session::{Decision, Session};

fn mac(
    env: Env<'_>,
    session: &Session,
    tool: &str,
    digest: &str,
    step: u32,
    expiry: u64,
) -> String {
    let mut h = env.key.hasher();
    for part in [
        "confirm",
        session.id.as_str(),
        session.agent.as_str(),
        tool,
        digest,
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(&step.to_le_bytes());
    h.update(&expiry.to_le_bytes());
    base64url(h.finalize().as_bytes())
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
    format!(
        "{step}.{expiry}.{}",
        mac(env, session, tool, digest, step, expiry)
    )
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
    let want = mac(env, session, tool, digest, step, expiry);
    want.len() == given.len()
        && want
            .bytes()
            .zip(given.bytes())
            .fold(0u8, |a, (x, y)| a | (x ^ y))
            == 0
}

/// The idempotency key of an allowed call: derived from session, step and argument digest.
pub fn idempotency_key(env: Env<'_>, session: &Session, step: u32, digest: &str) -> String {
    let mut h = env.key.hasher();
    for part in ["idempotency", session.id.as_str(), digest] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(&step.to_le_bytes());
    let full = base64url(h.finalize().as_bytes());
    full.chars().take(22).collect()
}
