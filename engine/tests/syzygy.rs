//! Syzygy tablebases in the engine, with the shared 3- and 4-piece tables:
//! loading, the root moves that keep the result (also near the 50-move
//! limit and after a repetition), a won KBNvK mated against the tablebase's
//! best defence within the 50-move rule, the probes below the root and the
//! `Syzygy50MoveRule` and `SyzygyProbeLimit` settings. Every test is skipped
//! (see `common::shared_data`) when the tables are not there.

mod common;

use common::{repo_root, shared_data};
use crossbeam::channel::unbounded;
use sessa_engine::draw::{GameState, game_state};
use sessa_engine::score::TB_WIN;
use sessa_engine::syzygy::{TablebaseOptions, Tablebases};
use sessa_engine::{Board, Engine, Limits, ReportedScore, SearchEvent, SearchInfo};
use shakmaty::{CastlingMode, Chess};
use shakmaty_syzygy::{Tablebase, Wdl};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The shared tables, or `None` (the test is skipped) when they are absent.
fn tables_folder() -> Option<PathBuf> {
    shared_data("syzygy", "KBNvK.rtbz")
}

/// The tables as the tests read them, apart from the engine's.
fn reference(folder: &Path) -> Tablebase<Chess> {
    let mut tables = Tablebase::new();
    tables.add_directory(folder).unwrap();
    tables
}

fn engine_with_tables(folder: &Path) -> Engine {
    let mut engine = Engine::new();
    let tables = Tablebases::open(folder.to_str().unwrap()).unwrap();
    engine.tablebase_options_mut().tables = Some(Arc::new(tables));
    engine
}

fn board(fen: &str) -> Board {
    Board::from_fen(fen, CastlingMode::Standard).unwrap()
}

/// Searches the engine's position; returns the move and the last report.
fn search(engine: &mut Engine, board: &Board, limits: &Limits) -> (String, SearchInfo) {
    engine.set_position(board.clone());
    let (events, reports) = unbounded();
    engine.go(limits, events);
    let mut last = None;
    for event in reports.iter() {
        match event {
            SearchEvent::Info(info) => last = Some(info),
            SearchEvent::BestMove { best, .. } => {
                engine.wait();
                return (best.expect("a legal move"), last.expect("a report"));
            }
            SearchEvent::Failure(message) => panic!("the search failed: {message}"),
            SearchEvent::CurrentMove { .. } => {}
        }
    }
    unreachable!("every search ends with a best move")
}

fn depth(plies: u32) -> Limits {
    Limits {
        depth: Some(plies),
        ..Limits::default()
    }
}

/// The WDL for the side that just moved, after `text` from `board`.
fn result_after(tables: &Tablebase<Chess>, board: &Board, text: &str) -> Wdl {
    let mut after = board.clone();
    after.play_uci(text).unwrap();
    -tables.probe_wdl_after_zeroing(after.position()).unwrap()
}

#[test]
fn loading_counts_the_tables_and_reports_bad_folders() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let path = folder.to_str().unwrap();
    let tables = Tablebases::open(path).unwrap();
    assert_eq!((tables.wdl_files(), tables.dtz_files()), (35, 35));
    assert_eq!(tables.max_pieces(), 4);
    assert!(tables.problems().is_empty());
    let missing = "/no/such/folder";
    let error = Tablebases::open(missing).unwrap_err();
    assert!(error.to_string().contains(missing), "{error}");
    let mixed = Tablebases::open(&format!("{missing}:{path}")).unwrap();
    assert_eq!(mixed.wdl_files(), 35);
    assert_eq!(mixed.problems().len(), 1, "{:?}", mixed.problems());
    // A folder without tables.
    assert!(Tablebases::open(repo_root().to_str().unwrap()).is_err());
}

#[test]
fn root_moves_keep_the_result() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let tables = reference(&folder);
    let mut engine = engine_with_tables(&folder);
    for (fen, kept) in [
        // KQvKR: only Qxh1 keeps the win.
        ("8/8/8/8/3k4/8/8/KQ5r w - - 0 1", Wdl::Win),
        // KQvKR: Qa2 draws, Qc2 loses, the other moves win.
        ("8/8/2k5/8/8/8/1r6/KQ6 w - - 0 1", Wdl::Win),
        // KRvK: Rb7 is stalemate.
        ("k7/2K5/8/8/8/8/8/1R6 w - - 0 1", Wdl::Win),
        // KRvKB in check: only Kd8 and Kd7 hold the draw.
        ("4k3/8/8/8/8/5b2/8/K3R3 b - - 0 1", Wdl::Draw),
        // KRvKB: three bishop moves lose.
        ("8/8/8/8/8/1k6/2b5/K3R3 b - - 0 1", Wdl::Draw),
    ] {
        let board = board(fen);
        for plies in [1, 4] {
            let (best, info) = search(&mut engine, &board, &depth(plies));
            assert_eq!(result_after(&tables, &board, &best), kept, "{fen}: {best}");
            let expected = match kept {
                Wdl::Win => ReportedScore::Centipawns(TB_WIN - 1),
                _ => ReportedScore::Centipawns(0),
            };
            if !matches!(info.score, ReportedScore::Mate(_)) {
                assert_eq!(info.score, expected, "{fen}: {info:?}");
            }
        }
    }
}

