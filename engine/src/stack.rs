//! The search stack: one frame per ply of the line being searched, holding
//! what the search keeps about that ply (killers, the move made there, the
//! static evaluation, the principal variation from there on, ...).
//!
//! A few sentinel frames lie below the root, so that a node can look back
//! up to [`SENTINELS`] plies (for continuation histories, "improving", the
//! null move) without a special case near the root: below the root every
//! frame is empty.

use crate::history::{MovedPiece, PreviousMoves};
use crate::movepick::Killers;
use crate::score::{MAX_PLY, Score};
use shakmaty::Move;
use std::ops::{Index, IndexMut};

/// Frames below the root: how far back any node may look.
pub const SENTINELS: usize = 6;

/// What the search keeps about one ply of the current line.
#[derive(Clone)]
pub struct Frame {
    /// Quiet moves that recently caused a cutoff at this ply.
    pub killers: Killers,
    /// The piece moved at this ply and its target square; `None` for a null move.
    pub moved: MovedPiece,
    /// The move left out while testing whether the TT move is singular.
    pub excluded: Option<Move>,
    /// The static evaluation at this ply (`None` in check or not yet known).
    pub static_eval: Option<Score>,
    /// Whether the move made at this ply is a null move.
    pub null_move: bool,
    /// Double extensions on the line up to this ply, the move made here included.
    pub double_extensions: i32,
    /// Whether no null move may be tried at this ply (a null-move cutoff is
    /// being verified here).
    pub null_banned: bool,
    /// The principal variation found from this ply: moves `ply..pv_len`.
    pub pv: [Option<Move>; MAX_PLY + 1],
    /// The end of the principal variation in `pv`.
    pub pv_len: usize,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            killers: [None; 2],
            moved: None,
            excluded: None,
            static_eval: None,
            null_move: false,
            double_extensions: 0,
            null_banned: false,
            pv: [None; MAX_PLY + 1],
            pv_len: 0,
        }
    }
}

/// The frames of the plies `0..=MAX_PLY` (and one more), indexed by ply,
/// with [`SENTINELS`] empty frames before ply 0.
pub struct SearchStack {
    frames: Box<[Frame]>,
}

impl Default for SearchStack {
    fn default() -> Self {
        SearchStack {
            frames: vec![Frame::default(); SENTINELS + MAX_PLY + 2].into_boxed_slice(),
        }
    }
}

impl SearchStack {
    /// The frame `plies` plies before `ply` (a sentinel below the root).
    #[inline]
    pub fn back(&self, ply: usize, plies: usize) -> &Frame {
        debug_assert!(plies <= SENTINELS, "looking back {plies} plies");
        &self.frames[ply + SENTINELS - plies]
    }

    /// The moves one, two and four plies before `ply` (piece and target
    /// square), which the continuation histories and the counter-move are
    /// indexed by.
    #[inline]
    pub fn previous_moves(&self, ply: usize) -> PreviousMoves {
        PreviousMoves {
            one: self.back(ply, 1).moved,
            two: self.back(ply, 2).moved,
            four: self.back(ply, 4).moved,
        }
    }

    /// Makes `m` followed by the child's principal variation the principal
    /// variation of `ply`.
    pub fn update_pv(&mut self, ply: usize, m: Move) {
        let (parents, children) = self.frames.split_at_mut(ply + SENTINELS + 1);
        let (parent, child) = (&mut parents[ply + SENTINELS], &children[0]);
        parent.pv[ply] = Some(m);
        let child_len = child.pv_len.max(ply + 1);
        parent.pv[ply + 1..child_len].copy_from_slice(&child.pv[ply + 1..child_len]);
        parent.pv_len = child_len;
    }

    /// The principal variation found from the root.
    pub fn root_pv(&self) -> impl Iterator<Item = Move> + '_ {
        let root = &self[0];
        root.pv[..root.pv_len].iter().map_while(|m| *m)
    }
}

impl Index<usize> for SearchStack {
    type Output = Frame;

    #[inline]
    fn index(&self, ply: usize) -> &Frame {
        &self.frames[ply + SENTINELS]
    }
}

impl IndexMut<usize> for SearchStack {
    #[inline]
    fn index_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply + SENTINELS]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Color, Position};

    #[test]
    fn the_root_looks_back_onto_empty_frames() {
        let mut stack = SearchStack::default();
        stack[0].moved = Some((Color::White.knight(), shakmaty::Square::F3));
        for plies in 1..=SENTINELS {
            let frame = stack.back(0, plies);
            assert!(frame.moved.is_none() && frame.static_eval.is_none() && !frame.null_move);
        }
        assert_eq!(stack.previous_moves(0), PreviousMoves::default());
        assert_eq!(stack.previous_moves(1).one, stack[0].moved);
        assert_eq!(stack.previous_moves(2).two, stack[0].moved);
        assert_eq!(stack.previous_moves(4).four, stack[0].moved);
        assert_eq!(stack.previous_moves(3).four, None);
    }

    #[test]
    fn looking_back_sees_a_null_move_as_no_move() {
        let mut stack = SearchStack::default();
        let e4 = Chess::default().legal_moves()[0];
        stack[3].moved = crate::history::moved_piece(Color::White, e4);
        stack[4].null_move = true;
        stack[4].moved = None;
        assert!(stack.back(5, 1).null_move);
        let previous = stack.previous_moves(5);
        assert_eq!((previous.one, previous.two), (None, stack[3].moved));
        assert_eq!(stack.back(7, 4).moved, stack[3].moved);
    }

    #[test]
    fn principal_variations_grow_from_the_leaves() {
        let moves = Chess::default().legal_moves();
        let mut stack = SearchStack::default();
        stack[2].pv_len = 2;
        stack.update_pv(1, moves[1]);
        stack.update_pv(0, moves[0]);
        assert_eq!(stack.root_pv().collect::<Vec<_>>(), [moves[0], moves[1]]);
        // A new best move at the root whose child found no line.
        stack[1].pv_len = 1;
        stack.update_pv(0, moves[2]);
        assert_eq!(stack.root_pv().collect::<Vec<_>>(), [moves[2]]);
    }
}
