//! Fuzzing of the UCI layer in process: random and grammar-mutated
//! sessions (see `tests/common/grammar.rs`) fed to [`Session`] through its
//! input channel, with its output captured. Whatever the input, the session
//! must not panic or hang, must answer every `go` with exactly one
//! `bestmove` and every `isready` with `readyok`, must still play a legal
//! move for a final `go depth 1`, and must end at `quit` without writing
//! anything more.
//!
//! `PROPTEST_CASES` sets the number of sessions (default 500: a few
//! seconds here, well under a minute in CI); the smaller fuzz of the real
//! binary's stdin is in `tests/fuzz_binary.rs`.

#[path = "../tests/common/grammar.rs"]
mod grammar;

use crate::uci::{Input, Session};
use crossbeam::channel::{Receiver, RecvTimeoutError, Sender, unbounded};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};
use sessa_engine::Board;
use std::io::Write;
use std::time::{Duration, Instant};

/// Sessions tried when `PROPTEST_CASES` is not set.
const DEFAULT_CASES: u32 = 500;
/// Longest wait for an answer: far above what any answer takes, so that
/// only a hang reaches it.
const HANG_LIMIT: Duration = Duration::from_secs(20);

/// The session's output, split into lines and sent to the test.
struct LineSink {
    lines: Sender<String>,
    partial: Vec<u8>,
}

impl Write for LineSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let text =
                String::from_utf8(line[..end].to_vec()).expect("the session writes UTF-8 only");
            // The test may have given up waiting; the lines are then unread.
            let _ = self.lines.send(text);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first word of a line, as the session reads it.
fn command(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// Reads the session's output into `log` until it holds `count` lines
/// matching `wanted`.
fn wait_for(
    output: &Receiver<String>,
    log: &mut Vec<String>,
    wanted: impl Fn(&str) -> bool,
    count: usize,
    what: &str,
) -> Result<(), TestCaseError> {
    let deadline = Instant::now() + HANG_LIMIT;
    loop {
        let found = log.iter().filter(|line| wanted(line)).count();
        if found >= count {
            return Ok(());
        }
        match output.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => log.push(line),
            Err(RecvTimeoutError::Timeout) => {
                return Err(TestCaseError::fail(format!(
                    "{found} of {count} {what} within {HANG_LIMIT:?}"
                )));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(TestCaseError::fail(format!(
                    "the session ended (a panic?) after {found} of {count} {what}"
                )));
            }
        }
    }
}

/// Feeds `lines` to a fresh session and checks how it answers.
fn check_session(lines: &[String]) -> Result<(), TestCaseError> {
    let (output_tx, output) = unbounded();
    let (input, input_rx) = unbounded::<Input>();
    let session = std::thread::spawn(move || {
        let sink = LineSink {
            lines: output_tx,
            partial: Vec::new(),
        };
        Session::with_output(Box::new(sink)).serve(&input_rx);
    });
    let send = |line: &str| input.send(Input::now(line)).expect("the session reads");
    for line in lines {
        send(line);
    }
    let count = |word: &str| lines.iter().filter(|l| command(l) == Some(word)).count();
    let is_bestmove = |line: &str| line.starts_with("bestmove");
    let mut log = Vec::new();
    send("isready");
    wait_for(
        &output,
        &mut log,
        |l| l == "readyok",
        count("isready") + 1,
        "readyok",
    )?;
    let final_position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    send(&format!("position fen {final_position}"));
    send("go depth 1");
    let gos = count("go") + 1;
    wait_for(&output, &mut log, is_bestmove, gos, "bestmove lines")?;
    let last = log.last().expect("at least the final bestmove");
    prop_assert!(is_bestmove(last), "the output ends with '{last}'");
    let played = last.split_whitespace().nth(1).unwrap_or_default();
    let board = Board::from_fen(final_position, shakmaty::CastlingMode::Standard).unwrap();
    prop_assert!(
        board.parse_uci_move(played).is_ok(),
        "final answer '{last}' is not a legal move"
    );
    send("quit");
    let quit_sent = Instant::now();
    while !session.is_finished() {
        prop_assert!(quit_sent.elapsed() < HANG_LIMIT, "no exit after quit");
        std::thread::sleep(Duration::from_millis(1));
    }
    prop_assert!(session.join().is_ok(), "the session panicked");
    let after: Vec<String> = output.try_iter().collect();
    prop_assert!(after.is_empty(), "written after the last answer: {after:?}");
    let bestmoves = log.iter().filter(|l| is_bestmove(l)).count();
    prop_assert_eq!(bestmoves, gos, "bestmove lines for {} go commands", gos);
    Ok(())
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_input_leaves_the_session_answering(lines in grammar::session(24)) {
        check_session(&lines)?;
    }
}
