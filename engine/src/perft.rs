//! Perft: counting the leaf nodes of the legal move tree, to check the board
//! wrapper (moves, keys, undo) against published counts.

use crate::board::Board;

/// Counts the leaves `depth` plies below the board's position.
///
/// Release builds count the last ply in bulk from the move list; debug builds
/// make every move, so the incremental key is checked against a from-scratch
/// key at every node.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.legal_moves();
    if depth == 1 && !cfg!(debug_assertions) {
        return moves.len() as u64;
    }
    let mut total = 0;
    for m in moves {
        board.make(m);
        total += perft(board, depth - 1);
        board.unmake();
    }
    total
}

/// Perft split by root move: `(move in UCI, leaf count)` in generation order.
pub fn divide(board: &mut Board, depth: u32) -> Vec<(String, u64)> {
    let depth = depth.max(1);
    board
        .legal_moves()
        .into_iter()
        .map(|m| {
            let text = board.move_to_uci(m);
            board.make(m);
            let count = perft(board, depth - 1);
            board.unmake();
            (text, count)
        })
        .collect()
}
