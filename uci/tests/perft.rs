//! `sessa perft --fen`: an imperfect but playable FEN is counted as repaired,
//! with a note on stderr; an unplayable one is an error exit.

use std::process::{Command, Output};

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
