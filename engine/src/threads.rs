//! The engine as other code drives it: set a position, start a search that
//! runs on its own threads, stop it, and receive its reports as events.
//!
//! # Threads
//!
//! Search threads live as long as the `Threads` setting: they are created when
//! it changes, not on every `go`, and wait on a channel between searches.
//! Thread 0 is the main thread: it alone keeps time, reports `info`, and ends
//! the search. Helper threads (Lazy SMP) search the same root with the same
//! shared transposition table, skipping iterations in staggered patterns so
//! that they fill the table with work the main thread will want next. The
//! first thread to finish the last iteration (depth limit) ends the search
//! for all, and the deepest finished iteration of any thread is played.
//! With MultiPV every thread searches all the lines, and the lines reported
//! last are those of the thread whose move is played.
//!
//! Each thread owns its board, search stack, killers, histories and PV table.
//! What is shared is only the lock-free transposition table, the Syzygy
//! tablebases (read-only), and a few atomics in [`SharedState`]: the stop
//! flags, the pondering flag, the clock start, the tablebase hit counter,
//! and a node counter that each thread adds to every 256 nodes, so the
//! counter sees one write per thread per few hundred nodes rather than one
//! per node. The tablebases rank the root moves once per `go`, before the
//! threads start, and every thread searches with that ranking. No structure
//! grows with the square of the thread count, and threads
//! never wait for each other during a search; only the end of a search
//! gathers their results, once. The design therefore carries over unchanged
//! to machines with 64 or more cores.
//!
//! # Reports
//!
//! `go` returns at once; the main thread sends [`SearchEvent`]s and exactly one
//! `BestMove` per `go`. Under `infinite` or `ponder` the best move is held back
//! until `stop` (or `ponderhit`), as UCI requires.

use crate::board::Board;
use crate::nnue::Network;
use crate::search::{
    IterationReport, Limits, PvLine, SearchEvent, SearchParams, SearchResult, SharedState, Worker,
    iteration_infos, result_to_uci,
};
use crate::strength::{ChoiceRng, StrengthLimit};
use crate::syzygy::TablebaseOptions;
use crate::tables::ThreadTables;
use crate::time::{TimeBudget, TimeControl};
use crate::tt::{AllocationError, TranspositionTable};
use crossbeam::channel::{Receiver, Sender, bounded, unbounded};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Stack size of search threads: the search recurses up to `MAX_PLY` deep
/// with a few kilobytes of move lists per frame.
const SEARCH_STACK_BYTES: usize = 16 << 20;
/// Default hash size in MB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Default move overhead in ms.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;
/// Most search threads the engine runs.
pub const MAX_THREADS: usize = 1024;

/// What the main thread needs besides a helper's job.
#[derive(Clone)]
struct MainDuty {
    events: Sender<SearchEvent>,
    helper_results: Receiver<SearchResult>,
    helpers: usize,
    wait_for_stop: bool,
    infinite: bool,
    done: Sender<()>,
    /// A limited strength, with the random draw that picks its line.
    strength: Option<(StrengthLimit, f64)>,
}

/// One search for one thread.
struct Job {
    board: Board,
    params: SearchParams,
    tt: Arc<TranspositionTable>,
    shared: Arc<SharedState>,
    results: Sender<SearchResult>,
    main: Option<MainDuty>,
    /// A new game started since this thread's last search: forget its tables first.
    new_game: bool,
}

/// A search thread waiting for jobs.
struct SearchThread {
    jobs: Sender<Job>,
    handle: JoinHandle<()>,
}

impl SearchThread {
    fn spawn(index: usize) -> SearchThread {
        let (jobs, inbox) = unbounded::<Job>();
        let handle = std::thread::Builder::new()
            .name(format!("search-{index}"))
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut tables = ThreadTables::default();
                for job in inbox {
                    if job.new_game {
                        tables.clear();
                    }
                    let rescue = Rescue::of(&job);
                    let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_job(job, &mut tables)
                    }));
                    if searched.is_err() {
                        tables.clear();
                        rescue.answer();
                    }
                }
            })
            .expect("spawning a search thread");
        SearchThread { jobs, handle }
    }
}

/// What a search thread needs to answer for a search that failed (a panic,
/// which is a bug): the engine must not hang or stop playing because of it.
struct Rescue {
    board: Board,
    shared: Arc<SharedState>,
    results: Sender<SearchResult>,
    main: Option<MainDuty>,
}

impl Rescue {
    fn of(job: &Job) -> Rescue {
        Rescue {
            board: job.board.clone(),
            shared: Arc::clone(&job.shared),
            results: job.results.clone(),
            main: job.main.clone(),
        }
    }

