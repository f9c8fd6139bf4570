//! UCI conversations with the real binary: handshake, responsiveness, one
//! `bestmove` per `go`, clocks, pondering and bad input.

mod common;

use common::{
    Engine, PROMPT, SCHEDULING_SLACK, assert_legal, assert_legal_in, field, position, timed,
};
use sessa_engine::Limits;
use sessa_engine::time::TimeBudget;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Color, Position};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(20);

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn handshake_lists_identity_and_options() {
    let mut e = Engine::spawn();
    e.send("uci");
    let (_, lines) = e.expect(|l| l == "uciok", Duration::from_secs(5));
    assert_eq!(
        lines[0],
        format!("id name Sessa {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "Hash",
        "Threads",
        "Clear Hash",
        "Move Overhead",
        "Clock Delay",
        "MultiPV",
        "Ponder",
        "UCI_Chess960",
        "UCI_AnalyseMode",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "option {option} missing: {lines:?}"
        );
    }
    e.ready();
}

#[test]
fn isready_is_answered_during_infinite_search_and_stop_gives_one_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        let sent = Instant::now();
        e.send("isready");
        let (_, before) = e.expect(|l| l == "readyok", PROMPT);
        assert!(sent.elapsed() < PROMPT);
        assert!(
            !before.iter().any(|l| l.starts_with("bestmove")),
            "bestmove before stop"
        );
    }
    let sent = Instant::now();
    e.send("stop");
    let (best, _, _) = e.bestmove(PROMPT);
    assert!(sent.elapsed() < PROMPT);
    let mut pos = position(START);
    common::play(&mut pos, "e2e4");
    assert_legal(
        &shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string(),
        &best,
    );
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(300));
    e.ready();
}

#[test]
fn instant_stop_still_answers_once() {
    let mut e = Engine::start();
    for _ in 0..20 {
        e.send("position startpos");
        e.send("go infinite");
        e.send("stop");
        let (best, _, _) = e.bestmove(PROMPT);
        assert_legal(START, &best);
    }
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}

#[test]
fn movetime_is_used_in_full() {
    timed(|| {
        let mut e = Engine::start();
        e.send("position startpos");
        let sent = Instant::now();
        e.send("go movetime 300");
        let (best, _, infos) = e.bestmove(Duration::from_secs(5));
        let took = sent.elapsed();
        assert!(
            took >= Duration::from_millis(300),
            "returned after {took:?}"
        );
        assert!(
            took < Duration::from_millis(300) + SCHEDULING_SLACK,
            "returned after {took:?}"
        );
        assert_legal(START, &best);
        assert!(infos.iter().any(|l| l.starts_with("info depth")));
    });
}

#[test]
fn tiny_zero_negative_or_missing_clock_moves_at_once() {
    timed(|| {
        let mut e = Engine::start();
        for go in [
            "go wtime 1 btime 1000",
            "go wtime 0 btime 0",
            "go wtime -50 btime 1000 winc 0",
            "go btime 5000",
            "go wtime 20 btime 20 movestogo 1",
        ] {
            e.send("position startpos");
            let sent = Instant::now();
            e.send(go);
            let (best, _, _) = e.bestmove(PROMPT);
            // The budget of such a clock is a few milliseconds at most.
            let budget = hard_limit(go, Color::White, 0, DEFAULT_OVERHEAD);
            assert!(budget <= Duration::from_millis(2), "{go}: {budget:?}");
            assert!(
                sent.elapsed() < budget + SCHEDULING_SLACK,
                "{go} took {:?}",
                sent.elapsed()
            );
            assert_legal(START, &best);
        }
    });
}

