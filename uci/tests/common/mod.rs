//! A driver for the real `sessa` binary, as a GUI would talk to it.
#![allow(dead_code)] // Each test binary uses a different part of this driver.

use crossbeam::channel::{Receiver, RecvTimeoutError, unbounded};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// Latency bound of the tests: generous, so a loaded CI machine never flakes.
pub const PROMPT: Duration = Duration::from_millis(500);

/// How much later than its time limit a move may arrive in the tests: the
/// search looks at the clock every few hundred nodes, and the process waits
/// for a core while other builds, tests and matches load both cores of a
/// 2-core machine (delays up to about 120 ms were measured with eight
/// threads ready to run). A clock counted from the wrong instant (a
/// `go ponder` before `ponderhit`, or without the move overhead) is off by
/// far more, and a clock started late makes a move end before its soft limit.
pub const SCHEDULING_SLACK: Duration = Duration::from_millis(200);

/// How often a test of the engine's timing is tried before it fails. The
/// test machines are virtual, and their host now and then stalls a virtual
/// CPU, with every thread on it, for hundreds of milliseconds (over a second
/// was measured while a match and a data generator ran beside the tests):
/// no [`SCHEDULING_SLACK`] can cover that and still catch a clock counted
/// from the wrong instant. A defect of the time management misses its limit
/// at every attempt; such a stall seldom strikes twice in a row.
pub const TIMING_ATTEMPTS: usize = 3;

/// Runs `check`, a test with timing assertions, until it passes, at most
/// [`TIMING_ATTEMPTS`] times; the last failure is the test's. Each failed
/// attempt is noted on stderr past the test harness's capture, so that
/// retries are seen even when the test passes in the end.
pub fn timed(check: impl Fn()) {
    for attempt in 1..=TIMING_ATTEMPTS {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(&check)) {
            Ok(()) => return,
            Err(panic) if attempt == TIMING_ATTEMPTS => std::panic::resume_unwind(panic),
            Err(_) => {
                let test = std::thread::current()
                    .name()
                    .unwrap_or("a test")
                    .to_string();
                let _ = writeln!(
                    std::io::stderr(),
                    "note: {test}: timing attempt {attempt} of {TIMING_ATTEMPTS} failed, trying again"
                );
            }
        }
    }
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts the binary and completes the UCI handshake.
    pub fn start() -> Engine {
        let mut engine = Engine::spawn();
        engine.send("uci");
        engine.expect(|l| l == "uciok", Duration::from_secs(5));
        engine.ready();
        engine
    }

    /// Starts the binary without talking to it.
    pub fn spawn() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sessa"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting sessa");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    /// Sends one command line.
    pub fn send(&mut self, command: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{command}").expect("writing to sessa");
        stdin.flush().unwrap();
    }

    /// Sends raw bytes, for line-ending and encoding tests.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin: the engine sees the end of its input.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Closes stdin (end of input) and waits for the process to exit.
    pub fn close_and_wait(&mut self, timeout: Duration) -> bool {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// Waits up to `timeout` for the process to exit on its own; returns how
    /// long that took and whether it exited with success.
    pub fn exit_within(&mut self, timeout: Duration) -> Option<(Duration, bool)> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some((start.elapsed(), status.success()));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    }

    /// The lines written after everything read so far, up to the end of
    /// the output (the process must have exited).
    pub fn remaining_lines(&self) -> Vec<String> {
        self.lines.iter().collect()
    }

    /// Waits for a line matching `wanted`; returns it and the lines before it.
    pub fn expect(
        &self,
        wanted: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if wanted(&line) => return (line, before),
                Ok(line) => before.push(line),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no expected line within {timeout:?}; got {before:#?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("sessa exited; got {before:#?}"),
            }
        }
    }

    /// `isready` must be answered by `readyok`.
    pub fn ready(&mut self) {
        self.send("isready");
        self.expect(|l| l == "readyok", Duration::from_secs(10));
    }

    /// Waits for `bestmove`; returns the move (and ponder move) and the info lines.
    pub fn bestmove(&self, timeout: Duration) -> (String, Option<String>, Vec<String>) {
        let (line, before) = self.expect(|l| l.starts_with("bestmove"), timeout);
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(
            words.len() == 2 || (words.len() == 4 && words[2] == "ponder"),
            "{line}"
        );
        (
            words[1].to_string(),
            words.get(3).map(|s| s.to_string()),
            before,
        )
    }

    /// Asserts that no line matching `unwanted` arrives for `duration`.
    pub fn assert_no(&self, unwanted: impl Fn(&str) -> bool, duration: Duration) {
        let deadline = Instant::now() + duration;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => assert!(!unwanted(&line), "unexpected line: {line}"),
                Err(_) => return,
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses a FEN for checking the engine's answers.
pub fn position(fen: &str) -> Chess {
    position_in(fen, CastlingMode::Standard)
}

/// Parses a FEN with the castling rules of `mode`: under Chess960 castling
/// rights may name the rooks' files (Shredder-FEN), and castling is written
/// king-takes-rook.
pub fn position_in(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
}

/// Plays a UCI move, panicking if it is illegal. In a Chess960 position
/// (see [`position_in`]) castling must be written king-takes-rook.
pub fn play(pos: &mut Chess, text: &str) {
    let m = text
        .parse::<UciMove>()
        .unwrap_or_else(|_| panic!("unparsable move {text}"))
        .to_move(pos)
        .unwrap_or_else(|_| {
            panic!(
                "illegal move {text} in {}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            )
        });
    if pos.castles().mode() == CastlingMode::Chess960
        && let shakmaty::Move::Castle { king, rook } = m
    {
        assert_eq!(
            text,
            format!("{king}{rook}"),
            "Chess960 castling not written king-takes-rook"
        );
    }
    pos.play_unchecked(m);
}

/// The value of `key` in an `info` line (the word after it).
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .iter()
        .position(|&w| w == key)
        .and_then(|i| words.get(i + 1).copied())
}

/// The principal variation of an `info` line.
pub fn pv(line: &str) -> Vec<String> {
    line.split(" pv ")
        .nth(1)
        .map(|p| p.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The last `info` line with a score among `lines`.
pub fn last_score_line(lines: &[String]) -> String {
    lines
        .iter()
        .rev()
        .find(|l| l.contains(" score "))
        .cloned()
        .expect("an info line with a score")
}

/// Asserts that `text` is a legal UCI move in `fen`.
pub fn assert_legal(fen: &str, text: &str) {
    assert_legal_in(fen, text, CastlingMode::Standard);
}

/// Asserts that `text` is a legal UCI move in `fen` under the castling
/// rules of `mode` (see [`play`]).
pub fn assert_legal_in(fen: &str, text: &str, mode: CastlingMode) {
    play(&mut position_in(fen, mode), text);
}

// The repository root and the shared data, found as the engine's tests find them.
#[path = "../../../engine/tests/common/mod.rs"]
mod repository;
#[allow(unused_imports)] // Each test binary uses a different part of this driver.
pub use repository::{repo_root, shared_data};
