//! EPD (Extended Position Description) test positions: reading them and
//! judging an engine's answer.
//!
//! A record is the four position fields of a FEN (piece placement, side to
//! move, castling, en passant), optionally the two move counters, then
//! operations: an opcode and its operands, each operation ended by `;` (the
//! last one may lack it). An operand in double quotes may hold spaces and
//! semicolons. Blank lines and lines starting with `#` are skipped.
//!
//! Operations understood:
//!
//! - `bm` best moves and `am` moves to avoid, in SAN (`Nf3`, `exd8=Q+`,
//!   `O-O`) or UCI (`g1f3`), several per operation;
//! - `bm #N`, as mate collections write it: mate in `N` moves, and `#-N`: the
//!   side to move is mated in `N`;
//! - `dm N`: direct mate in `N` moves; `dm -N`: the side to move is mated in
//!   `N`; `dm 0`: the game is drawn with best play;
//! - `id`: the name of the position;
//! - `c0 "Move=points, ..."`: points per move, as the Strategic Test Suite
//!   writes them; a `c0` in any other form is a comment;
//! - `hmvc` and `fmvn`: the move counters, when the FEN part has none;
//! - `moves "..."`: moves (SAN or UCI) played from the FEN position before the
//!   position to test, so that it has a game history (repetitions).
//!
//! A position with a flaw that does not stop it from being played (castling
//! rights its pieces do not allow, an impossible en passant square) is
//! mended, and what was mended is kept in [`EpdRecord::repairs`].
//!
//! Every other operation is kept in [`EpdRecord::operations`] and otherwise
//! ignored. A line that cannot be read gives an [`EpdError`] with its line
//! number; the other lines are still read.

use crate::board::{Board, BoardError, Repair};
use crate::score::ReportedScore;
use shakmaty::san::{San, SanError};
use shakmaty::{CastlingMode, Move};
use std::fmt;

/// One operation of a record: an opcode and its operands, quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The opcode, such as `bm` or `id`.
    pub opcode: String,
    /// The operands in order; a quoted operand is one entry.
    pub operands: Vec<String>,
}

impl Operation {
    /// The operands joined by single spaces.
    pub fn text(&self) -> String {
        self.operands.join(" ")
    }
}

/// The distance to mate that a record expects (`dm` or `bm #N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistanceToMate {
    /// The side to move mates in this many moves.
    Mates(u32),
    /// The side to move is mated in this many moves.
    Mated(u32),
    /// Neither side can force mate: the game is drawn with best play.
    Draw,
}

impl DistanceToMate {
    /// Reads the moves to mate as EPD writes them: positive when the side to
    /// move mates, negative when it is mated, zero for a draw.
    pub fn from_moves(moves: i64) -> DistanceToMate {
        let distance = u32::try_from(moves.unsigned_abs()).unwrap_or(u32::MAX);
        match moves {
            0 => DistanceToMate::Draw,
            1.. => DistanceToMate::Mates(distance),
            _ => DistanceToMate::Mated(distance),
        }
    }

    /// Whether a reported score finds this result: a mate in at most the
    /// expected number of moves; being mated no sooner than expected (the
    /// longest defence); or, for a draw, a score of exactly zero.
    pub fn is_met_by(self, score: ReportedScore) -> bool {
        match (self, score) {
            (DistanceToMate::Mates(expected), ReportedScore::Mate(moves)) => {
                moves > 0 && moves.unsigned_abs() <= expected
            }
            (DistanceToMate::Mated(expected), ReportedScore::Mate(moves)) => {
                moves < 0 && moves.unsigned_abs() >= expected
            }
            (DistanceToMate::Draw, ReportedScore::Centipawns(centipawns)) => centipawns == 0,
            _ => false,
        }
    }
}

/// Writes the moves to mate as `dm` does: `3`, `-2`, `0`.
impl fmt::Display for DistanceToMate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistanceToMate::Mates(moves) => write!(f, "{moves}"),
            DistanceToMate::Mated(moves) => write!(f, "-{moves}"),
            DistanceToMate::Draw => write!(f, "0"),
        }
    }
}

