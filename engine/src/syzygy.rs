//! Syzygy endgame tablebases, read with the `shakmaty-syzygy` crate.
//!
//! WDL tables tell whether a position is won, drawn or lost, with the
//! 50-move rule in mind (a *cursed* win is a win that the rule turns into a
//! draw, a *blessed* loss its mirror image). DTZ tables tell how many plies
//! the winning side needs to the next capture or pawn move (which resets the
//! 50-move counter) while keeping the result.
//!
//! The tables serve twice, as in Stockfish:
//!
//! - At the root, when it has few enough pieces, every move is ranked by
//!   DTZ (or by WDL when DTZ tables are missing) from the position's move
//!   counter and history: a win that the 50-move rule cannot spoil, then
//!   wins it might, draws, losses that the rule might save, and plain losses.
//!   The search looks at the best-ranked moves first and chooses among them,
//!   so a won position is converted in time and a drawn one is held.
//! - In the search, after a capture or pawn move into a position the tables
//!   cover, a WDL probe gives a score that replaces searching on: a win
//!   scores [`TB_WIN`] less the ply, below the mate scores, so that a mate
//!   the search proves still counts for more.
//!
//! The tables are loaded once per `SyzygyPath` and shared read-only by every
//! search thread; files are opened and read on demand. A file whose header
//! is not a Syzygy table's is refused when the tables are loaded; a table
//! that fails later, when it is probed, is counted and reported after the
//! search (see [`Tablebases::take_probe_failures`]), and the other tables
//! are still used.

use crate::board::Board;
use crate::draw::game_state;
use crate::score::{Score, TB_WIN};
use crate::tt::Bound;
use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Dtz, MaybeRounded, Metric, SyzygyError, Tablebase, Wdl};
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The rank of a root move that keeps a certain win; ranks between half of
/// it and it are wins, negative ranks losses (Stockfish's `MAX_DTZ`).
const MAX_DTZ: i32 = 1 << 18;
/// Score of a cursed win found in the search with the 50-move rule on: a
/// draw, nudged towards the side that would win without the rule.
const CURSED_WIN_SCORE: Score = 2;
/// The first bytes of a WDL table file of standard chess.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
/// The first bytes of a DTZ table file of standard chess.
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Tables loaded from the folders of a `SyzygyPath`.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
    problems: Vec<String>,
    /// The files loaded, to name a table that fails when probed.
    files: Vec<PathBuf>,
    /// Probes that failed since the last report, by table file.
    probe_failures: Mutex<BTreeMap<String, ProbeFailures>>,
}

/// The failed probes of one table file since the last report.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProbeFailures {
    count: u64,
    first_error: String,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases")
            .field("wdl_files", &self.wdl_files)
            .field("dtz_files", &self.dtz_files)
            .field("max_pieces", &self.max_pieces())
            .finish()
    }
}

/// Why no table could be loaded from a `SyzygyPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablebaseError {
    /// The folder list given.
    pub paths: String,
    /// What went wrong with each folder or file, if anything did.
    pub problems: Vec<String>,
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no Syzygy tables found in '{}'", self.paths)?;
        if !self.problems.is_empty() {
            write!(f, " ({})", self.problems.join("; "))?;
        }
        Ok(())
    }
}

impl std::error::Error for TablebaseError {}

impl Tablebases {
    /// Loads every table (`.rtbw` and `.rtbz` file) in the folders of
    /// `paths`, separated as in `PATH`: by `:` on Unix, by `;` on Windows.
    /// Folders or files that cannot be read are skipped and listed in
    /// [`Tablebases::problems`]; it is an error only when no table is found.
    pub fn open(paths: &str) -> Result<Tablebases, TablebaseError> {
        let mut tables = Tablebase::new();
        let (mut wdl_files, mut dtz_files) = (0, 0);
        let mut problems = Vec::new();
        let mut files = Vec::new();
        for folder in std::env::split_paths(paths) {
            if folder.as_os_str().is_empty() {
                continue;
            }
            let entries = match std::fs::read_dir(&folder) {
                Ok(entries) => entries,
                Err(e) => {
                    problems.push(format!("{}: {e}", folder.display()));
                    continue;
                }
            };
            for path in entries.flatten().map(|entry| entry.path()) {
                let wdl = match path.extension().and_then(|e| e.to_str()) {
                    Some("rtbw") => true,
                    Some("rtbz") => false,
                    _ => continue,
                };
                let magic = if wdl { WDL_MAGIC } else { DTZ_MAGIC };
                match check_header(&path, magic).and_then(|()| tables.add_file(&path)) {
                    Ok(()) if wdl => wdl_files += 1,
                    Ok(()) => dtz_files += 1,
                    Err(e) => {
                        problems.push(format!("{}: {e}", path.display()));
                        continue;
                    }
                }
                files.push(path);
            }
        }
        if wdl_files + dtz_files == 0 {
            return Err(TablebaseError {
                paths: paths.to_string(),
                problems,
            });
        }
        Ok(Tablebases {
            tables,
            wdl_files,
            dtz_files,
            problems,
            files,
            probe_failures: Mutex::new(BTreeMap::new()),
        })
    }

