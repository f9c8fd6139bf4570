//! The root of the search: iterative deepening, the Lazy SMP pattern of
//! iterations a helper thread skips, aspiration windows, MultiPV lines and
//! the loop over the root moves.

use super::pruning::{LateMove, LateMoveKind, is_late, late_move_reduction};
use super::{NonPv, Pv, Worker};
use crate::history::moved_piece;
use crate::movepick::is_tactical;
use crate::params::{
    aspiration_fail_high_max_reduction, aspiration_full_window, aspiration_growth_percent,
    aspiration_min_depth, aspiration_window,
};
use crate::report::{PvLine, SearchEvent, SearchResult};
use crate::score::{INFINITY, MATE, MAX_PLY, Score, is_decisive, is_mate};
use crate::time::SearchSignals;
use crate::tt::unpack_move;
use shakmaty::Move;
use std::time::Duration;

/// Time after `go` from which the main thread reports each root move as it
/// starts searching it (`currmove`).
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// The first iteration after which the soft limit is scaled by the search's
/// signals; before it they say little.
const SOFT_SCALE_MIN_DEPTH: u32 = 6;

/// A root move with what the last iteration learnt about it.
#[derive(Debug, Clone)]
struct RootMove {
    mv: Move,
    /// Nodes its search took.
    nodes: u64,
    /// Its score, when it was the best move of a line.
    score: Score,
    /// Its principal variation, when it was the best move of a line.
    pv: Vec<Move>,
    /// Its tablebase rank (higher is better; all 0 outside the tables).
    tb_rank: i32,
    /// The score the tablebases give it, when the root is in the tables.
    tb_score: Option<Score>,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            nodes: 0,
            score: -INFINITY,
            pv: Vec::new(),
            tb_rank: 0,
            tb_score: None,
        }
    }

    /// The line this move heads (see [`root_line`]).
    fn line(&self) -> PvLine {
        root_line(self.score, self.pv.clone(), self.tb_score)
    }
}

/// The line of a root move searched to `score` along `pv`: its search
/// score, unless the tablebases know better (`tb_score`) and the search
/// proved no mate.
fn root_line(score: Score, pv: Vec<Move>, tb_score: Option<Score>) -> PvLine {
    let (score, from_tablebase) = match tb_score {
        Some(tb_score) if !is_mate(score) => (tb_score, true),
        _ => (score, false),
    };
    PvLine {
        score,
        pv,
        from_tablebase,
    }
}

