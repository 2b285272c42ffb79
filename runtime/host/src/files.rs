//! Writing files whole or not at all, private folders, and random bytes.
//!
//! A file is written to a temporary file in the same folder, created exclusively (`O_EXCL`) under
//! an unpredictable name, flushed to disk, then renamed over its destination: a reader sees the
//! old file or the new one, never a part, and a symlink planted at any name the writer uses is
//! never followed (the temporary name cannot be guessed, and the rename replaces a symlink at
//! the destination rather than writing through it).

use std::io::Write;
use std::path::Path;

use crate::{HostError, STATE_UNUSABLE, WRITE_FAILED};

/// Writes `bytes` to `path` atomically, the file readable by its owner only when `private`.
pub fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> Result<(), HostError> {
    let failed = |e: &dyn std::fmt::Display| {
        HostError::new(
            WRITE_FAILED,
            format!("cannot write `{}`: {e}", path.display()),
        )
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".stalwart-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|e| failed(&e))?;
    if !private {
        set_mode(tmp.path(), 0o644).map_err(|e| failed(&e))?;
    }
    tmp.write_all(bytes).map_err(|e| failed(&e))?;
    tmp.as_file().sync_all().map_err(|e| failed(&e))?;
    tmp.persist(path).map_err(|e| failed(&e.error))?;
    Ok(())
}

/// Makes `path` a folder only its owner may enter (mode 0700), with its parents; an existing
/// folder is narrowed to 0700.
pub fn private_folder(path: &Path) -> Result<(), HostError> {
    let failed = |e: std::io::Error| {
        HostError::new(
            STATE_UNUSABLE,
            format!("cannot make the folder `{}`: {e}", path.display()),
        )
    };
    std::fs::create_dir_all(path).map_err(failed)?;
    let meta = std::fs::symlink_metadata(path).map_err(failed)?;
    if !meta.is_dir() {
        return Err(HostError::new(
            STATE_UNUSABLE,
            format!("`{}` is not a folder", path.display()),
        ));
    }
    set_mode(path, 0o700).map_err(failed)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// `N` bytes from the operating system's random source; an error when it cannot give them (a
/// key or an id is never made from anything weaker).
pub fn random_bytes<const N: usize>() -> Result<[u8; N], HostError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| {
        HostError::new(
            STATE_UNUSABLE,
            format!("the operating system gave no random bytes: {e}"),
        )
    })?;
    Ok(buf)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o777)
    }

    #[test]
    fn a_planted_symlink_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let target = dir.path().join("h.json");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        // Every name the old writer used, planted too.
        for pid in 0..64 {
            let _ = std::os::unix::fs::symlink(&victim, dir.path().join(format!("h.tmp-{pid}")));
        }
        write_atomically(&target, b"new", false).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&target).unwrap().is_symlink());
        assert_eq!(mode(&target), 0o644);
        let leftovers = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".stalwart-")
            })
            .count();
        assert_eq!(leftovers, 0);
    }

    #[test]
    fn private_files_and_folders_are_the_owners_alone() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a").join("b");
        private_folder(&folder).unwrap();
        assert_eq!(mode(&folder), 0o700);
        let file = folder.join("licence.json");
        write_atomically(&file, b"{}", true).unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_folder(&folder).unwrap();
        assert_eq!(mode(&folder), 0o700, "narrowed again");
    }
}
