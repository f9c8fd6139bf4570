//! Self-play games for tuning the evaluation.
//!
//! Plays `--games` games of Sessa against itself at a fixed node count per
//! move, each from a position reached by random moves from the start (or from
//! an opening file), in parallel with rayon. Every quiet position of a game
//! (side to move not in check, static evaluation equal to the quiescence
//! score, best move not a capture or promotion) is written with the game's
//! result from White's point of view: `<fen> | 1.0`, `0.5` or `0.0`.
//! The same arguments give the same games.

use clap::Parser;
use rayon::prelude::*;
use sessa_engine::Board;
use sessa_engine::draw::{GameState, game_state};
use sessa_engine::eval::evaluate;
use sessa_engine::search::{MATE_BOUND, SearchParams, SharedState, Worker};
use sessa_engine::tables::ThreadTables;
use sessa_engine::tt::TranspositionTable;
use shakmaty::{CastlingMode, Color};
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Generate tuning positions from Sessa self-play")]
struct Args {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 8000)]
    nodes: u64,
    /// Random moves played from the start position before the game begins.
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    /// Seed of the random openings; different seeds give different games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start each game from a line of this file (FEN or EPD) chosen at random, then random moves.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Output file.
    #[arg(long)]
    out: PathBuf,
}

/// Adjudicate a win once both sides agree on a score this large for this many plies.
const WIN_SCORE: i32 = 1200;
const WIN_PLIES: u32 = 8;
/// Adjudicate a draw after this ply when the score stays this close to zero for this many plies.
const DRAW_FROM_PLY: u32 = 120;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 16;
/// Games longer than this are drawn.
const MAX_PLIES: u32 = 400;

/// A small, fast, seedable random number generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

fn main() {
    let args = Args::parse();
    let openings: Vec<String> = match &args.openings {
        Some(path) => std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
            .lines()
            .map(|l| l.split(';').next().unwrap_or("").trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
        None => Vec::new(),
    };
    let games: Vec<Vec<String>> = (0..args.games)
        .into_par_iter()
        .map_init(
            || TranspositionTable::new(8).expect("an 8 MB table"),
            |tt, game| play_game(&args, &openings, tt, game),
        )
        .collect();
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&args.out)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", args.out.display())),
    );
    let mut positions = 0;
    for lines in &games {
        for line in lines {
            writeln!(out, "{line}").expect("write the output");
            positions += 1;
        }
    }
    out.flush().expect("write the output");
    eprintln!(
        "{} games, {positions} positions written to {}",
        games.len(),
        args.out.display()
    );
}

/// A start position: an opening line or the start position, then random moves.
fn opening(args: &Args, openings: &[String], rng: &mut Rng) -> Option<Board> {
    let mut board = if openings.is_empty() {
        Board::startpos()
    } else {
        let fen = &openings[rng.below(openings.len())];
        Board::from_fen(fen, CastlingMode::Standard).ok()?
    };
    for _ in 0..args.random_plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            return None;
        }
        board.play_game_move(moves[rng.below(moves.len())]);
    }
    (game_state(&board) == GameState::Ongoing).then_some(board)
}

/// Plays one game and returns its quiet positions labelled with the result.
fn play_game(
    args: &Args,
    openings: &[String],
    tt: &mut TranspositionTable,
    game: u64,
) -> Vec<String> {
    let mut rng = Rng::new(args.seed.wrapping_mul(1_000_003).wrapping_add(game));
    let mut board = loop {
        if let Some(board) = opening(args, openings, &mut rng) {
            break board;
        }
    };
    tt.clear();
    // The searches of one game learn into one set of tables, as in a real
    // game; the quietness probe keeps its own, so that it sees the plain
    // evaluation.
    let mut tables = ThreadTables::default();
    let mut probe_tables = ThreadTables::default();
    let mut quiet = Vec::new();
    let mut win_streak: i32 = 0;
    let mut draw_streak = 0;
    let mut ply = 0;
    let white_result = loop {
        match game_state(&board) {
            GameState::Ongoing => {}
            GameState::Checkmate => {
                break if board.turn() == Color::White {
                    0.0
                } else {
                    1.0
                };
            }
            _ => break 0.5,
        }
        if ply >= MAX_PLIES {
            break 0.5;
        }
        tt.new_search();
        let shared = SharedState::default();
        let params = SearchParams {
            nodes: Some(args.nodes),
            ..SearchParams::depth(64)
        };
        let mut worker = Worker::new(board.clone(), tt, &shared, &mut tables, params, None);
        let result = worker.search();
        let Some(best) = result.best else { break 0.5 };
        let white_score = if board.turn() == Color::White {
            result.score
        } else {
            -result.score
        };

        let is_quiet = !board.in_check()
            && !best.is_capture()
            && best.promotion().is_none()
            && result.score.abs() < MATE_BOUND
            && {
                let static_eval = evaluate(board.position(), &mut probe_tables.pawns);
                let shared = SharedState::default();
                let mut probe = Worker::new(
                    board.clone(),
                    tt,
                    &shared,
                    &mut probe_tables,
                    SearchParams::depth(1),
                    None,
                );
                probe.quiescence_score() == static_eval
            };
        if is_quiet {
            quiet.push(board.fen());
        }

        // Plies in a row that one side has been winning: positive for White.
        win_streak = match white_score {
            s if s >= WIN_SCORE => win_streak.max(0) + 1,
            s if s <= -WIN_SCORE => win_streak.min(0) - 1,
            _ => 0,
        };
        if win_streak.unsigned_abs() >= WIN_PLIES {
            break if win_streak > 0 { 1.0 } else { 0.0 };
        }
        draw_streak = if ply >= DRAW_FROM_PLY && white_score.abs() <= DRAW_SCORE {
            draw_streak + 1
        } else {
            0
        };
        if draw_streak >= DRAW_PLIES {
            break 0.5;
        }
        board.play_game_move(best);
        ply += 1;
    };
    quiet
        .into_iter()
        .map(|fen| format!("{fen} | {white_result:.1}"))
        .collect()
}
