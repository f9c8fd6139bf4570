//! Correction history: the static evaluation's recent error per pawn
//! structure, learnt from the search.
//!
//! When a node's search settles on a score, the difference between that
//! score and the node's static evaluation says how wrong the evaluation was
//! there. Positions with the same pawns (and side to move) tend to be misjudged
//! the same way, so each pawn structure keeps a running average of that error,
//! and later static evaluations of it are shifted by the average. The search
//! then prunes and reduces on better estimates; the evaluation itself and the
//! transposition table keep the uncorrected values.

use crate::params::{correction_max, correction_max_error, correction_max_weight};
use crate::score::Score;
use shakmaty::{Chess, Color, Position};

/// Pawn structures tracked per side to move (a power of two).
const ENTRIES: usize = 1 << 14;
/// Entries hold centipawns times this, so small steps are not lost.
const GRAIN: i32 = 256;
/// The denominator of sample weights; a sample's weight is its depth plus
/// one, at most [`correction_max_weight`].
const WEIGHT_TOTAL: i32 = 256;

/// Average evaluation errors by side to move and pawn structure.
pub struct CorrectionHistory {
    table: Box<[[i32; ENTRIES]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            table: Box::new([[0; ENTRIES]; 2]),
        }
    }
}

/// A well-mixed hash of the pawn bitboards (Black, White); the table takes
/// its top bits as the index.
fn pawn_hash(pawns: [u64; 2]) -> u64 {
    pawns[0].wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ pawns[1].rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// The table slot of the position's side to move and pawn structure.
fn slot(pos: &Chess) -> (usize, usize) {
    let board = pos.board();
    let pawns = [
        board.by_piece(Color::Black.pawn()).0,
        board.by_piece(Color::White.pawn()).0,
    ];
    let index = (pawn_hash(pawns) >> (64 - ENTRIES.trailing_zeros())) as usize;
    (pos.turn() as usize, index)
}

impl CorrectionHistory {
    /// `eval`, the static evaluation of `pos` for the side to move, shifted
    /// by the average error seen in its pawn structure.
    pub fn correct(&self, pos: &Chess, eval: Score) -> Score {
        let (side, index) = slot(pos);
        eval + self.table[side][index] / GRAIN
    }

    /// Records that a search of `depth` found `pos` to be `error` centipawns
    /// better (for the side to move) than its uncorrected static evaluation.
    /// Deeper searches weigh more.
    pub fn update(&mut self, pos: &Chess, depth: i32, error: Score) {
        let (side, index) = slot(pos);
        let weight = (depth + 1).clamp(1, correction_max_weight());
        let entry = &mut self.table[side][index];
        let max_error = correction_max_error();
        let target = error.clamp(-max_error, max_error) * GRAIN;
        let blended = (*entry * (WEIGHT_TOTAL - weight) + target * weight) / WEIGHT_TOTAL;
        let max = correction_max() * GRAIN;
        *entry = blended.clamp(-max, max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_fresh_table_changes_nothing() {
        let table = CorrectionHistory::default();
        assert_eq!(table.correct(&Chess::default(), 37), 37);
    }

    #[test]
    fn repeated_errors_pull_the_evaluation_toward_the_search() {
        let mut table = CorrectionHistory::default();
        let pos = Chess::default();
        for _ in 0..200 {
            table.update(&pos, 10, 30);
        }
        let corrected = table.correct(&pos, 0);
        assert!((25..=30).contains(&corrected), "{corrected}");
        // Large errors move the evaluation only so far.
        for _ in 0..200 {
            table.update(&pos, 10, -2_000);
        }
        assert_eq!(table.correct(&pos, 0), -correction_max());
    }

    #[test]
    fn corrections_belong_to_the_pawns_and_the_side_to_move() {
        let mut table = CorrectionHistory::default();
        let white = Chess::default();
        for _ in 0..100 {
            table.update(&white, 12, 40);
        }
        // Same pawns, Black to move: untouched.
        let black = position("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
        assert_eq!(table.correct(&black, 5), 5);
        // Other pawns, White to move: untouched.
        let moved = position("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert_eq!(table.correct(&moved, 5), 5);
        // Same pawns and side, other pieces: corrected.
        let knights = position("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2");
        assert!(table.correct(&knights, 5) > 30);
    }

    #[test]
    fn deeper_searches_weigh_more() {
        let pos = Chess::default();
        let mut shallow = CorrectionHistory::default();
        let mut deep = CorrectionHistory::default();
        shallow.update(&pos, 1, 40);
        deep.update(&pos, 12, 40);
        let (side, index) = slot(&pos);
        let entry = |t: &CorrectionHistory| t.table[side][index];
        assert!(entry(&deep) > entry(&shallow));
    }
}
