//! Playing strength below full strength (`UCI_LimitStrength`, `UCI_Elo`).
//!
//! A weaker Sessa searches fewer nodes and, at the lowest levels, sometimes
//! plays a somewhat worse move than its best. The node budget of a level is
//! read from [`NODE_ANCHORS`], levels measured in matches, with the number
//! of nodes between two anchors growing geometrically. Below
//! [`NOISE_FROM_ELO`] the move is drawn from the best [`LINES`] root moves
//! with chances falling off with their score gap to the best (a softmax whose
//! temperature grows as the level falls), so the engine errs the way a weaker
//! player does: more often and by more when the choice is close, rarely into
//! an outright blunder. The time management is the one of full strength, so
//! a weaker engine is never slower and never more at risk on the clock.
//!
//! The anchors are fitted by matches against Stockfish limited to the same
//! Elo at 8 s + 0.08 s (see `bench/RESULTS.md` and the README's calibration
//! table).

use crate::report::PvLine;
use crate::score::is_decisive;

/// Lowest Elo offered.
pub const MIN_ELO: u32 = 1320;
/// Highest Elo offered, on the scale of Stockfish's own `UCI_Elo`; full
/// strength is well above it.
pub const MAX_ELO: u32 = 2200;
/// Root lines a limited engine searches to choose among, at the levels
/// that draw their move (below [`NOISE_FROM_ELO`]).
pub const LINES: usize = 4;
/// Levels and their node budgets per move, by Elo, from the calibration
/// matches; the first is [`MIN_ELO`] and the last [`MAX_ELO`]. Budgets in
/// nodes rather than time keep a level as strong at any clock. How each
/// anchor was measured and refitted is logged in `bench/RESULTS.md`.
pub const NODE_ANCHORS: [(u32, f64); 4] = [
    (MIN_ELO, 350.0),
    (1500, 1_300.0),
    (1900, 5_000.0),
    (MAX_ELO, 45_000.0),
];
/// From this Elo down, the move is drawn among the best lines.
pub const NOISE_FROM_ELO: f64 = 1800.0;
/// Centipawns of softmax temperature per Elo below [`NOISE_FROM_ELO`].
pub const NOISE_PER_ELO: f64 = 0.15;

/// A requested playing strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrengthLimit {
    /// The Elo asked for, within [`MIN_ELO`]..=[`MAX_ELO`].
    pub elo: u32,
}

impl StrengthLimit {
    /// The limit for `elo`, clamped to the offered range.
    pub fn new(elo: u32) -> StrengthLimit {
        StrengthLimit {
            elo: elo.clamp(MIN_ELO, MAX_ELO),
        }
    }

    /// Nodes a move may search at this level (all threads together),
    /// interpolated geometrically between the two nearest [`NODE_ANCHORS`].
    pub fn node_budget(self) -> u64 {
        let elo = f64::from(self.elo);
        let upper = NODE_ANCHORS
            .iter()
            .position(|&(anchor, _)| f64::from(anchor) >= elo)
            .unwrap_or(NODE_ANCHORS.len() - 1)
            .max(1);
        let (low_elo, low_nodes) = NODE_ANCHORS[upper - 1];
        let (high_elo, high_nodes) = NODE_ANCHORS[upper];
        let share = (elo - f64::from(low_elo)) / f64::from(high_elo - low_elo);
        (low_nodes * (high_nodes / low_nodes).powf(share)).round() as u64
    }

    /// The softmax temperature of the move choice, in centipawns (0: the best move).
    pub fn temperature(self) -> f64 {
        (NOISE_FROM_ELO - f64::from(self.elo)).max(0.0) * NOISE_PER_ELO
    }

    /// Root lines to search at this level: [`LINES`] where the move is drawn
    /// among them, one where the best is always played (more lines would
    /// only cost depth).
    pub fn lines(self) -> usize {
        if self.temperature() > 0.0 { LINES } else { 1 }
    }

