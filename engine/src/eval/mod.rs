//! Static evaluation: a hand-crafted, tapered evaluation over shakmaty's
//! bitboards.
//!
//! Every term is a feature count times a weight (`terms` lays the weights
//! out, `weights` holds their values). The middlegame and endgame sums are
//! blended by the game phase, and the endgame half is scaled down in drawish
//! material. The same code records the feature counts when traced, which is
//! how the `eval` command breaks a score down and how the tuner sees a
//! position: the evaluation and the tuner cannot disagree.
//!
//! The starting weights of the material and piece-square tables are the
//! published PeSTO parameters by Ronald Friederich (Chess Programming Wiki,
//! "PeSTO's Evaluation Function"); the tuner refines all of them together.

pub mod pawns;
mod score;
pub mod terms;
pub mod weights;

pub use pawns::PawnTable;
pub use score::S;
pub use terms::Group;

use pawns::{
    FILES, FRONT_SPAN, PASSED_SPAN, colour_index, pawn_attacks, relative_rank, stop_square,
};
use shakmaty::{Bitboard, Chess, Color, Position, Role, Square, attacks};
use terms::*;
use weights::WEIGHTS;

use crate::score::Score;

/// Phase weight of each piece type, pawn to king.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Phase of the full set of pieces.
pub const MAX_PHASE: i32 = 24;
/// Endgame scale of a normal position; smaller values pull the endgame score toward a draw.
pub const NORMAL_SCALE: i32 = 64;

/// Receives every feature the evaluation counts. The search uses `NoTrace`,
/// which compiles to nothing.
pub trait Trace {
    /// Whether the evaluation must report features (and skip its caches).
    const ENABLED: bool;
    /// `count` more of `feature` for `colour`.
    fn record(&mut self, colour: Color, feature: usize, count: i32);
}

/// The trace of a plain evaluation: records nothing.
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn record(&mut self, _: Color, _: usize, _: i32) {}
}

/// Sums weighted features, White minus Black, and passes them to the trace.
pub struct Accumulator<'t, T: Trace> {
    /// The sum so far, White minus Black.
    pub score: S,
    trace: &'t mut T,
}

impl<T: Trace> Accumulator<'_, T> {
    /// Adds `count` times the weight of `feature` for `colour`.
    #[inline(always)]
    pub fn add(&mut self, colour: Color, feature: usize, count: i32) {
        let value = WEIGHTS[feature] * count;
        match colour {
            Color::White => self.score += value,
            Color::Black => self.score -= value,
        }
        if T::ENABLED {
            self.trace.record(colour, feature, count);
        }
    }
}

/// The result of an evaluation, White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluation {
    /// Middlegame sum.
    pub mg: Score,
    /// Endgame sum, before scaling.
    pub eg: Score,
    /// Game phase, 0 (pawns and kings only) to 24 (all pieces).
    pub phase: i32,
    /// Endgame scale, 0 (dead draw) to `NORMAL_SCALE`.
    pub scale: i32,
    /// Blended score, White's point of view.
    pub white: Score,
}

/// Blends a middlegame and an endgame score by phase and endgame scale. A
/// scale of 0 marks material that cannot win: the score is then 0.
pub fn blend(mg: Score, eg: Score, phase: i32, scale: i32) -> Score {
    if scale == 0 {
        return 0;
    }
    (mg * phase + eg * scale / NORMAL_SCALE * (MAX_PHASE - phase)) / MAX_PHASE
}

const CENTRE_FILES: u64 = 0x3c3c_3c3c_3c3c_3c3c;
/// Ranks 2 to 4 of each colour, indexed by `colour_index`.
const OWN_HALF_SPACE: [u64; 2] = [0x00ff_ffff_0000_0000, 0x0000_0000_ffff_ff00];
/// Ranks 4 to 6 of each colour, where outposts count.
const OUTPOST_RANKS: [u64; 2] = [0x0000_00ff_ffff_0000, 0x0000_ffff_ff00_0000];

/// The minor and major roles, in mobility order.
const PIECE_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
const MOBILITY: [usize; 4] = [
    MOBILITY_KNIGHT,
    MOBILITY_BISHOP,
    MOBILITY_ROOK,
    MOBILITY_QUEEN,
];

