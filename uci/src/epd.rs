//! `sessa epd`: runs EPD test suites and reports, for every position, whether
//! the engine solved it, and per file how many it solved.
//!
//! Each position is searched from an empty hash with the same limit. Several
//! positions may run at once (`--jobs`), each job with its own engine; results
//! are printed in file order all the same. Invalid lines are reported on
//! stderr with their line number and skipped. A position whose FEN needed
//! repair (see `Board::from_fen_repaired`) is searched as repaired, and every
//! output format says what was repaired. Results are written as they come;
//! when they can no longer be written (a reader that closed the pipe, a full
//! disk) the run stops, quietly for a closed pipe.
//!
//! The shared machinery (jobs, limits, progress bar) is in `crate::batch`.

mod report;

use crate::batch::{EngineArgs, LimitArgs, Stop, open_output, progress_bar, search};
use crate::output::is_closed_pipe;
use clap::{Args, ValueEnum};
use sessa_engine::epd::{EpdFile, EpdLineError, EpdRecord};
use sessa_engine::{Engine, Limits, ReportedScore, SearchEvent};
use shakmaty::Move;
use shakmaty::san::SanPlus;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Invalid lines reported one by one per file; the rest are only counted.
const BAD_LINES_SHOWN: usize = 10;

/// Options of `sessa epd`.
#[derive(Args, Debug)]
pub struct EpdArgs {
    /// EPD files to run.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    limit: LimitArgs,
    #[command(flatten)]
    engines: EngineArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the results to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

impl EpdArgs {
    fn limit_text(&self) -> String {
        self.limit.text()
    }
}

/// How results are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A line per position and a summary per file.
    Text,
    /// One row per position with a header (summaries go to stderr).
    Csv,
    /// One JSON document with the positions and summary of every file.
    Json,
}

/// Whether the engine solved a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Solved; the time in ms from which the answer was right to the end.
    Solved { after_ms: u64 },
    /// Not solved.
    Failed,
    /// The record has nothing to judge by (no `bm`, `am`, `dm` or points).
    NoTarget,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Solved { .. } => "solved",
            Verdict::Failed => "failed",
            Verdict::NoTarget => "no-target",
        }
    }
}

/// What the search of one position gave.
#[derive(Debug, Clone)]
struct Outcome {
    line: usize,
    id: String,
    expected: String,
    played_san: String,
    played_uci: String,
    score: Option<ReportedScore>,
    depth: u32,
    nodes: u64,
    time: Duration,
    verdict: Verdict,
    points: Option<(u32, u32)>,
    /// What was repaired in the record's FEN, in words.
    repairs: Vec<String>,
}

/// Totals of one file (or of all files).
#[derive(Debug, Clone, Default)]
struct Summary {
    positions: usize,
    judged: usize,
    solved: usize,
    time: Duration,
    solution_ms: u64,
    points: u32,
    max_points: u32,
    bad_lines: usize,
    /// Positions searched after their FEN was repaired.
    repaired: usize,
}

impl Summary {
    fn add(&mut self, outcome: &Outcome) {
        self.positions += 1;
        self.time += outcome.time;
        match outcome.verdict {
            Verdict::Solved { after_ms } => {
                self.judged += 1;
                self.solved += 1;
                self.solution_ms += after_ms;
            }
            Verdict::Failed => self.judged += 1,
            Verdict::NoTarget => {}
        }
        if let Some((points, max)) = outcome.points {
            self.points += points;
            self.max_points += max;
        }
        if !outcome.repairs.is_empty() {
            self.repaired += 1;
        }
    }

    fn merge(&mut self, other: &Summary) {
        self.positions += other.positions;
        self.judged += other.judged;
        self.solved += other.solved;
        self.time += other.time;
        self.solution_ms += other.solution_ms;
        self.points += other.points;
        self.max_points += other.max_points;
        self.bad_lines += other.bad_lines;
        self.repaired += other.repaired;
    }

    fn percent(&self) -> f64 {
        percent(self.solved as u64, self.judged as u64)
    }

    fn mean_time_ms(&self) -> u64 {
        (self.time.as_millis() / (self.positions.max(1) as u128)) as u64
    }

