//! Standard output that survives a reader that stops reading (`stalwart verify | head`): a
//! closed pipe ends the process quietly with the status a shell gives a process killed by
//! SIGPIPE, instead of the panic of `print!`.

use std::io::Write;

/// The exit status of a process whose reader went away (128 + SIGPIPE).
const CLOSED_PIPE: i32 = 141;

/// Writes `text` to standard output.
pub fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(CLOSED_PIPE);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(2);
    }
}

/// `print!` to standard output through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(&format!($($arg)*))
    };
}

/// `println!` to standard output through [`write_stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}