    /// Stands in for the failed search. A helper reports an empty result,
    /// which the main thread passes over. The main thread stops the helpers
    /// and waits for them, as a search that ends does (so no helper still
    /// holds the table when `bestmove` goes out), reports the failure, holds
    /// its answer until `stop` under `infinite` or `ponder`, and then plays
    /// a legal move.
    fn answer(self) {
        let Some(duty) = self.main else {
            let _ = self.results.send(SearchResult {
                best: None,
                ponder: None,
                score: 0,
                depth: 0,
                nodes: 0,
                seldepth: 0,
                lines: Vec::new(),
            });
            return;
        };
        self.shared.stop.store(true, Ordering::Relaxed);
        let _ = duty.events.send(SearchEvent::Failure(
            "internal error in the search; playing a legal move".to_string(),
        ));
        for _ in duty.helper_results.iter().take(duty.helpers) {}
        wait_for_stop_request(&self.shared, &duty);
        let best = self
            .board
            .legal_moves()
            .first()
            .map(|&m| self.board.move_to_uci(m));
        let _ = duty
            .events
            .send(SearchEvent::BestMove { best, ponder: None });
        let _ = duty.done.send(());
    }
}

/// Under `go infinite` or `go ponder`, waits until the GUI sends `stop` (or
/// `ponderhit` ends the pondering): UCI allows no `bestmove` before that.
fn wait_for_stop_request(shared: &SharedState, duty: &MainDuty) {
    if !duty.wait_for_stop {
        return;
    }
    while !shared.stop_requested.load(Ordering::Relaxed)
        && (duty.infinite || shared.pondering.load(Ordering::Relaxed))
    {
        std::thread::park_timeout(Duration::from_millis(5));
    }
}

/// Picks the result to play among the threads': the deepest finished
/// iteration wins, and at equal depth the higher score; the main thread
/// (first in `results`) wins ties. A deeper iteration saw more, and with a
/// shared table a helper's deeper result already includes the main thread's
/// work.
fn select_result(results: &[SearchResult]) -> Option<&SearchResult> {
    let mut best: Option<&SearchResult> = None;
    for result in results.iter().filter(|r| r.best.is_some()) {
        best = match best {
            Some(b) if (result.depth, result.score) <= (b.depth, b.score) => Some(b),
            _ => Some(result),
        };
    }
    best.or(results.first())
}

fn run_job(job: Job, tables: &mut ThreadTables) {
    let Job {
        board,
        params,
        tt,
        shared,
        results,
        main,
        new_game: _,
    } = job;
    let start = params.start;
    let reported_lines = params.reported_lines;
    let events = main.as_ref().map(|duty| duty.events.clone());
    let result = Worker::new(board.clone(), &tt, &shared, tables, params, events).search();
    let Some(duty) = main else {
        // A helper ends only at the depth or mate limit, or when stopped:
        // its result is then final, so the other threads may stop too.
        shared.stop.store(true, Ordering::Relaxed);
        // Release the table before reporting, so the engine may resize it
        // as soon as the main thread says the search is over.
        drop(tt);
        drop(shared);
        let _ = results.send(result);
        return;
    };
    shared.stop.store(true, Ordering::Relaxed);
    let mut all = Vec::with_capacity(duty.helpers + 1);
    all.push(result);
    all.extend(duty.helper_results.iter().take(duty.helpers));
    wait_for_stop_request(&shared, &duty);
    let mut chosen = select_result(&all)
        .cloned()
        .unwrap_or_else(|| all[0].clone());
    // Reports `lines` of `result` once more, so that the last `info` lines
    // agree with the `bestmove` that follows.
    let report_again = |result: &SearchResult, lines: &[PvLine]| {
        let infos = iteration_infos(
            &board,
            IterationReport {
                depth: result.depth,
                seldepth: result.seldepth,
                lines,
                nodes: shared.nodes.load(Ordering::Relaxed),
                tbhits: shared.tb_hits.load(Ordering::Relaxed),
                elapsed: start.elapsed(),
                hashfull: tt.hashfull(),
            },
        );
        for info in infos {
            let _ = duty.events.send(SearchEvent::Info(info));
        }
    };
    if chosen != all[0] && chosen.best.is_some() {
        // A helper's result is played: report its lines.
        report_again(
            &chosen,
            &chosen.lines[..chosen.lines.len().min(reported_lines)],
        );
    }
    if let Some((limit, draw)) = duty.strength {
        let index = limit.choose(&chosen.lines, draw);
        if let Some(line) = chosen.lines.get(index).cloned()
            && let Some(&first) = line.pv.first()
        {
            chosen.best = Some(first);
            chosen.ponder = line.pv.get(1).copied();
            if index != 0 {
                // A weaker line is played: report it last.
                report_again(&chosen, std::slice::from_ref(&line));
            }
        }
    }
    drop(tt);
    drop(shared);
    let (best, ponder) = result_to_uci(&board, &chosen);
    let _ = duty.events.send(SearchEvent::BestMove { best, ponder });
    let _ = duty.done.send(());
}

