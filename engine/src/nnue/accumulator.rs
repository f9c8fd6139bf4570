//! The first layer's output for both views, and a stack of them that
//! follows the search path: making a move computes the child's accumulators
//! from the parent's by adding and subtracting the rows of the pieces that
//! moved, appeared or left (or, where a king move turns its side's view,
//! that view from scratch); unmaking pops.

use super::{InputLayout, Kernel, Layers, Network, Weights, feature_index};
use crate::score::{MAX_PLY, Score};
use shakmaty::{Board, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

/// The first-layer outputs of one position, for White's and Black's view,
/// of a network whose first layer is `H` wide.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator<const H: usize> {
    white: [i16; H],
    black: [i16; H],
}

impl<const H: usize> Accumulator<H> {
    /// Computes both views of `board` from scratch.
    pub fn refresh(
        layout: InputLayout,
        layers: &Layers<H>,
        board: &Board,
        kernel: Kernel,
    ) -> Accumulator<H> {
        let mut accumulator = Accumulator {
            white: layers.feature_bias,
            black: layers.feature_bias,
        };
        for perspective in [Color::White, Color::Black] {
            refresh_view(
                layout,
                layers,
                board,
                perspective,
                kernel,
                accumulator.view_mut(perspective),
            );
        }
        accumulator
    }

