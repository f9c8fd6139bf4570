//! What the subcommands that search many positions from files (`sessa epd`,
//! `sessa annotate`) share: the search limit options, engines with their
//! tablebases, several jobs at once with results in input order, and the
//! progress bar.
//!
//! The progress bar is drawn by `indicatif`, which keeps a single status line
//! on stderr up to date while result lines are printed above it, and draws
//! nothing when stderr is not a terminal; doing that by hand would mean
//! terminal handling this project has no other use for.

use clap::{ArgGroup, Args};
use crossbeam::channel::unbounded;
use indicatif::{ProgressBar, ProgressStyle};
use sessa_engine::engine::DEFAULT_HASH_MB;
use sessa_engine::syzygy::Tablebases;
use sessa_engine::{Engine, Limits};
use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    /// soon as all earlier ones are done.
    pub fn run_in_order<T: Sync, R: Send>(
        &mut self,
        items: &[T],
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
                            loop {
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
                waiting.insert(index, result);
                while let Some(result) = waiting.remove(&next_to_report) {
                    on_result(&items[next_to_report], result);
                    next_to_report += 1;
                }
            }
        });
    }
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
