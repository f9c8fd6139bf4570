//! Every constant that shapes the search, in one place, so that they can be
//! tuned (for example by SPSA) without touching the search code.

use crate::score::Score;
use std::sync::LazyLock;

/// Half-width of the first aspiration window, in centipawns.
pub const ASPIRATION_WINDOW: Score = 25;
/// Depth from which iterations start with an aspiration window.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;

/// Deepest node at which reverse futility pruning applies.
pub const RFP_MAX_DEPTH: i32 = 8;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: Score = 80;

/// Deepest node at which razoring applies.
pub const RAZOR_MAX_DEPTH: i32 = 3;
/// Razoring margin per ply of depth.
pub const RAZOR_MARGIN: Score = 250;

/// Shallowest node at which the null move is tried.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Base null-move reduction.
pub const NMP_BASE_REDUCTION: i32 = 3;
/// The null-move reduction grows by one ply per this many plies of depth.
pub const NMP_DEPTH_DIVISOR: i32 = 4;
/// ...and by one ply per this many centipawns the static eval exceeds beta (at most 3).
pub const NMP_EVAL_DIVISOR: Score = 200;
/// From this depth a null-move cutoff is verified by a reduced normal search.
pub const NMP_VERIFY_DEPTH: i32 = 12;

/// Deepest node at which late quiet moves are skipped.
pub const LMP_MAX_DEPTH: i32 = 8;
/// Late-move pruning: quiet moves searched before the rest are skipped is
/// `(LMP_BASE + depth²) / (2 - improving)`.
pub const LMP_BASE: i32 = 3;

/// Deepest node at which futility pruning of quiet moves applies.
pub const FUTILITY_MAX_DEPTH: i32 = 6;
/// Futility margin: base.
pub const FUTILITY_BASE: Score = 90;
/// Futility margin: per ply of depth.
pub const FUTILITY_MARGIN: Score = 90;

/// Deepest node at which moves losing material by SEE are skipped.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 8;
/// Quiet moves losing more than this per ply of depth are skipped.
pub const SEE_QUIET_MARGIN: Score = 60;
/// Captures losing more than this per ply of depth squared are skipped.
pub const SEE_CAPTURE_MARGIN: Score = 20;

/// Shallowest node without a TT move that is searched one ply shallower
/// (internal iterative reduction).
pub const IIR_MIN_DEPTH: i32 = 4;

/// Shallowest node at which late moves are reduced.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late-move reduction table: base.
pub const LMR_BASE: f64 = 0.75;
/// Late-move reduction table: divisor of `ln(depth) * ln(move number)`.
pub const LMR_DIVISOR: f64 = 2.25;
/// Shallowest node at which the TT move is tested for being singular.
pub const SE_MIN_DEPTH: i32 = 8;
/// The TT entry must come from a search at most this much shallower than the node.
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
/// The other moves must stay this far per ply of depth below the TT score.
pub const SE_MARGIN_PER_DEPTH: Score = 2;

/// Combined history score (butterfly plus two continuation histories) worth one ply of reduction.
pub const LMR_HISTORY_DIVISOR: i32 = 16384;

/// Quiescence delta pruning margin: a capture that cannot lift the score to
/// alpha even with this much extra is skipped.
pub const DELTA_MARGIN: Score = 200;

/// `LMR_TABLE[depth][move number]`: the reduction of a late quiet move.
pub static LMR_TABLE: LazyLock<[[i32; 64]; 64]> = LazyLock::new(|| {
    let mut table = [[0; 64]; 64];
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, reduction) in row.iter_mut().enumerate().skip(1) {
            let r = LMR_BASE + (depth as f64).ln() * (moves as f64).ln() / LMR_DIVISOR;
            *reduction = r as i32;
        }
    }
    table
});

/// The late-move reduction for a move at `depth` with number `move_number`.
pub fn lmr_reduction(depth: i32, move_number: usize) -> i32 {
    LMR_TABLE[(depth as usize).min(63)][move_number.min(63)]
}

/// How many quiet moves are searched at `depth` before the others are skipped.
pub fn lmp_threshold(depth: i32, improving: bool) -> usize {
    let base = LMP_BASE + depth * depth;
    (if improving { base } else { base / 2 }) as usize
}
