//! `sessa perft --fen`: an imperfect but playable FEN is counted as repaired,
//! with a note on stderr; an unplayable one is an error exit. The subcommand
//! and the UCI `perft` command count alike; `go perft` answers as `perft`.

mod common;

use common::Engine;
use std::process::{Command, Output};
use std::time::Duration;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn perft(depth: &str, fen: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(["perft", depth, "--fen", fen])
        .output()
        .expect("running sessa perft")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// The leaf count, the first word of the output.
fn count(output: &Output) -> u64 {
    text(&output.stdout)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {:?}", text(&output.stdout)))
}

#[test]
fn repaired_fens_are_counted_as_repaired() {
    let flawed = perft("3", "r3k3/8/8/8/8/8/8/4K2R w KQkq e3 0 1");
    assert!(flawed.status.success(), "{}", text(&flawed.stderr));
    let stderr = text(&flawed.stderr);
    assert!(
        stderr.contains("note: FEN repaired: castling rights 'KQkq' reduced to 'Kq'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: FEN repaired: en passant square e3 cleared"),
        "{stderr}"
    );
    let clean = perft("3", "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
    assert!(clean.status.success());
    assert!(text(&clean.stderr).is_empty(), "{}", text(&clean.stderr));
    assert_eq!(count(&flawed), count(&clean));
}

#[test]
fn unplayable_fens_are_an_error_exit() {
    for (fen, why) in [
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", "White has no king"),
        (
            "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
            "not to move, is in check",
        ),
        ("4k3/8/8/8/8/8/8/4K3 w", "at least the board"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "invalid FEN",
        ),
    ] {
        let output = perft("1", fen);
        assert_eq!(output.status.code(), Some(1), "{fen}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains(why),
            "{fen}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{fen}");
    }
}

/// The `move: count` lines of a perft split, sorted.
fn split_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut moves: Vec<String> = lines
        .into_iter()
        .filter(|l| l.contains(": ") && !l.starts_with("Nodes searched"))
        .map(str::to_string)
        .collect();
    moves.sort();
    moves
}

/// `sessa perft --divide`: the split by root move and the total.
fn subcommand_divide(depth: u32, fen: &str) -> (Vec<String>, u64) {
    let output = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(["perft", &depth.to_string(), "--divide", "--fen", fen])
        .output()
        .expect("running sessa perft");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let total = stdout
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no total in {stdout:?}"));
    (split_lines(stdout.lines()), total)
}

/// The UCI `perft` command: the split by root move and the total.
fn uci_divide(engine: &mut Engine, depth: u32, fen: &str) -> (Vec<String>, u64) {
    engine.send(&format!("position fen {fen}"));
    engine.send(&format!("perft {depth}"));
    let (last, before) = engine.expect(
        |l| l.starts_with("Nodes searched: "),
        Duration::from_secs(30),
    );
    let total = last["Nodes searched: ".len()..].parse().expect(&last);
    (split_lines(before.iter().map(String::as_str)), total)
}

#[test]
fn subcommand_and_uci_command_agree() {
    let mut engine = Engine::start();
    for (fen, counts) in [
        (START, [1, 20, 400, 8902]),
        (KIWIPETE, [1, 48, 2039, 97862]),
    ] {
        for (depth, expected) in (0..).zip(counts) {
            let (sub_moves, sub_total) = subcommand_divide(depth, fen);
            let (uci_moves, uci_total) = uci_divide(&mut engine, depth, fen);
            assert_eq!(sub_total, expected, "{fen} depth {depth}");
            assert_eq!(uci_total, expected, "{fen} depth {depth}");
            assert_eq!(sub_moves, uci_moves, "{fen} depth {depth}");
            let moves = if depth == 0 { 0 } else { counts[1] as usize };
            assert_eq!(uci_moves.len(), moves, "{fen} depth {depth}");
        }
    }
}

/// Sends `go perft <depth>` and checks the split, the total and that no
/// `bestmove` follows.
fn go_perft(engine: &mut Engine, fen: &str, depth: u32, moves: usize, total: u64) {
    engine.send(&format!("position fen {fen}"));
    engine.send(&format!("go perft {depth}"));
    let (last, before) = engine.expect(
        |l| l.starts_with("Nodes searched: "),
        Duration::from_secs(60),
    );
    assert_eq!(last, format!("Nodes searched: {total}"));
    let split = split_lines(before.iter().map(String::as_str));
    assert_eq!(split.len(), moves, "{before:?}");
    let sum: u64 = split
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    if depth > 0 {
        assert_eq!(sum, total);
    }
    engine.send("isready");
    let (_, between) = engine.expect(|l| l == "readyok", common::PROMPT);
    assert!(between.is_empty(), "{between:?}");
}

#[test]
fn go_perft_counts_like_perft_without_bestmove() {
    let mut engine = Engine::start();
    go_perft(&mut engine, START, 4, 20, 197_281);
    go_perft(&mut engine, KIWIPETE, 3, 48, 97_862);
    go_perft(&mut engine, KIWIPETE, 0, 0, 1);
    engine.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}

#[test]
fn go_perft_without_a_depth_is_an_error() {
    let mut engine = Engine::start();
    for command in ["go perft", "go perft four", "go perft -1", "go perft 2 3"] {
        engine.send(command);
        let (line, before) = engine.expect(|l| l.starts_with("info string"), common::PROMPT);
        assert!(
            line.starts_with("info string error: go perft needs a depth"),
            "{command}: {line}"
        );
        assert!(before.is_empty(), "{command}: {before:?}");
        engine.ready();
    }
    engine.assert_no(
        |l| l.starts_with("bestmove") || l.starts_with("info depth"),
        Duration::from_millis(200),
    );
}
