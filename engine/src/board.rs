//! The board: a `shakmaty::Chess` position that carries its Zobrist key and the
//! keys of every earlier position of the game and of the search path.
//!
//! shakmaty has no undo, so making a move copies the position onto a stack
//! (copy-make) and unmaking pops it. The key is updated incrementally with
//! shakmaty's `update_zobrist_hash` and recomputed from scratch where that
//! declines (king moves, castling, en passant, double pushes, rights changes).

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position, PositionError,
};
use std::fmt;

/// Why a FEN, or a move in a `position` command, was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    /// The text is not a syntactically valid FEN.
    BadFen(String),
    /// The FEN parses but describes an impossible position.
    IllegalPosition(String),
    /// The move text is not in UCI notation.
    BadMove(String),
    /// The move is well formed but not legal in the position.
    IllegalMove(String),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::BadFen(why) => write!(f, "invalid FEN: {why}"),
            BoardError::IllegalPosition(why) => write!(f, "illegal position: {why}"),
            BoardError::BadMove(text) => write!(f, "unparsable move '{text}'"),
            BoardError::IllegalMove(text) => write!(f, "illegal move '{text}'"),
        }
    }
}

impl std::error::Error for BoardError {}

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Computes the Zobrist key of a position from scratch (Polyglot-compatible).
pub fn key_of(pos: &Chess) -> u64 {
    let Zobrist64(key) = pos.zobrist_hash(EnPassantMode::Legal);
    key
}

/// A position with its key and the keys of the positions before it.
#[derive(Clone)]
pub struct Board {
    pos: Chess,
    key: u64,
    /// Keys of all earlier positions: the game history, then the search path.
    keys: Vec<u64>,
    /// Positions to return to on `unmake`, one per move made with `make`.
    undo: Vec<(Chess, u64)>,
}

impl Default for Board {
    fn default() -> Self {
        Board::startpos()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.fen())
    }
}

impl Board {
    /// The standard starting position.
    pub fn startpos() -> Board {
        Board::from_position(Chess::default())
    }

    /// Wraps an existing position with an empty history.
    pub fn from_position(pos: Chess) -> Board {
        let key = key_of(&pos);
        Board {
            pos,
            key,
            keys: Vec::with_capacity(512),
            undo: Vec::with_capacity(256),
        }
    }