/// Evaluates `pos`, recording features into `trace`. `pawns`, if given,
/// caches the pawn structure; it is bypassed while tracing.
pub fn evaluate_traced<T: Trace>(
    pos: &Chess,
    pawns: Option<&mut PawnTable>,
    trace: &mut T,
) -> Evaluation {
    let board = pos.board();
    let mut acc = Accumulator {
        score: S::default(),
        trace,
    };
    let occupied = board.occupied();
    let mut phase = 0;
    let mut piece_units = [0u32; 2];
    for c in [Color::White, Color::Black] {
        // Piece-square tables are written from White's side: flip Black's squares.
        let flip = if c == Color::White { 0 } else { 56 };
        for (r, role) in Role::ALL.into_iter().enumerate() {
            let pieces = board.by_piece(role.of(c));
            if pieces.is_empty() {
                continue;
            }
            if role != Role::King {
                acc.add(c, MATERIAL + r, pieces.count() as i32);
            }
            piece_units[colour_index(c)] += PIECE_UNITS[r] * pieces.count() as u32;
            phase += PHASE_WEIGHT[r] * pieces.count() as i32;
            for sq in pieces {
                acc.add(c, PSQT + r * 64 + (sq as usize ^ flip), 1);
            }
        }
    }
    let phase = phase.min(MAX_PHASE);

    let pawn_bb = [
        board.by_piece(Color::Black.pawn()).0,
        board.by_piece(Color::White.pawn()).0,
    ];
    let info = match pawns {
        Some(table) if !T::ENABLED => {
            if let Some(info) = table.get(pawn_bb) {
                acc.score += info.score;
                info
            } else {
                let info = pawns::evaluate_pawns(pawn_bb, &mut acc);
                table.put(pawn_bb, info);
                info
            }
        }
        _ => pawns::evaluate_pawns(pawn_bb, &mut acc),
    };

    let sides = [Color::Black, Color::White];
    let kings = sides.map(|c| board.king_of(c).unwrap_or(Square::A1));
    let pawn_attacked = sides.map(|c| pawn_attacks(c, pawn_bb[colour_index(c)]));
    let king_zone = kings.map(|k| attacks::king_attacks(k).with(k).0);
    // Squares attacked by each side, all pieces and by role (pawn to king).
    let mut attacked = [0u64; 2];
    let mut attacked_by = [[0u64; 6]; 2];
    let mut king_attackers = [0i32; 2];
    let mut zone_attacks = [0i32; 2];
    for c in sides {
        let us = colour_index(c);
        attacked_by[us][0] = pawn_attacked[us];
        attacked_by[us][5] = attacks::king_attacks(kings[us]).0;
        let mobility_area = !(pawn_bb[us] | (1 << kings[us] as usize) | pawn_attacked[us ^ 1]);
        let enemy_pawns = pawn_bb[us ^ 1];
        for (r, role) in PIECE_ROLES.into_iter().enumerate() {
            for sq in board.by_piece(role.of(c)) {
                let reach = match role {
                    Role::Knight => attacks::knight_attacks(sq),
                    Role::Bishop => attacks::bishop_attacks(sq, occupied),
                    Role::Rook => attacks::rook_attacks(sq, occupied),
                    _ => attacks::queen_attacks(sq, occupied),
                }
                .0;
                attacked_by[us][r + 1] |= reach;
                acc.add(
                    c,
                    MOBILITY[r] + (reach & mobility_area).count_ones() as usize,
                    1,
                );
                let on_zone = reach & king_zone[us ^ 1];
                if on_zone != 0 {
                    king_attackers[us] += 1;
                    zone_attacks[us] += on_zone.count_ones() as i32;
                    acc.add(c, KING_ATTACKER_WEIGHT + r, 1);
                }
                let i = sq as usize;
                match role {
                    Role::Knight | Role::Bishop => {
                        let outpost = OUTPOST_RANKS[us] & (1 << i) != 0
                            && pawn_attacked[us] & (1 << i) != 0
                            && enemy_pawns & PASSED_SPAN[us][i] & !FRONT_SPAN[us][i] == 0;
                        if outpost {
                            let feature = if role == Role::Knight {
                                KNIGHT_OUTPOST
                            } else {
                                BISHOP_OUTPOST
                            };
                            acc.add(c, feature, 1);
                        }
                    }
                    Role::Rook => {
                        let file = FILES[i % 8];
                        if file & pawn_bb[us] == 0 {
                            let feature = if file & enemy_pawns == 0 {
                                ROOK_OPEN_FILE
                            } else {
                                ROOK_SEMI_OPEN_FILE
                            };
                            acc.add(c, feature, 1);
                        }
                        if relative_rank(c, sq) == 6 {
                            acc.add(c, ROOK_SEVENTH, 1);
                        }
                    }
                    _ => {}
                }
            }
        }
        attacked[us] = attacked_by[us].iter().fold(0, |all, a| all | a);
    }

    for c in sides {
        let us = colour_index(c);
        let them = us ^ 1;
        let own = board.by_color(c).0;
        let enemy = board.by_color(!c).0;

        if board.by_piece(c.bishop()).more_than_one() {
            acc.add(c, BISHOP_PAIR, 1);
        }

        // Attack on the enemy king.
        if king_attackers[us] > 0 {
            acc.add(c, KING_ATTACKERS + king_attackers[us].min(7) as usize, 1);
            acc.add(c, KING_ZONE_ATTACKS, zone_attacks[us]);
        }
        let enemy_king = kings[them];
        let safe = !attacked[them] & !own;
        let diagonal = attacks::bishop_attacks(enemy_king, occupied).0;
        let straight = attacks::rook_attacks(enemy_king, occupied).0;
        let checks = [
            attacks::knight_attacks(enemy_king).0 & attacked_by[us][1],
            diagonal & attacked_by[us][2],
            straight & attacked_by[us][3],
            (diagonal | straight) & attacked_by[us][4],
        ];
        for (r, squares) in checks.into_iter().enumerate() {
            let count = (squares & safe).count_ones() as i32;
            if count > 0 {
                acc.add(c, SAFE_CHECK + r, count);
            }
        }

        // Shelter and storm in front of the own king.
        shelter(c, kings[us], pawn_bb[us], pawn_bb[them], &mut acc);

        // Passed pawns.
        for sq in Bitboard(info.passed[us]) {
            let rank = relative_rank(c, sq);
            if FRONT_SPAN[us][sq as usize] & occupied.0 == 0 {
                acc.add(c, PASSED_FREE + rank, 1);
            }
            let stop = stop_square(c, sq);
            acc.add(
                c,
                PASSED_OWN_KING + (kings[us].distance(stop) as usize).min(7),
                1,
            );
            acc.add(
                c,
                PASSED_ENEMY_KING + (kings[them].distance(stop) as usize).min(7),
                1,
            );
        }

        // Threats against enemy pieces other than the king.
        let targets = enemy & !board.kings().0;
        let by_pawn = pawn_attacked[us] & targets & !pawn_bb[them];
        let by_minor = (attacked_by[us][1] | attacked_by[us][2]) & targets;
        let by_rook = attacked_by[us][3] & targets;
        for (r, role) in Role::ALL[..5].iter().enumerate() {
            let of_role = board.by_role(*role).0;
            for (feature, attacked_pieces) in [
                (THREAT_BY_PAWN, by_pawn),
                (THREAT_BY_MINOR, by_minor),
                (THREAT_BY_ROOK, by_rook),
            ] {
                let count = (attacked_pieces & of_role).count_ones() as i32;
                if count > 0 {
                    acc.add(c, feature + r, count);
                }
            }
        }
        let hanging = (attacked[us] & targets & !attacked[them]).count_ones() as i32;
        if hanging > 0 {
            acc.add(c, HANGING, hanging);
        }

        let space = CENTRE_FILES & OWN_HALF_SPACE[us] & !pawn_bb[us] & !pawn_attacked[them];
        acc.add(c, SPACE, space.count_ones() as i32);
    }
    acc.add(pos.turn(), TEMPO, 1);

    let mg = acc.score.mg();
    let eg = acc.score.eg();
    let scale = endgame_scale(pos, eg, piece_units);
    Evaluation {
        mg,
        eg,
        phase,
        scale,
        white: blend(mg, eg, phase, scale),
    }
}