#[test]
fn one_legal_move_is_played_at_once() {
    let mut e = Engine::start();
    // White is in check from the rook; the knight covers b2: Ka2 is the only move.
    let fen = "7k/8/8/8/2n5/8/8/K6r w - - 0 1";
    assert_eq!(position(fen).legal_moves().len(), 1);
    e.send(&format!("position fen {fen}"));
    let sent = Instant::now();
    e.send("go wtime 60000 btime 60000");
    let (best, _, _) = e.bestmove(PROMPT);
    assert!(sent.elapsed() < PROMPT);
    assert_eq!(best, "a1a2");
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Engine::start();
    for fen in [
        // Fool's mate: White is checkmated.
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        // Black is stalemated.
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 5");
        let (best, ponder, _) = e.bestmove(PROMPT);
        assert_eq!(best, "(none)");
        assert_eq!(ponder, None);
        e.send("go wtime 1000 btime 1000");
        assert_eq!(e.bestmove(PROMPT).0, "(none)");
    }
}

#[test]
fn version_names_the_build() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sessa"))
        .arg("--version")
        .output()
        .expect("running sessa --version");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("sessa {}", env!("CARGO_PKG_VERSION")));
    let features: Vec<&str> = lines
        .iter()
        .find_map(|l| l.strip_prefix("target features: "))
        .unwrap_or_else(|| panic!("no target features in {text}"))
        .split(' ')
        .collect();
    // The tests are compiled with the binary's flags.
    for (feature, compiled_in) in [
        ("popcnt", cfg!(target_feature = "popcnt")),
        ("sse4.2", cfg!(target_feature = "sse4.2")),
        ("avx2", cfg!(target_feature = "avx2")),
        ("bmi2", cfg!(target_feature = "bmi2")),
    ] {
        assert_eq!(
            features.contains(&feature),
            compiled_in,
            "{feature}: {text}"
        );
    }
    #[cfg(target_arch = "x86_64")]
    let kernel = if std::arch::is_x86_feature_detected!("avx2") {
        "AVX2"
    } else {
        "portable"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernel = "portable";
    assert!(
        lines.contains(&format!("network kernel: {kernel} (chosen at run time)").as_str()),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("network: sessa-") && l.ends_with(".nnue")),
        "{text}"
    );
}

#[test]
fn game_over_roots_report_their_score() {
    let mut e = Engine::start();
    // A search still running reports first; then the score of the game's end.
    e.send("position startpos");
    e.send("go infinite");
    e.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go depth 3");
    let (first, _, _) = e.bestmove(PROMPT);
    assert_ne!(first, "(none)");
    let (best, _, lines) = e.bestmove(PROMPT);
    assert_eq!(best, "(none)");
    assert_eq!(lines, ["info depth 0 score mate 0"]);
    for (show_wdl, fen, expected) in [
        // Fool's mate: White is checkmated.
        (
            false,
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "info depth 0 score mate 0",
        ),
        // Black is stalemated.
        (
            false,
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "info depth 0 score cp 0",
        ),
        (
            true,
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "info depth 0 score mate 0 wdl 0 0 1000",
        ),
        (
            true,
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
            "info depth 0 score mate 0 wdl 0 0 1000",
        ),
        (
            true,
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "info depth 0 score cp 0 wdl 0 1000 0",
        ),
    ] {
        e.send(&format!("setoption name UCI_ShowWDL value {show_wdl}"));
        e.send(&format!("position fen {fen}"));
        e.send("go movetime 1000");
        let (best, _, lines) = e.bestmove(PROMPT);
        assert_eq!(best, "(none)", "{fen}");
        assert_eq!(lines, [expected], "{fen}");
    }
}