    /// The view of `perspective`.
    pub fn view(&self, perspective: Color) -> &[i16; H] {
        match perspective {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn view_mut(&mut self, perspective: Color) -> &mut [i16; H] {
        match perspective {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// The side to move's view and the other side's.
    pub fn views(&self, side: Color) -> (&[i16; H], &[i16; H]) {
        (self.view(side), self.view(!side))
    }
}

/// Computes `perspective`'s view of `board` from scratch into `view`.
fn refresh_view<const H: usize>(
    layout: InputLayout,
    layers: &Layers<H>,
    board: &Board,
    perspective: Color,
    kernel: Kernel,
    view: &mut [i16; H],
) {
    *view = layers.feature_bias;
    let orientation = layout.orientation_on(perspective, board);
    for (square, piece) in board {
        let before = *view;
        let row = &layers.feature_weights[feature_index(perspective, orientation, piece, square)];
        kernel.update(&before, view, &[row], &[]);
    }
}

/// The pieces a move takes off and puts on squares (at most two each).
struct Change {
    added: [(Piece, Square); 2],
    added_count: usize,
    removed: [(Piece, Square); 2],
    removed_count: usize,
}

impl Change {
    fn of(side: Color, m: Move) -> Change {
        let ours = |role| Piece { color: side, role };
        let theirs = |role| Piece { color: !side, role };
        let mut change = Change {
            added: [(ours(Role::Pawn), Square::A1); 2],
            added_count: 0,
            removed: [(ours(Role::Pawn), Square::A1); 2],
            removed_count: 0,
        };
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                change.remove(ours(role), from);
                change.add(ours(promotion.unwrap_or(role)), to);
                if let Some(captured) = capture {
                    change.remove(theirs(captured), to);
                }
            }
            Move::EnPassant { from, to } => {
                change.remove(ours(Role::Pawn), from);
                change.add(ours(Role::Pawn), to);
                change.remove(
                    theirs(Role::Pawn),
                    Square::from_coords(to.file(), from.rank()),
                );
            }
            Move::Castle { king, rook } => {
                // Chess960 castling may leave the king or the rook where it
                // stood, or swap their squares: removing both pieces before
                // adding both is right in every case.
                let castling = CastlingSide::from_king_side(king < rook);
                change.remove(ours(Role::King), king);
                change.remove(ours(Role::Rook), rook);
                change.add(ours(Role::King), castling.king_to(side));
                change.add(ours(Role::Rook), castling.rook_to(side));
            }
            Move::Put { .. } => unreachable!("standard chess has no drops"),
        }
        change
    }

    fn add(&mut self, piece: Piece, square: Square) {
        self.added[self.added_count] = (piece, square);
        self.added_count += 1;
    }

    fn remove(&mut self, piece: Piece, square: Square) {
        self.removed[self.removed_count] = (piece, square);
        self.removed_count += 1;
    }
}

/// Computes `line[top + 1]` from `line[top]` for the legal move `m`, played
/// by `side`, that leads to `board`. A king move that turns its side's view
/// (a king-mirrored network's king crossing between files d and e) computes
/// that view from scratch.
#[allow(clippy::too_many_arguments)]
fn push_on<const H: usize>(
    line: &mut [Accumulator<H>],
    top: usize,
    layout: InputLayout,
    layers: &Layers<H>,
    kernel: Kernel,
    side: Color,
    m: Move,
    board: &Board,
) {
    let change = Change::of(side, m);
    let (parents, children) = line.split_at_mut(top + 1);
    let parent = &parents[top];
    let child = &mut children[0];
    for perspective in [Color::White, Color::Black] {
        let orientation = layout.orientation_on(perspective, board);
        if perspective == side
            && m.role() == Role::King
            && m.from()
                .is_some_and(|from| layout.orientation(side, from) != orientation)
        {
            refresh_view(
                layout,
                layers,
                board,
                perspective,
                kernel,
                child.view_mut(perspective),
            );
            continue;
        }
        let rows = |pieces: &[(Piece, Square)]| {
            let mut rows = [&layers.feature_bias; 2];
            for (row, &(piece, square)) in rows.iter_mut().zip(pieces) {
                *row =
                    &layers.feature_weights[feature_index(perspective, orientation, piece, square)];
            }
            rows
        };
        let added = rows(&change.added[..change.added_count]);
        let removed = rows(&change.removed[..change.removed_count]);
        kernel.update(
            parent.view(perspective),
            child.view_mut(perspective),
            &added[..change.added_count],
            &removed[..change.removed_count],
        );
    }
}

/// The accumulators of one line, of the width of the network in use.
enum Line {
    Hidden128(Vec<Accumulator<128>>),
    Hidden256(Vec<Accumulator<256>>),
    Hidden384(Vec<Accumulator<384>>),
    Hidden512(Vec<Accumulator<512>>),
}

/// Accumulators of zeros, as many as a line of any search needs.
fn zeroed_line<const H: usize>() -> Vec<Accumulator<H>> {
    let zero = Accumulator {
        white: [0; H],
        black: [0; H],
    };
    vec![zero; MAX_PLY + 8]
}

impl Line {
    /// A line long enough for any search, for a first layer `hidden` wide.
    fn new(hidden: usize) -> Line {
        match hidden {
            128 => Line::Hidden128(zeroed_line()),
            256 => Line::Hidden256(zeroed_line()),
            384 => Line::Hidden384(zeroed_line()),
            512 => Line::Hidden512(zeroed_line()),
            _ => unreachable!("networks are {:?} wide", super::HIDDEN_SIZES),
        }
    }

    fn hidden(&self) -> usize {
        match self {
            Line::Hidden128(_) => 128,
            Line::Hidden256(_) => 256,
            Line::Hidden384(_) => 384,
            Line::Hidden512(_) => 512,
        }
    }
}

/// Accumulators along the current line of a search: index 0 is the root.
/// The stack takes the width of the network it was last [reset] with, and
/// every later call must pass that same network.
///
/// [reset]: AccumulatorStack::reset
pub struct AccumulatorStack {
    line: Line,
    top: usize,
    kernel: Kernel,
}

impl Default for AccumulatorStack {
    fn default() -> Self {
        AccumulatorStack::new(Kernel::detect())
    }
}

/// The message of a stack used with a network of another width than the
/// one it was reset with: a bug in the caller.
const WIDTH_MISMATCH: &str = "the accumulator stack was reset with a network of another width";

impl AccumulatorStack {
    /// An empty stack whose updates run on `kernel`.
    pub fn new(kernel: Kernel) -> AccumulatorStack {
        AccumulatorStack {
            line: Line::new(super::DEFAULT_HIDDEN),
            top: 0,
            kernel,
        }
    }

    /// Starts a new line at `pos`, computed from scratch with `net`.
    pub fn reset(&mut self, net: &Network, pos: &Chess) {
        self.top = 0;
        if self.line.hidden() != net.hidden() {
            self.line = Line::new(net.hidden());
        }
        let (layout, kernel, board) = (net.layout, self.kernel, pos.board());
        match (&mut self.line, &net.weights) {
            (Line::Hidden128(line), Weights::Hidden128(layers)) => {
                line[0] = Accumulator::refresh(layout, layers, board, kernel);
            }
            (Line::Hidden256(line), Weights::Hidden256(layers)) => {
                line[0] = Accumulator::refresh(layout, layers, board, kernel);
            }
            (Line::Hidden384(line), Weights::Hidden384(layers)) => {
                line[0] = Accumulator::refresh(layout, layers, board, kernel);
            }
            (Line::Hidden512(line), Weights::Hidden512(layers)) => {
                line[0] = Accumulator::refresh(layout, layers, board, kernel);
            }
            _ => unreachable!("the line was just made for this width"),
        }
    }

    /// Follows the legal move `m`, played by `side` (the side to move
    /// before it), to the position whose board is `board`.
    #[inline]
    pub fn push(&mut self, net: &Network, side: Color, m: Move, board: &Board) {
        let (top, layout, kernel) = (self.top, net.layout, self.kernel);
        match (&mut self.line, &net.weights) {
            (Line::Hidden128(line), Weights::Hidden128(layers)) => {
                push_on(line, top, layout, layers, kernel, side, m, board);
            }
            (Line::Hidden256(line), Weights::Hidden256(layers)) => {
                push_on(line, top, layout, layers, kernel, side, m, board);
            }
            (Line::Hidden384(line), Weights::Hidden384(layers)) => {
                push_on(line, top, layout, layers, kernel, side, m, board);
            }
            (Line::Hidden512(line), Weights::Hidden512(layers)) => {
                push_on(line, top, layout, layers, kernel, side, m, board);
            }
            _ => panic!("{WIDTH_MISMATCH}"),
        }
        self.top += 1;
    }

    /// Follows a null move: the pieces stay where they are.
    pub fn push_null(&mut self) {
        let top = self.top;
        match &mut self.line {
            Line::Hidden128(line) => line[top + 1] = line[top],
            Line::Hidden256(line) => line[top + 1] = line[top],
            Line::Hidden384(line) => line[top + 1] = line[top],
            Line::Hidden512(line) => line[top + 1] = line[top],
        }
        self.top += 1;
    }

    /// Goes back to the parent position.
    pub fn pop(&mut self) {
        self.top -= 1;
    }

    /// The network's evaluation of the current position for `side` to
    /// move, with `pieces` pieces on the board.
    #[inline]
    pub fn evaluate(&self, net: &Network, side: Color, pieces: usize) -> Score {
        match (&self.line, &net.weights) {
            (Line::Hidden128(line), Weights::Hidden128(layers)) => {
                layers.evaluate(&line[self.top], side, pieces, self.kernel)
            }
            (Line::Hidden256(line), Weights::Hidden256(layers)) => {
                layers.evaluate(&line[self.top], side, pieces, self.kernel)
            }
            (Line::Hidden384(line), Weights::Hidden384(layers)) => {
                layers.evaluate(&line[self.top], side, pieces, self.kernel)
            }
            (Line::Hidden512(line), Weights::Hidden512(layers)) => {
                layers.evaluate(&line[self.top], side, pieces, self.kernel)
            }
            _ => panic!("{WIDTH_MISMATCH}"),
        }
    }

    /// Whether the current accumulators equal those computed from scratch
    /// for `board` with `kernel` (a check for tests and debug builds).
    pub fn is_fresh(&self, net: &Network, board: &Board, kernel: Kernel) -> bool {
        match (&self.line, &net.weights) {
            (Line::Hidden128(line), Weights::Hidden128(layers)) => {
                line[self.top] == Accumulator::refresh(net.layout, layers, board, kernel)
            }
            (Line::Hidden256(line), Weights::Hidden256(layers)) => {
                line[self.top] == Accumulator::refresh(net.layout, layers, board, kernel)
            }
            (Line::Hidden384(line), Weights::Hidden384(layers)) => {
                line[self.top] == Accumulator::refresh(net.layout, layers, board, kernel)
            }
            (Line::Hidden512(line), Weights::Hidden512(layers)) => {
                line[self.top] == Accumulator::refresh(net.layout, layers, board, kernel)
            }
            _ => panic!("{WIDTH_MISMATCH}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::{InputLayout, Lcg};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode, File};
    use std::sync::Arc;

    /// The kinds of move a run of [`random_games`] played.
    #[derive(Debug, Default)]
    struct Seen {
        captures: usize,
        /// Castling by colour (White, Black) and wing (king side, queen side).
        castles: [[usize; 2]; 2],
        en_passant: usize,
        capture_promotions: usize,
        under_promotions: usize,
        /// Moves played from a position right after another of its moves
        /// was unmade.
        siblings: usize,
        /// King moves (castling included) between files a–d and e–h.
        king_crossings: usize,
    }

    impl Seen {
        fn note(&mut self, pos: &Chess, m: Move) {
            self.captures += usize::from(m.is_capture());
            if let Move::Castle { king, rook } = m {
                let wing = usize::from(king > rook);
                self.castles[usize::from(pos.turn() == Color::Black)][wing] += 1;
            }
            self.en_passant += usize::from(m.is_en_passant());
            self.capture_promotions += usize::from(m.is_promotion() && m.is_capture());
            self.under_promotions +=
                usize::from(m.promotion().is_some_and(|role| role != Role::Queen));
            let king_side = |p: &Chess| p.board().king_of(pos.turn()).map(|k| k.file() >= File::E);
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.king_crossings += usize::from(king_side(pos) != king_side(&child));
        }

        fn castled_both_ways_with_both_colours(&self) -> bool {
            self.castles.iter().flatten().all(|&n| n > 0)
        }
    }

    /// Checks that the stack's current accumulators equal a fresh
    /// computation for `pos`.
    fn assert_fresh(stack: &AccumulatorStack, net: &Network, pos: &Chess, after: &str) {
        assert!(
            stack.is_fresh(net, pos.board(), Kernel::Portable),
            "after {after} in {}",
            Fen::from_position(pos, EnPassantMode::Legal)
        );
    }

    /// Plays random games from `fen`, checking after every move, after
    /// every unmake and after unmaking all of them that `net`'s incremental
    /// accumulators equal a fresh computation. Now and then a move is
    /// tried, unmade and followed by a sibling, as the search does.
    fn random_games(
        net: &Network,
        fen: &str,
        mode: CastlingMode,
        games: u64,
        kernel: Kernel,
        seen: &mut Seen,
    ) {
        let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        for game in 0..games {
            let mut rng = Lcg(game + 1);
            let mut stack = AccumulatorStack::new(kernel);
            stack.reset(net, &start);
            let mut line = vec![start.clone()];
            for _ in 0..MAX_PLY {
                let pos = line.last().unwrap().clone();
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Prefer the rarer kinds of move when there are any.
                let special: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
                    .collect();
                let pick = |rng: &mut Lcg| {
                    if !special.is_empty() && rng.below(2) == 0 {
                        special[rng.below(special.len())]
                    } else {
                        moves[rng.below(moves.len())]
                    }
                };
                let mut m = pick(&mut rng);
                if moves.len() > 1 && rng.below(4) == 0 {
                    // Try `m`, take it back, and play a sibling instead.
                    seen.note(&pos, m);
                    let mut tried = pos.clone();
                    tried.play_unchecked(m);
                    stack.push(net, pos.turn(), m, tried.board());
                    assert_fresh(&stack, net, &tried, &m.to_string());
                    stack.pop();
                    assert_fresh(&stack, net, &pos, &format!("unmaking {m}"));
                    let sibling = pick(&mut rng);
                    seen.siblings += usize::from(sibling != m);
                    m = sibling;
                }
                seen.note(&pos, m);
                let turn = pos.turn();
                let mut child = pos;
                child.play_unchecked(m);
                stack.push(net, turn, m, child.board());
                assert_fresh(&stack, net, &child, &m.to_string());
                line.push(child);
            }
            while line.len() > 1 {
                line.pop();
                stack.pop();
                assert_fresh(&stack, net, line.last().unwrap(), "unmaking");
            }
        }
    }

    /// The embedded network (256 wide), the same weights read as a
    /// king-mirrored network, both narrowed to 128, a random plain network
    /// 384 wide and a random king-mirrored one 512 wide, so that both
    /// layouts' and every width's updates are checked.
    fn networks() -> [Arc<Network>; 6] {
        let plain = Network::embedded();
        let mut mirrored = (*plain).clone();
        mirrored.layout = InputLayout::KingMirrored;
        let narrow = crate::nnue::narrowed(&plain);
        let narrow_mirrored = crate::nnue::narrowed(&mirrored);
        [
            plain,
            Arc::new(mirrored),
            Arc::new(narrow),
            Arc::new(narrow_mirrored),
            Arc::new(crate::nnue::random_network::<384>(1, InputLayout::Plain)),
            Arc::new(crate::nnue::random_network::<512>(
                2,
                InputLayout::KingMirrored,
            )),
        ]
    }

    #[test]
    fn incremental_updates_equal_a_fresh_computation() {
        for net in networks() {
            for kernel in Kernel::available() {
                let mut seen = Seen::default();
                for fen in [
                    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                    // Pawns about to promote, with and without a capture,
                    // next to both sides' castling and an en passant capture.
                    "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                    // Bare kings and a rook: long walks across the d/e line.
                    "8/8/3k4/8/8/4K3/8/7R w - - 0 1",
                ] {
                    random_games(&net, fen, CastlingMode::Standard, 40, kernel, &mut seen);
                }
                assert!(
                    seen.captures > 0
                        && seen.castled_both_ways_with_both_colours()
                        && seen.en_passant > 0
                        && seen.capture_promotions > 0
                        && seen.under_promotions > 0
                        && seen.siblings > 0
                        && seen.king_crossings > 100,
                    "move kinds seen with {kernel:?} and {net:?} ({:?}): {seen:?}",
                    net.layout
                );
            }
        }
    }

    #[test]
    fn chess960_castling_updates_equal_a_fresh_computation() {
        // Kings and rooks on squares where castling moves one of them onto
        // the other's square, or leaves one where it stands, or carries the
        // king across the d/e line.
        for net in networks() {
            for fen in [
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
                "2r1kr2/8/8/8/8/8/8/2R1KR2 w FCfc - 0 1",
            ] {
                let mut seen = Seen::default();
                random_games(
                    &net,
                    fen,
                    CastlingMode::Chess960,
                    30,
                    Kernel::detect(),
                    &mut seen,
                );
                assert!(
                    seen.castled_both_ways_with_both_colours() && seen.king_crossings > 0,
                    "castling seen from {fen}: {seen:?}"
                );
            }
        }
    }

    #[test]
    fn null_moves_keep_the_accumulators() {
        let start = Chess::default();
        for net in networks() {
            let mut stack = AccumulatorStack::default();
            stack.reset(&net, &start);
            let root = stack.evaluate(&net, start.turn(), 32);
            stack.push_null();
            assert!(stack.is_fresh(&net, start.board(), Kernel::Portable));
            assert_eq!(stack.evaluate(&net, start.turn(), 32), root);
            stack.pop();
            assert!(stack.is_fresh(&net, start.board(), Kernel::Portable));
        }
    }

    #[test]
    fn a_stack_follows_the_width_of_the_network_it_is_reset_with() {
        let [wide, _, narrow, _, wider, widest] = networks();
        let start = Chess::default();
        let mut stack = AccumulatorStack::default();
        for net in [&narrow, &wide, &widest, &narrow, &wider, &wide] {
            stack.reset(net, &start);
            assert_eq!(stack.line.hidden(), net.hidden());
            assert!(stack.is_fresh(net, start.board(), Kernel::Portable));
            assert_eq!(
                stack.evaluate(net, start.turn(), 32),
                net.evaluate_position(&start)
            );
        }
    }

    #[test]
    #[should_panic(expected = "another width")]
    fn a_stack_refuses_a_network_of_another_width() {
        let [wide, _, narrow, ..] = networks();
        let mut stack = AccumulatorStack::default();
        stack.reset(&narrow, &Chess::default());
        stack.evaluate(&wide, Color::White, 32);
    }
}
