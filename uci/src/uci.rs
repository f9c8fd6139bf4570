//! The UCI front end: reads commands from stdin on their own thread, drives
//! the engine, and writes its reports to stdout.
//!
//! A reader thread blocks on stdin and forwards each line over a channel. The
//! controller waits on that channel and on the engine's event channel at once,
//! so it answers `isready` at any time, also during a search, and it is the
//! only writer of stdout.

use crate::options::{EMPTY_PATH, EngineOption, INTERNAL_NETWORK, OPTIONS, OptionError};
use crossbeam::channel::{Receiver, Sender, select, unbounded};
use sessa_engine::draw::game_state;
use sessa_engine::nnue::{Kernel, Network};
use sessa_engine::perft::divide;
use sessa_engine::score::ReportedScore;
use sessa_engine::syzygy::Tablebases;
use sessa_engine::wdl::Wdl;
use sessa_engine::{Board, Engine, Repair};
use sessa_engine::{Limits, SearchEvent, SearchInfo};
use shakmaty::{CastlingMode, Color, Position};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A line of input and when it was read.
#[derive(Debug, Clone)]
pub struct Input {
    /// The text, line end included.
    pub line: String,
    /// When the line was read: the clock of a `go` or `ponderhit` runs from
    /// here, however long the session takes to get to it.
    pub received: Instant,
}

impl Input {
    /// A line read now.
    pub fn now(line: impl Into<String>) -> Input {
        Input {
            line: line.into(),
            received: Instant::now(),
        }
    }
}

/// Reads stdin line by line until it ends; end of input counts as `quit`.
/// Bytes that are not UTF-8 are replaced, so a line is never lost.
fn spawn_reader(lines: Sender<Input>) {
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match input.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buffer).into_owned();
                        if lines.send(Input::now(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = lines.send(Input::now("quit"));
        })
        .expect("spawning the stdin reader");
}

/// The state of the UCI session.
pub struct Session {
    engine: Engine,
    events_tx: Sender<SearchEvent>,
    events_rx: Receiver<SearchEvent>,
    /// Where answers go: stdout for a GUI, a buffer in tests.
    out: Box<dyn Write + Send>,
    /// Why the last `position` command was refused. While set the engine
    /// holds no position: `go` answers `bestmove (none)` at once, so that
    /// no move of an older position is ever played by mistake.
    refused_position: Option<String>,
    chess960: bool,
    debug: bool,
    /// `UCI_ShowWDL`.
    show_wdl: bool,
    /// `UCI_LimitStrength`.
    limit_strength: bool,
    /// `UCI_Elo`.
    elo: u32,
    /// `Debug Log File`, while one is open.
    log: Option<File>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// Whether the session goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

impl Session {
    /// A session with a fresh engine that answers on stdout.
    pub fn new() -> Session {
        Session::with_output(Box::new(std::io::stdout()))
    }

    /// A session with a fresh engine that writes its answers to `out`.
    pub fn with_output(out: Box<dyn Write + Send>) -> Session {
        let (events_tx, events_rx) = unbounded();
        Session {
            engine: Engine::new(),
            events_tx,
            events_rx,
            out,
            refused_position: None,
            chess960: false,
            debug: false,
            show_wdl: false,
            limit_strength: false,
            elo: sessa_engine::strength::MIN_ELO,
            log: None,
        }
    }

    /// Runs the UCI loop on stdin until `quit` or the end of input.
    pub fn run(self) {
        let (lines_tx, lines_rx) = unbounded();
        spawn_reader(lines_tx);
        self.serve(&lines_rx);
    }

    /// Handles the lines of `lines` and the search's reports as they come,
    /// until `quit` or until `lines` closes. A search still running then is
    /// stopped and nothing more is written: the GUI has said goodbye.
    pub fn serve(mut self, lines: &Receiver<Input>) {
        loop {
            select! {
                recv(lines) -> input => {
                    let Ok(input) = input else { break };
                    if self.handle(&input.line, input.received) == Flow::Quit {
                        break;
                    }
                }
                recv(self.events_rx) -> event => {
                    if let Ok(event) = event {
                        self.report(event);
                    }
                }
            }
        }
        self.engine.stop();
        self.engine.wait();
    }

    /// Writes one line and flushes it. A failed write means the GUI is gone:
    /// the process ends quietly.
    fn send(&mut self, line: &str) {
        self.log_line("<< ", line);
        if writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    }

