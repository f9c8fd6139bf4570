//! The decisions the node search takes about pruning, reducing and
//! extending, as pure functions of what the node knows: each can be tested
//! on its own, and the tunables they read are those of [`crate::params`].

use crate::params::{
    REDUCTION_UNIT, futility_base, futility_margin, futility_max_depth, history_prune_margin,
    history_prune_max_depth, lmp_max_depth, lmp_threshold, lmr_capture_history_divisor,
    lmr_cut_node, lmr_history_divisor, lmr_losing_capture_percent, lmr_min_depth, lmr_reduction,
    nmp_base_reduction, nmp_depth_divisor, nmp_eval_divisor, nmp_eval_reduction_max,
    probcut_margin, probcut_min_depth, probcut_reduction, razor_margin, razor_max_depth,
    rfp_margin, rfp_max_depth, se_cut_node_reduction, se_double_margin, se_double_max,
    se_negative_extension,
};
use crate::score::{INFINITY, Score, is_decisive};
use crate::tt::{Bound, TtEntry};
use shakmaty::Move;

/// What the move loop's pruning needs to know about its node.
pub(super) struct PruningNode {
    pub depth: i32,
    /// The static evaluation, sharpened by the TT.
    pub eval: Score,
    pub alpha: Score,
    pub pv_node: bool,
    pub in_check: bool,
    pub improving: bool,
}

/// Whether the quiet moves still to come at `node` are skipped (late-move
/// pruning), once `quiets_searched` quiet moves were searched: past
/// [`lmp_threshold`] moves at low depth.
pub(super) fn skips_later_quiets(node: &PruningNode, quiets_searched: usize) -> bool {
    !node.pv_node
        && node.depth <= lmp_max_depth()
        && quiets_searched >= lmp_threshold(node.depth, node.improving)
}

/// The depth a quiet move, the `move_number`th of its node, can expect to
/// be searched at: the node's depth less one, less the reduction table's
/// entry, adjusted by its `history` as the late-move reduction is, summed
/// in [`REDUCTION_UNIT`]s and rounded down to plies; never below 0. Pruning
/// margins are taken at this depth.
pub(super) fn reduced_depth(depth: i32, move_number: usize, history: i32) -> i32 {
    const PLY: i32 = REDUCTION_UNIT;
    let units = (depth - 1) * PLY - lmr_reduction(depth, move_number)
        + history * PLY / lmr_history_divisor();
    units.div_euclid(PLY).max(0)
}

/// Whether a quiet move that gives no check is skipped at `node`: its
/// `history` is bad at a low depth, or the evaluation plus a margin for
/// the move's `reduced_depth` (see [`reduced_depth`]) cannot reach alpha.
pub(super) fn prunes_quiet(node: &PruningNode, reduced_depth: i32, history: i32) -> bool {
    let bad_history =
        node.depth <= history_prune_max_depth() && history < -history_prune_margin() * node.depth;
    let futile = !node.in_check
        && reduced_depth <= futility_max_depth()
        && node.eval + futility_base() + futility_margin() * reduced_depth <= node.alpha;
    bad_history || futile
}

/// Reverse futility pruning: whether a node whose evaluation `eval` lies
/// this far above `beta` at a low `depth` is cut off unsearched (a shallow
/// search would not fall below beta).
pub(super) fn reverse_futility_cuts(depth: i32, eval: Score, beta: Score, improving: bool) -> bool {
    depth <= rfp_max_depth()
        && !is_decisive(eval)
        && eval - rfp_margin() * (depth - i32::from(improving)) >= beta
}

/// Razoring: whether a node whose evaluation lies far below `alpha` at a
/// low `depth` asks the quiescence search whether it fails low.
pub(super) fn razoring_applies(depth: i32, eval: Score, alpha: Score) -> bool {
    depth <= razor_max_depth() && eval + razor_margin() * depth < alpha
}

/// How many plies shallower than the node the null move is searched: more
/// at depth and the further the evaluation lies above `beta`.
pub(super) fn null_move_reduction(depth: i32, eval: Score, beta: Score) -> i32 {
    nmp_base_reduction()
        + depth / nmp_depth_divisor()
        + ((eval - beta) / nmp_eval_divisor()).min(nmp_eval_reduction_max())
}

