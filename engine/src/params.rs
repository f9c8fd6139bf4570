//! Every constant that shapes the search, in one table, so that a tuner (for
//! example SPSA) can read and change them without touching the search code.
//!
//! Each tunable has a value, a range and a step (the size of change a tuner
//! should try first) and is read through a function of its name. An ordinary
//! build compiles each function to its constant. A build with the `tune`
//! feature keeps the values in atomics that `set_tunable` changes, so that
//! the `sessa` binary can offer every tunable as a UCI option for a tuning
//! run; the table [`TUNABLES`] lists them with their defaults and ranges.
//!
//! Fractions are written as integers in hundredths (`_percent`), so that all
//! tunables are integers, as tuners and UCI spin options expect.
//!
//! The values are those of the SPSA run logged in `bench/RESULTS.md` (its
//! state at iteration 4,322 in `bench/data/spsa-85d4ffb/`, rounded), tuned
//! on the search of main 85d4ffb in games at 2 s + 0.02 s.

/// A search constant a tuner may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tunable {
    /// Its name, as the function that reads it and as a UCI option.
    pub name: &'static str,
    /// The value an ordinary build uses.
    pub value: i32,
    /// The smallest value worth trying.
    pub min: i32,
    /// The largest value worth trying.
    pub max: i32,
    /// The size of a first change a tuner should try.
    pub step: i32,
}

/// Defines each tunable's reading function, the table of all of them and,
/// in a `tune` build, their changeable values.
macro_rules! tunables {
    ($($(#[doc = $doc:literal])* $name:ident = $value:literal, $min:literal..=$max:literal, step $step:literal;)*) => {
        $(
            $(#[doc = $doc])*
            #[inline(always)]
            pub fn $name() -> i32 {
                #[cfg(not(feature = "tune"))]
                {
                    $value
                }
                #[cfg(feature = "tune")]
                {
                    tuned::$name.load(std::sync::atomic::Ordering::Relaxed)
                }
            }
        )*

        /// Every tunable with its default, range and step, in the order of this file.
        pub const TUNABLES: &[Tunable] = &[$(Tunable {
            name: stringify!($name),
            value: $value,
            min: $min,
            max: $max,
            step: $step,
        },)*];

        /// The changeable values of a tuning build.
        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod tuned {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($value);)*
        }

        /// Sets the tunable `name` (a tuning build only), from the next node searched on.
        #[cfg(feature = "tune")]
        pub fn set_tunable(name: &str, value: i32) -> Result<(), TunableError> {
            let tunable = TUNABLES
                .iter()
                .find(|t| t.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| TunableError::Unknown(name.to_string()))?;
            if !(tunable.min..=tunable.max).contains(&value) {
                return Err(TunableError::OutOfRange(*tunable, value));
            }
            let cell = match tunable.name {
                $(stringify!($name) => &tuned::$name,)*
                _ => unreachable!("every name of the table has a value"),
            };
            cell.store(value, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        }
    };
}

/// Why `set_tunable` refused a value.
#[cfg(feature = "tune")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunableError {
    /// No tunable has that name.
    Unknown(String),
    /// The value is outside the tunable's range.
    OutOfRange(Tunable, i32),
}

#[cfg(feature = "tune")]
impl std::fmt::Display for TunableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TunableError::Unknown(name) => write!(f, "no tunable is named {name}"),
            TunableError::OutOfRange(t, value) => {
                write!(
                    f,
                    "{} must be in {}..={}, not {value}",
                    t.name, t.min, t.max
                )
            }
        }
    }
}

