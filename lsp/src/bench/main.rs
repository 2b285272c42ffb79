//! `stalwart-lsp-bench`: drives the language server over stdio on a generated workspace (rulebook
//! files in a config folder, agent.yaml with inline tools) and times what an editor waits for:
//! a one-line edit until its `publishDiagnostics`, median and p99 over many edits; the server's
//! memory once the workspace is open; beside it, a cold `stalwart compile` of the same workspace.
//!
//! Usage: `stalwart-lsp-bench --stalwart PATH [--files 2000] [--tools 500] [--edits 200]
//! [--compile-runs 3] [--dir DIR]`. The server is `PATH lsp`; `--compile-runs 0` skips the
//! compile. The last line printed is the figures as JSON.

mod workspace;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(600);

struct Options {
    stalwart: PathBuf,
    files: usize,
    tools: usize,
    edits: usize,
    compile_runs: usize,
    dir: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        stalwart: PathBuf::new(),
        files: 2000,
        tools: 500,
        edits: 200,
        compile_runs: 3,
        dir: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("`{flag}` needs a value"))?;
        let number = || value.parse::<usize>().map_err(|e| format!("`{flag}`: {e}"));
        match flag.as_str() {
            "--stalwart" => o.stalwart = PathBuf::from(&value),
            "--files" => o.files = number()?,
            "--tools" => o.tools = number()?,
            "--edits" => o.edits = number()?,
            "--compile-runs" => o.compile_runs = number()?,
            "--dir" => o.dir = Some(PathBuf::from(&value)),
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    if o.stalwart.as_os_str().is_empty() {
        return Err("`--stalwart PATH` is required".into());
    }
    Ok(o)
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let temp = std::env::temp_dir().join(format!("stalwart-lsp-bench-{}", std::process::id()));
    let dir = o.dir.clone().unwrap_or(temp);
    if let Err(e) = workspace::write(&dir, o.files, o.tools) {
        eprintln!(
            "error: cannot write the workspace in {}: {e}",
            dir.display()
        );
        std::process::exit(2);
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    println!(
        "workspace: {} rulebook files, agent.yaml with {} tools, in {}",
        o.files,
        o.tools,
        dir.display()
    );
    let figures = match drive(&o, &dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let compile = cold_compile(&o.stalwart, &dir, o.compile_runs);
    let mut figures = figures;
    figures["cold_compile_ms"] = compile.map_or(Value::Null, |ms| json!(round(ms)));
    if o.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!("{figures}");
}

fn round(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

/// The server's session: open, edits, figures.
fn drive(o: &Options, dir: &Path) -> Result<Value, String> {
    let started = Instant::now();
    let mut child = Command::new(&o.stalwart)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{} lsp`: {e}", o.stalwart.display()))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut input = BufReader::new(stdout);
        while let Some(body) = read_frame(&mut input) {
            if let Ok(v) = serde_json::from_slice::<Value>(&body)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    let root = uri(dir);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "rootUri": root, "capabilities": {}}}),
    )?;
    wait_for(&rx, |m| m["id"] == 1)?;
    notify(&mut stdin, "initialized", json!({}))?;
    let agent = dir.join("agent.yaml");
    let edited = dir.join(workspace::EDITED);
    for path in [&agent, &edited] {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        notify(
            &mut stdin,
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "colang", "version": 0, "text": text}}),
        )?;
    }
    let edited_uri = uri(&edited);
    let line = workspace::EDITED_LINE;
    let good = workspace::edited_line_text();
    let bad = format!("{good}x");
    let edit = |version: i64, text: &str, stdin: &mut ChildStdin| {
        notify(
            stdin,
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": edited_uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": line, "character": 0},
                              "end": {"line": line + 1, "character": 0}},
                    "text": format!("{text}\n"),
                }],
            }),
        )
    };
    // The first edit's answer comes once the whole workspace is analysed.
    edit(1, &bad, &mut stdin)?;
    wait_for(&rx, |m| is_publish(m, &edited_uri, 1))?;
    let open_ms = started.elapsed().as_secs_f64() * 1000.0;
    let rss_kb = rss_kb(child.id());
    let mut times = Vec::with_capacity(o.edits);
    for i in 0..o.edits {
        let version = 2 + i as i64;
        let text = if i % 2 == 0 { &good } else { &bad };
        let t = Instant::now();
        edit(version, text, &mut stdin)?;
        wait_for(&rx, |m| is_publish(m, &edited_uri, version))?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    )?;
    wait_for(&rx, |m| m["id"] == 2)?;
    notify(&mut stdin, "exit", Value::Null)?;
    let _ = child.wait();
    times.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        let at = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(at).copied().unwrap_or(0.0)
    };
    let (median, p99) = (pick(0.5), pick(0.99));
    let (p10, p90, max) = (pick(0.1), pick(0.9), pick(1.0));
    println!("open (initialize → first diagnostics of the whole workspace): {open_ms:.0} ms");
    println!(
        "server memory after open: {}",
        rss_kb.map_or("unknown".to_string(), |k| format!("{} MB", k / 1024))
    );
    println!(
        "one-line edit → publishDiagnostics, {} edits: median {median:.2} ms, p99 {p99:.2} ms \
         (p10 {p10:.2}, p90 {p90:.2}, max {max:.2})",
        times.len()
    );
    Ok(json!({
        "files": o.files, "tools": o.tools, "edits": times.len(),
        "open_ms": round(open_ms), "rss_mb": rss_kb.map(|k| k / 1024),
        "edit_median_ms": round(median), "edit_p99_ms": round(p99),
        "edit_p10_ms": round(p10), "edit_p90_ms": round(p90), "edit_max_ms": round(max),
    }))
}

/// Median wall time of `stalwart compile agent.yaml -o OUT`, cold (a new process each run).
fn cold_compile(stalwart: &Path, dir: &Path, runs: usize) -> Option<f64> {
    if runs == 0 {
        return None;
    }
    let out = dir.join(".bench-out");
    let mut times = Vec::new();
    for _ in 0..runs {
        let _ = std::fs::remove_dir_all(&out);
        let t = Instant::now();
        let status = Command::new(stalwart)
            .args(["compile", "agent.yaml", "-o"])
            .arg(&out)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if !status.success() {
            eprintln!("warning: `stalwart compile` exited with {status}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied();
    if let Some(ms) = median {
        println!("cold `stalwart compile` of the same workspace ({runs} runs): median {ms:.0} ms");
    }
    median
}

fn is_publish(m: &Value, uri: &str, version: i64) -> bool {
    m["method"] == "textDocument/publishDiagnostics"
        && m["params"]["uri"] == uri
        && m["params"]["version"] == version
}

fn wait_for(rx: &Receiver<Value>, accept: impl Fn(&Value) -> bool) -> Result<Value, String> {
    let until = Instant::now() + DEADLINE;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let m = rx
            .recv_timeout(left)
            .map_err(|_| "the server did not answer in time".to_string())?;
        if accept(&m) {
            return Ok(m);
        }
    }
}

fn send(stdin: &mut ChildStdin, message: &Value) -> Result<(), String> {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
        .and_then(|()| stdin.flush())
        .map_err(|e| format!("cannot write to the server: {e}"))
}

fn notify(stdin: &mut ChildStdin, method: &str, params: Value) -> Result<(), String> {
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "method": method, "params": params}),
    )
}

fn read_frame(input: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse().ok();
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    Some(body)
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The resident memory of a process, from `/proc` (Linux).
fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
