//! The key file that signs histories, tokens and idempotency keys (DESIGN §5.2).
//!
//! Where it is looked for, in order: `$STALWART_LICENCE` (a path); `licence.json` in the record
//! folder; the user's own key, `$XDG_CONFIG_HOME/stalwart/licence.json` (else
//! `~/.config/stalwart/licence.json`), made on first use with 32 random bytes from the operating
//! system, valid for a year, in a folder of mode 0700 and a file of mode 0600. The key is bound to
//! the record before it signs anything ([`stalwart_runtime::Key::for_record`]), so the one user
//! key serves every record folder without a history of one verifying under another.

use std::path::{Path, PathBuf};

use stalwart_runtime::Key;

use crate::files::{private_folder, random_bytes, write_atomically};
use crate::intake::read_text;
use crate::{HostError, LICENCE_UNUSABLE};

/// A year, in seconds: how long a key made on first use is valid.
const FIRST_USE_VALIDITY: u64 = 365 * 86_400;

/// The key for checks under the record folder (or record file) `dir`, as the module says.
pub fn load_key(dir: &Path, now: u64) -> Result<Key, HostError> {
    if let Some(path) = std::env::var_os("STALWART_LICENCE") {
        return read_key(Path::new(&path));
    }
    let beside = if dir.is_dir() {
        dir.join("licence.json")
    } else {
        dir.with_file_name("licence.json")
    };
    if beside.exists() {
        return read_key(&beside);
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .ok_or_else(|| {
            HostError::new(
                LICENCE_UNUSABLE,
                "no licence: set STALWART_LICENCE to a key file, or HOME for the user's own key",
            )
        })?;
    let folder = config.join("stalwart");
    let path = folder.join("licence.json");
    if path.exists() {
        return read_key(&path);
    }
    private_folder(&folder)?;
    let key = Key::new(
        "local",
        random_bytes()?,
        now.saturating_add(FIRST_USE_VALIDITY),
    );
    write_atomically(&path, key.to_json().as_bytes(), true)?;
    Ok(key)
}

/// Reads a key file.
pub fn read_key(path: &Path) -> Result<Key, HostError> {
    let text = read_text(path, "the licence").map_err(|e| HostError {
        code: LICENCE_UNUSABLE,
        ..e
    })?;
    Key::from_json(&text).map_err(|e| {
        HostError::new(
            LICENCE_UNUSABLE,
            format!("the licence `{}`: {e}", path.display()),
        )
    })
}
