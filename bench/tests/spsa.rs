//! `spsa` drives its engine and match runner as documented: it reads the
//! tunables, passes each side's values as options, logs every iteration,
//! keeps its state and resumes from it. Stand-in scripts play the engine
//! and fastchess, so the test needs neither.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sessa-spsa-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes an executable shell script.
fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Sets up a stand-in engine with two tunables and a stand-in fastchess
/// whose plus side always wins 3 of 4 games; returns the argument list.
fn setup(dir: &Path) -> Vec<String> {
    let engine = dir.join("engine.sh");
    script(
        &engine,
        "[ \"$1\" = tunables ] && printf 'alpha, int, 50, 0, 100, 4, 0.002\\nbeta, int, 10, 0, 20, 1, 0.002\\nunused, int, 5, 0, 9, 1, 0.002\\n'\n",
    );
    let fastchess = dir.join("fastchess.sh");
    script(
        &fastchess,
        "echo \"$@\" >> calls.txt\necho 'Finished game 2 (plus vs minus): 1-0 {White loses on time}'\necho 'Games: 4, Wins: 3, Losses: 1, Draws: 0, Points: 3.0 (75.00 %)'\n",
    );
    let openings = dir.join("openings.epd");
    std::fs::write(
        &openings,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n",
    )
    .unwrap();
    [
        "--engine",
        engine.to_str().unwrap(),
        "--fastchess",
        fastchess.to_str().unwrap(),
        "--openings",
        openings.to_str().unwrap(),
        "--params",
        "alpha,beta",
        "--iterations",
        "4",
        "--seed",
        "5",
        "--state",
        dir.join("run/state.txt").to_str().unwrap(),
        "--log",
        dir.join("run/log.txt").to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

fn spsa(args: &[String]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_spsa"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_run_plays_logs_and_keeps_its_state() {
    let dir = scratch("run");
    let args = setup(&dir);
    let printed = spsa(&args);
    let log = std::fs::read_to_string(dir.join("run/log.txt")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 4, "{log}");
    for (k, line) in lines.iter().enumerate() {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            fields[..5],
            [k.to_string().as_str(), "3", "1", "0", "1"],
            "{line}"
        );
        assert_eq!(fields.len(), 7, "{line}");
    }
    let state = std::fs::read_to_string(dir.join("run/state.txt")).unwrap();
    assert!(state.starts_with("iteration 4\n"), "{state}");
    assert!(state.contains("alpha ") && state.contains("beta "));
    assert!(
        !state.contains("unused"),
        "only the chosen tunables: {state}"
    );
    // Each call gives both sides their values, and fastchess runs in the
    // state's folder.
    let calls = std::fs::read_to_string(dir.join("run/calls.txt")).unwrap();
    assert_eq!(calls.lines().count(), 4);
    for call in calls.lines() {
        assert_eq!(call.matches("option.alpha=").count(), 2, "{call}");
        assert_eq!(call.matches("option.beta=").count(), 2, "{call}");
        assert!(call.contains("name=plus") && call.contains("name=minus"));
        assert!(!call.contains("option.unused"));
    }
    assert!(
        printed.contains("alpha = ") && printed.contains("beta = "),
        "{printed}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stopped_run_resumes_from_its_state() {
    let dir = scratch("resume");
    let args = setup(&dir);
    std::fs::create_dir_all(dir.join("run")).unwrap();
    std::fs::write(
        dir.join("run/state.txt"),
        "iteration 3\nalpha 61.5\nbeta 2\n",
    )
    .unwrap();
    spsa(&args);
    let log = std::fs::read_to_string(dir.join("run/log.txt")).unwrap();
    assert_eq!(log.lines().count(), 1, "only iteration 3 is left: {log}");
    assert!(log.starts_with("3 "), "{log}");
    // The last iteration moves alpha by at most a / c · 2 = 0.002 · 4 · 2.
    let fields: Vec<f64> = log
        .split_whitespace()
        .skip(5)
        .map(|f| f.parse().unwrap())
        .collect();
    assert!((fields[0] - 61.5).abs() <= 0.016 + 1e-3, "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}
