//! Perft: counting the leaf nodes of the legal move tree, to check the board
//! wrapper (moves, keys, undo) against published counts.

use crate::board::Board;
use rayon::prelude::*;

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

/// A perft split by root move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divide {
    /// `(move in UCI, leaf count)` for every legal root move, in generation
    /// order; empty at depth 0.
    pub moves: Vec<(String, u64)>,
    /// The leaves of the whole tree: 1 at depth 0 (the position itself).
    pub total: u64,
}

/// Perft of `board` to `depth`, split by root move; the root moves are
/// counted in parallel.
pub fn divide(board: &Board, depth: u32) -> Divide {
    if depth == 0 {
        return Divide {
            moves: Vec::new(),
            total: 1,
        };
    }
    let moves: Vec<(String, u64)> = board
        .legal_moves()
        .into_iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|m| {
            let mut child = board.clone();
            child.make(m);
            (board.move_to_uci(m), perft(&mut child, depth - 1))
        })
        .collect();
    let total = moves.iter().map(|(_, count)| count).sum();
    Divide { moves, total }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_zero_is_the_position_itself() {
        let split = divide(&Board::startpos(), 0);
        assert!(split.moves.is_empty());
        assert_eq!(split.total, 1);
    }

    #[test]
    fn divide_sums_to_perft() {
        let board = Board::startpos();
        let split = divide(&board, 3);
        assert_eq!(split.moves.len(), 20);
        assert_eq!(split.total, 8902);
        assert_eq!(split.total, perft(&mut board.clone(), 3));
        assert!(split.moves.contains(&("e2e4".to_string(), 600)));
    }
}
