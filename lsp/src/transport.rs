//! The stdio transport: `Content-Length` frames in, messages out, on two threads.
//!
//! A frame that is not JSON, or JSON that is not a JSON-RPC message, is answered with an error
//! (`-32700` parse error, `-32600` invalid request; with the request's id when it has one) and the
//! server reads on: one bad message never ends a session. Frames are written whole under one lock,
//! so those answers never interleave with the server's own messages.

use std::io::{self, BufRead, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::Message;

/// The largest frame read: a 50 MB buffer fits with room to spare.
const MAX_FRAME: usize = 256 * 1024 * 1024;

/// The server's two ends, and the threads that move frames.
pub struct Stdio {
    pub receiver: Receiver<Message>,
    pub sender: Sender<Message>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Stdio {
    /// Starts the reader and the writer on standard input and output.
    pub fn start() -> Self {
        let out = Arc::new(Mutex::new(io::stdout()));
        let (to_server, receiver) = crossbeam_channel::unbounded::<Message>();
        let (sender, from_server) = crossbeam_channel::unbounded::<Message>();
        let reader_out = out.clone();
        let reader = std::thread::spawn(move || {
            let stdin = io::stdin();
            let mut input = stdin.lock();
            read_loop(&mut input, &to_server, &reader_out);
        });
        let writer = std::thread::spawn(move || {
            for message in from_server {
                let mut body = Vec::new();
                if message.write(&mut body).is_err() {
                    continue;
                }
                if let Ok(mut w) = out.lock() {
                    let _ = w.write_all(&body);
                    let _ = w.flush();
                }
            }
        });
        Self {
            receiver,
            sender,
            reader,
            writer,
        }
    }

    /// Waits for the writer to send what is left (the server's sender must be dropped first).
    /// The reader thread is left to end with the process: it may be blocked on standard input.
    pub fn join(self) {
        drop(self.sender);
        let _ = self.writer.join();
        drop(self.reader);
    }
}

/// Reads frames until the input ends, sending each message to the server.
pub fn read_loop(input: &mut impl BufRead, to_server: &Sender<Message>, out: &Mutex<impl Write>) {
    loop {
        match read_frame(input) {
            Ok(None) => return,
            Ok(Some(Frame::Body(body))) => match parse(&body) {
                Ok(message) => {
                    if to_server.send(message).is_err() {
                        return;
                    }
                }
                Err(answer) => write_raw(out, &answer),
            },
            Ok(Some(Frame::Bad(why))) => write_raw(out, &error_json(None, -32700, &why)),
            Err(_) => return,
        }
    }
}

enum Frame {
    Body(String),
    Bad(String),
}

fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if !saw_header {
                continue;
            }
            break;
        }
        saw_header = true;
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok();
        }
    }
    let Some(length) = length else {
        return Ok(Some(Frame::Bad(
            "a frame without a valid Content-Length header".into(),
        )));
    };
    if length > MAX_FRAME {
        io::copy(&mut input.take(length as u64), &mut io::sink())?;
        return Ok(Some(Frame::Bad(format!(
            "a frame of {length} bytes is larger than the {MAX_FRAME} the server reads"
        ))));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    match String::from_utf8(body) {
        Ok(text) => Ok(Some(Frame::Body(text))),
        Err(_) => Ok(Some(Frame::Bad("a frame that is not UTF-8".into()))),
    }
}

/// A message, or the error answer to send back.
fn parse(body: &str) -> Result<Message, String> {
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| error_json(None, -32700, &format!("not JSON: {e}")))?;
    let id = value.get("id").cloned();
    serde_json::from_value::<Message>(value).map_err(|e| {
        error_json(
            id.as_ref(),
            -32600,
            &format!("not a JSON-RPC request, response or notification: {e}"),
        )
    })
}

fn error_json(id: Option<&serde_json::Value>, code: i32, message: &str) -> String {
    let id = match id {
        Some(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => v.clone(),
        _ => serde_json::Value::Null,
    };
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string()
}

fn write_raw(out: &Mutex<impl Write>, body: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = write!(w, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = w.flush();
    }
}
