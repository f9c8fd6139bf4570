//! Writing the results of the subcommands to standard output.
//!
//! A reader that goes away before the end, as `head` does in
//! `sessa perft 5 --divide | head -3`, is no error: the subcommand stops
//! writing and ends quietly with status 0, as the UCI loop does when its GUI
//! closes the pipe. Rust ignores `SIGPIPE`, so such a write fails with
//! `ErrorKind::BrokenPipe` instead of killing the process; `println!` would
//! panic on it, hence every result goes through a writer whose errors are
//! looked at.

use std::io::{self, Write};
use std::process::ExitCode;

/// Whether a write failed because the reader of the output closed the pipe.
pub fn is_closed_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}

/// Runs `print` on standard output and gives the exit status: the one
/// `print` returns, success when the reader closed the pipe, failure (with a
/// message on stderr) when writing failed otherwise.
pub fn to_stdout(print: impl FnOnce(&mut dyn Write) -> io::Result<ExitCode>) -> ExitCode {
    let mut out = io::stdout().lock();
    match print(&mut out).and_then(|status| out.flush().map(|()| status)) {
        Ok(status) => status,
        Err(e) if is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: writing to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}
