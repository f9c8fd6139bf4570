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
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position, PositionError,
    PositionErrorKinds, Square, attacks,
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

/// A flaw of a playable FEN that [`Board::from_fen_repaired`] mended instead
/// of refusing the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// Castling rights without the king and that rook on their squares were dropped.
    CastlingRights {
        /// The castling field as written.
        given: String,
        /// The rights kept, as a FEN castling field (`-` for none).
        kept: String,
        /// Whether reading the FEN with Chess960 castling would keep more rights.
        more_in_chess960: bool,
    },
    /// An en passant square that no double pawn step can have left was cleared.
    EnPassantSquare(Square),
    /// The FEN ends before its move counters; the missing ones got their
    /// defaults, halfmove clock 0 and fullmove number 1.
    MoveCounters {
        /// Whether the halfmove clock was missing too, not only the fullmove number.
        halfmove_clock_missing: bool,
    },
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Repair::CastlingRights {
                given,
                kept,
                more_in_chess960,
            } => {
                write!(
                    f,
                    "castling rights '{given}' reduced to '{kept}': a right needs the king and \
                     that rook on their starting squares"
                )?;
                if *more_in_chess960 {
                    f.write_str(" (Chess960 castling would keep more)")?;
                }
                Ok(())
            }
            Repair::EnPassantSquare(square) => write!(
                f,
                "en passant square {square} cleared: no pawn can have just passed over it \
                 with a double step"
            ),
            Repair::MoveCounters {
                halfmove_clock_missing: true,
            } => f.write_str("missing halfmove clock and fullmove number set to 0 1"),
            Repair::MoveCounters {
                halfmove_clock_missing: false,
            } => f.write_str("missing fullmove number set to 1"),
        }
    }
}

/// Flaws that are mended rather than refused: they do not stop the position
/// from being played. Too much material and checks that no last move could
/// give are accepted unchanged, as test suites contain such positions.
const FORGIVEN: PositionErrorKinds = PositionErrorKinds::INVALID_CASTLING_RIGHTS
    .union(PositionErrorKinds::INVALID_EP_SQUARE)
    .union(PositionErrorKinds::TOO_MUCH_MATERIAL)
    .union(PositionErrorKinds::IMPOSSIBLE_CHECK);

/// FEN fields up to and including the en passant square; the move counters
/// after them may be left out.
const POSITION_FIELDS: usize = 4;

fn side_name(color: Color) -> &'static str {
    color.fold_wb("White", "Black")
}

/// Says in words why the position of `setup` cannot be played.
fn refusal(setup: &shakmaty::Setup, kinds: PositionErrorKinds) -> String {
    let board = &setup.board;
    let mut reasons = Vec::new();
    if kinds.contains(PositionErrorKinds::EMPTY_BOARD) {
        reasons.push("the board is empty".to_string());
    } else {
        for color in Color::ALL {
            let kings = (board.kings() & board.by_color(color)).count();
            match kings {
                0 => reasons.push(format!("{} has no king", side_name(color))),
                1 => {}
                n => reasons.push(format!("{} has {n} kings", side_name(color))),
            }
        }
    }
    let misplaced = board.pawns() & Bitboard::BACKRANKS;
    if let Some(square) = misplaced.first() {
        reasons.push(format!(
            "a pawn stands on the first or last rank ({square})"
        ));
    }
    if kinds.contains(PositionErrorKinds::OPPOSITE_CHECK) {
        reasons.push(format!(
            "{}, not to move, is in check",
            side_name(!setup.turn)
        ));
    }
    if reasons.is_empty() {
        reasons.push(format!("{kinds:?}"));
    }
    reasons.join("; ")
}

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The position despite the [`FORGIVEN`] flaws (castling rights and en
/// passant square mended), or `None` when it has others.
fn forgive(error: PositionError<Chess>) -> Option<Chess> {
    error
        .ignore_invalid_castling_rights()
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_too_much_material)
        .or_else(PositionError::ignore_impossible_check)
        .ok()
}

