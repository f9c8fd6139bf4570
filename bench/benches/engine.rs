//! Micro-benchmarks over the bench positions: legal move generation, making
//! a move with its key update, the evaluation network (from scratch and with
//! incremental updates), quiescence search and a fixed-depth search.

use criterion::{Criterion, criterion_group, criterion_main};
use sessa_engine::Board;
use sessa_engine::bench::BENCH_POSITIONS;
use sessa_engine::nnue::{AccumulatorStack, Kernel, Network};
use sessa_engine::search::{SearchSetup, SharedState, Worker};
use sessa_engine::thread_tables::ThreadTables;
use sessa_engine::tt::TranspositionTable;
use shakmaty::{CastlingMode, Move, Position};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The positions of `sessa bench`, parsed: the fixed set every benchmark runs on.
fn bench_boards() -> Vec<Board> {
    BENCH_POSITIONS
        .iter()
        .map(|fen| Board::from_fen(fen, CastlingMode::Standard).expect("bench FENs are valid"))
        .collect()
}

fn movegen(c: &mut Criterion) {
    let boards = bench_boards();
    c.bench_function("legal_moves", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|board| black_box(board).legal_moves().len())
                .sum::<usize>()
        })
    });
}

fn make_unmake(c: &mut Criterion) {
    let mut boards = bench_boards();
    c.bench_function("make_unmake_with_key", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for board in &mut boards {
                for m in board.legal_moves() {
                    board.make(m);
                    keys ^= board.key();
                    board.unmake();
                }
            }
            keys
        })
    });
}

/// The network: a full refresh of both accumulators and an evaluation per
/// position, and the incremental path the search takes: for every legal move
/// of every position, update the accumulators, evaluate, and go back.
fn network(c: &mut Criterion) {
    let boards = bench_boards();
    let net = Network::embedded();
    let kernel = Kernel::detect();
    c.bench_function("nnue_refresh_and_evaluate", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|board| {
                    let pos = black_box(board.position());
                    net.evaluate_board(pos.board(), pos.turn(), kernel)
                })
                .sum::<i32>()
        })
    });
    // Every legal move with the board it leads to, worked out beforehand so
    // that only the network's work is timed.
    let children: Vec<Vec<(Move, shakmaty::Board)>> = boards
        .iter()
        .map(|board| {
            let pos = board.position();
            pos.legal_moves()
                .into_iter()
                .map(|m| {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    (m, child.board().clone())
                })
                .collect()
        })
        .collect();
    let mut stack = AccumulatorStack::new(kernel);
    c.bench_function("nnue_update_evaluate_for_every_move", |b| {
        b.iter(|| {
            let mut total = 0;
            for (board, moves) in boards.iter().zip(&children) {
                let pos = board.position();
                stack.reset(&net, pos);
                for (m, child) in moves {
                    stack.push(&net, pos.turn(), *m, child);
                    total += stack.evaluate(&net, !pos.turn(), child.occupied().count());
                    stack.pop();
                }
            }
            total
        })
    });
}

/// Searches each board to `depth` from fresh thread tables, as the engine
/// does at the start of a game, and returns the nodes searched.
fn search_each(boards: &[Board], tt: &TranspositionTable, depth: u32) -> u64 {
    let mut tables = ThreadTables::default();
    boards
        .iter()
        .map(|board| {
            tables.clear();
            search_one(board, tt, &mut tables, depth)
        })
        .sum()
}

/// Searches one board to `depth` with the given thread tables and returns
/// the nodes searched.
fn search_one(
    board: &Board,
    tt: &TranspositionTable,
    tables: &mut ThreadTables,
    depth: u32,
) -> u64 {
    let shared = SharedState::default();
    let mut worker = Worker::new(
        board.clone(),
        tt,
        &shared,
        tables,
        SearchSetup::depth(depth),
        None,
    );
    worker.search().nodes
}

/// Quiescence search, measured through a depth-1 search: the root tries every
/// legal move once and searches captures and promotions below each one (all
/// evasions when in check), so nearly all of its nodes are quiescence nodes.
/// The search keeps its quiescence function private; this measures it through
/// the public entry point without changing the search. Only the searches are
/// timed: the hash table is emptied before each pass over the positions, so
/// that every pass searches the same trees instead of reading the last pass's
/// results, and the thread tables are made once, as within a game, so that
/// their allocation is not what is measured.
fn quiescence(c: &mut Criterion) {
    let boards = bench_boards();
    let mut tt = TranspositionTable::new(1).expect("1 MB of hash");
    let mut tables = ThreadTables::default();
    c.bench_function("quiescence_depth_1_all_positions", |b| {
        b.iter_custom(|passes| {
            let mut searching = Duration::ZERO;
            for _ in 0..passes {
                tt.clear();
                let start = Instant::now();
                for board in &boards {
                    black_box(search_one(board, &tt, &mut tables, 1));
                }
                searching += start.elapsed();
            }
            searching
        })
    });
}

fn search(c: &mut Criterion) {
    let boards = bench_boards();
    let tt = TranspositionTable::new(16).expect("16 MB of hash");
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("depth_5_all_positions", |b| {
        b.iter(|| search_each(&boards, &tt, 5))
    });
    group.finish();
}

criterion_group!(benches, movegen, make_unmake, network, quiescence, search);
criterion_main!(benches);