#[test]
fn refused_positions_leave_no_position_until_a_valid_one() {
    let mut e = Engine::start();
    let good = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    for bad in [
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        "position fen 4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen 4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
        "position fen",
        "position",
        "position startpos moves e2e5",
        "position startpos moves e2e4 zz99",
        "position startpos moves e1g1",
        "position fen 4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1 moves e1c1",
        "position startpos extra",
    ] {
        e.send(&format!("position fen {good}"));
        e.send(bad);
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(line.starts_with("info string error: "), "{bad}: {line}");
        assert!(line.contains("no position"), "{bad}: {line}");
        // No move of the older position may come back, whatever the limits.
        for go in ["go depth 3", "go wtime 1000 btime 1000", "go infinite"] {
            let sent = Instant::now();
            e.send(go);
            let (best, _, before) = e.bestmove(PROMPT);
            assert!(sent.elapsed() < PROMPT);
            assert_eq!(best, "(none)", "{bad} then {go}");
            assert!(
                before
                    .iter()
                    .any(|l| l.starts_with("info string error: go: no position")),
                "{bad}: {before:?}"
            );
        }
        e.send("d");
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(
            line.starts_with("info string error: d: no position"),
            "{line}"
        );
        e.ready();
    }
    e.send(&format!("position fen {good}"));
    e.send("go depth 3");
    let (best, _, _) = e.bestmove(LONG);
    assert_legal(good, &best);
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}

#[test]
fn playable_but_imperfect_fens_are_repaired_and_said_so() {
    let mut e = Engine::start();
    for (given, repaired, what) in [
        (
            "r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1",
            "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1",
            "castling rights 'KQkq' reduced to 'Kq'",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "en passant square e3 cleared",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            START,
            "missing halfmove clock and fullmove number set to 0 1",
        ),
        (
            "rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - 0 1",
            "rk4r1/8/8/8/8/8/8/RK4R1 w - - 0 1",
            "Chess960 castling would keep more",
        ),
    ] {
        e.send(&format!("position fen {given}"));
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(line.starts_with("info string FEN repaired: "), "{line}");
        assert!(line.contains(what), "{given}: {line}");
        e.send("d");
        let (fen, _) = e.expect(|l| l.starts_with("Fen: "), PROMPT);
        assert_eq!(fen, format!("Fen: {repaired}"));
        e.send("go depth 4");
        let (best, _, _) = e.bestmove(LONG);
        assert_legal(repaired, &best);
    }
    // The rights that remain can be used; those dropped cannot.
    e.send("position fen r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1 moves e1g1 e8c8");
    e.send("d");
    let (fen, _) = e.expect(|l| l.starts_with("Fen: "), PROMPT);
    assert_eq!(fen, "Fen: 2kr4/8/8/8/8/8/8/5RK1 w - - 2 2");
    // Shredder-FEN under UCI_Chess960: only the rook still on g1's side is gone.
    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen 1r2k1r1/8/8/8/8/8/8/1R2K3 w GBgb - 0 1");
    let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
    assert!(line.contains("reduced to 'Qkq'"), "{line}");
    e.send("go depth 3");
    e.bestmove(LONG);
    // A flawless FEN gets no remark.
    e.send(&format!("position fen {START}"));
    e.assert_no(|l| l.starts_with("info string"), Duration::from_millis(200));
}

#[test]
fn go_without_a_position_still_answers_each_go_in_order() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1");
    e.send("go depth 1");
    // The running search ends with its own move, then the new `go` is refused.
    let (first, _, _) = e.bestmove(PROMPT);
    assert_legal(START, &first);
    let (second, _, _) = e.bestmove(PROMPT);
    assert_eq!(second, "(none)");
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}

#[test]
fn bad_options_and_go_fields_are_reported() {
    let mut e = Engine::start();
    for bad in [
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Move Overhead value 99999",
        "setoption name No Such Option value 1",
        "setoption value 3",
        "setoption name Ponder value maybe",
    ] {
        e.send(bad);
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(line.contains("error"), "{bad}: {line}");
    }
    for option in [
        "setoption name hash value 8",
        "setoption name HASH value 8",
        "setoption name clear hash",
        "setoption name move overhead value 10",
    ] {
        e.send(option);
        e.send("isready");
        let (_, before) = e.expect(|l| l == "readyok", PROMPT);
        assert!(before.is_empty(), "{option}: {before:?}");
    }
    e.send("position startpos");
    e.send("go depth nonsense");
    e.expect(|l| l.starts_with("info string error"), PROMPT);
    e.send("stop");
    e.bestmove(PROMPT);
    e.send("go wtime abc btime 1000");
    e.expect(|l| l.starts_with("info string error"), PROMPT);
    let (best, _, _) = e.bestmove(PROMPT);
    assert_legal(START, &best);
}