/// Pawn shelter and storm on the king's file and its neighbours.
fn shelter<T: Trace>(c: Color, king: Square, own: u64, enemy: u64, acc: &mut Accumulator<'_, T>) {
    let king_file = king as usize % 8;
    let king_rank = relative_rank(c, king);
    // The king's rank and every rank in front of it.
    let in_front = match c {
        Color::White => u64::MAX << (8 * king_rank),
        Color::Black => u64::MAX >> (8 * king_rank),
    };
    let nearest = |pawns: u64| -> Option<Square> {
        match c {
            Color::White => Bitboard(pawns).first(),
            Color::Black => Bitboard(pawns).last(),
        }
    };
    let first = king_file.saturating_sub(1);
    for (file, &whole_file) in FILES.iter().enumerate().take(king_file + 2).skip(first) {
        if (own | enemy) & whole_file == 0 {
            acc.add(c, KING_OPEN_FILE, 1);
        }
        let file_bb = whole_file & in_front;
        let on_king_file = usize::from(file == king_file);
        let distance = |sq: Square| (relative_rank(c, sq) - king_rank).min(6);
        let shelter = nearest(own & file_bb).map_or(7, distance);
        acc.add(c, KING_SHELTER + on_king_file * 8 + shelter, 1);
        match nearest(enemy & file_bb) {
            Some(sq) => {
                let blocked = usize::from(own & (1 << stop_square(!c, sq) as usize) != 0);
                acc.add(c, KING_STORM + blocked * 8 + distance(sq), 1);
            }
            None => acc.add(c, KING_STORM + 7, 1),
        }
    }
}