    fn mean_solution_ms(&self) -> Option<u64> {
        (self.solved > 0).then(|| self.solution_ms / self.solved as u64)
    }

    fn text(&self, name: &str) -> String {
        let mut line = format!(
            "{name}: solved {}/{} ({:.1}%), time {:.1} s total, {} ms mean",
            self.solved,
            self.judged,
            self.percent(),
            self.time.as_secs_f64(),
            self.mean_time_ms()
        );
        if let Some(ms) = self.mean_solution_ms() {
            let _ = write!(line, ", time to solution {ms} ms mean");
        }
        if self.max_points > 0 {
            let _ = write!(
                line,
                "; points {}/{} ({:.1}%)",
                self.points,
                self.max_points,
                percent(self.points.into(), self.max_points.into())
            );
        }
        let unjudged = self.positions - self.judged;
        if unjudged > 0 {
            let _ = write!(line, "; {unjudged} without target");
        }
        if self.bad_lines > 0 {
            let _ = write!(line, "; {} invalid lines skipped", self.bad_lines);
        }
        if self.repaired > 0 {
            let _ = write!(line, "; {} with a repaired FEN", self.repaired);
        }
        line
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// A file as read: its records, or why it could not be read.
struct Suite {
    path: PathBuf,
    parsed: io::Result<EpdFile>,
}

/// Runs `sessa epd`.
pub fn run(args: &EpdArgs) -> ExitCode {
    let mut workers = match args.engines.workers("epd") {
        Ok(workers) => workers,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out = match open_output(args.out.as_deref()) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };

    let suites: Vec<Suite> = args
        .files
        .iter()
        .map(|path| Suite {
            path: path.clone(),
            parsed: std::fs::read(path)
                .map(|bytes| EpdFile::parse(&String::from_utf8_lossy(&bytes))),
        })
        .collect();
    let mut all_read = true;
    for suite in &suites {
        match &suite.parsed {
            Ok(file) => report_bad_lines(&suite.path, &file.errors),
            Err(e) => {
                eprintln!("error: {}: {e}", suite.path.display());
                all_read = false;
            }
        }
    }
    let total: usize = suites
        .iter()
        .filter_map(|s| s.parsed.as_ref().ok())
        .map(|f| f.records.len())
        .sum();
    let progress = progress_bar(total);
    let mut report = report::new(args.format, out, progress.clone());
    let limits = args.limit.limits();
    let mut overall = Summary::default();
    let stop = Stop::new();
    let mut written = Ok(());
    keep_first_error(&mut written, &stop, || report.begin(args));
    for suite in &suites {
        let name = suite.path.display().to_string();
        let short_name = suite
            .path
            .file_name()
            .map_or_else(|| name.clone(), |n| n.to_string_lossy().into_owned());
        let file = match &suite.parsed {
            Ok(file) => file,
            Err(e) => {
                keep_first_error(&mut written, &stop, || report.unreadable_file(&name, e));
                continue;
            }
        };
        keep_first_error(&mut written, &stop, || {
            report.begin_file(&name, file.records.len())
        });
        let mut summary = Summary {
            bad_lines: file.errors.len(),
            ..Summary::default()
        };
        let work = |engine: &mut Engine, record: &EpdRecord| {
            search_position(engine, record, &limits, &stop)
        };
        workers.run_in_order(&file.records, &stop, work, |_, outcome| {
            summary.add(&outcome);
            progress.inc(1);
            progress.set_message(format!(
                "{short_name}: {}/{} solved",
                summary.solved, summary.judged
            ));
            keep_first_error(&mut written, &stop, || report.position(&name, &outcome));
        });
        keep_first_error(&mut written, &stop, || {
            report.end_file(&name, &summary, &file.errors)
        });
        overall.merge(&summary);
    }
    keep_first_error(&mut written, &stop, || {
        report.finish(&overall, suites.len())
    });
    progress.finish_and_clear();
    if let Err(e) = written
        && !is_closed_pipe(&e)
    {
        eprintln!("error: writing the results: {e}");
        return ExitCode::FAILURE;
    }
    if all_read {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs `write` unless an earlier write failed; keeps the first error, and
/// stops the run on it: results that cannot be written need no search.
fn keep_first_error(
    written: &mut io::Result<()>,
    stop: &Stop,
    write: impl FnOnce() -> io::Result<()>,
) {
    if written.is_ok() {
        *written = write();
        if written.is_err() {
            stop.request();
        }
    }
}

fn report_bad_lines(path: &Path, errors: &[EpdLineError]) {
    for error in errors.iter().take(BAD_LINES_SHOWN) {
        eprintln!(
            "warning: {}:{}: {}",
            path.display(),
            error.line,
            error.error
        );
    }
    if errors.len() > BAD_LINES_SHOWN {
        eprintln!(
            "warning: {}: {} more invalid lines",
            path.display(),
            errors.len() - BAD_LINES_SHOWN
        );
    }
}

/// Searches one position and judges the answer; a stop request cuts the
/// search short.
fn search_position(
    engine: &mut Engine,
    record: &EpdRecord,
    limits: &Limits,
    stop: &Stop,
) -> Outcome {
    let board = &record.board;
    engine.new_game();
    engine.set_position(board.clone());
    let started = Instant::now();
    let mut last_info = None;
    // Time of the first report of the current run of right answers.
    let mut right_since = None;
    let mut best = None;
    let mut time = None;
    search(engine, limits, stop, |event| match event {
        SearchEvent::Info(info) => {
            let pv_move = info
                .pv
                .first()
                .and_then(|text| board.parse_uci_move(text).ok());
            if record.is_solved(pv_move, Some(info.score)) {
                right_since.get_or_insert(info.time_ms);
            } else {
                right_since = None;
            }
            last_info = Some(info);
        }
        SearchEvent::BestMove {
            best: move_text, ..
        } => {
            best = move_text;
            time = Some(started.elapsed());
        }
        SearchEvent::Failure(message) => eprintln!("error: {message} ({})", board.fen()),
        SearchEvent::CurrentMove { .. } => {}
    });
    let time = time.unwrap_or_else(|| started.elapsed());

    let played = best
        .as_deref()
        .and_then(|text| board.parse_uci_move(text).ok());
    let score = last_info.as_ref().map(|info| info.score);
    let verdict = if !record.has_target() {
        Verdict::NoTarget
    } else if record.is_solved(played, score) {
        Verdict::Solved {
            after_ms: right_since.unwrap_or(time.as_millis() as u64),
        }
    } else {
        Verdict::Failed
    };
    Outcome {
        line: record.line,
        id: record
            .id
            .clone()
            .unwrap_or_else(|| format!("line {}", record.line)),
        expected: describe_target(record),
        played_san: played.map_or_else(|| "(none)".to_string(), |m| san(record, m)),
        played_uci: best.unwrap_or_else(|| "(none)".to_string()),
        score,
        depth: last_info.as_ref().map_or(0, |info| info.depth),
        nodes: last_info.as_ref().map_or(0, |info| info.nodes),
        time,
        verdict,
        points: record
            .max_points()
            .map(|max| (played.map_or(0, |m| record.points_for(m)), max)),
        repairs: record.repairs.iter().map(ToString::to_string).collect(),
    }
}

fn san(record: &EpdRecord, m: Move) -> String {
    SanPlus::from_move(record.board.position().clone(), m).to_string()
}

/// The target in EPD terms: `bm Qg6 Rf3; am Rd6; dm 3`.
fn describe_target(record: &EpdRecord) -> String {
    let moves = |moves: &[Move]| {
        moves
            .iter()
            .map(|&m| san(record, m))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut parts = Vec::new();
    if !record.best_moves.is_empty() {
        parts.push(format!("bm {}", moves(&record.best_moves)));
    }
    if !record.avoid_moves.is_empty() {
        parts.push(format!("am {}", moves(&record.avoid_moves)));
    }
    if let Some(mate) = record.mate {
        parts.push(format!("dm {mate}"));
    }
    if parts.is_empty() && record.max_points().is_some() {
        parts.push("c0 points".to_string());
    }
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join("; ")
    }
}
