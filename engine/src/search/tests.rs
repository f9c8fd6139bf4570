//! Whole searches of small positions, and the helpers the search's tests
//! share.

use super::*;
use crate::report::{SearchResult, result_to_uci};
use crate::score::MATE;
use shakmaty::CastlingMode;

/// One thread's search of `board` in the table `tt`, with histories of its
/// own.
pub(super) fn search_in(
    tt: &TranspositionTable,
    board: &Board,
    setup: SearchSetup,
) -> SearchResult {
    let shared = SharedState::default();
    let mut thread_tables = ThreadTables::default();
    Worker::new(board.clone(), tt, &shared, &mut thread_tables, setup, None).search()
}

/// One thread's search of `board` with an 8 MB table and histories of its
/// own.
pub(super) fn fresh_search(board: &Board, setup: SearchSetup) -> SearchResult {
    let tt = TranspositionTable::new(8).unwrap();
    search_in(&tt, board, setup)
}

fn search(fen: &str, depth: u32) -> (SearchResult, Option<String>) {
    let board = Board::from_fen(fen, CastlingMode::Standard).unwrap();
    let result = fresh_search(&board, SearchSetup::depth(depth));
    let best = result_to_uci(&board, &result).0;
    (result, best)
}

#[test]
fn finds_mate_in_one() {
    let (r, best) = search("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 3);
    assert_eq!(r.score, MATE - 1);
    assert_eq!(best.as_deref(), Some("a1a8"));
}

#[test]
fn no_move_when_mated() {
    let (r, best) = search(
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        3,
    );
    assert_eq!(r.best, None);
    assert_eq!(best, None);
}

#[test]
fn captures_a_hanging_queen() {
    let (_, best) = search("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", 4);
    assert_eq!(best.as_deref(), Some("d2d5"));
}

/// Searches positions full of castling on both wings, en passant,
/// promotions and under-promotions (with and without a capture), king
/// walks across the d/e line and null moves, with the built-in network,
/// its weights read as a king-mirrored one, both narrowed to 128, and
/// random networks 384 and 512 wide; a build with debug assertions checks
/// at every node that the incremental accumulators equal fresh ones.
#[test]
fn incremental_accumulators_stay_fresh_through_a_search() {
    use crate::nnue::{InputLayout, random_network};
    let mut mirrored = (*Network::embedded()).clone();
    mirrored.layout = InputLayout::KingMirrored;
    let networks = [
        Arc::new(crate::nnue::narrow_test_network()),
        Arc::new(crate::nnue::narrowed(&mirrored)),
        Network::embedded(),
        Arc::new(mirrored),
        Arc::new(random_network::<384>(3, InputLayout::Plain)),
        Arc::new(random_network::<512>(4, InputLayout::KingMirrored)),
    ];
    for (net, (fen, mode)) in networks.iter().flat_map(|net| {
        [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                CastlingMode::Standard,
            ),
            (
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                CastlingMode::Chess960,
            ),
            ("8/8/3k4/8/8/4K3/8/7R w - - 0 1", CastlingMode::Standard),
        ]
        .map(|case| (net, case))
    }) {
        let board = Board::from_fen(fen, mode).unwrap();
        let result = fresh_search(
            &board,
            SearchSetup {
                net: Arc::clone(net),
                ..SearchSetup::depth(6)
            },
        );
        assert!(result.best.is_some(), "{fen} with {:?}", net.layout);
    }
}

/// Networks 256, 384 and 512 wide that evaluate exactly as a 128-wide one
/// (their extra lanes have output weights of zero) search exactly as it
/// does.
#[test]
fn a_widened_network_searches_as_the_narrow_one() {
    use crate::nnue::widened;
    let narrow = Arc::new(crate::nnue::narrow_test_network());
    let wider = [
        Arc::new(widened::<256>(&narrow)),
        Arc::new(widened::<384>(&narrow)),
        Arc::new(widened::<512>(&narrow)),
    ];
    for fen in &crate::bench::BENCH_POSITIONS[..4] {
        let board = Board::from_fen(fen, CastlingMode::Standard).unwrap();
        let run = |net: &Arc<Network>| {
            let setup = SearchSetup {
                net: Arc::clone(net),
                ..SearchSetup::depth(7)
            };
            let result = fresh_search(&board, setup);
            (result.best, result.score, result.nodes)
        };
        let expected = run(&narrow);
        for wide in &wider {
            assert_eq!(run(wide), expected, "{fen}, {} wide", wide.hidden());
        }
    }
}
