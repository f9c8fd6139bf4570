//! The engine as other code drives it: set a position, start a search that
//! runs on its own threads ([`crate::threads`]), stop it, and receive its
//! reports as events; and the settings that shape its searches (hash size,
//! threads, MultiPV, clock overhead and delay, tablebases, network,
//! strength).
//!
//! # Reports
//!
//! `go` returns at once; the main thread sends [`SearchEvent`]s and exactly one
//! `BestMove` per `go`. Under `infinite` (or a bare `go`) or `ponder` the best
//! move is held back until `stop` (or `ponderhit`), as UCI requires.

use crate::board::Board;
use crate::nnue::Network;
use crate::report::SearchEvent;
use crate::search::{SearchSetup, SharedState};
use crate::strength::{ChoiceRng, StrengthLimit};
use crate::syzygy::TablebaseOptions;
use crate::threads::{MAX_THREADS, SearchStart, ThreadPool};
use crate::time::{Limits, TimeBudget, TimeControl};
use crate::tt::{AllocationError, TranspositionTable};
use crossbeam::channel::{Receiver, Sender};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Default hash size in MB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Default move overhead in ms.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;

/// A chess engine: position, transposition table, search threads.
pub struct Engine {
    board: Board,
    tt: Arc<TranspositionTable>,
    shared: Arc<SharedState>,
    threads: ThreadPool,
    search_done: Option<Receiver<()>>,
    search_started: Instant,
    move_overhead: Duration,
    clock_delay_ms: u64,
    /// Lines each search reports (MultiPV).
    multipv: usize,
    /// The tablebases and how the search uses them.
    tablebases: TablebaseOptions,
    /// A new game started since the last search: the threads' tables must be emptied.
    new_game_pending: bool,
    /// The evaluation network every search uses.
    net: Arc<Network>,
    /// The playing strength, when limited.
    strength: Option<StrengthLimit>,
    /// Draws the moves a limited strength plays.
    choice_rng: ChoiceRng,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine at the starting position with the default hash size and one thread.
    pub fn new() -> Engine {
        Engine {
            board: Board::startpos(),
            tt: Arc::new(
                TranspositionTable::new(DEFAULT_HASH_MB).expect("allocating the default hash"),
            ),
            shared: Arc::new(SharedState::default()),
            threads: ThreadPool::new(),
            search_done: None,
            search_started: Instant::now(),
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            clock_delay_ms: 0,
            multipv: 1,
            tablebases: TablebaseOptions::default(),
            new_game_pending: true,
            net: Network::embedded(),
            strength: None,
            choice_rng: ChoiceRng::new(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |t| t.as_nanos() as u64),
            ),
        }
    }

    /// The position the next search starts from.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Sets the position of the next search. A running search is not affected.
    pub fn set_position(&mut self, board: Board) {
        self.board = board;
    }

    /// Starts searching the current position. Returns at once; results arrive
    /// on `events`. A search still running is stopped first.
    pub fn go(&mut self, limits: &Limits, events: Sender<SearchEvent>) {
        self.go_since(limits, events, Instant::now());
    }

    /// [`Engine::go`] with the clock counted from `received`, when the
    /// command arrived: the GUI's clock runs from then, so the time spent
    /// before the search starts (waking threads, ending an earlier search)
    /// counts against the budget.
    pub fn go_since(&mut self, limits: &Limits, events: Sender<SearchEvent>, received: Instant) {
        self.stop();
        self.wait();
        self.search_started = received;
        let board = self.board.clone();
        let control = limits.time_control(board.turn(), self.clock_delay_ms);
        // Ranking the root moves by the tablebases, once for all threads.
        let tablebases = self.tablebases.plan(&board);
        let root_probes = tablebases.root.len() as u64;
        let forced_answer = matches!(
            control,
            TimeControl::Clock(_) | TimeControl::Missing | TimeControl::MoveTime(_)
        ) && !limits.ponder;
        // A weak level searches more lines to choose among; a limited level starts
        // no iteration past its node budget (the first always completes, so
        // that there are lines to choose among).
        let (searched_lines, soft_nodes) = match self.strength {
            Some(limit) => (self.multipv.max(limit.lines()), Some(limit.node_budget())),
            None => (self.multipv, None),
        };
        let setup = SearchSetup {
            budget: TimeBudget::new(control, self.move_overhead),
            max_depth: limits.depth.unwrap_or(u32::MAX),
            nodes: limits.nodes,
            soft_nodes,
            mate: limits.mate,
            search_moves: limits
                .search_moves
                .iter()
                .filter_map(|text| board.parse_uci_move(text).ok())
                .collect(),
            searched_lines,
            reported_lines: self.multipv,
            tablebases,
            answer_forced_move_at_once: forced_answer,
            start: self.search_started,
            thread_index: 0,
            net: Arc::clone(&self.net),
        };
        self.shared.stop.store(false, Ordering::Relaxed);
        self.shared.stop_requested.store(false, Ordering::Relaxed);
        self.shared
            .pondering
            .store(limits.ponder, Ordering::Relaxed);
        self.shared.clock_started_ns.store(0, Ordering::Relaxed);
        self.shared.nodes.store(0, Ordering::Relaxed);
        self.shared.tb_hits.store(root_probes, Ordering::Relaxed);
        self.tt.new_search();

        let done = self.threads.start(SearchStart {
            board,
            setup,
            tt: Arc::clone(&self.tt),
            shared: Arc::clone(&self.shared),
            events,
            searches_until_stop: limits.waits_for_stop(),
            ponder: limits.ponder,
            strength: self
                .strength
                .map(|limit| (limit, self.choice_rng.next_unit())),
            new_game: self.new_game_pending,
            tablebases: self.tablebases.tables.clone(),
        });
        self.new_game_pending = false;
        self.search_done = Some(done);
    }

    /// Asks the running search to stop; it reports its best move promptly.
    pub fn stop(&self) {
        self.shared.stop_requested.store(true, Ordering::Relaxed);
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        self.threads.wake_main_thread();
    }

    /// The opponent played the expected move: the clock starts at
    /// `received`, when the GUI said so, and the search goes on as a normal
    /// timed search.
    pub fn ponderhit(&self, received: Instant) {
        let elapsed = received
            .saturating_duration_since(self.search_started)
            .as_nanos() as u64;
        self.shared
            .clock_started_ns
            .store(elapsed, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        self.threads.wake_main_thread();
    }

    /// Waits until the running search (if any) has reported its best move.
    pub fn wait(&mut self) {
        if let Some(done) = self.search_done.take() {
            // An error means the main thread died; the report is then lost
            // but the engine stays usable.
            let _ = done.recv();
        }
    }

    /// Nodes searched by all threads in the last (or current) search.
    pub fn nodes_searched(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed)
    }

    fn table_mut(&mut self) -> &mut TranspositionTable {
        self.stop();
        self.wait();
        // No search runs, so no other reference to the table exists.
        Arc::get_mut(&mut self.tt).expect("the table is shared only during a search")
    }

    /// Resizes the hash table (MB). An unchanged size keeps the contents.
    pub fn set_hash(&mut self, megabytes: usize) -> Result<(), AllocationError> {
        self.table_mut().resize(megabytes)
    }

    /// The hash size in MB.
    pub fn hash_megabytes(&self) -> usize {
        self.tt.megabytes()
    }

    /// Empties the hash table.
    pub fn clear_hash(&mut self) {
        self.table_mut().clear();
    }

    /// Prepares for a new game: the hash table is emptied, and each search
    /// thread forgets its histories before its next search.
    pub fn new_game(&mut self) {
        self.clear_hash();
        self.new_game_pending = true;
    }

    /// Sets the number of search threads (1 to [`MAX_THREADS`]). Threads are
    /// created or ended here, never during `go`.
    pub fn set_threads(&mut self, count: usize) {
        let count = count.clamp(1, MAX_THREADS);
        self.stop();
        self.wait();
        self.threads.resize(count);
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Time reserved per move for communication delays.
    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    /// Limits the playing strength to about `elo` (see [`StrengthLimit`]),
    /// or restores full strength with `None`, from the next search on.
    pub fn set_strength(&mut self, elo: Option<u32>) {
        self.strength = elo.map(StrengthLimit::new);
    }

    /// Evaluates with `net` from the next search on.
    /// The transposition table and the threads' tables are emptied, as for a
    /// new game: they hold the old network's evaluations.
    pub fn set_network(&mut self, net: Arc<Network>) {
        self.net = net;
        self.new_game();
    }

    /// The evaluation network in use.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Free time per move before the main clock runs (delay clocks).
    pub fn set_clock_delay(&mut self, delay: Duration) {
        self.clock_delay_ms = delay.as_millis() as u64;
    }

    /// How many lines the next searches find and report (MultiPV; at least
    /// 1): the best that many root moves, each with its score and line.
    pub fn set_multipv(&mut self, lines: usize) {
        self.multipv = lines.max(1);
    }

    /// The tablebases and the settings of their use, for the next searches.
    pub fn tablebase_options_mut(&mut self) -> &mut TablebaseOptions {
        &mut self.tablebases
    }
}

