//! The rules that end a game (FIDE Laws, Art. 5 and 9): checkmate, stalemate,
//! dead positions, repetitions and the move-count rules.

use crate::board::Board;
use shakmaty::Position;

/// How a game stands by the rules, as far as the position and its history tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameState {
    /// The game goes on.
    Ongoing,
    /// The side to move is checkmated (Art. 5.1a).
    Checkmate,
    /// The side to move has no legal move and is not in check (Art. 5.2a).
    Stalemate,
    /// Neither side can mate by any series of legal moves (Art. 5.2b).
    DeadPosition,
    /// The position occurred for the fifth time: drawn automatically (Art. 9.6a).
    FivefoldRepetition,
    /// 75 moves by each side without capture or pawn move (Art. 9.6b).
    SeventyFiveMoveRule,
    /// The position occurred for the third time: a draw may be claimed (Art. 9.2).
    ThreefoldRepetition,
    /// 50 moves by each side without capture or pawn move: claimable (Art. 9.3).
    FiftyMoveRule,
}

impl GameState {
    /// Whether the game has ended without anyone claiming anything.
    pub fn is_final(self) -> bool {
        !matches!(
            self,
            GameState::Ongoing | GameState::ThreefoldRepetition | GameState::FiftyMoveRule
        )
    }

    /// Whether the state is a draw, automatic or claimable.
    pub fn is_draw(self) -> bool {
        !matches!(self, GameState::Ongoing | GameState::Checkmate)
    }
}

/// Judges the current position of a game by the Laws of Chess.
///
/// Checkmate takes precedence over the move-count rules: a mate delivered on
/// the 100th (or 150th) half-move stands (Art. 9.3, 9.6b).
pub fn game_state(board: &Board) -> GameState {
    let pos = board.position();
    if pos.legal_moves().is_empty() {
        return if pos.is_check() {
            GameState::Checkmate
        } else {
            GameState::Stalemate
        };
    }
    if pos.is_insufficient_material() {
        return GameState::DeadPosition;
    }
    let repetitions = board.repetitions();
    if repetitions >= 4 {
        return GameState::FivefoldRepetition;
    }
    if board.halfmove_clock() >= 150 {
        return GameState::SeventyFiveMoveRule;
    }
    if repetitions >= 2 {
        return GameState::ThreefoldRepetition;
    }
    if board.halfmove_clock() >= 100 {
        return GameState::FiftyMoveRule;
    }
    GameState::Ongoing
}

/// Whether a search node is a draw by rule without looking at its moves:
/// any repetition since the last irreversible move, the 50-move rule (unless
/// the side to move is checkmated), or a dead position.
///
/// The 50-move check needs the legal moves only when the counter has run out
/// and the side to move is in check, which is rare.
pub fn is_search_draw(board: &Board) -> bool {
    if board.halfmove_clock() >= 100 {
        let pos = board.position();
        return !(pos.is_check() && pos.legal_moves().is_empty());
    }
    board.is_repetition() || board.position().is_insufficient_material()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn board(fen: &str) -> Board {
        Board::from_fen(fen, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn mate_and_stalemate() {
        let mated = board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(game_state(&mated), GameState::Checkmate);
        let stalemate = board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(game_state(&stalemate), GameState::Stalemate);
    }

    #[test]
    fn dead_positions() {
        for fen in [
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
            "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
            "8/8/3bk3/8/8/3KB3/8/8 w - - 0 1",
        ] {
            assert_eq!(game_state(&board(fen)), GameState::DeadPosition, "{fen}");
        }
        // Bishops on opposite colours can still mate (with help): not dead.
        assert_eq!(
            game_state(&board("8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1")),
            GameState::Ongoing
        );
        assert_eq!(
            game_state(&board("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1")),
            GameState::Ongoing
        );
    }

    #[test]
    fn fifty_moves_yield_to_mate() {
        // Black is mated and the counter reads 100: mate stands.
        let mated = board("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80");
        assert_eq!(game_state(&mated), GameState::Checkmate);
        assert!(!is_search_draw(&mated));
        let quiet = board("7k/8/6K1/8/8/8/8/6Q1 b - - 100 80");
        assert_eq!(game_state(&quiet), GameState::FiftyMoveRule);
        assert!(is_search_draw(&quiet));
        let long = board("7k/8/6K1/8/8/8/8/6Q1 b - - 150 80");
        assert_eq!(game_state(&long), GameState::SeventyFiveMoveRule);
    }

    #[test]
    fn repetition_counts() {
        let mut b = Board::startpos();
        let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for mv in cycle {
            b.play_uci(mv).unwrap();
        }
        assert_eq!(game_state(&b), GameState::Ongoing);
        assert!(is_search_draw(&b));
        for mv in cycle {
            b.play_uci(mv).unwrap();
        }
        assert_eq!(game_state(&b), GameState::ThreefoldRepetition);
        assert!(game_state(&b).is_draw() && !game_state(&b).is_final());
        for _ in 0..2 {
            for mv in cycle {
                b.play_uci(mv).unwrap();
            }
        }
        assert_eq!(game_state(&b), GameState::FivefoldRepetition);
        assert!(game_state(&b).is_final());
    }

    #[test]
    fn lost_castling_rights_make_a_new_position() {
        // The king steps out and back: same placement, but castling rights
        // are gone, so it is not a repetition of the first position (Art. 9.2).
        let mut b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for mv in ["e1f1", "e8f8", "f1e1", "f8e8"] {
            b.play_uci(mv).unwrap();
        }
        assert_eq!(b.repetitions(), 0);
        for mv in ["e1f1", "e8f8", "f1e1", "f8e8"] {
            b.play_uci(mv).unwrap();
        }
        assert_eq!(b.repetitions(), 1);
    }

    #[test]
    fn en_passant_right_makes_a_new_position() {
        // After 1.e4 (no black pawn can take en passant) the key ignores the
        // ep square; with a black pawn on d4 the right exists and counts.
        let mut b = board("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
        b.play_uci("e2e4").unwrap();
        let with_ep = b.key();
        for mv in ["e8d8", "e1d1", "d8e8", "d1e1"] {
            b.play_uci(mv).unwrap();
        }
        assert_ne!(b.key(), with_ep, "en passant right lost after shuffling");
        assert_eq!(b.repetitions(), 0);
    }
}
