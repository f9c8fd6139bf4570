//! Correction history: the static evaluation's recent error per pawn
//! structure, per arrangement of each side's other pieces, per placement of
//! the knights and bishops and per last two moves, learnt from the search.
//!
//! When a node's search settles on a score, the difference between that
//! score and the node's static evaluation says how wrong the evaluation was
//! there. Positions with the same pawns (and side to move) tend to be
//! misjudged the same way, and so do positions where one side's pieces, or
//! the minor pieces, stand the same, or that the same moves led to. Later
//! static evaluations are shifted by a weighted sum of what their keys hold,
//! and each key learns the error that this sum still leaves (the residual),
//! not the whole error: a steady error is then corrected once, whatever the
//! weights, instead of once per key. The search prunes and reduces on better
//! estimates; the evaluation itself and the transposition table keep the
//! uncorrected values.

use crate::history::{MovedPiece, PreviousMoves};
use crate::params::{
    correction_continuation_percent, correction_max, correction_max_error, correction_max_weight,
    correction_minor_percent, correction_nonpawn_percent, correction_pawn_percent,
};
use crate::score::Score;
use shakmaty::{Board, Chess, Color, Position, Role};

/// Keys tracked per side to move and per kind of key (a power of two).
const ENTRIES: usize = 1 << 14;
/// Entries hold centipawns times this, so small steps are not lost.
const GRAIN: i32 = 256;
/// The denominator of sample weights; a sample's weight is its depth plus
/// one, at most [`correction_max_weight`].
const WEIGHT_TOTAL: i32 = 256;

/// What a correction is keyed by: the pawns of both sides, White's other
/// pieces (king included), Black's other pieces, the knights and bishops of
/// both sides, and the last two moves (what moved where).
const KINDS: usize = 5;

/// What each key has learnt of the evaluation's error, by kind of key, side
/// to move and key.
pub struct CorrectionHistory {
    table: Box<[[[i32; ENTRIES]; 2]; KINDS]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            table: Box::new([[[0; ENTRIES]; 2]; KINDS]),
        }
    }
}

