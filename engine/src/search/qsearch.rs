//! The quiescence search: below the nominal depth, captures and promotions
//! until the position is quiet, so that no evaluation is taken in the
//! middle of an exchange.

use super::pruning::{
    QsCapture, QsVerdict, bound_allows, bound_for, qs_capture_verdict, sharpened_stand_pat,
};
use super::{NodeKind, Worker};
use crate::draw::is_search_draw;
use crate::history::moved_piece;
use crate::movepick::{MovePicker, Picked, is_tactical};
use crate::params::delta_margin;
use crate::score::{INFINITY, MATE, MAX_PLY, Score, TB_WIN_BOUND};
use crate::see::{see_ge, value};
use crate::tt::{Bound, pack_move, unpack_move};

impl Worker<'_> {
    /// Searches captures and promotions until the position is quiet; every
    /// evasion when in check. The side to move may stand pat when not in
    /// check. The TT cuts off at non-PV nodes only.
    pub(super) fn quiescence<N: NodeKind>(
        &mut self,
        mut alpha: Score,
        beta: Score,
        ply: usize,
    ) -> Score {
        self.stack[ply].pv_len = ply;
        if self.visit(ply) {
            return 0;
        }
        if is_search_draw(&self.board) {
            return 0;
        }
        let in_check = self.board.in_check();
        if ply >= MAX_PLY {
            return if in_check { 0 } else { self.evaluate() };
        }
        let key = self.board.key();
        let entry = self.tt.probe(key, ply);
        if let Some(entry) = entry
            && !N::PV
            && bound_allows(entry.bound, entry.score, alpha, beta)
        {
            return entry.score;
        }
        // Stand pat before generating any move: most nodes end here. A TT
        // score whose bound points the right way is a better estimate than
        // the evaluation; a cutoff on the evaluation alone is stored, so
        // that the network is not asked again.
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut stand_pat = -INFINITY;
        let mut raw_eval = 0;
        if !in_check {
            raw_eval = self.raw_eval(entry);
            stand_pat = sharpened_stand_pat(self.corrected_eval(raw_eval, ply), entry);
            if stand_pat >= beta {
                if entry.is_none() {
                    self.tt
                        .store(key, ply, 0, stand_pat, raw_eval, 0, Bound::Lower);
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }
        let mut moves = self.board.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as Score } else { 0 };
        }
        let mut best_move = None;
        let side = self.board.turn();
        let previous_moves = self.stack.previous_moves(ply);
        let tt_move = entry.and_then(|e| unpack_move(e.packed_move, &moves));
        let mut picker = if in_check {
            MovePicker::new(&mut moves, tt_move, self.stack[ply].killers, None, side)
        } else {
            MovePicker::tactical(&mut moves, tt_move, side)
        };
        let futility_base = stand_pat + delta_margin();
        let mut quiet_evasion_searched = false;
        while let Some(Picked { mv: m, .. }) = self.next_move(&mut picker, previous_moves) {
            if in_check {
                // Once a line that does not lose to mate is known, one quiet
                // evasion is enough: the others rarely do better.
                if !is_tactical(m) {
                    if quiet_evasion_searched && best_score > -TB_WIN_BOUND {
                        continue;
                    }
                    quiet_evasion_searched = true;
                }
            } else {
                let verdict = qs_capture_verdict(QsCapture {
                    futility_base,
                    alpha,
                    gain: m.capture().map_or(0, value),
                    promotes: m.promotion().is_some(),
                    wins_material: || see_ge(self.board.position(), m, 1),
                    holds_material: || see_ge(self.board.position(), m, 0),
                });
                if let QsVerdict::Skip(bound) = verdict {
                    best_score = best_score.max(bound);
                    continue;
                }
            }
            self.stack[ply].moved = moved_piece(side, m);
            self.make(m);
            let score = -self.quiescence::<N>(-beta, -alpha, ply + 1);
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = bound_for(best_score, original_alpha, beta);
        self.tt.store(
            key,
            ply,
            best_move.map_or(0, pack_move),
            best_score,
            raw_eval,
            0,
            bound,
        );
        best_score
    }
}
