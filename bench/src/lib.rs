//! Shared fixtures for Sessa's criterion benchmarks, the trainer of its
//! evaluation network (`train`, driven by the `train` binary), and the fit of
//! its win/draw/loss model (`wdl_fit`, driven by the `wdl_fit` binary).

use sessa_engine::Board;
use sessa_engine::bench::BENCH_POSITIONS;
use shakmaty::CastlingMode;

/// The positions of `sessa bench`, parsed: the fixed set every micro-benchmark runs on.
pub fn bench_boards() -> Vec<Board> {
    BENCH_POSITIONS
        .iter()
        .map(|fen| Board::from_fen(fen, CastlingMode::Standard).expect("bench FENs are valid"))
        .collect()
}

pub mod train;
pub mod wdl_fit;
