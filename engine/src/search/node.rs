//! The search of one node below the root: a fail-soft principal variation
//! search in numbered steps, with the searches that recurse into it beside
//! it (null move, ProbCut, the singular test).

use super::pruning::{
    LateMove, LateMoveKind, PruningNode, SingularTest, Singularity, bound_allows, bound_for,
    is_improving, is_late, late_move_reduction, may_double_extend, null_move_reduction,
    probcut_applies, prunes_quiet, razoring_applies, reduced_depth, reverse_futility_cuts,
    singular_verdict, skips_later_quiets, tt_refutes_probcut,
};
use super::{NodeKind, NonPv, Pv, Worker};
use crate::draw::is_search_draw;
use crate::history::{PreviousMoves, Tried, moved_piece};
use crate::movepick::{MovePicker, Picked, is_tactical};
use crate::params::{
    iir_min_depth, nmp_min_depth, nmp_verify_depth, probcut_margin, probcut_reduction,
    se_margin_per_depth, se_min_depth, se_tt_depth_margin, see_capture_margin, see_prune_max_depth,
    see_quiet_margin,
};
use crate::score::{INFINITY, MATE, MAX_PLY, Score, TB_WIN_BOUND, is_decisive};
use crate::see::see_ge;
use crate::tt::{Bound, TtEntry, pack_move, unpack_move};
use shakmaty::Move;

/// Depth a tablebase result is stored with beyond the depth it cut: the
/// tables know more than any search of that depth.
const TABLEBASE_DEPTH_BONUS: i32 = 6;

