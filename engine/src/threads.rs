//! The engine as other code drives it: set a position, start a search that
//! runs on its own thread, stop it, and receive its reports as events.
//!
//! `go` returns at once; the search thread sends [`SearchEvent`]s and exactly
//! one `BestMove` per `go`. Under `infinite` or `ponder` the best move is held
//! back until `stop` (or `ponderhit`), as UCI requires.

use crate::board::Board;
use crate::search::{Limits, SearchEvent, SearchParams, SharedState, Worker, result_to_uci};
use crate::time::{TimeBudget, TimeControl};
use crate::tt::{AllocationError, TranspositionTable};
use crossbeam::channel::Sender;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Stack size of search threads: the search recurses up to `MAX_PLY` deep with
/// a move list of about 1.4 KB per frame.
const SEARCH_STACK_BYTES: usize = 64 << 20;
/// Default hash size in MB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Default move overhead in ms.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;

/// A chess engine: position, transposition table and the running search.
pub struct Engine {
    board: Board,
    tt: Arc<TranspositionTable>,
    shared: Arc<SharedState>,
    search: Option<JoinHandle<()>>,
    search_started: Instant,
    threads: usize,
    move_overhead: Duration,
    clock_delay_ms: u64,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine at the starting position with the default hash size.
    pub fn new() -> Engine {
        Engine {
            board: Board::startpos(),
            tt: Arc::new(
                TranspositionTable::new(DEFAULT_HASH_MB).expect("allocating the default hash"),
            ),
            shared: Arc::new(SharedState::default()),
            search: None,
            search_started: Instant::now(),
            threads: 1,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            clock_delay_ms: 0,
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

    /// Whether a search is running (or waiting for `stop` to report).
    pub fn is_searching(&self) -> bool {
        self.search.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Starts searching the current position. Returns at once; results arrive
    /// on `events`. A search still running is stopped first.
    pub fn go(&mut self, limits: &Limits, events: Sender<SearchEvent>) {
        self.stop();
        self.wait();
        self.search_started = Instant::now();
        let board = self.board.clone();
        let control = limits.time_control(board.turn(), self.clock_delay_ms);
        let forced_answer = matches!(
            control,
            TimeControl::Clock(_) | TimeControl::Missing | TimeControl::MoveTime(_)
        ) && !limits.ponder;
        let params = SearchParams {
            budget: TimeBudget::new(control, self.move_overhead),
            max_depth: limits.depth.unwrap_or(u32::MAX),
            nodes: limits.nodes,
            mate: limits.mate,
            search_moves: limits
                .search_moves
                .iter()
                .filter_map(|text| board.parse_uci_move(text).ok())
                .collect(),
            answer_forced_move_at_once: forced_answer,
            start: self.search_started,
        };
        let wait_for_stop = limits.infinite || limits.ponder;
        self.shared.stop.store(false, Ordering::Relaxed);
        self.shared
            .pondering
            .store(limits.ponder, Ordering::Relaxed);
        self.shared.clock_started_ns.store(0, Ordering::Relaxed);
        self.shared.nodes.store(0, Ordering::Relaxed);
        self.tt.new_search();
        let tt = Arc::clone(&self.tt);
        let shared = Arc::clone(&self.shared);
        let infinite = limits.infinite;
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut worker =
                    Worker::new(board.clone(), &tt, &shared, params, Some(events.clone()));
                let result = worker.search();
                if wait_for_stop {
                    while !shared.stop.load(Ordering::Relaxed)
                        && (infinite || shared.pondering.load(Ordering::Relaxed))
                    {
                        std::thread::park_timeout(Duration::from_millis(5));
                    }
                }
                let (best, ponder) = result_to_uci(&board, &result);
                let _ = events.send(SearchEvent::BestMove { best, ponder });
            });
        self.search = Some(spawned.expect("spawning the search thread"));
    }

    /// Asks the running search to stop; it reports its best move promptly.
    pub fn stop(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        if let Some(handle) = &self.search {
            handle.thread().unpark();
        }
    }

    /// The opponent played the expected move: the clock starts now and the
    /// search goes on as a normal timed search.
    pub fn ponderhit(&self) {
        let elapsed = self.search_started.elapsed().as_nanos() as u64;
        self.shared
            .clock_started_ns
            .store(elapsed, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        if let Some(handle) = &self.search {
            handle.thread().unpark();
        }
    }

    /// Waits until the running search (if any) has reported its best move.
    pub fn wait(&mut self) {
        if let Some(handle) = self.search.take() {
            // A panic in the search thread has already been reported by the
            // panic hook; the engine itself stays usable.
            let _ = handle.join();
        }
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

    /// Prepares for a new game: the hash table is emptied.
    pub fn new_game(&mut self) {
        self.clear_hash();
    }

    /// Sets the number of search threads. Searches are single-threaded until
    /// Lazy SMP lands; the value is kept so GUIs can set it.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The configured number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Time reserved per move for communication delays.
    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    /// Free time per move before the main clock runs (delay clocks).
    pub fn set_clock_delay(&mut self, delay: Duration) {
        self.clock_delay_ms = delay.as_millis() as u64;
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
