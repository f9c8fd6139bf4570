//! Complete games of Sessa against itself through a real UCI client:
//! python-chess's `chess.engine`, driven by `python_chess_games.py` beside
//! this file (clocks with increment, with moves per period, and pondering
//! with two threads; legal moves, rule-based endings, no clock below zero).
//!
//! Without python-chess the test is skipped with a message, unless
//! `SESSA_REQUIRE_PYTHON_CHESS=1` (as `.ci/run` sets it) makes that a failure.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set to 1 to fail rather than skip when python-chess is missing.
const REQUIRE: &str = "SESSA_REQUIRE_PYTHON_CHESS";
/// The Python interpreter that runs the games.
const PYTHON: &str = "python3";
/// Far more than the games need (about ten seconds): only a hang gets here.
const TIME_LIMIT: Duration = Duration::from_secs(300);

/// The version of python-chess that `python3` has, or why there is none.
fn python_chess_version() -> Result<String, String> {
    let output = Command::new(PYTHON)
        .args(["-c", "import chess.engine; print(chess.__version__)"])
        .output()
        .map_err(|e| format!("cannot run {PYTHON}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{PYTHON} has no python-chess ({})",
            stderr.lines().last().unwrap_or("no message").trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

#[test]
fn python_chess_plays_complete_games_against_sessa() {
    let version = match python_chess_version() {
        Ok(version) => version,
        Err(why) if std::env::var(REQUIRE).as_deref() == Ok("1") => {
            panic!("{REQUIRE}=1, but {why}")
        }
        Err(why) => {
            println!(
                "skipped: {why}; `pip install chess==1.11.2` to run it, \
                 {REQUIRE}=1 to make this a failure"
            );
            return;
        }
    };
    println!("python-chess {version}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python_chess_games.py");
    let log_dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let stdout_path = log_dir.join("python_chess_games.out");
    let stderr_path = log_dir.join("python_chess_games.err");
    let mut child = Command::new(PYTHON)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_sessa"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("starting the python-chess games");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    println!("{stdout}");
    let status = status.unwrap_or_else(|| {
        panic!("the games did not end within {TIME_LIMIT:?}:\n{stdout}\n{stderr}")
    });
    assert!(status.success(), "{status}:\n{stdout}\n{stderr}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.contains(" half-moves, "))
            .count(),
        3,
        "{stdout}"
    );
}