impl Worker<'_> {
    /// Fail-soft principal variation search of the node at `ply`, `depth`
    /// plies deep, in the window (`alpha`, `beta`), as a node of kind `N`.
    /// A `cut_node` is a null-window node expected to fail high: one of its
    /// own moves is expected to refute the move that led to it.
    pub(super) fn negamax<N: NodeKind>(
        &mut self,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> Score {
        // Step 1. Check extension: never stand pat or stop the search while
        // in check; at depth 0, the quiescence search takes over.
        self.stack[ply].pv_len = ply;
        let in_check = self.board.in_check();
        let mut depth = if in_check { depth + 1 } else { depth };
        if depth <= 0 {
            return self.quiescence::<N>(alpha, beta, ply);
        }

        // Step 2. Count the node; the rules' draws; the deepest ply.
        if self.visit(ply) {
            return 0;
        }
        if is_search_draw(&self.board) {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        let double_extensions = self.stack.back(ply, 1).double_extensions;
        self.stack[ply].double_extensions = double_extensions;

        // Step 3. Mate distance pruning: no line from here beats a shorter mate.
        alpha = alpha.max(-MATE + ply as Score);
        beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        self.stack[ply + 1].killers = [None; 2];

        // Step 4. Probe the transposition table; cut off at non-PV nodes
        // only, and not while testing a singular move (the entry is about
        // all moves).
        let excluded = self.stack[ply].excluded;
        let key = self.board.key();
        let entry = self.tt.probe(key, ply);
        if let Some(entry) = entry
            && !N::PV
            && excluded.is_none()
            && entry.depth >= depth
            && bound_allows(entry.bound, entry.score, alpha, beta)
        {
            return entry.score;
        }

        // Step 5. Tablebases: after a capture or pawn move into a position
        // they cover, their result stands in for the search when it settles
        // the window; at PV nodes it bounds what the search may return.
        let mut tablebase_floor = -INFINITY;
        let mut tablebase_ceiling = INFINITY;
        if excluded.is_none()
            && let Some((score, bound)) = self.probe_tablebase(depth, ply)
        {
            if bound_allows(bound, score, alpha, beta) {
                let raw = if in_check { 0 } else { self.raw_eval(entry) };
                let depth = depth + TABLEBASE_DEPTH_BONUS;
                self.tt.store(key, ply, 0, score, raw, depth, bound);
                return score;
            }
            if N::PV && bound == Bound::Lower {
                tablebase_floor = score;
                alpha = alpha.max(score);
            } else if N::PV {
                tablebase_ceiling = score;
            }
        }

        // Step 6. Static evaluation, corrected by the correction history
        // (the TT keeps the uncorrected one), then sharpened by a TT score
        // whose bound points the right way.
        let raw_eval = (!in_check).then(|| self.raw_eval(entry));
        let static_eval = raw_eval.map(|raw| self.corrected_eval(raw, ply));
        let eval = match (static_eval, entry) {
            (Some(eval), Some(e)) if !is_decisive(e.score) => match e.bound {
                Bound::Exact => e.score,
                Bound::Lower if e.score > eval => e.score,
                Bound::Upper if e.score < eval => e.score,
                _ => eval,
            },
            (eval, _) => eval.unwrap_or(-INFINITY),
        };
        self.stack[ply].static_eval = static_eval;
        let improving = is_improving(
            static_eval,
            self.stack.back(ply, 2).static_eval,
            self.stack.back(ply, 4).static_eval,
        );

        // Step 7. Pruning before any move is searched.
        if !N::PV && !in_check && excluded.is_none() {
            // Step 7a. Reverse futility pruning: far above beta, a shallow
            // search will not fall below it.
            if reverse_futility_cuts(depth, eval, beta, improving) {
                return eval;
            }
            // Step 7b. Razoring: far below alpha at low depth, trust the
            // quiescence search.
            if razoring_applies(depth, eval, alpha) {
                let score = self.quiescence::<NonPv>(alpha, alpha + 1, ply);
                if score < alpha {
                    return score;
                }
            }
            // Step 7c. Null move.
            if let Some(score) = self.null_move_search(beta, depth, ply, eval, cut_node) {
                return score;
            }
        }

        // Step 7d. ProbCut: a capture that beats beta by a margin in a
        // shallow search will very likely beat beta in a full one.
        if probcut_applies(N::PV, in_check, excluded, depth, beta)
            && !tt_refutes_probcut(entry, depth, beta)
            && let (Some(static_eval), Some(raw_eval)) = (static_eval, raw_eval)
            && let Some(score) = self.probcut(beta, depth, ply, static_eval, raw_eval, cut_node)
        {
            return score;
        }

        // Step 8. Generate the moves; mate and stalemate; internal
        // iterative reduction: without a TT move this node was not searched
        // before, and searching it shallower first costs little.
        let mut moves = self.board.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as Score } else { 0 };
        }
        let tt_move = entry.and_then(|e| unpack_move(e.packed_move, &moves));
        if tt_move.is_none() && depth >= iir_min_depth() && excluded.is_none() {
            depth -= 1;
        }
        let side = self.board.turn();
        let killers = self.stack[ply].killers;
        let previous_moves = self.stack.previous_moves(ply);
        let counter = self
            .thread_tables
            .histories
            .counters
            .get(previous_moves.one);
        let mut picker = MovePicker::new(&mut moves, tt_move, killers, counter, side);

        // Step 9. The move loop.
        let original_alpha = alpha;
        let mut best_score = tablebase_floor;
        let mut best_move = None;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut quiet_count = 0;
        let mut captures_tried: [Option<Move>; 32] = [None; 32];
        let mut capture_count = 0;
        let mut move_count = 0;
        let mut skip_quiets = false;
        while let Some(picked) = self.next_move(&mut picker, previous_moves) {
            let m = picked.mv;
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_tactical(m);

            // Step 9a. Shallow pruning, once a line that does not lose to
            // mate is known: late-move and futility pruning skip the
            // remaining quiet moves from the first that qualifies on.
            if best_score > -TB_WIN_BOUND {
                let node = PruningNode {
                    depth,
                    eval,
                    alpha,
                    pv_node: N::PV,
                    in_check,
                    improving,
                };
                if quiet {
                    skip_quiets = skip_quiets || skips_later_quiets(&node, quiet_count);
                }
                if self.prunes_move(picked, &node, move_count + 1, previous_moves, skip_quiets) {
                    continue;
                }
            }

            // Step 9b. Singular extension of the TT move.
            let mut extension = 0;
            if Some(m) == tt_move
                && let Some(e) = entry
            {
                match self.singular_extension::<N>(m, e, beta, depth, ply, cut_node) {
                    Singularity::Extension(plies) => extension = plies,
                    Singularity::Cutoff(score) => return score,
                }
            }

            // Step 9c. Search the move: the first with the full window, the
            // others with a null window, reduced when late and quiet, and
            // again in full where they beat alpha.
            move_count += 1;
            self.stack[ply].moved = moved_piece(side, m);
            self.stack[ply].double_extensions = double_extensions + i32::from(extension >= 2);
            self.make(m);
            let gives_check = self.board.in_check();
            let new_depth = depth - 1 + extension;
            let score = if move_count == 1 {
                -self.negamax::<N>(-beta, -alpha, new_depth, ply + 1, !N::PV && !cut_node)
            } else {
                let reduction = if is_late(depth, move_count, N::PV)
                    && (quiet || !picked.holds_material)
                {
                    let kind = if quiet {
                        LateMoveKind::Quiet {
                            killer: killers.contains(&Some(m)),
                            history: self.quiet_history(m, picked.history, side, previous_moves),
                        }
                    } else {
                        LateMoveKind::LosingTactical {
                            history: self.thread_tables.histories.captures.get(side, m),
                        }
                    };
                    late_move_reduction(LateMove {
                        depth,
                        new_depth,
                        move_count,
                        kind,
                        improving,
                        pv_node: N::PV,
                        cut_node,
                        gives_check,
                    })
                } else {
                    0
                };
                let mut score = -self.negamax::<NonPv>(
                    -alpha - 1,
                    -alpha,
                    new_depth - reduction,
                    ply + 1,
                    true,
                );
                if reduction > 0 && score > alpha && !self.stopped {
                    score =
                        -self.negamax::<NonPv>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
                if N::PV && score > alpha && score < beta && !self.stopped {
                    score = -self.negamax::<Pv>(-beta, -alpha, new_depth, ply + 1, false);
                }
                score
            };
            self.unmake();
            if self.stopped {
                return 0;
            }

            // Step 9d. A new best move; a cutoff teaches the histories.
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if N::PV {
                        self.stack.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            let killers = &mut self.stack[ply].killers;
                            if killers[0] != Some(m) {
                                killers[1] = killers[0];
                                killers[0] = Some(m);
                            }
                        }
                        let tried = Tried {
                            quiets: &quiets_tried[..quiet_count],
                            captures: &captures_tried[..capture_count],
                        };
                        self.thread_tables.histories.reward_cutoff(
                            side,
                            m,
                            quiet,
                            depth,
                            previous_moves,
                            tried,
                        );
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = Some(m);
                quiet_count += 1;
            } else if !quiet && capture_count < captures_tried.len() {
                captures_tried[capture_count] = Some(m);
                capture_count += 1;
            }
        }

        // Step 10. The result: learn the evaluation's error and store the node.
        if move_count == 0 && excluded.is_some() {
            // Only the excluded move was legal (or worth trying).
            return alpha;
        }
        best_score = best_score.min(tablebase_ceiling);
        if excluded.is_none() {
            let bound = bound_for(best_score, original_alpha, beta);
            // Learn the evaluation's error from quiet results whose bound
            // says on which side of the evaluation the truth lies.
            if let (Some(raw), Some(corrected)) = (raw_eval, static_eval)
                && best_move.is_none_or(|m| !is_tactical(m))
                && !is_decisive(best_score)
                && !(bound == Bound::Lower && best_score <= corrected)
                && !(bound == Bound::Upper && best_score >= corrected)
            {
                self.thread_tables.correction.update(
                    self.board.position(),
                    previous_moves,
                    depth,
                    best_score - raw,
                );
            }
            self.tt.store(
                key,
                ply,
                best_move.map_or(0, pack_move),
                best_score,
                raw_eval.unwrap_or(0),
                depth,
                bound,
            );
        }
        best_score
    }

    /// Null-move pruning: if passing still fails high, a real move will too.
    /// Not with only king and pawns (zugzwang), nor twice in a row; deep
    /// nodes verify the cutoff with a reduced search of their own in which
    /// the null move is banned. Returns the node's score when it cuts off
    /// (or when the search stopped).
    fn null_move_search(
        &mut self,
        beta: Score,
        depth: i32,
        ply: usize,
        eval: Score,
        cut_node: bool,
    ) -> Option<Score> {
        if depth < nmp_min_depth()
            || eval < beta
            || !self.null_allowed(ply)
            || !self.has_pieces(self.board.turn())
        {
            return None;
        }
        let reduction = null_move_reduction(depth, eval, beta);
        if !self.make_null() {
            return None;
        }
        self.stack[ply].null_move = true;
        self.stack[ply].moved = None;
        let score =
            -self.negamax::<NonPv>(-beta, -beta + 1, depth - reduction - 1, ply + 1, !cut_node);
        self.stack[ply].null_move = false;
        self.unmake();
        if self.stopped {
            return Some(0);
        }
        if score < beta {
            return None;
        }
        let score = if score >= TB_WIN_BOUND { beta } else { score };
        if depth < nmp_verify_depth() {
            return Some(score);
        }
        self.stack[ply].null_banned = true;
        let verified = self.negamax::<NonPv>(beta - 1, beta, depth - reduction - 1, ply, false);
        self.stack[ply].null_banned = false;
        (verified >= beta).then_some(score)
    }

    /// ProbCut: tries the captures whose exchange alone could lift the
    /// static evaluation to `beta` plus a margin, each first in quiescence
    /// and then with a reduced null-window search against that raised beta;
    /// the first that holds there cuts the node off (its score is stored in
    /// the TT as a lower bound, with the node's uncorrected evaluation
    /// `raw_eval`).
    fn probcut(
        &mut self,
        beta: Score,
        depth: i32,
        ply: usize,
        static_eval: Score,
        raw_eval: Score,
        cut_node: bool,
    ) -> Option<Score> {
        let raised_beta = beta + probcut_margin();
        let probe_depth = depth - probcut_reduction();
        let side = self.board.turn();
        let previous_moves = self.stack.previous_moves(ply);
        let mut moves = self.board.legal_moves();
        let mut picker = MovePicker::tactical(&mut moves, None, side);
        while let Some(Picked { mv: m, .. }) = self.next_move(&mut picker, previous_moves) {
            if !see_ge(self.board.position(), m, raised_beta - static_eval) {
                continue;
            }
            self.stack[ply].moved = moved_piece(side, m);
            self.make(m);
            let mut score = -self.quiescence::<NonPv>(-raised_beta, -raised_beta + 1, ply + 1);
            if score >= raised_beta {
                score = -self.negamax::<NonPv>(
                    -raised_beta,
                    -raised_beta + 1,
                    probe_depth,
                    ply + 1,
                    !cut_node,
                );
            }
            self.unmake();
            if self.stopped {
                return Some(0);
            }
            if score >= raised_beta {
                let key = self.board.key();
                self.tt.store(
                    key,
                    ply,
                    pack_move(m),
                    score,
                    raw_eval,
                    probe_depth + 1,
                    Bound::Lower,
                );
                return Some(score);
            }
        }
        None
    }

    /// Whether the move loop at `node` skips the move `picked`, which would
    /// be its `move_number`th, unsearched. A quiet move that gives no check:
    /// once `skip_quiets` holds (see [`skips_later_quiets`]), or by bad
    /// history or futility at its reduced depth (see [`prunes_quiet`]); a
    /// quiet check is never skipped so, as it can mate, which no margin
    /// foresees. Any move that loses too much material by static exchange:
    /// a quiet one by a margin for its reduced depth.
    fn prunes_move(
        &self,
        picked: Picked,
        node: &PruningNode,
        move_number: usize,
        previous_moves: PreviousMoves,
        skip_quiets: bool,
    ) -> bool {
        let m = picked.mv;
        let depth = node.depth;
        if is_tactical(m) {
            // A capture the picker found not to lose passes any lower bar.
            return !picked.holds_material
                && depth <= see_prune_max_depth()
                && !see_ge(
                    self.board.position(),
                    m,
                    -see_capture_margin() * depth * depth,
                );
        }
        let history = self.quiet_history(m, picked.history, self.board.turn(), previous_moves);
        let reduced = reduced_depth(depth, move_number, history);
        if (skip_quiets || prunes_quiet(node, reduced, history)) && !self.board.gives_check(m) {
            return true;
        }
        depth <= see_prune_max_depth()
            && !see_ge(self.board.position(), m, -see_quiet_margin() * reduced)
    }

    /// Singular extension: when every other move fails well below the TT
    /// move's score, the TT move `m` is the only good one: extend it. When
    /// even without it the node fails high, cut off (multi-cut), and when
    /// the TT move alone was expected to fail high, or the node is a cut
    /// node, reduce it (see [`singular_verdict`]). Extensions by two plies
    /// are limited per line (see [`may_double_extend`]).
    fn singular_extension<N: NodeKind>(
        &mut self,
        m: Move,
        entry: TtEntry,
        beta: Score,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> Singularity {
        if depth < se_min_depth()
            || self.stack[ply].excluded.is_some()
            || entry.depth < depth - se_tt_depth_margin()
            || entry.bound == Bound::Upper
            || is_decisive(entry.score)
        {
            return Singularity::Extension(0);
        }
        let singular_beta = entry.score - se_margin_per_depth() * depth;
        self.stack[ply].excluded = Some(m);
        let score = self.negamax::<NonPv>(
            singular_beta - 1,
            singular_beta,
            (depth - 1) / 2,
            ply,
            cut_node,
        );
        self.stack[ply].excluded = None;
        if self.stopped {
            return Singularity::Cutoff(0);
        }
        let test = SingularTest {
            score,
            singular_beta,
            beta,
            tt_score: entry.score,
        };
        let may_double = may_double_extend(N::PV, self.stack.back(ply, 1).double_extensions);
        singular_verdict(test, cut_node, may_double)
    }
}