#[test]
fn analysis_options_are_accepted() {
    let mut e = Engine::start();
    for option in [
        "setoption name UCI_AnalyseMode value true",
        "setoption name MultiPV value 2",
        "setoption name uci_analysemode value FALSE",
    ] {
        e.send(option);
        e.send("isready");
        let (_, before) = e.expect(|l| l == "readyok", PROMPT);
        assert!(before.is_empty(), "{option}: {before:?}");
    }
    for bad in [
        "setoption name UCI_AnalyseMode value perhaps",
        "setoption name MultiPV value 0",
        "setoption name MultiPV value 257",
    ] {
        e.send(bad);
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(line.starts_with("info string error: "), "{bad}: {line}");
    }
}

#[test]
fn messy_whitespace_and_unknown_commands_are_tolerated() {
    let mut e = Engine::spawn();
    e.send_raw(b"  uci \r\n");
    e.expect(|l| l == "uciok", Duration::from_secs(5));
    e.send_raw(b"xboard\nprotover 2\nfoo bar\n\n\t\n");
    e.send_raw(b"position\tstartpos   moves  e2e4\t e7e5 \r\n");
    e.send_raw(b"\xff\xfe garbage\n");
    e.send_raw(b"isready\r\n");
    e.expect(|l| l == "readyok", PROMPT);
    e.send("d");
    let (line, _) = e.expect(|l| l.starts_with("Fen: "), PROMPT);
    assert_eq!(
        line,
        "Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

#[test]
fn long_move_lists_are_accepted() {
    let mut e = Engine::start();
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let moves: Vec<&str> = cycle.iter().copied().cycle().take(600).collect();
    assert_eq!(moves.len(), 600);
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    e.ready();
    e.send("go depth 4");
    let (best, _, _) = e.bestmove(LONG);
    assert_legal(START, &best);
}

#[test]
fn ponder_waits_for_ponderhit_then_plays_on_the_clock() {
    timed(|| {
        let mut e = Engine::start();
        e.send("setoption name Ponder value true");
        e.send("position startpos moves e2e4 e7e5");
        e.send("go ponder wtime 2000 btime 2000 winc 0 binc 0");
        e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(700));
        let sent = Instant::now();
        e.send("ponderhit");
        let (best, _, _) = e.bestmove(Duration::from_secs(3));
        let took = sent.elapsed();
        // The clock starts at ponderhit: the move takes at least the soft limit
        // and at most the hard limit of 2 s on the clock, counted from then. A
        // clock counted from `go ponder` (700 ms earlier) is past both at once.
        let budget = TimeBudget::new(
            go_limits("go wtime 2000 btime 2000").time_control(Color::White, 0),
            DEFAULT_OVERHEAD,
        );
        let (soft, hard) = (budget.soft.unwrap(), budget.hard.unwrap());
        assert!(
            took >= soft && took < hard + SCHEDULING_SLACK,
            "{took:?} after ponderhit, limits {soft:?} and {hard:?}"
        );
        let mut pos = position(START);
        common::play(&mut pos, "e2e4");
        common::play(&mut pos, "e7e5");
        assert!(best.parse::<UciMove>().unwrap().to_move(&pos).is_ok());

        // A ponder search that is stopped (the opponent played another move).
        e.send("go ponder wtime 2000 btime 2000");
        e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(300));
        e.send("stop");
        e.bestmove(PROMPT);
    });
}

#[test]
fn finished_infinite_search_waits_for_stop() {
    let mut e = Engine::start();
    // Mate in one is found at depth 1; the search still must not answer before stop.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    e.send("go infinite depth 2");
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(500));
    e.send("stop");
    assert_eq!(e.bestmove(PROMPT).0, "a1a8");
}