    /// Picks the line to play among `lines` (best first), with `random` a
    /// uniform draw in `[0, 1)`. When the best line is a proven mate or a
    /// tablebase result it is always played; a line whose own score is one
    /// (for either side) is never chosen instead; other lines are chosen
    /// with a weight of `exp(−gap / temperature)`, so one much worse than
    /// the best is all but never played.
    pub fn choose(self, lines: &[PvLine], random: f64) -> usize {
        let temperature = self.temperature();
        let Some(best) = lines.first() else {
            return 0;
        };
        if temperature <= 0.0 || is_decisive(best.score) {
            return 0;
        }
        let weights: Vec<f64> = lines
            .iter()
            .map(|line| {
                if line.pv.is_empty() || is_decisive(line.score) {
                    return 0.0;
                }
                let gap = f64::from(best.score - line.score).max(0.0);
                (-gap / temperature).exp()
            })
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return 0;
        }
        let mut threshold = random * total;
        for (index, weight) in weights.iter().enumerate() {
            if threshold < *weight {
                return index;
            }
            threshold -= weight;
        }
        0
    }
}

/// A small random number generator for the move choice (xorshift64*),
/// seeded once per engine.
#[derive(Debug, Clone)]
pub struct ChoiceRng(u64);

impl ChoiceRng {
    /// A generator from `seed` (any value; 0 is mapped to a fixed odd one).
    pub fn new(seed: u64) -> ChoiceRng {
        ChoiceRng(seed | 1)
    }

    /// A uniform draw in `[0, 1)`.
    pub fn next_unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{MATE, Score, TB_WIN};
    use shakmaty::{Move, Role, Square};

    fn line(score: Score) -> PvLine {
        PvLine {
            score,
            pv: vec![Move::Normal {
                role: Role::Pawn,
                from: Square::E2,
                capture: None,
                to: Square::E4,
                promotion: None,
            }],
            from_tablebase: false,
        }
    }

    #[test]
    fn budgets_grow_with_the_level() {
        assert_eq!(StrengthLimit::new(0).elo, MIN_ELO);
        assert_eq!(StrengthLimit::new(5000).elo, MAX_ELO);
        let mut previous = 0;
        for elo in (MIN_ELO..=MAX_ELO).step_by(40) {
            let budget = StrengthLimit::new(elo).node_budget();
            assert!(budget > previous, "{elo}: {budget}");
            previous = budget;
        }
        for (elo, nodes) in NODE_ANCHORS {
            assert_eq!(StrengthLimit::new(elo).node_budget(), nodes as u64);
        }
        assert_eq!(StrengthLimit::new(2000).temperature(), 0.0);
        assert!(StrengthLimit::new(1400).temperature() > StrengthLimit::new(1800).temperature());
        assert_eq!(StrengthLimit::new(1400).lines(), LINES);
        assert_eq!(StrengthLimit::new(2000).lines(), 1);
    }

    #[test]
    fn weak_levels_sometimes_play_close_alternatives() {
        let lines = [line(50), line(40), line(-100), line(-600)];
        let weak = StrengthLimit::new(MIN_ELO);
        let mut rng = ChoiceRng::new(9);
        let mut chosen = [0; 4];
        for _ in 0..10_000 {
            chosen[weak.choose(&lines, rng.next_unit())] += 1;
        }
        assert!(chosen[0] > chosen[1] && chosen[1] > chosen[2] && chosen[2] > chosen[3]);
        assert!(chosen[1] > 2000, "{chosen:?}");
        assert!(chosen[3] < 100, "{chosen:?}");
        // Full strength and strong levels always play the best line.
        let strong = StrengthLimit::new(2000);
        assert!((0..100).all(|_| strong.choose(&lines, rng.next_unit()) == 0));
    }

    #[test]
    fn decisive_lines_are_not_traded() {
        let weak = StrengthLimit::new(MIN_ELO);
        let mating = [line(MATE - 3), line(45), line(40)];
        let winning = [line(TB_WIN - 10), line(30)];
        let mut rng = ChoiceRng::new(4);
        for _ in 0..1000 {
            assert_eq!(weak.choose(&mating, rng.next_unit()), 0);
            assert_eq!(weak.choose(&winning, rng.next_unit()), 0);
        }
        // A line that would be mated is never picked over the best one.
        let trap = [line(20), line(-MATE + 4)];
        assert!((0..1000).all(|_| weak.choose(&trap, rng.next_unit()) == 0));
    }
}
