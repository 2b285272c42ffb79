//! `stalwart check` and `stalwart report`: the tool check run once from the command line, with
//! the history kept in a JSON file and the key read from the licence file.
//!
//! The key: `$STALWART_LICENCE` (a path) when set; else `licence.json` in the record folder when
//! there is one; else the user's own key, `$XDG_CONFIG_HOME/stalwart/licence.json` (or
//! `~/.config/stalwart/licence.json`), made on first use with a random key valid for a year.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use stalwart_record::Record;
use stalwart_runtime::canonical::base64url;
use stalwart_runtime::{Call, Env, Key, Outcome, Session};

/// What went wrong before a check could run: bad input, exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// The flags of `stalwart check`.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    pub dir: PathBuf,
    pub agent: String,
    pub tool: String,
    pub args: String,
    pub origins: Option<String>,
    pub labels: Option<String>,
    pub context: Option<String>,
    pub turns: Vec<String>,
    pub intent: Option<String>,
    pub history: Option<PathBuf>,
    pub confirmation: Option<String>,
    pub undoes: Option<u32>,
}

/// Runs one check; returns the answer as JSON.
pub fn run_check(req: &CheckRequest) -> Result<Value, InputError> {
    let record = load_record(&req.dir)?;
    let body = record.body();
    if !body.agents.is_empty() && !body.agents.iter().any(|a| a.name.as_str() == req.agent) {
        let names: Vec<&str> = body.agents.iter().map(|a| a.name.as_str()).collect();
        return Err(InputError(format!(
            "unknown agent `{}`: the record has {}",
            req.agent,
            names.join(", ")
        )));
    }
    let key = load_key(&req.dir)?;
    let now = now();
    let env = Env { key: &key, now };
    let mut session = match &req.history {
        Some(path) if path.exists() => read_history(path)?,
        _ => Session::new(req.agent.clone(), new_session_id(&req.agent, now)),
    };
    if !session.agent.is_empty() && session.agent != req.agent && !session.tampered {
        return Err(InputError(format!(
            "the history belongs to agent `{}`, not `{}`: a session belongs to one agent",
            session.agent, req.agent
        )));
    }
    for turn in &req.turns {
        stalwart_runtime::read(env, &mut session, turn);
    }
    let call = Call {
        tool: req.tool.clone(),
        agent: Some(req.agent.clone()),
        arguments: json_object("--args", Some(&req.args))?.into(),
        origins: string_map("--origins", req.origins.as_deref())?.into(),
        labels: list_map("--labels", req.labels.as_deref())?,
        context: json_object("--context", req.context.as_deref())?,
        intent: req.intent.clone(),
        confirmation: req.confirmation.clone(),
        undoes: req.undoes,
    };
    let check = stalwart_runtime::check_tool_call(body, env, &mut session, &call);
    if let Some(path) = &req.history {
        if session.agent.is_empty() {
            session.agent = req.agent.clone();
        }
        write_history(path, &session)?;
    }
    Ok(check.to_json())
}

/// The flags of `stalwart report`.
#[derive(Debug, Clone, Default)]
pub struct ReportRequest {
    pub dir: PathBuf,
    pub history: PathBuf,
    pub step: u32,
    pub outcome: String,
    pub result: Option<String>,
}

/// Appends a signed report of what became of a call to the history file.
pub fn run_report(req: &ReportRequest) -> Result<(), InputError> {
    let _record = load_record(&req.dir)?;
    let key = load_key(&req.dir)?;
    let outcome = Outcome::parse(&req.outcome).ok_or_else(|| {
        InputError(format!(
            "unknown outcome `{}`: one of ran, failed, outcome_unknown, compensated",
            req.outcome
        ))
    })?;
    let result = match &req.result {
        Some(text) => Some(
            serde_json::from_str(text)
                .map_err(|e| InputError(format!("--result is not JSON: {e}")))?,
        ),
        None => None,
    };
    if !req.history.exists() {
        return Err(InputError(format!(
            "no history at `{}`",
            req.history.display()
        )));
    }
    let mut session = read_history(&req.history)?;
    stalwart_runtime::report(
        Env {
            key: &key,
            now: now(),
        },
        &mut session,
        req.step,
        outcome,
        result,
    )
    .map_err(|e| InputError(format!("cannot report on call {}: {e}", req.step)))?;
    write_history(&req.history, &session)
}

