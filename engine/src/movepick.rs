//! Move ordering (the histories it learns from are in [`crate::history`]).
//!
//! The [`MovePicker`] hands out the moves of a node in stages, so that the
//! work of ordering a stage is only done when the search gets that far:
//! the TT move; captures and promotions that do not lose material (by
//! static exchange), most valuable victim first, adjusted by capture
//! history; the two killer moves of the ply; the counter-move to the
//! opponent's last move; the other quiet moves by butterfly history plus
//! continuation history one, two and four plies back; and last the losing
//! captures. Every legal move is handed out exactly once.
//!
//! The picker orders the node's move list in place (the list is borrowed,
//! never copied), keeps losing captures at the front of that list, and hands
//! out with each move what it learnt while ordering it (the quiet move's
//! history score, whether a capture's exchange was found not to lose), so
//! that the search does not compute either twice. The history score is the
//! one the quiet moves were ordered by: searches of earlier moves of the
//! node may have changed the tables since.

use crate::history::{CaptureHistory, QuietContext};
use crate::params::{capture_history_divisor, capture_victim_weight};
use crate::see::{see_ge, value};
use shakmaty::{Chess, Color, Move, MoveList, Role};

/// Two quiet moves per ply that recently caused a beta cutoff.
pub type Killers = [Option<Move>; 2];

/// Whether a move changes material: a capture (en passant included) or a promotion.
pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

fn role_rank(role: Role) -> i32 {
    role as i32
}

/// The stages of a [`MovePicker`], in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    TtMove,
    ScoreTactical,
    GoodTactical,
    Killer1,
    Killer2,
    Counter,
    ScoreQuiet,
    Quiet,
    BadTactical,
    Done,
}

/// A move handed out by a [`MovePicker`], with what the picker knows of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Picked {
    /// The move.
    pub mv: Move,
    /// The quiet move's history score (butterfly plus continuations) when
    /// the picker computed it to order the move; `None` for tactical moves
    /// and for quiet moves handed out before the quiet stage.
    pub history: Option<i32>,
    /// Whether the move is tactical and its static exchange was found not
    /// to lose material.
    pub holds_material: bool,
}

/// Yields the moves of a node in stages, best-looking first, each exactly once.
pub struct MovePicker<'a> {
    moves: &'a mut MoveList,
    scores: [i32; 256],
    /// Moves before this index are handed out or set aside.
    next: usize,
    /// Tactical moves occupy `0..tactical_end` once partitioned.
    tactical_end: usize,
    /// Losing captures, set aside at `0..bad_end` for the last stage.
    bad_end: usize,
    bad_next: usize,
    stage: Stage,
    tt_move: Option<Move>,
    killers: Killers,
    counter: Option<Move>,
    side: Color,
    /// Whether quiet moves are handed out at all (not in quiescence).
    with_quiets: bool,
}

