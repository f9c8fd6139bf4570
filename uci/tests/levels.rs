//! What people who play against Sessa set: win/draw/loss figures
//! (`UCI_ShowWDL`) and limited strength (`UCI_LimitStrength`, `UCI_Elo`).

mod common;

use common::{Engine, PROMPT, field, play};
use sessa_engine::strength::StrengthLimit;
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen};
use std::time::{Duration, Instant};

/// The `wdl` triple of an `info` line, if it has one.
fn wdl(line: &str) -> Option<(u32, u32, u32)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "wdl")?;
    let n = |i: usize| words[at + i].parse::<u32>().unwrap();
    Some((n(1), n(2), n(3)))
}

/// The info lines with a score of a `go depth` search of `fen`.
fn scored_lines(e: &mut Engine, fen: &str, depth: u32) -> Vec<String> {
    e.send(&format!("position fen {fen}"));
    e.send(&format!("go depth {depth}"));
    let (_, _, lines) = e.bestmove(PROMPT * 20);
    lines
        .into_iter()
        .filter(|l| l.contains(" score "))
        .collect()
}

#[test]
fn wdl_is_shown_only_when_asked_and_follows_the_score() {
    let mut e = Engine::start();
    let level = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    assert!(
        scored_lines(&mut e, level, 6)
            .iter()
            .all(|l| wdl(l).is_none())
    );
    e.send("setoption name UCI_ShowWDL value true");
    let lines = scored_lines(&mut e, level, 6);
    assert!(!lines.is_empty());
    for line in &lines {
        let (w, d, l) = wdl(line).unwrap_or_else(|| panic!("no wdl in {line}"));
        assert_eq!(w + d + l, 1000, "{line}");
        // wdl comes right after the score, as GUIs expect.
        assert!(line.contains(" wdl ") && line.find(" wdl ") > line.find(" score "));
    }
    // The side to move a queen up, the same side a queen down (same material).
    let up = scored_lines(&mut e, "4k3/8/8/8/8/8/PPP5/1K1Q4 w - - 0 1", 5);
    let down = scored_lines(&mut e, "4k3/8/8/8/8/8/PPP5/1K1Q4 b - - 0 1", 5);
    let (up_win, _, _) = wdl(up.last().unwrap()).unwrap();
    let (down_win, _, down_loss) = wdl(down.last().unwrap()).unwrap();
    let (level_win, _, _) = wdl(lines.last().unwrap()).unwrap();
    assert!(up_win > 900, "{up:?}");
    assert!(down_win < 100 && down_loss > 900, "{down:?}");
    assert!(up_win > level_win && level_win > down_win);
    // A mate is a certain result.
    let mate = scored_lines(&mut e, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 4);
    assert_eq!(wdl(mate.last().unwrap()), Some((1000, 0, 0)));
    e.send("setoption name UCI_ShowWDL value false");
    assert!(
        scored_lines(&mut e, level, 4)
            .iter()
            .all(|l| wdl(l).is_none())
    );
}

#[test]
fn strength_options_are_declared_and_checked() {
    let mut e = Engine::spawn();
    e.send("uci");
    let (_, lines) = e.expect(|l| l == "uciok", PROMPT);
    for declaration in [
        "option name UCI_ShowWDL type check default false",
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1320 min 1320 max 2200",
    ] {
        assert!(lines.iter().any(|l| l == declaration), "{declaration}");
    }
    for refused in ["1319", "2201", "strong", ""] {
        e.send(&format!("setoption name UCI_Elo value {refused}"));
        e.expect(|l| l.starts_with("info string error:"), PROMPT);
    }
    e.send("setoption name UCI_LimitStrength value maybe");
    e.expect(|l| l.starts_with("info string error:"), PROMPT);
    for accepted in [
        "UCI_Elo value 1320",
        "UCI_Elo value 2200",
        "UCI_LimitStrength value true",
    ] {
        e.send(&format!("setoption name {accepted}"));
    }
    e.ready();
    e.assert_no(
        |l| l.starts_with("info string error"),
        Duration::from_millis(50),
    );
}

