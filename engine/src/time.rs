//! Time management: the FIDE clock modes (Laws of Chess, Art. 6.2) as a type,
//! and the soft and hard limits a search gets from them.
//!
//! The soft limit says when no new iteration should start; the hard limit
//! aborts the search. Both are computed once, at `go`, from the time left
//! minus the move overhead (the time lost between the engine and the clock),
//! and the hard limit never goes past what is left on the clock. While many
//! moves remain, the hard limit also stays within a twelfth of the usable
//! time plus the increment, so that one long iteration cannot eat the
//! time of several later moves.
//!
//! Between iterations the soft limit is scaled by what the search has
//! learnt ([`SearchSignals`]): a best move that took most of the nodes and
//! stayed best for several iterations ends the search early, one that just
//! changed, or a falling score, lets it run longer, never past the hard
//! limit.

use crate::params::{
    tm_falling_max, tm_falling_percent_per_10cp, tm_node_base, tm_node_scale, tm_stability_min,
    tm_stability_start, tm_stability_step,
};
use crate::score::Score;
use shakmaty::Color;
use std::time::Duration;

/// How the clock of the side to move runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
    /// All remaining moves must be played in the remaining time.
    SuddenDeath,
    /// An increment is added after each move (Fischer mode).
    Fischer {
        /// Time added after each move.
        increment: Duration,
    },
    /// A number of moves must be made before the next period starts; time
    /// not used carries into the next period. An increment may also apply.
    MovesPerPeriod {
        /// Moves left in this period, this one included.
        moves_to_go: u32,
        /// Time added after each move (often zero).
        increment: Duration,
    },
    /// The main time only runs once the per-move delay is used up; unused
    /// delay is lost, not added to the main time.
    Delay {
        /// Free thinking time at the start of each move.
        delay: Duration,
        /// Moves left in the period, if the period has a move count.
        moves_to_go: Option<u32>,
    },
}

/// The clock of the side to move as the GUI reports it at `go`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Main time left in milliseconds; may be zero or negative.
    pub remaining_ms: i64,
    /// The mode the clock runs in.
    pub mode: ClockMode,
}

impl Clock {
    /// Classifies the `go` fields of the side to move (plus the `Clock Delay`
    /// option, which UCI has no field for) into a clock mode.
    pub fn from_go(
        remaining_ms: i64,
        increment_ms: i64,
        moves_to_go: Option<u32>,
        delay_ms: u64,
    ) -> Clock {
        let increment = Duration::from_millis(increment_ms.max(0) as u64);
        let moves_to_go = moves_to_go.filter(|&n| n > 0);
        let mode = if delay_ms > 0 {
            ClockMode::Delay {
                delay: Duration::from_millis(delay_ms),
                moves_to_go,
            }
        } else if let Some(moves_to_go) = moves_to_go {
            ClockMode::MovesPerPeriod {
                moves_to_go,
                increment,
            }
        } else if increment > Duration::ZERO {
            ClockMode::Fischer { increment }
        } else {
            ClockMode::SuddenDeath
        };
        Clock { remaining_ms, mode }
    }
}

/// What the search is allowed to spend on this move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeControl {
    /// No time limit (`infinite`, or only depth/nodes/mate limits).
    Unlimited,
    /// Exactly this long (`movetime`).
    MoveTime(Duration),
    /// A game clock.
    Clock(Clock),
    /// The clock of the side to move is missing: play almost at once.
    Missing,
}

/// The limits one search gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeBudget {
    /// No new iteration starts after this.
    pub soft: Option<Duration>,
    /// The search is aborted at this point.
    pub hard: Option<Duration>,
}

/// Moves a sudden-death game is assumed to still last.
const EXPECTED_MOVES: u32 = 30;
/// Periods with more moves than this are planned as if they had this many.
const MAX_PLANNED_MOVES: u32 = 50;
/// The hard limit is at most the usable time spread over this many moves
/// (or over the moves of the period, when fewer remain) plus the increment.
const HARD_LIMIT_MOVES: u32 = 12;
/// The hard limit is at most this many soft limits.
const HARD_PER_SOFT: u32 = 4;
/// Below this much usable time the engine answers at once.
const PANIC_TIME: Duration = Duration::from_millis(20);
/// Below this much usable time a move may take only half its usual share.
const SHORT_CLOCK: Duration = Duration::from_secs(1);
/// Time a panicking engine still takes: enough for a depth-1 search.
const PANIC_SPEND: Duration = Duration::from_millis(2);

