//! The bench: a fixed-depth search of a fixed list of positions whose total
//! node count is the signature of the search (same binary, same count).

use crate::board::Board;
use crate::engine::Engine;
use crate::nnue::Network;
use crate::report::SearchEvent;
use crate::time::Limits;
use crossbeam::channel::unbounded;
use shakmaty::CastlingMode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 13;

/// Openings, middlegames, tactics and endgames, written for this bench (plus
/// the well-known perft positions from the Chess Programming Wiki).
pub const BENCH_POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    "rnbq1rk1/ppp1ppbp/3p1np1/8/2PPP3/2N2N2/PP3PPP/R1BQKB1R w KQ - 1 6",
    "rnbqk1nr/ppp2ppp/4p3/3p4/1b1PP3/2N5/PPP2PPP/R1BQKBNR w KQkq - 2 4",
    "rn1qkbnr/pp2pppp/2p5/5b2/3PN3/8/PPP2PPP/R1BQKBNR w KQkq - 1 5",
    "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkbnr/pppp1ppp/8/4p3/2P5/2N5/PP1PPPPP/R1BQKBNR b KQkq - 1 2",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8",
    "r2q1rk1/ppp2ppp/2n1bn2/2bpp3/4P3/2PP1NP1/PP1N1PBP/R1BQ1RK1 w - - 0 8",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/R2Q1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 0 12",
    "3r1rk1/pp3ppp/2n1b3/2q1p3/4P3/2N1BQ2/PPP2PPP/3R1RK1 w - - 0 16",
    "r4rk1/1b2qppp/p1n1pn2/1pb5/4P3/P1N1BN2/1PB1QPPP/R4RK1 w - - 0 15",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3kb1r/pp1n1ppp/2p1pn2/q7/2BP4/2N2Q2/PPPB1PPP/2KR3R b kq - 5 10",
    "1r3rk1/5ppp/p1p5/2p1P3/3q4/1P1P4/P1P2QPP/R4R1K b - - 0 20",
    "4r1k1/pp3ppp/2p5/8/2PPq3/1P2P1P1/P4Q1P/5RK1 b - - 0 25",
    "6k1/pp4p1/2p4p/3p4/3P1q2/2P2N1P/PP3PP1/4Q1K1 w - - 0 30",
    "2r2rk1/1p1q1ppp/p2p1n2/3Pp3/1n2P3/2N1BP2/PP1Q2PP/1K1R3R w - - 0 18",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/pp2k3/2p1p3/3pP1p1/3P2P1/2P1K3/PP6/8 w - - 0 35",
    "8/5pk1/6p1/8/8/6P1/5PK1/8 w - - 0 1",
    "8/8/1p6/p1p5/P1P5/1P3k2/8/5K2 w - - 0 1",
    "8/p7/1p6/2p5/2P5/1P6/P7/k1K5 w - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "4k3/8/3K4/3P4/8/8/8/8 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "8/8/4k3/8/2R5/8/4K3/r7 w - - 0 1",
    "8/8/3k4/8/8/3K4/3BN3/8 w - - 0 1",
    "8/8/8/2k5/8/8/2r5/K2Q4 w - - 0 1",
    "2k5/8/8/8/8/8/8/2KQ4 w - - 0 1",
    "8/1P6/8/8/8/8/6p1/K6k w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "8/3k4/8/2pPp3/8/8/4K3/8 w - c6 0 2",
    "5k2/8/5K2/5P2/8/8/8/8 w - - 0 1",
];

/// What one bench position took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchLine {
    /// The position searched.
    pub fen: &'static str,
    /// Nodes searched.
    pub nodes: u64,
    /// The best move found, in UCI notation.
    pub best: String,
}

/// The result of a whole bench run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchReport {
    /// One line per position.
    pub lines: Vec<BenchLine>,
    /// Total nodes: the signature.
    pub nodes: u64,
    /// Wall time of all searches.
    pub elapsed: Duration,
}

impl BenchReport {
    /// Nodes per second over the whole run.
    pub fn nps(&self) -> u64 {
        (self.nodes as u128 * 1_000_000_000 / self.elapsed.as_nanos().max(1)) as u64
    }
}

/// Searches every bench position to `depth` with `threads` search threads
/// and the network `net`, the table (`hash_mb` MB) and histories fresh for
/// each position. With one thread the node count is deterministic; with the
/// built-in network it is the build's signature.
pub fn run(depth: u32, hash_mb: usize, threads: usize, net: Arc<Network>) -> BenchReport {
    let mut engine = Engine::new();
    engine.set_network(net);
    engine.set_hash(hash_mb).expect("allocating the bench hash");
    engine.set_threads(threads);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut lines = Vec::with_capacity(BENCH_POSITIONS.len());
    let mut elapsed = Duration::ZERO;
    for &fen in BENCH_POSITIONS {
        let board = Board::from_fen(fen, CastlingMode::Standard).expect("bench FENs are valid");
        engine.new_game();
        engine.set_position(board);
        let (events, reports) = unbounded();
        let start = Instant::now();
        engine.go(&limits, events);
        let best = reports
            .iter()
            .find_map(|event| match event {
                SearchEvent::BestMove { best, .. } => Some(best),
                _ => None,
            })
            .flatten()
            .unwrap_or_else(|| "(none)".to_string());
        elapsed += start.elapsed();
        engine.wait();
        lines.push(BenchLine {
            fen,
            nodes: engine.nodes_searched(),
            best,
        });
    }
    BenchReport {
        nodes: lines.iter().map(|l| l.nodes).sum(),
        lines,
        elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_varied() {
        assert!(BENCH_POSITIONS.len() >= 40);
        for fen in BENCH_POSITIONS {
            let board = Board::from_fen(fen, CastlingMode::Standard)
                .unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(!board.legal_moves().is_empty(), "{fen} has no move");
        }
    }

    #[test]
    fn node_count_is_deterministic() {
        let a = run(4, 4, 1, Network::embedded());
        let b = run(4, 4, 1, Network::embedded());
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.lines, b.lines);
    }

    #[test]
    fn a_network_that_evaluates_alike_benches_alike() {
        use crate::nnue::widened;
        let narrow = Arc::new(crate::nnue::narrow_test_network());
        let expected = run(5, 4, 1, Arc::clone(&narrow)).lines;
        for wide in [widened::<256>(&narrow), widened::<512>(&narrow)] {
            let hidden = wide.hidden();
            assert_eq!(
                run(5, 4, 1, Arc::new(wide)).lines,
                expected,
                "{hidden} wide"
            );
        }
    }
}
