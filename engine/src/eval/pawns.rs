//! Pawn structure: the terms that depend on the pawns alone, and a small
//! per-thread table that remembers them, since the pawns change rarely
//! between the positions of a search.

use super::Accumulator;
use super::terms::{PASSED_RANK, PAWN_BACKWARD, PAWN_CONNECTED, PAWN_DOUBLED, PAWN_ISOLATED};
use super::{S, Trace};
use shakmaty::{Bitboard, Color, Square, attacks};

/// Squares of each file, a-file first.
pub const FILES: [u64; 8] = {
    let mut files = [0; 8];
    let mut f = 0;
    while f < 8 {
        files[f] = 0x0101_0101_0101_0101 << f;
        f += 1;
    }
    files
};

/// The files beside each file.
pub const ADJACENT_FILES: [u64; 8] = {
    let mut adjacent = [0; 8];
    let mut f = 0;
    while f < 8 {
        if f > 0 {
            adjacent[f] |= FILES[f - 1];
        }
        if f < 7 {
            adjacent[f] |= FILES[f + 1];
        }
        f += 1;
    }
    adjacent
};

/// Squares strictly in front of each square, seen from each colour: `[colour][square]`.
pub const FRONT_SPAN: [[u64; 64]; 2] = {
    let mut span = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file = FILES[sq % 8];
        let rank = sq / 8;
        // Ranks above and below this square.
        let above = if rank == 7 {
            0
        } else {
            u64::MAX << (8 * (rank + 1))
        };
        let below = if rank == 0 {
            0
        } else {
            u64::MAX >> (8 * (8 - rank))
        };
        span[1][sq] = file & above;
        span[0][sq] = file & below;
        sq += 1;
    }
    span
};

/// Squares on which an enemy pawn stops a pawn from being passed: `[colour][square]`.
pub const PASSED_SPAN: [[u64; 64]; 2] = {
    let mut span = [[0; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let front = FRONT_SPAN[c][sq];
            span[c][sq] = front | ((front << 1) & !FILES[0]) | ((front >> 1) & !FILES[7]);
            sq += 1;
        }
        c += 1;
    }
    span
};

/// Index of a colour in the tables above (`shakmaty` numbers Black 0, White 1).
pub const fn colour_index(c: Color) -> usize {
    c as usize
}

/// Rank of a square seen from a colour's side: 0 is its first rank.
pub const fn relative_rank(c: Color, sq: Square) -> usize {
    let rank = sq as usize / 8;
    match c {
        Color::White => rank,
        Color::Black => 7 - rank,
    }
}

/// Squares attacked by the pawns `pawns` of colour `c`.
pub const fn pawn_attacks(c: Color, pawns: u64) -> u64 {
    let west = pawns & !FILES[0];
    let east = pawns & !FILES[7];
    match c {
        Color::White => (west << 7) | (east << 9),
        Color::Black => (west >> 9) | (east >> 7),
    }
}

/// The square in front of a pawn (the pawn is never on its last rank).
pub fn stop_square(c: Color, sq: Square) -> Square {
    match c {
        Color::White => Square::new((sq as u32 + 8).min(63)),
        Color::Black => Square::new((sq as u32).saturating_sub(8)),
    }
}

/// What the pawn structure is worth and which pawns are passed.
#[derive(Debug, Clone, Copy, Default)]
pub struct PawnInfo {
    /// Pawn-structure score, White minus Black.
    pub score: S,
    /// Passed pawns of each colour, indexed by `colour_index`.
    pub passed: [u64; 2],
}

/// Evaluates the pawn structure of both sides.
pub fn evaluate_pawns<T: Trace>(pawns: [u64; 2], acc: &mut Accumulator<'_, T>) -> PawnInfo {
    let before = acc.score;
    let mut passed = [0; 2];
    for c in [Color::White, Color::Black] {
        let own = pawns[colour_index(c)];
        let enemy = pawns[colour_index(!c)];
        let enemy_attacks = pawn_attacks(!c, enemy);
        for sq in Bitboard(own) {
            let i = sq as usize;
            let file = i % 8;
            let rank = relative_rank(c, sq);
            let adjacent = own & ADJACENT_FILES[file];
            let front = FRONT_SPAN[colour_index(c)][i];
            if adjacent == 0 {
                acc.add(c, PAWN_ISOLATED, 1);
            }
            if own & front != 0 {
                acc.add(c, PAWN_DOUBLED, 1);
            }
            let supported = attacks::pawn_attacks(!c, sq).0 & own != 0;
            let phalanx = adjacent & (0xff << (8 * (i / 8))) != 0;
            if supported || phalanx {
                acc.add(c, PAWN_CONNECTED + rank, 1);
            } else if adjacent != 0
                && adjacent & !span_ahead(c, sq) == 0
                && enemy_attacks & (1 << stop_square(c, sq) as usize) != 0
            {
                acc.add(c, PAWN_BACKWARD, 1);
            }
            if enemy & PASSED_SPAN[colour_index(c)][i] == 0 && own & front == 0 {
                passed[colour_index(c)] |= 1 << i;
                acc.add(c, PASSED_RANK + rank, 1);
            }
        }
    }
    PawnInfo {
        score: acc.score - before,
        passed,
    }
}

/// Squares on the ranks strictly in front of a square, for a colour.
fn span_ahead(c: Color, sq: Square) -> u64 {
    let rank = sq as usize / 8;
    match c {
        Color::White if rank == 7 => 0,
        Color::White => u64::MAX << (8 * (rank + 1)),
        Color::Black if rank == 0 => 0,
        Color::Black => u64::MAX >> (8 * (8 - rank)),
    }
}

/// One remembered pawn structure: the pawns themselves are the key, so a
/// hit is never a collision.
#[derive(Debug, Clone, Copy)]
struct PawnEntry {
    pawns: [u64; 2],
    info: PawnInfo,
}

/// Number of entries of a pawn table (a power of two).
const PAWN_TABLE_SIZE: usize = 1 << 13;

/// A well-mixed hash of the pawn bitboards (Black, White); tables keyed by
/// pawn structure take its top bits as their index.
pub fn pawn_hash(pawns: [u64; 2]) -> u64 {
    pawns[0].wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ pawns[1].rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// A per-thread cache of pawn-structure evaluations.
pub struct PawnTable {
    entries: Box<[PawnEntry]>,
}

impl Default for PawnTable {
    fn default() -> PawnTable {
        PawnTable {
            entries: vec![
                PawnEntry {
                    // No position has pawns on every square: this never matches.
                    pawns: [u64::MAX; 2],
                    info: PawnInfo::default(),
                };
                PAWN_TABLE_SIZE
            ]
            .into_boxed_slice(),
        }
    }
}

impl PawnTable {
    fn index(pawns: [u64; 2]) -> usize {
        (pawn_hash(pawns) >> (64 - PAWN_TABLE_SIZE.trailing_zeros())) as usize
    }

    /// The remembered evaluation of these pawns, if any.
    pub fn get(&self, pawns: [u64; 2]) -> Option<PawnInfo> {
        let entry = &self.entries[Self::index(pawns)];
        (entry.pawns == pawns).then_some(entry.info)
    }

    /// Remembers the evaluation of these pawns.
    pub fn put(&mut self, pawns: [u64; 2], info: PawnInfo) {
        self.entries[Self::index(pawns)] = PawnEntry { pawns, info };
    }
}