/// Whether the `move_count`th move searched at a node of `depth` is late
/// enough to be searched reduced (moves after the first, the first two at
/// PV nodes, from [`lmr_min_depth`] on).
pub(super) fn is_late(depth: i32, move_count: usize, pv_node: bool) -> bool {
    depth >= lmr_min_depth() && move_count > 1 + usize::from(pv_node)
}

/// What kind of late move is reduced.
pub(super) enum LateMoveKind {
    /// A quiet move, with whether it is a killer and its history score.
    Quiet { killer: bool, history: i32 },
    /// A capture or promotion that loses material by static exchange,
    /// with its capture history.
    LosingTactical { history: i32 },
}

/// What decides the reduction of a late move.
pub(super) struct LateMove {
    /// The node's depth.
    pub depth: i32,
    /// The depth the move is searched at unreduced.
    pub new_depth: i32,
    /// The move's number among the moves searched at the node (from 1).
    pub move_count: usize,
    pub kind: LateMoveKind,
    pub improving: bool,
    pub pv_node: bool,
    pub cut_node: bool,
    /// Whether the move gives check.
    pub gives_check: bool,
}

/// The late-move reduction in plies: the table's [`lmr_reduction`] for
/// depth and move number, more for quiet moves where the position is not
/// improving and at cut nodes, less for killers, good history, PV nodes and
/// checks; a fraction of it for losing captures, less by their capture
/// history. The terms add up in [`REDUCTION_UNIT`]s and the sum is rounded
/// down to plies: never below 0, and never so much that the move is not
/// searched at least one ply.
pub(super) fn late_move_reduction(late: LateMove) -> i32 {
    const PLY: i32 = REDUCTION_UNIT;
    let table = lmr_reduction(late.depth, late.move_count);
    let mut reduction = match late.kind {
        LateMoveKind::Quiet { killer, history } => {
            table + PLY * i32::from(!late.improving)
                - PLY * i32::from(killer)
                - history * PLY / lmr_history_divisor()
        }
        LateMoveKind::LosingTactical { history } => {
            table * lmr_losing_capture_percent() / 100
                - history * PLY / lmr_capture_history_divisor()
        }
    };
    reduction += i32::from(late.cut_node) * lmr_cut_node();
    reduction -= PLY * i32::from(late.pv_node);
    reduction -= PLY * i32::from(late.gives_check);
    reduction.div_euclid(PLY).clamp(0, late.new_depth - 1)
}

/// The outcome of a singular test: the best `score` of the other moves
/// against `singular_beta`, with the node's `beta` and the TT move's score.
#[derive(Clone, Copy)]
pub(super) struct SingularTest {
    pub score: Score,
    pub singular_beta: Score,
    pub beta: Score,
    pub tt_score: Score,
}

/// The verdict of the singular extension test on the TT move.
pub(super) enum Singularity {
    /// Search the TT move this many plies deeper (or, negative, shallower).
    Extension(i32),
    /// The node fails high without searching on (or the search stopped): return this.
    Cutoff(Score),
}

/// What a singular test means for the TT move: extended when the other
/// moves fail below the singular beta (by two plies where `may_double` and
/// they fail far below); a cutoff when even without it the node fails high
/// (multi-cut); otherwise searched shallower where the TT move alone was
/// expected to fail high, or at a cut node.
pub(super) fn singular_verdict(
    test: SingularTest,
    cut_node: bool,
    may_double: bool,
) -> Singularity {
    if test.score < test.singular_beta {
        let double = may_double && test.score < test.singular_beta - se_double_margin();
        Singularity::Extension(if double { 2 } else { 1 })
    } else if test.singular_beta >= test.beta {
        Singularity::Cutoff(test.singular_beta)
    } else if test.tt_score >= test.beta {
        Singularity::Extension(-se_negative_extension())
    } else if cut_node {
        Singularity::Extension(-se_cut_node_reduction())
    } else {
        Singularity::Extension(0)
    }
}

