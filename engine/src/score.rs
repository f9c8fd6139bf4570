//! Scores: centipawns or mate distances from the side to move's point of
//! view, the bounds that separate the two, and how UCI reports them. The
//! search, the transposition table and the parameters all use these, so
//! they live apart from any of them.

/// A score in centipawns (or a mate score) from the side to move's view.
pub type Score = i32;

/// Deepest ply the search reaches, quiescence included.
pub const MAX_PLY: usize = 128;
/// The score of being checkmated at the root; mate in `n` plies is `MATE - n`.
pub const MATE: Score = 32_000;
/// Scores at or beyond this magnitude are mate scores.
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;
/// Larger than any score.
pub const INFINITY: Score = MATE + 1;

/// A score as UCI reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportedScore {
    /// Centipawns from the engine's point of view.
    Centipawns(Score),
    /// Mate in this many moves (negative: the engine gets mated).
    Mate(i32),
}

impl ReportedScore {
    /// Converts an internal score.
    pub fn from_score(score: Score) -> ReportedScore {
        if score >= MATE_BOUND {
            ReportedScore::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            ReportedScore::Mate(-(MATE + score) / 2)
        } else {
            ReportedScore::Centipawns(score)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_scores() {
        assert_eq!(ReportedScore::from_score(MATE - 1), ReportedScore::Mate(1));
        assert_eq!(ReportedScore::from_score(MATE - 3), ReportedScore::Mate(2));
        assert_eq!(
            ReportedScore::from_score(-MATE + 2),
            ReportedScore::Mate(-1)
        );
        assert_eq!(
            ReportedScore::from_score(-MATE + 4),
            ReportedScore::Mate(-2)
        );
        assert_eq!(ReportedScore::from_score(35), ReportedScore::Centipawns(35));
    }
}
