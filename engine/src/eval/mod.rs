//! Static evaluation: tapered material and piece-square tables.
//!
//! The material values and tables are the published PeSTO parameters by
//! Ronald Friederich (Rofchade), listed on the Chess Programming Wiki page
//! "PeSTO's Evaluation Function". Tables are written from White's side with
//! rank 8 first, as published. The game phase runs from 24 (all pieces) to 0
//! (pawns and kings only) and blends the middlegame and endgame scores.

use shakmaty::{Chess, Color, Position, Role, Square};

/// A score in centipawns from the side to move's point of view.
pub type Score = i32;

/// Bonus for having the move.
pub const TEMPO: Score = 10;

/// Middlegame material values, pawn to king (PeSTO).
const MG_VALUE: [Score; 6] = [82, 337, 365, 477, 1025, 0];
/// Endgame material values, pawn to king (PeSTO).
const EG_VALUE: [Score; 6] = [94, 281, 297, 512, 936, 0];
/// Phase weight of each piece type, pawn to king.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Phase of the full set of pieces.
pub const MAX_PHASE: i32 = 24;

#[rustfmt::skip]
const MG_PAWN: [Score; 64] = [
      0,   0,   0,   0,   0,   0,  0,   0,
     98, 134,  61,  95,  68, 126, 34, -11,
     -6,   7,  26,  31,  65,  56, 25, -20,
    -14,  13,   6,  21,  23,  12, 17, -23,
    -27,  -2,  -5,  12,  17,   6, 10, -25,
    -26,  -4,  -4, -10,   3,   3, 33, -12,
    -35,  -1, -20, -23, -15,  24, 38, -22,
      0,   0,   0,   0,   0,   0,  0,   0,
];
#[rustfmt::skip]
const EG_PAWN: [Score; 64] = [
      0,   0,   0,   0,   0,   0,   0,   0,
    178, 173, 158, 134, 147, 132, 165, 187,
     94, 100,  85,  67,  56,  53,  82,  84,
     32,  24,  13,   5,  -2,   4,  17,  17,
     13,   9,  -3,  -7,  -7,  -8,   3,  -1,
      4,   7,  -6,   1,   0,  -5,  -1,  -8,
     13,   8,   8,  10,  13,   0,   2,  -7,
      0,   0,   0,   0,   0,   0,   0,   0,
];
#[rustfmt::skip]
const MG_KNIGHT: [Score; 64] = [
    -167, -89, -34, -49,  61, -97, -15, -107,
     -73, -41,  72,  36,  23,  62,   7,  -17,
     -47,  60,  37,  65,  84, 129,  73,   44,
      -9,  17,  19,  53,  37,  69,  18,   22,
     -13,   4,  16,  13,  28,  19,  21,   -8,
     -23,  -9,  12,  10,  19,  17,  25,  -16,
     -29, -53, -12,  -3,  -1,  18, -14,  -19,
    -105, -21, -58, -33, -17, -28, -19,  -23,
];
#[rustfmt::skip]
const EG_KNIGHT: [Score; 64] = [
    -58, -38, -13, -28, -31, -27, -63, -99,
    -25,  -8, -25,  -2,  -9, -25, -24, -52,
    -24, -20,  10,   9,  -1,  -9, -19, -41,
    -17,   3,  22,  22,  22,  11,   8, -18,
    -18,  -6,  16,  25,  16,  17,   4, -18,
    -23,  -3,  -1,  15,  10,  -3, -20, -22,
    -42, -20, -10,  -5,  -2, -20, -23, -44,
    -29, -51, -23, -15, -22, -18, -50, -64,
];
#[rustfmt::skip]
const MG_BISHOP: [Score; 64] = [
    -29,   4, -82, -37, -25, -42,   7,  -8,
    -26,  16, -18, -13,  30,  59,  18, -47,
    -16,  37,  43,  40,  35,  50,  37,  -2,
     -4,   5,  19,  50,  37,  37,   7,  -2,
     -6,  13,  13,  26,  34,  12,  10,   4,
      0,  15,  15,  15,  14,  27,  18,  10,
      4,  15,  16,   0,   7,  21,  33,   1,
    -33,  -3, -14, -21, -13, -12, -39, -21,
];
#[rustfmt::skip]
const EG_BISHOP: [Score; 64] = [
    -14, -21, -11,  -8, -7,  -9, -17, -24,
     -8,  -4,   7, -12, -3, -13,  -4, -14,
      2,  -8,   0,  -1, -2,   6,   0,   4,
     -3,   9,  12,   9, 14,  10,   3,   2,
     -6,   3,  13,  19,  7,  10,  -3,  -9,
    -12,  -3,   8,  10, 13,   3,  -7, -15,
    -14, -18,  -7,  -1,  4,  -9, -15, -27,
    -23,  -9, -23,  -5, -9, -16,  -5, -17,
];
#[rustfmt::skip]
const MG_ROOK: [Score; 64] = [
     32,  42,  32,  51, 63,  9,  31,  43,
     27,  32,  58,  62, 80, 67,  26,  44,
     -5,  19,  26,  36, 17, 45,  61,  16,
    -24, -11,   7,  26, 24, 35,  -8, -20,
    -36, -26, -12,  -1,  9, -7,   6, -23,
    -45, -25, -16, -17,  3,  0,  -5, -33,
    -44, -16, -20,  -9, -1, 11,  -6, -71,
    -19, -13,   1,  17, 16,  7, -37, -26,
];
#[rustfmt::skip]
const EG_ROOK: [Score; 64] = [
    13, 10, 18, 15, 12,  12,   8,   5,
    11, 13, 13, 11, -3,   3,   8,   3,
     7,  7,  7,  5,  4,  -3,  -5,  -3,
     4,  3, 13,  1,  2,   1,  -1,   2,
     3,  5,  8,  4, -5,  -6,  -8, -11,
    -4,  0, -5, -1, -7, -12,  -8, -16,
    -6, -6,  0,  2, -9,  -9, -11,  -3,
    -9,  2,  3, -1, -5, -13,   4, -20,
];
#[rustfmt::skip]
const MG_QUEEN: [Score; 64] = [
    -28,   0,  29,  12,  59,  44,  43,  45,
    -24, -39,  -5,   1, -16,  57,  28,  54,
    -13, -17,   7,   8,  29,  56,  47,  57,
    -27, -27, -16, -16,  -1,  17,  -2,   1,
     -9, -26,  -9, -10,  -2,  -4,   3,  -3,
    -14,   2, -11,  -2,  -5,   2,  14,   5,
    -35,  -8,  11,   2,   8,  15,  -3,   1,
     -1, -18,  -9,  10, -15, -25, -31, -50,
];
#[rustfmt::skip]
const EG_QUEEN: [Score; 64] = [
     -9,  22,  22,  27,  27,  19,  10,  20,
    -17,  20,  32,  41,  58,  25,  30,   0,
    -20,   6,   9,  49,  47,  35,  19,   9,
      3,  22,  24,  45,  57,  40,  57,  36,
    -18,  28,  19,  47,  31,  34,  39,  23,
    -16, -27,  15,   6,   9,  17,  10,   5,
    -22, -23, -30, -16, -16, -23, -36, -32,
    -33, -28, -22, -43,  -5, -32, -20, -41,
];
#[rustfmt::skip]
const MG_KING: [Score; 64] = [
    -65,  23,  16, -15, -56, -34,   2,  13,
     29,  -1, -20,  -7,  -8,  -4, -38, -29,
     -9,  24,   2, -16, -20,   6,  22, -22,
    -17, -20, -12, -27, -30, -25, -14, -36,
    -49,  -1, -27, -39, -46, -44, -33, -51,
    -14, -14, -22, -46, -44, -30, -15, -27,
      1,   7,  -8, -64, -43, -16,   9,   8,
    -15,  36,  12, -54,   8, -28,  24,  14,
];
#[rustfmt::skip]
const EG_KING: [Score; 64] = [
    -74, -35, -18, -18, -11,  15,   4, -17,
    -12,  17,  14,  17,  17,  38,  23,  11,
     10,  17,  23,  15,  20,  45,  44,  13,
     -8,  22,  24,  27,  26,  33,  26,   3,
    -18,  -4,  21,  24,  27,  23,   9, -11,
    -19,  -3,  11,  21,  23,  16,   7,  -9,
    -27, -11,   4,  13,  14,   4,  -5, -17,
    -53, -34, -21, -11, -28, -14, -24, -43,
];

