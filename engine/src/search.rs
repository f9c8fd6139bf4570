//! The search: iterative deepening over a fail-soft principal variation
//! search (negamax with alpha-beta), a quiescence search, and the rules of the
//! game applied at every node.
//!
//! A [`Worker`] is one search thread. It owns its board and its search stack
//! (killers, PV, ... per ply), and learns into its thread's histories; it
//! shares only the transposition table, the read-only Syzygy
//! tablebases and a few atomics in [`SharedState`]. It never prints: results
//! leave as [`SearchEvent`]s.
//!
//! With MultiPV the root is searched line by line; with the root in the
//! tablebases, only among the moves that keep the best result first (see
//! [`crate::syzygy`]).

use crate::board::Board;
use crate::draw::is_search_draw;
use crate::history::{PreviousMoves, Tried, moved_piece};
use crate::movepick::{MovePicker, Picked, is_tactical};
use crate::nnue::{AccumulatorStack, Kernel, Network};
use crate::params::*;
use crate::report::{IterationReport, SearchEvent, iteration_infos};
use crate::score::{INFINITY, MATE, MAX_PLY, Score, TB_WIN_BOUND, is_decisive, is_mate};
use crate::see::see_ge;
use crate::stack::SearchStack;
use crate::syzygy::TablebasePlan;
use crate::tables::ThreadTables;
use crate::threads::skips_depth;
use crate::time::TimeBudget;
use crate::tt::{Bound, TranspositionTable, TtEntry, pack_move, unpack_move};
use crossbeam::channel::Sender;
use crossbeam::utils::CachePadded;
use shakmaty::{Color, Move, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Nodes between two looks at the clock and the stop flag. A look costs a
/// clock read and two atomic operations, nothing next to 256 nodes, and
/// keeps the hard limit to within a fraction of a millisecond even where
/// nodes are slow.
const CHECK_INTERVAL: u64 = 256;
/// Iterations after which `currmove` lines may be reported.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);
/// Depth a tablebase result is stored with beyond the depth it cut: the
/// tables know more than any search of that depth.
const TABLEBASE_DEPTH_BONUS: i32 = 6;

/// State shared by all threads of one engine: the stop signal, pondering,
/// node and tablebase hit counters. Everything else is owned by each thread.
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
    /// count every 256 nodes; the counter has a cache line of its own so
    /// that these writes do not slow down the threads polling the flags.
    pub nodes: CachePadded<AtomicU64>,
    /// Tablebase probes of all threads in this search, the root's included.
    pub tb_hits: CachePadded<AtomicU64>,
}

/// The result of a finished search; the default is the empty result of a
/// search that found nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// Best move, if the root has a legal move.
    pub best: Option<Move>,
    /// Expected reply to the best move, when known.
    pub ponder: Option<Move>,
    /// Score of the best move (the first line's).
    pub score: Score,
    /// Depth of the last finished iteration.
    pub depth: u32,
    /// Nodes searched by this worker.
    pub nodes: u64,
    /// Deepest ply of the last finished iteration.
    pub seldepth: u32,
    /// The lines of the last finished iteration, best first: as many as
    /// MultiPV asked for and the root moves allow.
    pub lines: Vec<PvLine>,
}

/// One line of a finished iteration: a root move's score and its principal
/// variation, which starts with that move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PvLine {
    /// Score of the line's first move.
    pub score: Score,
    /// The principal variation, legal from the root.
    pub pv: Vec<Move>,
    /// Whether the score is the tablebases' verdict rather than the search's.
    pub from_tablebase: bool,
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
    /// Lines to search (MultiPV): the best this many root moves.
    pub multipv: usize,
    /// Lines to report, at most `multipv` (a limited strength searches more
    /// lines to choose among than the GUI asked to see).
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
    /// Makes the search fail at once, to test how the engine survives it.
    #[cfg(test)]
    pub fail: bool,
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
            multipv: 1,
            reported_lines: 1,
            tablebases: TablebasePlan::default(),
            answer_forced_move_at_once: false,
            start: Instant::now(),
            thread_index: 0,
            net: Network::embedded(),
            #[cfg(test)]
            fail: false,
        }
    }
}