#[test]
fn a_won_kbnk_is_mated_within_fifty_moves_against_the_best_defence() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let tables = reference(&folder);
    let mut engine = engine_with_tables(&folder);
    // Mate in 33 with best play: about the longest KBNvK there is. From a
    // move counter of 30 the engine has five plies to spare.
    for fen in [
        "8/8/7N/8/8/8/8/K1k1B3 w - - 0 1",
        "8/8/7N/8/8/8/8/K1k1B3 w - - 30 1",
    ] {
        let mut game = board(fen);
        loop {
            let (best, _) = search(&mut engine, &game, &depth(5));
            game.play_uci(&best).unwrap();
            match game_state(&game) {
                GameState::Checkmate => break,
                GameState::Ongoing => {}
                state => panic!("{fen}: {state:?} after {best} in {}", game.fen()),
            }
            let (defence, _) = tables
                .best_move(game.position())
                .unwrap()
                .expect("the defender has a move");
            game.play_game_move(defence);
            assert_eq!(game_state(&game), GameState::Ongoing, "{}", game.fen());
        }
        assert!(game.halfmove_clock() < 100, "{}", game.fen());
    }
}

/// The distance to zeroing left after `text` from `game`.
fn plies_left_after(tables: &Tablebase<Chess>, game: &Board, text: &str) -> i32 {
    let mut after = game.clone();
    after.play_uci(text).unwrap();
    -tables
        .probe_dtz(after.position())
        .unwrap()
        .ignore_rounding()
        .0
}

/// The distances to zeroing left after each root move the tables rank
/// best from `game`, and after the engine's move.
fn best_ranked_and_played(folder: &Path, game: &Board) -> (Vec<i32>, i32) {
    let tables = reference(folder);
    let options = TablebaseOptions {
        tables: Some(Arc::new(
            Tablebases::open(folder.to_str().unwrap()).unwrap(),
        )),
        ..TablebaseOptions::default()
    };
    let ranks = options.plan(game).root;
    let top = ranks.iter().map(|r| r.rank).max().unwrap();
    let best_ranked = ranks
        .iter()
        .filter(|r| r.rank == top)
        .map(|r| plies_left_after(&tables, game, &game.move_to_uci(r.mv)))
        .collect();
    let (played, _) = search(&mut engine_with_tables(folder), game, &depth(6));
    (best_ranked, plies_left_after(&tables, game, &played))
}

#[test]
fn near_the_fifty_move_limit_only_fast_wins_are_played() {
    let Some(folder) = tables_folder() else {
        return;
    };
    // KBNvK, 40 plies to mate at best. With 32 plies on the counter some
    // moves that take 46 still rank with the fastest; with 56 only moves
    // that mate within the 43 plies left do.
    let fen = "8/4N3/8/4B3/8/5K2/8/6k1 w - - 32 17";
    let (early, _) = best_ranked_and_played(&folder, &board(fen));
    assert!(early.contains(&45), "{early:?}");
    let late = board(&fen.replace(" 32 17", " 56 17"));
    let (best_ranked, played) = best_ranked_and_played(&folder, &late);
    assert!(best_ranked.iter().all(|&left| left < 43), "{best_ranked:?}");
    assert!(best_ranked.contains(&played), "{played} {best_ranked:?}");
}

#[test]
fn after_a_repetition_the_win_makes_progress() {
    let Some(folder) = tables_folder() else {
        return;
    };
    // KRvK, 25 plies to mate at best, and many moves keep the win. After the
    // kings shuffle back and forth only the fastest moves rank best.
    let fen = "8/4R3/8/3k4/1K6/8/8/8 w - - 10 6";
    let (fresh, _) = best_ranked_and_played(&folder, &board(fen));
    assert!(fresh.iter().any(|&left| left > 24), "{fresh:?}");
    let mut game = board(fen);
    for mv in ["b4a4", "d5d6", "a4b4", "d6d5"] {
        game.play_uci(mv).unwrap();
    }
    assert!(game.has_repeated());
    let (best_ranked, played) = best_ranked_and_played(&folder, &game);
    assert!(
        best_ranked.iter().all(|&left| left == 24),
        "{best_ranked:?}"
    );
    assert_eq!(played, 24);
}