    /// Appends a line to the `Debug Log File`, if one is open, after `mark`
    /// (`>> ` for input, `<< ` for output). A failed write is not reported:
    /// the log must never disturb the conversation.
    fn log_line(&mut self, mark: &str, line: &str) {
        if let Some(log) = &mut self.log {
            let _ = log.write_all(format!("{mark}{line}\n").as_bytes());
        }
    }

    /// Opens the `Debug Log File` at `path` for appending, closing the one
    /// open before; `<empty>` or no path turns logging off. A file that
    /// cannot be opened is an error and leaves logging off.
    fn set_debug_log(&mut self, path: &str) -> Result<(), OptionError> {
        self.log = None;
        if path.is_empty() || path == EMPTY_PATH {
            return Ok(());
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| OptionError(format!("Debug Log File '{path}': {e}; logging off")))?;
        self.log = Some(file);
        Ok(())
    }

    /// Reports a problem with the input to the GUI without stopping.
    fn error(&mut self, message: impl std::fmt::Display) {
        self.send(&format!("info string error: {message}"));
    }

    fn report(&mut self, event: SearchEvent) {
        let line = match event {
            SearchEvent::Info(info) => format_info(&info, self.show_wdl),
            SearchEvent::Failure(message) => format!("info string error: {message}"),
            SearchEvent::CurrentMove { depth, mv, number } => {
                format!("info depth {depth} currmove {mv} currmovenumber {number}")
            }
            SearchEvent::BestMove { best, ponder } => match (best, ponder) {
                (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
                (Some(best), None) => format!("bestmove {best}"),
                (None, _) => "bestmove (none)".to_string(),
            },
        };
        self.send(&line);
    }

    /// Handles one input line, read at `received`.
    pub fn handle(&mut self, line: &str, received: Instant) -> Flow {
        self.log_line(">> ", line.trim_end_matches(['\r', '\n']));
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return Flow::Continue;
        };
        match command {
            "uci" => self.uci(),
            "isready" => self.send("readyok"),
            "debug" => self.debug = args.first() != Some(&"off"),
            "setoption" => self.set_option(&line.trim_start()[command.len()..]),
            "ucinewgame" => self.engine.new_game(),
            "position" => self.position(args),
            "go" => self.go(args, received),
            "stop" => self.engine.stop(),
            "ponderhit" => self.engine.ponderhit(received),
            "quit" => return Flow::Quit,
            "d" => self.display(),
            "eval" => self.eval(),
            "perft" => self.perft("perft", args),
            "bench" => self.bench(args),
            // Other protocols' commands (xboard, protover, ...) and unknown words.
            _ => {
                if self.debug {
                    self.send(&format!("info string ignored unknown command '{command}'"));
                }
            }
        }
        Flow::Continue
    }

    fn uci(&mut self) {
        self.send(&format!("id name Sessa {}", env!("CARGO_PKG_VERSION")));
        self.send("id author The Sessa developers");
        for option in OPTIONS {
            self.send(&option.declaration());
        }
        #[cfg(feature = "tune")]
        for t in sessa_engine::params::TUNABLES {
            self.send(&format!(
                "option name {} type spin default {} min {} max {}",
                t.name, t.value, t.min, t.max
            ));
        }
        self.send("uciok");
    }

    /// Sets a search tunable (a tuning build offers each as a spin option).
    #[cfg(feature = "tune")]
    fn set_tunable(&mut self, name: &str, value: &str) {
        let result = value
            .trim()
            .parse::<i32>()
            .map_err(|_| format!("{name} needs a number, got '{value}'"))
            .and_then(|v| sessa_engine::params::set_tunable(name, v).map_err(|e| e.to_string()));
        if let Err(e) = result {
            self.error(e);
        }
    }