#[test]
fn info_lines_are_well_formed_and_ponder_move_is_legal() {
    let mut e = Engine::start();
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.send("go depth 6");
    let (best, ponder, infos) = e.bestmove(LONG);
    let depth_lines: Vec<&String> = infos
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(depth_lines.len(), 6);
    for line in depth_lines {
        for key in [
            "depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time",
        ] {
            assert!(
                field(line, key).is_some_and(|v| v.parse::<u64>().is_ok()),
                "{key} in {line}"
            );
        }
        let score = field(line, "score").unwrap();
        assert!(score == "cp" || score == "mate", "{line}");
        let pv = common::pv(line);
        assert!(!pv.is_empty(), "{line}");
        let mut pos = position(START);
        for m in ["d2d4", "d7d5", "c2c4"]
            .iter()
            .map(|s| s.to_string())
            .chain(pv)
        {
            common::play(&mut pos, &m);
        }
    }
    let mut pos = position(START);
    for m in ["d2d4", "d7d5", "c2c4", &best] {
        common::play(&mut pos, m);
    }
    if let Some(ponder) = ponder {
        common::play(&mut pos, &ponder);
    }
}

#[test]
fn same_search_gives_same_nodes_and_move() {
    let mut e = Engine::start();
    let mut runs = Vec::new();
    for _ in 0..2 {
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 c7c5 g1f3");
        e.send("go nodes 30000");
        let (best, _, infos) = e.bestmove(LONG);
        let last = common::last_score_line(&infos);
        runs.push((
            best,
            field(&last, "nodes").unwrap().to_string(),
            common::pv(&last),
        ));
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn end_of_input_quits() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    assert!(
        e.close_and_wait(Duration::from_secs(5)),
        "sessa kept running after EOF"
    );
}

#[test]
fn quit_during_search_exits() {
    timed(|| {
        let mut e = Engine::start();
        e.send("position startpos");
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        // Input stays open: `quit` alone must end the process.
        e.send("quit");
        let (took, success) = e
            .exit_within(Duration::from_secs(2))
            .expect("sessa kept running after quit");
        assert!(success, "exit status after quit");
        assert!(took < PROMPT, "quit took {took:?}");
    });
}

/// The engine's default `Move Overhead`.
const DEFAULT_OVERHEAD: Duration =
    Duration::from_millis(sessa_engine::engine::DEFAULT_MOVE_OVERHEAD_MS);

/// The clock fields of a `go` command, as the engine reads them.
fn go_limits(go: &str) -> Limits {
    let words: Vec<&str> = go.split_whitespace().collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|&w| w == key)
            .and_then(|i| words.get(i + 1))
            .map(|v| v.parse::<i64>().unwrap())
    };
    Limits {
        white_time: value("wtime"),
        black_time: value("btime"),
        white_increment: value("winc"),
        black_increment: value("binc"),
        moves_to_go: value("movestogo").map(|n| n as u32),
        move_time: value("movetime"),
        ..Limits::default()
    }
}

/// The hard limit the time manager promises for `go` with `turn` to move.
fn hard_limit(go: &str, turn: Color, delay_ms: u64, overhead: Duration) -> Duration {
    TimeBudget::new(go_limits(go).time_control(turn, delay_ms), overhead)
        .hard
        .unwrap()
}

