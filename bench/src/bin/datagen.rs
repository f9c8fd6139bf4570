//! Self-play training data for the evaluation network.
//!
//! Plays games of Sessa against itself, each from a few random plies after
//! the start position (or after a line of an opening file), with a soft node
//! limit per move (no new iteration once it is reached) and a hard cap. Games
//! end by the rules or by adjudication: a win once the score has stayed
//! beyond `WIN_SCORE` for several plies in a row, a draw once it has stayed
//! near zero late in the game.
//!
//! Every position whose side to move is not in check and whose best move is
//! neither a capture nor a promotion is kept, with the search score and the
//! game's result, as a 32-byte `bulletformat::ChessBoard`: the format the
//! project's trainer reads, and one that the bullet trainer reads too.
//!
//! The games are cut into numbered chunks of `--games-per-chunk` games, one
//! file each (`chunk-000000.bin`, ...), written whole under a temporary name
//! and then renamed. Chunk `k` depends only on the settings and `k`, so a run
//! that is stopped resumes where it stopped (chunks already on disk are kept)
//! and the same settings give the same files. The settings, with the name of
//! the network the engine evaluates with, are written to `settings.txt` in
//! the folder; a run with other settings refuses to add to it.
//! The chunks run in parallel, one per thread (`--threads`, default all cores).

use bench::rng::Rng;
use bulletformat::{BulletFormat, ChessBoard};
use clap::Parser;
use rayon::prelude::*;
use sessa_engine::Board;
use sessa_engine::draw::{GameState, game_state};
use sessa_engine::nnue::Network;
use sessa_engine::report::SearchResult;
use sessa_engine::score::MATE_BOUND;
use sessa_engine::search::{SearchSetup, SharedState, Worker};
use sessa_engine::thread_tables::ThreadTables;
use sessa_engine::tt::TranspositionTable;
use shakmaty::{Bitboard, CastlingMode, Color, Position, Role};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(about = "Generate network training data from Sessa self-play")]
struct Args {
    /// Folder for the chunk files (created if missing; keep it outside the
    /// repository or in the ignored `data/`).
    #[arg(long)]
    out: PathBuf,
    /// Games in all (rounded up to whole chunks).
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Games per chunk file.
    #[arg(long, default_value_t = 100)]
    games_per_chunk: u64,
    /// Nodes after which a move's search starts no new iteration.
    #[arg(long, default_value_t = 5000)]
    soft_nodes: u64,
    /// Nodes at which a move's search is aborted.
    #[arg(long, default_value_t = 100_000)]
    hard_nodes: u64,
    /// Random moves played before the game begins.
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    /// Openings whose first search scores beyond this (centipawns) are replaced.
    #[arg(long, default_value_t = 1000)]
    max_opening_score: i32,
    /// Seed; different seeds give different games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start each game from a line of this file (FEN or EPD) chosen at random, then the random moves.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Hash size per game in MB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Play with this network file instead of the one built in (for example
    /// to make data for an earlier generation's pipeline).
    #[arg(long)]
    net: Option<PathBuf>,
}

/// What every game of a run is played with.
struct Run<'a> {
    args: &'a Args,
    /// Opening lines to start from (none: the start position).
    openings: &'a [String],
    /// The network both sides evaluate with.
    net: Arc<Network>,
}

/// Adjudicate a win once the score has been beyond this for `WIN_PLIES` plies in a row.
const WIN_SCORE: i32 = 1500;
const WIN_PLIES: u32 = 6;
/// Adjudicate a draw from this ply once the score has stayed within
/// `DRAW_SCORE` of zero for `DRAW_PLIES` plies in a row.
const DRAW_FROM_PLY: u32 = 80;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 10;
/// Games longer than this are drawn.
const MAX_PLIES: u32 = 500;
/// Bumped whenever the games played for given settings change.
const FORMAT_VERSION: u32 = 2;
/// Openings tried for one game before the game is given up.
const OPENING_TRIES: u32 = 1000;

