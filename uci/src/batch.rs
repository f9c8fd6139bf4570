//! What the subcommands that search many positions from files (`sessa epd`,
//! `sessa annotate`) share: the search limit options, engines with their
//! tablebases, several jobs at once with results in input order, a way to
//! stop them all early, and the progress bar.
//!
//! The progress bar is drawn by `indicatif`, which keeps a single status line
//! on stderr up to date while result lines are printed above it, and draws
//! nothing when stderr is not a terminal; doing that by hand would mean
//! terminal handling this project has no other use for.

use clap::{ArgGroup, Args};
use crossbeam::channel::{Receiver, Sender, TryRecvError, bounded, never, select, unbounded};
use indicatif::{ProgressBar, ProgressStyle};
use sessa_engine::engine::DEFAULT_HASH_MB;
use sessa_engine::syzygy::Tablebases;
use sessa_engine::{Engine, Limits, SearchEvent};
use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Time per position when no limit is given, in ms.
pub const DEFAULT_MOVE_TIME_MS: u64 = 1000;

/// How long each position is searched: one of a time, a node count or a
/// depth, 1000 ms when none is given.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("limit").args(["movetime", "nodes", "depth"])))]
pub struct LimitArgs {
    /// Search each position this many ms (the default, with 1000 ms).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=u64::from(u32::MAX)))]
    pub movetime: Option<u64>,
    /// Search each position this many nodes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Search each position to this depth.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
}

impl LimitArgs {
    /// The limits of every search.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits::default();
        match (self.nodes, self.depth) {
            (Some(nodes), _) => limits.nodes = Some(nodes),
            (_, Some(depth)) => limits.depth = Some(depth),
            _ => {
                let ms = self.movetime.unwrap_or(DEFAULT_MOVE_TIME_MS);
                limits.move_time = Some(i64::try_from(ms).unwrap_or(i64::MAX));
            }
        }
        limits
    }

    /// The limit in words of the UCI `go` command: `nodes 20000`.
    pub fn text(&self) -> String {
        match (self.nodes, self.depth) {
            (Some(nodes), _) => format!("nodes {nodes}"),
            (_, Some(depth)) => format!("depth {depth}"),
            _ => format!("movetime {}", self.movetime.unwrap_or(DEFAULT_MOVE_TIME_MS)),
        }
    }
}

/// The engines' options of `sessa epd` and `sessa annotate`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Search threads per position.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: u16,
    /// Hash size in MB of each engine, cleared before every position (epd)
    /// or game (annotate).
    #[arg(long, default_value_t = DEFAULT_HASH_MB as u32,
          value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub hash: u32,
    /// Syzygy tablebase folders (separated by `:`, or `;` on Windows),
    /// shared by all jobs.
    #[arg(long, value_name = "PATH")]
    pub syzygy: Option<String>,
    /// Positions (epd) or games (annotate) searched at once, each by its own
    /// engine (and hash).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: u16,
}

impl EngineArgs {
    /// The engines these options ask for, with their tablebases; the pool's
    /// threads are named `<name>-job-<index>`.
    pub fn workers(&self, name: &str) -> Result<Workers, String> {
        let tables = open_tablebases(self.syzygy.as_deref())?;
        Workers::new(name, self.jobs, self.hash, self.threads, tables)
    }
}

/// Where the results go: the file `path` (created or emptied), or standard
/// output.
pub fn open_output(path: Option<&std::path::Path>) -> Result<Box<dyn io::Write>, String> {
    Ok(match path {
        Some(path) => Box::new(io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => Box::new(io::stdout().lock()),
    })
}

/// The tables of a `--syzygy` option, loaded once for all jobs; the folders
/// or files skipped are reported on stderr.
fn open_tablebases(paths: Option<&str>) -> Result<Option<Arc<Tablebases>>, String> {
    let Some(paths) = paths else {
        return Ok(None);
    };
    let tables = Tablebases::open(paths).map_err(|e| e.to_string())?;
    for problem in tables.problems() {
        eprintln!("warning: --syzygy: {problem}");
    }
    Ok(Some(Arc::new(tables)))
}

/// The engines of the jobs, one each, and the threads that run the jobs.
pub struct Workers {
    /// One engine per job.
    pub engines: Vec<Engine>,
    /// A thread per job.
    pub pool: rayon::ThreadPool,
}

impl Workers {
    /// `jobs` engines, each with `hash_mb` of hash, `threads` search threads
    /// and the tablebases `tables`; the pool's threads are named
    /// `<name>-job-<index>`.
    pub fn new(
        name: &str,
        jobs: u16,
        hash_mb: u32,
        threads: u16,
        tables: Option<Arc<Tablebases>>,
    ) -> Result<Workers, String> {
        let mut engines = Vec::with_capacity(jobs.into());
        for _ in 0..jobs {
            let mut engine = Engine::new();
            engine
                .set_hash(hash_mb as usize)
                .map_err(|e| e.to_string())?;
            engine.set_threads(threads.into());
            engine.tablebase_options_mut().tables = tables.clone();
            engines.push(engine);
        }
        let name = name.to_string();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.into())
            .thread_name(move |index| format!("{name}-job-{index}"))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Workers { engines, pool })
    }

    /// Runs `work` on every item, each job with its own engine, and hands
    /// each item with its result to `on_result` in the order of `items`, as
    /// soon as all earlier ones are done. Once `stop` is requested no job
    /// takes another item and no result is handed on: a result finished
    /// after the request may come from a search cut short.
    pub fn run_in_order<T: Sync, R: Send>(
        &mut self,
        items: &[T],
        stop: &Stop,
        work: impl Fn(&mut Engine, &T) -> R + Sync,
        mut on_result: impl FnMut(&T, R),
    ) {
        let next = AtomicUsize::new(0);
        let (done, results) = unbounded();
        let Workers { engines, pool } = self;
        let work = &work;
        std::thread::scope(|scope| {
            let next = &next;
            scope.spawn(move || {
                pool.scope(|jobs| {
                    for engine in engines.iter_mut() {
                        let done = done.clone();
                        jobs.spawn(move |_| {
                            while !stop.is_requested() {
                                let index = next.fetch_add(1, Ordering::Relaxed);
                                let Some(item) = items.get(index) else {
                                    break;
                                };
                                let result = work(engine, item);
                                if done.send((index, result)).is_err() {
                                    break;
                                }
                            }
                        });
                    }
                });
            });
            let mut waiting = BTreeMap::new();
            let mut next_to_report = 0;
            for (index, result) in results.iter() {
                if stop.is_requested() {
                    break;
                }
                waiting.insert(index, result);
                while !stop.is_requested()
                    && let Some(result) = waiting.remove(&next_to_report)
                {
                    on_result(&items[next_to_report], result);
                    next_to_report += 1;
                }
            }
        });
    }
}

