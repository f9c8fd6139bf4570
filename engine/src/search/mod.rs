//! The search: iterative deepening over a fail-soft principal variation
//! search (negamax with alpha-beta), a quiescence search, and the rules of the
//! game applied at every node.
//!
//! A [`Worker`] is one search thread. It owns its board and its search stack
//! (killers, PV, ... per ply), and learns into its thread's tables
//! ([`ThreadTables`]); what it shares with the other threads is listed at
//! [`SharedState`]. It never prints: results leave as [`SearchEvent`]s.
//!
//! The search is split by role:
//! - this module: what a search is given and shares, and the `Worker`'s
//!   plumbing (counting nodes, making moves, evaluating);
//! - `root`: iterative deepening, aspiration windows, MultiPV lines and the
//!   root move loop;
//! - `node`: the search of one node below the root, with the searches
//!   that recurse into it (null move, ProbCut, the singular test);
//! - `qsearch`: the quiescence search;
//! - `pruning`: the pure decisions the node search takes (margins,
//!   reductions, verdicts), each testable on its own.
//!
//! With MultiPV the root is searched line by line; with the root in the
//! tablebases, only among the moves that keep the best result first (see
//! [`crate::syzygy`]).

mod node;
mod pruning;
mod qsearch;
mod root;
#[cfg(test)]
mod tests;

use crate::board::Board;
use crate::history::PreviousMoves;
use crate::movepick::{MovePicker, Picked};
use crate::nnue::{AccumulatorStack, Kernel, Network};
use crate::report::{IterationReport, Progress, PvLine, SearchEvent, send_iteration};
use crate::score::{Score, TB_WIN_BOUND};
use crate::stack::SearchStack;
use crate::syzygy::TablebasePlan;
use crate::thread_tables::ThreadTables;
use crate::time::TimeBudget;
use crate::tt::{Bound, TranspositionTable, TtEntry};
use crossbeam::channel::Sender;
use crossbeam::utils::CachePadded;
use shakmaty::{Color, Move, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Nodes a thread searches between two looks at the clock and the stop
/// flag, and between two additions to the shared node counter. A look
/// costs a clock read and two atomic operations, nothing next to this many
/// nodes, and keeps the hard limit to within a fraction of a millisecond
/// even where nodes are slow.
pub const CHECK_INTERVAL: u64 = 256;

/// What all threads of one engine share during a search: besides these
/// flags and counters only the lock-free transposition table and the
/// read-only Syzygy tablebases. Everything else (board, search stack,
/// histories, accumulators) each thread owns, and threads never wait for
/// each other during a search.
#[derive(Debug, Default)]
pub struct SharedState {
    /// Set to end the search (by `stop`, time, limits, or the main thread
    /// finishing); every thread polls it.
    pub stop: AtomicBool,
    /// Set when the GUI sent `stop`: a finished `infinite` or `ponder` search
    /// may now report its best move.
    pub stop_requested: AtomicBool,
    /// Set while the engine ponders: the clock does not run.
    pub pondering: AtomicBool,
    /// Nanoseconds after `go` at which the clock started: 0, or when `ponderhit` came.
    pub clock_started_ns: AtomicU64,
    /// Nodes searched by all threads in this search. Each thread adds its
    /// count every [`CHECK_INTERVAL`] nodes, so the counter sees one write
    /// per thread per interval rather than one per node; it has a cache
    /// line of its own so that these writes do not slow down the threads
    /// polling the flags.
    pub nodes: CachePadded<AtomicU64>,
    /// Tablebase probes of all threads in this search, the root's included.
    pub tb_hits: CachePadded<AtomicU64>,
}

impl SharedState {
    /// The counters of the search started at `start` as a report gives
    /// them, with `unflushed` nodes of the reporting thread not yet added
    /// to the shared count.
    pub(crate) fn progress(
        &self,
        tt: &TranspositionTable,
        start: Instant,
        unflushed: u64,
    ) -> Progress {
        Progress {
            nodes: self.nodes.load(Ordering::Relaxed) + unflushed,
            tbhits: self.tb_hits.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            hashfull: tt.hashfull(),
        }
    }
}

/// Everything one search needs to know besides the position.
#[derive(Debug, Clone)]
pub struct SearchSetup {
    /// Time limits.
    pub budget: TimeBudget,
    /// Maximum iteration depth.
    pub max_depth: u32,
    /// Node limit: the search is aborted once all threads together reach it.
    pub nodes: Option<u64>,
    /// Soft node limit: no new iteration starts once this worker has searched
    /// this many nodes (self-play data generation uses it with a hard `nodes` cap).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves is found.
    pub mate: Option<u32>,
    /// Root moves to consider (empty: all).
    pub search_moves: Vec<Move>,
    /// Lines searched: the best this many root moves (the MultiPV setting,
    /// or more where a limited strength chooses among them).
    pub searched_lines: usize,
    /// Lines reported, at most `searched_lines` (the MultiPV setting).
    pub reported_lines: usize,
    /// The tablebase ranking of the root moves and the probes below the root.
    pub tablebases: TablebasePlan,
    /// Stop right after the first iteration when only one move is legal.
    pub answer_forced_move_at_once: bool,
    /// When `go` arrived; the time limits count from here (or from `ponderhit`).
    pub start: Instant,
    /// 0 for the main thread, which reports and keeps time; 1.. for helpers.
    pub thread_index: usize,
    /// The evaluation network.
    pub net: Arc<Network>,
}

impl SearchSetup {
    /// A search limited only by depth, as the bench uses.
    pub fn depth(depth: u32) -> SearchSetup {
        SearchSetup {
            budget: TimeBudget::UNLIMITED,
            max_depth: depth,
            nodes: None,
            soft_nodes: None,
            mate: None,
            search_moves: Vec::new(),
            searched_lines: 1,
            reported_lines: 1,
            tablebases: TablebasePlan::default(),
            answer_forced_move_at_once: false,
            start: Instant::now(),
            thread_index: 0,
            net: Network::embedded(),
        }
    }
}

/// The kind of a node below the root, as a type so that each kind gets a
/// search of its own: PV nodes are searched with an open window and may
/// become the principal variation; non-PV nodes are searched with a null
/// window and only have to fail high or low.
pub(crate) trait NodeKind {
    /// Whether the node is on the principal variation.
    const PV: bool;
}

/// A node searched with an open window, on the principal variation.
pub(crate) struct Pv;

/// A node searched with a null window.
pub(crate) struct NonPv;

impl NodeKind for Pv {
    const PV: bool = true;
}

impl NodeKind for NonPv {
    const PV: bool = false;
}

/// One search thread's private state.
pub struct Worker<'a> {
    board: Board,
    tt: &'a TranspositionTable,
    shared: &'a SharedState,
    events: Option<Sender<SearchEvent>>,
    setup: SearchSetup,
    nodes: u64,
    nodes_flushed: u64,
    seldepth: usize,
    stopped: bool,
    /// The line of a root move that beat the first move searched in a pass
    /// of the current iteration: if the clock aborts the iteration, its move
    /// is played instead of the last finished iteration's.
    iteration_improvement: Option<PvLine>,
    /// Histories and caches kept from earlier searches of the game.
    thread_tables: &'a mut ThreadTables,
    /// What the search keeps about each ply of the current line.
    stack: SearchStack,
    /// The network's accumulators along the current line.
    accumulators: AccumulatorStack,
}