    /// WDL table files found.
    pub fn wdl_files(&self) -> usize {
        self.wdl_files
    }

    /// DTZ table files found.
    pub fn dtz_files(&self) -> usize {
        self.dtz_files
    }

    /// Pieces (kings included) of the largest table found.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// The folders and files that were skipped while loading, and why.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The WDL value of `pos`, just after a zeroing move; `None` when the
    /// tables do not have it or it cannot be read (then noted).
    fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        self.tables
            .probe_wdl_after_zeroing(pos)
            .map_err(|e| self.note_probe_error(&e))
            .ok()
    }

    /// The DTZ value of `pos`; `None` when the tables do not have it or it
    /// cannot be read (then noted).
    fn probe_dtz(&self, pos: &Chess) -> Option<MaybeRounded<Dtz>> {
        self.tables
            .probe_dtz(pos)
            .map_err(|e| self.note_probe_error(&e))
            .ok()
    }

    /// Notes a failed probe. A missing table, castling rights or too many
    /// pieces only mean that the tables do not cover the position; any other
    /// error is a table that cannot be read, counted under its file.
    fn note_probe_error(&self, error: &SyzygyError) {
        let SyzygyError::ProbeFailed {
            metric, material, ..
        } = error
        else {
            return;
        };
        let extension = match metric {
            Metric::Wdl => "rtbw",
            Metric::Dtz => "rtbz",
        };
        let name = format!("{material}.{extension}");
        let file = self
            .files
            .iter()
            .find(|path| path.file_name().is_some_and(|f| f == name.as_str()))
            .map_or(name, |path| path.display().to_string());
        let mut failures = self
            .probe_failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        failures
            .entry(file)
            .and_modify(|failures| failures.count += 1)
            .or_insert_with(|| ProbeFailures {
                count: 1,
                first_error: error.to_string(),
            });
    }

    /// Describes, one line per table file, the probes that failed since the
    /// last call, and forgets them: the search reports them after its move.
    pub fn take_probe_failures(&self) -> Vec<String> {
        let mut failures = self
            .probe_failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *failures)
            .into_iter()
            .map(|(file, failures)| {
                format!(
                    "Syzygy table {file}: {} failed probes ({}); the other tables are still used",
                    failures.count, failures.first_error
                )
            })
            .collect()
    }
}

/// Checks that the file at `path` can be read and starts with `magic`, so
/// that a damaged or foreign file is refused when the tables are loaded
/// rather than counted as a table.
fn check_header(path: &Path, magic: [u8; 4]) -> std::io::Result<()> {
    let mut header = [0; 4];
    std::fs::File::open(path)?.read_exact(&mut header)?;
    if header == magic {
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a Syzygy table (wrong header)",
        ))
    }
}

/// How the engine uses tablebases: the `Syzygy...` UCI options.
#[derive(Debug, Clone)]
pub struct TablebaseOptions {
    /// The tables, when some are loaded (`SyzygyPath`).
    pub tables: Option<Arc<Tablebases>>,
    /// Least depth left at which the search probes (`SyzygyProbeDepth`).
    pub probe_depth: i32,
    /// Most pieces, kings included, of a position probed (`SyzygyProbeLimit`).
    pub probe_limit: usize,
    /// Whether the 50-move rule counts, so that cursed wins and blessed
    /// losses are draws (`Syzygy50MoveRule`).
    pub fifty_move_rule: bool,
}

impl Default for TablebaseOptions {
    fn default() -> TablebaseOptions {
        TablebaseOptions {
            tables: None,
            probe_depth: 1,
            probe_limit: 7,
            fifty_move_rule: true,
        }
    }
}