/// A request to end a run early, seen by every job at once: made when the
/// results can no longer be written, or on an interrupt.
#[derive(Clone)]
pub struct Stop {
    /// Never carries a message: the request closes the channel, and a
    /// closed channel wakes every receiver waiting on it.
    requested: Receiver<()>,
    /// The channel's one sender, dropped by the request.
    sender: Arc<Mutex<Option<Sender<()>>>>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop::new()
    }
}

impl Stop {
    /// A stop not requested yet.
    pub fn new() -> Stop {
        let (sender, requested) = bounded(0);
        Stop {
            requested,
            sender: Arc::new(Mutex::new(Some(sender))),
        }
    }

    /// Asks every job to stop; a search under way ends early.
    pub fn request(&self) {
        self.sender
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }

    /// Whether a stop was requested.
    pub fn is_requested(&self) -> bool {
        self.requested.try_recv() == Err(TryRecvError::Disconnected)
    }
}

/// Searches the engine's position with `limits`, handing every event to
/// `on_event` up to the best move, which ends the search. A stop request
/// ends the search early; its best move still comes.
pub fn search(
    engine: &mut Engine,
    limits: &Limits,
    stop: &Stop,
    mut on_event: impl FnMut(SearchEvent),
) {
    let (events, reports) = unbounded();
    engine.go(limits, events);
    // Watched until the search is asked to stop, then never again.
    let mut stop_requested = stop.requested.clone();
    loop {
        select! {
            recv(reports) -> event => {
                let Ok(event) = event else { break };
                let best_move = matches!(event, SearchEvent::BestMove { .. });
                on_event(event);
                if best_move {
                    break;
                }
            }
            recv(stop_requested) -> _ => {
                engine.stop();
                stop_requested = never();
            }
        }
    }
    engine.wait();
}

/// A bar on stderr when it is a terminal; a hidden one otherwise.
pub fn progress_bar(total: usize) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style =
        ProgressStyle::with_template("{bar:20} {pos}/{len} {elapsed_precise} eta {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(total as u64).with_style(style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn every_copy_of_a_stop_sees_the_request() {
        let stop = Stop::new();
        let copy = stop.clone();
        assert!(!stop.is_requested() && !copy.is_requested());
        copy.request();
        copy.request();
        assert!(stop.is_requested() && copy.is_requested());
    }

    #[test]
    fn no_result_is_handed_on_after_a_stop() {
        let mut workers = Workers::new("test", 2, 1, 1, None).unwrap();
        let stop = Stop::new();
        let items: Vec<usize> = (0..1000).collect();
        let mut handed = Vec::new();
        workers.run_in_order(
            &items,
            &stop,
            |_, &item| item * 10,
            |&item, result| {
                handed.push(result);
                if item == 2 {
                    stop.request();
                }
            },
        );
        assert_eq!(handed, [0, 10, 20]);
    }

    #[test]
    fn a_stop_ends_a_search_without_limit() {
        let stop = Stop::new();
        let (done, finished) = unbounded();
        let searching = stop.clone();
        std::thread::spawn(move || {
            let mut engine = Engine::new();
            let mut best = None;
            search(&mut engine, &Limits::default(), &searching, |event| {
                if let SearchEvent::BestMove { best: mv, .. } = event {
                    best = mv;
                }
            });
            let _ = done.send(best);
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(finished.try_recv().is_err(), "a bare go waits for stop");
        stop.request();
        let best = finished
            .recv_timeout(Duration::from_secs(10))
            .expect("the search ends on the stop request");
        assert!(best.is_some());
    }
}