impl Worker<'_> {
    /// Runs iterative deepening and returns the best lines found.
    pub fn search(&mut self) -> SearchResult {
        self.accumulators
            .reset(&self.setup.net, self.board.position());
        let mut root_moves = self.root_moves();
        let mut result = SearchResult {
            best: root_moves.first().map(|r| r.mv),
            ..SearchResult::default()
        };
        if root_moves.is_empty() {
            return result;
        }
        let line_count = self.setup.searched_lines.clamp(1, root_moves.len());
        self.stack[0].static_eval = (!self.board.in_check()).then(|| {
            let entry = self.tt.probe(self.board.key(), 0);
            let raw = self.raw_eval(entry);
            self.corrected_eval(raw, 0)
        });
        // The scores of the last finished iteration's lines, best first.
        let mut previous_scores = vec![0; line_count];
        let max_depth = self.setup.max_depth.clamp(1, MAX_PLY as u32 - 1);
        // The best move's stability over the finished iterations.
        let mut best_move_stable_for = 0;
        for depth in 1..=max_depth {
            if depth < max_depth && skips_depth(self.setup.thread_index, depth) {
                continue;
            }
            let iteration_start_nodes = self.nodes;
            self.seldepth = 0;
            self.iteration_improvement = None;
            let scored =
                self.search_lines(&mut root_moves, line_count, depth as i32, &previous_scores);
            // An aborted iteration is thrown away, but for a single line a
            // move that proved better than the first one searched is played;
            // in the first iteration, keep the lines that got a score, if
            // any did.
            if self.stopped && (depth > 1 || scored == 0) {
                if line_count == 1
                    && let Some(improvement) = self.iteration_improvement.take()
                    && result.best.as_ref() != improvement.pv.first()
                {
                    result.best = improvement.pv.first().copied();
                    result.score = improvement.score;
                    result.lines = vec![improvement];
                    self.report_iteration(result.depth, &result.lines);
                }
                break;
            }
            let previous_best = result.best;
            let previous_score = previous_scores[0];
            let lines = &mut root_moves[..scored];
            lines.sort_by_key(|r| (std::cmp::Reverse(r.tb_rank), std::cmp::Reverse(r.score)));
            previous_scores = lines.iter().map(|r| r.score).collect();
            result.lines = lines.iter().map(RootMove::line).collect();
            result.best = Some(root_moves[0].mv);
            result.score = result.lines[0].score;
            result.depth = depth;
            result.seldepth = self.seldepth as u32;
            let reported = self.setup.reported_lines.clamp(1, result.lines.len());
            self.report_iteration(depth, &result.lines[..reported]);
            if self.stopped {
                break;
            }
            best_move_stable_for = if depth > 1 && result.best == previous_best {
                best_move_stable_for + 1
            } else {
                0
            };
            let iteration_nodes = (self.nodes - iteration_start_nodes).max(1);
            let signals = SearchSignals {
                best_move_node_percent: root_moves[0].nodes * 100 / iteration_nodes,
                best_move_stable_for,
                score_drop: previous_score - root_moves[0].score,
            };
            if self.iteration_ends_search(root_moves[0].score, root_moves.len(), depth, signals) {
                break;
            }
        }
        self.flush_nodes();
        result.ponder = result
            .lines
            .first()
            .and_then(|line| line.pv.get(1))
            .copied()
            .or_else(|| result.best.and_then(|m| self.reply_from_tt(m)));
        result.nodes = self.nodes;
        result
    }

    /// The legal root moves that `searchmoves` allows (all of them when it
    /// allows none), those the tablebases rank higher first.
    fn root_moves(&self) -> Vec<RootMove> {
        let legal = self.board.legal_moves();
        let allowed: Vec<RootMove> = legal
            .iter()
            .copied()
            .filter(|m| self.setup.search_moves.is_empty() || self.setup.search_moves.contains(m))
            .map(RootMove::new)
            .collect();
        let mut root_moves = if allowed.is_empty() {
            legal.iter().copied().map(RootMove::new).collect()
        } else {
            allowed
        };
        // The move the table remembers for this position (from an earlier
        // search or from pondering) goes first: should the clock run out
        // before the first iteration ends, it is the move played.
        if let Some(tt_move) = self
            .tt
            .probe(self.board.key(), 0)
            .and_then(|entry| unpack_move(entry.packed_move, &legal))
            && let Some(index) = root_moves.iter().position(|r| r.mv == tt_move)
        {
            root_moves[..=index].rotate_right(1);
        }
        for root_move in &mut root_moves {
            if let Some(rank) = self
                .setup
                .tablebases
                .root
                .iter()
                .find(|r| r.mv == root_move.mv)
            {
                root_move.tb_rank = rank.rank;
                root_move.tb_score = Some(rank.score);
            }
        }
        root_moves.sort_by_key(|r| std::cmp::Reverse(r.tb_rank));
        root_moves
    }

    /// Searches the best `count` root moves at `depth`, one line at a time:
    /// line `i` is the best of the root moves from index `i` on (the first
    /// `i` hold the lines already found) that share the tablebase rank of
    /// the move at `i`, searched in a window around the score of line `i` in
    /// the last iteration. Returns how many lines got a score: all of them
    /// unless the search stopped.
    fn search_lines(
        &mut self,
        root_moves: &mut [RootMove],
        count: usize,
        depth: i32,
        previous_scores: &[Score],
    ) -> usize {
        let mut rank_end = 0;
        for line in 0..count {
            if line == rank_end {
                let rank = root_moves[line].tb_rank;
                rank_end += root_moves[line..]
                    .iter()
                    .take_while(|r| r.tb_rank == rank)
                    .count();
            }
            let moves = &mut root_moves[line..rank_end];
            let score = self.aspiration(moves, depth, previous_scores[line], line);
            if score == -INFINITY {
                return line;
            }
            let pv = self.root_pv(root_moves[line].mv);
            let root_move = &mut root_moves[line];
            root_move.score = score;
            root_move.pv = pv;
            if self.stopped {
                return line + 1;
            }
        }
        count
    }

    /// The principal variation the root search just found for `best`.
    fn root_pv(&self, best: Move) -> Vec<Move> {
        let pv: Vec<Move> = self.stack.root_pv().collect();
        if pv.first() == Some(&best) {
            pv
        } else {
            vec![best]
        }
    }

    /// Whether the search should end after a finished iteration of `depth`
    /// whose best line scored `score`, with `root_move_count` moves to
    /// choose from. From depth [`SOFT_SCALE_MIN_DEPTH`] the soft limit is
    /// scaled by the iteration's `signals`.
    fn iteration_ends_search(
        &self,
        score: Score,
        root_move_count: usize,
        depth: u32,
        signals: SearchSignals,
    ) -> bool {
        // A mate in `mate` moves is a mate within 2 * mate - 1 plies; no
        // search sees past `MAX_PLY`, so larger limits mean any mate.
        if let Some(mate) = self.setup.mate
            && score >= MATE - mate_plies(mate)
        {
            return true;
        }
        if root_move_count == 1 && self.setup.answer_forced_move_at_once {
            return true;
        }
        if self.setup.soft_nodes.is_some_and(|soft| self.nodes >= soft) {
            return true;
        }
        let soft = if depth >= SOFT_SCALE_MIN_DEPTH {
            self.setup.budget.scaled_soft(signals.soft_scale_percent())
        } else {
            self.setup.budget.soft
        };
        match (soft, self.clock_elapsed()) {
            (Some(soft), Some(elapsed)) => elapsed >= soft,
            _ => false,
        }
    }

    /// The reply the TT suggests after `best`, for `bestmove ... ponder`.
    fn reply_from_tt(&mut self, best: Move) -> Option<Move> {
        self.make(best);
        let reply = self.tt.probe(self.board.key(), 1).and_then(|entry| {
            let legal = self.board.legal_moves();
            unpack_move(entry.packed_move, &legal)
        });
        self.unmake();
        reply
    }

    /// Searches the root in a narrow window around the previous iteration's
    /// score, widening it on the side that failed until the score is inside.
    /// `moves_before` root moves come before `root_moves` (MultiPV lines
    /// already found); they count in the move numbers reported.
    fn aspiration(
        &mut self,
        root_moves: &mut [RootMove],
        depth: i32,
        previous: Score,
        moves_before: usize,
    ) -> Score {
        if depth < aspiration_min_depth() || is_decisive(previous) {
            return self.search_root(root_moves, depth, -INFINITY, INFINITY, moves_before);
        }
        let mut delta = aspiration_window();
        let mut alpha = (previous - delta).max(-INFINITY);
        let mut beta = (previous + delta).min(INFINITY);
        // A fail high is searched again a ply shallower each time (at most
        // `aspiration_fail_high_max_reduction` plies): it only has to confirm
        // the better score, and a result inside the window from there is the
        // iteration's result. A fail low is searched at the full depth.
        let mut search_depth = depth;
        loop {
            let score = self.search_root(root_moves, search_depth, alpha, beta, moves_before);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                search_depth = depth;
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                if !is_decisive(score) {
                    search_depth = (search_depth - 1)
                        .max(depth - aspiration_fail_high_max_reduction())
                        .max(1);
                }
            } else {
                return score;
            }
            delta += delta * aspiration_growth_percent() / 100;
            if delta > aspiration_full_window() {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Searches every root move at `depth` in the window (`alpha`, `beta`)
    /// and sorts the root moves, best first.
    fn search_root(
        &mut self,
        root_moves: &mut [RootMove],
        depth: i32,
        mut alpha: Score,
        beta: Score,
        moves_before: usize,
    ) -> Score {
        let mut best_score = -INFINITY;
        let mut best_index = 0;
        self.stack[0].pv_len = 0;
        for (index, root_move) in root_moves.iter_mut().enumerate() {
            let m = root_move.mv;
            if self.events.is_some() && self.elapsed() >= CURRMOVE_AFTER {
                self.send(SearchEvent::CurrentMove {
                    depth: depth as u32,
                    mv: self.board.move_to_uci(m),
                    number: moves_before + index + 1,
                });
            }
            let nodes_before = self.nodes;
            let side = self.board.turn();
            let late_quiet = is_late(depth, index + 1, true) && !is_tactical(m);
            let history =
                late_quiet.then(|| self.quiet_history(m, None, side, self.stack.previous_moves(0)));
            self.stack[0].moved = moved_piece(side, m);
            self.make(m);
            let score = if index == 0 {
                -self.negamax::<Pv>(-beta, -alpha, depth - 1, 1, false)
            } else {
                // Late quiet moves from the third on are searched reduced
                // first, as at any PV node.
                let reduction = history.map_or(0, |history| {
                    late_move_reduction(LateMove {
                        depth,
                        new_depth: depth - 1,
                        move_count: index + 1,
                        kind: LateMoveKind::Quiet {
                            killer: false,
                            history,
                        },
                        improving: true,
                        pv_node: true,
                        cut_node: false,
                        gives_check: self.board.in_check(),
                    })
                });
                let mut score =
                    -self.negamax::<NonPv>(-alpha - 1, -alpha, depth - 1 - reduction, 1, true);
                if reduction > 0 && score > alpha && !self.stopped {
                    score = -self.negamax::<NonPv>(-alpha - 1, -alpha, depth - 1, 1, true);
                }
                if score > alpha && !self.stopped {
                    -self.negamax::<Pv>(-beta, -alpha, depth - 1, 1, false)
                } else {
                    score
                }
            };
            self.unmake();
            root_move.nodes = self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            if score > best_score {
                best_score = score;
                best_index = index;
                if score > alpha {
                    alpha = score;
                    self.stack.update_pv(0, m);
                    if index > 0 {
                        let pv = self.root_pv(m);
                        self.iteration_improvement = Some(root_line(score, pv, root_move.tb_score));
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        // Best move first, the rest by the effort their refutation took.
        root_moves[..].swap(0, best_index);
        root_moves[1..].sort_by_key(|r| std::cmp::Reverse(r.nodes));
        best_score
    }
}

/// Lazy SMP diversification: helper threads skip some iterations, each in a
/// different pattern, so that the threads spread over several depths instead
/// of all searching the same tree. The pattern (skip sizes and phases by
/// helper) is the one Stockfish 8 published.
fn skips_depth(thread_index: usize, depth: u32) -> bool {
    const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    if thread_index == 0 || depth == 1 {
        return false;
    }
    let i = (thread_index - 1) % SKIP_SIZE.len();
    !((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]).is_multiple_of(2)
}

/// The plies of a mate in `moves` moves, at most [`MAX_PLY`].
fn mate_plies(moves: u32) -> Score {
    let plies = moves
        .saturating_mul(2)
        .saturating_sub(1)
        .min(MAX_PLY as u32);
    plies as Score
}

#[cfg(test)]
mod tests {
    use super::super::tests::{fresh_search, search_in};
    use super::*;
    use crate::board::Board;
    use crate::report::result_to_uci;
    use crate::search::SearchSetup;
    use crate::tt::{Bound, TranspositionTable, pack_move};
    use shakmaty::CastlingMode;

    /// Searches the starting position with a node limit, after storing
    /// `remembered` as the table's move for it.
    fn stopped_search(remembered: Option<&str>, nodes: u64) -> (SearchResult, Option<String>) {
        let board = Board::startpos();
        let tt = TranspositionTable::new(1).unwrap();
        if let Some(text) = remembered {
            let m = board.parse_uci_move(text).unwrap();
            tt.store(board.key(), 0, pack_move(m), 0, 0, 5, Bound::Exact);
        }
        let setup = SearchSetup {
            nodes: Some(nodes),
            ..SearchSetup::depth(20)
        };
        let result = search_in(&tt, &board, setup);
        let best = result_to_uci(&board, &result).0;
        (result, best)
    }

    /// The last two iterations of a fixed-depth search of `board` whose
    /// best moves differ, if the search changes its mind before depth 12.
    fn change_of_mind(board: &Board) -> Option<(SearchResult, SearchResult)> {
        let mut before = fresh_search(board, SearchSetup::depth(2));
        while before.depth < 12 {
            let next = fresh_search(board, SearchSetup::depth(before.depth + 1));
            if next.best != before.best {
                return Some((before, next));
            }
            before = next;
        }
        None
    }

    #[test]
    fn an_aborted_iteration_plays_a_move_proven_better_than_the_last_best() {
        // The first of these (WAC.001 to WAC.005) on which the search changes
        // its mind between two depths; more than one, so that a change of
        // the search's play does not leave the test without a case.
        let boards = [
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
            "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
            "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
            "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
        ]
        .iter()
        .map(|fen| Board::from_fen(fen, CastlingMode::Standard).unwrap());
        let (board, before, after) = boards
            .filter_map(|board| change_of_mind(&board).map(|(b, a)| (board, b, a)))
            .next()
            .expect("the test needs a change of mind");
        // Stopped inside the deeper iteration, at some point the search has
        // proved that iteration's move better than the shallower one's.
        let step = ((after.nodes - before.nodes) / 100).max(1);
        let switched = (before.nodes..after.nodes)
            .step_by(step as usize)
            .any(|limit| {
                let stopped = fresh_search(
                    &board,
                    SearchSetup {
                        nodes: Some(limit),
                        ..SearchSetup::depth(after.depth)
                    },
                );
                assert_eq!(stopped.lines[0].pv.first().copied(), stopped.best);
                stopped.depth == before.depth && stopped.best == after.best
            });
        assert!(
            switched,
            "never played the better move of the deeper iteration"
        );
    }

    #[test]
    fn a_search_stopped_before_any_result_plays_the_table_move() {
        // The first node ends the search inside the first root move.
        let (result, best) = stopped_search(Some("g1f3"), 1);
        assert_eq!(result.depth, 0);
        assert_eq!(best.as_deref(), Some("g1f3"));
        // Without a table move it still plays a legal move.
        let (_, best) = stopped_search(None, 1);
        Board::startpos().parse_uci_move(&best.unwrap()).unwrap();
    }

    #[test]
    fn the_first_searched_root_move_is_already_a_result() {
        // The limit is reached inside the second root move: the first one,
        // the table's, was searched to depth 1 and is the answer.
        let (result, best) = stopped_search(Some("b1c3"), 2);
        assert_eq!(result.depth, 1);
        assert_eq!(best.as_deref(), Some("b1c3"));
    }

    #[test]
    fn mate_limits_of_any_size_count_plies_without_overflow() {
        assert_eq!(mate_plies(1), 1);
        assert_eq!(mate_plies(3), 5);
        assert_eq!(mate_plies(0), 0);
        assert_eq!(mate_plies(u32::MAX), MAX_PLY as Score);
        // A search for a mate in "any number" of moves still ends on a mate.
        let board = Board::from_fen(
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let setup = SearchSetup {
            mate: Some(u32::MAX),
            ..SearchSetup::depth(30)
        };
        let result = fresh_search(&board, setup);
        assert_eq!(result.score, MATE - 1);
        assert!(result.depth < 30, "stopped at depth {}", result.depth);
    }

    #[test]
    fn helpers_skip_iterations_in_staggered_patterns() {
        // The main thread and every first iteration are never skipped.
        assert!((1..30).all(|depth| !skips_depth(0, depth)));
        assert!((0..40).all(|thread| !skips_depth(thread, 1)));
        // Helpers differ in which iterations they search.
        let pattern = |thread| (2..20).map(|d| skips_depth(thread, d)).collect::<Vec<_>>();
        assert!(pattern(1).contains(&true));
        assert_ne!(pattern(1), pattern(2));
    }
}
