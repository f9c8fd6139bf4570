//! Move ordering: the TT move first, then captures and promotions by
//! MVV-LVA (most valuable victim, least valuable attacker), then the killer
//! moves of the ply, then quiet moves by their history score.

use crate::tt::pack_move;
use shakmaty::{Color, Move, MoveList, Role};

const TT_MOVE_SCORE: i32 = 1 << 30;
const CAPTURE_SCORE: i32 = 1 << 28;
const KILLER_SCORE: i32 = 1 << 27;
/// History scores stay within this bound, below the killer scores.
pub const HISTORY_MAX: i32 = 16_384;

/// Two quiet moves per ply that recently caused a beta cutoff.
pub type Killers = [Option<Move>; 2];

/// Butterfly history: how often a quiet move (by side, from, to) caused a cutoff.
pub struct History {
    table: Box<[[i32; 64 * 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[0; 64 * 64]; 2]),
        }
    }
}

fn from_to(m: Move) -> usize {
    let packed = pack_move(m) as usize;
    packed & 0xfff
}

impl History {
    /// The score of a quiet move for `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        self.table[side as usize][from_to(m)]
    }

    /// Moves a score toward `bonus` (positive rewards, negative punishes),
    /// with saturation at [`HISTORY_MAX`].
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let entry = &mut self.table[side as usize][from_to(m)];
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }
}

/// Whether a move changes material: a capture (en passant included) or a promotion.
pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

fn role_rank(role: Role) -> i32 {
    role as i32
}

/// MVV-LVA order of a capture or promotion: higher is searched earlier.
pub fn tactical_score(m: Move) -> i32 {
    let victim = m.capture().map_or(0, role_rank);
    let promotion = m.promotion().map_or(0, role_rank);
    (victim + promotion) * 8 - role_rank(m.role())
}

/// Yields the moves of a node, best-looking first, each exactly once.
pub struct MovePicker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl MovePicker {
    /// Orders the moves of an interior node.
    pub fn new(
        moves: MoveList,
        tt_move: Option<Move>,
        killers: &Killers,
        history: &History,
        side: Color,
    ) -> MovePicker {
        let mut scores = [0; 256];
        for (score, &m) in scores.iter_mut().zip(moves.iter()) {
            *score = if Some(m) == tt_move {
                TT_MOVE_SCORE
            } else if is_tactical(m) {
                CAPTURE_SCORE + tactical_score(m)
            } else if Some(m) == killers[0] {
                KILLER_SCORE + 1
            } else if Some(m) == killers[1] {
                KILLER_SCORE
            } else {
                history.get(side, m)
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders the moves of a quiescence node by MVV-LVA.
    pub fn tactical(moves: MoveList) -> MovePicker {
        let mut scores = [0; 256];
        for (score, &m) in scores.iter_mut().zip(moves.iter()) {
            *score = tactical_score(m);
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    /// Selection sort, one step at a time: cheap when a cutoff comes early.
    fn next(&mut self) -> Option<Move> {
        let len = self.moves.len();
        if self.next >= len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..len {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    #[test]
    fn yields_every_move_once_tt_move_first() {
        let pos: Chess = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let moves = pos.legal_moves();
        let tt_move = *moves.iter().find(|m| !is_tactical(**m)).unwrap();
        let picked: Vec<Move> = MovePicker::new(
            moves.clone(),
            Some(tt_move),
            &[None, None],
            &History::default(),
            Color::White,
        )
        .collect();
        assert_eq!(picked.len(), moves.len());
        assert_eq!(picked[0], tt_move);
        for m in &moves {
            assert_eq!(picked.iter().filter(|&&p| p == *m).count(), 1);
        }
        // After the TT move: all captures, most valuable victim first, then quiets.
        let tactical: Vec<i32> = picked[1..]
            .iter()
            .take_while(|m| is_tactical(**m))
            .map(|&m| tactical_score(m))
            .collect();
        assert_eq!(
            tactical.len(),
            moves.iter().filter(|m| is_tactical(**m)).count()
        );
        assert!(tactical.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn history_saturates() {
        let mut history = History::default();
        let m = Chess::default().legal_moves()[0];
        for _ in 0..1000 {
            history.update(Color::White, m, 400);
        }
        assert!(history.get(Color::White, m) <= HISTORY_MAX);
        assert!(history.get(Color::White, m) > HISTORY_MAX / 2);
        assert_eq!(history.get(Color::Black, m), 0);
    }
}