/// A test position read from one EPD line.
#[derive(Debug, Clone)]
pub struct EpdRecord {
    /// Line number in the file, from 1.
    pub line: usize,
    /// The position to test, with the history of the `moves` operation.
    pub board: Board,
    /// What was mended in the position fields to make them playable (see
    /// [`Board::from_fen_repaired`]); empty for a flawless record.
    pub repairs: Vec<Repair>,
    /// The `id` operation.
    pub id: Option<String>,
    /// The `bm` moves: playing one of them solves the position.
    pub best_moves: Vec<Move>,
    /// The `am` moves: playing one of them fails the position.
    pub avoid_moves: Vec<Move>,
    /// The `dm` operation, or `bm #N`.
    pub mate: Option<DistanceToMate>,
    /// Points per move from a `c0 "Move=points, ..."` operation.
    pub points: Vec<(Move, u32)>,
    /// Every operation of the line, in order, the ones above included.
    pub operations: Vec<Operation>,
}

impl EpdRecord {
    /// The first operation with this opcode.
    pub fn operation(&self, opcode: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.opcode == opcode)
    }

    /// Whether the record says what a right answer is (`bm`, `am`, `dm`,
    /// `bm #N` or `c0` points).
    pub fn has_target(&self) -> bool {
        !self.best_moves.is_empty()
            || !self.avoid_moves.is_empty()
            || self.mate.is_some()
            || !self.points.is_empty()
    }

    /// The most points a move can earn, when the record has `c0` points.
    pub fn max_points(&self) -> Option<u32> {
        self.points.iter().map(|&(_, points)| points).max()
    }

    /// The points `played` earns (zero for a move not listed).
    pub fn points_for(&self, played: Move) -> u32 {
        self.points
            .iter()
            .find(|&&(m, _)| m == played)
            .map_or(0, |&(_, points)| points)
    }

    /// Whether an engine that plays `played` with `score` solves the position.
    ///
    /// A move from `am` always fails. With a distance to mate, the score must
    /// find it (see [`DistanceToMate::is_met_by`]) or the move must be one of
    /// `bm`. Otherwise the move must be one of `bm` when there are any, and
    /// earn the most points when only `c0` points are given. A record without
    /// a target is never solved.
    pub fn is_solved(&self, played: Option<Move>, score: Option<ReportedScore>) -> bool {
        if played.is_some_and(|m| self.avoid_moves.contains(&m)) {
            return false;
        }
        let is_best = played.is_some_and(|m| self.best_moves.contains(&m));
        if let Some(mate) = self.mate {
            return score.is_some_and(|s| mate.is_met_by(s)) || is_best;
        }
        if !self.best_moves.is_empty() {
            return is_best;
        }
        if !self.avoid_moves.is_empty() {
            return played.is_some();
        }
        match (played, self.max_points()) {
            (Some(m), Some(max)) => self.points_for(m) == max,
            _ => false,
        }
    }
}

/// Why a line is not a valid EPD record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpdError {
    /// Fewer than the four position fields.
    MissingFields,
    /// The position fields do not make a valid position.
    BadPosition(BoardError),
    /// A move counter or numeric operand is not a number.
    BadNumber {
        /// The opcode, or `counter` for the FEN's move counters.
        opcode: String,
        /// The text that is not a number.
        text: String,
    },
    /// A double quote without its closing quote.
    UnterminatedString,
    /// An opcode that does not start with a letter, or a quoted opcode.
    BadOpcode(String),
    /// An operation that needs operands has none.
    MissingOperand(String),
    /// A move that is unreadable, illegal or ambiguous in the position.
    BadMove {
        /// The opcode the move belongs to.
        opcode: String,
        /// The move as written.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdError::MissingFields => write!(f, "fewer than four FEN fields"),
            EpdError::BadPosition(why) => write!(f, "{why}"),
            EpdError::BadNumber { opcode, text } => {
                write!(f, "{opcode}: '{text}' is not a valid number")
            }
            EpdError::UnterminatedString => write!(f, "a quoted string is not closed"),
            EpdError::BadOpcode(text) => write!(f, "'{text}' is not an opcode"),
            EpdError::MissingOperand(opcode) => write!(f, "{opcode} without operand"),
            EpdError::BadMove {
                opcode,
                text,
                reason,
            } => write!(f, "{opcode}: move '{text}' is {reason}"),
        }
    }
}