tunables! {
    /// Half-width of the first aspiration window, in centipawns.
    aspiration_window = 23, 8..=60, step 3;
    /// Depth from which iterations start with an aspiration window.
    aspiration_min_depth = 4, 2..=8, step 1;
    /// A failed aspiration window grows by this share of its width, in percent.
    aspiration_growth_percent = 49, 20..=150, step 10;
    /// Each fail high is searched again a ply shallower, by at most this many plies.
    aspiration_fail_high_max_reduction = 3, 0..=6, step 1;
    /// Once the window's half-width passes this, the search takes the full window.
    aspiration_full_window = 1012, 300..=3000, step 100;

    /// Deepest node at which reverse futility pruning applies.
    rfp_max_depth = 8, 4..=12, step 1;
    /// Reverse futility margin per ply of depth.
    rfp_margin = 76, 40..=150, step 8;

    /// Deepest node at which razoring applies.
    razor_max_depth = 2, 1..=6, step 1;
    /// Razoring margin per ply of depth.
    razor_margin = 231, 100..=500, step 20;

    /// Shallowest node at which the null move is tried.
    nmp_min_depth = 2, 1..=6, step 1;
    /// Base null-move reduction.
    nmp_base_reduction = 3, 2..=5, step 1;
    /// The null-move reduction grows by one ply per this many plies of depth.
    nmp_depth_divisor = 3, 2..=8, step 1;
    /// ...and by one ply per this many centipawns the static eval exceeds beta...
    nmp_eval_divisor = 191, 80..=400, step 20;
    /// ...by at most this many plies.
    nmp_eval_reduction_max = 3, 1..=6, step 1;
    /// From this depth a null-move cutoff is verified by a reduced normal search.
    nmp_verify_depth = 12, 6..=20, step 1;

    /// Deepest node at which late quiet moves are skipped.
    lmp_max_depth = 8, 4..=12, step 1;
    /// Late-move pruning: quiet moves searched before the rest are skipped is
    /// `(lmp_base + depth²) / (2 - improving)`.
    lmp_base = 4, 0..=8, step 1;

    /// Deepest reduced depth (see `reduced_depth`) at which futility pruning
    /// of quiet moves applies.
    futility_max_depth = 7, 3..=10, step 1;
    /// Futility margin: base.
    futility_base = 88, 30..=200, step 10;
    /// Futility margin: per ply of depth.
    futility_margin = 88, 40..=200, step 10;

    /// Deepest node at which quiet moves with bad history are skipped.
    history_prune_max_depth = 4, 1..=8, step 1;
    /// Quiet moves whose combined history lies below minus this per ply of
    /// depth are skipped.
    history_prune_margin = 2164, 512..=8192, step 256;

    /// Deepest node at which moves losing material by SEE are skipped.
    see_prune_max_depth = 8, 4..=12, step 1;
    /// Quiet moves losing more than this per ply of their reduced depth are skipped.
    see_quiet_margin = 59, 20..=120, step 6;
    /// Captures losing more than this per ply of depth squared are skipped.
    see_capture_margin = 19, 5..=60, step 3;

    /// Shallowest node without a TT move that is searched one ply shallower
    /// (internal iterative reduction).
    iir_min_depth = 4, 2..=8, step 1;

    /// Shallowest node at which late moves are reduced.
    lmr_min_depth = 2, 2..=5, step 1;
    /// Late-move reduction table: base, in hundredths of a ply.
    lmr_base_percent = 77, 0..=200, step 10;
    /// Late-move reduction table: divisor of `ln(depth) * ln(move number)`, in hundredths.
    lmr_divisor_percent = 226, 150..=400, step 15;
    /// Extra reduction of late moves at cut nodes, in 1024ths of a ply (one
    /// whole ply showed no gain at fixed nodes).
    lmr_cut_node = 563, 0..=3072, step 128;
    /// Late captures that lose material are reduced by this share (in percent)
    /// of the table's reduction for a quiet move...
    lmr_losing_capture_percent = 96, 0..=150, step 10;
    /// ...less one ply per this much capture history.
    lmr_capture_history_divisor = 16219, 4096..=32768, step 1024;
    /// Combined history score (butterfly plus the continuation histories one,
    /// two and four plies back) worth one ply of reduction.
    lmr_history_divisor = 16159, 4096..=32768, step 1024;

    /// Shallowest node at which the TT move is tested for being singular.
    se_min_depth = 8, 4..=12, step 1;
    /// The TT entry must come from a search at most this much shallower than the node.
    se_tt_depth_margin = 3, 1..=5, step 1;
    /// The other moves must stay this far per ply of depth below the TT score.
    se_margin_per_depth = 1, 1..=5, step 1;

    /// A TT move expected to fail high on its own, but not singular, is
    /// searched this many plies shallower.
    se_negative_extension = 1, 0..=3, step 1;
    /// At cut nodes a TT move that is not singular is searched this many
    /// plies shallower.
    se_cut_node_reduction = 0, 0..=3, step 1;

    /// Double extension: the other moves fail this far below the singular beta.
    se_double_margin = 20, 0..=60, step 4;
    /// At most this many double extensions on one line.
    se_double_max = 7, 0..=12, step 1;

    /// Shallowest node at which ProbCut tries captures against a raised beta.
    probcut_min_depth = 6, 3..=20, step 1;
    /// ProbCut's raised beta: this far above the node's beta.
    probcut_margin = 207, 80..=400, step 20;
    /// ProbCut verifies a capture with a search this much shallower than the node.
    probcut_reduction = 4, 3..=6, step 1;

    /// Quiescence futility margin: a capture that cannot lift the stand pat to
    /// alpha even with this much extra is skipped, and so is one that wins no
    /// material where the stand pat plus this cannot reach alpha.
    delta_margin = 218, 50..=400, step 20;

    /// The history bonus after a cutoff is `history_bonus_scale × depth²`,
    /// with `depth²` at most this.
    history_bonus_max = 388, 100..=1600, step 50;
    /// The history bonus after a cutoff, per `depth²`.
    history_bonus_scale = 30, 4..=64, step 4;
    /// Capture ordering: the victim's value counts this many times...
    capture_victim_weight = 16, 4..=32, step 2;
    /// ...plus the capture history divided by this.
    capture_history_divisor = 15, 4..=64, step 4;

    /// The largest correction one key of the correction history holds, in centipawns.
    correction_max = 45, 16..=128, step 8;
    /// The pawn structure's key counts this many percent in a correction...
    correction_pawn_percent = 92, 0..=200, step 10;
    /// ...each side's other pieces' key this many...
    correction_nonpawn_percent = 52, 0..=200, step 10;
    /// ...the knights' and bishops' of both sides this many...
    correction_minor_percent = 50, 0..=200, step 10;
    /// ...and the last two moves' this many.
    correction_continuation_percent = 54, 0..=200, step 10;
    /// Evaluation errors beyond this many centipawns count as this many.
    correction_max_error = 389, 100..=800, step 50;
    /// A correction sample's weight is its depth plus one, at most this (out of 256).
    correction_max_weight = 18, 4..=64, step 4;

    /// The soft limit's factor from the best move's share of an iteration's
    /// nodes is `(tm_node_base - share) × tm_node_scale`, both in percent...
    tm_node_base = 148, 110..=200, step 5;
    /// ...(see `tm_node_base`).
    tm_node_scale = 128, 50..=250, step 10;
    /// Best-move stability: the factor, in percent, when the best move just changed...
    tm_stability_start = 142, 100..=200, step 5;
    /// ...less this for each iteration it has stayed best...
    tm_stability_step = 9, 0..=30, step 2;
    /// ...down to this.
    tm_stability_min = 77, 50..=100, step 5;
    /// A falling score lengthens the soft limit by this many percent per 10
    /// centipawns it fell since the last iteration...
    tm_falling_percent_per_10cp = 9, 0..=30, step 2;
    /// ...to at most this factor, in percent.
    tm_falling_max = 151, 100..=250, step 10;
}

