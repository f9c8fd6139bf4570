//! Static exchange evaluation: whether a move wins at least a given amount
//! of material once every capture sequence on its target square is played
//! out with the least valuable attacker first, x-rays included.

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square, attacks};

/// Exchange values of the pieces, pawn to king.
const VALUES: [i32; 6] = [100, 300, 300, 500, 900, 20_000];

/// The exchange value of a piece type.
pub fn value(role: Role) -> i32 {
    VALUES[role as usize - 1]
}

/// Pieces of both colours that attack `square` given the occupancy.
fn attackers(board: &Board, square: Square, occupied: Bitboard) -> Bitboard {
    let straight = attacks::rook_attacks(square, occupied) & board.rooks_and_queens();
    let diagonal = attacks::bishop_attacks(square, occupied) & board.bishops_and_queens();
    let leapers = attacks::knight_attacks(square) & board.knights()
        | attacks::king_attacks(square) & board.kings();
    let pawns = attacks::pawn_attacks(Color::White, square) & board.pawns() & board.black()
        | attacks::pawn_attacks(Color::Black, square) & board.pawns() & board.white();
    (straight | diagonal | leapers | pawns) & occupied
}

/// Whether `m` gains at least `threshold` centipawns by exchanges on its
/// target square. Castling is even; a promotion counts the promoted piece.
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to, captured, promotion) = match m {
        Move::Normal {
            from,
            to,
            capture,
            promotion,
            ..
        } => (from, to, capture, promotion),
        Move::EnPassant { from, to } => (from, to, Some(Role::Pawn), None),
        Move::Castle { .. } | Move::Put { .. } => return threshold <= 0,
    };
    let board = pos.board();
    let promotion_gain = promotion.map_or(0, |r| value(r) - value(Role::Pawn));
    let mut swap = captured.map_or(0, value) + promotion_gain - threshold;
    if swap < 0 {
        return false;
    }
    let moving = promotion.unwrap_or(m.role());
    swap = value(moving) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occupied = board.occupied() ^ Bitboard::from(from) | Bitboard::from(to);
    if let Move::EnPassant { .. } = m {
        occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
    }
    let mut side = pos.turn();
    let mut winning = true;
    loop {
        side = !side;
        let all = attackers(board, to, occupied);
        let ours = all & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        winning = !winning;
        let (role, square) = Role::ALL
            .into_iter()
            .find_map(|role| {
                (ours & board.by_role(role))
                    .first()
                    .map(|square| (role, square))
            })
            .expect("an attacker has a role");
        if role == Role::King {
            // The king may only take last: if the other side still attacks,
            // the capture is illegal and the exchange ends the other way.
            if !(all & board.by_color(!side)).is_empty() {
                winning = !winning;
            }
            break;
        }
        swap = value(role) - swap;
        if swap < i32::from(winning) {
            break;
        }
        occupied ^= Bitboard::from(square);
    }
    winning
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see_ge(&pos, m, threshold)
    }

    #[test]
    fn free_piece_and_defended_piece() {
        // Rook takes an undefended knight: +300.
        assert!(see("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", "d1d5", 300));
        assert!(!see("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", "d1d5", 301));
        // Queen takes a pawn defended by a pawn: loses 800.
        assert!(!see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 0));
        assert!(see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -800));
    }

    #[test]
    fn x_rays_count() {
        // Rook takes a rook-defended pawn, backed by a second rook behind it:
        // RxP RxR RxR wins a pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(see(fen, "d2d5", 100));
        assert!(!see(fen, "d2d5", 101));
    }

    #[test]
    fn quiet_move_into_attack() {
        // Knight steps where a pawn takes it.
        assert!(!see("4k3/8/4p3/8/8/2N5/8/4K3 w - - 0 1", "c3d5", 0));
        assert!(see("4k3/8/8/8/8/2N5/8/4K3 w - - 0 1", "c3d5", 0));
    }

    #[test]
    fn king_cannot_take_a_defended_piece() {
        // The king recaptures an undefended queen...
        assert!(see("4k3/3p4/8/8/8/8/8/3QK3 w - - 0 1", "d1d7", -800));
        assert!(!see("4k3/3p4/8/8/8/8/8/3QK3 w - - 0 1", "d1d7", 0));
        // ...but not a rook backed by the queen behind it.
        assert!(see("4k3/3p4/8/8/8/8/3R4/3QK3 w - - 0 1", "d2d7", 100));
    }
}
