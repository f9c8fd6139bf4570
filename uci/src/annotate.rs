//! `sessa annotate`: searches every position of the games of PGN files and
//! writes the games back with an evaluation on every move, the inaccuracies,
//! mistakes and blunders marked, and a better line for each mistake and
//! blunder; optionally an SVG graph of each game.
//!
//! Every position of the main line is searched with the same limit, the
//! hash kept from one position of a game to the next and cleared between
//! games. Each move gets a `[%eval ...]` comment, as lichess and ChessBase
//! write and read it: the evaluation of the position after the move, in
//! pawns from White's point of view (`[%eval 0.17]`), or `#N` for a mate in
//! N moves (`#-N` when Black mates, `#0` after the mating move).
//!
//! A move is judged by how much it lowers its player's expected score (a
//! win counting 1, a draw 1/2) by Sessa's win/draw/loss model
//! (`sessa_engine::wdl`): the expected score of the position before the
//! move, searched, less that of the position after it. A drop of at least
//! [`INACCURACY_DROP`] is an inaccuracy (`?!`), of [`MISTAKE_DROP`] a mistake
//! (`?`), of [`BLUNDER_DROP`] a blunder (`??`); the engine's own choice is
//! never marked. Judging by the expected score rather than by pawns means
//! that losing a pawn in a balanced position counts, while losing one more
//! in a lost (or a won) position hardly does.
//!
//! Each game is written, and flushed, as soon as it and the games before it
//! are annotated, as `sessa epd` writes its rows: a run that is killed
//! leaves the games finished until then. An interrupt (Ctrl-C, `SIGTERM`,
//! `SIGHUP`) stops the run cleanly: the searches under way end, the game
//! they belong to is left out, the games written stay, and the process
//! exits with [`INTERRUPTED_STATUS`].

mod pgn;
mod svg;

use crate::batch::{EngineArgs, LimitArgs, Stop, open_output, progress_bar, search};
use crate::output::is_closed_pipe;
use clap::Args;
use indicatif::ProgressBar;
use pgn::{Addition, BadGame, Game, Token};
use sessa_engine::{Board, Engine, Limits, ReportedScore, SearchEvent};
use shakmaty::san::SanPlus;
use shakmaty::{Color, Move, Position};
use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The least drop in the mover's expected score that marks an inaccuracy
/// (`?!`). From a balanced position, by the model, that is a loss of about
/// 0.25 pawn with all the pieces on the board, 0.7 pawn with 60 points of
/// material (pawns 1, queens 9), 1 pawn with 40 and 1.25 pawns with 25.
pub const INACCURACY_DROP: f64 = 0.10;
/// The least drop that marks a mistake (`?`): from a balanced position about
/// 0.5 pawn with all the pieces, 1.3 pawns with 60 points of material, 2 with
/// 40 and 2.5 with 25.
pub const MISTAKE_DROP: f64 = 0.20;
/// The least drop that marks a blunder (`??`): from a balanced position about
/// 0.8 pawn with all the pieces, 2.1 pawns with 60 points of material, 3.2
/// with 40 and 3.7 with 25.
pub const BLUNDER_DROP: f64 = 0.30;
/// Plies of the engine's line written as the better variation at most.
const BETTER_LINE_PLIES: usize = 10;
/// The exit status of a run stopped by an interrupt: 128 + 2, as shells
/// report a process that `SIGINT` ended.
const INTERRUPTED_STATUS: u8 = 130;

/// Options of `sessa annotate`.
#[derive(Args, Debug)]
pub struct AnnotateArgs {
    /// PGN files to annotate.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    limit: LimitArgs,
    #[command(flatten)]
    engines: EngineArgs,
    /// Write the annotated games to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write an SVG graph of each game's evaluation into this folder.
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
}

/// How a move is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// `?!`: the expected score dropped by at least [`INACCURACY_DROP`].
    Inaccuracy,
    /// `?`: the expected score dropped by at least [`MISTAKE_DROP`].
    Mistake,
    /// `??`: the expected score dropped by at least [`BLUNDER_DROP`].
    Blunder,
}