/// A chess engine: position, transposition table, search threads.
pub struct Engine {
    board: Board,
    tt: Arc<TranspositionTable>,
    shared: Arc<SharedState>,
    threads: Vec<SearchThread>,
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
    /// The thread whose next search fails, to test the engine's rescue.
    #[cfg(test)]
    fail_thread: Option<usize>,
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
            threads: vec![SearchThread::spawn(0)],
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
            #[cfg(test)]
            fail_thread: None,
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
        let (multipv, soft_nodes) = match self.strength {
            Some(limit) => (self.multipv.max(limit.lines()), Some(limit.node_budget())),
            None => (self.multipv, None),
        };
        let params = SearchParams {
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
            multipv,
            reported_lines: self.multipv,
            tablebases,
            answer_forced_move_at_once: forced_answer,
            start: self.search_started,
            thread_index: 0,
            net: Arc::clone(&self.net),
            #[cfg(test)]
            fail: self.fail_thread == Some(0),
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

        let helpers = self.threads.len() - 1;
        let (helper_tx, helper_rx) = unbounded();
        let (done_tx, done_rx) = bounded(1);
        for (index, thread) in self.threads.iter().enumerate().skip(1) {
            let job = Job {
                board: board.clone(),
                params: SearchParams {
                    budget: TimeBudget::UNLIMITED,
                    thread_index: index,
                    #[cfg(test)]
                    fail: self.fail_thread == Some(index),
                    ..params.clone()
                },
                tt: Arc::clone(&self.tt),
                shared: Arc::clone(&self.shared),
                results: helper_tx.clone(),
                main: None,
                new_game: self.new_game_pending,
            };
            thread
                .jobs
                .send(job)
                .expect("helper threads live as long as the engine");
        }
        let main = Job {
            board,
            params,
            tt: Arc::clone(&self.tt),
            shared: Arc::clone(&self.shared),
            results: helper_tx,
            main: Some(MainDuty {
                events,
                helper_results: helper_rx,
                helpers,
                wait_for_stop: limits.infinite || limits.ponder,
                infinite: limits.infinite,
                done: done_tx,
                strength: self
                    .strength
                    .map(|limit| (limit, self.choice_rng.next_unit())),
            }),
            new_game: self.new_game_pending,
        };
        self.new_game_pending = false;
        self.threads[0]
            .jobs
            .send(main)
            .expect("the main search thread lives as long as the engine");
        self.search_done = Some(done_rx);
    }

    fn wake_main_thread(&self) {
        self.threads[0].handle.thread().unpark();
    }

    /// Asks the running search to stop; it reports its best move promptly.
    pub fn stop(&self) {
        self.shared.stop_requested.store(true, Ordering::Relaxed);
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        self.wake_main_thread();
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
        self.wake_main_thread();
    }

    /// Waits until the running search (if any) has reported its best move.
    pub fn wait(&mut self) {
        if let Some(done) = self.search_done.take() {
            // An error means the main thread died; the report is then lost
            // but the engine stays usable.
            let _ = done.recv();
        }
    }

    /// Whether a search is running (or holding its best move until `stop`).
    pub fn is_searching(&self) -> bool {
        self.search_done
            .as_ref()
            .is_some_and(|done| done.is_empty())
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
        while self.threads.len() > count {
            let thread = self.threads.pop().expect("more threads than wanted");
            drop(thread.jobs);
            let _ = thread.handle.join();
        }
        while self.threads.len() < count {
            self.threads.push(SearchThread::spawn(self.threads.len()));
        }
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
    fn drop(&mut self) {
        self.stop();
        self.wait();
        for thread in self.threads.drain(..) {
            drop(thread.jobs);
            let _ = thread.handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Move;
    use shakmaty::Role;
    use shakmaty::Square;

    fn result(depth: u32, score: i32, from: Square) -> SearchResult {
        SearchResult {
            best: Some(Move::Normal {
                role: Role::Pawn,
                from,
                capture: None,
                to: from.offset(8).unwrap(),
                promotion: None,
            }),
            ponder: None,
            score,
            depth,
            nodes: 0,
            seldepth: 0,
            lines: Vec::new(),
        }
    }

    #[test]
    fn deepest_result_wins_and_main_wins_ties() {
        let main = result(10, 20, Square::E2);
        let shallow = result(9, 90, Square::D2);
        let deep = result(11, -5, Square::C2);
        let equal = result(10, 20, Square::B2);
        assert_eq!(select_result(&[main.clone(), shallow.clone()]), Some(&main));
        assert_eq!(select_result(&[main.clone(), deep.clone()]), Some(&deep));
        assert_eq!(select_result(&[main.clone(), equal]), Some(&main));
        let better = result(10, 40, Square::A2);
        assert_eq!(
            select_result(&[main, shallow, better.clone()]),
            Some(&better)
        );
    }

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
            engine.fail_thread = Some(failing);
            let (best, events) = run(&mut engine, &limits);
            // The main thread's failure is reported and a legal move played;
            // a helper's failure leaves the main thread's result.
            assert!(best.is_some(), "thread {failing}");
            let reported = events.iter().any(|e| matches!(e, SearchEvent::Failure(_)));
            assert_eq!(reported, failing == 0, "thread {failing}");
            engine.fail_thread = None;
            let (best, events) = run(&mut engine, &limits);
            assert!(best.is_some());
            assert!(events.iter().any(|e| matches!(e, SearchEvent::Info(_))));
        }
        // Under `go infinite` the rescued search still waits for `stop`, and
        // the table can be cleared right after its answer.
        let mut engine = Engine::new();
        engine.set_threads(2);
        engine.fail_thread = Some(0);
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