#[test]
fn the_fifty_move_rule_option_decides_whether_a_late_win_is_a_win() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let mut engine = engine_with_tables(&folder);
    // 64 plies to mate, 60 on the counter: the 50-move rule comes first.
    let late = board("8/8/7N/8/8/8/8/K1k1B3 w - - 60 1");
    let (_, info) = search(&mut engine, &late, &depth(4));
    let ReportedScore::Centipawns(cp) = info.score else {
        panic!("{info:?}")
    };
    assert!((1..50).contains(&cp), "{info:?}");
    engine.tablebase_options_mut().fifty_move_rule = false;
    let (_, info) = search(&mut engine, &late, &depth(4));
    assert_eq!(info.score, ReportedScore::Centipawns(TB_WIN - 1));
}

#[test]
fn the_search_probes_after_captures_and_counts_its_hits() {
    let Some(folder) = tables_folder() else {
        return;
    };
    // Five pieces: the root is not in the tables, but every capture is.
    let fen = "8/8/4k3/8/2r5/8/1P6/KQ6 w - - 0 1";
    let mut engine = engine_with_tables(&folder);
    let (_, info) = search(&mut engine, &board(fen), &depth(8));
    assert!(info.tbhits > 0, "{info:?}");
    engine.tablebase_options_mut().probe_depth = 100;
    let (_, info) = search(&mut engine, &board(fen), &depth(8));
    assert_eq!(info.tbhits, 0, "{info:?}");
    engine.tablebase_options_mut().probe_depth = 1;
    engine.tablebase_options_mut().probe_limit = 0;
    let (_, info) = search(&mut engine, &board(fen), &depth(8));
    assert_eq!(info.tbhits, 0, "{info:?}");
    let (_, info) = search(&mut Engine::new(), &board(fen), &depth(8));
    assert_eq!(info.tbhits, 0, "{info:?}");
}

#[test]
fn a_capture_into_a_won_ending_scores_as_a_tablebase_win() {
    let Some(folder) = tables_folder() else {
        return;
    };
    // Five pieces; Qxh1 leaves KQvKP, which the tables call won.
    let fen = "8/8/8/8/3k4/6p1/8/KQ5r w - - 0 1";
    let mut engine = engine_with_tables(&folder);
    let (best, info) = search(&mut engine, &board(fen), &depth(6));
    assert_eq!(best, "b1h1");
    let ReportedScore::Centipawns(cp) = info.score else {
        panic!("{info:?}")
    };
    assert!(cp > TB_WIN - 128 && cp < TB_WIN, "{info:?}");
}

#[test]
fn wdl_tables_alone_still_keep_the_result() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let wdl_only = std::env::temp_dir().join(format!("sessa-wdl-only-{}", std::process::id()));
    std::fs::create_dir_all(&wdl_only).unwrap();
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rtbw") {
            std::fs::copy(&path, wdl_only.join(path.file_name().unwrap())).unwrap();
        }
    }
    let tables = reference(&folder);
    let mut engine = engine_with_tables(&wdl_only);
    let options = TablebaseOptions {
        tables: Some(Arc::new(
            Tablebases::open(wdl_only.to_str().unwrap()).unwrap(),
        )),
        ..TablebaseOptions::default()
    };
    for (fen, kept) in [
        ("8/8/2k5/8/8/8/1r6/KQ6 w - - 0 1", Wdl::Win),
        ("4k3/8/8/8/8/5b2/8/K3R3 b - - 0 1", Wdl::Draw),
    ] {
        let board = board(fen);
        // Ranked by WDL, every move that keeps the result ranks first; the
        // search probes on below the root only to find the way to a win.
        let plan = options.plan(&board);
        let top = plan.root.iter().map(|r| r.rank).max().unwrap();
        for rank in &plan.root {
            let keeps = result_after(&tables, &board, &board.move_to_uci(rank.mv)) == kept;
            assert_eq!(rank.rank == top, keeps, "{fen}: {rank:?}");
        }
        assert_eq!(plan.probe.is_some(), kept == Wdl::Win, "{fen}");
        let (best, _) = search(&mut engine, &board, &depth(4));
        assert_eq!(result_after(&tables, &board, &best), kept, "{fen}: {best}");
    }
    std::fs::remove_dir_all(&wdl_only).unwrap();
}
