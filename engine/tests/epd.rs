//! Reading EPD: the operations Sessa understands, the lines it must refuse
//! (without giving up on the rest of the file), every line of the project's
//! suites and, when present, of the shared public suites. Then the rules
//! suite: the state of every position by the Laws of Chess and, where it
//! gives one, the score or move a fixed-depth search must find.

use crossbeam::channel::unbounded;
use sessa_engine::draw::{GameState, game_state};
use sessa_engine::epd::{DistanceToMate, EpdError, EpdFile, EpdRecord, parse_record};
use sessa_engine::{Engine, Limits, ReportedScore, SearchEvent};
use shakmaty::Move;
mod common;

use common::{repo_root, shared_data};
use std::path::{Path, PathBuf};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

fn record(line: &str) -> EpdRecord {
    parse_record(line, 1)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .unwrap_or_else(|| panic!("{line}: no record"))
}

fn uci(record: &EpdRecord, moves: &[Move]) -> Vec<String> {
    moves.iter().map(|&m| record.board.move_to_uci(m)).collect()
}

fn parse_move(record: &EpdRecord, text: &str) -> Move {
    record.board.parse_uci_move(text).unwrap()
}

#[test]
fn san_and_uci_moves_mean_the_same() {
    let r = record(&format!("{START} bm e4 Nf3 g1h3 b1c3; am d4 f2f3;"));
    assert_eq!(uci(&r, &r.best_moves), ["e2e4", "g1f3", "g1h3", "b1c3"]);
    assert_eq!(uci(&r, &r.avoid_moves), ["d2d4", "f2f3"]);
    let castle = record("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm O-O 0-0-0 e1g1;");
    assert_eq!(uci(&castle, &castle.best_moves), ["e1g1", "e1c1", "e1g1"]);
    let annotated = record("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#!; am h3?!;");
    assert_eq!(uci(&annotated, &annotated.best_moves), ["a1a8"]);
    assert_eq!(uci(&annotated, &annotated.avoid_moves), ["h2h3"]);
}

#[test]
fn id_and_quoted_operands() {
    let r = record(&format!(
        r#"{START} id "semi; colon"; c0 "comment, with = signs"; bm e4;"#
    ));
    assert_eq!(r.id.as_deref(), Some("semi; colon"));
    assert!(r.points.is_empty(), "a c0 comment is not STS scoring");
    assert_eq!(r.operation("c0").unwrap().text(), "comment, with = signs");
    assert_eq!(r.operations.len(), 3);
    // The last operation may lack its semicolon.
    assert_eq!(record(&format!("{START} bm e4")).best_moves.len(), 1);
}