impl std::error::Error for EpdError {}

/// An error together with the line it was found on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdLineError {
    /// Line number in the file, from 1.
    pub line: usize,
    /// What is wrong with the line.
    pub error: EpdError,
}

impl fmt::Display for EpdLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

/// The records of an EPD file and the lines that could not be read.
#[derive(Debug, Clone, Default)]
pub struct EpdFile {
    /// The valid records, in file order.
    pub records: Vec<EpdRecord>,
    /// The invalid lines, in file order.
    pub errors: Vec<EpdLineError>,
}

impl EpdFile {
    /// Reads every line of `text` (LF or CRLF line ends, an optional
    /// byte-order mark). Invalid lines are collected, not fatal.
    pub fn parse(text: &str) -> EpdFile {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut file = EpdFile::default();
        for (index, line) in text.lines().enumerate() {
            match parse_record(line, index + 1) {
                Ok(Some(record)) => file.records.push(record),
                Ok(None) => {}
                Err(error) => file.errors.push(EpdLineError {
                    line: index + 1,
                    error,
                }),
            }
        }
        file
    }
}

/// Reads one EPD line; `Ok(None)` for a blank or comment line. `line` is the
/// line number stored in the record.
pub fn parse_record(text: &str, line: usize) -> Result<Option<EpdRecord>, EpdError> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let (fields, rest) = split_position_fields(text)?;
    let mut operations = split_operations(rest)?;
    let counters = take_counters(&mut operations)?;
    let operations: Vec<Operation> = operations
        .into_iter()
        .map(into_operation)
        .collect::<Result<_, _>>()?;
    let (halfmoves, fullmoves) = match counters {
        Some(counters) => counters,
        None => (
            numeric_operand(&operations, "hmvc")?.unwrap_or(0),
            numeric_operand(&operations, "fmvn")?.unwrap_or(1),
        ),
    };
    let fen = format!("{} {halfmoves} {fullmoves}", fields.join(" "));
    let (mut board, repairs) = read_position(&fen)?;

    if let Some(history) = operations.iter().find(|op| op.opcode == "moves") {
        for text in history.operands.iter().flat_map(|o| o.split_whitespace()) {
            let m = parse_move(&board, "moves", text)?;
            board.play_game_move(m);
        }
    }

    let mut record = EpdRecord {
        line,
        board,
        repairs,
        id: None,
        best_moves: Vec::new(),
        avoid_moves: Vec::new(),
        mate: None,
        points: Vec::new(),
        operations: Vec::new(),
    };
    for op in &operations {
        match op.opcode.as_str() {
            "id" => record.id = Some(op.text()),
            "bm" => read_best_moves(&mut record, op)?,
            "am" => {
                require_operand(op)?;
                for text in &op.operands {
                    let m = parse_move(&record.board, &op.opcode, text)?;
                    record.avoid_moves.push(m);
                }
            }
            "dm" => {
                require_operand(op)?;
                let moves = parse_number::<i64>(&op.opcode, &op.text())?;
                record.mate = Some(DistanceToMate::from_moves(moves));
            }
            "c0" => {
                if let Some(points) = read_points(&record.board, &op.text())? {
                    record.points = points;
                }
            }
            _ => {}
        }
    }
    record.operations = operations;
    Ok(Some(record))
}