/// Splits `usable` main time over `moves` moves plus an increment.
///
/// `increment` is what a move really adds to the clock: the increment less
/// the move overhead, which every move loses between the engine and the
/// clock. Planning with the full increment would spend the overhead twice
/// over on every move, and on a clock fed mainly by its increment that
/// drains the main time to nothing, where any delay flags it.
///
/// `at_most` is the largest share of the usable time one move may take. On a
/// short clock the share is halved: a busy machine can delay the engine by
/// tens of milliseconds past its deadline, and that must not flag the clock.
/// The hard limit is also kept within the usable time over
/// [`HARD_LIMIT_MOVES`] moves (or `moves`, if fewer) plus the increment.
fn spread(usable: Duration, moves: u32, increment: Duration, at_most: f64) -> TimeBudget {
    let at_most = if usable < SHORT_CLOCK {
        at_most / 2.0
    } else {
        at_most
    };
    let soft = (usable / (moves + 1) + increment * 3 / 4).min(usable.mul_f64(at_most / 2.0));
    let fair_share = usable / moves.clamp(1, HARD_LIMIT_MOVES) + increment;
    let hard = (soft * HARD_PER_SOFT)
        .min(fair_share)
        .min(usable.mul_f64(at_most));
    TimeBudget {
        soft: Some(soft),
        hard: Some(hard),
    }
}

impl TimeBudget {
    /// A budget without limits.
    pub const UNLIMITED: TimeBudget = TimeBudget {
        soft: None,
        hard: None,
    };

    /// Computes the budget for a move.
    pub fn new(control: TimeControl, overhead: Duration) -> TimeBudget {
        match control {
            TimeControl::Unlimited => TimeBudget::UNLIMITED,
            TimeControl::MoveTime(t) => TimeBudget {
                soft: Some(t),
                hard: Some(t),
            },
            TimeControl::Missing => TimeBudget {
                soft: Some(PANIC_SPEND),
                hard: Some(PANIC_SPEND),
            },
            TimeControl::Clock(clock) => TimeBudget::for_clock(clock, overhead),
        }
    }

    fn for_clock(clock: Clock, overhead: Duration) -> TimeBudget {
        let remaining = Duration::from_millis(clock.remaining_ms.max(0) as u64);
        let usable = remaining.saturating_sub(overhead);
        let free = match clock.mode {
            ClockMode::Delay { delay, .. } => delay.saturating_sub(overhead),
            _ => Duration::ZERO,
        };
        if usable + free < PANIC_TIME {
            let spend = PANIC_SPEND.min(usable + free);
            return TimeBudget {
                soft: Some(spend),
                hard: Some(spend),
            };
        }
        match clock.mode {
            ClockMode::SuddenDeath => spread(usable, EXPECTED_MOVES, Duration::ZERO, 0.8),
            ClockMode::Fischer { increment } => spread(
                usable,
                EXPECTED_MOVES,
                increment.saturating_sub(overhead),
                0.8,
            ),
            ClockMode::MovesPerPeriod {
                moves_to_go,
                increment,
            } => {
                let moves = moves_to_go.min(MAX_PLANNED_MOVES);
                // With one move left the whole period may be used: the next
                // period brings fresh time and what is saved carries over.
                let at_most = if moves == 1 { 0.9 } else { 0.8 };
                spread(usable, moves, increment.saturating_sub(overhead), at_most)
            }
            ClockMode::Delay { moves_to_go, .. } => {
                // The delay is spent first, then the main time exactly as
                // without a delay, in sudden death or per period. Only this
                // move's delay is counted: unused delay is never banked.
                let mode = match moves_to_go {
                    Some(moves_to_go) => ClockMode::MovesPerPeriod {
                        moves_to_go,
                        increment: Duration::ZERO,
                    },
                    None => ClockMode::SuddenDeath,
                };
                let main = TimeBudget::for_clock(
                    Clock {
                        remaining_ms: clock.remaining_ms,
                        mode,
                    },
                    overhead,
                );
                TimeBudget {
                    soft: main.soft.map(|t| t + free),
                    hard: main.hard.map(|t| t + free),
                }
            }
        }
    }
}

/// The soft limit is scaled by at most this many times.
const MAX_SOFT_SCALE_PERCENT: u64 = 300;
/// ...and by at least this much, in percent.
const MIN_SOFT_SCALE_PERCENT: u64 = 25;

