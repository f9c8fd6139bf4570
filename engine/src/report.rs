//! What a search reports: the events a running search sends (iterations,
//! the root move being searched, failures, the best move) and how a finished
//! iteration's lines become them, in UCI notation and with the win/draw/loss
//! chances of their scores. The library never prints; the `sessa` binary
//! writes these events as UCI.

use crate::board::Board;
use crate::score::{ReportedScore, Score, is_decisive};
use crate::wdl::{Wdl, material};
use crossbeam::channel::Sender;
use shakmaty::{Move, Position};
use std::time::Duration;

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
    /// Nodes searched by the thread that found it.
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

/// How far a search has come, as every `info` line about it says.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Nodes of all threads.
    pub nodes: u64,
    /// Tablebase probes of all threads.
    pub tbhits: u64,
    /// Time since `go`.
    pub elapsed: Duration,
    /// Table use in permill.
    pub hashfull: u32,
}

/// What the `info` lines about a finished iteration say.
pub struct IterationReport<'a> {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// The lines, best first.
    pub lines: &'a [PvLine],
    /// The search's counters at the time of the report.
    pub progress: Progress,
}

/// Sends the reports of an iteration searched from `root` to `events`, one
/// `info` per line, numbered from 1 in the order given. The receiver only
/// goes away when the engine shuts down, so a failed send is ignored.
pub fn send_iteration(events: &Sender<SearchEvent>, root: &Board, report: IterationReport<'_>) {
    for info in iteration_infos(root, report) {
        let _ = events.send(SearchEvent::Info(info));
    }
}

/// Builds the UCI reports of an iteration searched from `root`, one per
/// line, numbered from 1 in the order given.
fn iteration_infos(root: &Board, report: IterationReport<'_>) -> Vec<SearchInfo> {
    let Progress {
        nodes,
        tbhits,
        elapsed,
        hashfull,
    } = report.progress;
    let ms = elapsed.as_millis() as u64;
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
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull,
            tbhits,
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

/// The best move and the expected reply of `result`, searched from `board`,
/// in UCI notation.
pub fn result_to_uci(board: &Board, result: &SearchResult) -> (Option<String>, Option<String>) {
    let best = result.best.map(|m| board.move_to_uci(m));
    let ponder = result.best.zip(result.ponder).map(|(b, p)| {
        let mut after = board.clone();
        after.make(b);
        after.move_to_uci(p)
    });
    (best, ponder)
}