impl<'a> MovePicker<'a> {
    /// The picker of an interior node over its legal `moves`.
    pub fn new(
        moves: &'a mut MoveList,
        tt_move: Option<Move>,
        killers: Killers,
        counter: Option<Move>,
        side: Color,
    ) -> MovePicker<'a> {
        MovePicker {
            moves,
            scores: [0; 256],
            next: 0,
            tactical_end: 0,
            bad_end: 0,
            bad_next: 0,
            stage: Stage::TtMove,
            tt_move,
            killers,
            counter,
            side,
            with_quiets: true,
        }
    }

    /// The picker of a quiescence node over its legal `moves`: a tactical
    /// `tt_move` first, then captures and queen promotions only
    /// (underpromotions rarely matter there), by MVV-LVA, losing ones
    /// included (quiescence prunes them itself).
    pub fn tactical(moves: &'a mut MoveList, tt_move: Option<Move>, side: Color) -> MovePicker<'a> {
        let tt_move = tt_move.filter(|&m| is_tactical(m));
        let mut picker = MovePicker::new(moves, tt_move, [None; 2], None, side);
        picker.with_quiets = false;
        picker
    }

    /// Whether `m` is handed out by an earlier stage than the quiet stage.
    fn is_special_quiet(&self, m: Move) -> bool {
        Some(m) == self.tt_move
            || Some(m) == self.killers[0]
            || Some(m) == self.killers[1]
            || Some(m) == self.counter
    }

    /// Index of the best-scored move in `from..to`, swapped to `from`.
    fn select(&mut self, from: usize, to: usize) -> Option<Move> {
        if from >= to {
            return None;
        }
        // The first of the highest scores, found with the best score held
        // in a register and no bounds checks inside the loop.
        let scores = &self.scores[from..to];
        let mut best_offset = 0;
        let mut best_score = scores[0];
        for (offset, &score) in scores.iter().enumerate().skip(1) {
            if score > best_score {
                best_offset = offset;
                best_score = score;
            }
        }
        let best = from + best_offset;
        self.moves.swap(from, best);
        self.scores.swap(from, best);
        Some(self.moves[from])
    }

    /// A special quiet move (killer or counter) if it is legal here and not
    /// handed out already.
    fn special(&self, candidate: Option<Move>, earlier: &[Option<Move>]) -> Option<Move> {
        let m = candidate?;
        (!is_tactical(m) && !earlier.contains(&Some(m)) && self.moves.contains(&m)).then_some(m)
    }

    /// Whether the tactical move `m` is one this picker hands out.
    fn hands_out_tactical(&self, m: Move) -> bool {
        is_tactical(m)
            && Some(m) != self.tt_move
            && (self.with_quiets || m.promotion().is_none_or(|role| role == Role::Queen))
    }

    /// The next move, or `None` when every move was handed out.
    /// `pos` is the node's position (for exchange evaluation);
    /// `captures` and `quiets` are the tables that order the moves.
    pub fn next(
        &mut self,
        pos: &Chess,
        captures: &CaptureHistory,
        quiets: QuietContext<'_>,
    ) -> Option<Picked> {
        let plain = |mv| {
            Some(Picked {
                mv,
                history: None,
                holds_material: false,
            })
        };
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::ScoreTactical;
                    if let Some(m) = self.tt_move
                        && self.moves.contains(&m)
                    {
                        return plain(m);
                    }
                    self.tt_move = None;
                }
                Stage::ScoreTactical => {
                    // Move the tactical moves to the front and score them.
                    let mut end = 0;
                    for i in 0..self.moves.len() {
                        let m = self.moves[i];
                        if self.hands_out_tactical(m) {
                            self.moves.swap(end, i);
                            let victim =
                                m.capture().map_or(0, value) + m.promotion().map_or(0, value);
                            self.scores[end] = victim * capture_victim_weight()
                                + captures.get(self.side, m) / capture_history_divisor()
                                - role_rank(m.role());
                            end += 1;
                        }
                    }
                    self.tactical_end = end;
                    self.stage = Stage::GoodTactical;
                }
                Stage::GoodTactical => match self.select(self.next, self.tactical_end) {
                    Some(m) => {
                        if !self.with_quiets {
                            self.next += 1;
                            return plain(m);
                        }
                        if see_ge(pos, m, 0) {
                            self.next += 1;
                            return Some(Picked {
                                mv: m,
                                history: None,
                                holds_material: true,
                            });
                        }
                        // Set the losing capture aside at the front, in the
                        // order found (the slot it takes was handed out).
                        self.moves.swap(self.bad_end, self.next);
                        self.bad_end += 1;
                        self.next += 1;
                    }
                    None => {
                        self.stage = if self.with_quiets {
                            Stage::Killer1
                        } else {
                            Stage::BadTactical
                        };
                    }
                },
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    if let Some(killer) = self.special(self.killers[0], &[self.tt_move]) {
                        return plain(killer);
                    }
                    self.killers[0] = None;
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    if let Some(killer) =
                        self.special(self.killers[1], &[self.tt_move, self.killers[0]])
                    {
                        return plain(killer);
                    }
                    self.killers[1] = None;
                }
                Stage::Counter => {
                    self.stage = Stage::ScoreQuiet;
                    if let Some(counter) = self.special(
                        self.counter,
                        &[self.tt_move, self.killers[0], self.killers[1]],
                    ) {
                        return plain(counter);
                    }
                    self.counter = None;
                }
                Stage::ScoreQuiet => {
                    // Quiet moves other than those handed out already; the
                    // list keeps only them after the tactical moves.
                    let mut end = self.tactical_end;
                    for i in self.tactical_end..self.moves.len() {
                        let m = self.moves[i];
                        if !self.is_special_quiet(m) {
                            self.moves.swap(end, i);
                            self.scores[end] = quiets.score(self.side, m);
                            end += 1;
                        }
                    }
                    self.moves.truncate(end);
                    self.next = self.tactical_end;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => match self.select(self.next, self.moves.len()) {
                    Some(m) => {
                        let history = self.scores[self.next];
                        self.next += 1;
                        return Some(Picked {
                            mv: m,
                            history: Some(history),
                            holds_material: false,
                        });
                    }
                    None => self.stage = Stage::BadTactical,
                },
                Stage::BadTactical => {
                    if self.bad_next < self.bad_end {
                        self.bad_next += 1;
                        return plain(self.moves[self.bad_next - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{ContinuationHistory, History};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Position, Square};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    struct Tables {
        history: History,
        continuation: ContinuationHistory,
        captures: CaptureHistory,
    }

    impl Tables {
        fn context(&self) -> QuietContext<'_> {
            QuietContext {
                history: &self.history,
                continuation: &self.continuation,
                previous: Default::default(),
            }
        }
    }

    fn tables() -> Tables {
        Tables {
            history: History::default(),
            continuation: ContinuationHistory::default(),
            captures: CaptureHistory::default(),
        }
    }

    fn drain(mut picker: MovePicker, p: &Chess, t: &Tables) -> Vec<Move> {
        let mut out = Vec::new();
        while let Some(picked) = picker.next(p, &t.captures, t.context()) {
            out.push(picked.mv);
        }
        out
    }

    /// Perft through the picker, with a TT move, killers and a counter-move
    /// at every node taken from anywhere in the tree (often illegal here):
    /// it must count the same leaves as plain perft.
    fn picker_perft(p: &Chess, depth: u32, t: &Tables, seed: &mut u64) -> u64 {
        let moves = p.legal_moves();
        if depth == 0 {
            return 1;
        }
        let mut pick = |list: &MoveList| -> Option<Move> {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (!list.is_empty() && !seed.is_multiple_of(5))
                .then(|| list[(*seed % list.len() as u64) as usize])
        };
        let quiet: MoveList = moves.iter().copied().filter(|m| !is_tactical(*m)).collect();
        let tt_move = pick(&moves);
        let killers = [pick(&quiet), pick(&moves)];
        let counter = pick(&quiet);
        let order = drain(
            MovePicker::new(&mut moves.clone(), tt_move, killers, counter, p.turn()),
            p,
            t,
        );
        assert_eq!(order.len(), moves.len());
        for m in &moves {
            assert_eq!(order.iter().filter(|&&o| o == *m).count(), 1, "{m:?}");
        }
        order
            .iter()
            .map(|&m| {
                let mut child = p.clone();
                child.play_unchecked(m);
                picker_perft(&child, depth - 1, t, seed)
            })
            .sum()
    }

    #[test]
    fn picker_perft_matches_perft() {
        // Start position and "Kiwipete": perft counts from the Chess Programming Wiki.
        let t = tables();
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        assert_eq!(picker_perft(&Chess::default(), 4, &t, &mut seed), 197_281);
        let kiwipete = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        assert_eq!(picker_perft(&kiwipete, 3, &t, &mut seed), 97_862);
        let promotions = pos("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1");
        assert_eq!(picker_perft(&promotions, 3, &t, &mut seed), 9_467);
    }

    #[test]
    fn hands_out_what_it_learnt_of_each_move() {
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let mut t = tables();
        let quiet: Vec<Move> = p
            .legal_moves()
            .into_iter()
            .filter(|m| !is_tactical(*m))
            .collect();
        t.history.update(Color::White, quiet[3], 3000);
        t.history.update(Color::White, quiet[7], -2000);
        let mut moves = p.legal_moves();
        let killer = quiet[0];
        let mut picker =
            MovePicker::new(&mut moves, None, [Some(killer), None], None, Color::White);
        let mut handed_out = 0;
        while let Some(picked) = picker.next(&p, &t.captures, t.context()) {
            handed_out += 1;
            let m = picked.mv;
            if is_tactical(m) {
                assert_eq!(picked.history, None);
                // Good captures come with the verdict; losing ones without.
                if picked.holds_material {
                    assert!(see_ge(&p, m, 0), "{m}");
                }
            } else if m == killer {
                assert_eq!(picked.history, None);
            } else {
                assert_eq!(
                    picked.history,
                    Some(t.context().score(Color::White, m)),
                    "{m}"
                );
                assert!(!picked.holds_material);
            }
        }
        assert_eq!(handed_out, p.legal_moves().len());
    }

    #[test]
    fn quiescence_picker_hands_out_captures_and_queen_promotions_only() {
        let p = pos("r1n1k3/1P6/8/3p4/4P3/8/8/4K3 w - - 0 1");
        let t = tables();
        let mut moves = p.legal_moves();
        let order = drain(MovePicker::tactical(&mut moves, None, p.turn()), &p, &t);
        // bxa8=Q, b8=Q, bxc8=Q and exd5; no underpromotion, no quiet move.
        assert_eq!(order.len(), 4, "{order:?}");
        assert!(
            order
                .iter()
                .all(|m| is_tactical(*m) && m.promotion().is_none_or(|role| role == Role::Queen))
        );
    }

    #[test]
    fn quiescence_picker_hands_out_a_tactical_tt_move_first_and_never_a_quiet_one() {
        let p = pos("r1n1k3/1P6/8/3p4/4P3/8/8/4K3 w - - 0 1");
        let t = tables();
        let moves = p.legal_moves();
        let capture = *moves
            .iter()
            .find(|m| m.to() == Square::D5)
            .expect("exd5 is legal");
        let order = drain(
            MovePicker::tactical(&mut moves.clone(), Some(capture), p.turn()),
            &p,
            &t,
        );
        assert_eq!(order[0], capture);
        assert_eq!(order.len(), 4, "{order:?}");
        let quiet = *moves
            .iter()
            .find(|m| !is_tactical(**m))
            .expect("a quiet move");
        let order = drain(
            MovePicker::tactical(&mut moves.clone(), Some(quiet), p.turn()),
            &p,
            &t,
        );
        assert!(!order.contains(&quiet), "{order:?}");
        assert_eq!(order.len(), 4, "{order:?}");
    }

    #[test]
    fn stages_come_in_order() {
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let moves = p.legal_moves();
        let quiet: Vec<Move> = moves.iter().copied().filter(|m| !is_tactical(*m)).collect();
        let tt_move = quiet[0];
        let killer = quiet[1];
        let mut t = tables();
        t.history.update(Color::White, quiet[5], 4000);
        let order = drain(
            MovePicker::new(
                &mut moves.clone(),
                Some(tt_move),
                [Some(killer), None],
                None,
                Color::White,
            ),
            &p,
            &t,
        );
        assert_eq!(order[0], tt_move);
        let good: Vec<Move> = order[1..]
            .iter()
            .copied()
            .take_while(|m| is_tactical(*m))
            .collect();
        assert!(good.iter().all(|&m| see_ge(&p, m, 0)));
        assert_eq!(order[1 + good.len()], killer);
        // The quiet move with the best history follows the killer.
        assert_eq!(order[2 + good.len()], quiet[5]);
        // Losing captures come last.
        let last = *order.last().unwrap();
        assert!(is_tactical(last) && !see_ge(&p, last, 0));
        // Good captures: most valuable victim first.
        let victims: Vec<i32> = good.iter().map(|m| m.capture().map_or(0, value)).collect();
        assert!(victims.windows(2).all(|w| w[0] >= w[1]), "{victims:?}");
    }
}