/// What dropping the castling rights of `parsed` that `pos` could not keep
/// amounts to; `given` is the FEN's castling field.
fn castling_repair(parsed: &Fen, pos: &Chess, given: &str, mode: CastlingMode) -> Repair {
    let kept = pos.castles().castling_rights();
    let more_in_chess960 = !mode.is_chess960()
        && parsed
            .clone()
            .into_position::<Chess>(CastlingMode::Chess960)
            .map_or_else(forgive, Some)
            .is_some_and(|wider| wider.castles().castling_rights().count() > kept.count());
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    Repair::CastlingRights {
        given: given.to_string(),
        kept: fen.split(' ').nth(2).unwrap_or("-").to_string(),
        more_in_chess960,
    }
}

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

    /// Parses a FEN (standard or Chess960 castling, per `mode`) that needs
    /// no repair but default move counters; any other flaw that
    /// [`Board::from_fen_repaired`] would mend is refused here. Fixed position
    /// lists (bench, perft suites) use it, as a repaired entry is a mistake.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Board, BoardError> {
        let (board, repairs) = Board::from_fen_repaired(fen, mode)?;
        match repairs
            .iter()
            .find(|r| !matches!(r, Repair::MoveCounters { .. }))
        {
            Some(repair) => Err(BoardError::IllegalPosition(repair.to_string())),
            None => Ok(board),
        }
    }

    /// Parses a FEN (standard or Chess960 castling, per `mode`), mending what
    /// does not stop the position from being played and saying what was
    /// mended, so that a GUI's or test suite's imperfect FEN still works.
    ///
    /// Castling rights whose king or rook is not on its square are dropped;
    /// an en passant square that no double step can have left is cleared;
    /// missing move counters become `0 1`. More than the original material
    /// and checks that no last move could give are accepted unchanged. An en
    /// passant square after a real double step that no pawn can capture is
    /// no flaw (FEN writes it after every double step); it plays no part in
    /// the key or in [`Board::fen`].
    ///
    /// Refused are text that is not a FEN, a FEN without its first four
    /// fields, and positions that cannot be played: an empty board, a side
    /// without a king or with several, a pawn on the first or last rank, or
    /// the side not to move in check.
    pub fn from_fen_repaired(
        fen: &str,
        mode: CastlingMode,
    ) -> Result<(Board, Vec<Repair>), BoardError> {
        let fields: Vec<&str> = fen
            .split(|c: char| c.is_whitespace() || c == '_')
            .filter(|field| !field.is_empty())
            .collect();
        if fields.len() < POSITION_FIELDS {
            return Err(BoardError::BadFen(format!(
                "a FEN needs at least the board, side to move, castling and en passant \
                 fields, got {}",
                fields.len()
            )));
        }
        let parsed: Fen = fields
            .join(" ")
            .parse()
            .map_err(|e: shakmaty::fen::ParseFenError| BoardError::BadFen(e.to_string()))?;
        let mut repairs = Vec::new();
        let pos: Chess = match parsed.clone().into_position(mode) {
            Ok(pos) => pos,
            Err(error) => {
                let kinds = error.kinds();
                let refused = kinds.difference(FORGIVEN);
                if !refused.is_empty() {
                    return Err(BoardError::IllegalPosition(refusal(
                        parsed.as_setup(),
                        refused,
                    )));
                }
                let pos = forgive(error).ok_or_else(|| {
                    BoardError::IllegalPosition(refusal(parsed.as_setup(), kinds))
                })?;
                if kinds.contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) {
                    repairs.push(castling_repair(&parsed, &pos, fields[2], mode));
                }
                if let Some(square) = parsed.as_setup().ep_square
                    && kinds.contains(PositionErrorKinds::INVALID_EP_SQUARE)
                {
                    repairs.push(Repair::EnPassantSquare(square));
                }
                pos
            }
        };
        if fields.len() < POSITION_FIELDS + 2 {
            repairs.push(Repair::MoveCounters {
                halfmove_clock_missing: fields.len() == POSITION_FIELDS,
            });
        }
        Ok((Board::from_position(pos), repairs))
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

    /// Whether the legal move `m` checks the opponent's king, directly or by
    /// uncovering a slider. Found from bitboards for ordinary moves, so that
    /// the search can keep checking moves out of its pruning cheaply; the
    /// rare others (castling, en passant) are played on a copy.
    pub fn gives_check(&self, m: Move) -> bool {
        let board = self.pos.board();
        let us = self.pos.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let role = promotion.unwrap_or(role);
                let occupied = (board.occupied() ^ from) | to;
                if attacks::attacks(to, role.of(us), occupied).contains(king) {
                    return true;
                }
                let ours = board.by_color(us) ^ from;
                let diagonal = ours & (board.bishops() | board.queens());
                let straight = ours & (board.rooks() | board.queens());
                (attacks::bishop_attacks(king, occupied) & diagonal).any()
                    || (attacks::rook_attacks(king, occupied) & straight).any()
            }
            _ => {
                let mut pos = self.pos.clone();
                pos.play_unchecked(m);
                pos.is_check()
            }
        }
    }

    /// How many pieces are on the board, kings included.
    pub fn pieces(&self) -> usize {
        self.pos.board().occupied().count()
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
        self.recent_keys().iter().rev().skip(1).step_by(2)
    }

    /// Keys of the earlier positions since the last irreversible move.
    fn recent_keys(&self) -> &[u64] {
        let window = (self.pos.halfmoves() as usize).min(self.keys.len());
        &self.keys[self.keys.len() - window..]
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
        let mut recent = self.recent_keys().to_vec();
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
    use crate::strength::ChoiceRng;

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

    /// Every legal move of random games from positions rich in checks,
    /// discovered checks, promotions, castling and en passant: `gives_check`
    /// says what playing the move and looking says.
    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let starts = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
                CastlingMode::Chess960,
            ),
        ];
        let mut rng = ChoiceRng::new(7);
        let (mut checks, mut moves_seen) = (0, 0);
        for (fen, mode) in starts {
            for _ in 0..20 {
                let mut board =
                    Board::from_position(fen.parse::<Fen>().unwrap().into_position(mode).unwrap());
                for _ in 0..80 {
                    let moves = board.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for &m in &moves {
                        let mut played = board.position().clone();
                        played.play_unchecked(m);
                        assert_eq!(
                            board.gives_check(m),
                            played.is_check(),
                            "{m} in {}",
                            board.fen()
                        );
                        checks += usize::from(played.is_check());
                        moves_seen += 1;
                    }
                    board.make(moves[(rng.next_unit() * moves.len() as f64) as usize]);
                }
            }
        }
        assert!(
            checks > 1000 && moves_seen > 100_000,
            "{checks} checks in {moves_seen} moves"
        );
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

    fn repaired(fen: &str, mode: CastlingMode) -> (String, Vec<Repair>) {
        let (board, repairs) = Board::from_fen_repaired(fen, mode).unwrap();
        (board.fen(), repairs)
    }

    #[test]
    fn castling_rights_without_their_pieces_are_dropped() {
        let (fen, repairs) = repaired("r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", CastlingMode::Standard);
        assert_eq!(fen, "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
        assert_eq!(
            repairs,
            [Repair::CastlingRights {
                given: "KQkq".into(),
                kept: "Kq".into(),
                more_in_chess960: false,
            }]
        );
        assert!(repairs[0].to_string().contains("'KQkq' reduced to 'Kq'"));
        // A king off its square keeps no right at all.
        let (fen, _) = repaired("4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1", CastlingMode::Standard);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R2K3R w - - 0 1");
    }

    #[test]
    fn chess960_castling_rights_are_checked_in_every_notation() {
        // Shredder-FEN: the rook on g1 is gone, the one on b1 stays.
        let (fen, repairs) = repaired(
            "1r2k1r1/8/8/8/8/8/8/1R2K3 w GBgb - 0 1",
            CastlingMode::Chess960,
        );
        assert_eq!(fen, "1r2k1r1/8/8/8/8/8/8/1R2K3 w Qkq - 0 1");
        assert!(matches!(&repairs[..], [Repair::CastlingRights { kept, .. }] if kept == "Qkq"));
        // X-FEN: K and Q stand for the outermost rooks.
        let (fen, repairs) = repaired("rk4r1/8/8/8/8/8/8/RK6 w KQkq - 0 1", CastlingMode::Chess960);
        assert_eq!(fen, "rk4r1/8/8/8/8/8/8/RK6 w Qkq - 0 1");
        assert_eq!(repairs.len(), 1);
        // A Chess960 start read with standard castling loses its rights, and
        // the repair says that Chess960 castling would keep them.
        let (fen, repairs) = repaired(
            "rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - 0 1",
            CastlingMode::Standard,
        );
        assert_eq!(fen, "rk4r1/8/8/8/8/8/8/RK4R1 w - - 0 1");
        assert!(matches!(
            &repairs[..],
            [Repair::CastlingRights {
                more_in_chess960: true,
                ..
            }]
        ));
        assert!(repairs[0].to_string().contains("Chess960"));
    }

    #[test]
    fn unusable_en_passant_squares_are_cleared() {
        let (fen, repairs) = repaired("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", CastlingMode::Standard);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(repairs, [Repair::EnPassantSquare(Square::E3)]);
        assert!(
            repairs[0]
                .to_string()
                .starts_with("en passant square e3 cleared")
        );
        // After a real double step the square is no flaw, whether or not a
        // pawn can capture; it counts only when one can.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        let (fen, repairs) = repaired(after_e4, CastlingMode::Standard);
        assert!(repairs.is_empty());
        assert_eq!(fen, after_e4.replace(" e3 ", " - "));
        let capturable = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1";
        assert_eq!(
            repaired(capturable, CastlingMode::Standard),
            (capturable.to_string(), vec![])
        );
    }

    #[test]
    fn missing_move_counters_default_to_0_1() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let (fen, repairs) = repaired(start, CastlingMode::Standard);
        assert_eq!(fen, START_FEN);
        assert_eq!(
            repairs,
            [Repair::MoveCounters {
                halfmove_clock_missing: true
            }]
        );
        assert!(repairs[0].to_string().contains("0 1"));
        let (fen, repairs) = repaired(&format!("{start} 7"), CastlingMode::Standard);
        assert!(fen.ends_with(" 7 1"), "{fen}");
        assert_eq!(
            repairs,
            [Repair::MoveCounters {
                halfmove_clock_missing: false
            }]
        );
        assert!(
            Board::from_fen_repaired("4k3/8/8/8/8/8/8/4K3 w -", CastlingMode::Standard).is_err()
        );
    }

    #[test]
    fn several_flaws_are_all_repaired_and_extra_material_is_allowed() {
        let (fen, repairs) = repaired("4k3/8/8/8/8/8/8/4K3 b KQkq e6", CastlingMode::Standard);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        assert_eq!(repairs.len(), 3, "{repairs:?}");
        let two_queens_and_eight_pawns = "4k3/8/8/8/8/8/PPPPPPPP/QQ2K3 w - - 0 1";
        assert_eq!(
            repaired(two_queens_and_eight_pawns, CastlingMode::Standard),
            (two_queens_and_eight_pawns.to_string(), vec![])
        );
    }

    #[test]
    fn unplayable_positions_are_refused_with_the_reason() {
        for (fen, reason) in [
            ("8/8/8/8/8/8/8/8 w - - 0 1", "empty"),
            ("8/8/8/8/8/8/8/4K3 w - - 0 1", "Black has no king"),
            ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "White has 2 kings"),
            ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank (h8)"),
            ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "first or last rank (a1)"),
            ("4k3/8/8/8/8/8/8/4K2R w - - 0 1", ""),
            (
                "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
                "Black, not to move, is in check",
            ),
        ] {
            let result = Board::from_fen_repaired(fen, CastlingMode::Standard);
            if reason.is_empty() {
                assert!(result.is_ok(), "{fen}");
                continue;
            }
            match result {
                Err(BoardError::IllegalPosition(why)) => {
                    assert!(why.contains(reason), "{fen}: {why}")
                }
                other => panic!("{fen}: {other:?}"),
            }
        }
        for text in [
            "",
            "not a fen",
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            "4k3/8/8 w - - 0 1",
        ] {
            assert!(
                matches!(
                    Board::from_fen_repaired(text, CastlingMode::Standard),
                    Err(BoardError::BadFen(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn strict_reading_refuses_what_needs_repair() {
        assert!(matches!(
            Board::from_fen("r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", CastlingMode::Standard),
            Err(BoardError::IllegalPosition(_))
        ));
        assert!(Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", CastlingMode::Standard).is_err());
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