/// Non-pawn material of each role in minor-piece units (knight and bishop 3,
/// rook 5, queen 9), in `Role::ALL` order.
const PIECE_UNITS: [u32; 6] = [0, 3, 3, 5, 9, 0];

/// How much of the endgame score the stronger side can hope to realise.
/// `piece_units` is each side's non-pawn material in minor-piece units,
/// indexed by `colour_index`.
fn endgame_scale(pos: &Chess, eg: Score, piece_units: [u32; 2]) -> i32 {
    if eg == 0 {
        return NORMAL_SCALE;
    }
    let board = pos.board();
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let strong_material = piece_units[colour_index(strong)];
    let weak_material = piece_units[colour_index(!strong)];
    if board.by_piece(strong.pawn()).is_empty() {
        let only_knights = board.by_color(strong)
            == board.by_piece(strong.knight()) | board.by_piece(strong.king());
        // A lone minor piece, or two knights, cannot force mate.
        if strong_material <= 3 || (only_knights && strong_material <= 6) {
            return 0;
        }
        if strong_material <= weak_material + 3 {
            return 16;
        }
    }
    let bishops = [
        board.by_piece(Color::White.bishop()),
        board.by_piece(Color::Black.bishop()),
    ];
    if let [Some(white), Some(black)] = bishops.map(Bitboard::single_square)
        && white.is_light() != black.is_light()
    {
        return if strong_material == 3 && weak_material == 3 {
            32
        } else {
            48
        };
    }
    NORMAL_SCALE
}

/// The static evaluation from the side to move's point of view.
pub fn evaluate(pos: &Chess, pawns: &mut PawnTable) -> Score {
    let white = evaluate_traced(pos, Some(pawns), &mut NoTrace).white;
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// Features of one position, White minus Black, for the tuner.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// `(weight index, White's count minus Black's)`, without zeros.
    pub counts: Vec<(u16, i16)>,
    /// Game phase.
    pub phase: i32,
    /// Endgame scale under the current weights.
    pub scale: i32,
}

struct CountTrace([i32; COUNT]);

impl Trace for CountTrace {
    const ENABLED: bool = true;
    fn record(&mut self, colour: Color, feature: usize, count: i32) {
        self.0[feature] += if colour == Color::White {
            count
        } else {
            -count
        };
    }
}

/// The features of a position, as the tuner needs them.
pub fn features(pos: &Chess) -> Features {
    let mut trace = CountTrace([0; COUNT]);
    let eval = evaluate_traced(pos, None, &mut trace);
    Features {
        counts: (0..COUNT)
            .filter(|&i| trace.0[i] != 0)
            .map(|i| (i as u16, trace.0[i] as i16))
            .collect(),
        phase: eval.phase,
        scale: eval.scale,
    }
}

/// The evaluation of one group of terms for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupScore {
    /// The group.
    pub group: Group,
    /// White's part.
    pub white: S,
    /// Black's part.
    pub black: S,
}

/// The parts of an evaluation, for the `eval` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    /// Every group of terms, in report order.
    pub groups: Vec<GroupScore>,
    /// The evaluation as a whole.
    pub total: Evaluation,
    /// Final score from the side to move's point of view.
    pub side_to_move: Score,
}

struct GroupTrace([[S; 2]; Group::ALL.len()]);

impl Trace for GroupTrace {
    const ENABLED: bool = true;
    fn record(&mut self, colour: Color, feature: usize, count: i32) {
        let group = terms::group_of(feature) as usize;
        self.0[group][colour_index(colour)] += WEIGHTS[feature] * count;
    }
}

