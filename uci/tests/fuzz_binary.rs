//! Fuzzing of the real binary through its stdin: grammar-mutated UCI lines
//! (see `common/grammar.rs`) mixed with raw bytes that are not UTF-8, NULs
//! and stray carriage returns, with LF or CRLF line ends. Whatever it reads,
//! the engine must answer every `isready`, give exactly one `bestmove` per
//! `go`, play a legal move for a final `go depth 1`, and exit with success
//! at `quit` without writing anything more.
//!
//! Each case starts a process, so there are fewer than in process
//! (`uci/src/fuzz.rs`): 64 by default, or an eighth of `PROPTEST_CASES`.

mod common;
#[path = "common/grammar.rs"]
mod grammar;

use common::{Engine, assert_legal};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError};
use std::time::Duration;

/// Cases when `PROPTEST_CASES` is not set.
const DEFAULT_CASES: u32 = 64;
/// Far above what any answer takes: only a hang reaches it.
const HANG_LIMIT: Duration = Duration::from_secs(20);
const FINAL_POSITION: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// Bytes that are no UTF-8 text, or control characters.
fn raw_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        select(vec![
            0xff_u8, 0xfe, 0xc3, 0x80, 0xbf, 0xe2, 0xf0, 0x00, b'\r', 0x1b, 0x7f
        ]),
        any::<u8>(),
        b' '..=b'~',
    ];
    vec(byte, 0..200)
}

/// The input of one case: lines of the grammar and raw bytes, each ended
/// by LF or CRLF.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let chunk = prop_oneof![
        3 => grammar::session(2).prop_map(|lines| lines.concat().into_bytes()),
        1 => raw_bytes(),
    ];
    let ended = (chunk, select(vec![&b"\n"[..], &b"\r\n"[..]])).prop_map(|(mut bytes, end)| {
        bytes.extend_from_slice(end);
        bytes
    });
    vec(ended, 1..16)
        .prop_map(|chunks| chunks.concat())
        .prop_filter("ends or blocks the session by design", |bytes| {
            lines_read(bytes)
                .iter()
                .all(|line| !grammar::is_left_out(line))
        })
}

/// The lines as the engine reads them: split at LF, bytes that are not
/// UTF-8 replaced.
fn lines_read(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect()
}

/// Reads answers into `log` until it holds `count` lines matching `wanted`.
fn wait_for(e: &Engine, log: &mut Vec<String>, wanted: impl Fn(&str) -> bool, count: usize) {
    while log.iter().filter(|line| wanted(line)).count() < count {
        log.push(e.expect(|_| true, HANG_LIMIT).0);
    }
}

fn check_engine(bytes: &[u8]) -> Result<(), TestCaseError> {
    let lines = lines_read(bytes);
    let count = |word: &str| {
        lines
            .iter()
            .filter(|l| l.split_whitespace().next() == Some(word))
            .count()
    };
    let is_bestmove = |line: &str| line.starts_with("bestmove");
    let mut log = Vec::new();
    let mut e = Engine::spawn();
    e.send_raw(bytes);
    e.send("isready");
    wait_for(&e, &mut log, |l| l == "readyok", count("isready") + 1);
    e.send(&format!("position fen {FINAL_POSITION}"));
    e.send("go depth 1");
    let gos = count("go") + 1;
    wait_for(&e, &mut log, is_bestmove, gos);
    let last = log.last().expect("at least the final bestmove");
    prop_assert!(is_bestmove(last), "the output ends with '{last}'");
    assert_legal(
        FINAL_POSITION,
        last.split_whitespace().nth(1).unwrap_or_default(),
    );
    e.send("quit");
    let exit = e.exit_within(HANG_LIMIT);
    prop_assert!(matches!(exit, Some((_, true))), "exit after quit: {exit:?}");
    let after = e.remaining_lines();
    prop_assert!(after.is_empty(), "written after the last answer: {after:?}");
    Ok(())
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse::<u32>().ok())
        .map_or(DEFAULT_CASES, |n| (n / 8).max(1));
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzzed_stdin_leaves_the_engine_answering(bytes in input()) {
        check_engine(&bytes)?;
    }
}