impl<'a> Worker<'a> {
    /// A worker for the position `board`, learning into `thread_tables`.
    /// Without `events` it reports nothing.
    pub fn new(
        board: Board,
        tt: &'a TranspositionTable,
        shared: &'a SharedState,
        thread_tables: &'a mut ThreadTables,
        setup: SearchSetup,
        events: Option<Sender<SearchEvent>>,
    ) -> Worker<'a> {
        Worker {
            board,
            tt,
            shared,
            events,
            setup,
            nodes: 0,
            nodes_flushed: 0,
            seldepth: 0,
            stopped: false,
            iteration_improvement: None,
            thread_tables,
            stack: SearchStack::default(),
            accumulators: AccumulatorStack::default(),
        }
    }

    fn send(&self, event: SearchEvent) {
        if let Some(events) = &self.events {
            // The receiver only goes away when the engine shuts down.
            let _ = events.send(event);
        }
    }

    /// Reports the `lines` of a finished iteration of `depth` (the main
    /// thread only: helpers have no `events`).
    fn report_iteration(&self, depth: u32, lines: &[PvLine]) {
        let Some(events) = &self.events else {
            return;
        };
        let progress =
            self.shared
                .progress(self.tt, self.setup.start, self.nodes - self.nodes_flushed);
        let report = IterationReport {
            depth,
            seldepth: self.seldepth as u32,
            lines,
            progress,
        };
        send_iteration(events, &self.board, report);
    }

    /// Time since `go`.
    fn elapsed(&self) -> Duration {
        self.setup.start.elapsed()
    }

    /// Time on the clock: zero while pondering, counted from `ponderhit` after.
    fn clock_elapsed(&self) -> Option<Duration> {
        if self.shared.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let started = Duration::from_nanos(self.shared.clock_started_ns.load(Ordering::Relaxed));
        Some(self.elapsed().saturating_sub(started))
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.nodes - self.nodes_flushed
    }

    /// Counts a node and decides whether the search must stop now.
    fn visit(&mut self, ply: usize) -> bool {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if let Some(limit) = self.setup.nodes
            && self.total_nodes() >= limit
        {
            self.stopped = true;
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        if self.nodes.is_multiple_of(CHECK_INTERVAL) {
            self.flush_nodes();
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
            if let Some(hard) = self.setup.budget.hard
                && let Some(elapsed) = self.clock_elapsed()
                && elapsed >= hard
            {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stopped
    }

    /// Adds the nodes counted since the last flush to the shared counter.
    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.nodes_flushed, Ordering::Relaxed);
        self.nodes_flushed = self.nodes;
    }

    /// The tablebases' score and bound for the current node, when the
    /// search probes them here; every probe counts in `tbhits`.
    fn probe_tablebase(&self, depth: i32, ply: usize) -> Option<(Score, Bound)> {
        let probe = self.setup.tablebases.probe.as_ref()?;
        let verdict = probe.probe(&self.board, depth, ply)?;
        self.shared.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(verdict)
    }

    /// The picker's next move at the current node, ordered by this thread's
    /// histories; `previous_moves` are the moves that led here.
    #[inline]
    fn next_move(&self, picker: &mut MovePicker, previous_moves: PreviousMoves) -> Option<Picked> {
        let histories = &self.thread_tables.histories;
        picker.next(
            self.board.position(),
            &histories.captures,
            histories.quiet_context(previous_moves),
        )
    }

    /// The combined history score of the quiet move `m` of `side`: `known`,
    /// the picker's own figure where it ordered the move by history, else
    /// looked up now (a TT move or killer comes out before the quiet stage,
    /// and the root orders its moves without history).
    #[inline]
    fn quiet_history(
        &self,
        m: Move,
        known: Option<i32>,
        side: Color,
        previous_moves: PreviousMoves,
    ) -> i32 {
        known.unwrap_or_else(|| {
            self.thread_tables
                .histories
                .quiet_context(previous_moves)
                .score(side, m)
        })
    }

    /// Makes the legal move `m` on the board and in the network's accumulators.
    #[inline]
    fn make(&mut self, m: Move) {
        let side = self.board.turn();
        self.board.make(m);
        // The child's probe comes soon: start loading its bucket now, while
        // the accumulators are updated.
        self.tt.prefetch(self.board.key());
        self.accumulators
            .push(&self.setup.net, side, m, self.board.position().board());
        debug_assert!(
            self.accumulators_are_fresh(),
            "incremental accumulators diverged after {m} in {}",
            self.board.fen()
        );
    }

    /// Passes the move on the board and in the network's accumulators;
    /// `false` (and nothing changed) where the board cannot pass (in check).
    fn make_null(&mut self) -> bool {
        if !self.board.make_null() {
            return false;
        }
        self.accumulators.push_null();
        debug_assert!(
            self.accumulators_are_fresh(),
            "accumulators diverged after a null move in {}",
            self.board.fen()
        );
        true
    }

    /// Whether the incrementally updated accumulators of the current
    /// position equal ones computed from scratch. Checked after every move
    /// in builds with debug assertions, as the board checks its hash key.
    fn accumulators_are_fresh(&self) -> bool {
        self.accumulators.is_fresh(
            &self.setup.net,
            self.board.position().board(),
            Kernel::Portable,
        )
    }

    /// Takes back the last move (or null move) on the board and in the accumulators.
    #[inline]
    fn unmake(&mut self) {
        self.board.unmake();
        self.accumulators.pop();
    }

    /// The network's evaluation of the current position, side to move's view.
    #[inline]
    fn evaluate(&self) -> Score {
        self.accumulators
            .evaluate(&self.setup.net, self.board.turn(), self.board.pieces())
    }

    /// The uncorrected static evaluation of the current position: the TT
    /// entry's copy when there is one.
    fn raw_eval(&mut self, entry: Option<TtEntry>) -> Score {
        entry.map_or_else(|| self.evaluate(), |e| e.eval)
    }

    /// `raw`, the evaluation of the node at `ply`, shifted by the
    /// correction history, kept clear of tablebase and mate scores.
    fn corrected_eval(&self, raw: Score, ply: usize) -> Score {
        let previous = self.stack.previous_moves(ply);
        self.thread_tables
            .correction
            .correct(self.board.position(), previous, raw)
            .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// Whether the side has a piece other than king and pawns (null-move and
    /// pruning guard against zugzwang).
    fn has_pieces(&self, side: Color) -> bool {
        let board = self.board.position().board();
        let pieces = board.by_color(side) & !board.pawns() & !board.kings();
        !pieces.is_empty()
    }

    /// No null move right after another one, nor where one is banned.
    fn null_allowed(&self, ply: usize) -> bool {
        !self.stack.back(ply, 1).null_move && !self.stack[ply].null_banned
    }
}
