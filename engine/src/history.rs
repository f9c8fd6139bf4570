//! The histories that move ordering and reductions learn from: butterfly
//! history of quiet moves, capture history, continuation history (a quiet
//! move after an earlier move) and counter-moves, with the bonus a cutoff
//! earns and the update that gives it.
//!
//! Every score moves toward its bonus with "gravity": an entry near the
//! bound [`HISTORY_MAX`] moves less, so that old lessons fade as new ones
//! come and no entry leaves the bound.

use crate::params::{history_bonus_max, history_bonus_scale};
use shakmaty::{Color, Move, Piece, Square};

/// History scores stay within this bound.
pub const HISTORY_MAX: i32 = 16_384;

/// A piece and the square it moved to: what continuation histories and
/// counter-moves are indexed by. `None` after a null move (and before the root).
pub type MovedPiece = Option<(Piece, Square)>;

/// The moves one, two and four plies before a node, which its continuation
/// histories (and, for the first, its counter-move) are indexed by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PreviousMoves {
    /// The opponent's last move.
    pub one: MovedPiece,
    /// The side to move's last move.
    pub two: MovedPiece,
    /// The side to move's move before that.
    pub four: MovedPiece,
}

impl PreviousMoves {
    /// The earlier moves the continuation histories follow.
    fn followed(self) -> [MovedPiece; 3] {
        [self.one, self.two, self.four]
    }
}

/// What continuation histories and counter-moves record of move `m` by `side`.
pub fn moved_piece(side: Color, m: Move) -> MovedPiece {
    Some((m.role().of(side), m.to()))
}

/// The bonus (or, negated, the malus) a cutoff at `depth` gives.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth).min(history_bonus_max()) * history_bonus_scale()
}

/// Moves `entry` toward `bonus` with saturation at [`HISTORY_MAX`]: a
/// positive bonus rewards, a negative one punishes.
fn apply(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let current = i32::from(*entry);
    *entry = (current + bonus - current * bonus.abs() / HISTORY_MAX) as i16;
}

fn piece_index(piece: Piece) -> usize {
    (piece.role as usize - 1) * 2 + piece.color as usize
}

/// The butterfly index of a move: its from-square and its to-square, 64
/// by 64 (castling as the king's square and the rook's, as the move is
/// written in Chess960).
fn from_to(m: Move) -> usize {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { king, rook } => (king, rook),
        Move::Put { to, .. } => (to, to),
    };
    usize::from(from) | usize::from(to) << 6
}

/// Butterfly history: how often a quiet move (by side, from, to) caused a cutoff.
pub struct History {
    table: Box<[[i16; 64 * 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[0; 64 * 64]; 2]),
        }
    }
}

impl History {
    /// The score of a quiet move for `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        i32::from(self.table[side as usize][from_to(m)])
    }

    /// Rewards (positive `bonus`) or punishes a quiet move of `side`.
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        apply(&mut self.table[side as usize][from_to(m)], bonus);
    }
}

/// Capture history: how often a capture (by piece, target square and
/// captured role) caused a cutoff.
pub struct CaptureHistory {
    table: Box<[[[i16; 6]; 64]; 12]>,
}

impl Default for CaptureHistory {
    fn default() -> Self {
        CaptureHistory {
            table: Box::new([[[0; 6]; 64]; 12]),
        }
    }
}

fn capture_index(side: Color, m: Move) -> (usize, usize, usize) {
    let captured = m.capture().map_or(0, |r| r as usize - 1);
    (piece_index(m.role().of(side)), m.to() as usize, captured)
}

impl CaptureHistory {
    /// The score of a capture (or promotion) by `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        let (p, to, captured) = capture_index(side, m);
        i32::from(self.table[p][to][captured])
    }

    /// Rewards or punishes a capture of `side`.
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let (p, to, captured) = capture_index(side, m);
        apply(&mut self.table[p][to][captured], bonus);
    }
}

/// Continuation history: how good a quiet move is right after a given
/// earlier move (piece and target square), whoever played it.
pub struct ContinuationHistory {
    table: Box<[[[[i16; 64]; 12]; 64]; 12]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        // 1.2 MB: allocate on the heap directly, zeroed.
        let table = vec![[[[0i16; 64]; 12]; 64]; 12]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("the vector has 12 entries"));
        ContinuationHistory { table }
    }
}