#[test]
fn sts_points() {
    let r = record(&format!(
        r#"{START} bm e4; c0 "e4=10, d4=8, Nf3=7, c4=5"; id "STS-like";"#
    ));
    assert_eq!(r.max_points(), Some(10));
    assert_eq!(r.points_for(parse_move(&r, "d2d4")), 8);
    assert_eq!(r.points_for(parse_move(&r, "a2a3")), 0);
    // Without bm, the move with the most points solves.
    let points_only = record(&format!(r#"{START} c0 "d4=10, e4=9";"#));
    assert!(points_only.is_solved(Some(parse_move(&points_only, "d2d4")), None));
    assert!(!points_only.is_solved(Some(parse_move(&points_only, "e2e4")), None));
    // A promotion written with its `=` still scores.
    let promotion = record(r#"8/P6k/8/8/8/8/8/K7 w - - c0 "a8=Q=10, a8=N=2";"#);
    assert_eq!(promotion.points_for(parse_move(&promotion, "a7a8n")), 2);
}

#[test]
fn mate_targets() {
    let r = record("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm #1;");
    assert_eq!(r.mate, Some(DistanceToMate::Mates(1)));
    assert!(r.best_moves.is_empty());
    let mated = record("6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - bm #-2;");
    assert_eq!(mated.mate, Some(DistanceToMate::Mated(2)));
    let direct = record("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - dm 1; bm Ra8#;");
    assert_eq!(direct.mate, Some(DistanceToMate::Mates(1)));
    let draw = record("8/8/4k3/8/8/3K4/8/8 w - - dm 0;");
    assert_eq!(draw.mate, Some(DistanceToMate::Draw));
    assert_eq!(mated.mate.unwrap().to_string(), "-2");
    assert_eq!(draw.mate.unwrap().to_string(), "0");
}

#[test]
fn judging_answers() {
    let r = record("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - dm 1; bm Ra8#; am h3;");
    let best = parse_move(&r, "a1a8");
    let other = parse_move(&r, "g2g3");
    let avoided = parse_move(&r, "h2h3");
    assert!(r.is_solved(Some(best), Some(ReportedScore::Centipawns(20))));
    assert!(r.is_solved(Some(other), Some(ReportedScore::Mate(1))));
    assert!(!r.is_solved(Some(other), Some(ReportedScore::Mate(2))));
    assert!(!r.is_solved(Some(avoided), Some(ReportedScore::Mate(1))));
    assert!(!r.is_solved(None, None));

    let avoid_only = record(&format!("{START} am f3 g4;"));
    assert!(avoid_only.is_solved(Some(parse_move(&avoid_only, "e2e4")), None));
    assert!(!avoid_only.is_solved(Some(parse_move(&avoid_only, "g2g4")), None));

    let no_target = record(&format!("{START} id \"nothing to find\";"));
    assert!(!no_target.has_target());
    assert!(!no_target.is_solved(Some(parse_move(&no_target, "e2e4")), None));
}

#[test]
fn counters_history_and_chess960() {
    let r = record(&format!("{START} 12 40 ;D1 20"));
    assert_eq!(r.board.halfmove_clock(), 12);
    assert_eq!(r.operation("D1").unwrap().operands, ["20"]);
    let from_ops = record(&format!("{START} hmvc 7; fmvn 3; bm e4;"));
    assert!(from_ops.board.fen().ends_with(" 7 3"));

    let history = record(&format!(r#"{START} moves "Nf3 g8f6 f3g1 Ng8"; bm e4;"#));
    assert_eq!(history.board.repetitions(), 1);
    assert_eq!(history.board.fen(), format!("{START} 4 3"));

    let chess960 = record("4k3/8/8/8/8/8/8/qR1K4 w B - bm Kc2;");
    assert_eq!(
        chess960.board.castling_mode(),
        shakmaty::CastlingMode::Chess960
    );
}

#[test]
fn playable_flaws_are_repaired_and_recorded() {
    let r = record("r3k3/8/8/8/8/8/8/4K2R w KQkq e3 bm O-O;");
    assert_eq!(r.board.fen(), "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
    assert_eq!(r.repairs.len(), 2, "{:?}", r.repairs);
    assert_eq!(uci(&r, &r.best_moves), ["e1g1"]);
    // A Chess960 start with X-FEN rights is read the Chess960 way, unrepaired.
    let chess960 = record("rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - bm Kc1;");
    assert!(chess960.repairs.is_empty(), "{:?}", chess960.repairs);
    assert_eq!(
        chess960.board.castling_mode(),
        shakmaty::CastlingMode::Chess960
    );
    assert!(record(&format!("{START} bm e4;")).repairs.is_empty());
}

#[test]
fn bad_lines_are_reported_and_skipped() {
    let text = [
        "# a comment",
        "",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"good 1\";\r",
        "rnbqkbnr/pppppppp/8/8 w KQkq",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - bm e4;",
        "8/8/8/8/8/8/8/8 w - - bm e4;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Zz9;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"open",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - dm three;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - \"id\" x;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - moves \"e2e4 e2e4\";",
        "k7/8/8/8/8/8/K7/R6R w - - bm Rd1;",
        "  ",
        "4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"good 2\";",
    ]
    .join("\n");
    let file = EpdFile::parse(&text);
    let ids: Vec<_> = file.records.iter().map(|r| r.id.clone().unwrap()).collect();
    assert_eq!(ids, ["good 1", "good 2"]);
    assert_eq!(file.records[0].line, 3);
    assert_eq!(file.records[1].line, 17);
    let lines: Vec<usize> = file.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, (4..=15).collect::<Vec<_>>());
    assert_eq!(file.errors[0].error, EpdError::MissingFields);
    assert!(matches!(file.errors[1].error, EpdError::BadPosition(_)));
    assert!(matches!(file.errors[2].error, EpdError::BadPosition(_)));
    assert!(
        matches!(&file.errors[3].error, EpdError::BadMove { reason, .. } if reason == "illegal")
    );
    assert!(
        matches!(&file.errors[4].error, EpdError::BadMove { reason, .. } if reason == "unreadable")
    );
    assert_eq!(file.errors[5].error, EpdError::UnterminatedString);
    assert!(matches!(file.errors[6].error, EpdError::BadNumber { .. }));
    assert_eq!(file.errors[7].error, EpdError::MissingOperand("bm".into()));
    assert!(matches!(file.errors[8].error, EpdError::BadOpcode(_)));
    assert!(matches!(file.errors[9].error, EpdError::BadNumber { .. }));
    assert!(
        matches!(&file.errors[10].error, EpdError::BadMove { opcode, .. } if opcode == "moves")
    );
    assert!(
        matches!(&file.errors[11].error, EpdError::BadMove { reason, .. } if reason == "ambiguous")
    );
    assert_eq!(
        file.errors[0].to_string(),
        "line 4: fewer than four FEN fields"
    );
}

/// Tells whether an EPD error is of the kind a test expects.
type ErrorKind = fn(&EpdError) -> bool;

#[test]
fn odd_input_is_refused_or_read_without_panicking() {
    let refused: [(&str, ErrorKind); 9] = [
        ("\u{feff}", |e| matches!(e, EpdError::MissingFields)),
        (";;;", |e| matches!(e, EpdError::MissingFields)),
        ("\"\"\"", |e| matches!(e, EpdError::MissingFields)),
        ("a b c d", |e| matches!(e, EpdError::BadPosition(_))),
        ("k7/8/8/8/8/8/8/K7 w - - 99999999999 1", |e| {
            matches!(e, EpdError::BadNumber { .. })
        }),
        ("k7/8/8/8/8/8/8/K7 w - - bm #", |e| {
            matches!(e, EpdError::BadNumber { .. })
        }),
        ("k7/8/8/8/8/8/8/K7 w - - bm #99999999999999999999", |e| {
            matches!(e, EpdError::BadNumber { .. })
        }),
        ("k7/8/8/8/8/8/8/K7 w - - bm Ka2é", |e| {
            matches!(e, EpdError::BadMove { .. })
        }),
        ("k7/8/8/8/8/8/8/K7 w - - é \"ü\"", |e| {
            matches!(e, EpdError::BadOpcode(_))
        }),
    ];
    for (line, expected) in refused {
        match parse_record(line, 1) {
            Err(e) => assert!(expected(&e), "{line:?}: {e:?}"),
            Ok(record) => panic!("{line:?} accepted: {record:?}"),
        }
    }
    // Odd but readable: empty operations, comments with EPD punctuation,
    // an extreme mate distance and an empty move list.
    for line in [
        "k7/8/8/8/8/8/8/K7 w - - ;;; ; ;",
        "k7/8/8/8/8/8/8/K7 w - - dm -9223372036854775808",
        "k7/8/8/8/8/8/8/K7 w - - c0 \"=,=\"",
        "k7/8/8/8/8/8/8/K7 w - - c0 \"Kb2=\"",
        "k7/8/8/8/8/8/8/K7 w - - moves \"\"",
    ] {
        let record = parse_record(line, 1);
        assert!(matches!(record, Ok(Some(_))), "{line:?}: {record:?}");
    }
    let file = EpdFile::parse("\u{feff}k7/8/8/8/8/8/8/K7 w - - bm Kb2;\r\n\r\n");
    assert_eq!((file.records.len(), file.errors.len()), (1, 0));
}

/// Parses a suite and returns its records, failing on any invalid line.
fn parse_suite(path: &Path) -> Vec<EpdRecord> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = EpdFile::parse(&text);
    assert!(
        file.errors.is_empty(),
        "{}: {:?}",
        path.display(),
        file.errors
    );
    let lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(file.records.len(), lines, "{}", path.display());
    file.records
}

fn epd_files_in(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "epd"))
        .collect();
    files.sort();
    files
}

#[test]
fn project_suites_parse() {
    let files = epd_files_in(&repo_root().join("testsuites"));
    assert!(files.len() >= 3, "{files:?}");
    for path in files {
        let records = parse_suite(&path);
        assert!(!records.is_empty(), "{}", path.display());
    }
    let mates = parse_suite(&repo_root().join("testsuites/mates.epd"));
    assert!(
        mates
            .iter()
            .all(|r| matches!(r.mate, Some(DistanceToMate::Mates(1..=5))))
    );
}

#[test]
fn shared_suites_parse_when_present() {
    let Some(folder) = shared_data("testsuites", "perftsuite.epd") else {
        return;
    };
    let mut total = 0;
    for path in epd_files_in(&folder) {
        let records = parse_suite(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let with_target = records.iter().filter(|r| r.has_target()).count();
        if name != "perftsuite.epd" {
            assert_eq!(with_target, records.len(), "{name}: records without target");
        }
        total += records.len();
    }
    assert!(total > 2500, "only {total} records");
}

/// The name `state` operations use for a game state.
fn state_name(state: GameState) -> &'static str {
    match state {
        GameState::Ongoing => "ongoing",
        GameState::Checkmate => "checkmate",
        GameState::Stalemate => "stalemate",
        GameState::DeadPosition => "dead",
        GameState::FivefoldRepetition => "fivefold",
        GameState::SeventyFiveMoveRule => "seventy-five",
        GameState::ThreefoldRepetition => "threefold",
        GameState::FiftyMoveRule => "fifty",
    }
}

/// Searches `record` to `depth`; returns the move played and the last score.
fn search(
    engine: &mut Engine,
    record: &EpdRecord,
    depth: u32,
) -> (Option<Move>, Option<ReportedScore>) {
    engine.new_game();
    engine.set_position(record.board.clone());
    let (events, reports) = unbounded();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.go(&limits, events);
    let mut score = None;
    let mut best = None;
    for event in reports.iter() {
        match event {
            SearchEvent::Info(info) => score = Some(info.score),
            SearchEvent::BestMove { best: text, .. } => {
                best = text.and_then(|t| record.board.parse_uci_move(&t).ok());
                break;
            }
            SearchEvent::Failure(message) => panic!("the search failed: {message}"),
            SearchEvent::CurrentMove { .. } => {}
        }
    }
    engine.wait();
    (best, score)
}

#[test]
fn rules_suite() {
    let records = parse_suite(&repo_root().join("testsuites/rules.epd"));
    assert!(records.len() >= 20);
    let mut engine = Engine::new();
    for record in &records {
        let id = record.id.as_deref().unwrap_or("?");
        let expected = record
            .operation("state")
            .unwrap_or_else(|| panic!("{id}: no state"))
            .text();
        assert_eq!(state_name(game_state(&record.board)), expected, "{id}");
        if record.has_target() {
            let (best, score) = search(&mut engine, record, 6);
            assert!(
                record.is_solved(best, score),
                "{id}: played {:?} with score {score:?}",
                best.map(|m| record.board.move_to_uci(m))
            );
        }
    }
}
