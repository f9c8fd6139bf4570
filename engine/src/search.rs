//! The search: iterative deepening over a fail-soft principal variation
//! search (negamax with alpha-beta), a quiescence search, and the rules of the
//! game applied at every node.
//!
//! A [`Worker`] is one search thread. It owns its board, killers, history and
//! PV table; it shares only the transposition table, the read-only Syzygy
//! tablebases and a few atomics in [`SharedState`]. It never prints: results
//! leave as [`SearchEvent`]s.
//!
//! With MultiPV the root is searched line by line; with the root in the
//! tablebases, only among the moves that keep the best result first (see
//! [`crate::syzygy`]).

use crate::board::Board;
use crate::draw::is_search_draw;
use crate::movepick::{Killers, MovePicker, MovedPiece, QuietContext, is_tactical, moved_piece};
use crate::nnue::{AccumulatorStack, Network};
use crate::params::*;
use crate::score::{
    INFINITY, MATE, MAX_PLY, ReportedScore, Score, TB_WIN_BOUND, is_decisive, is_mate,
};
use crate::see::see_ge;
use crate::syzygy::TablebasePlan;
use crate::tables::ThreadTables;
use crate::time::{TimeBudget, TimeControl};
use crate::tt::{Bound, TranspositionTable, TtEntry, pack_move, unpack_move};
use crate::wdl::{Wdl, material};
use crossbeam::channel::Sender;
use crossbeam::utils::CachePadded;
use shakmaty::{Color, Move, Position, Role};
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
            Some(ms) => TimeControl::Clock(crate::time::Clock::from_go(
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

/// The report of a finished iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchInfo {
    /// Nominal depth of the iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Which line this is (`multipv`): 1 for the best, up to the MultiPV setting.
    pub multipv: usize,
    /// Score of the line's move.
    pub score: ReportedScore,
    /// Whether the score is exact or only a bound.
    pub bound: Bound,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Transposition table use in permill.
    pub hashfull: u32,
    /// Tablebase probes so far (all threads).
    pub tbhits: u64,
    /// Win, draw and loss chances of the line's score.
    pub wdl: Wdl,
    /// Time since the search started, in ms.
    pub time_ms: u64,
    /// The line's principal variation, in UCI notation.
    pub pv: Vec<String>,
}

/// What a search reports while it runs and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchEvent {
    /// An iteration finished.
    Info(SearchInfo),
    /// The root move now being searched (sent after the first second).
    CurrentMove {
        /// Depth of the iteration.
        depth: u32,
        /// The move, in UCI notation.
        mv: String,
        /// Its 1-based position in the root move list.
        number: usize,
    },
    /// A search thread failed (a bug): the search is abandoned, and a legal
    /// move (if any) is reported as its `BestMove`, so that the game goes on.
    Failure(String),
    /// The search is over; exactly one per `go`.
    BestMove {
        /// The move to play, or `None` when there is no legal move.
        best: Option<String>,
        /// The expected reply, when known.
        ponder: Option<String>,
    },
}

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