    /// Parses a FEN (standard or Chess960 castling, per `mode`).
    ///
    /// Missing half-move and full-move counters are accepted, as many GUIs
    /// and EPD files leave them out. Positions that cannot arise in a game but
    /// can be played on (more than the original material, or a check that no
    /// last move could give) are accepted too, as test suites contain them.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Board, BoardError> {
        let fen = fen.split_whitespace().collect::<Vec<_>>().join(" ");
        let parsed: Fen = fen
            .parse()
            .map_err(|e: shakmaty::fen::ParseFenError| BoardError::BadFen(e.to_string()))?;
        let pos: Chess = parsed
            .into_position(mode)
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| BoardError::IllegalPosition(e.to_string()))?;
        Ok(Board::from_position(pos))
    }

    /// The underlying shakmaty position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The Zobrist key of the current position.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.pos.is_check()
    }

    /// The legal moves of the current position.
    pub fn legal_moves(&self) -> MoveList {
        self.pos.legal_moves()
    }

    /// Half-moves since the last capture or pawn move (the 50-move counter).
    pub fn halfmove_clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// The current position as a FEN.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// Castling notation in use (standard or Chess960).
    pub fn castling_mode(&self) -> CastlingMode {
        self.pos.castles().mode()
    }

    /// Writes a move in UCI notation for this position's castling mode.
    pub fn move_to_uci(&self, m: Move) -> String {
        m.to_uci(self.castling_mode()).to_string()
    }

    /// Parses a UCI move and checks that it is legal here.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, BoardError> {
        let uci: UciMove = text
            .parse()
            .map_err(|_| BoardError::BadMove(text.to_string()))?;
        uci.to_move(&self.pos)
            .map_err(|_| BoardError::IllegalMove(text.to_string()))
    }

    /// Plays a game move given in UCI notation. The board is unchanged on error.
    pub fn play_uci(&mut self, text: &str) -> Result<(), BoardError> {
        let m = self.parse_uci_move(text)?;
        self.play_game_move(m);
        Ok(())
    }

    /// Plays a legal move as part of the game: it enters the history but
    /// cannot be unmade (the undo stack stays empty between searches).
    pub fn play_game_move(&mut self, m: Move) {
        let key = self.child_key(m);
        self.keys.push(self.key);
        self.pos.play_unchecked(m);
        self.key = key;
        // Keep only what repetition detection can need: the positions since
        // the last irreversible move.
        let keep = self.pos.halfmoves() as usize;
        if self.keys.len() > keep + 1 && self.undo.is_empty() {
            let drop = self.keys.len() - (keep + 1);
            self.keys.drain(..drop);
        }
    }

    /// The key of the position after the legal move `m`.
    fn child_key(&self, m: Move) -> u64 {
        match self
            .pos
            .update_zobrist_hash(Zobrist64(self.key), m, EnPassantMode::Legal)
        {
            Some(Zobrist64(key)) => {
                debug_assert_eq!(key, {
                    let mut child = self.pos.clone();
                    child.play_unchecked(m);
                    key_of(&child)
                });
                key
            }
            None => {
                let mut child = self.pos.clone();
                child.play_unchecked(m);
                key_of(&child)
            }
        }
    }

    /// Makes a legal move inside the search; undo it with [`Board::unmake`].
    pub fn make(&mut self, m: Move) {
        let key = self.child_key(m);
        self.undo.push((self.pos.clone(), self.key));
        self.keys.push(self.key);
        self.pos.play_unchecked(m);
        self.key = key;
        debug_assert_eq!(self.key, key_of(&self.pos), "incremental key diverged");
    }

    /// Passes the move to the opponent (a null move) inside the search.
    ///
    /// Returns `false`, changing nothing, when the side to move is in check.
    pub fn make_null(&mut self) -> bool {
        let Ok(child) = self.pos.clone().swap_turn() else {
            return false;
        };
        self.undo.push((self.pos.clone(), self.key));
        self.keys.push(self.key);
        self.key = key_of(&child);
        self.pos = child;
        true
    }

    /// Takes back the last [`Board::make`] or [`Board::make_null`].
    pub fn unmake(&mut self) {
        let (pos, key) = self.undo.pop().expect("unmake without make");
        self.keys.pop();
        self.pos = pos;
        self.key = key;
    }

    /// Keys of the earlier positions that could repeat the current one: those
    /// since the last irreversible move with the same side to move.
    fn comparable_keys(&self) -> impl Iterator<Item = &u64> {
        let window = (self.pos.halfmoves() as usize).min(self.keys.len());
        self.keys.iter().rev().take(window).skip(1).step_by(2)
    }

    /// How many earlier positions since the last irreversible move equal the
    /// current one (same pieces, side to move, castling rights and legal en
    /// passant: FIDE Art. 9.2).
    pub fn repetitions(&self) -> usize {
        self.comparable_keys().filter(|&&k| k == self.key).count()
    }

    /// Whether any position since the last irreversible move, the current
    /// one included, occurred twice: the game goes round in circles.
    pub fn has_repeated(&self) -> bool {
        let window = (self.pos.halfmoves() as usize).min(self.keys.len());
        let mut recent = self.keys[self.keys.len() - window..].to_vec();
        recent.push(self.key);
        recent.sort_unstable();
        recent.windows(2).any(|pair| pair[0] == pair[1])
    }

    /// Whether the current position already occurred since the last
    /// irreversible move. The search treats one repetition as a draw: the side
    /// that could avoid it gains nothing by allowing it.
    pub fn is_repetition(&self) -> bool {
        self.comparable_keys().any(|&k| k == self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_key_is_polyglot() {
        assert_eq!(Board::startpos().key(), 0x463b_9618_1691_fc9c);
    }

    #[test]
    fn make_unmake_restores_key() {
        let mut board = Board::startpos();
        let before = board.key();
        for m in board.legal_moves() {
            board.make(m);
            assert_eq!(board.key(), key_of(board.position()));
            board.unmake();
            assert_eq!(board.key(), before);
        }
    }

    #[test]
    fn knight_shuffle_repeats() {
        let mut board = Board::startpos();
        for mv in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            board.play_uci(mv).unwrap();
        }
        assert_eq!(board.repetitions(), 1);
        for mv in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            board.play_uci(mv).unwrap();
        }
        assert_eq!(board.repetitions(), 2);
    }

    #[test]
    fn a_repetition_anywhere_since_the_last_pawn_move_counts() {
        let mut board = Board::startpos();
        for mv in ["g1f3", "g8f6", "f3g1", "f6g8", "b1c3"] {
            board.play_uci(mv).unwrap();
        }
        // The start position came back; the current one is new.
        assert!(board.has_repeated() && !board.is_repetition());
        board.play_uci("e7e5").unwrap();
        assert!(!board.has_repeated());
    }

    #[test]
    fn bad_input_is_reported() {
        assert!(matches!(
            Board::from_fen("not a fen", CastlingMode::Standard),
            Err(BoardError::BadFen(_))
        ));
        assert!(matches!(
            Board::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", CastlingMode::Standard),
            Err(BoardError::IllegalPosition(_))
        ));
        let mut board = Board::startpos();
        assert!(matches!(
            board.play_uci("e2e5"),
            Err(BoardError::IllegalMove(_))
        ));
        assert!(matches!(board.play_uci("zz"), Err(BoardError::BadMove(_))));
        assert_eq!(board.fen(), START_FEN);
    }

    #[test]
    fn fen_without_counters_is_accepted() {
        let board = Board::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            CastlingMode::Standard,
        )
        .unwrap();
        assert_eq!(board.fen(), START_FEN);
    }
}