    fn set_option(&mut self, args: &str) {
        let (name, value) = match parse_setoption(args) {
            Some(parts) => parts,
            None => return self.error("setoption needs 'name <id> [value <x>]'"),
        };
        let option = match EngineOption::find(&name) {
            Some(option) => option,
            #[cfg(feature = "tune")]
            None => return self.set_tunable(&name, &value),
            #[cfg(not(feature = "tune"))]
            None => return self.error(format!("unknown option '{name}'")),
        };
        let result = match option {
            EngineOption::Hash => option.parse_spin(&value).and_then(|mb| {
                self.engine.set_hash(mb as usize).map_err(|e| {
                    OptionError(format!(
                        "{e}; Hash stays at {} MB with its contents",
                        self.engine.hash_megabytes()
                    ))
                })
            }),
            EngineOption::Threads => option
                .parse_spin(&value)
                .map(|n| self.engine.set_threads(n as usize)),
            EngineOption::ClearHash => {
                // A cleared engine forgets its histories too, so that an
                // analysis can be repeated from a clean state.
                self.engine.new_game();
                Ok(())
            }
            EngineOption::MoveOverhead => option.parse_spin(&value).map(|ms| {
                self.engine
                    .set_move_overhead(Duration::from_millis(ms as u64))
            }),
            EngineOption::ClockDelay => option.parse_spin(&value).map(|ms| {
                self.engine
                    .set_clock_delay(Duration::from_millis(ms as u64))
            }),
            EngineOption::MultiPv => option
                .parse_spin(&value)
                .map(|lines| self.engine.set_multipv(lines as usize)),
            EngineOption::Ponder => option.parse_check(&value).map(|_| ()),
            EngineOption::Chess960 => option.parse_check(&value).map(|on| self.chess960 = on),
            // Sessa analyses as it plays; the option is there for GUIs that set it.
            EngineOption::AnalyseMode => option.parse_check(&value).map(|_| ()),
            EngineOption::ShowWdl => option.parse_check(&value).map(|on| self.show_wdl = on),
            EngineOption::LimitStrength => option.parse_check(&value).map(|on| {
                self.limit_strength = on;
                self.apply_strength();
            }),
            EngineOption::Elo => option.parse_spin(&value).map(|elo| {
                self.elo = elo as u32;
                self.apply_strength();
            }),
            EngineOption::EvalFile => self.load_network(&value),
            EngineOption::SyzygyPath => {
                self.set_syzygy_path(&value);
                Ok(())
            }
            EngineOption::SyzygyProbeDepth => option.parse_spin(&value).map(|depth| {
                self.engine.tablebase_options_mut().probe_depth = depth as i32;
            }),
            EngineOption::Syzygy50MoveRule => option.parse_check(&value).map(|on| {
                self.engine.tablebase_options_mut().fifty_move_rule = on;
            }),
            EngineOption::SyzygyProbeLimit => option.parse_spin(&value).map(|pieces| {
                self.engine.tablebase_options_mut().probe_limit = pieces as usize;
            }),
            EngineOption::DebugLogFile => self.set_debug_log(&value),
        };
        if let Err(e) = result {
            self.error(e);
        }
    }

    /// Loads the tables of `SyzygyPath` before the next command is read, so
    /// that `readyok` means they are there. An empty path or `<empty>` turns
    /// them off; a path where no table is found is an error and keeps the
    /// tables loaded before.
    fn set_syzygy_path(&mut self, paths: &str) {
        if paths.is_empty() || paths == EMPTY_PATH {
            self.engine.tablebase_options_mut().tables = None;
            return self.send("info string Syzygy tablebases off");
        }
        match Tablebases::open(paths) {
            Ok(tables) => {
                for problem in tables.problems() {
                    self.error(format!("SyzygyPath: {problem}"));
                }
                self.send(&format!(
                    "info string Syzygy tablebases: {} WDL and {} DTZ tables, up to {} pieces",
                    tables.wdl_files(),
                    tables.dtz_files(),
                    tables.max_pieces()
                ));
                self.engine.tablebase_options_mut().tables = Some(Arc::new(tables));
            }
            Err(e) => self.error(format!("SyzygyPath: {e}; tablebases unchanged")),
        }
    }

    /// Passes `UCI_LimitStrength` and `UCI_Elo` on to the engine.
    fn apply_strength(&mut self) {
        self.engine
            .set_strength(self.limit_strength.then_some(self.elo));
    }

    /// Switches to the network file at `path` (or the built-in one); a file
    /// that cannot be used is refused and the current network kept.
    fn load_network(&mut self, path: &str) -> Result<(), OptionError> {
        let path = path.trim();
        let net = if path.is_empty() || path == INTERNAL_NETWORK {
            Network::embedded()
        } else {
            let net = Network::load(std::path::Path::new(path)).map_err(|e| {
                OptionError(format!(
                    "EvalFile '{path}': {e}; keeping {}",
                    self.engine.network().file_name()
                ))
            })?;
            Arc::new(net)
        };
        self.send(&format!(
            "info string EvalFile: using network {} ({})",
            net.file_name(),
            net.shape()
        ));
        self.engine.set_network(net);
        Ok(())
    }

    fn castling_mode(&self) -> CastlingMode {
        CastlingMode::from_chess960(self.chess960)
    }

