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
    let sessa_engine::nnue::Weights::Hidden256(layers) = &mut shifted.weights else {
        panic!("the built-in network is 256 wide");
    };
    for bias in layers.output_bias.iter_mut() {
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

#[test]
fn eval_file_names_an_old_format_and_plays_with_a_king_mirrored_network() {
    use sessa_engine::nnue::{InputLayout, Network, fnv1a};
    let mut e = Engine::start();
    // The built-in network in format 2, before the header named the layout.
    let mut old = Network::embedded().to_bytes();
    old[8..12].copy_from_slice(&2u32.to_le_bytes());
    old.drain(36..40);
    let end = old.len() - 8;
    let checksum = fnv1a(&old[..end]);
    old[end..].copy_from_slice(&checksum.to_le_bytes());
    let old_path = temporary("format2.nnue");
    std::fs::write(&old_path, &old).unwrap();
    e.send(&format!(
        "setoption name EvalFile value {}",
        old_path.display()
    ));
    e.expect(
        |l| {
            l.starts_with("info string error:")
                && l.contains("format version 2")
                && l.contains("add_input_layout.py")
        },
        PROMPT,
    );

    // The built-in weights read as a king-mirrored network: a position and
    // its mirror image (files a and h swapped) evaluate alike.
    let mut mirrored = (*Network::embedded()).clone();
    mirrored.layout = InputLayout::KingMirrored;
    let mirrored_path = temporary("king-mirrored.nnue");
    std::fs::write(&mirrored_path, mirrored.to_bytes()).unwrap();
    e.send(&format!(
        "setoption name EvalFile value {}",
        mirrored_path.display()
    ));
    e.expect(
        |l| l.starts_with("info string EvalFile: using network"),
        PROMPT,
    );
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    let (score, name) = eval(&mut e);
    assert_eq!(name, mirrored.file_name());
    e.send("position fen 1k6/ppp5/8/8/8/8/PPP5/1K2R3 w - - 0 1");
    assert_eq!(eval(&mut e).0, score);
    // A search in which both kings cross between files d and e: the
    // engine's debug builds check the incremental accumulators against
    // fresh ones after every move, and a failed check would be reported
    // as an internal error.
    e.send("position fen 8/8/3k4/8/8/4K3/8/7R w - - 0 1");
    e.send("go depth 8");
    let (_, _, lines) = e.bestmove(PROMPT * 10);
    assert!(
        lines.iter().all(|l| !l.contains("internal error")),
        "{lines:?}"
    );
    for path in [old_path, mirrored_path] {
        std::fs::remove_file(path).unwrap();
    }
}

/// `narrow` widened to `W`: the same units in the first 128 lanes, the
/// others with biases and weights but no output weights, so that it
/// evaluates as `narrow` does.
fn widened<const W: usize>(
    narrow: &sessa_engine::nnue::Layers<128>,
) -> Box<sessa_engine::nnue::Layers<W>> {
    let mut wide = sessa_engine::nnue::Layers::<W>::zeroed();
    for (i, (wide_row, row)) in wide
        .feature_weights
        .iter_mut()
        .zip(&narrow.feature_weights)
        .enumerate()
    {
        wide_row[..128].copy_from_slice(row);
        wide_row[128..].fill((i % 17) as i16 - 8);
    }
    wide.feature_bias[..128].copy_from_slice(&narrow.feature_bias);
    wide.feature_bias[128..].fill(50);
    for (wide_half, half) in wide
        .output_weights
        .iter_mut()
        .flatten()
        .zip(narrow.output_weights.iter().flatten())
    {
        wide_half[..128].copy_from_slice(half);
    }
    wide.output_bias = narrow.output_bias;
    wide
}

#[test]
fn eval_file_plays_networks_of_every_width() {
    use sessa_engine::nnue::{InputLayout, Layers, Network, Weights};
    let mut e = Engine::start();
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    // A 128-wide network: the first 128 of the built-in network's 256 units.
    let built_in = Network::embedded();
    let Weights::Hidden256(built_in) = &built_in.weights else {
        panic!("the built-in network is 256 wide");
    };
    let mut narrow = Layers::<128>::zeroed();
    for (row, built_in_row) in narrow
        .feature_weights
        .iter_mut()
        .zip(&built_in.feature_weights)
    {
        row.copy_from_slice(&built_in_row[..128]);
    }
    narrow
        .feature_bias
        .copy_from_slice(&built_in.feature_bias[..128]);
    for (half, built_in_half) in narrow
        .output_weights
        .iter_mut()
        .flatten()
        .zip(built_in.output_weights.iter().flatten())
    {
        half.copy_from_slice(&built_in_half[..128]);
    }
    narrow.output_bias = built_in.output_bias;
    // The same units in the first 128 of 256, 384 and 512: the same
    // evaluations.
    let wider = [
        Weights::from_layers(widened::<256>(&narrow)),
        Weights::from_layers(widened::<384>(&narrow)),
        Weights::from_layers(widened::<512>(&narrow)),
    ];
    let mut narrow_score = None;
    for weights in std::iter::once(Weights::Hidden128(narrow)).chain(wider) {
        let net = Network {
            layout: InputLayout::Plain,
            weights,
        };
        let shape = format!("768->{}x2->1, plain inputs", net.hidden());
        let path = temporary(&format!("width-{}.nnue", net.hidden()));
        std::fs::write(&path, net.to_bytes()).unwrap();
        e.send(&format!("setoption name EvalFile value {}", path.display()));
        e.expect(
            |l| {
                l.starts_with("info string EvalFile: using network")
                    && l.contains(&shape)
                    && l.is_ascii()
            },
            PROMPT,
        );
        let (score, name) = eval(&mut e);
        assert_eq!(name, net.file_name());
        assert_eq!(*narrow_score.get_or_insert(score), score, "{shape}");
        // A search with it (debug builds check the incremental accumulators
        // against fresh ones after every move).
        e.send("go depth 8");
        let (_, _, lines) = e.bestmove(PROMPT * 10);
        assert!(
            lines.iter().all(|l| !l.contains("internal error")),
            "{lines:?}"
        );
        std::fs::remove_file(path).unwrap();
    }
}