/// What a finished iteration says about how settled the search is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSignals {
    /// The best move's share of the iteration's nodes, in percent.
    pub best_move_node_percent: u64,
    /// Finished iterations in a row, before this one, whose best move was
    /// this iteration's (0 when the best move just changed).
    pub best_move_stable_for: u32,
    /// How far the best score fell since the last iteration, in
    /// centipawns (negative when it rose).
    pub score_drop: Score,
}

impl SearchSignals {
    /// The factor, in percent, by which these signals scale the soft limit:
    /// the product of a factor from the best move's share of the nodes
    /// (much effort on other moves means the choice is close), one from its
    /// stability, and one from a falling score (time to find a way out),
    /// within 25 % and 300 %.
    pub fn soft_scale_percent(&self) -> u64 {
        let share = self.best_move_node_percent.min(100) as i64;
        let node = ((i64::from(tm_node_base()) - share) * i64::from(tm_node_scale()) / 100).max(1);
        let stability = (i64::from(tm_stability_start())
            - i64::from(tm_stability_step()) * i64::from(self.best_move_stable_for))
        .max(i64::from(tm_stability_min()));
        let falling = (100
            + i64::from(self.score_drop.max(0)) * i64::from(tm_falling_percent_per_10cp()) / 10)
            .min(i64::from(tm_falling_max()));
        let percent = node * stability / 100 * falling / 100;
        (percent.max(0) as u64).clamp(MIN_SOFT_SCALE_PERCENT, MAX_SOFT_SCALE_PERCENT)
    }
}

impl TimeBudget {
    /// The soft limit scaled by `percent` (see
    /// [`SearchSignals::soft_scale_percent`]), never past the hard limit.
    /// A budget whose soft limit is its hard limit (`movetime`, a nearly
    /// empty clock) is a fixed time and is not scaled.
    pub fn scaled_soft(&self, percent: u64) -> Option<Duration> {
        match (self.soft, self.hard) {
            (Some(soft), Some(hard)) if soft < hard => {
                let percent = percent.clamp(MIN_SOFT_SCALE_PERCENT, MAX_SOFT_SCALE_PERCENT);
                Some((soft * percent as u32 / 100).min(hard))
            }
            _ => self.soft,
        }
    }
}

/// What the `go` command asked for, before it is turned into a time budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// White's clock in ms (`wtime`).
    pub white_time: Option<i64>,
    /// Black's clock in ms (`btime`).
    pub black_time: Option<i64>,
    /// White's increment in ms (`winc`).
    pub white_increment: Option<i64>,
    /// Black's increment in ms (`binc`).
    pub black_increment: Option<i64>,
    /// Moves to the next time control (`movestogo`).
    pub moves_to_go: Option<u32>,
    /// Search exactly this long, in ms (`movetime`).
    pub move_time: Option<i64>,
    /// Maximum depth (`depth`).
    pub depth: Option<u32>,
    /// Maximum nodes (`nodes`).
    pub nodes: Option<u64>,
    /// Look for a mate in this many moves (`mate`).
    pub mate: Option<u32>,
    /// Search until `stop` (`infinite`).
    pub infinite: bool,
    /// Search in the opponent's time until `ponderhit` or `stop` (`ponder`).
    pub ponder: bool,
    /// Only these root moves, in UCI notation (`searchmoves`).
    pub search_moves: Vec<String>,
}

impl Limits {
    /// Whether the best move waits for `stop`: under `infinite`, and for a
    /// bare `go`, which sets no limit at all (no clock, time, depth, nodes
    /// or mate) and so, as in other engines, analyses until told to stop.
    /// Without this a bare `go` would answer unasked once the search reached
    /// its deepest iteration, at once in a position that is mate in one.
    pub fn waits_for_stop(&self) -> bool {
        self.infinite
            || (self.white_time.is_none()
                && self.black_time.is_none()
                && self.move_time.is_none()
                && self.depth.is_none()
                && self.nodes.is_none()
                && self.mate.is_none())
    }

