//! Every subcommand writing into a pipe whose reader goes away, as in
//! `sessa perft 5 --divide | head -1`, ends quietly: status 0, nothing on
//! stderr, no panic.
//!
//! A reader that closes its end before the process writes makes the very
//! first write fail; one that reads a line first makes a later write fail,
//! when the process writes in more than one go (`epd`, `annotate`). Those two
//! also stop searching then, long before their whole run would end.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Longest wait for a process that writes all at once to end after its
/// reader went away.
const EXIT_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for `sessa epd` and `sessa annotate` to stop after their
/// reader went away: the tests give them runs of 20 s or more, and they
/// notice at their next result, in a second or less.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// How the process ended, after its reader went away.
struct Ended {
    status: ExitStatus,
    stderr: String,
}

/// Runs `sessa args` with stdout into a pipe, reads `lines` lines from it,
/// closes the pipe and waits for the process to end, at most `timeout`.
fn run_into_closing_pipe(args: &[&str], lines: usize, timeout: Duration) -> Ended {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting sessa");
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut line = String::new();
        let read = stdout.read_line(&mut line).expect("reading sessa's output");
        assert!(
            read > 0,
            "sessa {args:?} ended before writing {lines} lines"
        );
    }
    drop(stdout);
    let closed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if closed.elapsed() > timeout {
            let _ = child.kill();
            panic!("sessa {args:?} still ran {timeout:?} after its reader went away");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ended {
        status,
        stderr: stderr.join().unwrap(),
    }
}

/// Checks that `sessa args` ends quietly, within `timeout`, when its reader
/// goes away after each count of lines in `lines_read`.
fn assert_quiet_end(args: &[&str], lines_read: &[usize], timeout: Duration) {
    for &lines in lines_read {
        let ended = run_into_closing_pipe(args, lines, timeout);
        assert!(
            !ended.stderr.contains("panicked"),
            "sessa {args:?} panicked after {lines} lines: {}",
            ended.stderr
        );
        assert_eq!(
            ended.status.code(),
            Some(0),
            "sessa {args:?} after {lines} lines: {}",
            ended.stderr
        );
        assert!(
            ended.stderr.is_empty(),
            "sessa {args:?} after {lines} lines: {}",
            ended.stderr
        );
    }
}

#[test]
fn tunables_end_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["tunables"], &[0, 1], EXIT_TIMEOUT);
}

#[test]
fn perft_ends_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["perft", "4", "--divide"], &[0, 1], EXIT_TIMEOUT);
    assert_quiet_end(&["perft", "3"], &[0, 1], EXIT_TIMEOUT);
}

#[test]
fn bench_ends_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["bench", "--depth", "3"], &[0, 1], EXIT_TIMEOUT);
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/nets");
    let net = std::fs::read_dir(net)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "nnue"))
        .expect("a network file in engine/nets");
    let args = ["bench", "--depth", "3", "--net", net.to_str().unwrap()];
    assert_quiet_end(&args, &[0, 1], EXIT_TIMEOUT);
}

#[test]
fn help_and_version_end_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["--help"], &[0, 1], EXIT_TIMEOUT);
    assert_quiet_end(&["--version"], &[0, 1], EXIT_TIMEOUT);
    assert_quiet_end(&["perft", "--help"], &[0, 1], EXIT_TIMEOUT);
}

#[test]
fn epd_stops_when_its_reader_goes_away() {
    // 60 positions at 500 ms each: half a minute for the whole suite.
    let position =
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - id \"two knights\";\n";
    let suite = Path::new(env!("CARGO_TARGET_TMPDIR")).join("closed-pipe.epd");
    std::fs::write(&suite, position.repeat(60)).unwrap();
    let suite = suite.to_str().unwrap();
    // The text table's first row is its fifth line: then a search is under
    // way when the next row fails to be written.
    let args = ["epd", suite, "--movetime", "500"];
    assert_quiet_end(&args, &[0, 1, 5], STOP_TIMEOUT);
    let args = ["epd", suite, "--movetime", "500", "--format", "csv"];
    assert_quiet_end(&args, &[0, 2], STOP_TIMEOUT);
}

#[test]
fn annotate_stops_when_its_reader_goes_away() {
    // 60 games of 16 moves at 20 ms a position: over 20 s for them all.
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/annotate/blunder.pgn");
    let mut args = vec!["annotate", "--movetime", "20"];
    args.extend([game.to_str().unwrap(); 60]);
    assert_quiet_end(&args, &[0, 1], STOP_TIMEOUT);
}
