//! Scores: centipawns, tablebase results or mate distances from the side to
//! move's point of view, the bounds that separate them, and how UCI reports
//! them. The search, the transposition table and the parameters all use
//! these, so they live apart from any of them.
//!
//! From the top down: mate scores (`MATE_BOUND..=MATE`), then tablebase wins
//! (`TB_WIN_BOUND..=TB_WIN`), then everything the evaluation can say.

/// A score in centipawns (or a mate score) from the side to move's view.
pub type Score = i32;

/// Deepest ply the search reaches, quiescence included.
pub const MAX_PLY: usize = 128;
/// The score of being checkmated at the root; mate in `n` plies is `MATE - n`.
pub const MATE: Score = 32_000;
/// Scores at or beyond this magnitude are mate scores.
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;
/// The score of a tablebase win at the root; a win the tables show `n` plies
/// from the root is `TB_WIN - n`. It sits below every mate score, so that a
/// mate the search proves is always preferred to a win the tables promise.
pub const TB_WIN: Score = MATE_BOUND - 1 - MAX_PLY as Score;
/// Scores at or beyond this magnitude but below [`MATE_BOUND`] are tablebase
/// wins (or losses).
pub const TB_WIN_BOUND: Score = TB_WIN - MAX_PLY as Score;
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

/// Whether `score` is a mate score, for either side.
pub fn is_mate(score: Score) -> bool {
    score.abs() >= MATE_BOUND
}

/// Whether `score` decides the game: a mate score or a tablebase result,
/// which no evaluation can reach.
pub fn is_decisive(score: Score) -> bool {
    score.abs() >= TB_WIN_BOUND
}

impl ReportedScore {
    /// Converts an internal score. Tablebase wins and losses are reported in
    /// centipawns (beyond ±300 pawns), never as mates: the tables promise
    /// the result, not a distance to mate.
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
        assert_eq!(
            ReportedScore::from_score(TB_WIN - 3),
            ReportedScore::Centipawns(TB_WIN - 3)
        );
        assert_eq!(
            ReportedScore::from_score(-TB_WIN + 3),
            ReportedScore::Centipawns(-TB_WIN + 3)
        );
    }

    #[test]
    fn tablebase_wins_sit_between_evaluations_and_mates() {
        let deepest_tablebase_win = TB_WIN - MAX_PLY as Score;
        let deepest_mate = MATE - MAX_PLY as Score;
        assert!(is_decisive(deepest_tablebase_win) && !is_mate(TB_WIN));
        assert!(is_mate(deepest_mate) && is_mate(-deepest_mate));
        assert!(!is_decisive(deepest_tablebase_win - 1));
    }
}
