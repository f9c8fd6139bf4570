//! Win, draw and loss chances from a score: a model of how Sessa's games end
//! given its evaluation and the material on the board.
//!
//! The chance of winning is `σ((score − a) / b)` and of losing
//! `σ((−score − a) / b)`, the rest being a draw, where `σ` is the logistic
//! function and `a` (the score at which a win is as likely as not) and `b`
//! (how quickly the chance grows) are cubic polynomials in the material on
//! the board. The coefficients are fitted to Sessa's own games by
//! `bench/src/bin/wdl_fit.rs` (see `bench/README.md`); they belong to one
//! evaluation and are refitted when it changes.

use crate::score::{Score, is_decisive};
use shakmaty::{Board, Role};

/// Coefficients of `a(m)` in centipawns, cubic term first, with `m` the
/// material (see [`material`]) divided by [`MATERIAL_NORM`].
pub const A: [f64; 4] = [14.280, -97.554, -133.456, 357.248];
/// Coefficients of `b(m)` in centipawns, cubic term first.
pub const B: [f64; 4] = [-50.653, -14.683, 21.252, 173.455];
/// The material count at which `m = 1`: the model's reference position.
pub const MATERIAL_NORM: f64 = 58.0;
/// Material counts are clamped to this range before the model sees them.
pub const MATERIAL_RANGE: (i32, i32) = (17, 78);

/// Chances in permille from the side to move's point of view; they sum to 1000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wdl {
    /// Chance of winning.
    pub win: u32,
    /// Chance of a draw.
    pub draw: u32,
    /// Chance of losing.
    pub loss: u32,
}

/// The material on the board, both sides together, with pawns 1, knights and
/// bishops 3, rooks 5 and queens 9: how far the game is from its end.
pub fn material(board: &Board) -> i32 {
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .into_iter()
    .map(|(role, value)| value * board.by_role(role).count() as i32)
    .sum()
}

/// The model's `a` and `b` at a material count.
pub fn parameters(material: i32, a: &[f64; 4], b: &[f64; 4]) -> (f64, f64) {
    let m = f64::from(material.clamp(MATERIAL_RANGE.0, MATERIAL_RANGE.1)) / MATERIAL_NORM;
    let poly = |c: &[f64; 4]| ((c[0] * m + c[1]) * m + c[2]) * m + c[3];
    (poly(a), poly(b))
}

/// The chance of winning with `score` (centipawns) at `material`, by the
/// model with coefficients `a` and `b`.
pub fn win_chance(score: f64, material: i32, a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let (a, b) = parameters(material, a, b);
    1.0 / (1.0 + ((a - score) / b).exp())
}

impl Wdl {
    /// A certain draw (a tablebase draw).
    pub const DRAW: Wdl = Wdl {
        win: 0,
        draw: 1000,
        loss: 0,
    };

    /// A certain loss (the side to move is mated).
    pub const LOSS: Wdl = Wdl {
        win: 0,
        draw: 0,
        loss: 1000,
    };

    /// The chances the fitted model gives a search score at `material`.
    /// Mate scores and tablebase wins and losses are certain results.
    pub fn from_score(score: Score, material: i32) -> Wdl {
        if is_decisive(score) {
            let win = if score > 0 { 1000 } else { 0 };
            return Wdl {
                win,
                draw: 0,
                loss: 1000 - win,
            };
        }
        let score = f64::from(score);
        let win = (1000.0 * win_chance(score, material, &A, &B)).round() as u32;
        let loss = (1000.0 * win_chance(-score, material, &A, &B)).round() as u32;
        // Rounding may overshoot by one at the extremes.
        let loss = loss.min(1000 - win);
        Wdl {
            win,
            draw: 1000 - win - loss,
            loss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn chances_sum_to_a_thousand_and_grow_with_the_score() {
        for material in [20, 40, 60, 78] {
            let mut previous_win = 0;
            let mut previous_loss = 1000;
            for score in (-3000..=3000).step_by(50) {
                let wdl = Wdl::from_score(score, material);
                assert_eq!(wdl.win + wdl.draw + wdl.loss, 1000, "{score} {material}");
                assert!(wdl.win >= previous_win && wdl.loss <= previous_loss);
                previous_win = wdl.win;
                previous_loss = wdl.loss;
            }
            let level = Wdl::from_score(0, material);
            assert_eq!(level.win, level.loss);
        }
    }

    #[test]
    fn mates_and_tablebase_results_are_certain() {
        use crate::score::{MATE_BOUND, TB_WIN};
        assert_eq!(Wdl::from_score(TB_WIN - 5, 10).win, 1000);
        assert_eq!(Wdl::from_score(-TB_WIN + 5, 10).loss, 1000);
        assert_eq!(
            Wdl::from_score(MATE_BOUND + 3, 40),
            Wdl {
                win: 1000,
                draw: 0,
                loss: 0
            }
        );
        assert_eq!(Wdl::from_score(-MATE_BOUND - 3, 40).loss, 1000);
    }

    #[test]
    fn material_of_the_start_position() {
        assert_eq!(material(Chess::default().board()), 78);
    }
}