/// Evaluates a position term group by term group.
pub fn breakdown(pos: &Chess) -> Breakdown {
    let mut trace = GroupTrace([[S::default(); 2]; Group::ALL.len()]);
    let total = evaluate_traced(pos, None, &mut trace);
    Breakdown {
        groups: Group::ALL
            .iter()
            .map(|&group| GroupScore {
                group,
                white: trace.0[group as usize][colour_index(Color::White)],
                black: trace.0[group as usize][colour_index(Color::Black)],
            })
            .collect(),
        total,
        side_to_move: match pos.turn() {
            Color::White => total.white,
            Color::Black => -total.white,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::BENCH_POSITIONS;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn eval(p: &Chess) -> Score {
        evaluate(p, &mut PawnTable::default())
    }

    fn mirror(p: &Chess) -> Chess {
        p.to_setup(EnPassantMode::Legal)
            .into_mirrored()
            .position(CastlingMode::Standard)
            .unwrap()
    }

    /// The bench positions and the positions a few hundred pseudo-random
    /// games pass through: a varied, reproducible sample.
    fn sample() -> Vec<Chess> {
        let mut positions: Vec<Chess> = BENCH_POSITIONS.iter().map(|f| pos(f)).collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for start in positions.clone() {
            let mut p = start;
            for _ in 0..12 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                p.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
                positions.push(p.clone());
            }
        }
        positions
    }

    #[test]
    fn start_position_is_tempo() {
        let tempo = WEIGHTS[TEMPO];
        assert_eq!(eval(&Chess::default()), tempo.mg());
    }

    #[test]
    fn colour_flipped_positions_evaluate_the_same() {
        let positions = sample();
        assert!(positions.len() > 300);
        for p in &positions {
            let fen = Fen::from_position(p, EnPassantMode::Legal);
            assert_eq!(eval(p), eval(&mirror(p)), "{fen}");
        }
    }

    #[test]
    fn pawn_table_gives_the_same_scores() {
        let mut table = PawnTable::default();
        for p in sample() {
            let cached = evaluate(&p, &mut table);
            assert_eq!(cached, eval(&p));
            assert_eq!(evaluate(&p, &mut table), cached);
        }
    }

    #[test]
    fn features_reproduce_the_score() {
        for p in sample() {
            let f = features(&p);
            let (mut mg, mut eg) = (0, 0);
            for &(i, count) in &f.counts {
                mg += WEIGHTS[i as usize].mg() * count as i32;
                eg += WEIGHTS[i as usize].eg() * count as i32;
            }
            let white = evaluate_traced(&p, None, &mut NoTrace).white;
            assert_eq!(blend(mg, eg, f.phase, f.scale), white);
        }
    }

    #[test]
    fn breakdown_adds_up() {
        for p in sample().iter().take(60) {
            let b = breakdown(p);
            let sum = b
                .groups
                .iter()
                .fold(S::default(), |s, g| s + g.white - g.black);
            assert_eq!((sum.mg(), sum.eg()), (b.total.mg, b.total.eg));
            assert_eq!(b.side_to_move, eval(p));
        }
    }

    #[test]
    fn extra_queen_is_winning() {
        assert!(eval(&pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800);
        assert!(eval(&pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")) < -800);
    }

    #[test]
    fn drawish_material_scales_toward_zero() {
        // Lone minor pieces and two knights cannot win.
        for fen in [
            "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
            "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
            "8/8/4k3/8/8/2NNK3/8/8 w - - 0 1",
        ] {
            let e = evaluate_traced(&pos(fen), None, &mut NoTrace);
            assert_eq!(e.scale, 0, "{fen}");
            assert_eq!(e.white, 0, "{fen}");
        }
        // A rook against a minor piece is scaled down.
        let rook_v_bishop =
            evaluate_traced(&pos("8/8/4k3/4b3/8/3RK3/8/8 w - - 0 1"), None, &mut NoTrace);
        assert!(rook_v_bishop.scale < NORMAL_SCALE / 2);
        // Opposite-coloured bishops with an extra pawn: less than the same
        // ending with same-coloured bishops.
        let opposite = evaluate_traced(
            &pos("8/4k3/5b2/8/3P4/3BK3/5P2/8 w - - 0 1"),
            None,
            &mut NoTrace,
        );
        let same = evaluate_traced(
            &pos("8/4k3/4b3/8/3P4/3BK3/5P2/8 w - - 0 1"),
            None,
            &mut NoTrace,
        );
        assert!(opposite.scale < NORMAL_SCALE);
        assert_eq!(same.scale, NORMAL_SCALE);
        assert!(opposite.white < same.white);
    }

    #[test]
    fn pawn_structure_terms_fire() {
        // White's a- and c-pawns are isolated; the e-pawn is passed; the
        // doubled g-pawns count once as doubled.
        let f = features(&pos("4k3/8/8/4P3/8/6P1/P1P3P1/4K3 w - - 0 1"));
        let count = |i: usize| {
            f.counts
                .iter()
                .find(|c| c.0 as usize == i)
                .map_or(0, |c| c.1)
        };
        assert_eq!(count(PAWN_ISOLATED), 5);
        assert_eq!(count(PAWN_DOUBLED), 1);
        assert_eq!(count(PASSED_RANK + 4), 1);
        assert!(count(PASSED_RANK + 1) + count(PASSED_RANK + 2) >= 3);
    }
}
