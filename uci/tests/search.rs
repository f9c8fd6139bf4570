//! What the search finds, seen through UCI: mates with exact `score mate N`
//! and PVs that end in mate, and the rules that make a position a draw.

mod common;

use common::{Engine, field, last_score_line, position};
use shakmaty::Position;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(60);

/// Searches `fen` (plus `moves`) to `depth`; returns the best move and the last scored info line.
fn search(e: &mut Engine, fen: &str, moves: &str, depth: u32) -> (String, String) {
    // Each problem starts from a fresh game: tables left by another position
    // may change which mate a fixed depth proves first.
    e.send("ucinewgame");
    if moves.is_empty() {
        e.send(&format!("position fen {fen}"));
    } else {
        e.send(&format!("position fen {fen} moves {moves}"));
    }
    e.send(&format!("go depth {depth}"));
    let (best, _, infos) = e.bestmove(LONG);
    (best, last_score_line(&infos))
}

fn score(line: &str) -> (String, i32) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "score").unwrap();
    (words[at + 1].to_string(), words[at + 2].parse().unwrap())
}

#[test]
fn mates_in_one_two_and_three_are_exact() {
    let mut e = Engine::start();
    for (fen, moves) in [
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1),
        // 1.Nf6+ gxf6 2.Bxf7#
        (
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
            2,
        ),
        // King and queen against king, mate in three.
        ("8/3k1K2/8/7Q/8/8/8/8 w - - 0 1", 3),
        ("4Q3/8/8/8/4K3/8/8/5k2 w - - 0 1", 3),
    ] {
        let (best, line) = search(&mut e, fen, "", 2 * moves + 2);
        assert_eq!(
            score(&line),
            ("mate".to_string(), moves as i32),
            "{fen}: {line}"
        );
        // The PV is legal to its end and ends in checkmate.
        let pv = common::pv(&line);
        assert_eq!(pv[0], best);
        let mut pos = position(fen);
        for m in &pv {
            common::play(&mut pos, m);
        }
        assert!(pos.is_checkmate(), "{fen}: PV {pv:?} does not mate");
        assert_eq!(pv.len(), 2 * moves as usize - 1, "{fen}: {pv:?}");
    }
}

#[test]
fn being_mated_is_a_negative_mate_score() {
    let mut e = Engine::start();
    // Black's only move, Kg8, walks into Ra8 mate.
    let (best, line) = search(&mut e, "7k/R7/6K1/8/8/8/8/8 b - - 0 1", "", 4);
    assert_eq!(best, "h8g8");
    assert_eq!(score(&line), ("mate".to_string(), -1), "{line}");
}

#[test]
fn repetition_is_the_only_save() {
    let mut e = Engine::start();
    // White, a queen up, shuffles; Black's king can step back to repeat the
    // position after 1.Qe1 Kg8 2.Qd1: that repetition is Black's only draw.
    let fen = "7k/8/8/8/8/8/8/3Q2K1 w - - 0 1";
    let (best, line) = search(&mut e, fen, "d1e1 h8g8 e1d1", 6);
    assert_eq!(best, "g8h8", "{line}");
    assert_eq!(score(&line), ("cp".to_string(), 0), "{line}");
    // Without the history the same position is simply lost for Black.
    let (_, line) = search(&mut e, "6k1/8/8/8/8/8/8/3Q2K1 b - - 0 1", "", 6);
    assert!(score(&line).1 < -500, "{line}");
}

#[test]
fn fifty_move_rule_yields_to_mate() {
    let mut e = Engine::start();
    // 99 half-moves played: mate on the 100th still wins...
    let (best, line) = search(&mut e, "7k/Q7/6K1/8/8/8/8/8 w - - 99 80", "", 4);
    assert!(best == "a7g7" || best == "a7a8", "{best}");
    assert_eq!(score(&line), ("mate".to_string(), 1), "{line}");
    // ...but any quiet move without mate draws by the 50-move rule.
    let (_, line) = search(&mut e, "7k/8/8/8/8/8/8/K5Q1 w - - 99 80", "", 4);
    assert_eq!(score(&line), ("cp".to_string(), 0), "{line}");
    // A capture resets the counter, so winning material still counts.
    let (best, line) = search(&mut e, "7k/8/8/8/8/8/7r/K5Q1 w - - 99 80", "", 4);
    assert_eq!(best, "g1h2", "{line}");
    assert!(score(&line).1 > 500, "{line}");
}

#[test]
fn insufficient_material_is_a_draw() {
    let mut e = Engine::start();
    for fen in [
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
        "8/8/3bk3/8/8/3KB3/8/8 w - - 0 1",
    ] {
        let (_, line) = search(&mut e, fen, "", 6);
        assert_eq!(score(&line), ("cp".to_string(), 0), "{fen}: {line}");
    }
}

#[test]
fn mate_limit_stops_at_the_mate() {
    let mut e = Engine::start();
    e.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    e.send("go mate 2");
    let (best, _, infos) = e.bestmove(LONG);
    assert_eq!(best, "d5f6");
    assert_eq!(field(&last_score_line(&infos), "mate"), Some("2"));
}

#[test]
fn mate_limit_stops_at_a_shorter_mate_but_not_a_longer_one() {
    let mut e = Engine::start();
    // Mate in one is shorter than the three asked for: the search stops
    // in the first iteration that proves it.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    e.send("go mate 3");
    let (best, _, infos) = e.bestmove(LONG);
    assert_eq!(best, "a1a8");
    let last = last_score_line(&infos);
    assert_eq!(field(&last, "mate"), Some("1"), "{last}");
    let first_mate = infos
        .iter()
        .find(|l| field(l, "mate").is_some())
        .expect("a mate score");
    assert_eq!(
        field(first_mate, "depth"),
        field(&last, "depth"),
        "{infos:#?}"
    );
    // King and queen mate in three, but a mate in two is asked for: the
    // search goes on past the iteration that found the mate in three.
    e.send("position fen 8/3k1K2/8/7Q/8/8/8/8 w - - 0 1");
    e.send("go mate 2 movetime 300");
    let (_, _, infos) = e.bestmove(LONG);
    let depth_of = |line: &String| field(line, "depth").unwrap().parse::<u32>().unwrap();
    let first_mate = infos
        .iter()
        .find(|l| field(l, "mate") == Some("3"))
        .expect("the mate in three");
    assert!(
        depth_of(&last_score_line(&infos)) > depth_of(first_mate),
        "{infos:#?}"
    );
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 4 searchmoves a2a3 h2h3");
    let (best, _, _) = e.bestmove(LONG);
    assert!(best == "a2a3" || best == "h2h3", "{best}");
}
