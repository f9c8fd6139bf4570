//! The evaluation network as a GUI sees it: the `eval` command and the
//! `EvalFile` option, which loads another network and refuses a bad one.

mod common;

use common::{Engine, PROMPT};
use std::path::{Path, PathBuf};

/// The side-to-move score and the network name that `eval` prints.
fn eval(e: &mut Engine) -> (i32, String) {
    e.send("eval");
    let (header, _) = e.expect(|l| l.starts_with("info string eval network"), PROMPT);
    let name = header.split_whitespace().nth(4).unwrap().to_string();
    let (line, _) = e.expect(|l| l.starts_with("info string eval side to move"), PROMPT);
    let score = line.split_whitespace().nth(6).unwrap().parse().unwrap();
    (score, name)
}

fn temporary(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sessa-{}-{name}", std::process::id()))
}

#[test]
fn eval_shows_the_network_score_and_piece_values() {
    let mut e = Engine::start();
    // White is a queen up with Black to move.
    e.send("position fen 4k3/8/8/8/8/8/PPP5/1K1Q4 b - - 0 1");
    e.send("eval");
    let (rank1, _) = e.expect(|l| l.starts_with("info string 1 |"), PROMPT);
    let queen: i32 = rank1
        .split_whitespace()
        .skip_while(|&t| t != "Q")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(queen > 500, "the queen is worth {queen}: {rank1}");
    let (line, _) = e.expect(|l| l.starts_with("info string eval side to move"), PROMPT);
    let score: i32 = line.split_whitespace().nth(6).unwrap().parse().unwrap();
    assert!(score < -500, "Black to move is a queen down: {line}");
    e.ready();
}

#[test]
fn eval_file_loads_a_network_and_refuses_bad_ones() {
    let mut e = Engine::start();
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let (internal_score, internal_name) = eval(&mut e);
    assert!(internal_name.starts_with("sessa-") && internal_name.ends_with(".nnue"));

    // A missing file.
    e.send("setoption name EvalFile value /nonexistent/net.nnue");
    e.expect(
        |l| l.starts_with("info string error: EvalFile") && l.contains("keeping"),
        PROMPT,
    );
    // A damaged copy of the built-in network, and a file of the wrong size.
    let good = sessa_engine::nnue::Network::embedded().to_bytes();
    let mut damaged = good.clone();
    damaged[5000] ^= 0x40;
    let damaged_path = temporary("damaged.nnue");
    std::fs::write(&damaged_path, &damaged).unwrap();
    e.send(&format!(
        "setoption name EvalFile value {}",
        damaged_path.display()
    ));
    e.expect(
        |l| l.starts_with("info string error:") && l.contains("damaged"),
        PROMPT,
    );
    let short_path = temporary("short.nnue");
    std::fs::write(&short_path, &good[..1000]).unwrap();
    e.send(&format!(
        "setoption name EvalFile value {}",
        short_path.display()
    ));
    e.expect(
        |l| l.starts_with("info string error:") && l.contains("bytes"),
        PROMPT,
    );
    assert_eq!(eval(&mut e), (internal_score, internal_name.clone()));

    // Another valid network: the built-in one with the output bias moved by
    // one centipawn's worth changes the evaluation by about that much.
    let mut shifted = (*sessa_engine::nnue::Network::embedded()).clone();
    for bias in shifted.output_bias.iter_mut() {
        *bias += 10 * 255 * 64 / 400;
    }
    let shifted_path = temporary("shifted.nnue");
    std::fs::write(&shifted_path, shifted.to_bytes()).unwrap();
    e.send(&format!(
        "setoption name EvalFile value {}",
        shifted_path.display()
    ));
    e.expect(
        |l| l.starts_with("info string EvalFile: using network"),
        PROMPT,
    );
    let (score, name) = eval(&mut e);
    assert_eq!(name, shifted.file_name());
    assert!(
        (score - internal_score - 10).abs() <= 1,
        "{score} vs {internal_score}"
    );
    // A refused file keeps the network loaded from a file, too.
    for bad in [
        Path::new("/nonexistent/net.nnue"),
        damaged_path.as_path(),
        short_path.as_path(),
    ] {
        e.send(&format!("setoption name EvalFile value {}", bad.display()));
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(
            line.starts_with("info string error:") && line.contains(&name),
            "{line}"
        );
        assert_eq!(eval(&mut e), (score, name.clone()));
    }
    e.send("go depth 3");
    e.bestmove(PROMPT * 10);

    e.send("setoption name EvalFile value <internal>");
    e.expect(
        |l| l.starts_with("info string EvalFile: using network"),
        PROMPT,
    );
    assert_eq!(eval(&mut e), (internal_score, internal_name));
    for path in [damaged_path, short_path, shifted_path] {
        std::fs::remove_file(path).unwrap();
    }
}
