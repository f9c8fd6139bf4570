//! The tables one search thread learns from its searches and keeps for the
//! next move of the same game: move-ordering histories and the evaluation's
//! correction history.
//! Each thread owns its own; they are emptied when a new game starts, so
//! that a game (and the bench) plays out the same whatever came before.

use crate::correction::CorrectionHistory;
use crate::history::Histories;

/// A search thread's private tables that outlive one search.
#[derive(Default)]
pub struct ThreadTables {
    /// The move-ordering histories.
    pub histories: Histories,
    /// What the static evaluation got wrong, by pawns, pieces and last moves.
    pub correction: CorrectionHistory,
}

impl ThreadTables {
    /// Forgets everything learnt, as at the start of a game.
    pub fn clear(&mut self) {
        *self = ThreadTables::default();
    }
}