impl Drop for Engine {
    /// Ends the search, so that the threads (joined when the pool drops) are idle.
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam::channel::unbounded;

    fn run(engine: &mut Engine, limits: &Limits) -> (Option<String>, Vec<SearchEvent>) {
        let (tx, rx) = unbounded();
        engine.go(limits, tx);
        let mut events = Vec::new();
        loop {
            let event = rx.recv().expect("a bestmove");
            if let SearchEvent::BestMove { best, .. } = &event {
                let best = best.clone();
                events.push(event);
                return (best, events);
            }
            events.push(event);
        }
    }

    #[test]
    fn many_threads_search_and_stop() {
        let mut engine = Engine::new();
        engine.set_threads(4);
        assert_eq!(engine.threads(), 4);
        let limits = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let (best, _) = run(&mut engine, &limits);
        assert!(best.is_some());
        engine.set_threads(1);
        assert_eq!(engine.threads(), 1);
        let (best, _) = run(&mut engine, &limits);
        assert!(best.is_some());
    }

    #[test]
    fn hash_can_change_between_searches() {
        let mut engine = Engine::new();
        engine.set_threads(2);
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        run(&mut engine, &limits);
        engine.set_hash(4).unwrap();
        run(&mut engine, &limits);
        engine.set_hash(32).unwrap();
        assert_eq!(engine.hash_megabytes(), 32);
        run(&mut engine, &limits);
    }