/// Whether a singular move may be extended by two plies on a line that
/// already has `double_extensions`: never at PV nodes, and only up to
/// [`se_double_max`] per line, so that lines cannot grow without end.
pub(super) fn may_double_extend(pv_node: bool, double_extensions: i32) -> bool {
    !pv_node && double_extensions < se_double_max()
}

/// Whether a node may try ProbCut: never at PV nodes, in check or while
/// testing a singular move, only deep enough, and not where beta is a mate
/// score (a raised mate bound says nothing).
pub(super) fn probcut_applies(
    pv_node: bool,
    in_check: bool,
    excluded: Option<Move>,
    depth: i32,
    beta: Score,
) -> bool {
    !pv_node
        && !in_check
        && excluded.is_none()
        && depth >= probcut_min_depth()
        && !is_decisive(beta)
}

/// Whether the TT already says that ProbCut at a node of `depth` will not
/// beat `beta` by its margin: the entry was searched at least as deep as the
/// ProbCut search and scored below the raised beta (whatever its bound, as
/// the search expects the attempt to fail there).
pub(super) fn tt_refutes_probcut(entry: Option<TtEntry>, depth: i32, beta: Score) -> bool {
    entry.is_some_and(|e| {
        e.depth >= depth - probcut_reduction() && e.score < beta + probcut_margin()
    })
}

/// What a fail-soft result says about the node searched in (`alpha`, `beta`).
pub(super) fn bound_for(best_score: Score, alpha: Score, beta: Score) -> Bound {
    if best_score >= beta {
        Bound::Lower
    } else if best_score > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Whether a stored bound settles the node's value for the window (`alpha`, `beta`).
pub(super) fn bound_allows(bound: Bound, score: Score, alpha: Score, beta: Score) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// Whether the static evaluation `now` rose since this side's last move
/// (`before`, two plies back), or since the move before that (`earlier`,
/// four plies back) when the side was in check two plies back. In check
/// now, a position is not improving; with nothing to compare, it is.
pub(super) fn is_improving(
    now: Option<Score>,
    before: Option<Score>,
    earlier: Option<Score>,
) -> bool {
    match (now, before, earlier) {
        (Some(now), Some(before), _) | (Some(now), None, Some(before)) => now > before,
        (Some(_), None, None) => true,
        (None, _, _) => false,
    }
}

/// The stand-pat score of a quiescence node: its corrected evaluation
/// `eval`, or the TT's score where the entry's bound says the truth lies
/// beyond the evaluation in the direction of that score (never a mate or
/// tablebase score, which a stand pat must not claim).
pub(super) fn sharpened_stand_pat(eval: Score, entry: Option<TtEntry>) -> Score {
    match entry {
        Some(e) if !is_decisive(e.score) => match e.bound {
            Bound::Exact => e.score,
            Bound::Lower if e.score > eval => e.score,
            Bound::Upper if e.score < eval => e.score,
            _ => eval,
        },
        _ => eval,
    }
}

/// What the quiescence search knows of a capture (or promotion) before
/// searching it; the exchange tests are closures, as they cost time and
/// the verdict often needs neither.
pub(super) struct QsCapture<W: FnOnce() -> bool, H: FnOnce() -> bool> {
    /// The stand pat plus the futility margin ([`crate::params::delta_margin`]).
    pub futility_base: Score,
    pub alpha: Score,
    /// The value of the piece captured (0 for none).
    pub gain: Score,
    pub promotes: bool,
    /// Whether the exchange on the target square wins material.
    pub wins_material: W,
    /// Whether it at least does not lose material.
    pub holds_material: H,
}

/// The quiescence search's verdict on a capture.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum QsVerdict {
    Search,
    /// Skipped unsearched: the node's score is at least this bound (the
    /// futility value where futility skipped it; `-INFINITY`, nothing, where
    /// the exchange loses).
    Skip(Score),
}

