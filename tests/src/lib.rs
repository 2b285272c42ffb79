//! Helpers for the workspace-level integration tests in `tests/tests/`: locating the built
//! `stalwart` binary, running it, and the paths of the shipped example and the shared corpus.

pub mod gardener;
pub mod labelled;
pub mod postgres;
pub mod scenario;
pub mod store_fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `examples/shop`.
pub fn shop() -> PathBuf {
    workspace().join("examples").join("shop")
}

/// The `stalwart` binary of this source tree, built once per test process (`cargo test` builds a
/// package's binary only for that package's own integration tests, so a binary left from an
/// earlier build could otherwise be stale).
pub fn stalwart_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let target_dir = profile_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "stalwart-cli"])
            .env("CARGO_TARGET_DIR", &target_dir)
            .current_dir(workspace())
            .status();
        assert!(
            status.map(|s| s.success()).unwrap_or(false),
            "building stalwart-cli failed"
        );
        profile_dir.join(format!("stalwart{}", std::env::consts::EXE_SUFFIX))
    })
}

/// Runs `stalwart` with arguments in a folder. Its state folder is `.state` in that folder, so
/// no test reads or writes the user's own.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    match command(dir, args).output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run {}: {e}", stalwart_bin().display()),
    }
}

/// The command [`run`] runs, to add to (more environment, standard input) before running it.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(stalwart_bin());
    cmd.args(args)
        .current_dir(dir)
        .env("STALWART_STATE", dir.join(".state"))
        .env_remove("STALWART_LICENCE");
    cmd
}

/// Copies a folder tree (for tests that edit a copy of the example).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display()))
    {
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        let name = entry.file_name();
        if name == ".stalwart" || name == "__pycache__" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name))
                .unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
        }
    }
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
