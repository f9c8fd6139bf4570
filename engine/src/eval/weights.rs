//! Every weight of the evaluation, in the layout of `terms::TERMS`.
//!
//! Written by the tuner (`cargo run --release -p bench --bin tune`, see
//! `bench/README.md`); edit by re-tuning rather than by hand.

use super::score::S;
use super::terms::COUNT;

/// The weights, middlegame and endgame, in centipawns.
#[rustfmt::skip]
pub const WEIGHTS: [S; COUNT] = [
    // MATERIAL
    S::new(82, 94), S::new(337, 281), S::new(365, 297), S::new(477, 512), S::new(1025, 936),
    // PSQT
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    S::new(-35, 13), S::new(-1, 8), S::new(-20, 8), S::new(-23, 10), S::new(-15, 13), S::new(24, 0), S::new(38, 2), S::new(-22, -7),
    S::new(-26, 4), S::new(-4, 7), S::new(-4, -6), S::new(-10, 1), S::new(3, 0), S::new(3, -5), S::new(33, -1), S::new(-12, -8),
    S::new(-27, 13), S::new(-2, 9), S::new(-5, -3), S::new(12, -7), S::new(17, -7), S::new(6, -8), S::new(10, 3), S::new(-25, -1),
    S::new(-14, 32), S::new(13, 24), S::new(6, 13), S::new(21, 5), S::new(23, -2), S::new(12, 4), S::new(17, 17), S::new(-23, 17),
    S::new(-6, 94), S::new(7, 100), S::new(26, 85), S::new(31, 67), S::new(65, 56), S::new(56, 53), S::new(25, 82), S::new(-20, 84),
    S::new(98, 178), S::new(134, 173), S::new(61, 158), S::new(95, 134), S::new(68, 147), S::new(126, 132), S::new(34, 165), S::new(-11, 187),
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    S::new(-105, -29), S::new(-21, -51), S::new(-58, -23), S::new(-33, -15), S::new(-17, -22), S::new(-28, -18), S::new(-19, -50), S::new(-23, -64),
    S::new(-29, -42), S::new(-53, -20), S::new(-12, -10), S::new(-3, -5), S::new(-1, -2), S::new(18, -20), S::new(-14, -23), S::new(-19, -44),
    S::new(-23, -23), S::new(-9, -3), S::new(12, -1), S::new(10, 15), S::new(19, 10), S::new(17, -3), S::new(25, -20), S::new(-16, -22),
    S::new(-13, -18), S::new(4, -6), S::new(16, 16), S::new(13, 25), S::new(28, 16), S::new(19, 17), S::new(21, 4), S::new(-8, -18),
    S::new(-9, -17), S::new(17, 3), S::new(19, 22), S::new(53, 22), S::new(37, 22), S::new(69, 11), S::new(18, 8), S::new(22, -18),
    S::new(-47, -24), S::new(60, -20), S::new(37, 10), S::new(65, 9), S::new(84, -1), S::new(129, -9), S::new(73, -19), S::new(44, -41),
    S::new(-73, -25), S::new(-41, -8), S::new(72, -25), S::new(36, -2), S::new(23, -9), S::new(62, -25), S::new(7, -24), S::new(-17, -52),
    S::new(-167, -58), S::new(-89, -38), S::new(-34, -13), S::new(-49, -28), S::new(61, -31), S::new(-97, -27), S::new(-15, -63), S::new(-107, -99),
    S::new(-33, -23), S::new(-3, -9), S::new(-14, -23), S::new(-21, -5), S::new(-13, -9), S::new(-12, -16), S::new(-39, -5), S::new(-21, -17),
    S::new(4, -14), S::new(15, -18), S::new(16, -7), S::new(0, -1), S::new(7, 4), S::new(21, -9), S::new(33, -15), S::new(1, -27),
    S::new(0, -12), S::new(15, -3), S::new(15, 8), S::new(15, 10), S::new(14, 13), S::new(27, 3), S::new(18, -7), S::new(10, -15),
    S::new(-6, -6), S::new(13, 3), S::new(13, 13), S::new(26, 19), S::new(34, 7), S::new(12, 10), S::new(10, -3), S::new(4, -9),
    S::new(-4, -3), S::new(5, 9), S::new(19, 12), S::new(50, 9), S::new(37, 14), S::new(37, 10), S::new(7, 3), S::new(-2, 2),
    S::new(-16, 2), S::new(37, -8), S::new(43, 0), S::new(40, -1), S::new(35, -2), S::new(50, 6), S::new(37, 0), S::new(-2, 4),
    S::new(-26, -8), S::new(16, -4), S::new(-18, 7), S::new(-13, -12), S::new(30, -3), S::new(59, -13), S::new(18, -4), S::new(-47, -14),
    S::new(-29, -14), S::new(4, -21), S::new(-82, -11), S::new(-37, -8), S::new(-25, -7), S::new(-42, -9), S::new(7, -17), S::new(-8, -24),
    S::new(-19, -9), S::new(-13, 2), S::new(1, 3), S::new(17, -1), S::new(16, -5), S::new(7, -13), S::new(-37, 4), S::new(-26, -20),
    S::new(-44, -6), S::new(-16, -6), S::new(-20, 0), S::new(-9, 2), S::new(-1, -9), S::new(11, -9), S::new(-6, -11), S::new(-71, -3),
    S::new(-45, -4), S::new(-25, 0), S::new(-16, -5), S::new(-17, -1), S::new(3, -7), S::new(0, -12), S::new(-5, -8), S::new(-33, -16),
    S::new(-36, 3), S::new(-26, 5), S::new(-12, 8), S::new(-1, 4), S::new(9, -5), S::new(-7, -6), S::new(6, -8), S::new(-23, -11),
    S::new(-24, 4), S::new(-11, 3), S::new(7, 13), S::new(26, 1), S::new(24, 2), S::new(35, 1), S::new(-8, -1), S::new(-20, 2),
    S::new(-5, 7), S::new(19, 7), S::new(26, 7), S::new(36, 5), S::new(17, 4), S::new(45, -3), S::new(61, -5), S::new(16, -3),
    S::new(27, 11), S::new(32, 13), S::new(58, 13), S::new(62, 11), S::new(80, -3), S::new(67, 3), S::new(26, 8), S::new(44, 3),
    S::new(32, 13), S::new(42, 10), S::new(32, 18), S::new(51, 15), S::new(63, 12), S::new(9, 12), S::new(31, 8), S::new(43, 5),
    S::new(-1, -33), S::new(-18, -28), S::new(-9, -22), S::new(10, -43), S::new(-15, -5), S::new(-25, -32), S::new(-31, -20), S::new(-50, -41),
    S::new(-35, -22), S::new(-8, -23), S::new(11, -30), S::new(2, -16), S::new(8, -16), S::new(15, -23), S::new(-3, -36), S::new(1, -32),
    S::new(-14, -16), S::new(2, -27), S::new(-11, 15), S::new(-2, 6), S::new(-5, 9), S::new(2, 17), S::new(14, 10), S::new(5, 5),
    S::new(-9, -18), S::new(-26, 28), S::new(-9, 19), S::new(-10, 47), S::new(-2, 31), S::new(-4, 34), S::new(3, 39), S::new(-3, 23),
    S::new(-27, 3), S::new(-27, 22), S::new(-16, 24), S::new(-16, 45), S::new(-1, 57), S::new(17, 40), S::new(-2, 57), S::new(1, 36),
    S::new(-13, -20), S::new(-17, 6), S::new(7, 9), S::new(8, 49), S::new(29, 47), S::new(56, 35), S::new(47, 19), S::new(57, 9),
    S::new(-24, -17), S::new(-39, 20), S::new(-5, 32), S::new(1, 41), S::new(-16, 58), S::new(57, 25), S::new(28, 30), S::new(54, 0),
    S::new(-28, -9), S::new(0, 22), S::new(29, 22), S::new(12, 27), S::new(59, 27), S::new(44, 19), S::new(43, 10), S::new(45, 20),
    S::new(-15, -53), S::new(36, -34), S::new(12, -21), S::new(-54, -11), S::new(8, -28), S::new(-28, -14), S::new(24, -24), S::new(14, -43),
    S::new(1, -27), S::new(7, -11), S::new(-8, 4), S::new(-64, 13), S::new(-43, 14), S::new(-16, 4), S::new(9, -5), S::new(8, -17),
    S::new(-14, -19), S::new(-14, -3), S::new(-22, 11), S::new(-46, 21), S::new(-44, 23), S::new(-30, 16), S::new(-15, 7), S::new(-27, -9),
    S::new(-49, -18), S::new(-1, -4), S::new(-27, 21), S::new(-39, 24), S::new(-46, 27), S::new(-44, 23), S::new(-33, 9), S::new(-51, -11),
    S::new(-17, -8), S::new(-20, 22), S::new(-12, 24), S::new(-27, 27), S::new(-30, 26), S::new(-25, 33), S::new(-14, 26), S::new(-36, 3),
    S::new(-9, 10), S::new(24, 17), S::new(2, 23), S::new(-16, 15), S::new(-20, 20), S::new(6, 45), S::new(22, 44), S::new(-22, 13),
    S::new(29, -12), S::new(-1, 17), S::new(-20, 14), S::new(-7, 17), S::new(-8, 17), S::new(-4, 38), S::new(-38, 23), S::new(-29, 11),
    S::new(-65, -74), S::new(23, -35), S::new(16, -18), S::new(-15, -18), S::new(-56, -11), S::new(-34, 15), S::new(2, 4), S::new(13, -17),
    // MOBILITY_KNIGHT
    S::new(-16, -16), S::new(-12, -12), S::new(-8, -8), S::new(-4, -4), S::new(0, 0), S::new(4, 4), S::new(8, 8), S::new(12, 12),
    S::new(16, 16),
    // MOBILITY_BISHOP
    S::new(-24, -30), S::new(-20, -25), S::new(-16, -20), S::new(-12, -15), S::new(-8, -10), S::new(-4, -5), S::new(0, 0), S::new(4, 5),
    S::new(8, 10), S::new(12, 15), S::new(16, 20), S::new(20, 25), S::new(24, 30), S::new(28, 35),
    // MOBILITY_ROOK
    S::new(-14, -28), S::new(-12, -24), S::new(-10, -20), S::new(-8, -16), S::new(-6, -12), S::new(-4, -8), S::new(-2, -4), S::new(0, 0),
    S::new(2, 4), S::new(4, 8), S::new(6, 12), S::new(8, 16), S::new(10, 20), S::new(12, 24), S::new(14, 28),
    // MOBILITY_QUEEN
    S::new(-13, -26), S::new(-12, -24), S::new(-11, -22), S::new(-10, -20), S::new(-9, -18), S::new(-8, -16), S::new(-7, -14), S::new(-6, -12),
    S::new(-5, -10), S::new(-4, -8), S::new(-3, -6), S::new(-2, -4), S::new(-1, -2), S::new(0, 0), S::new(1, 2), S::new(2, 4),
    S::new(3, 6), S::new(4, 8), S::new(5, 10), S::new(6, 12), S::new(7, 14), S::new(8, 16), S::new(9, 18), S::new(10, 20),
    S::new(11, 22), S::new(12, 24), S::new(13, 26), S::new(14, 28),
    // PAWN_ISOLATED
    S::new(-5, -10),
    // PAWN_DOUBLED
    S::new(-10, -20),
    // PAWN_BACKWARD
    S::new(-5, -8),
    // PAWN_CONNECTED
    S::new(0, 0), S::new(3, 0), S::new(5, 3), S::new(8, 5), S::new(12, 10), S::new(25, 25), S::new(40, 40), S::new(0, 0),
    // PASSED_RANK
    S::new(0, 0), S::new(0, 5), S::new(0, 5), S::new(5, 10), S::new(10, 20), S::new(20, 30), S::new(30, 40), S::new(0, 0),
    // PASSED_FREE
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 5), S::new(0, 10), S::new(5, 20), S::new(10, 40), S::new(0, 0),
    // PASSED_OWN_KING
    S::new(0, 6), S::new(0, 4), S::new(0, 2), S::new(0, 0), S::new(0, -2), S::new(0, -4), S::new(0, -6), S::new(0, -8),
    // PASSED_ENEMY_KING
    S::new(0, -8), S::new(0, -4), S::new(0, 0), S::new(0, 4), S::new(0, 8), S::new(0, 12), S::new(0, 16), S::new(0, 20),
    // KING_ATTACKERS
    S::new(0, 0), S::new(0, 0), S::new(10, 2), S::new(30, 5), S::new(60, 10), S::new(90, 15), S::new(120, 20), S::new(150, 25),
    // KING_ATTACKER_WEIGHT
    S::new(8, 0), S::new(6, 0), S::new(10, 0), S::new(15, 0),
    // KING_ZONE_ATTACKS
    S::new(3, 0),
    // SAFE_CHECK
    S::new(30, 5), S::new(20, 5), S::new(30, 5), S::new(20, 5),
    // KING_SHELTER
    S::new(2, 0), S::new(10, 0), S::new(6, 0), S::new(2, 0), S::new(0, 0), S::new(-2, 0), S::new(-3, 0), S::new(-8, 0),
    S::new(5, 0), S::new(20, 0), S::new(12, 0), S::new(4, 0), S::new(0, 0), S::new(-4, 0), S::new(-6, 0), S::new(-15, 0),
    // KING_STORM
    S::new(-2, 0), S::new(-2, 0), S::new(-20, 0), S::new(-10, 0), S::new(-5, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    S::new(-1, 0), S::new(-1, 0), S::new(-7, 0), S::new(-4, 0), S::new(-2, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    // KING_OPEN_FILE
    S::new(-15, 0),
    // BISHOP_PAIR
    S::new(25, 45),
    // ROOK_OPEN_FILE
    S::new(25, 10),
    // ROOK_SEMI_OPEN_FILE
    S::new(10, 5),
    // ROOK_SEVENTH
    S::new(5, 20),
    // KNIGHT_OUTPOST
    S::new(20, 10),
    // BISHOP_OUTPOST
    S::new(12, 5),
    // THREAT_BY_PAWN
    S::new(0, 0), S::new(40, 30), S::new(40, 30), S::new(55, 30), S::new(50, 30),
    // THREAT_BY_MINOR
    S::new(3, 15), S::new(15, 20), S::new(15, 20), S::new(35, 20), S::new(30, 30),
    // THREAT_BY_ROOK
    S::new(2, 10), S::new(10, 15), S::new(10, 15), S::new(0, 10), S::new(30, 25),
    // HANGING
    S::new(15, 10),
    // SPACE
    S::new(2, 0),
    // TEMPO
    S::new(10, 10),
];