impl ContinuationHistory {
    /// The score of `m` by `side` after the earlier move `before`.
    pub fn get(&self, before: MovedPiece, side: Color, m: Move) -> i32 {
        before.map_or(0, |(piece, sq)| {
            i32::from(
                self.table[piece_index(piece)][sq as usize][piece_index(m.role().of(side))]
                    [m.to() as usize],
            )
        })
    }

    /// Rewards or punishes `m` by `side` after `before`.
    pub fn update(&mut self, before: MovedPiece, side: Color, m: Move, bonus: i32) {
        if let Some((piece, sq)) = before {
            apply(
                &mut self.table[piece_index(piece)][sq as usize][piece_index(m.role().of(side))]
                    [m.to() as usize],
                bonus,
            );
        }
    }
}

/// The quiet reply that last refuted each move (by piece and target square).
pub struct CounterMoves {
    table: Box<[[Option<Move>; 64]; 12]>,
}

impl Default for CounterMoves {
    fn default() -> Self {
        CounterMoves {
            table: Box::new([[None; 64]; 12]),
        }
    }
}

impl CounterMoves {
    /// The counter-move to `before`, if one is known.
    pub fn get(&self, before: MovedPiece) -> Option<Move> {
        before.and_then(|(piece, sq)| self.table[piece_index(piece)][sq as usize])
    }

    /// Records `reply` as the counter-move to `before`.
    pub fn set(&mut self, before: MovedPiece, reply: Move) {
        if let Some((piece, sq)) = before {
            self.table[piece_index(piece)][sq as usize] = Some(reply);
        }
    }
}

/// Every table the ordering of quiet moves reads, for one node.
#[derive(Clone, Copy)]
pub struct QuietContext<'a> {
    /// Butterfly history.
    pub history: &'a History,
    /// Continuation history.
    pub continuation: &'a ContinuationHistory,
    /// The moves that led to this node.
    pub previous: PreviousMoves,
}

impl QuietContext<'_> {
    /// The combined history score of a quiet move of `side`.
    pub fn score(&self, side: Color, m: Move) -> i32 {
        self.history.get(side, m)
            + self
                .previous
                .followed()
                .iter()
                .map(|&before| self.continuation.get(before, side, m))
                .sum::<i32>()
    }
}

/// The moves a node tried before the one that caused a cutoff.
pub struct Tried<'a> {
    /// Quiet moves, in the order tried.
    pub quiets: &'a [Option<Move>],
    /// Captures and promotions, in the order tried.
    pub captures: &'a [Option<Move>],
}

/// All of one search thread's move-ordering histories.
#[derive(Default)]
pub struct Histories {
    /// Butterfly history of quiet moves.
    pub quiet: History,
    /// History of captures and promotions.
    pub captures: CaptureHistory,
    /// Continuation history of quiet moves after earlier moves.
    pub continuation: ContinuationHistory,
    /// The last quiet refutation of each move.
    pub counters: CounterMoves,
}