/// Reads the position of a record, mending what does not stop it from being
/// played. Castling is read the standard way unless Chess960 castling keeps
/// rights that the standard way must drop.
fn read_position(fen: &str) -> Result<(Board, Vec<Repair>), EpdError> {
    let standard =
        Board::from_fen_repaired(fen, CastlingMode::Standard).map_err(EpdError::BadPosition)?;
    let chess960 = standard.1.iter().any(|repair| {
        matches!(
            repair,
            Repair::CastlingRights {
                more_in_chess960: true,
                ..
            }
        )
    });
    if chess960 {
        Board::from_fen_repaired(fen, CastlingMode::Chess960).map_err(EpdError::BadPosition)
    } else {
        Ok(standard)
    }
}

/// Splits off the four position fields; returns them and the rest of the line.
fn split_position_fields(text: &str) -> Result<([&str; 4], &str), EpdError> {
    let mut fields = [""; 4];
    let mut rest = text;
    for field in &mut fields {
        rest = rest.trim_start();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ';' || c == '"')
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(EpdError::MissingFields);
        }
        *field = &rest[..end];
        rest = &rest[end..];
    }
    Ok((fields, rest))
}

/// A word of the operations part: its text and whether it was quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    quoted: bool,
}

/// Splits the operations part into operations (lists of tokens), honouring
/// quotes. Empty operations (`;;`) are dropped.
fn split_operations(text: &str) -> Result<Vec<Vec<Token>>, EpdError> {
    let mut operations = Vec::new();
    let mut current: Vec<Token> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            ';' => {
                if !current.is_empty() {
                    operations.push(std::mem::take(&mut current));
                }
            }
            '"' => {
                let body_start = start + 1;
                let end = text[body_start..]
                    .find('"')
                    .ok_or(EpdError::UnterminatedString)?;
                current.push(Token {
                    text: text[body_start..body_start + end].to_string(),
                    quoted: true,
                });
                while chars.next_if(|&(at, _)| at <= body_start + end).is_some() {}
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = text.len();
                while let Some(&(at, next)) = chars.peek() {
                    if next.is_whitespace() || next == ';' || next == '"' {
                        end = at;
                        break;
                    }
                    chars.next();
                }
                current.push(Token {
                    text: text[start..end].to_string(),
                    quoted: false,
                });
            }
        }
    }
    if !current.is_empty() {
        operations.push(current);
    }
    Ok(operations)
}

/// Removes the half-move clock and full-move number that may follow the
/// position fields (an opcode never starts with a digit).
fn take_counters(operations: &mut Vec<Vec<Token>>) -> Result<Option<(u32, u32)>, EpdError> {
    let Some(first) = operations.first_mut() else {
        return Ok(None);
    };
    let is_number = |token: &Token| {
        !token.quoted
            && token
                .text
                .starts_with(|c: char| c.is_ascii_digit() || c == '-')
    };
    if !first.first().is_some_and(is_number) {
        return Ok(None);
    }
    let halfmoves = parse_number::<u32>("counter", &first.remove(0).text)?;
    let fullmoves = if first.first().is_some_and(is_number) {
        parse_number::<u32>("counter", &first.remove(0).text)?
    } else {
        1
    };
    if first.is_empty() {
        operations.remove(0);
    }
    Ok(Some((halfmoves, fullmoves)))
}

fn into_operation(tokens: Vec<Token>) -> Result<Operation, EpdError> {
    let mut tokens = tokens.into_iter();
    let Some(opcode) = tokens.next() else {
        return Err(EpdError::BadOpcode(String::new()));
    };
    let well_formed = !opcode.quoted
        && opcode.text.starts_with(|c: char| c.is_ascii_alphabetic())
        && opcode
            .text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Err(EpdError::BadOpcode(opcode.text));
    }
    Ok(Operation {
        opcode: opcode.text,
        operands: tokens.map(|t| t.text).collect(),
    })
}

fn parse_number<T: std::str::FromStr>(opcode: &str, text: &str) -> Result<T, EpdError> {
    text.trim().parse().map_err(|_| EpdError::BadNumber {
        opcode: opcode.to_string(),
        text: text.to_string(),
    })
}

