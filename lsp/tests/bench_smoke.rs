//! The bench (`stalwart-lsp-bench`) at a smoke size: it drives the server binary over stdio on a
//! generated workspace through every edit and prints its figures as JSON. The full size
//! (2,000 rulebook files, 500 tools) runs on demand (BENCHMARKS.md).

use std::process::Command;

#[test]
fn the_bench_drives_the_server_through_every_edit_at_a_smoke_size() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_stalwart-lsp-bench"))
        .args(["--stalwart", env!("CARGO_BIN_EXE_stalwart-lsp")])
        .args(["--files", "20", "--tools", "10", "--edits", "6"])
        .args(["--compile-runs", "0", "--dir"])
        .arg(dir.path().join("ws"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(figures["files"], 20);
    assert_eq!(figures["tools"], 10);
    assert_eq!(figures["edits"], 6);
    assert_eq!(figures["cold_compile_ms"], serde_json::Value::Null);
    for key in ["open_ms", "edit_median_ms", "edit_p99_ms"] {
        assert!(figures[key].as_f64().unwrap() > 0.0, "{key}: {figures}");
    }
    assert!(
        std::fs::read_to_string(dir.path().join("ws/rails/f0019.co"))
            .unwrap()
            .contains("execute tool_0009")
    );
}