#[test]
fn moves_keep_to_the_clock_with_threads_multipv_overhead_and_delay() {
    // Each move must arrive between the soft and the hard limit the time
    // manager promises for its clock and options, measured from the `go`
    // sent here, and never use up the clock.
    for (option, delay_ms, overhead_ms, go) in [
        (
            "MultiPV value 1",
            0,
            30,
            "go wtime 3000 btime 3000 winc 30 binc 30",
        ),
        (
            "MultiPV value 3",
            0,
            30,
            "go wtime 1500 btime 1500 movestogo 2",
        ),
        (
            "Move Overhead value 1500",
            0,
            1500,
            "go wtime 2000 btime 2000 movestogo 1",
        ),
        ("Clock Delay value 200", 200, 30, "go wtime 200 btime 5000"),
    ] {
        timed(|| {
            let mut e = Engine::start();
            e.send("setoption name Threads value 2");
            e.send(&format!("setoption name {option}"));
            e.ready();
            e.send("position startpos moves e2e4 c7c5");
            let budget = TimeBudget::new(
                go_limits(go).time_control(Color::White, delay_ms),
                Duration::from_millis(overhead_ms),
            );
            let (soft, hard) = (budget.soft.unwrap(), budget.hard.unwrap());
            let clock = Duration::from_millis(go_limits(go).white_time.unwrap() as u64 + delay_ms);
            let sent = Instant::now();
            e.send(go);
            let (best, _, _) = e.bestmove(Duration::from_secs(10));
            let took = sent.elapsed();
            assert!(
                took >= soft && took < hard + SCHEDULING_SLACK,
                "{option}, {go}: {took:?}, limits {soft:?} and {hard:?}"
            );
            assert!(took < clock, "{option}, {go}: {took:?} used up the clock");
            let mut pos = position(START);
            for m in ["e2e4", "c7c5", &best] {
                common::play(&mut pos, m);
            }
        });
    }
}

#[test]
fn bare_go_searches_until_stop() {
    let mut e = Engine::start();
    // Also where the search soon reaches its deepest iteration: a mate in
    // one, and a bare-kings draw.
    for (fen, expected) in [
        (START, None),
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", Some("a1a8")),
        ("8/8/8/8/8/4k3/8/4K3 w - - 0 1", None),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go");
        e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(700));
        e.send("stop");
        let (best, _, _) = e.bestmove(LONG);
        assert_legal(fen, &best);
        if let Some(expected) = expected {
            assert_eq!(best, expected);
        }
    }
}

#[test]
fn ponderhit_after_the_ponder_search_reached_its_limit_answers_at_once() {
    timed(|| {
        let mut e = Engine::start();
        e.send("setoption name Ponder value true");
        // A depth limit, and a mate limit found at once: the ponder search ends
        // and waits; no bestmove may come before ponderhit, then it comes at once.
        for (fen, go) in [
            (START, "go ponder depth 2 wtime 60000 btime 60000"),
            (
                "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
                "go ponder mate 1 wtime 60000 btime 60000",
            ),
        ] {
            e.send(&format!("position fen {fen}"));
            e.send(go);
            e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(500));
            let sent = Instant::now();
            e.send("ponderhit");
            let (best, _, _) = e.bestmove(PROMPT);
            assert!(
                sent.elapsed() < SCHEDULING_SLACK,
                "{go}: {:?}",
                sent.elapsed()
            );
            assert_legal(fen, &best);
            // The search is over: a late ponderhit or stop changes nothing.
            e.send("ponderhit");
            e.send("stop");
            e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
            e.ready();
        }
    });
}

#[test]
fn a_new_go_during_pondering_answers_both_in_order() {
    timed(|| {
        let mut e = Engine::start();
        e.send("setoption name Ponder value true");
        e.send("position startpos moves e2e4 e7e5");
        e.send("go ponder wtime 5000 btime 5000");
        e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(300));
        // The opponent played another move; the GUI sends no stop.
        e.send("position startpos moves e2e4 c7c5");
        let sent = Instant::now();
        e.send("go movetime 200");
        let (first, _, _) = e.bestmove(PROMPT);
        let mut pondered = position(START);
        common::play(&mut pondered, "e2e4");
        common::play(&mut pondered, "e7e5");
        common::play(&mut pondered, &first);
        let (second, _, _) = e.bestmove(PROMPT);
        assert!(
            sent.elapsed() < Duration::from_millis(200) + SCHEDULING_SLACK,
            "{:?}",
            sent.elapsed()
        );
        let mut played = position(START);
        for m in ["e2e4", "c7c5", &second] {
            common::play(&mut played, m);
        }
        e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
    });
}

