//! Every subcommand writing into a pipe whose reader goes away, as in
//! `sessa perft 5 --divide | head -1`, ends quietly: status 0, nothing on
//! stderr, no panic.
//!
//! A reader that closes its end before the process writes makes the very
//! first write fail; one that reads a line first makes a later write fail,
//! when the process writes in more than one go (`epd`, `annotate`).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Longest wait for the process to end once its reader has gone.
const EXIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How the process ended, after its reader went away.
struct Ended {
    status: ExitStatus,
    stderr: String,
}

/// Runs `sessa args` with stdout into a pipe, reads `lines` lines from it,
/// closes the pipe and waits for the process to end.
fn run_into_closing_pipe(args: &[&str], lines: usize) -> Ended {
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
        if closed.elapsed() > EXIT_TIMEOUT {
            let _ = child.kill();
            panic!("sessa {args:?} still runs {EXIT_TIMEOUT:?} after its reader went away");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ended {
        status,
        stderr: stderr.join().unwrap(),
    }
}

/// Checks that `sessa args` ends quietly when its reader goes away at once,
/// and after one line.
fn assert_quiet_end(args: &[&str]) {
    for lines in [0, 1] {
        let ended = run_into_closing_pipe(args, lines);
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
    assert_quiet_end(&["tunables"]);
}

#[test]
fn perft_ends_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["perft", "4", "--divide"]);
    assert_quiet_end(&["perft", "3"]);
}

#[test]
fn bench_ends_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["bench", "--depth", "3"]);
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/nets");
    let net = std::fs::read_dir(net)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "nnue"))
        .expect("a network file in engine/nets");
    assert_quiet_end(&["bench", "--depth", "3", "--net", net.to_str().unwrap()]);
}

#[test]
fn help_and_version_end_quietly_in_a_closed_pipe() {
    assert_quiet_end(&["--help"]);
    assert_quiet_end(&["--version"]);
    assert_quiet_end(&["perft", "--help"]);
}