/// A well-mixed hash of bitboards; the table takes its top bits as the index.
fn hash(bitboards: impl IntoIterator<Item = u64>) -> usize {
    let mut h = 0u64;
    for (i, bits) in bitboards.into_iter().enumerate() {
        h = (h ^ bits.rotate_left(i as u32 * 13)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    (h >> (64 - ENTRIES.trailing_zeros())) as usize
}

/// A side's pieces other than pawns, by role.
fn non_pawns(board: &Board, side: Color) -> [u64; 5] {
    [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ]
    .map(|role| board.by_piece(role.of(side)).0)
}

/// A move as the continuation key sees it: the piece and its target
/// square, 0 for none (the root, or a null move).
fn moved_code(moved: MovedPiece) -> u64 {
    moved.map_or(0, |(piece, to)| {
        1 + (piece.color as u64 * 6 + piece.role as u64) * 64 + to as u64
    })
}

/// The side to move and the key of each kind for the position `pos`,
/// reached by the `previous` moves.
fn slots(pos: &Chess, previous: PreviousMoves) -> (usize, [usize; KINDS]) {
    let board = pos.board();
    let pawns = [
        board.by_piece(Color::Black.pawn()).0,
        board.by_piece(Color::White.pawn()).0,
    ];
    let minors = [Color::White, Color::Black].map(|side| {
        (board.by_piece(Role::Knight.of(side)) | board.by_piece(Role::Bishop.of(side))).0
    });
    let keys = [
        hash(pawns),
        hash(non_pawns(board, Color::White)),
        hash(non_pawns(board, Color::Black)),
        hash(minors),
        hash([moved_code(previous.one), moved_code(previous.two)]),
    ];
    (pos.turn() as usize, keys)
}

impl CorrectionHistory {
    /// `eval`, the static evaluation of `pos` (reached by the `previous`
    /// moves) for the side to move, shifted by the weighted sum of what its
    /// keys hold.
    pub fn correct(&self, pos: &Chess, previous: PreviousMoves, eval: Score) -> Score {
        let (side, keys) = slots(pos, previous);
        eval + self.correction(side, keys)
    }

    /// The correction, in centipawns, for the side to move `side` and the
    /// keys `keys`.
    fn correction(&self, side: usize, keys: [usize; KINDS]) -> Score {
        let [pawns, white, black, minors, moves] =
            [0, 1, 2, 3, 4].map(|kind| self.table[kind][side][keys[kind]]);
        let weighted = pawns * correction_pawn_percent()
            + (white + black) * correction_nonpawn_percent()
            + minors * correction_minor_percent()
            + moves * correction_continuation_percent();
        weighted / (100 * GRAIN)
    }

    /// Records that a search of `depth` found `pos` to be `error` centipawns
    /// better (for the side to move) than its uncorrected static evaluation:
    /// every key of the position moves by the part of the error its current
    /// correction misses. Deeper searches weigh more.
    pub fn update(&mut self, pos: &Chess, previous: PreviousMoves, depth: i32, error: Score) {
        let (side, keys) = slots(pos, previous);
        let weight = (depth + 1).clamp(1, correction_max_weight());
        let max_error = correction_max_error();
        let residual = error.clamp(-max_error, max_error) - self.correction(side, keys);
        let step = residual * GRAIN * weight / WEIGHT_TOTAL;
        let max = correction_max() * GRAIN;
        for (kind, key) in keys.into_iter().enumerate() {
            let entry = &mut self.table[kind][side][key];
            *entry = (*entry + step).clamp(-max, max);
        }
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

    /// No previous move (the root).
    const NONE: PreviousMoves = PreviousMoves {
        one: None,
        two: None,
        four: None,
    };

    /// The weights of all keys together, in percent.
    fn share() -> i32 {
        correction_pawn_percent()
            + 2 * correction_nonpawn_percent()
            + correction_minor_percent()
            + correction_continuation_percent()
    }

    /// Previous moves whose last is `piece` arriving on `to`.
    fn after(piece: shakmaty::Piece, to: shakmaty::Square) -> PreviousMoves {
        PreviousMoves {
            one: Some((piece, to)),
            ..NONE
        }
    }

    #[test]
    fn a_fresh_table_changes_nothing() {
        let table = CorrectionHistory::default();
        assert_eq!(table.correct(&Chess::default(), NONE, 37), 37);
    }

    #[test]
    fn a_steady_error_is_corrected_once_not_once_per_key() {
        let mut table = CorrectionHistory::default();
        let pos = Chess::default();
        for _ in 0..200 {
            table.update(&pos, NONE, 10, 30);
        }
        let corrected = table.correct(&pos, NONE, 0);
        assert!((28..=30).contains(&corrected), "{corrected}");
        // Large errors move the evaluation only so far.
        for _ in 0..200 {
            table.update(&pos, NONE, 10, -2_000);
        }
        assert_eq!(
            table.correct(&pos, NONE, 0),
            -correction_max() * share() / 100
        );
    }

    #[test]
    fn corrections_belong_to_their_keys_and_the_side_to_move() {
        use shakmaty::{Piece, Square};
        let mut table = CorrectionHistory::default();
        let white = Chess::default();
        for _ in 0..100 {
            table.update(&white, NONE, 12, 40);
        }
        // Same pawns, Black to move: untouched.
        let black = position("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
        let knight_f3 = after(Piece::from_char('N').unwrap(), Square::F3);
        assert_eq!(table.correct(&black, knight_f3, 5), 5);
        // Other pawns and pieces, White to move, after another move: untouched.
        let moved = position("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNBQKB1R w KQkq - 0 2");
        let knight_f6 = after(Piece::from_char('n').unwrap(), Square::F6);
        assert_eq!(table.correct(&moved, knight_f6, 5), 5);
        // The five keys of the start position learnt the same share of the
        // 40 centipawns, together all of it.
        let per_key = 40 * 100 / share();
        let near = |corrected: Score, expected: Score| {
            assert!(
                (expected - 2..=expected + 2).contains(&corrected),
                "{corrected} for {expected}"
            );
        };
        // The same position reached without moves: by the last moves alone.
        near(
            table.correct(&moved, NONE, 5),
            5 + per_key * correction_continuation_percent() / 100,
        );
        // Same pawns and White pieces, Black's knight moved: corrected by both.
        let knight = position("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2 2");
        let knight_c6 = after(Piece::from_char('n').unwrap(), Square::C6);
        near(
            table.correct(&knight, knight_c6, 5),
            5 + per_key * (correction_pawn_percent() + correction_nonpawn_percent()) / 100,
        );
        // Other pawns, same pieces of both sides: corrected by the pieces
        // and by the knights and bishops.
        let pawn_moved = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        let pawn_e4 = after(Piece::from_char('P').unwrap(), Square::E4);
        near(
            table.correct(&pawn_moved, pawn_e4, 5),
            5 + per_key * (2 * correction_nonpawn_percent() + correction_minor_percent()) / 100,
        );
    }

    #[test]
    fn deeper_searches_weigh_more() {
        let pos = Chess::default();
        let mut shallow = CorrectionHistory::default();
        let mut deep = CorrectionHistory::default();
        shallow.update(&pos, NONE, 1, 40);
        deep.update(&pos, NONE, 12, 40);
        let (side, keys) = slots(&pos, NONE);
        let entry = |t: &CorrectionHistory| t.table[0][side][keys[0]];
        assert!(entry(&deep) > entry(&shallow));
    }
}