#[test]
fn hash_set_during_a_search_ends_it_and_the_engine_plays_on() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("setoption name Hash value 32");
    // The search ends with a legal move before the table is resized.
    let (best, _, _) = e.bestmove(Duration::from_secs(2));
    assert_legal(START, &best);
    e.send("isready");
    let (_, before) = e.expect(|l| l == "readyok", Duration::from_secs(5));
    assert!(before.is_empty(), "{before:?}");
    e.send("go depth 6");
    let (best, _, infos) = e.bestmove(Duration::from_secs(10));
    assert_legal(START, &best);
    assert!(!infos.iter().any(|l| l.contains("error")), "{infos:?}");
}

#[test]
fn searchmoves_reports_illegal_moves_and_keeps_the_legal_ones() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 4 searchmoves a2a3 e7e5 zz99");
    let (best, _, before) = e.bestmove(Duration::from_secs(10));
    let errors: Vec<&String> = before
        .iter()
        .filter(|l| l.starts_with("info string error: searchmoves"))
        .collect();
    assert_eq!(errors.len(), 2, "{before:?}");
    assert!(
        errors[0].contains("e7e5") && errors[1].contains("zz99"),
        "{errors:?}"
    );
    assert_eq!(best, "a2a3");
    // Only illegal moves: all moves are searched.
    e.send("go depth 4 searchmoves e2e5");
    let (best, _, before) = e.bestmove(Duration::from_secs(10));
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("info string error: searchmoves") && l.contains("e2e5")),
        "{before:?}"
    );
    assert_legal(START, &best);
}

#[test]
fn chess960_castling_is_written_king_takes_rook() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Chess960 value true");
    // Castling in the move list: b1a1 is White's queen-side castling,
    // b8h8 Black's king-side castling.
    let fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1";
    e.send(&format!("position fen {fen} moves b1a1 b8h8"));
    e.send("d");
    let (line, _) = e.expect(|l| l.starts_with("Fen: "), LONG);
    assert_eq!(line, "Fen: r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2");
    // The engine's castling moves, in bestmove and in the pv.
    for (fen, castling) in [
        (fen, "b1a1"),
        (fen, "b1h1"),
        ("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R b HAha - 0 1", "b8h8"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
            "e1h1",
        ),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send(&format!("go depth 4 searchmoves {castling}"));
        let (best, ponder, infos) = e.bestmove(Duration::from_secs(10));
        assert_eq!(best, castling, "{fen}");
        let last = common::last_score_line(&infos);
        assert_eq!(common::pv(&last)[0], castling, "{last}");
        let mut pos = common::position_in(fen, CastlingMode::Chess960);
        for m in common::pv(&last) {
            common::play(&mut pos, &m);
        }
        if let Some(ponder) = ponder {
            let mut pos = common::position_in(fen, CastlingMode::Chess960);
            common::play(&mut pos, &best);
            common::play(&mut pos, &ponder);
        }
    }
    // A free search where castling is good: every move of every line is
    // legal under Chess960 rules and castling is written king-takes-rook.
    let fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 6");
    let (best, _, infos) = e.bestmove(Duration::from_secs(20));
    assert_legal_in(fen, &best, CastlingMode::Chess960);
    for line in infos.iter().filter(|l| l.contains(" pv ")) {
        let mut pos = common::position_in(fen, CastlingMode::Chess960);
        for m in common::pv(line) {
            common::play(&mut pos, &m);
        }
    }
}