/// Nodes of the last `info` line of a `go depth 10` from the start of a game.
fn nodes_at_depth_10(e: &mut Engine) -> u64 {
    e.send("ucinewgame");
    let lines = scored_lines(
        e,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        10,
    );
    field(lines.last().unwrap(), "nodes")
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_limited_engine_searches_less_and_full_strength_comes_back() {
    let mut e = Engine::start();
    let full = nodes_at_depth_10(&mut e);
    e.send("setoption name UCI_Elo value 1320");
    e.send("setoption name UCI_LimitStrength value true");
    let limited = nodes_at_depth_10(&mut e);
    assert!(limited < full / 4, "limited {limited}, full {full}");
    e.send("setoption name UCI_LimitStrength value false");
    assert_eq!(nodes_at_depth_10(&mut e), full);
    // A strong level searches one root line, as full strength does, so
    // within its budget (45,000 nodes at 2200) it searches the same tree.
    e.send("setoption name UCI_Elo value 2200");
    e.send("setoption name UCI_LimitStrength value true");
    assert_eq!(nodes_at_depth_10(&mut e), full);
}

#[test]
fn each_level_starts_no_iteration_past_its_node_budget() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    for elo in [1320, 1600, 1800, 1900, 2050, 2200] {
        let budget = StrengthLimit::new(elo).node_budget();
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 e7e5 g1f3");
        // The time limit is far beyond what any budget needs: the level's
        // budget must end the search.
        let sent = Instant::now();
        e.send("go movetime 20000");
        let (_, _, lines) = e.bestmove(Duration::from_secs(25));
        assert!(
            sent.elapsed() < Duration::from_secs(15),
            "{elo}: no end within the budget of {budget} nodes"
        );
        let scored: Vec<(u32, u64)> = lines
            .iter()
            .filter(|l| l.contains(" score "))
            .map(|l| {
                let number = |key| field(l, key).unwrap().parse::<u64>().unwrap();
                (number("depth") as u32, number("nodes"))
            })
            .collect();
        let last_depth = scored.iter().map(|&(depth, _)| depth).max().unwrap();
        // Every iteration but the first starts below the budget: all lines
        // of earlier iterations were reported with fewer nodes.
        for &(depth, nodes) in &scored {
            assert!(
                depth == last_depth || nodes < budget,
                "{elo}: depth {depth} of {last_depth} reported {nodes} nodes, budget {budget}"
            );
        }
        // ...and the budget, not the clock, ended the search: the deepest
        // iteration went past it or was the last one needed.
        let last_nodes = scored.last().unwrap().1;
        assert!(
            last_nodes >= budget / 2,
            "{elo}: ended at {last_nodes} nodes, budget {budget}"
        );
    }
}

#[test]
fn limited_engines_play_complete_fast_games_legally() {
    for elo in [1320, 2000] {
        let mut e = Engine::start();
        e.send("setoption name UCI_LimitStrength value true");
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        e.send("ucinewgame");
        let mut pos = Chess::default();
        let mut moves: Vec<String> = Vec::new();
        let mut clocks = [3000i64, 3000];
        let mut plies = 0;
        while !pos.is_game_over() && plies < 160 {
            let side = usize::from(pos.turn() == shakmaty::Color::Black);
            e.send(&format!("position startpos moves {}", moves.join(" ")));
            let started = std::time::Instant::now();
            e.send(&format!(
                "go wtime {} btime {} winc 30 binc 30",
                clocks[0], clocks[1]
            ));
            let (best, _, _) = e.bestmove(Duration::from_secs(5));
            clocks[side] -= started.elapsed().as_millis() as i64;
            assert!(clocks[side] > 0, "Elo {elo}: flag fell at ply {plies}");
            clocks[side] += 30;
            play(&mut pos, &best);
            moves.push(best);
            plies += 1;
        }
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        assert!(plies >= 20, "Elo {elo}: only {plies} plies, ended at {fen}");
    }
}

#[test]
fn a_weak_level_varies_its_moves_and_shows_only_the_lines_asked_for() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1320");
    let mut played = std::collections::HashSet::new();
    for _ in 0..30 {
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go movetime 50");
        let (best, _, lines) = e.bestmove(PROMPT * 4);
        for line in lines.iter().filter(|l| l.contains(" score ")) {
            assert_eq!(field(line, "multipv"), Some("1"), "{line}");
        }
        // The last line shown is the one played.
        let last = lines.iter().rfind(|l| l.contains(" pv ")).unwrap();
        assert_eq!(common::pv(last)[0], best, "{last}");
        played.insert(best);
    }
    assert!(played.len() >= 2, "always {played:?}");
}