fn numeric_operand(operations: &[Operation], opcode: &str) -> Result<Option<u32>, EpdError> {
    operations
        .iter()
        .find(|op| op.opcode == opcode)
        .map(|op| parse_number(opcode, &op.text()))
        .transpose()
}

fn require_operand(op: &Operation) -> Result<(), EpdError> {
    if op.operands.is_empty() {
        Err(EpdError::MissingOperand(op.opcode.clone()))
    } else {
        Ok(())
    }
}

/// `bm`: moves, or `#N` for a mate in `N` (`#-N`: mated in `N`).
fn read_best_moves(record: &mut EpdRecord, op: &Operation) -> Result<(), EpdError> {
    require_operand(op)?;
    for text in &op.operands {
        if let Some(moves) = text.strip_prefix('#') {
            let moves = parse_number::<i64>(&op.opcode, moves)?;
            record.mate = Some(DistanceToMate::from_moves(moves));
        } else {
            let m = parse_move(&record.board, &op.opcode, text)?;
            record.best_moves.push(m);
        }
    }
    Ok(())
}

/// Reads `c0 "Nf3=10, e4=5"` as points per move. `Ok(None)` when the text is
/// not in that form (then it is a comment).
fn read_points(board: &Board, text: &str) -> Result<Option<Vec<(Move, u32)>>, EpdError> {
    let mut points = Vec::new();
    for item in text.split(',') {
        let Some((move_text, value)) = item.split_once('=') else {
            return Ok(None);
        };
        // `e8=Q=10`: the last `=` separates the points.
        let (move_text, value) = match value.rsplit_once('=') {
            Some((promotion, value)) => (format!("{move_text}={promotion}"), value),
            None => (move_text.to_string(), value),
        };
        let Ok(value) = value.trim().parse::<u32>() else {
            return Ok(None);
        };
        points.push((parse_move(board, "c0", move_text.trim())?, value));
    }
    Ok(Some(points))
}