const MG_TABLES: [&[Score; 64]; 6] = [
    &MG_PAWN, &MG_KNIGHT, &MG_BISHOP, &MG_ROOK, &MG_QUEEN, &MG_KING,
];
const EG_TABLES: [&[Score; 64]; 6] = [
    &EG_PAWN, &EG_KNIGHT, &EG_BISHOP, &EG_ROOK, &EG_QUEEN, &EG_KING,
];

/// Material plus square bonus of every (colour, role, square), middlegame and
/// endgame, built at compile time. Index: `[colour][role - 1][square]`.
struct PieceSquare {
    mg: [[[Score; 64]; 6]; 2],
    eg: [[[Score; 64]; 6]; 2],
}

const PIECE_SQUARE: PieceSquare = build_piece_square();

const fn build_piece_square() -> PieceSquare {
    let mut table = PieceSquare {
        mg: [[[0; 64]; 6]; 2],
        eg: [[[0; 64]; 6]; 2],
    };
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            // Published tables list rank 8 first: White's square `sq` (a1 = 0)
            // is entry `sq ^ 56`, Black's is the vertical mirror, entry `sq`.
            table.mg[Color::White as usize][role][sq] = MG_VALUE[role] + MG_TABLES[role][sq ^ 56];
            table.eg[Color::White as usize][role][sq] = EG_VALUE[role] + EG_TABLES[role][sq ^ 56];
            table.mg[Color::Black as usize][role][sq] = MG_VALUE[role] + MG_TABLES[role][sq];
            table.eg[Color::Black as usize][role][sq] = EG_VALUE[role] + EG_TABLES[role][sq];
            sq += 1;
        }
        role += 1;
    }
    table
}