    fn position(&mut self, args: &[&str]) {
        match parse_position(args, self.castling_mode()) {
            Ok((board, repairs)) => {
                for repair in repairs {
                    self.send(&format!("info string FEN repaired: {repair}"));
                }
                self.engine.set_position(board);
                self.refused_position = None;
            }
            Err(message) => {
                self.error(format!(
                    "{message}; no position until the next valid position command"
                ));
                self.refused_position = Some(message);
            }
        }
    }

    /// Says that there is no position to work on, when the last `position`
    /// was refused; `true` when there is one.
    fn has_position(&mut self, command: &str) -> bool {
        match self.refused_position.clone() {
            Some(reason) => {
                self.error(format!(
                    "{command}: no position, the last position command was refused ({reason})"
                ));
                false
            }
            None => true,
        }
    }

    fn go(&mut self, args: &[&str], received: Instant) {
        if let Some((&"perft", depth)) = args.split_first() {
            return self.perft("go perft", depth);
        }
        if !self.has_position("go") {
            // The answer goes through the event channel, after whatever a
            // search still running reports, so that each `go` gets its own
            // `bestmove` in order.
            self.engine.stop();
            self.engine.wait();
            let _ = self.events_tx.send(SearchEvent::BestMove {
                best: None,
                ponder: None,
            });
            return;
        }
        let (limits, problems) = parse_go(args);
        for problem in problems {
            self.error(problem);
        }
        for text in &limits.search_moves {
            if let Err(e) = self.engine.board().parse_uci_move(text) {
                self.error(format!("searchmoves: {e}"));
            }
        }
        if self.debug {
            self.send(&format!("info string go {limits:?}"));
        }
        self.report_game_over();
        self.engine
            .go_since(&limits, self.events_tx.clone(), received);
    }

    /// When the side to move has no legal move, the search has nothing to
    /// report before its `bestmove (none)`: says the score of the game's end,
    /// `mate 0` when mated and `cp 0` when stalemated. What an earlier search
    /// still has to report goes out first.
    fn report_game_over(&mut self) {
        let board = self.engine.board();
        if !board.legal_moves().is_empty() {
            return;
        }
        let (score, wdl) = if board.position().is_check() {
            ("mate 0", Wdl::LOSS)
        } else {
            ("cp 0", Wdl::DRAW)
        };
        self.engine.stop();
        self.engine.wait();
        while let Ok(event) = self.events_rx.try_recv() {
            self.report(event);
        }
        let wdl = if self.show_wdl {
            format_wdl(wdl)
        } else {
            String::new()
        };
        self.send(&format!("info depth 0 score {score}{wdl}"));
    }

    fn display(&mut self) {
        if !self.has_position("d") {
            return;
        }
        let board = self.engine.board().clone();
        let pos = board.position();
        let mut lines = vec![String::new()];
        for rank in (0..8).rev() {
            let mut row = format!(" {} |", rank + 1);
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                let c = pos.board().piece_at(sq).map_or('.', |p| p.char());
                row.push(' ');
                row.push(c);
            }
            lines.push(row);
        }
        lines.push("   +----------------".to_string());
        lines.push("     a b c d e f g h".to_string());
        lines.push(String::new());
        lines.push(format!("Fen: {}", board.fen()));
        lines.push(format!("Key: {:016X}", board.key()));
        let side = if pos.turn() == Color::White {
            "white"
        } else {
            "black"
        };
        lines.push(format!("Side to move: {side}"));
        let checkers: Vec<String> = pos
            .checkers()
            .into_iter()
            .map(|sq| sq.to_string())
            .collect();
        lines.push(format!("Checkers: {}", checkers.join(" ")));
        lines.push(format!("State: {:?}", game_state(&board)));
        for line in lines {
            self.send(&line);
        }
    }