/// One search thread's private state.
pub struct Worker<'a> {
    board: Board,
    tt: &'a TranspositionTable,
    shared: &'a SharedState,
    events: Option<Sender<SearchEvent>>,
    setup: SearchSetup,
    start: Instant,
    nodes: u64,
    nodes_flushed: u64,
    seldepth: usize,
    stopped: bool,
    /// A root move that beat the first move searched in a pass of the
    /// current iteration, with its score and line: if the clock aborts the
    /// iteration, it is played instead of the last finished iteration's move.
    iteration_improvement: Option<RootMove>,
    /// Histories and caches kept from earlier searches of the game.
    tables: &'a mut ThreadTables,
    /// What the search keeps about each ply of the current line.
    stack: SearchStack,
    /// The network's accumulators along the current line.
    accumulators: AccumulatorStack,
}

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

    /// The line this move heads: its search score, unless the tablebases
    /// know better and the search proved no mate.
    fn line(&self) -> PvLine {
        let (score, from_tablebase) = match self.tb_score {
            Some(tb_score) if !is_mate(self.score) => (tb_score, true),
            _ => (self.score, false),
        };
        PvLine {
            score,
            pv: self.pv.clone(),
            from_tablebase,
        }
    }
}

impl<'a> Worker<'a> {
    /// A worker for the position `board`, learning into `tables`. Without
    /// `events` it reports nothing.
    pub fn new(
        board: Board,
        tt: &'a TranspositionTable,
        shared: &'a SharedState,
        tables: &'a mut ThreadTables,
        setup: SearchSetup,
        events: Option<Sender<SearchEvent>>,
    ) -> Worker<'a> {
        Worker {
            board,
            tt,
            shared,
            events,
            start: setup.start,
            setup,
            nodes: 0,
            nodes_flushed: 0,
            seldepth: 0,
            stopped: false,
            iteration_improvement: None,
            tables,
            stack: SearchStack::default(),
            accumulators: AccumulatorStack::default(),
        }
    }

    /// Nodes this worker searched.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn send(&self, event: SearchEvent) {
        if let Some(events) = &self.events {
            // The receiver only goes away when the engine shuts down.
            let _ = events.send(event);
        }
    }

    /// Time on the clock: zero while pondering, counted from `ponderhit` after.
    fn clock_elapsed(&self) -> Option<Duration> {
        if self.shared.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let started = Duration::from_nanos(self.shared.clock_started_ns.load(Ordering::Relaxed));
        Some(self.start.elapsed().saturating_sub(started))
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
            self.shared
                .nodes
                .fetch_add(self.nodes - self.nodes_flushed, Ordering::Relaxed);
            self.nodes_flushed = self.nodes;
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

    /// Runs iterative deepening and returns the best lines found.
    pub fn search(&mut self) -> SearchResult {
        #[cfg(test)]
        assert!(!self.setup.fail, "a search failure asked for by a test");
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
        let line_count = self.setup.multipv.clamp(1, root_moves.len());
        self.stack[0].static_eval = (!self.board.in_check()).then(|| {
            let entry = self.tt.probe(self.board.key(), 0);
            let raw = self.raw_eval(entry);
            self.corrected_eval(raw)
        });
        // The scores of the last finished iteration's lines, best first.
        let mut previous_scores = vec![0; line_count];
        let max_depth = self.setup.max_depth.clamp(1, MAX_PLY as u32 - 1);
        for depth in 1..=max_depth {
            if depth < max_depth && skips_depth(self.setup.thread_index, depth) {
                continue;
            }
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
                    && result.best != Some(improvement.mv)
                {
                    result.lines = vec![improvement.line()];
                    result.best = Some(improvement.mv);
                    result.score = result.lines[0].score;
                    self.report_iteration(result.depth, &result.lines);
                }
                break;
            }
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
            if self.iteration_ends_search(root_moves[0].score, root_moves.len()) {
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

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.nodes_flushed, Ordering::Relaxed);
        self.nodes_flushed = self.nodes;
    }

    /// Whether the search should end after a finished iteration.
    fn iteration_ends_search(&self, score: Score, root_moves: usize) -> bool {
        // A mate in `mate` moves is a mate within 2 * mate - 1 plies; no
        // search sees past `MAX_PLY`, so larger limits mean any mate.
        if let Some(mate) = self.setup.mate
            && score >= MATE - mate_plies(mate)
        {
            return true;
        }
        if root_moves == 1 && self.setup.answer_forced_move_at_once {
            return true;
        }
        if self.setup.soft_nodes.is_some_and(|soft| self.nodes >= soft) {
            return true;
        }
        match (self.setup.budget.soft, self.clock_elapsed()) {
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

    fn report_iteration(&self, depth: u32, lines: &[PvLine]) {
        if self.events.is_none() {
            return;
        }
        let infos = iteration_infos(
            &self.board,
            IterationReport {
                depth,
                seldepth: self.seldepth as u32,
                lines,
                nodes: self.total_nodes(),
                tbhits: self.shared.tb_hits.load(Ordering::Relaxed),
                elapsed: self.start.elapsed(),
                hashfull: self.tt.hashfull(),
            },
        );
        for info in infos {
            self.send(SearchEvent::Info(info));
        }
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
            if self.events.is_some() && self.start.elapsed() >= CURRMOVE_AFTER {
                self.send(SearchEvent::CurrentMove {
                    depth: depth as u32,
                    mv: self.board.move_to_uci(m),
                    number: moves_before + index + 1,
                });
            }
            let nodes_before = self.nodes;
            self.stack[0].moved = moved_piece(self.board.turn(), m);
            self.make(m);
            let score = if index == 0 {
                -self.negamax(-beta, -alpha, depth - 1, 1, true, false)
            } else {
                let score = -self.negamax(-alpha - 1, -alpha, depth - 1, 1, false, true);
                if score > alpha && !self.stopped {
                    -self.negamax(-beta, -alpha, depth - 1, 1, true, false)
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
                        self.iteration_improvement = Some(RootMove {
                            score,
                            pv: self.root_pv(m),
                            ..root_move.clone()
                        });
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

    /// Fail-soft principal variation search of the node at `ply`, `depth`
    /// plies deep, in the window (`alpha`, `beta`). A `cut_node` is a
    /// null-window node expected to fail high: one of its own moves is
    /// expected to refute the move that led to it.
    fn negamax(
        &mut self,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> Score {
        // Step 1. Check extension: never stand pat or stop the search while
        // in check; at depth 0, the quiescence search takes over.
        self.stack[ply].pv_len = ply;
        let in_check = self.board.in_check();
        let mut depth = if in_check { depth + 1 } else { depth };
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply, pv_node);
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
            && !pv_node
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
            if pv_node && bound == Bound::Lower {
                tablebase_floor = score;
                alpha = alpha.max(score);
            } else if pv_node {
                tablebase_ceiling = score;
            }
        }

        // Step 6. Static evaluation, corrected by the correction history
        // (the TT keeps the uncorrected one), then sharpened by a TT score
        // whose bound points the right way.
        let raw_eval = (!in_check).then(|| self.raw_eval(entry));
        let static_eval = raw_eval.map(|raw| self.corrected_eval(raw));
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
        if !pv_node && !in_check && excluded.is_none() {
            // Step 7a. Reverse futility pruning: far above beta, a shallow
            // search will not fall below it.
            if depth <= rfp_max_depth()
                && !is_decisive(eval)
                && eval - rfp_margin() * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }
            // Step 7b. Razoring: far below alpha at low depth, trust the
            // quiescence search.
            if depth <= razor_max_depth() && eval + razor_margin() * depth < alpha {
                let score = self.quiescence(alpha, alpha + 1, ply, false);
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
        if probcut_applies(pv_node, in_check, excluded, depth, beta)
            && let Some(static_eval) = static_eval
            && let Some(score) =
                self.probcut(beta, depth, ply, static_eval, raw_eval, entry, cut_node)
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
        let counter = self.tables.histories.counters.get(previous_moves.one);
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
            // mate is known.
            if best_score > -TB_WIN_BOUND {
                let node = PruningNode {
                    depth,
                    eval,
                    alpha,
                    pv_node,
                    in_check,
                    improving,
                };
                if self.prunes_move(picked, quiet, &node, quiet_count, &mut skip_quiets) {
                    continue;
                }
            }

            // Step 9b. Singular extension of the TT move.
            let mut extension = 0;
            if Some(m) == tt_move
                && let Some(e) = entry
            {
                let may_double = may_double_extend(pv_node, double_extensions);
                match self.singular_extension(m, e, beta, depth, ply, cut_node, may_double) {
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
                -self.negamax(
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    pv_node,
                    !pv_node && !cut_node,
                )
            } else {
                let mut reduction = 0;
                let late = depth >= lmr_min_depth() && move_count > 1 + usize::from(pv_node);
                if late && (quiet || !picked.holds_material) {
                    let table = lmr_reduction(depth, move_count);
                    reduction = if quiet {
                        let history = picked.history.unwrap_or_else(|| {
                            self.tables
                                .histories
                                .quiet_context(previous_moves)
                                .score(side, m)
                        });
                        table + i32::from(!improving)
                            - i32::from(killers.contains(&Some(m)))
                            - history / lmr_history_divisor()
                    } else {
                        // A losing capture (or promotion) late in the list.
                        table * lmr_losing_capture_percent() / 100
                    };
                    reduction += i32::from(cut_node) * lmr_cut_node();
                    reduction -= i32::from(pv_node);
                    reduction -= i32::from(gives_check);
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                let mut score = -self.negamax(
                    -alpha - 1,
                    -alpha,
                    new_depth - reduction,
                    ply + 1,
                    false,
                    true,
                );
                if reduction > 0 && score > alpha && !self.stopped {
                    score = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, false, !cut_node);
                }
                if pv_node && score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(-beta, -alpha, new_depth, ply + 1, true, false);
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
                    if pv_node {
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
                        self.tables.histories.reward_cutoff(
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
                self.tables
                    .correction
                    .update(self.board.position(), depth, best_score - raw);
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
        let reduction = nmp_base_reduction()
            + depth / nmp_depth_divisor()
            + ((eval - beta) / nmp_eval_divisor()).min(nmp_eval_reduction_max());
        if !self.make_null() {
            return None;
        }
        self.stack[ply].null_move = true;
        self.stack[ply].moved = None;
        let score = -self.negamax(
            -beta,
            -beta + 1,
            depth - reduction - 1,
            ply + 1,
            false,
            !cut_node,
        );
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
        let verified = self.negamax(beta - 1, beta, depth - reduction - 1, ply, false, false);
        self.stack[ply].null_banned = false;
        (verified >= beta).then_some(score)
    }

    /// ProbCut: tries the captures whose exchange alone could lift the
    /// static evaluation to `beta` plus a margin, each first in quiescence
    /// and then with a reduced null-window search against that raised beta;
    /// the first that holds there cuts the node off (its score is stored in
    /// the TT as a lower bound). Skipped where a deep enough TT score lies
    /// below the raised beta (whatever its bound, as the search expects the
    /// attempt to fail there).
    #[allow(clippy::too_many_arguments)]
    fn probcut(
        &mut self,
        beta: Score,
        depth: i32,
        ply: usize,
        static_eval: Score,
        raw_eval: Option<Score>,
        entry: Option<TtEntry>,
        cut_node: bool,
    ) -> Option<Score> {
        let raised_beta = beta + probcut_margin();
        let probe_depth = depth - probcut_reduction();
        if let Some(e) = entry
            && e.depth >= probe_depth
            && e.score < raised_beta
        {
            return None;
        }
        let side = self.board.turn();
        let previous_moves = self.stack.previous_moves(ply);
        let mut moves = self.board.legal_moves();
        let mut picker = MovePicker::tactical(&mut moves, side);
        while let Some(Picked { mv: m, .. }) = self.next_move(&mut picker, previous_moves) {
            if !see_ge(self.board.position(), m, raised_beta - static_eval) {
                continue;
            }
            self.stack[ply].moved = moved_piece(side, m);
            self.make(m);
            let mut score = -self.quiescence(-raised_beta, -raised_beta + 1, ply + 1, false);
            if score >= raised_beta {
                score = -self.negamax(
                    -raised_beta,
                    -raised_beta + 1,
                    probe_depth,
                    ply + 1,
                    false,
                    !cut_node,
                );
            }
            self.unmake();
            if self.stopped {
                return Some(0);
            }
            if score >= raised_beta {
                let key = self.board.key();
                let raw = raw_eval.unwrap_or(0);
                self.tt.store(
                    key,
                    ply,
                    pack_move(m),
                    score,
                    raw,
                    probe_depth + 1,
                    Bound::Lower,
                );
                return Some(score);
            }
        }
        None
    }

    /// Whether the move loop skips `m` unsearched: late-move and futility
    /// pruning skip the remaining quiet moves (once they start, for the
    /// rest of the node), but not those that give check, as a quiet check
    /// can mate, which no margin foresees; moves that lose too much
    /// material by static exchange are skipped too.
    fn prunes_move(
        &self,
        picked: Picked,
        quiet: bool,
        node: &PruningNode,
        quiets_searched: usize,
        skip_quiets: &mut bool,
    ) -> bool {
        let depth = node.depth;
        let m = picked.mv;
        if quiet {
            *skip_quiets = *skip_quiets
                || (!node.pv_node
                    && depth <= lmp_max_depth()
                    && quiets_searched >= lmp_threshold(depth, node.improving))
                || (!node.in_check
                    && depth <= futility_max_depth()
                    && node.eval + futility_base() + futility_margin() * depth <= node.alpha);
            if *skip_quiets && !self.board.gives_check(m) {
                return true;
            }
            depth <= see_prune_max_depth()
                && !see_ge(self.board.position(), m, -see_quiet_margin() * depth)
        } else {
            // A capture the picker found not to lose passes any lower bar.
            !picked.holds_material
                && depth <= see_prune_max_depth()
                && !see_ge(
                    self.board.position(),
                    m,
                    -see_capture_margin() * depth * depth,
                )
        }
    }

    /// Singular extension: when every other move fails well below the TT
    /// move's score, the TT move `m` is the only good one: extend it. When
    /// even without it the node fails high, cut off (multi-cut), and when
    /// the TT move alone was expected to fail high, or the node is a cut
    /// node, reduce it (see [`singular_verdict`]).
    #[allow(clippy::too_many_arguments)]
    fn singular_extension(
        &mut self,
        m: Move,
        entry: TtEntry,
        beta: Score,
        depth: i32,
        ply: usize,
        cut_node: bool,
        may_double: bool,
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
        let score = self.negamax(
            singular_beta - 1,
            singular_beta,
            (depth - 1) / 2,
            ply,
            false,
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
        singular_verdict(test, cut_node, may_double)
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
        let histories = &self.tables.histories;
        picker.next(
            self.board.position(),
            &histories.captures,
            histories.quiet_context(previous_moves),
        )
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

    /// `raw` shifted by the correction history, kept clear of tablebase and
    /// mate scores.
    fn corrected_eval(&self, raw: Score) -> Score {
        self.tables
            .correction
            .correct(self.board.position(), raw)
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

    /// Searches captures and promotions until the position is quiet; every
    /// evasion when in check. The side to move may stand pat when not in check.
    fn quiescence(&mut self, mut alpha: Score, beta: Score, ply: usize, pv_node: bool) -> Score {
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
            && !pv_node
            && bound_allows(entry.bound, entry.score, alpha, beta)
        {
            return entry.score;
        }
        // Stand pat before generating any move: most nodes end here.
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut stand_pat = -INFINITY;
        let mut raw_eval = 0;
        if !in_check {
            raw_eval = self.raw_eval(entry);
            stand_pat = self.corrected_eval(raw_eval);
            if stand_pat >= beta {
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
        let mut picker = if in_check {
            let tt_move = entry.and_then(|e| unpack_move(e.packed_move, &moves));
            MovePicker::new(&mut moves, tt_move, self.stack[ply].killers, None, side)
        } else {
            MovePicker::tactical(&mut moves, side)
        };
        while let Some(Picked { mv: m, .. }) = self.next_move(&mut picker, previous_moves) {
            if !in_check {
                // Delta pruning: even winning the piece cannot reach alpha.
                let gain = m.capture().map_or(0, crate::see::value);
                if m.promotion().is_none() && stand_pat + gain + delta_margin() <= alpha {
                    continue;
                }
                // Captures that lose material are not worth a look.
                if !see_ge(self.board.position(), m, 0) {
                    continue;
                }
            }
            self.stack[ply].moved = moved_piece(side, m);
            self.make(m);
            let score = -self.quiescence(-beta, -alpha, ply + 1, pv_node);
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

/// The outcome of a singular test: the best `score` of the other moves
/// against `singular_beta`, with the node's `beta` and the TT move's score.
#[derive(Clone, Copy)]
struct SingularTest {
    score: Score,
    singular_beta: Score,
    beta: Score,
    tt_score: Score,
}

/// What a singular test means for the TT move: extended when the other
/// moves fail below the singular beta (by two plies where `may_double` and
/// they fail far below); a cutoff when even without it the node fails high
/// (multi-cut); otherwise searched shallower where the TT move alone was
/// expected to fail high, or at a cut node.
fn singular_verdict(test: SingularTest, cut_node: bool, may_double: bool) -> Singularity {
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
fn may_double_extend(pv_node: bool, double_extensions: i32) -> bool {
    !pv_node && double_extensions < se_double_max()
}

/// Whether a node may try ProbCut: never at PV nodes, in check or while
/// testing a singular move, only deep enough, and not where beta is a mate
/// score (a raised mate bound says nothing).
fn probcut_applies(
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

/// What a fail-soft result says about the node searched in (`alpha`, `beta`).
fn bound_for(best_score: Score, alpha: Score, beta: Score) -> Bound {
    if best_score >= beta {
        Bound::Lower
    } else if best_score > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Whether a stored bound settles the node's value for the window (`alpha`, `beta`).
fn bound_allows(bound: Bound, score: Score, alpha: Score, beta: Score) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// What the move loop's pruning needs to know about its node.
struct PruningNode {
    depth: i32,
    /// The static evaluation, sharpened by the TT.
    eval: Score,
    alpha: Score,
    pv_node: bool,
    in_check: bool,
    improving: bool,
}

/// The verdict of the singular extension test on the TT move.
enum Singularity {
    /// Search the TT move this many plies deeper (or, negative, shallower).
    Extension(i32),
    /// The node fails high without searching on (or the search stopped): return this.
    Cutoff(Score),
}

/// Whether the static evaluation `now` rose since this side's last move
/// (`before`, two plies back), or since the move before that (`earlier`,
/// four plies back) when the side was in check two plies back. In check
/// now, a position is not improving; with nothing to compare, it is.
fn is_improving(now: Option<Score>, before: Option<Score>, earlier: Option<Score>) -> bool {
    match (now, before, earlier) {
        (Some(now), Some(before), _) | (Some(now), None, Some(before)) => now > before,
        (Some(_), None, None) => true,
        (None, _, _) => false,
    }
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
    use super::*;
    use crate::report::result_to_uci;
    use shakmaty::CastlingMode;

    /// One thread's search of `board` with an 8 MB table and histories of
    /// its own.
    fn fresh_search(board: &Board, setup: SearchSetup) -> SearchResult {
        let tt = TranspositionTable::new(8).unwrap();
        let shared = SharedState::default();
        let mut tables = ThreadTables::default();
        Worker::new(board.clone(), &tt, &shared, &mut tables, setup, None).search()
    }

    fn search(fen: &str, depth: u32) -> (SearchResult, Option<String>) {
        let board = Board::from_fen(fen, CastlingMode::Standard).unwrap();
        let result = fresh_search(&board, SearchSetup::depth(depth));
        let best = result_to_uci(&board, &result).0;
        (result, best)
    }

    /// Searches the starting position with a node limit, after storing
    /// `remembered` as the table's move for it.
    fn stopped_search(remembered: Option<&str>, nodes: u64) -> (SearchResult, Option<String>) {
        let board = Board::startpos();
        let tt = TranspositionTable::new(1).unwrap();
        if let Some(text) = remembered {
            let m = board.parse_uci_move(text).unwrap();
            tt.store(board.key(), 0, pack_move(m), 0, 0, 5, Bound::Exact);
        }
        let shared = SharedState::default();
        let mut tables = ThreadTables::default();
        let params = SearchSetup {
            nodes: Some(nodes),
            ..SearchSetup::depth(20)
        };
        let result = Worker::new(board.clone(), &tt, &shared, &mut tables, params, None).search();
        let best = result_to_uci(&board, &result).0;
        (result, best)
    }

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
        let tt = TranspositionTable::new(1).unwrap();
        let shared = SharedState::default();
        let mut tables = ThreadTables::default();
        let params = SearchSetup {
            mate: Some(u32::MAX),
            ..SearchSetup::depth(30)
        };
        let result = Worker::new(board, &tt, &shared, &mut tables, params, None).search();
        assert_eq!(result.score, MATE - 1);
        assert!(result.depth < 30, "stopped at depth {}", result.depth);
    }

    #[test]
    fn finds_mate_in_one() {
        let (r, best) = search("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 3);
        assert_eq!(r.score, MATE - 1);
        assert_eq!(best.as_deref(), Some("a1a8"));
    }

    #[test]
    fn no_move_when_mated() {
        let (r, best) = search(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            3,
        );
        assert_eq!(r.best, None);
        assert_eq!(best, None);
    }

    /// Searches positions full of castling on both wings, en passant,
    /// promotions and under-promotions (with and without a capture), king
    /// walks across the d/e line and null moves, with the built-in network,
    /// its weights read as a king-mirrored one, and both narrowed to 128; a
    /// build with debug assertions checks at every node that the
    /// incremental accumulators equal fresh ones.
    #[test]
    fn incremental_accumulators_stay_fresh_through_a_search() {
        let mut mirrored = (*Network::embedded()).clone();
        mirrored.layout = crate::nnue::InputLayout::KingMirrored;
        let networks = [
            Arc::new(crate::nnue::narrow_test_network()),
            Arc::new(crate::nnue::narrowed(&mirrored)),
            Network::embedded(),
            Arc::new(mirrored),
        ];
        for (net, (fen, mode)) in networks.iter().flat_map(|net| {
            [
                (
                    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                    CastlingMode::Standard,
                ),
                (
                    "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                    CastlingMode::Standard,
                ),
                (
                    "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                    CastlingMode::Chess960,
                ),
                ("8/8/3k4/8/8/4K3/8/7R w - - 0 1", CastlingMode::Standard),
            ]
            .map(|case| (net, case))
        }) {
            let board = Board::from_fen(fen, mode).unwrap();
            let result = fresh_search(
                &board,
                SearchSetup {
                    net: Arc::clone(net),
                    ..SearchSetup::depth(6)
                },
            );
            assert!(result.best.is_some(), "{fen} with {:?}", net.layout);
        }
    }

    /// A 256-wide network that evaluates exactly as a 128-wide one (its
    /// extra lanes have output weights of zero) searches exactly as it does.
    #[test]
    fn a_widened_network_searches_as_the_narrow_one() {
        let narrow = Arc::new(crate::nnue::narrow_test_network());
        let wide = Arc::new(crate::nnue::widened(&narrow));
        for fen in &crate::bench::BENCH_POSITIONS[..4] {
            let board = Board::from_fen(fen, CastlingMode::Standard).unwrap();
            let run = |net: &Arc<Network>| {
                let setup = SearchSetup {
                    net: Arc::clone(net),
                    ..SearchSetup::depth(7)
                };
                let result = fresh_search(&board, setup);
                (result.best, result.score, result.nodes)
            };
            assert_eq!(run(&wide), run(&narrow), "{fen}");
        }
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
    fn captures_a_hanging_queen() {
        let (_, best) = search("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", 4);
        assert_eq!(best.as_deref(), Some("d2d5"));
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
}
