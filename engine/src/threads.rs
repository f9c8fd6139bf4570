//! The search threads: a pool of threads that live as long as the `Threads`
//! setting, the jobs a search gives them, and how their results are joined.
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

use crate::board::Board;
use crate::report::{IterationReport, SearchEvent, iteration_infos, result_to_uci};
use crate::search::{PvLine, SearchResult, SearchSetup, SharedState, Worker};
use crate::strength::StrengthLimit;
use crate::syzygy::Tablebases;
use crate::tables::ThreadTables;
use crate::time::TimeBudget;
use crate::tt::TranspositionTable;
use crossbeam::channel::{Receiver, Sender, bounded, unbounded};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::Duration;

/// Stack size of search threads: the search recurses up to `MAX_PLY` deep
/// with a few kilobytes of move lists per frame.
const SEARCH_STACK_BYTES: usize = 16 << 20;
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
    /// The tablebases in use, whose failed probes are reported before the move.
    tablebases: Option<Arc<Tablebases>>,
}

/// One search for one thread.
struct Job {
    board: Board,
    setup: SearchSetup,
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
            let _ = self.results.send(SearchResult::default());
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
        setup,
        tt,
        shared,
        results,
        main,
        new_game: _,
    } = job;
    let start = setup.start;
    let reported_lines = setup.reported_lines;
    let events = main.as_ref().map(|duty| duty.events.clone());
    let result = Worker::new(board.clone(), &tt, &shared, tables, setup, events).search();
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
    for failure in duty
        .tablebases
        .iter()
        .flat_map(|tables| tables.take_probe_failures())
    {
        let _ = duty.events.send(SearchEvent::Failure(failure));
    }
    let (best, ponder) = result_to_uci(&board, &chosen);
    let _ = duty.events.send(SearchEvent::BestMove { best, ponder });
    let _ = duty.done.send(());
}

/// What one `go` gives the threads of a [`ThreadPool`].
pub(crate) struct SearchStart {
    /// The root position.
    pub board: Board,
    /// The main thread's search; helpers search the same without a clock.
    pub setup: SearchSetup,
    /// The shared table.
    pub tt: Arc<TranspositionTable>,
    /// The shared flags and counters.
    pub shared: Arc<SharedState>,
    /// Where the main thread reports.
    pub events: Sender<SearchEvent>,
    /// Under `infinite` (or a bare `go`, see [`crate::time::Limits::waits_for_stop`]): the
    /// best move waits for `stop`.
    pub infinite: bool,
    /// Under `ponder`: the best move waits for `stop` or the end of pondering.
    pub ponder: bool,
    /// A limited strength, with the random draw that picks its line.
    pub strength: Option<(StrengthLimit, f64)>,
    /// A new game started since the last search: the threads forget their tables.
    pub new_game: bool,
    /// The tablebases in use (their failed probes are reported).
    pub tablebases: Option<Arc<Tablebases>>,
    /// The thread whose search fails, to test the engine's rescue.
    #[cfg(test)]
    pub fail_thread: Option<usize>,
}

/// The search threads, waiting for jobs between searches. Thread 0 is the main thread.
pub(crate) struct ThreadPool {
    threads: Vec<SearchThread>,
}

impl ThreadPool {
    /// A pool of one thread, the main thread.
    pub fn new() -> ThreadPool {
        ThreadPool {
            threads: vec![SearchThread::spawn(0)],
        }
    }

    /// The number of threads.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Ends or starts threads until there are `count` (at least 1). No
    /// search may be running.
    pub fn resize(&mut self, count: usize) {
        let count = count.max(1);
        while self.threads.len() > count {
            let thread = self.threads.pop().expect("more threads than wanted");
            drop(thread.jobs);
            let _ = thread.handle.join();
        }
        while self.threads.len() < count {
            self.threads.push(SearchThread::spawn(self.threads.len()));
        }
    }

    /// Starts a search on every thread. The receiver gets one message once
    /// the main thread has sent its best move and no thread uses the table.
    pub fn start(&self, start: SearchStart) -> Receiver<()> {
        let helpers = self.threads.len() - 1;
        let (helper_tx, helper_rx) = unbounded();
        let (done_tx, done_rx) = bounded(1);
        for (index, thread) in self.threads.iter().enumerate().skip(1) {
            let job = Job {
                board: start.board.clone(),
                setup: SearchSetup {
                    budget: TimeBudget::UNLIMITED,
                    thread_index: index,
                    #[cfg(test)]
                    fail: start.fail_thread == Some(index),
                    ..start.setup.clone()
                },
                tt: Arc::clone(&start.tt),
                shared: Arc::clone(&start.shared),
                results: helper_tx.clone(),
                main: None,
                new_game: start.new_game,
            };
            thread
                .jobs
                .send(job)
                .expect("helper threads live as long as the pool");
        }
        let main = Job {
            board: start.board,
            setup: SearchSetup {
                #[cfg(test)]
                fail: start.fail_thread == Some(0),
                ..start.setup
            },
            tt: start.tt,
            shared: start.shared,
            results: helper_tx,
            main: Some(MainDuty {
                events: start.events,
                helper_results: helper_rx,
                helpers,
                wait_for_stop: start.infinite || start.ponder,
                infinite: start.infinite,
                done: done_tx,
                strength: start.strength,
                tablebases: start.tablebases,
            }),
            new_game: start.new_game,
        };
        self.threads[0]
            .jobs
            .send(main)
            .expect("the main search thread lives as long as the pool");
        done_rx
    }

    /// Wakes the main thread where it waits for `stop` or `ponderhit`.
    pub fn wake_main_thread(&self) {
        self.threads[0].handle.thread().unpark();
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        for thread in self.threads.drain(..) {
            drop(thread.jobs);
            let _ = thread.handle.join();
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Move, Role, Square};

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

    #[test]
    fn helpers_skip_iterations_in_staggered_patterns() {
        // The main thread and every first iteration are never skipped.
        assert!((1..30).all(|depth| !skips_depth(0, depth)));
        assert!((0..40).all(|thread| !skips_depth(thread, 1)));
        // Helpers differ in which iterations they search.
        let pattern = |thread| (2..20).map(|d| skips_depth(thread, d)).collect::<Vec<_>>();
        assert!(pattern(1).contains(&true));
        assert_ne!(pattern(1), pattern(2));
    }
}