    #[test]
    fn a_failed_search_still_answers_and_the_engine_plays_on() {
        let limits = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        for failing in [0, 1] {
            let mut engine = Engine::new();
            engine.set_threads(2);
            engine.threads.fail_thread = Some(failing);
            let (best, events) = run(&mut engine, &limits);
            // The main thread's failure is reported and a legal move played;
            // a helper's failure leaves the main thread's result.
            assert!(best.is_some(), "thread {failing}");
            let reported = events.iter().any(|e| matches!(e, SearchEvent::Failure(_)));
            assert_eq!(reported, failing == 0, "thread {failing}");
            engine.threads.fail_thread = None;
            let (best, events) = run(&mut engine, &limits);
            assert!(best.is_some());
            assert!(events.iter().any(|e| matches!(e, SearchEvent::Info(_))));
        }
        // Under `go infinite` the rescued search still waits for `stop`, and
        // the table can be cleared right after its answer.
        let mut engine = Engine::new();
        engine.set_threads(2);
        engine.threads.fail_thread = Some(0);
        let (tx, rx) = unbounded();
        let infinite = Limits {
            infinite: true,
            ..Limits::default()
        };
        engine.go(&infinite, tx);
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(5)),
            Ok(SearchEvent::Failure(_))
        ));
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !rx.try_iter()
                .any(|e| matches!(e, SearchEvent::BestMove { .. })),
            "bestmove before stop"
        );
        engine.stop();
        engine.wait();
        assert!(
            rx.try_iter()
                .any(|e| matches!(e, SearchEvent::BestMove { best: Some(_), .. }))
        );
        engine.clear_hash();
    }

    #[test]
    fn a_new_game_forgets_what_earlier_searches_learnt() {
        let limits = Limits {
            depth: Some(7),
            ..Limits::default()
        };
        let mut engine = Engine::new();
        run(&mut engine, &limits);
        let fresh = engine.nodes_searched();
        // Another search fills the histories and correction history with other lines.
        let other = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        engine.set_position(Board::from_fen(other, shakmaty::CastlingMode::Standard).unwrap());
        run(&mut engine, &limits);
        engine.new_game();
        engine.set_position(Board::startpos());
        run(&mut engine, &limits);
        assert_eq!(engine.nodes_searched(), fresh);
    }
}