/// Whether quiescence searches a capture: not where even winning the piece
/// plus a margin cannot reach alpha (the node then scores at least that
/// much), not where the margin alone cannot reach alpha and the exchange
/// wins nothing, and never where the exchange loses material. An exchange
/// that wins material also holds it, so it is tested only once.
pub(super) fn qs_capture_verdict<W: FnOnce() -> bool, H: FnOnce() -> bool>(
    capture: QsCapture<W, H>,
) -> QsVerdict {
    if !capture.promotes {
        let futility_value = capture.futility_base + capture.gain;
        if futility_value <= capture.alpha {
            return QsVerdict::Skip(futility_value);
        }
        if capture.futility_base <= capture.alpha {
            return if (capture.wins_material)() {
                QsVerdict::Search
            } else {
                QsVerdict::Skip(capture.futility_base)
            };
        }
    }
    if !(capture.holds_material)() {
        return QsVerdict::Skip(-INFINITY);
    }
    QsVerdict::Search
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;
    use shakmaty::Position;

    #[test]
    fn improving_looks_past_a_check_two_plies_back() {
        assert!(is_improving(Some(10), Some(0), Some(50)));
        assert!(!is_improving(Some(10), Some(10), None));
        // In check two plies back: compare with four plies back.
        assert!(is_improving(Some(10), None, Some(0)));
        assert!(!is_improving(Some(10), None, Some(20)));
        assert!(is_improving(Some(10), None, None));
        assert!(!is_improving(None, Some(-100), Some(-100)));
    }

    #[test]
    fn singular_verdicts_extend_cut_off_or_reduce() {
        let test = |score, tt_score| SingularTest {
            score,
            singular_beta: 80,
            beta: 100,
            tt_score,
        };
        let extension = |verdict| match verdict {
            Singularity::Extension(plies) => Some(plies),
            Singularity::Cutoff(_) => None,
        };
        let far_below = 79 - se_double_margin();
        assert_eq!(
            extension(singular_verdict(test(79, 90), true, false)),
            Some(1)
        );
        assert_eq!(
            extension(singular_verdict(test(far_below, 90), false, true)),
            Some(2)
        );
        assert_eq!(
            extension(singular_verdict(test(far_below, 90), false, false)),
            Some(1)
        );
        let expected_to_fail_high = singular_verdict(test(85, 120), false, false);
        assert_eq!(
            extension(expected_to_fail_high),
            Some(-se_negative_extension())
        );
        assert_eq!(
            extension(singular_verdict(test(85, 90), true, false)),
            Some(-se_cut_node_reduction())
        );
        assert_eq!(
            extension(singular_verdict(test(85, 90), false, false)),
            Some(0)
        );
        let multi_cut = SingularTest {
            singular_beta: 100,
            ..test(105, 130)
        };
        assert!(matches!(
            singular_verdict(multi_cut, false, false),
            Singularity::Cutoff(100)
        ));
    }

    #[test]
    fn double_extensions_are_limited_per_line_and_never_at_pv_nodes() {
        let limit = se_double_max();
        assert!(may_double_extend(false, 0));
        assert!(may_double_extend(false, limit - 1));
        assert!(!may_double_extend(false, limit), "limit reached");
        assert!(!may_double_extend(true, 0), "PV node");
    }

    #[test]
    fn probcut_only_at_deep_enough_non_pv_nodes_out_of_check() {
        let deep = probcut_min_depth();
        let quiet_move = shakmaty::Chess::default().legal_moves()[0];
        assert!(probcut_applies(false, false, None, deep, 50));
        assert!(!probcut_applies(true, false, None, deep, 50), "PV node");
        assert!(!probcut_applies(false, true, None, deep, 50), "in check");
        assert!(
            !probcut_applies(false, false, Some(quiet_move), deep, 50),
            "singular test"
        );
        assert!(
            !probcut_applies(false, false, None, deep - 1, 50),
            "too shallow"
        );
        assert!(
            !probcut_applies(false, false, None, deep, MATE - 10),
            "mate bound"
        );
        assert!(
            !probcut_applies(false, false, None, deep, -MATE + 10),
            "mated bound"
        );
    }

    /// A late quiet move at a non-PV node of depth 10, its 20th.
    fn late_quiet(history: i32) -> LateMove {
        LateMove {
            depth: 10,
            new_depth: 9,
            move_count: 20,
            kind: LateMoveKind::Quiet {
                killer: false,
                history,
            },
            improving: true,
            pv_node: false,
            cut_node: false,
            gives_check: false,
        }
    }

    /// `units` of a reduction rounded down to plies.
    fn plies(units: i32) -> i32 {
        units.div_euclid(REDUCTION_UNIT)
    }

    #[test]
    fn late_quiet_moves_are_reduced_by_the_table_and_their_history() {
        const PLY: i32 = REDUCTION_UNIT;
        let table = lmr_reduction(10, 20);
        assert!(table > 2 * PLY, "the test needs a reduction to adjust");
        assert_eq!(late_move_reduction(late_quiet(0)), plies(table));
        // Not improving reduces one more, a check and a PV node one less each.
        let worsening = LateMove {
            improving: false,
            ..late_quiet(0)
        };
        assert_eq!(late_move_reduction(worsening), plies(table) + 1);
        let checking_pv = LateMove {
            gives_check: true,
            pv_node: true,
            ..late_quiet(0)
        };
        assert_eq!(late_move_reduction(checking_pv), plies(table) - 2);
        let killer = LateMove {
            kind: LateMoveKind::Quiet {
                killer: true,
                history: 0,
            },
            ..late_quiet(0)
        };
        assert_eq!(late_move_reduction(killer), plies(table) - 1);
        // Good history reduces less, bad history more.
        let divisor = lmr_history_divisor();
        assert_eq!(late_move_reduction(late_quiet(divisor)), plies(table) - 1);
        assert_eq!(late_move_reduction(late_quiet(-divisor)), plies(table) + 1);
        let cut = LateMove {
            cut_node: true,
            ..late_quiet(0)
        };
        assert_eq!(late_move_reduction(cut), plies(table + lmr_cut_node()));
    }

    #[test]
    fn fractions_of_a_ply_add_up_before_rounding() {
        // A fraction of a ply of bad history tips the table's own fraction
        // over a whole ply.
        let table = lmr_reduction(10, 20);
        let half = lmr_history_divisor() / 2;
        let fraction = table.rem_euclid(REDUCTION_UNIT);
        let history = -(REDUCTION_UNIT - fraction) * lmr_history_divisor() / REDUCTION_UNIT - 1;
        assert_eq!(late_move_reduction(late_quiet(history)), plies(table) + 1);
        assert_eq!(
            late_move_reduction(late_quiet(-half)),
            plies(table + REDUCTION_UNIT / 2)
        );
    }

    #[test]
    fn reductions_never_go_negative_nor_skip_the_move() {
        let divisor = lmr_history_divisor();
        assert_eq!(late_move_reduction(late_quiet(100 * divisor)), 0);
        let shallow = LateMove {
            new_depth: 2,
            improving: false,
            ..late_quiet(-100 * divisor)
        };
        assert_eq!(late_move_reduction(shallow), 1);
        let losing = |history| LateMove {
            kind: LateMoveKind::LosingTactical { history },
            ..late_quiet(0)
        };
        let share = lmr_reduction(10, 20) * lmr_losing_capture_percent() / 100;
        assert_eq!(late_move_reduction(losing(0)), plies(share));
        let good = lmr_capture_history_divisor();
        assert_eq!(late_move_reduction(losing(good)), plies(share) - 1);
    }

    #[test]
    fn only_moves_after_the_first_ones_are_late() {
        let deep = lmr_min_depth();
        assert!(!is_late(deep, 1, false));
        assert!(is_late(deep, 2, false));
        assert!(!is_late(deep, 2, true), "the second move of a PV node");
        assert!(is_late(deep, 3, true));
        assert!(!is_late(deep - 1, 30, false), "too shallow");
    }

    fn pruning_node(depth: i32, eval: Score, pv_node: bool, in_check: bool) -> PruningNode {
        PruningNode {
            depth,
            eval,
            alpha: 0,
            pv_node,
            in_check,
            improving: true,
        }
    }

    #[test]
    fn late_quiets_are_skipped_by_count() {
        let node = pruning_node;
        let threshold = lmp_threshold(1, true);
        assert!(skips_later_quiets(&node(1, 1000, false, false), threshold));
        assert!(!skips_later_quiets(
            &node(1, 1000, false, false),
            threshold - 1
        ));
        assert!(
            !skips_later_quiets(&node(1, 1000, true, false), threshold),
            "PV node"
        );
        let deep = lmp_max_depth() + 1;
        assert!(!skips_later_quiets(&node(deep, 1000, false, false), 500));
    }

    #[test]
    fn quiets_are_pruned_by_futility_at_their_reduced_depth_or_by_bad_history() {
        let node = pruning_node;
        let hopeless = -futility_base() - futility_margin() - 1;
        assert!(prunes_quiet(&node(1, hopeless, true, false), 1, 0));
        assert!(
            !prunes_quiet(&node(1, hopeless, true, true), 1, 0),
            "in check"
        );
        assert!(!prunes_quiet(&node(1, hopeless + 2, true, false), 1, 0));
        // A deep node whose move is reduced to one ply is judged at one ply.
        assert!(prunes_quiet(&node(9, hopeless, false, false), 1, 0));
        assert!(!prunes_quiet(&node(9, hopeless, false, false), 2, 0));
        // Bad history prunes at low depth whatever the evaluation.
        let depth = history_prune_max_depth();
        let bad = -history_prune_margin() * depth - 1;
        assert!(prunes_quiet(&node(depth, 1000, false, false), depth, bad));
        assert!(!prunes_quiet(
            &node(depth, 1000, false, false),
            depth,
            bad + 2
        ));
        assert!(!prunes_quiet(
            &node(depth + 1, 1000, false, false),
            depth,
            2 * bad
        ));
    }

    #[test]
    fn reduced_depth_follows_the_reduction_table_and_history() {
        const PLY: i32 = REDUCTION_UNIT;
        let table = lmr_reduction(10, 20);
        assert_eq!(reduced_depth(10, 20, 0), (9 * PLY - table).div_euclid(PLY));
        assert_eq!(
            reduced_depth(10, 20, 2 * lmr_history_divisor()),
            (11 * PLY - table).div_euclid(PLY)
        );
        // Half a ply of history moves the depth by the fraction it adds.
        let fraction = (9 * PLY - table).rem_euclid(PLY);
        assert_eq!(
            reduced_depth(10, 20, (PLY - fraction) * lmr_history_divisor() / PLY + 1),
            (9 * PLY - table).div_euclid(PLY) + 1
        );
        assert_eq!(reduced_depth(2, 40, -10 * lmr_history_divisor()), 0);
    }

    #[test]
    fn reverse_futility_and_razoring_need_low_depth_and_a_margin() {
        let margin = rfp_margin();
        assert!(reverse_futility_cuts(2, 2 * margin, 0, false));
        assert!(!reverse_futility_cuts(2, 2 * margin - 1, 0, false));
        assert!(reverse_futility_cuts(2, margin, 0, true), "improving");
        assert!(!reverse_futility_cuts(
            rfp_max_depth() + 1,
            MATE / 2,
            0,
            true
        ));
        assert!(!reverse_futility_cuts(1, MATE - 5, 0, true), "mate score");
        let razor = razor_margin();
        assert!(razoring_applies(1, -razor - 1, 0));
        assert!(!razoring_applies(1, -razor, 0));
        assert!(!razoring_applies(razor_max_depth() + 1, -MATE / 2, 0));
    }

    #[test]
    fn null_move_reduction_grows_with_depth_and_the_margin_to_beta() {
        let base = null_move_reduction(nmp_depth_divisor(), 0, 0);
        assert_eq!(base, nmp_base_reduction() + 1);
        assert!(null_move_reduction(4 * nmp_depth_divisor(), 0, 0) > base);
        assert!(null_move_reduction(nmp_depth_divisor(), nmp_eval_divisor(), 0) > base);
        // The evaluation's share is capped.
        assert_eq!(
            null_move_reduction(0, 1_000_000, 0),
            nmp_base_reduction() + nmp_eval_reduction_max()
        );
    }

    #[test]
    fn a_deep_enough_tt_score_below_the_raised_beta_refutes_probcut() {
        let entry = |depth, score| {
            Some(TtEntry {
                packed_move: 0,
                score,
                eval: 0,
                depth,
                bound: Bound::Lower,
            })
        };
        let depth = 10;
        let probe_depth = depth - probcut_reduction();
        let raised = 100 + probcut_margin();
        assert!(tt_refutes_probcut(
            entry(probe_depth, raised - 1),
            depth,
            100
        ));
        assert!(!tt_refutes_probcut(entry(probe_depth, raised), depth, 100));
        assert!(
            !tt_refutes_probcut(entry(probe_depth - 1, -500), depth, 100),
            "too shallow"
        );
        assert!(!tt_refutes_probcut(None, depth, 100));
    }

    #[test]
    fn bounds_follow_the_window() {
        assert_eq!(bound_for(100, 0, 50), Bound::Lower);
        assert_eq!(bound_for(20, 0, 50), Bound::Exact);
        assert_eq!(bound_for(0, 0, 50), Bound::Upper);
        assert!(bound_allows(Bound::Exact, 7, 0, 50));
        assert!(bound_allows(Bound::Lower, 50, 0, 50));
        assert!(!bound_allows(Bound::Lower, 49, 0, 50));
        assert!(bound_allows(Bound::Upper, 0, 0, 50));
        assert!(!bound_allows(Bound::Upper, 1, 0, 50));
    }

    fn qs(alpha: Score, gain: Score, promotes: bool, wins: bool, holds: bool) -> QsVerdict {
        qs_capture_verdict(QsCapture {
            futility_base: 100,
            alpha,
            gain,
            promotes,
            wins_material: || wins,
            holds_material: || holds,
        })
    }

    #[test]
    fn quiescence_skips_futile_and_losing_captures_with_the_bound_they_prove() {
        // Winning a knight cannot lift 100 to 500: the node scores at least 420.
        assert_eq!(qs(500, 320, false, true, true), QsVerdict::Skip(420));
        // A promotion is never futile, but a losing one is skipped.
        assert_eq!(qs(500, 0, true, true, true), QsVerdict::Search);
        assert_eq!(qs(500, 0, true, false, false), QsVerdict::Skip(-INFINITY));
        // The margin alone does not reach alpha: only a winning exchange is searched.
        assert_eq!(qs(150, 100, false, false, true), QsVerdict::Skip(100));
        assert_eq!(qs(150, 100, false, true, true), QsVerdict::Search);
        // Above alpha, an even exchange is searched and a losing one is not.
        assert_eq!(qs(50, 100, false, false, true), QsVerdict::Search);
        assert_eq!(qs(50, 100, false, false, false), QsVerdict::Skip(-INFINITY));
        // A winning exchange is not tested again for holding material.
        let winning = qs_capture_verdict(QsCapture {
            futility_base: 100,
            alpha: 150,
            gain: 100,
            promotes: false,
            wins_material: || true,
            holds_material: || panic!("second exchange test"),
        });
        assert_eq!(winning, QsVerdict::Search);
    }

    #[test]
    fn stand_pat_takes_a_tt_score_only_where_its_bound_points_beyond_the_eval() {
        let entry = |score, bound| {
            Some(TtEntry {
                packed_move: 0,
                score,
                eval: 0,
                depth: 3,
                bound,
            })
        };
        assert_eq!(sharpened_stand_pat(10, None), 10);
        assert_eq!(sharpened_stand_pat(10, entry(40, Bound::Lower)), 40);
        assert_eq!(sharpened_stand_pat(10, entry(-40, Bound::Lower)), 10);
        assert_eq!(sharpened_stand_pat(10, entry(-40, Bound::Upper)), -40);
        assert_eq!(sharpened_stand_pat(10, entry(40, Bound::Upper)), 10);
        assert_eq!(sharpened_stand_pat(10, entry(-5, Bound::Exact)), -5);
        assert_eq!(sharpened_stand_pat(10, entry(MATE - 3, Bound::Lower)), 10);
    }
}