/// What the tables say about one root move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootRank {
    /// The move.
    pub mv: Move,
    /// Higher is better; moves of equal rank keep the same result.
    pub rank: i32,
    /// The score to report for the move unless the search proves a mate.
    pub score: Score,
}

/// What the tables bring to one search.
#[derive(Debug, Clone, Default)]
pub struct TablebasePlan {
    /// The rank of every legal root move when the root is in the tables;
    /// empty otherwise.
    pub root: Vec<RootRank>,
    /// How the search probes, when it does.
    pub probe: Option<TablebaseProbe>,
}

/// The probes of a search below the root.
#[derive(Debug, Clone)]
pub struct TablebaseProbe {
    tables: Arc<Tablebases>,
    pieces: usize,
    depth: i32,
    fifty_move_rule: bool,
}

impl TablebaseOptions {
    /// Plans the use of the tables by a search from `root`. When the root
    /// is in the tables its moves are ranked; with DTZ the ranking alone
    /// keeps the result, so the search does not probe further (it may then
    /// prove a mate), and with WDL only it probes on while the root is won.
    pub fn plan(&self, root: &Board) -> TablebasePlan {
        let Some(tables) = &self.tables else {
            return TablebasePlan::default();
        };
        let pieces = self.probe_limit.min(tables.max_pieces());
        if pieces == 0 {
            return TablebasePlan::default();
        }
        let probe = TablebaseProbe {
            tables: Arc::clone(tables),
            pieces,
            depth: self.probe_depth,
            fifty_move_rule: self.fifty_move_rule,
        };
        if !probe.covers(root.position()) {
            return TablebasePlan {
                root: Vec::new(),
                probe: Some(probe),
            };
        }
        if let Some(ranks) = rank_by_dtz(tables, root, self.fifty_move_rule) {
            return TablebasePlan {
                root: ranks,
                probe: None,
            };
        }
        match rank_by_wdl(tables, root, self.fifty_move_rule) {
            Some(ranks) => {
                let won = ranks.iter().any(|r| r.score > 0);
                TablebasePlan {
                    root: ranks,
                    probe: won.then_some(probe),
                }
            }
            None => TablebasePlan {
                root: Vec::new(),
                probe: Some(probe),
            },
        }
    }
}

impl TablebaseProbe {
    /// Whether the tables may hold `pos`: few enough pieces, no castling.
    fn covers(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.pieces && !pos.castles().any()
    }

    /// The tables' verdict on a search node `ply` plies from the root with
    /// `depth` left: a score from the side to move's point of view and what
    /// it bounds (exact for draws, at least a win, at most a loss). `None`
    /// when the node is not probed: its move counter is not zero (the WDL
    /// tables assume a capture or pawn move just reset it), too little depth
    /// is left, the tables do not cover it or miss its table, or the side to
    /// move is checkmated (the search scores that as a mate).
    pub fn probe(&self, board: &Board, depth: i32, ply: usize) -> Option<(Score, Bound)> {
        if board.halfmove_clock() != 0 || depth < self.depth || !self.covers(board.position()) {
            return None;
        }
        let pos = board.position();
        let wdl = self.tables.probe_wdl(pos)?;
        if wdl == Wdl::Loss && pos.is_checkmate() {
            return None;
        }
        Some(wdl_score(wdl, ply, self.fifty_move_rule))
    }
}

/// The search score and bound of a WDL result `ply` plies from the root.
fn wdl_score(wdl: Wdl, ply: usize, fifty_move_rule: bool) -> (Score, Bound) {
    let win = TB_WIN - ply as Score;
    match (wdl, fifty_move_rule) {
        (Wdl::Win, _) | (Wdl::CursedWin, false) => (win, Bound::Lower),
        (Wdl::Loss, _) | (Wdl::BlessedLoss, false) => (-win, Bound::Upper),
        (Wdl::CursedWin, true) => (CURSED_WIN_SCORE, Bound::Exact),
        (Wdl::BlessedLoss, true) => (-CURSED_WIN_SCORE, Bound::Exact),
        (Wdl::Draw, _) => (0, Bound::Exact),
    }
}

/// The position after the root move `mv`, with the game history.
fn child(root: &Board, mv: Move) -> Board {
    let mut child = root.clone();
    child.make(mv);
    child
}