/// Reductions are counted in this many parts of a ply, so that the
/// adjustments to a reduction add up before it is rounded down to plies.
pub const REDUCTION_UNIT: i32 = 1024;

/// The reduction table's entry for `depth` and `moves`, from the formula,
/// in [`REDUCTION_UNIT`]s.
fn lmr_formula(depth: usize, moves: usize) -> i32 {
    let base = f64::from(lmr_base_percent()) / 100.0;
    let divisor = f64::from(lmr_divisor_percent()) / 100.0;
    let plies = base + (depth as f64).ln() * (moves as f64).ln() / divisor;
    (plies * f64::from(REDUCTION_UNIT)) as i32
}

/// `LMR_TABLE[depth][move number]`: the reduction of a late quiet move.
#[cfg(not(feature = "tune"))]
static LMR_TABLE: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
    let mut table = [[0; 64]; 64];
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, reduction) in row.iter_mut().enumerate().skip(1) {
            *reduction = lmr_formula(depth, moves);
        }
    }
    table
});

/// The late-move reduction for a move at `depth` with number
/// `move_number`, in [`REDUCTION_UNIT`]s.
#[cfg(not(feature = "tune"))]
pub fn lmr_reduction(depth: i32, move_number: usize) -> i32 {
    LMR_TABLE[(depth as usize).min(63)][move_number.min(63)]
}

/// The late-move reduction for a move at `depth` with number `move_number`,
/// in [`REDUCTION_UNIT`]s (a tuning build computes it from the current values every time).
#[cfg(feature = "tune")]
pub fn lmr_reduction(depth: i32, move_number: usize) -> i32 {
    let (depth, moves) = ((depth as usize).min(63), move_number.min(63));
    if depth == 0 || moves == 0 {
        0
    } else {
        lmr_formula(depth, moves)
    }
}

/// How many quiet moves are searched at `depth` before the others are skipped.
pub fn lmp_threshold(depth: i32, improving: bool) -> usize {
    let base = lmp_base() + depth * depth;
    (if improving { base } else { base / 2 }) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_lies_in_its_range_with_a_usable_step() {
        for t in TUNABLES {
            assert!(t.min <= t.value && t.value <= t.max, "{t:?}");
            assert!(t.step > 0 && t.step <= t.max - t.min, "{t:?}");
        }
        let mut names: Vec<_> = TUNABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TUNABLES.len(), "names repeat");
    }

    #[test]
    fn divisors_cannot_be_tuned_to_zero() {
        for t in TUNABLES.iter().filter(|t| t.name.contains("divisor")) {
            assert!(t.min > 0, "{t:?}");
        }
    }

    #[test]
    fn reading_functions_give_the_table_values() {
        let value = |name: &str| TUNABLES.iter().find(|t| t.name == name).unwrap().value;
        assert_eq!(aspiration_window(), value("aspiration_window"));
        assert_eq!(lmr_history_divisor(), value("lmr_history_divisor"));
        assert_eq!(correction_max_weight(), value("correction_max_weight"));
    }

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        assert_eq!(
            lmr_reduction(1, 1),
            lmr_base_percent() * REDUCTION_UNIT / 100
        );
        assert!(lmr_reduction(20, 40) > lmr_reduction(3, 4));
        assert_eq!(lmr_reduction(1000, 1000), lmr_reduction(63, 63));
    }
}
