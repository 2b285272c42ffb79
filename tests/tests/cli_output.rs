//! Standard output closed by its reader (`stalwart graph … | head -1`): the command ends with
//! the closed-pipe status (141), quietly, and does not panic.

use std::fmt::Write as _;
use std::process::{Command, Stdio};

use stalwart_tests::stalwart_bin;

/// An agent whose graph in JSON is far larger than a pipe's buffer (64 KiB).
fn large_agent() -> String {
    let mut text =
        String::from("agents:\n  desk:\n    model: \"anthropic:claude-sonnet-5-5\"\n    tools: [");
    let names: Vec<String> = (0..400).map(|i| format!("tool_{i:03}")).collect();
    text.push_str(&names.join(", "));
    text.push_str("]\ntools:\n");
    for name in &names {
        let _ = writeln!(text, "  - name: {name}\n    effects: reads");
    }
    text
}

#[test]
fn a_reader_that_stops_reading_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agent.yaml"), large_agent()).unwrap();
    let mut child = Command::new(stalwart_bin())
        .current_dir(dir.path())
        .args(["graph", "agent.yaml", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end at once: every write past the pipe's buffer fails.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