/// Reads a move in SAN (with `+`, `#`, `!`, `?` suffixes, `0-0` castling and
/// promotions written with or without `=`) or in UCI notation.
pub fn parse_move(board: &Board, opcode: &str, text: &str) -> Result<Move, EpdError> {
    let bad = |reason: &str| EpdError::BadMove {
        opcode: opcode.to_string(),
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let cleaned = text.trim_end_matches(['!', '?']);
    let cleaned = if cleaned.starts_with("0-0") {
        cleaned.replace('0', "O")
    } else {
        cleaned.to_string()
    };
    let san = San::from_ascii(cleaned.as_bytes())
        .or_else(|_| San::from_ascii(with_promotion_sign(&cleaned).as_bytes()));
    if let Ok(san) = san {
        match san.to_move(board.position()) {
            Ok(m) => return Ok(m),
            Err(SanError::AmbiguousSan) => return Err(bad("ambiguous")),
            Err(SanError::IllegalSan) => {}
        }
    }
    match board.parse_uci_move(&cleaned) {
        Ok(m) => Ok(m),
        Err(BoardError::IllegalMove(_)) => Err(bad("illegal")),
        Err(_) if san.is_ok() => Err(bad("illegal")),
        Err(_) => Err(bad("unreadable")),
    }
}

/// `e8Q+` becomes `e8=Q+`: inserts the `=` some files leave out of promotions.
fn with_promotion_sign(san: &str) -> String {
    let body = san.trim_end_matches(['+', '#']);
    let suffix = &san[body.len()..];
    let mut chars = body.chars().rev();
    match (chars.next(), chars.next()) {
        (Some(piece), Some('1' | '8')) if "QRBNqrbn".contains(piece) => {
            let square_end = body.len() - piece.len_utf8();
            format!("{}={piece}{suffix}", &body[..square_end])
        }
        _ => san.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    fn record(line: &str) -> EpdRecord {
        parse_record(line, 1).unwrap().unwrap()
    }

    fn uci(record: &EpdRecord, moves: &[Move]) -> Vec<String> {
        moves.iter().map(|&m| record.board.move_to_uci(m)).collect()
    }

    #[test]
    fn operations_split_on_semicolons_outside_quotes() {
        let ops = split_operations(r#" bm e4; id "a; b";c0 "x""#).unwrap();
        let texts: Vec<Vec<&str>> = ops
            .iter()
            .map(|op| op.iter().map(|t| t.text.as_str()).collect())
            .collect();
        assert_eq!(
            texts,
            [vec!["bm", "e4"], vec!["id", "a; b"], vec!["c0", "x"]]
        );
        assert!(ops[1][1].quoted);
        assert_eq!(
            split_operations(r#"id "open"#),
            Err(EpdError::UnterminatedString)
        );
        assert_eq!(split_operations(" ;; ;").unwrap(), Vec::<Vec<Token>>::new());
    }

    #[test]
    fn quote_directly_after_opcode() {
        let r = record(&format!("{START} id\"x y\";c0\"z\""));
        assert_eq!(r.id.as_deref(), Some("x y"));
        assert_eq!(r.operation("c0").unwrap().operands, ["z"]);
    }

    #[test]
    fn counters_with_or_without_semicolon() {
        let r = record(&format!("{START} 7 12 ;D1 20"));
        assert_eq!(r.board.halfmove_clock(), 7);
        assert!(r.board.fen().ends_with(" 7 12"));
        assert_eq!(r.operation("D1").unwrap().operands, ["20"]);
        let r = record(&format!("{START} 3 9 bm e4;"));
        assert!(r.board.fen().ends_with(" 3 9"));
        assert_eq!(uci(&r, &r.best_moves), ["e2e4"]);
        let r = record(&format!("{START} bm e4; hmvc 5; fmvn 30;"));
        assert!(r.board.fen().ends_with(" 5 30"));
    }

    #[test]
    fn promotion_without_equals_sign() {
        assert_eq!(with_promotion_sign("e8Q+"), "e8=Q+");
        assert_eq!(with_promotion_sign("bxa1n"), "bxa1=n");
        assert_eq!(with_promotion_sign("Nf3"), "Nf3");
        assert_eq!(with_promotion_sign("Q"), "Q");
        let r = record("8/P6k/8/8/8/8/8/K7 w - - bm a8Q a8=R a7a8b;");
        assert_eq!(uci(&r, &r.best_moves), ["a7a8q", "a7a8r", "a7a8b"]);
    }

    #[test]
    fn mate_distances() {
        assert_eq!(DistanceToMate::from_moves(3), DistanceToMate::Mates(3));
        assert_eq!(DistanceToMate::from_moves(-2), DistanceToMate::Mated(2));
        assert_eq!(DistanceToMate::from_moves(0), DistanceToMate::Draw);
        assert_eq!(
            DistanceToMate::from_moves(i64::MIN),
            DistanceToMate::Mated(u32::MAX)
        );
        let mates = DistanceToMate::Mates(3);
        assert!(mates.is_met_by(ReportedScore::Mate(3)));
        assert!(mates.is_met_by(ReportedScore::Mate(2)));
        assert!(!mates.is_met_by(ReportedScore::Mate(4)));
        assert!(!mates.is_met_by(ReportedScore::Mate(-1)));
        assert!(!mates.is_met_by(ReportedScore::Centipawns(900)));
        let mated = DistanceToMate::Mated(2);
        assert!(mated.is_met_by(ReportedScore::Mate(-2)));
        assert!(!mated.is_met_by(ReportedScore::Mate(-1)));
        assert!(!mated.is_met_by(ReportedScore::Mate(2)));
        assert!(DistanceToMate::Draw.is_met_by(ReportedScore::Centipawns(0)));
        assert!(!DistanceToMate::Draw.is_met_by(ReportedScore::Centipawns(5)));
    }
}