fn load_record(dir: &Path) -> Result<Record, InputError> {
    let path = if dir.is_dir() {
        dir.join("record.bin")
    } else {
        dir.to_path_buf()
    };
    Record::open(&path)
        .map_err(|e| InputError(format!("cannot load the record `{}`: {e}", path.display())))
}

/// Seconds since the epoch; `STALWART_NOW` (seconds) overrides the clock for reproducible runs.
fn now() -> u64 {
    if let Some(n) = std::env::var("STALWART_NOW")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn new_session_id(agent: &str, now: u64) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&random_bytes());
    h.update(agent.as_bytes());
    h.update(&now.to_le_bytes());
    base64url(&h.finalize().as_bytes()[..16])
}

fn random_bytes() -> [u8; 32] {
    let mut buf = [0u8; 32];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom")
        && f.read_exact(&mut buf).is_ok()
    {
        return buf;
    }
    let mut h = blake3::Hasher::new();
    h.update(&std::process::id().to_le_bytes());
    h.update(&format!("{:?}", std::time::SystemTime::now()).into_bytes());
    *h.finalize().as_bytes()
}

/// The key a check is signed with (see the module's doc for where it is looked for).
pub fn load_key(dir: &Path) -> Result<Key, InputError> {
    let read = |path: &Path| -> Result<Key, InputError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            InputError(format!("cannot read the licence `{}`: {e}", path.display()))
        })?;
        Key::from_json(&text)
            .map_err(|e| InputError(format!("the licence `{}`: {e}", path.display())))
    };
    if let Some(path) = std::env::var_os("STALWART_LICENCE") {
        return read(Path::new(&path));
    }
    let beside = if dir.is_dir() {
        dir.join("licence.json")
    } else {
        dir.with_file_name("licence.json")
    };
    if beside.exists() {
        return read(&beside);
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .ok_or_else(|| InputError("no licence: set STALWART_LICENCE to a key file".into()))?;
    let path = config.join("stalwart").join("licence.json");
    if path.exists() {
        return read(&path);
    }
    let key = Key::new("local", random_bytes(), now() + 365 * 86_400);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| InputError(format!("cannot create `{}`: {e}", parent.display())))?;
    }
    write_atomically(&path, key.to_json().as_bytes())?;
    Ok(key)
}

fn read_history(path: &Path) -> Result<Session, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("cannot read the history `{}`: {e}", path.display())))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| InputError(format!("the history `{}` is not JSON: {e}", path.display())))?;
    Session::from_json(value).ok_or_else(|| {
        InputError(format!(
            "the history `{}` is not a JSON object",
            path.display()
        ))
    })
}

fn write_history(path: &Path, session: &Session) -> Result<(), InputError> {
    let mut text = serde_json::to_string_pretty(&session.to_json()).unwrap_or_default();
    text.push('\n');
    write_atomically(path, text.as_bytes())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), InputError> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| InputError(format!("cannot write `{}`: {e}", path.display())))
}

fn json_object(flag: &str, text: Option<&str>) -> Result<Map<String, Value>, InputError> {
    match text {
        None => Ok(Map::new()),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(InputError(format!("{flag} must be a JSON object"))),
            Err(e) => Err(InputError(format!("{flag} is not JSON: {e}"))),
        },
    }
}

fn string_map(flag: &str, text: Option<&str>) -> Result<BTreeMap<String, String>, InputError> {
    json_object(flag, text)?
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            _ => Err(InputError(format!(
                "{flag}: the origin of `{k}` must be a string"
            ))),
        })
        .collect()
}

fn list_map(flag: &str, text: Option<&str>) -> Result<BTreeMap<String, Vec<String>>, InputError> {
    json_object(flag, text)?
        .into_iter()
        .map(|(k, v)| {
            let list = match v {
                Value::String(s) => vec![s],
                Value::Array(items) => items
                    .into_iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        InputError(format!("{flag}: the labels of `{k}` must be strings"))
                    })?,
                _ => {
                    return Err(InputError(format!(
                        "{flag}: the labels of `{k}` must be a list of strings"
                    )));
                }
            };
            Ok((k, list))
        })
        .collect()
}