fn main() {
    let args = Args::parse();
    if let Err(message) = run(&args) {
        eprintln!("datagen: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    let openings = read_openings(args.openings.as_deref())?;
    let net = match &args.net {
        Some(path) => Arc::from(
            Network::load(path).map_err(|e| format!("cannot use {}: {e}", path.display()))?,
        ),
        None => Network::embedded(),
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    check_settings(args, &net)?;
    let run = Run {
        args,
        openings: &openings,
        net,
    };
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    let chunks = args.games.div_ceil(args.games_per_chunk.max(1));
    let todo: Vec<u64> = (0..chunks)
        .filter(|&k| !chunk_path(&args.out, k).exists())
        .collect();
    let on_disk: u64 = (0..chunks)
        .filter_map(|k| std::fs::metadata(chunk_path(&args.out, k)).ok())
        .map(|m| m.len() / 32)
        .sum();
    eprintln!(
        "datagen: {} of {chunks} chunks to play ({} games each), {on_disk} positions already in {}",
        todo.len(),
        args.games_per_chunk,
        args.out.display()
    );
    let started = Instant::now();
    let positions = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let threads = rayon::current_num_threads();
    let rate = |positions: u64| {
        let per_second = positions as f64 / started.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{per_second:.0} positions/s, {:.0} per thread ({threads} threads)",
            per_second / threads as f64
        )
    };
    todo.par_iter().try_for_each(|&chunk| {
        let records = play_chunk(&run, chunk);
        write_chunk(&args.out, chunk, &records)?;
        let total = positions.fetch_add(records.len() as u64, Ordering::Relaxed)
            + records.len() as u64;
        let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "chunk {chunk:06}: {} positions | {finished}/{} chunks | {} positions this run, {} in all | {}",
            records.len(),
            todo.len(),
            total,
            on_disk + total,
            rate(total)
        );
        Ok::<(), String>(())
    })?;
    let total = positions.load(Ordering::Relaxed);
    eprintln!(
        "datagen: {total} positions in {:.0} s, {}",
        started.elapsed().as_secs_f64(),
        rate(total)
    );
    Ok(())
}

/// The opening lines of `path` (FEN or EPD, one per line; text after `;` ignored).
fn read_openings(path: Option<&Path>) -> Result<Vec<String>, String> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split(';').next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect())
}

/// The settings that decide the games, as written to `settings.txt`.
fn settings_text(args: &Args, net: &Network) -> String {
    format!(
        "format {FORMAT_VERSION}\nevaluation {}\nseed {}\ngames_per_chunk {}\nsoft_nodes {}\nhard_nodes {}\nrandom_plies {}\nmax_opening_score {}\nopenings {}\nhash {}\n",
        net.file_name(),
        args.seed,
        args.games_per_chunk,
        args.soft_nodes,
        args.hard_nodes,
        args.random_plies,
        args.max_opening_score,
        args.openings
            .as_ref()
            .map_or("-".to_string(), |p| p.display().to_string()),
        args.hash,
    )
}

/// Writes the settings into a new folder, or checks that they match the
/// settings the folder's chunks were made with.
fn check_settings(args: &Args, net: &Network) -> Result<(), String> {
    let path = args.out.join("settings.txt");
    let wanted = settings_text(args, net);
    match std::fs::read_to_string(&path) {
        Ok(found) if found == wanted => Ok(()),
        Ok(found) => Err(format!(
            "{} holds data made with other settings:\n{found}refusing to mix them with:\n{wanted}",
            args.out.display()
        )),
        Err(_) => std::fs::write(&path, wanted)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
    }
}

fn chunk_path(folder: &Path, chunk: u64) -> PathBuf {
    folder.join(format!("chunk-{chunk:06}.bin"))
}