    /// Prints the network's evaluation and, square by square, how much each
    /// piece other than the kings adds to it (the drop when it is removed).
    fn eval(&mut self) {
        if !self.has_position("eval") {
            return;
        }
        let net = Arc::clone(self.engine.network());
        let pos = self.engine.board().position().clone();
        let kernel = Kernel::detect();
        // The network evaluates for the side to move, as the search sees it;
        // White's view is that score, or its negation with Black to move.
        let sign = if pos.turn() == Color::White { 1 } else { -1 };
        let white_view =
            |board: &shakmaty::Board| sign * net.evaluate_board(board, pos.turn(), kernel);
        let full = white_view(pos.board());
        let mut lines = vec![format!(
            "info string eval network {} (piece values in cp, White's view)",
            net.file_name()
        )];
        for rank in (0..8).rev() {
            let mut row = format!("info string {} |", rank + 1);
            for file in 0..8 {
                let square = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                match pos.board().piece_at(square) {
                    Some(piece) if piece.role != shakmaty::Role::King => {
                        let mut without = pos.board().clone();
                        without.discard_piece_at(square);
                        row.push_str(&format!(
                            " {} {:+5}",
                            piece.char(),
                            full - white_view(&without)
                        ));
                    }
                    Some(piece) => row.push_str(&format!(" {}      ", piece.char())),
                    None => row.push_str("  .     "),
                }
            }
            lines.push(row);
        }
        lines.push(
            "info string     a       b       c       d       e       f       g       h".to_string(),
        );
        lines.push(format!("info string eval white {full} cp"));
        lines.push(format!("info string eval side to move {} cp", sign * full));
        for line in lines {
            self.send(&line);
        }
    }

    /// Counts the leaves `depth` plies below the position, per root move
    /// and in all, as Stockfish prints them; `command` names the command in
    /// error messages.
    fn perft(&mut self, command: &str, args: &[&str]) {
        let depth = match args {
            [depth] => depth.parse::<u32>().ok(),
            _ => None,
        };
        let Some(depth) = depth else {
            return self.error(format!(
                "{command} needs a depth (a whole number), got '{}'",
                args.join(" ")
            ));
        };
        if !self.has_position(command) {
            return;
        }
        let split = divide(self.engine.board(), depth);
        for (mv, count) in &split.moves {
            self.send(&format!("{mv}: {count}"));
        }
        self.send("");
        self.send(&format!("Nodes searched: {}", split.total));
    }

    fn bench(&mut self, args: &[&str]) {
        let depth = args
            .first()
            .and_then(|d| d.parse().ok())
            .unwrap_or(sessa_engine::bench::DEFAULT_DEPTH);
        let report = sessa_engine::bench::run(
            depth,
            sessa_engine::engine::DEFAULT_HASH_MB,
            self.engine.threads(),
            Arc::clone(self.engine.network()),
        );
        self.send(&format!("{} nodes {} nps", report.nodes, report.nps()));
    }
}

/// Splits the arguments of `setoption` (the text after the command) into
/// the option name and value; the keywords are matched without regard to
/// case. The name's words are joined by single spaces. The value is the text
/// after `value` as written, spaces inside kept (a folder name may hold
/// several), without the spaces around it.
pub fn parse_setoption(args: &str) -> Option<(String, String)> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let (first, rest) = words.split_first()?;
    if !first.eq_ignore_ascii_case("name") {
        return None;
    }
    let value_at = rest.iter().position(|t| t.eq_ignore_ascii_case("value"));
    let (name, value) = match value_at {
        Some(i) => (&rest[..i], text_after(args, rest[i])),
        None => (rest, ""),
    };
    if name.is_empty() {
        return None;
    }
    Some((name.join(" "), value.trim().to_string()))
}

/// The part of `text` after `word`, a slice of `text`.
fn text_after<'a>(text: &'a str, word: &str) -> &'a str {
    let end = word.as_ptr() as usize - text.as_ptr() as usize + word.len();
    &text[end..]
}

/// Builds the board a `position` command describes, with what was repaired
/// in its FEN (see [`Board::from_fen_repaired`]).
pub fn parse_position(args: &[&str], mode: CastlingMode) -> Result<(Board, Vec<Repair>), String> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let (mut board, repairs) = match setup.split_first() {
        Some((&"startpos", [])) => (Board::startpos(), Vec::new()),
        Some((&"startpos", extra)) => {
            return Err(format!("unexpected '{}' after startpos", extra.join(" ")));
        }
        Some((&"fen", fields)) if !fields.is_empty() => {
            Board::from_fen_repaired(&fields.join(" "), mode).map_err(|e| e.to_string())?
        }
        Some((&"fen", _)) => return Err("position fen needs a FEN".to_string()),
        _ => return Err("position needs 'startpos' or 'fen <FEN>'".to_string()),
    };
    for (index, text) in moves.iter().enumerate() {
        board
            .play_uci(text)
            .map_err(|e| format!("{e} at move {} of the move list", index + 1))?;
    }
    Ok((board, repairs))
}

