//! Writing a record folder: all of it or none of it.
//!
//! The files are written into a fresh temporary folder beside the destination, flushed, and the
//! folder is renamed into place; an existing destination is moved aside first and removed only
//! once the new one stands. A failure at any point leaves the destination as it was.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `files` (name → bytes) as the folder `dest`, atomically.
pub fn write_folder_atomically(dest: &Path, files: &[(&str, &[u8])]) -> std::io::Result<()> {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent)?;
    let base = dest
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("record");
    let stamp = std::process::id();
    let tmp = parent.join(format!(".{base}.tmp-{stamp}"));
    let old = parent.join(format!(".{base}.old-{stamp}"));
    if tmp.exists() {
        fs::remove_dir_all(&tmp)?;
    }
    let result = (|| {
        fs::create_dir(&tmp)?;
        for (name, bytes) in files {
            let mut f = fs::File::create(tmp.join(name))?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        if dest.exists() {
            if !dest.is_dir() {
                return Err(std::io::Error::other(format!(
                    "{} exists and is not a folder",
                    dest.display()
                )));
            }
            if old.exists() {
                fs::remove_dir_all(&old)?;
            }
            fs::rename(dest, &old)?;
        }
        if let Err(e) = fs::rename(&tmp, dest) {
            if old.exists() {
                let _ = fs::rename(&old, dest);
            }
            return Err(e);
        }
        if old.exists() {
            fs::remove_dir_all(&old)?;
        }
        Ok(())
    })();
    if result.is_err() && tmp.exists() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_an_existing_folder_whole() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out");
        write_folder_atomically(&dest, &[("a", b"1"), ("b", b"2")]).unwrap();
        write_folder_atomically(&dest, &[("a", b"3")]).unwrap();
        assert_eq!(fs::read(dest.join("a")).unwrap(), b"3");
        assert!(
            !dest.join("b").exists(),
            "the old folder's files do not survive"
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("out")]);
    }

    #[test]
    fn a_file_in_the_way_is_an_error_and_nothing_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out");
        fs::write(&dest, b"not a folder").unwrap();
        assert!(write_folder_atomically(&dest, &[("a", b"1")]).is_err());
        assert_eq!(fs::read(&dest).unwrap(), b"not a folder");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