/// Writes a chunk under a temporary name and renames it, so that a chunk
/// file on disk is always complete.
fn write_chunk(folder: &Path, chunk: u64, records: &[ChessBoard]) -> Result<(), String> {
    let path = chunk_path(folder, chunk);
    let temporary = path.with_extension("tmp");
    let bytes = ChessBoard::as_bytes_slice(records);
    let mut file = std::fs::File::create(&temporary)
        .map_err(|e| format!("cannot create {}: {e}", temporary.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, &path)
        .map_err(|e| format!("cannot rename {}: {e}", temporary.display()))
}

/// Plays the games of one chunk, one after the other, and returns their kept positions.
fn play_chunk(run: &Run, chunk: u64) -> Vec<ChessBoard> {
    let args = run.args;
    let mut tt = TranspositionTable::new(args.hash.max(1)).expect("allocating the hash table");
    let mut tables = ThreadTables::default();
    let first = chunk * args.games_per_chunk;
    let mut records = Vec::new();
    for game in first..first + args.games_per_chunk {
        let mut rng = Rng::new(args.seed.wrapping_mul(1_000_003).wrapping_add(game));
        tt.clear();
        tables.clear();
        play_game(run, &mut tt, &mut tables, &mut rng, &mut records);
    }
    records
}

/// Searches `board` within the node limits, learning into `tables`.
fn search(
    run: &Run,
    board: &Board,
    tt: &mut TranspositionTable,
    tables: &mut ThreadTables,
) -> SearchResult {
    tt.new_search();
    let shared = SharedState::default();
    let args = run.args;
    let setup = SearchSetup {
        nodes: Some(args.hard_nodes.max(args.soft_nodes)),
        soft_nodes: Some(args.soft_nodes),
        net: Arc::clone(&run.net),
        ..SearchSetup::depth(64)
    };
    Worker::new(board.clone(), tt, &shared, tables, setup, None).search()
}

/// A start position: an opening line or the start position, then random
/// moves; `None` when the moves end the game or the position is too
/// one-sided by the first search.
fn opening(
    run: &Run,
    rng: &mut Rng,
    tt: &mut TranspositionTable,
    tables: &mut ThreadTables,
) -> Option<Board> {
    let (args, openings) = (run.args, run.openings);
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
    if game_state(&board) != GameState::Ongoing {
        return None;
    }
    let first = search(run, &board, tt, tables);
    (first.score.abs() <= args.max_opening_score).then_some(board)
}

/// Plays one game and appends its kept positions, labelled with the result, to `records`.
fn play_game(
    run: &Run,
    tt: &mut TranspositionTable,
    tables: &mut ThreadTables,
    rng: &mut Rng,
    records: &mut Vec<ChessBoard>,
) {
    let Some(mut board) = (0..OPENING_TRIES).find_map(|_| opening(run, rng, tt, tables)) else {
        eprintln!("datagen: no usable opening in {OPENING_TRIES} tries; game skipped");
        return;
    };
    // Kept positions: the board's pieces, side to move and White's score.
    let mut kept: Vec<([u64; 8], usize, i16)> = Vec::new();
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
        let result = search(run, &board, tt, tables);
        let Some(best) = result.best else { break 0.5 };
        let white_score = if board.turn() == Color::White {
            result.score
        } else {
            -result.score
        };
        if !board.in_check()
            && !best.is_capture()
            && best.promotion().is_none()
            && result.score.abs() < MATE_BOUND
        {
            let stm = usize::from(board.turn() == Color::Black);
            kept.push((bitboards(board.position()), stm, white_score as i16));
        }
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
    records.extend(kept.into_iter().map(|(bbs, stm, score)| {
        ChessBoard::from_raw(bbs, stm, score, white_result).expect("a board with kings")
    }));
}

/// The bitboards `ChessBoard::from_raw` takes: White, Black, then pawn to king.
fn bitboards(pos: &shakmaty::Chess) -> [u64; 8] {
    let board = pos.board();
    let bits = |bb: Bitboard| u64::from(bb);
    [
        bits(board.by_color(Color::White)),
        bits(board.by_color(Color::Black)),
        bits(board.by_role(Role::Pawn)),
        bits(board.by_role(Role::Knight)),
        bits(board.by_role(Role::Bishop)),
        bits(board.by_role(Role::Rook)),
        bits(board.by_role(Role::Queen)),
        bits(board.by_role(Role::King)),
    ]
}