impl Mark {
    /// The mark for a drop in the mover's expected score, if any.
    pub fn for_drop(drop: f64) -> Option<Mark> {
        if drop >= BLUNDER_DROP {
            Some(Mark::Blunder)
        } else if drop >= MISTAKE_DROP {
            Some(Mark::Mistake)
        } else if drop >= INACCURACY_DROP {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// The mark as written after a move.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }
}

/// An evaluation from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns.
    Centipawns(i32),
    /// Mate in this many moves; negative when Black mates.
    Mate(i32),
    /// The side to move is checkmated.
    Checkmated,
}

impl Eval {
    /// A search score of the side to move, `turn`, seen from White.
    fn from_reported(score: ReportedScore, turn: Color) -> Eval {
        let sign = if turn == Color::White { 1 } else { -1 };
        match score {
            ReportedScore::Centipawns(cp) => Eval::Centipawns(sign * cp),
            ReportedScore::Mate(0) => Eval::Checkmated,
            ReportedScore::Mate(moves) => Eval::Mate(sign * moves),
        }
    }

    /// The evaluation as `[%eval ...]` writes it: `0.17`, `-1.05`, `#3`,
    /// `#-2`, `#0`.
    pub fn pgn_text(self) -> String {
        match self {
            Eval::Centipawns(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                let cp = cp.unsigned_abs();
                format!("{sign}{}.{:02}", cp / 100, cp % 100)
            }
            Eval::Mate(moves) => format!("#{moves}"),
            Eval::Checkmated => "#0".to_string(),
        }
    }
}

/// What the search of a position gave.
#[derive(Debug, Clone)]
struct Evaluation {
    /// The evaluation from White's point of view.
    eval: Eval,
    /// The expected score of the side to move, from 0 to 1.
    expected: f64,
    /// The engine's line, from its best move on.
    line: Vec<Move>,
}

/// The verdict on one main line move.
#[derive(Debug, Clone)]
pub struct MoveReport {
    /// The move in SAN.
    pub san: String,
    /// Who played it.
    pub mover: Color,
    /// Its move number.
    pub fullmove: u32,
    /// The evaluation after it.
    pub eval: Eval,
    /// White's expected score after it, from 0 to 1.
    pub white_expected: f64,
    /// How it is judged.
    pub mark: Option<Mark>,
}

/// A game as annotated: its PGN and what the graph shows.
struct Annotated {
    pgn: String,
    /// White's expected score at the start.
    start_white_expected: f64,
    moves: Vec<MoveReport>,
    /// Search failures, in words.
    failures: Vec<String>,
}

/// A game to annotate, with where it came from.
struct Job {
    /// The file's name, for messages.
    file: String,
    /// The game's number among the games annotated, from 1 (names the SVG
    /// file).
    sequence: usize,
    game: Game,
}

/// Runs `sessa annotate`.
pub fn run(args: &AnnotateArgs) -> ExitCode {
    let stop = Stop::new();
    stop_on_interrupt(&stop);
    let mut workers = match args.engines.workers("annotate") {
        Ok(workers) => workers,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = match open_output(args.out.as_deref()) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(dir) = &args.svg
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("error: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }

    let (jobs, mut all_good) = read_jobs(&args.files);
    let positions: usize = jobs.iter().map(|job| job.game.moves.len() + 1).sum();
    let progress = progress_bar(positions);
    let limits = args.limit.limits();
    let annotator = format!(
        "Sessa {} ({})",
        env!("CARGO_PKG_VERSION"),
        args.limit.text()
    );
    let work = |engine: &mut Engine, job: &Job| {
        annotate(engine, job, &limits, &annotator, &progress, &stop)
    };
    let mut written = Ok(());
    let mut games_written = 0;
    workers.run_in_order(&jobs, &stop, work, |job, annotated| {
        // `None` is a game cut short by a stop, after which nothing comes.
        let Some(annotated) = annotated else { return };
        for failure in &annotated.failures {
            progress.suspend(|| eprintln!("error: {}: {failure}", game_name(&job.file, &job.game)));
            all_good = false;
        }
        if written.is_ok() {
            // Written and flushed whole as soon as it is done, so that a run
            // cut short leaves whole games.
            written = progress.suspend(|| {
                out.write_all(annotated.pgn.as_bytes())?;
                out.flush()
            });
            if written.is_ok() {
                games_written += 1;
            } else {
                // No game can be written any more: no need to search on.
                stop.request();
            }
        }
        if let Some(dir) = &args.svg {
            let path = dir.join(svg_file_name(job));
            let title = svg_title(&job.game);
            let graph = svg::graph(&title, annotated.start_white_expected, &annotated.moves);
            if let Err(e) = std::fs::write(&path, graph) {
                progress.suspend(|| eprintln!("error: {}: {e}", path.display()));
                all_good = false;
            }
        }
        progress.set_message(game_name(&job.file, &job.game));
    });
    progress.finish_and_clear();
    match written {
        Err(e) if is_closed_pipe(&e) => {}
        Err(e) => {
            eprintln!("error: writing the games: {e}");
            return ExitCode::FAILURE;
        }
        Ok(()) if stop.is_requested() => {
            // Not eprintln!: after a SIGHUP the terminal may be gone.
            let _ = writeln!(
                io::stderr(),
                "interrupted: {games_written} of {} games written",
                jobs.len()
            );
            return ExitCode::from(INTERRUPTED_STATUS);
        }
        Ok(()) => {}
    }
    if all_good {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Makes an interrupt (Ctrl-C, `SIGTERM`, `SIGHUP`) request `stop` instead
/// of ending the process at once.
fn stop_on_interrupt(stop: &Stop) {
    let stop = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || stop.request()) {
        eprintln!("warning: an interrupt will end the run at once: {e}");
    }
}

/// The games of all files, and whether every file and game could be read;
/// what could not is reported on stderr.
fn read_jobs(files: &[PathBuf]) -> (Vec<Job>, bool) {
    let mut jobs = Vec::new();
    let mut all_good = true;
    for path in files {
        let file = path.display().to_string();
        let games = File::open(path).and_then(|f| pgn::read_games(io::BufReader::new(f)));
        let games = match games {
            Ok(games) => games,
            Err(e) => {
                eprintln!("error: {file}: {e}");
                all_good = false;
                continue;
            }
        };
        if games.is_empty() {
            eprintln!("warning: {file}: no games");
        }
        for game in games {
            match game {
                Ok(game) => {
                    for repair in &game.repairs {
                        eprintln!("note: {}: FEN repaired: {repair}", game_name(&file, &game));
                    }
                    jobs.push(Job {
                        file: file.clone(),
                        sequence: jobs.len() + 1,
                        game,
                    });
                }
                Err(bad) => {
                    eprintln!(
                        "error: {}: skipped: {}",
                        bad_game_name(&file, &bad),
                        bad.reason
                    );
                    all_good = false;
                }
            }
        }
    }
    (jobs, all_good)
}

/// `games.pgn: game 3 (White - Black)`.
fn game_name(file: &str, game: &Game) -> String {
    format!("{file}: game {} ({})", game.number, game.players())
}

fn bad_game_name(file: &str, bad: &BadGame) -> String {
    match &bad.players {
        Some(players) => format!("{file}: game {} ({players})", bad.number),
        None => format!("{file}: game {}", bad.number),
    }
}

/// `007-Carlsen-Caruana.svg`: the game's number among the games annotated
/// and the players, in characters any file system takes.
fn svg_file_name(job: &Job) -> String {
    let players: String = job
        .game
        .players()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .split('_')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    format!("{:03}-{players}.svg", job.sequence)
}

/// `White - Black, Event, Date, Result`, the parts the tags give.
fn svg_title(game: &Game) -> String {
    let mut parts = vec![game.players()];
    for tag in ["Event", "Date"] {
        if let Some(value) = game.tag(tag).filter(|v| !v.is_empty() && !v.contains('?')) {
            parts.push(value.to_string());
        }
    }
    parts.push(game.result.clone());
    parts.join(", ")
}

/// Searches every position of a game and writes it annotated; `None` when
/// a stop request cut the searches short.
fn annotate(
    engine: &mut Engine,
    job: &Job,
    limits: &Limits,
    annotator: &str,
    progress: &ProgressBar,
    stop: &Stop,
) -> Option<Annotated> {
    let game = &job.game;
    engine.new_game();
    let mut failures = Vec::new();
    let mut board = game.start.clone();
    let mut evaluations = Vec::with_capacity(game.moves.len() + 1);
    evaluations.push(evaluate(engine, &board, limits, stop, &mut failures));
    progress.inc(1);
    for played in &game.moves {
        if stop.is_requested() {
            return None;
        }
        board.play_game_move(played.mv);
        evaluations.push(evaluate(engine, &board, limits, stop, &mut failures));
        progress.inc(1);
    }
    // A stop during the last search leaves it cut short.
    if stop.is_requested() {
        return None;
    }

    let mut board = game.start.clone();
    let mut additions = Vec::with_capacity(game.moves.len());
    let mut moves = Vec::with_capacity(game.moves.len());
    for (index, played) in game.moves.iter().enumerate() {
        let (before, after) = (&evaluations[index], &evaluations[index + 1]);
        let drop = before.expected - (1.0 - after.expected);
        let engine_choice = before.line.first() == Some(&played.mv);
        let mark = if engine_choice {
            None
        } else {
            Mark::for_drop(drop)
        };
        let variation = mark
            .filter(|&mark| mark >= Mark::Mistake)
            .and_then(|_| better_line(&board, before));
        let pos = board.position();
        let mover = pos.turn();
        moves.push(MoveReport {
            san: played.san.to_string(),
            mover,
            fullmove: pos.fullmoves().get(),
            eval: after.eval,
            white_expected: match mover {
                Color::White => 1.0 - after.expected,
                Color::Black => after.expected,
            },
            mark,
        });
        additions.push(Addition {
            mark: mark.map(Mark::symbol),
            comment: Some(format!("[%eval {}]", after.eval.pgn_text())),
            variation,
        });
        board.play_game_move(played.mv);
    }

    let mut tags: Vec<(String, String)> = game
        .tags
        .iter()
        .filter(|(name, _)| name != "Annotator")
        .cloned()
        .collect();
    tags.push(("Annotator".to_string(), annotator.to_string()));
    let start = &evaluations[0];
    Some(Annotated {
        pgn: pgn::write_game(game, &tags, &additions),
        start_white_expected: match game.start.turn() {
            Color::White => start.expected,
            Color::Black => 1.0 - start.expected,
        },
        moves,
        failures,
    })
}

/// The engine's line from `board` as a variation, its first move with the
/// evaluation; `None` when the search gave no line.
fn better_line(board: &Board, evaluation: &Evaluation) -> Option<Vec<Token>> {
    let mut pos = board.position().clone();
    let mut tokens = Vec::new();
    for (ply, &mv) in evaluation.line.iter().take(BETTER_LINE_PLIES).enumerate() {
        tokens.push(Token::Move(SanPlus::from_move_and_play_unchecked(
            &mut pos, mv,
        )));
        if ply == 0 {
            tokens.push(Token::Comment(format!(
                "[%eval {}]",
                evaluation.eval.pgn_text()
            )));
        }
    }
    (!tokens.is_empty()).then_some(tokens)
}

/// Searches `board`, or scores it when the game is over there (checkmate or
/// stalemate). A search failure is added to `failures`; a stop request cuts
/// the search short.
fn evaluate(
    engine: &mut Engine,
    board: &Board,
    limits: &Limits,
    stop: &Stop,
    failures: &mut Vec<String>,
) -> Evaluation {
    let pos = board.position();
    if pos.legal_moves().is_empty() {
        return if pos.is_check() {
            Evaluation {
                eval: Eval::Checkmated,
                expected: 0.0,
                line: Vec::new(),
            }
        } else {
            Evaluation {
                eval: Eval::Centipawns(0),
                expected: 0.5,
                line: Vec::new(),
            }
        };
    }
    engine.set_position(board.clone());
    let mut last_info = None;
    let mut best = None;
    search(engine, limits, stop, |event| match event {
        SearchEvent::Info(info) if info.multipv == 1 => last_info = Some(info),
        SearchEvent::BestMove { best: mv, .. } => best = mv,
        SearchEvent::Failure(message) => {
            failures.push(format!("search of {} failed: {message}", board.fen()));
        }
        SearchEvent::Info(_) | SearchEvent::CurrentMove { .. } => {}
    });
    let Some(info) = last_info else {
        failures.push(format!("the search of {} gave no score", board.fen()));
        return Evaluation {
            eval: Eval::Centipawns(0),
            expected: 0.5,
            line: Vec::new(),
        };
    };
    let mut line = Vec::with_capacity(info.pv.len());
    let mut after = board.clone();
    for text in &info.pv {
        match after.parse_uci_move(text) {
            Ok(mv) => {
                line.push(mv);
                after.play_game_move(mv);
            }
            Err(_) => break,
        }
    }
    // Should the last iteration's line not start with the search's best
    // move, the best move alone is the line.
    if let Some(best) = best
        .as_deref()
        .and_then(|text| board.parse_uci_move(text).ok())
        && line.first() != Some(&best)
    {
        line = vec![best];
    }
    let wdl = info.wdl;
    Evaluation {
        eval: Eval::from_reported(info.score, pos.turn()),
        expected: (f64::from(wdl.win) + f64::from(wdl.draw) / 2.0) / 1000.0,
        line,
    }
}