#[test]
fn uci_bench_perft_and_debug_commands() {
    let mut e = Engine::start();
    // bench: one line, `<nodes> nodes <nps> nps`, the same nodes each time.
    let mut counts = Vec::new();
    for _ in 0..2 {
        e.send("bench 3");
        let (line, _) = e.expect(|l| l.ends_with(" nps"), Duration::from_secs(60));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.len(), 4, "{line}");
        assert_eq!((words[1], words[3]), ("nodes", "nps"), "{line}");
        let nodes: u64 = words[0].parse().unwrap();
        words[2].parse::<u64>().unwrap();
        assert!(nodes > 1000, "{line}");
        counts.push(nodes);
    }
    assert_eq!(counts[0], counts[1]);
    // perft: one line per root move, then the total.
    e.send("position startpos");
    e.send("perft 3");
    let (total, moves) = e.expect(|l| l.starts_with("Nodes searched: "), LONG);
    assert_eq!(total, "Nodes searched: 8902");
    let split: Vec<&String> = moves.iter().filter(|l| l.contains(": ")).collect();
    assert_eq!(split.len(), 20, "{moves:?}");
    let sum: u64 = split
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 8902);
    // debug on: unknown commands and go limits are reported; off: silence.
    e.send("debug on");
    e.send("frobnicate");
    let (line, _) = e.expect(|l| l.starts_with("info string"), LONG);
    assert!(line.contains("frobnicate"), "{line}");
    e.send("go depth 2");
    let (_, _, before) = e.bestmove(LONG);
    assert!(
        before.iter().any(|l| l.starts_with("info string go ")),
        "{before:?}"
    );
    e.send("debug off");
    e.send("frobnicate");
    e.send("isready");
    let (_, before) = e.expect(|l| l == "readyok", LONG);
    assert!(before.is_empty(), "{before:?}");
}

#[test]
fn sessa_bench_ends_with_the_openbench_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(["bench", "--depth", "3"])
        .output()
        .expect("running sessa bench");
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last = stdout.lines().last().expect("output");
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"), "{last}");
    let nodes: u64 = words[0].parse().unwrap();
    words[2].parse::<u64>().unwrap();
    // The same search as the UCI `bench 3` of one thread.
    let mut e = Engine::start();
    e.send("bench 3");
    let (line, _) = e.expect(|l| l.ends_with(" nps"), Duration::from_secs(60));
    assert_eq!(
        line.split_whitespace().next(),
        Some(nodes.to_string().as_str())
    );
}

#[test]
fn sessa_bench_searches_with_another_network_file_or_refuses_it() {
    let dir = std::env::temp_dir().join(format!("sessa-bench-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bench = |net: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_sessa"))
            .args(["bench", "--depth", "3", "--net"])
            .arg(net)
            .output()
            .expect("running sessa bench --net")
    };
    let last_line = |output: &std::process::Output| {
        let stdout = String::from_utf8(output.stdout.clone()).unwrap();
        stdout.lines().last().unwrap_or_default().to_string()
    };
    let built_in = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(["bench", "--depth", "3"])
        .output()
        .unwrap();
    let nodes = |line: &str| line.split_whitespace().next().map(str::to_string);
    // The built-in network's own file: the same search.
    let same = dir.join("same.nnue");
    std::fs::write(&same, sessa_engine::nnue::Network::embedded().to_bytes()).unwrap();
    let output = bench(&same);
    assert!(output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("network sessa-"),
        "{output:?}"
    );
    assert_eq!(nodes(&last_line(&output)), nodes(&last_line(&built_in)));
    // Another network (the output biases moved): another search.
    let mut shifted = (*sessa_engine::nnue::Network::embedded()).clone();
    let sessa_engine::nnue::Weights::Hidden256(layers) = &mut shifted.weights else {
        panic!("the built-in network is 256 wide");
    };
    for bias in layers.output_bias.iter_mut() {
        *bias += 40 * 255 * 64 / 400;
    }
    let other = dir.join("other.nnue");
    std::fs::write(&other, shifted.to_bytes()).unwrap();
    let output = bench(&other);
    assert!(output.status.success());
    assert_ne!(nodes(&last_line(&output)), nodes(&last_line(&built_in)));
    // A file that is no network: an error exit that names it.
    let broken = dir.join("broken.nnue");
    std::fs::write(&broken, b"not a network").unwrap();
    let output = bench(&broken);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("broken.nnue"),
        "{output:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_stdout_ends_the_engine_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting sessa");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // Input stays open: only the failed writes may end the process.
    writeln!(stdin, "uci\nisready\nposition startpos\ngo depth 20").unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "sessa kept running"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    drop(stdin);
}