impl Histories {
    /// The tables that order quiet moves played after `previous`.
    #[inline]
    pub fn quiet_context(&self, previous: PreviousMoves) -> QuietContext<'_> {
        QuietContext {
            history: &self.quiet,
            continuation: &self.continuation,
            previous,
        }
    }

    /// `m`, played by `side` after `previous`, caused a cutoff at `depth`.
    /// A quiet one becomes the counter-move to the opponent's last move, and its
    /// histories rise while those of the quiet moves tried before it fall; a
    /// capture's history rises. Captures tried before it lose history either way.
    pub fn reward_cutoff(
        &mut self,
        side: Color,
        m: Move,
        is_quiet: bool,
        depth: i32,
        previous: PreviousMoves,
        tried: Tried<'_>,
    ) {
        let bonus = history_bonus(depth);
        if is_quiet {
            self.counters.set(previous.one, m);
            for (quiet, sign) in
                std::iter::once((m, 1)).chain(tried.quiets.iter().flatten().map(|&q| (q, -1)))
            {
                self.quiet.update(side, quiet, sign * bonus);
                for before in previous.followed() {
                    self.continuation.update(before, side, quiet, sign * bonus);
                }
            }
        } else {
            self.captures.update(side, m, bonus);
        }
        for capture in tried.captures.iter().flatten() {
            self.captures.update(side, *capture, -bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn butterfly_indices_are_from_and_to_squares() {
        let e2e4 = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        assert_eq!(from_to(e2e4), 12 + 28 * 64);
        let castle = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        assert_eq!(from_to(castle), 4 + 7 * 64);
        let en_passant = Move::EnPassant {
            from: Square::E5,
            to: Square::D6,
        };
        assert_eq!(from_to(en_passant), 36 + 43 * 64);
        // Promotions to different pieces share their squares' entry.
        let promotion = |role| Move::Normal {
            role: shakmaty::Role::Pawn,
            from: Square::A7,
            capture: None,
            to: Square::A8,
            promotion: Some(role),
        };
        assert_eq!(
            from_to(promotion(shakmaty::Role::Queen)),
            from_to(promotion(shakmaty::Role::Knight))
        );
    }

    #[test]
    fn histories_saturate() {
        let mut history = History::default();
        let m = Chess::default().legal_moves()[0];
        for _ in 0..1000 {
            history.update(Color::White, m, 400);
        }
        assert!(history.get(Color::White, m) <= HISTORY_MAX);
        assert!(history.get(Color::White, m) > HISTORY_MAX / 2);
        assert_eq!(history.get(Color::Black, m), 0);
        let mut continuation = ContinuationHistory::default();
        let before = Some((Color::Black.knight(), Square::F6));
        for _ in 0..1000 {
            continuation.update(before, Color::White, m, -400);
        }
        assert!(continuation.get(before, Color::White, m) >= -HISTORY_MAX);
        assert!(continuation.get(before, Color::White, m) < -HISTORY_MAX / 2);
        assert_eq!(continuation.get(None, Color::White, m), 0);
    }

    #[test]
    fn a_cutoff_rewards_its_move_and_punishes_those_tried_before() {
        let moves = Chess::default().legal_moves();
        let (cut, tried_quiet) = (moves[0], moves[1]);
        let previous = Some((Color::Black.pawn(), Square::E5));
        let mut histories = Histories::default();
        histories.reward_cutoff(
            Color::White,
            cut,
            true,
            5,
            PreviousMoves {
                one: previous,
                ..PreviousMoves::default()
            },
            Tried {
                quiets: &[Some(tried_quiet)],
                captures: &[],
            },
        );
        let bonus = history_bonus(5);
        assert!(bonus > 0);
        assert_eq!(histories.quiet.get(Color::White, cut), bonus);
        assert_eq!(histories.quiet.get(Color::White, tried_quiet), -bonus);
        assert_eq!(
            histories.continuation.get(previous, Color::White, cut),
            bonus
        );
        assert_eq!(
            histories
                .continuation
                .get(previous, Color::White, tried_quiet),
            -bonus
        );
        assert_eq!(histories.counters.get(previous), Some(cut));
        // The other side's tables are untouched.
        assert_eq!(histories.quiet.get(Color::Black, cut), 0);
    }

    #[test]
    fn a_cutoff_teaches_the_continuations_of_every_earlier_move_it_follows() {
        let moves = Chess::default().legal_moves();
        let (cut, tried) = (moves[0], moves[1]);
        let previous = PreviousMoves {
            one: Some((Color::Black.knight(), Square::C6)),
            two: None,
            four: Some((Color::White.pawn(), Square::E4)),
        };
        let mut histories = Histories::default();
        histories.reward_cutoff(
            Color::White,
            cut,
            true,
            7,
            previous,
            Tried {
                quiets: &[Some(tried)],
                captures: &[],
            },
        );
        let bonus = history_bonus(7);
        for before in [previous.one, previous.four] {
            assert_eq!(histories.continuation.get(before, Color::White, cut), bonus);
            assert_eq!(
                histories.continuation.get(before, Color::White, tried),
                -bonus
            );
        }
        // No move two plies back (a null move there): nothing to learn or read.
        assert_eq!(histories.continuation.get(None, Color::White, cut), 0);
        let context = histories.quiet_context(previous);
        assert_eq!(context.score(Color::White, cut), 3 * bonus);
        assert_eq!(context.score(Color::White, tried), -3 * bonus);
    }

    #[test]
    fn the_bonus_grows_with_depth_up_to_its_cap() {
        assert!(history_bonus(3) < history_bonus(6));
        assert_eq!(
            history_bonus(1000),
            history_bonus_max() * history_bonus_scale()
        );
    }
}
