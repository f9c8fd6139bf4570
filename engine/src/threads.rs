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
//! What the threads share during a search, and what each owns, is told at
//! [`SharedState`]. The tablebases rank the root moves once per `go`, before
//! the threads start, and every thread searches with that ranking. Only the
//! end of a search gathers the threads' results, once.
//!
//! # Many threads
//!
//! What grows with the thread count (up to [`MAX_THREADS`]), and how each
//! is kept in check; a 64-thread search is tested to keep a `movetime`,
//! answer `stop` at once and play a legal move (`uci/tests/threads.rs`):
//! - The shared node counter gets one atomic addition per thread every
//!   [`crate::search::CHECK_INTERVAL`] nodes, on a cache line of its own:
//!   at 256 threads of 1.5 M nodes per second, about 6,000 additions per
//!   thread and 1.5 M in all each second; at some 100 ns for an addition to
//!   a contended line, under a millisecond of waiting per thread per second
//!   (an estimate, not a measurement). Should it show, each thread can
//!   count on a padded line of its own, summed only for reports and limits.
//! - The stop flag is read once per interval from a line written once per
//!   search, so it stays in every core's cache; `stop` reaches the last
//!   thread within its next interval, and the main thread then waits for
//!   every helper once.
//! - A node limit (`go nodes`) reads the shared counter at every node; with
//!   many threads the search may overshoot by at most an interval per
//!   thread.
//! - The transposition table is lock-free, one 64-byte bucket per probe:
//!   threads contend only where they write the same bucket at once, which
//!   random keys make rare; what grows is the demand on memory bandwidth.
//! - Memory per thread, by the sizes of its tables: histories (about
//!   1.2 MB, most of it the continuation history), correction history
//!   (640 kB), accumulators and search stack (about 150 kB), and a 16 MB
//!   stack reserved but touched
//!   only as deep as the search goes: about 500 MB of tables at 256
//!   threads, next to the gigabytes of hash such a machine is given.

use crate::board::Board;
use crate::report::{
    IterationReport, PvLine, SearchEvent, SearchResult, result_to_uci, send_iteration,
};
use crate::search::{SearchSetup, SharedState, Worker};
use crate::strength::StrengthLimit;
use crate::syzygy::Tablebases;
use crate::thread_tables::ThreadTables;
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
    /// Under `infinite` or a bare `go`: the best move waits for `stop`.
    searches_until_stop: bool,
    /// Under `ponder`: the best move waits for `stop` or the end of pondering.
    ponders: bool,
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
    /// Makes the job fail before it searches, to test the engine's rescue.
    #[cfg(test)]
    fail: bool,
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
                let mut thread_tables = ThreadTables::default();
                for job in inbox {
                    if job.new_game {
                        thread_tables.clear();
                    }
                    let rescue = Rescue::of(&job);
                    let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_job(job, &mut thread_tables)
                    }));
                    if searched.is_err() {
                        thread_tables.clear();
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
    if !duty.searches_until_stop && !duty.ponders {
        return;
    }
    while !shared.stop_requested.load(Ordering::Relaxed)
        && (duty.searches_until_stop || shared.pondering.load(Ordering::Relaxed))
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

/// Runs one search job on the calling thread, learning into
/// `thread_tables`; the main thread then gathers the helpers' results and
/// answers with the best move.
fn run_job(job: Job, thread_tables: &mut ThreadTables) {
    #[cfg(test)]
    assert!(!job.fail, "a search failure asked for by a test");
    let Job {
        board,
        setup,
        tt,
        shared,
        results,
        main,
        ..
    } = job;
    let start = setup.start;
    let reported_lines = setup.reported_lines;
    let events = main.as_ref().map(|duty| duty.events.clone());
    let result = Worker::new(board.clone(), &tt, &shared, thread_tables, setup, events).search();
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
        let report = IterationReport {
            depth: result.depth,
            seldepth: result.seldepth,
            lines,
            progress: shared.progress(&tt, start, 0),
        };
        send_iteration(&duty.events, &board, report);
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
        .flat_map(|tablebases| tablebases.take_probe_failures())
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
    /// Under `infinite` or a bare `go` (see
    /// [`crate::time::Limits::waits_for_stop`]): the best move waits for `stop`.
    pub searches_until_stop: bool,
    /// Under `ponder`: the best move waits for `stop` or the end of pondering.
    pub ponder: bool,
    /// A limited strength, with the random draw that picks its line.
    pub strength: Option<(StrengthLimit, f64)>,
    /// A new game started since the last search: the threads forget their tables.
    pub new_game: bool,
    /// The tablebases in use (their failed probes are reported).
    pub tablebases: Option<Arc<Tablebases>>,
}

/// The search threads, waiting for jobs between searches. Thread 0 is the main thread.
pub(crate) struct ThreadPool {
    threads: Vec<SearchThread>,
    /// The thread whose next search fails, to test the engine's rescue.
    #[cfg(test)]
    pub fail_thread: Option<usize>,
}

impl ThreadPool {
    /// A pool of one thread, the main thread.
    pub fn new() -> ThreadPool {
        ThreadPool {
            threads: vec![SearchThread::spawn(0)],
            #[cfg(test)]
            fail_thread: None,
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
                    ..start.setup.clone()
                },
                tt: Arc::clone(&start.tt),
                shared: Arc::clone(&start.shared),
                results: helper_tx.clone(),
                main: None,
                new_game: start.new_game,
                #[cfg(test)]
                fail: self.fail_thread == Some(index),
            };
            thread
                .jobs
                .send(job)
                .expect("helper threads live as long as the pool");
        }
        let main = Job {
            board: start.board,
            setup: start.setup,
            tt: start.tt,
            shared: start.shared,
            results: helper_tx,
            main: Some(MainDuty {
                events: start.events,
                helper_results: helper_rx,
                helpers,
                searches_until_stop: start.searches_until_stop,
                ponders: start.ponder,
                done: done_tx,
                strength: start.strength,
                tablebases: start.tablebases,
            }),
            new_game: start.new_game,
            #[cfg(test)]
            fail: self.fail_thread == Some(0),
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
}