/// The result of a finished search.
#[derive(Debug, Clone, PartialEq, Eq)]
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
pub struct SearchParams {
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

impl SearchParams {
    /// A search limited only by depth, as the bench uses.
    pub fn depth(depth: u32) -> SearchParams {
        SearchParams {
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
    params: SearchParams,
    start: Instant,
    nodes: u64,
    nodes_flushed: u64,
    seldepth: usize,
    stopped: bool,
    killers: Box<[Killers; MAX_PLY + 1]>,
    /// Histories and caches kept from earlier searches of the game.
    tables: &'a mut ThreadTables,
    /// The piece moved at each ply of the current line and its target square.
    moved: [MovedPiece; MAX_PLY + 2],
    /// The move each ply leaves out while testing whether the TT move is singular.
    excluded: [Option<Move>; MAX_PLY + 1],
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Static evaluation at each ply of the current line (`None` in check).
    evals: [Option<Score>; MAX_PLY + 2],
    /// Whether the move made at each ply of the current line was a null move.
    null_at: [bool; MAX_PLY + 2],
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
        params: SearchParams,
        events: Option<Sender<SearchEvent>>,
    ) -> Worker<'a> {
        Worker {
            board,
            tt,
            shared,
            events,
            start: params.start,
            params,
            nodes: 0,
            nodes_flushed: 0,
            seldepth: 0,
            stopped: false,
            killers: Box::new([[None; 2]; MAX_PLY + 1]),
            tables,
            moved: [None; MAX_PLY + 2],
            excluded: [None; MAX_PLY + 1],
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            evals: [None; MAX_PLY + 2],
            null_at: [false; MAX_PLY + 2],
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
        if let Some(limit) = self.params.nodes
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
            if let Some(hard) = self.params.budget.hard
                && let Some(elapsed) = self.clock_elapsed()
                && elapsed >= hard
            {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stopped
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Runs iterative deepening and returns the best lines found.
    pub fn search(&mut self) -> SearchResult {
        #[cfg(test)]
        assert!(!self.params.fail, "a search failure asked for by a test");
        self.accumulators
            .reset(&self.params.net, self.board.position());
        let mut root_moves = self.root_moves();
        let mut result = SearchResult {
            best: root_moves.first().map(|r| r.mv),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            seldepth: 0,
            lines: Vec::new(),
        };
        if root_moves.is_empty() {
            return result;
        }
        let line_count = self.params.multipv.clamp(1, root_moves.len());
        // The scores of the last finished iteration's lines, best first.
        let mut previous_scores = vec![0; line_count];
        let max_depth = self.params.max_depth.clamp(1, MAX_PLY as u32 - 1);
        for depth in 1..=max_depth {
            if depth < max_depth && skips_depth(self.params.thread_index, depth) {
                continue;
            }
            self.seldepth = 0;
            let scored =
                self.search_lines(&mut root_moves, line_count, depth as i32, &previous_scores);
            // An aborted iteration is thrown away; in the first one, keep
            // the lines that got a score, if any did.
            if self.stopped && (depth > 1 || scored == 0) {
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
            let reported = self.params.reported_lines.clamp(1, result.lines.len());
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
            .filter(|m| self.params.search_moves.is_empty() || self.params.search_moves.contains(m))
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
                .params
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
        let pv: Vec<Move> = self.pv[0][..self.pv_len[0]]
            .iter()
            .map_while(|m| *m)
            .collect();
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
        if let Some(mate) = self.params.mate
            && score >= MATE - mate_plies(mate)
        {
            return true;
        }
        if root_moves == 1 && self.params.answer_forced_move_at_once {
            return true;
        }
        if self
            .params
            .soft_nodes
            .is_some_and(|soft| self.nodes >= soft)
        {
            return true;
        }
        match (self.params.budget.soft, self.clock_elapsed()) {
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
        if depth < ASPIRATION_MIN_DEPTH || is_decisive(previous) {
            return self.search_root(root_moves, depth, -INFINITY, INFINITY, moves_before);
        }
        let mut delta = ASPIRATION_WINDOW;
        let mut alpha = (previous - delta).max(-INFINITY);
        let mut beta = (previous + delta).min(INFINITY);
        loop {
            let score = self.search_root(root_moves, depth, alpha, beta, moves_before);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta += delta / 2;
            if delta > 1000 {
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
        self.pv_len[0] = 0;
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
            self.moved[0] = moved_piece(self.board.turn(), m);
            self.make(m);
            let score = if index == 0 {
                -self.negamax(-beta, -alpha, depth - 1, 1, true)
            } else {
                let score = -self.negamax(-alpha - 1, -alpha, depth - 1, 1, false);
                if score > alpha && !self.stopped {
                    -self.negamax(-beta, -alpha, depth - 1, 1, true)
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
                    self.update_pv(0, m);
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

    /// Fail-soft principal variation search.
    fn negamax(
        &mut self,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        pv_node: bool,
    ) -> Score {
        self.pv_len[ply] = ply;
        let in_check = self.board.in_check();
        // Check extension: never stand pat or stop the search while in check.
        let mut depth = if in_check { depth + 1 } else { depth };
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply, pv_node);
        }
        if self.visit(ply) {
            return 0;
        }
        if is_search_draw(&self.board) {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // Mate distance pruning: no line from here beats a shorter mate.
        alpha = alpha.max(-MATE + ply as Score);
        beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        self.killers[ply + 1] = [None; 2];

        // Probe the transposition table; cut off at non-PV nodes only, and
        // not while testing a singular move (the entry is about all moves).
        let excluded = self.excluded[ply];
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

        // Tablebases: after a capture or pawn move into a position they
        // cover, their result stands in for the search when it settles the
        // window; at PV nodes it bounds what the search may return.
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

        // Static evaluation, corrected by the correction history (the TT
        // keeps the uncorrected one), then sharpened by a TT score whose
        // bound points the right way.
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
        self.evals[ply] = static_eval;
        let improving = match (static_eval, ply.checked_sub(2).and_then(|p| self.evals[p])) {
            (Some(now), Some(before)) => now > before,
            (Some(_), None) => true,
            _ => false,
        };

        if !pv_node && !in_check && excluded.is_none() {
            // Reverse futility pruning: far above beta, a shallow search will not fall below it.
            if depth <= RFP_MAX_DEPTH
                && !is_decisive(eval)
                && eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }
            // Razoring: far below alpha at low depth, trust the quiescence search.
            if depth <= RAZOR_MAX_DEPTH && eval + RAZOR_MARGIN * depth < alpha {
                let score = self.quiescence(alpha, alpha + 1, ply, false);
                if score < alpha {
                    return score;
                }
            }
            // Null move: if passing still fails high, a real move will too.
            // Not with only king and pawns (zugzwang), nor twice in a row.
            if depth >= NMP_MIN_DEPTH
                && eval >= beta
                && self.null_allowed(ply)
                && self.has_pieces(self.board.turn())
            {
                let reduction = NMP_BASE_REDUCTION
                    + depth / NMP_DEPTH_DIVISOR
                    + ((eval - beta) / NMP_EVAL_DIVISOR).min(3);
                if self.board.make_null() {
                    self.accumulators.push_null();
                    self.null_at[ply] = true;
                    self.moved[ply] = None;
                    let score =
                        -self.negamax(-beta, -beta + 1, depth - reduction - 1, ply + 1, false);
                    self.null_at[ply] = false;
                    self.unmake();
                    if self.stopped {
                        return 0;
                    }
                    if score >= beta {
                        let score = if score >= TB_WIN_BOUND { beta } else { score };
                        if depth < NMP_VERIFY_DEPTH {
                            return score;
                        }
                        // Deep: verify with a reduced search of this node
                        // in which the null move is not tried again.
                        self.null_at[ply - 1] = true;
                        let verified =
                            self.negamax(beta - 1, beta, depth - reduction - 1, ply, false);
                        self.null_at[ply - 1] = false;
                        if verified >= beta {
                            return score;
                        }
                    }
                }
            }
        }

        let moves = self.board.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as Score } else { 0 };
        }
        let tt_move = entry.and_then(|e| unpack_move(e.packed_move, &moves));
        // Internal iterative reduction: without a TT move this node was not
        // searched before; searching it shallower first costs little.
        if tt_move.is_none() && depth >= IIR_MIN_DEPTH && excluded.is_none() {
            depth -= 1;
        }
        let side = self.board.turn();
        let killers = self.killers[ply];
        let (previous, previous2) = self.previous_moves(ply);
        let counter = self.tables.counters.get(previous);
        let mut picker = MovePicker::new(moves, tt_move, killers, counter, side);

        let original_alpha = alpha;
        let mut best_score = tablebase_floor;
        let mut best_move = None;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut quiet_count = 0;
        let mut captures_tried: [Option<Move>; 32] = [None; 32];
        let mut capture_count = 0;
        let mut move_count = 0;
        let mut skip_quiets = false;
        while let Some(m) = self.next_move(&mut picker, previous, previous2) {
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_tactical(m);
            // Shallow pruning, once a line that does not lose to mate is known.
            if best_score > -TB_WIN_BOUND {
                if quiet {
                    // Late-move and futility pruning skip the remaining quiet
                    // moves, but not those that give check: a quiet check
                    // can mate, which no margin foresees.
                    skip_quiets = skip_quiets
                        || (!pv_node
                            && depth <= LMP_MAX_DEPTH
                            && quiet_count >= lmp_threshold(depth, improving))
                        || (!in_check
                            && depth <= FUTILITY_MAX_DEPTH
                            && eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha);
                    if skip_quiets && !self.board.gives_check(m) {
                        continue;
                    }
                    if depth <= SEE_PRUNE_MAX_DEPTH
                        && !see_ge(self.board.position(), m, -SEE_QUIET_MARGIN * depth)
                    {
                        continue;
                    }
                } else if depth <= SEE_PRUNE_MAX_DEPTH
                    && !see_ge(
                        self.board.position(),
                        m,
                        -SEE_CAPTURE_MARGIN * depth * depth,
                    )
                {
                    continue;
                }
            }
            let history = if quiet {
                self.quiet_context(previous, previous2).score(side, m)
            } else {
                0
            };
            // Singular extension: when every other move fails well below the
            // TT move's score, the TT move is the only good one: extend it.
            // When even without it the node fails high, cut off (multi-cut),
            // and when the TT move alone was expected to fail high, reduce it.
            let mut extension = 0;
            if Some(m) == tt_move
                && let Some(e) = entry
                && depth >= SE_MIN_DEPTH
                && excluded.is_none()
                && e.depth >= depth - SE_TT_DEPTH_MARGIN
                && e.bound != Bound::Upper
                && !is_decisive(e.score)
            {
                let singular_beta = e.score - SE_MARGIN_PER_DEPTH * depth;
                self.excluded[ply] = Some(m);
                let score = self.negamax(
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    false,
                );
                self.excluded[ply] = None;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    extension = 1;
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if e.score >= beta {
                    extension = -1;
                }
            }
            move_count += 1;
            self.moved[ply] = moved_piece(side, m);
            self.make(m);
            let gives_check = self.board.in_check();
            let new_depth = depth - 1 + extension;
            let score = if move_count == 1 {
                -self.negamax(-beta, -alpha, new_depth, ply + 1, pv_node)
            } else {
                // Late-move reductions for quiet moves that come late in the order.
                let mut reduction = 0;
                if depth >= LMR_MIN_DEPTH && quiet && move_count > 1 + usize::from(pv_node) {
                    reduction = lmr_reduction(depth, move_count);
                    reduction -= i32::from(pv_node);
                    reduction += i32::from(!improving);
                    reduction -= i32::from(gives_check);
                    reduction -= i32::from(killers.contains(&Some(m)));
                    reduction -= history / LMR_HISTORY_DIVISOR;
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                let mut score =
                    -self.negamax(-alpha - 1, -alpha, new_depth - reduction, ply + 1, false);
                if reduction > 0 && score > alpha && !self.stopped {
                    score = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, false);
                }
                if pv_node && score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(-beta, -alpha, new_depth, ply + 1, true);
                }
                score
            };
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        let tried = Tried {
                            quiets: &quiets_tried[..quiet_count],
                            captures: &captures_tried[..capture_count],
                        };
                        self.reward_cutoff(m, ply, depth, tried);
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

    /// The tables that order quiet moves played after `previous` and `previous2`.
    #[inline]
    fn quiet_context(&self, previous: MovedPiece, previous2: MovedPiece) -> QuietContext<'_> {
        QuietContext {
            history: &self.tables.history,
            continuation: &self.tables.continuation,
            previous,
            previous2,
        }
    }

    /// The tablebases' score and bound for the current node, when the
    /// search probes them here; every probe counts in `tbhits`.
    fn probe_tablebase(&self, depth: i32, ply: usize) -> Option<(Score, Bound)> {
        let probe = self.params.tablebases.probe.as_ref()?;
        let verdict = probe.probe(&self.board, depth, ply)?;
        self.shared.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(verdict)
    }

    /// The picker's next move at the current node, ordered by this thread's
    /// histories; `previous` and `previous2` are the moves that led here.
    #[inline]
    fn next_move(
        &self,
        picker: &mut MovePicker,
        previous: MovedPiece,
        previous2: MovedPiece,
    ) -> Option<Move> {
        picker.next(
            self.board.position(),
            &self.tables.capture_history,
            self.quiet_context(previous, previous2),
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
        self.accumulators.push(&self.params.net, side, m);
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
            .evaluate(&self.params.net, self.board.turn(), self.board.pieces())
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

    /// No null move right after another one.
    fn null_allowed(&self, ply: usize) -> bool {
        !self.null_at[ply - 1]
    }

    /// The moves one and two plies before `ply` (piece and target square),
    /// which the continuation histories and the counter-move are indexed by.
    fn previous_moves(&self, ply: usize) -> (MovedPiece, MovedPiece) {
        let back = |plies: usize| ply.checked_sub(plies).and_then(|p| self.moved[p]);
        (back(1), back(2))
    }

    /// A move caused a beta cutoff. A quiet one becomes a killer and the
    /// counter-move to the previous move, and its histories rise while those
    /// of the quiet moves tried before it fall; a capture's history rises.
    /// Captures tried before it lose history either way.
    fn reward_cutoff(&mut self, m: Move, ply: usize, depth: i32, tried: Tried<'_>) {
        let side = self.board.turn();
        let bonus = (depth * depth).min(1200);
        let (previous, previous2) = self.previous_moves(ply);
        if is_tactical(m) {
            self.tables.capture_history.update(side, m, bonus);
        } else {
            let killers = &mut self.killers[ply];
            if killers[0] != Some(m) {
                killers[1] = killers[0];
                killers[0] = Some(m);
            }
            self.tables.counters.set(previous, m);
            for (quiet, sign) in
                std::iter::once((m, 1)).chain(tried.quiets.iter().flatten().map(|&q| (q, -1)))
            {
                self.tables.history.update(side, quiet, sign * bonus);
                self.tables
                    .continuation
                    .update(previous, side, quiet, sign * bonus);
                self.tables
                    .continuation
                    .update(previous2, side, quiet, sign * bonus);
            }
        }
        for capture in tried.captures.iter().flatten() {
            self.tables.capture_history.update(side, *capture, -bonus);
        }
    }

    /// Searches captures and promotions until the position is quiet; every
    /// evasion when in check. The side to move may stand pat when not in check.
    fn quiescence(&mut self, mut alpha: Score, beta: Score, ply: usize, pv_node: bool) -> Score {
        self.pv_len[ply] = ply;
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
        let moves = self.board.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as Score } else { 0 };
        }
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut stand_pat = -INFINITY;
        let mut raw_eval = 0;
        let side = self.board.turn();
        let (previous, previous2) = self.previous_moves(ply);
        let mut picker = if in_check {
            let tt_move = entry.and_then(|e| unpack_move(e.packed_move, &moves));
            MovePicker::new(moves, tt_move, self.killers[ply], None, side)
        } else {
            raw_eval = self.raw_eval(entry);
            stand_pat = self.corrected_eval(raw_eval);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
            let mut tactical = moves;
            // Underpromotions rarely matter in quiescence.
            tactical.retain(|m| match m.promotion() {
                Some(role) => role == Role::Queen,
                None => m.is_capture(),
            });
            MovePicker::tactical(tactical, side)
        };
        while let Some(m) = self.next_move(&mut picker, previous, previous2) {
            if !in_check {
                // Delta pruning: even winning the piece cannot reach alpha.
                let gain = m.capture().map_or(0, crate::see::value);
                if m.promotion().is_none() && stand_pat + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
                // Captures that lose material are not worth a look.
                if !see_ge(self.board.position(), m, 0) {
                    continue;
                }
            }
            self.moved[ply] = moved_piece(side, m);
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

/// The moves a node tried before the one that caused a cutoff.
struct Tried<'a> {
    quiets: &'a [Option<Move>],
    captures: &'a [Option<Move>],
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

/// What the `info` lines about a finished iteration say.
pub struct IterationReport<'a> {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// The lines, best first.
    pub lines: &'a [PvLine],
    /// Nodes of all threads.
    pub nodes: u64,
    /// Tablebase probes of all threads.
    pub tbhits: u64,
    /// Time since `go`.
    pub elapsed: Duration,
    /// Table use in permill.
    pub hashfull: u32,
}

/// Builds the UCI reports of an iteration searched from `root`, one per
/// line, numbered from 1 in the order given.
pub fn iteration_infos(root: &Board, report: IterationReport<'_>) -> Vec<SearchInfo> {
    let ms = report.elapsed.as_millis() as u64;
    let material = material(root.position().board());
    let uci_line = |line: &PvLine| {
        let mut board = root.clone();
        let mut pv = Vec::with_capacity(line.pv.len());
        for &m in &line.pv {
            pv.push(board.move_to_uci(m));
            board.make(m);
        }
        pv
    };
    report
        .lines
        .iter()
        .enumerate()
        .map(|(index, line)| SearchInfo {
            depth: report.depth,
            seldepth: report.seldepth,
            multipv: index + 1,
            score: ReportedScore::from_score(line.score),
            bound: Bound::Exact,
            nodes: report.nodes,
            nps: report.nodes * 1000 / ms.max(1),
            hashfull: report.hashfull,
            tbhits: report.tbhits,
            wdl: if line.from_tablebase && !is_decisive(line.score) {
                Wdl::DRAW
            } else {
                Wdl::from_score(line.score, material)
            },
            time_ms: ms,
            pv: uci_line(line),
        })
        .collect()
}

/// The plies of a mate in `moves` moves, at most [`MAX_PLY`].
fn mate_plies(moves: u32) -> Score {
    let plies = moves
        .saturating_mul(2)
        .saturating_sub(1)
        .min(MAX_PLY as u32);
    plies as Score
}

/// Lazy SMP diversification: helper threads skip some iterations, each in a
/// different pattern, so that the threads spread over several depths instead
/// of all searching the same tree. The pattern (skip sizes and phases by
/// helper) is the one Stockfish 8 published.
pub fn skips_depth(thread_index: usize, depth: u32) -> bool {
    const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    if thread_index == 0 || depth == 1 {
        return false;
    }
    let i = (thread_index - 1) % SKIP_SIZE.len();
    !((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]).is_multiple_of(2)
}

/// Writes the search result of `worker`'s root position as UCI strings.
pub fn result_to_uci(board: &Board, result: &SearchResult) -> (Option<String>, Option<String>) {
    let best = result.best.map(|m| board.move_to_uci(m));
    let ponder = result.best.zip(result.ponder).map(|(b, p)| {
        let mut after = board.clone();
        after.make(b);
        after.move_to_uci(p)
    });
    (best, ponder)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn search(fen: &str, depth: u32) -> (SearchResult, Option<String>) {
        let board = Board::from_fen(fen, CastlingMode::Standard).unwrap();
        let tt = TranspositionTable::new(8).unwrap();
        let shared = SharedState::default();
        let mut tables = ThreadTables::default();
        let mut worker = Worker::new(
            board.clone(),
            &tt,
            &shared,
            &mut tables,
            SearchParams::depth(depth),
            None,
        );
        let result = worker.search();
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
        let params = SearchParams {
            nodes: Some(nodes),
            ..SearchParams::depth(20)
        };
        let result = Worker::new(board.clone(), &tt, &shared, &mut tables, params, None).search();
        let best = result_to_uci(&board, &result).0;
        (result, best)
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
        let params = SearchParams {
            mate: Some(u32::MAX),
            ..SearchParams::depth(30)
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

    #[test]
    fn captures_a_hanging_queen() {
        let (_, best) = search("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", 4);
        assert_eq!(best.as_deref(), Some("d2d5"));
    }
}