/// Parses the arguments of `go`. Problems are reported but never stop the
/// search: a field that cannot be read is left out (a clock that cannot be
/// read counts as empty, so the engine moves at once).
pub fn parse_go(args: &[&str]) -> (Limits, Vec<String>) {
    const KEYWORDS: [&str; 12] = [
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "depth",
        "nodes",
        "mate",
        "movetime",
        "infinite",
        "ponder",
        "searchmoves",
    ];
    let mut limits = Limits::default();
    let mut problems = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while i < args.len() && !KEYWORDS.contains(&args[i]) {
                    limits.search_moves.push(args[i].to_string());
                    i += 1;
                }
            }
            "wtime" | "btime" | "winc" | "binc" | "movetime" | "movestogo" | "depth" | "nodes"
            | "mate" => {
                let value = args.get(i).copied();
                if value.is_some_and(|v| !KEYWORDS.contains(&v)) {
                    i += 1;
                }
                let number = value.and_then(|v| v.parse::<i64>().ok());
                if number.is_none() {
                    problems.push(format!("go {key} needs a number"));
                }
                let positive = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
                match key {
                    "wtime" => limits.white_time = Some(number.unwrap_or(0)),
                    "btime" => limits.black_time = Some(number.unwrap_or(0)),
                    "winc" => limits.white_increment = number,
                    "binc" => limits.black_increment = number,
                    "movetime" => limits.move_time = number,
                    "movestogo" => limits.moves_to_go = number.map(positive),
                    "depth" => limits.depth = number.map(|n| positive(n).max(1)),
                    "nodes" => limits.nodes = number.map(|n| n.max(1) as u64),
                    _ => limits.mate = number.map(|n| positive(n).max(1)),
                }
            }
            other => problems.push(format!("go: unknown field '{other}' ignored")),
        }
    }
    (limits, problems)
}

/// Formats an iteration report as a UCI `info` line; `show_wdl` adds the
/// win/draw/loss chances (`UCI_ShowWDL`).
pub fn format_info(info: &SearchInfo, show_wdl: bool) -> String {
    let score = match info.score {
        ReportedScore::Centipawns(cp) => format!("cp {cp}"),
        ReportedScore::Mate(n) => format!("mate {n}"),
    };
    let wdl = if show_wdl {
        format_wdl(info.wdl)
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {} multipv {} score {score}{wdl} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time_ms,
        info.pv.join(" ")
    )
}

/// The ` wdl W D L` part of an `info` line.
fn format_wdl(wdl: Wdl) -> String {
    format!(" wdl {} {} {}", wdl.win, wdl.draw, wdl.loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setoption_names_and_values_with_spaces() {
        assert_eq!(
            parse_setoption(" name Clear  Hash"),
            Some(("Clear Hash".into(), String::new()))
        );
        assert_eq!(
            parse_setoption(" NAME move\toverhead VALUE 100\r\n"),
            Some(("move overhead".into(), "100".into()))
        );
        assert_eq!(
            parse_setoption(" name SyzygyPath value  /tables/my  tables:/more value \n"),
            Some(("SyzygyPath".into(), "/tables/my  tables:/more value".into()))
        );
        assert_eq!(parse_setoption(" value 3"), None);
        assert_eq!(parse_setoption(" name value 3"), None);
    }

    #[test]
    fn go_fields() {
        let args: Vec<&str> =
            "wtime 1000 btime -20 winc 10 binc 10 movestogo 5 searchmoves e2e4 d2d4 depth 7"
                .split_whitespace()
                .collect();
        let (limits, problems) = parse_go(&args);
        assert!(problems.is_empty());
        assert_eq!(limits.white_time, Some(1000));
        assert_eq!(limits.black_time, Some(-20));
        assert_eq!(limits.moves_to_go, Some(5));
        assert_eq!(limits.depth, Some(7));
        assert_eq!(limits.search_moves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn malformed_go_is_reported() {
        let (limits, problems) = parse_go(&["wtime", "abc", "depth"]);
        assert_eq!(problems.len(), 2);
        assert_eq!(limits.white_time, Some(0));
        assert_eq!(limits.depth, None);
    }

    #[test]
    fn positions() {
        let board = parse_position(
            &["startpos", "moves", "e2e4", "e7e5"],
            CastlingMode::Standard,
        )
        .unwrap()
        .0;
        assert_eq!(
            board.fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        assert!(parse_position(&["startpos", "moves", "e2e5"], CastlingMode::Standard).is_err());
        assert!(parse_position(&["fen", "xyz"], CastlingMode::Standard).is_err());
        assert!(parse_position(&[], CastlingMode::Standard).is_err());
    }
}