    /// The time control that applies to the side to move.
    /// `delay_ms` is the `Clock Delay` option (UCI has no field for it).
    pub fn time_control(&self, turn: Color, delay_ms: u64) -> TimeControl {
        if self.infinite {
            return TimeControl::Unlimited;
        }
        if let Some(ms) = self.move_time {
            return TimeControl::MoveTime(Duration::from_millis(ms.max(1) as u64));
        }
        let (time, increment) = match turn {
            Color::White => (self.white_time, self.white_increment),
            Color::Black => (self.black_time, self.black_increment),
        };
        let any_clock = self.white_time.is_some() || self.black_time.is_some();
        match time {
            Some(ms) => TimeControl::Clock(Clock::from_go(
                ms,
                increment.unwrap_or(0),
                self.moves_to_go,
                delay_ms,
            )),
            None if any_clock => TimeControl::Missing,
            // Only depth, nodes or mate limits, or a bare `go`: no clock.
            None => TimeControl::Unlimited,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OVERHEAD: Duration = Duration::from_millis(30);

    fn budget(remaining: i64, inc: i64, mtg: Option<u32>, delay: u64) -> TimeBudget {
        TimeBudget::new(
            TimeControl::Clock(Clock::from_go(remaining, inc, mtg, delay)),
            OVERHEAD,
        )
    }

    #[test]
    fn modes_are_classified() {
        assert_eq!(
            Clock::from_go(1000, 0, None, 0).mode,
            ClockMode::SuddenDeath
        );
        assert!(matches!(
            Clock::from_go(1000, 10, None, 0).mode,
            ClockMode::Fischer { .. }
        ));
        assert!(matches!(
            Clock::from_go(1000, 0, Some(5), 0).mode,
            ClockMode::MovesPerPeriod { moves_to_go: 5, .. }
        ));
        assert!(matches!(
            Clock::from_go(1000, 0, Some(5), 100).mode,
            ClockMode::Delay {
                moves_to_go: Some(5),
                ..
            }
        ));
    }

    #[test]
    fn never_plans_past_the_clock() {
        for remaining in [0, 1, 10, 31, 50, 100, 500, 1_000, 8_000, 60_000, 3_600_000] {
            for inc in [0, 10, 80, 1_000, 30_000] {
                for mtg in [None, Some(1), Some(2), Some(10), Some(40), Some(200)] {
                    for delay in [0, 10, 45, 100, 2_000] {
                        let b = budget(remaining, inc, mtg, delay);
                        // The main time left plus this move's free delay,
                        // each less the overhead.
                        let main = Duration::from_millis(remaining as u64).saturating_sub(OVERHEAD);
                        let free = Duration::from_millis(delay).saturating_sub(OVERHEAD);
                        let hard = b.hard.unwrap();
                        assert!(
                            hard <= main + free,
                            "{remaining} {inc} {mtg:?} {delay}: {hard:?}"
                        );
                        assert!(b.soft.unwrap() <= hard);
                    }
                }
            }
        }
    }

    #[test]
    fn tiny_zero_and_negative_clocks_answer_at_once() {
        for remaining in [-500, 0, 1, 25, 45] {
            let b = budget(remaining, 0, None, 0);
            assert!(b.hard.unwrap() <= PANIC_SPEND, "{remaining}");
        }
        let missing = TimeBudget::new(TimeControl::Missing, OVERHEAD);
        assert!(missing.hard.unwrap() <= PANIC_SPEND);
    }

    #[test]
    fn one_move_to_go_spends_at_most_the_period() {
        let b = budget(10_000, 0, Some(1), 0);
        let hard = b.hard.unwrap();
        assert!(hard <= Duration::from_millis(10_000) - OVERHEAD);
        // ...and uses a good part of it, since the next period brings more.
        assert!(b.soft.unwrap() >= Duration::from_millis(3_000));
    }

    #[test]
    fn period_time_is_spread_over_its_moves() {
        let few = budget(60_000, 0, Some(5), 0).soft.unwrap();
        let many = budget(60_000, 0, Some(40), 0).soft.unwrap();
        assert!(few > many * 4);
        // Saved time carries over: more time left for the same moves, more per move.
        assert!(budget(120_000, 0, Some(40), 0).soft.unwrap() > many);
    }

    #[test]
    fn short_clock_keeps_a_reserve() {
        // 157 ms left with an 80 ms increment: at most a third of what is
        // left goes into this move, so a late wake-up cannot flag the clock.
        let hard = budget(157, 80, None, 0).hard.unwrap();
        assert!(hard <= Duration::from_millis(64), "{hard:?}");
    }

    #[test]
    fn many_moves_left_keep_the_hard_limit_near_a_tenth_of_the_clock() {
        // 60 s + 1 s on the first moves: no move may run past about 6 s.
        let b = budget(60_000, 1_000, None, 0);
        assert!(b.hard.unwrap() <= Duration::from_secs(6), "{b:?}");
        assert!(b.soft.unwrap() >= Duration::from_millis(2_000), "{b:?}");
        for remaining in [2_000, 10_000, 60_000, 180_000, 3_600_000] {
            for inc in [0, 20, 1_000, 5_000] {
                for mtg in [None, Some(12), Some(20), Some(40)] {
                    let b = budget(remaining, inc, mtg, 0);
                    let tenth = Duration::from_millis(remaining as u64 / 10 + inc as u64);
                    assert!(b.hard.unwrap() <= tenth, "{remaining} {inc} {mtg:?}: {b:?}");
                }
            }
        }
    }

    #[test]
    fn few_moves_left_may_take_their_share_of_the_period() {
        // Two moves for 10 s: about half each, never the whole period.
        let two = budget(10_000, 0, Some(2), 0).hard.unwrap();
        assert!(two <= Duration::from_millis(5_000), "{two:?}");
        assert!(two >= Duration::from_millis(3_000), "{two:?}");
        // Five moves for a minute: a fifth each at most, more than the plan.
        let b = budget(60_000, 0, Some(5), 0);
        assert!(b.hard.unwrap() <= Duration::from_millis(12_000), "{b:?}");
        assert!(b.hard.unwrap() > b.soft.unwrap(), "{b:?}");
        // With many moves the hard limit is a few soft limits, so that an
        // iteration started just before the soft limit may finish.
        let b = budget(60_000, 0, None, 0);
        assert!(b.hard.unwrap() > b.soft.unwrap() * 2, "{b:?}");
        assert!(b.hard.unwrap() <= b.soft.unwrap() * HARD_PER_SOFT);
    }

    #[test]
    fn a_clock_fed_by_its_increment_keeps_a_reserve() {
        // 2 s + 20 ms with 30 ms of overhead, where each move really loses
        // 10 ms beyond the engine's own time: the clock must settle well
        // above zero even if every move runs to its hard limit.
        for spend_hard in [false, true] {
            let mut clock_ms = 2_000.0;
            let mut lowest = clock_ms;
            for _ in 0..300 {
                let b = budget(clock_ms as i64, 20, None, 0);
                let limit = if spend_hard { b.hard } else { b.soft };
                clock_ms -= limit.unwrap().as_secs_f64() * 1000.0 + 10.0;
                lowest = f64::min(lowest, clock_ms);
                clock_ms += 20.0;
            }
            assert!(lowest > 100.0, "hard: {spend_hard}, lowest {lowest} ms");
        }
    }

    fn signals(share: u64, stable: u32, drop: Score) -> SearchSignals {
        SearchSignals {
            best_move_node_percent: share,
            best_move_stable_for: stable,
            score_drop: drop,
        }
    }

    #[test]
    fn a_settled_search_stops_early_and_an_unsettled_one_runs_longer() {
        let settled = signals(95, 8, 0).soft_scale_percent();
        let unsettled = signals(30, 0, 0).soft_scale_percent();
        assert!(settled < 70, "{settled}");
        assert!(unsettled > 180, "{unsettled}");
        // Each signal alone moves the factor the same way.
        assert!(signals(40, 3, 0).soft_scale_percent() > signals(90, 3, 0).soft_scale_percent());
        assert!(signals(70, 0, 0).soft_scale_percent() > signals(70, 5, 0).soft_scale_percent());
        assert!(signals(70, 3, 40).soft_scale_percent() > signals(70, 3, 0).soft_scale_percent());
        // A rising score does not shorten the search below a steady one.
        assert_eq!(
            signals(70, 3, -80).soft_scale_percent(),
            signals(70, 3, 0).soft_scale_percent()
        );
        // Long stability and a falling score are both capped.
        assert_eq!(
            signals(70, 20, 0).soft_scale_percent(),
            signals(70, 40, 0).soft_scale_percent()
        );
        assert_eq!(
            signals(70, 3, 500).soft_scale_percent(),
            signals(70, 3, 900).soft_scale_percent()
        );
    }

    #[test]
    fn the_scale_stays_within_its_bounds_for_any_signals() {
        for share in [0, 1, 50, 99, 100, 250] {
            for stable in [0, 1, 5, 100, u32::MAX] {
                for drop in [Score::MIN / 2, -100, 0, 30, 1000, Score::MAX / 2] {
                    let p = signals(share, stable, drop).soft_scale_percent();
                    assert!(
                        (MIN_SOFT_SCALE_PERCENT..=MAX_SOFT_SCALE_PERCENT).contains(&p),
                        "{share} {stable} {drop}: {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_scaled_soft_limit_never_passes_the_hard_limit() {
        let b = budget(60_000, 1_000, None, 0);
        let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
        assert_eq!(b.scaled_soft(100), Some(soft));
        assert_eq!(b.scaled_soft(50), Some(soft / 2));
        assert!(b.scaled_soft(300).unwrap() <= hard);
        assert!(b.scaled_soft(300).unwrap() > soft * 2);
        for remaining in [0, 40, 157, 2_000, 8_000, 3_600_000] {
            for inc in [0, 20, 80, 1_000] {
                let b = budget(remaining, inc, None, 0);
                for percent in [0, 25, 100, 300, 10_000] {
                    assert!(
                        b.scaled_soft(percent) <= b.hard,
                        "{remaining} {inc} {percent}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_fixed_move_time_is_not_scaled() {
        let fixed = TimeBudget::new(TimeControl::MoveTime(Duration::from_secs(1)), OVERHEAD);
        assert_eq!(fixed.scaled_soft(25), fixed.soft);
        assert_eq!(fixed.scaled_soft(300), fixed.soft);
        assert_eq!(TimeBudget::UNLIMITED.scaled_soft(300), None);
    }

    #[test]
    fn increment_adds_time() {
        let base = budget(10_000, 0, None, 0).soft.unwrap();
        let with_inc = budget(10_000, 1_000, None, 0).soft.unwrap();
        assert!(with_inc > base + Duration::from_millis(500));
    }

    #[test]
    fn delay_is_used_but_never_banked() {
        let delay = Duration::from_millis(2_000);
        // With an empty main clock only the delay may be used.
        let empty = budget(0, 0, None, 2_000);
        assert!(empty.hard.unwrap() <= delay - OVERHEAD);
        assert!(empty.soft.unwrap() > Duration::ZERO);
        // Unused delay is lost, not added to the main time: a move plans its
        // main time exactly as without a delay, and spends this move's free
        // delay (less the overhead) on top, whatever the clock and period.
        for remaining in [1_000, 8_000, 60_000, 3_600_000] {
            for mtg in [None, Some(1), Some(5), Some(40)] {
                for delay_ms in [31, 100, 2_000, 10_000] {
                    let without = budget(remaining, 0, mtg, 0);
                    let with = budget(remaining, 0, mtg, delay_ms);
                    let free = Duration::from_millis(delay_ms) - OVERHEAD;
                    let case = format!("{remaining} {mtg:?} {delay_ms}");
                    assert_eq!(with.soft.unwrap(), without.soft.unwrap() + free, "{case}");
                    assert_eq!(with.hard.unwrap(), without.hard.unwrap() + free, "{case}");
                }
            }
        }
    }

    #[test]
    fn infinite_and_a_bare_go_wait_for_stop() {
        assert!(Limits::default().waits_for_stop());
        let infinite_with_depth = Limits {
            infinite: true,
            depth: Some(3),
            ..Limits::default()
        };
        assert!(infinite_with_depth.waits_for_stop());
        let searchmoves_only = Limits {
            search_moves: vec!["e2e4".to_string()],
            ..Limits::default()
        };
        assert!(searchmoves_only.waits_for_stop());
        for limited in [
            Limits {
                depth: Some(3),
                ..Limits::default()
            },
            Limits {
                nodes: Some(1_000),
                ..Limits::default()
            },
            Limits {
                mate: Some(2),
                ..Limits::default()
            },
            Limits {
                move_time: Some(100),
                ..Limits::default()
            },
            Limits {
                black_time: Some(1_000),
                ..Limits::default()
            },
        ] {
            assert!(!limited.waits_for_stop(), "{limited:?}");
        }
    }

    #[test]
    fn movetime_is_exact() {
        let t = Duration::from_millis(300);
        let b = TimeBudget::new(TimeControl::MoveTime(t), OVERHEAD);
        assert_eq!(b.soft, Some(t));
        assert_eq!(b.hard, Some(t));
    }
}