/// The parts of an evaluation, for the `eval` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Breakdown {
    /// Middlegame score, White's point of view.
    pub mg: Score,
    /// Endgame score, White's point of view.
    pub eg: Score,
    /// Game phase, 0 (bare endgame) to 24 (all pieces).
    pub phase: i32,
    /// Blended score, White's point of view, without tempo.
    pub blended: Score,
    /// Final score from the side to move's point of view, with tempo.
    pub side_to_move: Score,
}

/// Evaluates a position in detail.
pub fn breakdown(pos: &Chess) -> Breakdown {
    let board = pos.board();
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for (sq, piece) in board {
        let role = piece.role as usize - 1;
        let colour = piece.color as usize;
        let sign = if piece.color == Color::White { 1 } else { -1 };
        mg += sign * PIECE_SQUARE.mg[colour][role][sq as usize];
        eg += sign * PIECE_SQUARE.eg[colour][role][sq as usize];
        phase += PHASE_WEIGHT[role];
    }
    let phase = phase.min(MAX_PHASE);
    let blended = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let relative = if pos.turn() == Color::White {
        blended
    } else {
        -blended
    };
    Breakdown {
        mg,
        eg,
        phase,
        blended,
        side_to_move: relative + TEMPO,
    }
}

/// The static evaluation from the side to move's point of view.
pub fn evaluate(pos: &Chess) -> Score {
    breakdown(pos).side_to_move
}

/// Middlegame value of a piece type, used for move ordering.
pub fn piece_value(role: Role) -> Score {
    MG_VALUE[role as usize - 1]
}

/// Middlegame square bonus of a piece, for tests and diagnostics.
pub fn square_bonus(color: Color, role: Role, sq: Square) -> Score {
    PIECE_SQUARE.mg[color as usize][role as usize - 1][sq as usize] - MG_VALUE[role as usize - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn start_position_is_tempo() {
        assert_eq!(evaluate(&Chess::default()), TEMPO);
    }

    #[test]
    fn mirrored_positions_evaluate_the_same() {
        for fen in [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let p = pos(fen);
            let mirrored: Chess = p
                .to_setup(EnPassantMode::Legal)
                .into_mirrored()
                .position(CastlingMode::Standard)
                .unwrap();
            assert_eq!(evaluate(&p), evaluate(&mirrored), "{fen}");
        }
    }

    #[test]
    fn extra_queen_is_winning() {
        let p = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert!(evaluate(&p) > 800);
        let p = pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
        assert!(evaluate(&p) < -800);
    }

    #[test]
    fn knight_prefers_the_centre() {
        assert!(
            square_bonus(Color::White, Role::Knight, Square::E4)
                > square_bonus(Color::White, Role::Knight, Square::A1)
        );
        assert_eq!(
            square_bonus(Color::White, Role::Knight, Square::E4),
            square_bonus(Color::Black, Role::Knight, Square::E5)
        );
    }
}