/// Ranks the root moves by DTZ (Stockfish's `root_probe`): certain wins
/// rank equally unless the position already repeated (then the faster
/// conversion ranks higher, so that the game moves on); wins that the 50-move
/// counter may spoil rank by how much room they leave; losses rank equally
/// unless the 50-move rule may save one, and then by how long they last.
/// `None` when a table is missing or cannot be read.
fn rank_by_dtz(tables: &Tablebases, root: &Board, fifty_move_rule: bool) -> Option<Vec<RootRank>> {
    let halfmoves = root.halfmove_clock() as i32;
    let repeated = root.has_repeated();
    let bound = if fifty_move_rule {
        MAX_DTZ / 2 - 100
    } else {
        1
    };
    let mut ranks = Vec::new();
    for &mv in &root.legal_moves() {
        let after = child(root, mv);
        let pos = after.position();
        // Plies from the root to the next zeroing move, negative when the
        // side to move at the root loses.
        let dtz = if pos.halfmoves() == 0 {
            Dtz::before_zeroing(-tables.probe_wdl(pos)?).0
        } else if game_state(&after).is_draw() {
            // A third repetition or the 50-move rule ends the game at once.
            0
        } else {
            let Dtz(plies) = -tables.probe_dtz(pos)?.ignore_rounding();
            plies + plies.signum()
        };
        // A mate is the fastest conversion there is.
        let dtz = if dtz == 2 && pos.is_checkmate() {
            1
        } else {
            dtz
        };
        let rank = if dtz > 0 {
            if dtz + halfmoves <= 99 && !repeated {
                MAX_DTZ
            } else {
                MAX_DTZ / 2 - (dtz + halfmoves)
            }
        } else if dtz < 0 {
            if -dtz * 2 + halfmoves < 100 {
                -MAX_DTZ
            } else {
                -MAX_DTZ / 2 + (-dtz + halfmoves)
            }
        } else {
            0
        };
        // Wins the 50-move rule may spoil score 1 to 49 cp, the more the
        // closer they are to a real win; losses it may save likewise.
        let score = if rank >= bound {
            TB_WIN - 1
        } else if rank > 0 {
            (rank - (MAX_DTZ / 2 - 200)).max(3) * 100 / 200
        } else if rank == 0 {
            0
        } else if rank > -bound {
            (rank + (MAX_DTZ / 2 - 200)).min(-3) * 100 / 200
        } else {
            -(TB_WIN - 1)
        };
        ranks.push(RootRank { mv, rank, score });
    }
    Some(ranks)
}

/// Ranks the root moves by WDL alone (Stockfish's `root_probe_wdl`), for
/// tables without DTZ files. `None` when a table is missing or cannot be read.
fn rank_by_wdl(tables: &Tablebases, root: &Board, fifty_move_rule: bool) -> Option<Vec<RootRank>> {
    let mut ranks = Vec::new();
    for &mv in &root.legal_moves() {
        let after = child(root, mv);
        let wdl = if game_state(&after).is_draw() {
            Wdl::Draw
        } else {
            -tables.probe_wdl(after.position())?
        };
        let (rank, score) = match wdl {
            Wdl::Win => (MAX_DTZ, TB_WIN - 1),
            Wdl::CursedWin => (MAX_DTZ - 101, wdl_score(wdl, 1, fifty_move_rule).0),
            Wdl::Draw => (0, 0),
            Wdl::BlessedLoss => (-MAX_DTZ + 101, wdl_score(wdl, 1, fifty_move_rule).0),
            Wdl::Loss => (-MAX_DTZ, -(TB_WIN - 1)),
        };
        ranks.push(RootRank { mv, rank, score });
    }
    Some(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_scores_follow_the_fifty_move_rule_setting() {
        assert_eq!(wdl_score(Wdl::Win, 3, true), (TB_WIN - 3, Bound::Lower));
        assert_eq!(wdl_score(Wdl::Loss, 4, false), (-TB_WIN + 4, Bound::Upper));
        assert_eq!(wdl_score(Wdl::Draw, 2, true), (0, Bound::Exact));
        // With the rule a cursed win is a draw with a nudge; without, a win.
        assert_eq!(
            wdl_score(Wdl::CursedWin, 5, true),
            (CURSED_WIN_SCORE, Bound::Exact)
        );
        assert_eq!(
            wdl_score(Wdl::CursedWin, 5, false),
            (TB_WIN - 5, Bound::Lower)
        );
        assert_eq!(
            wdl_score(Wdl::BlessedLoss, 5, true),
            (-CURSED_WIN_SCORE, Bound::Exact)
        );
        assert_eq!(
            wdl_score(Wdl::BlessedLoss, 5, false),
            (-TB_WIN + 5, Bound::Upper)
        );
    }
}
