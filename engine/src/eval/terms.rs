//! The layout of the evaluation's weights: every term is a run of features in
//! one flat table (`weights::WEIGHTS`), so that the evaluation, the `eval`
//! breakdown and the tuner all agree on what each weight means.

/// A named run of weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// Name used in the generated weights file.
    pub name: &'static str,
    /// The group the `eval` command reports it under.
    pub group: Group,
    /// Index of its first weight.
    pub start: usize,
    /// Number of weights.
    pub len: usize,
}

/// Group of a weight index, for the `eval` breakdown.
pub fn group_of(index: usize) -> Group {
    TERMS
        .iter()
        .find(|t| (t.start..t.start + t.len).contains(&index))
        .map_or(Group::Tempo, |t| t.group)
}

/// The groups of terms that the `eval` command reports separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// Piece values.
    Material,
    /// Piece-square tables.
    PieceSquare,
    /// Mobility of knights, bishops, rooks and queens.
    Mobility,
    /// Pawn structure: isolated, doubled, backward and connected pawns.
    Pawns,
    /// Passed pawns, their free path and the kings' distances to them.
    PassedPawns,
    /// Attacks on the king zone, safe checks, pawn shelter and storm.
    KingSafety,
    /// Bishop pair, rooks on open files and the seventh, outposts.
    Pieces,
    /// Pieces attacked by pawns or lesser pieces, hanging pieces.
    Threats,
    /// Safe squares behind the pawns in the centre.
    Space,
    /// The side to move's bonus.
    Tempo,
}

impl Group {
    /// Every group, in report order.
    pub const ALL: [Group; 10] = [
        Group::Material,
        Group::PieceSquare,
        Group::Mobility,
        Group::Pawns,
        Group::PassedPawns,
        Group::KingSafety,
        Group::Pieces,
        Group::Threats,
        Group::Space,
        Group::Tempo,
    ];

    /// Name in the `eval` report.
    pub fn name(self) -> &'static str {
        match self {
            Group::Material => "material",
            Group::PieceSquare => "piece-square",
            Group::Mobility => "mobility",
            Group::Pawns => "pawns",
            Group::PassedPawns => "passed pawns",
            Group::KingSafety => "king safety",
            Group::Pieces => "pieces",
            Group::Threats => "threats",
            Group::Space => "space",
            Group::Tempo => "tempo",
        }
    }
}

/// Piece values, pawn to queen.
pub const MATERIAL: usize = 0;
/// Piece-square bonuses, `[role - 1][square]`, squares from the owner's side (a1 = 0).
pub const PSQT: usize = MATERIAL + 5;
/// Knight mobility by number of safe squares (0..=8).
pub const MOBILITY_KNIGHT: usize = PSQT + 6 * 64;
/// Bishop mobility (0..=13).
pub const MOBILITY_BISHOP: usize = MOBILITY_KNIGHT + 9;
/// Rook mobility (0..=14).
pub const MOBILITY_ROOK: usize = MOBILITY_BISHOP + 14;
/// Queen mobility (0..=27).
pub const MOBILITY_QUEEN: usize = MOBILITY_ROOK + 15;
/// A pawn with no friendly pawn on the neighbouring files.
pub const PAWN_ISOLATED: usize = MOBILITY_QUEEN + 28;
/// A pawn with a friendly pawn in front of it on the same file.
pub const PAWN_DOUBLED: usize = PAWN_ISOLATED + 1;
/// A pawn that no friendly pawn can support and whose stop square an enemy pawn guards.
pub const PAWN_BACKWARD: usize = PAWN_DOUBLED + 1;
/// A pawn defended by a pawn or beside one, by relative rank.
pub const PAWN_CONNECTED: usize = PAWN_BACKWARD + 1;
/// A passed pawn, by relative rank.
pub const PASSED_RANK: usize = PAWN_CONNECTED + 8;
/// A passed pawn whose path to promotion is empty, by relative rank.
pub const PASSED_FREE: usize = PASSED_RANK + 8;
/// Distance of the owner's king to a passed pawn's stop square (0..=7).
pub const PASSED_OWN_KING: usize = PASSED_FREE + 8;
/// Distance of the enemy king to a passed pawn's stop square (0..=7).
pub const PASSED_ENEMY_KING: usize = PASSED_OWN_KING + 8;
/// Number of pieces attacking the enemy king zone (0..=7).
pub const KING_ATTACKERS: usize = PASSED_ENEMY_KING + 8;
/// Each knight, bishop, rook or queen attacking the enemy king zone.
pub const KING_ATTACKER_WEIGHT: usize = KING_ATTACKERS + 8;
/// Each attack on a square of the enemy king zone.
pub const KING_ZONE_ATTACKS: usize = KING_ATTACKER_WEIGHT + 4;
/// Safe checks by knight, bishop, rook and queen.
pub const SAFE_CHECK: usize = KING_ZONE_ATTACKS + 1;
/// Own pawn shelter in front of the king, `[on the king's file][rank distance, 7 = none]`.
pub const KING_SHELTER: usize = SAFE_CHECK + 4;
/// Enemy pawns storming the king, `[blocked by an own pawn][rank distance, 7 = none]`.
pub const KING_STORM: usize = KING_SHELTER + 16;
/// A file without pawns at or beside the king.
pub const KING_OPEN_FILE: usize = KING_STORM + 16;
/// Two or more bishops.
pub const BISHOP_PAIR: usize = KING_OPEN_FILE + 1;
/// A rook on a file without pawns.
pub const ROOK_OPEN_FILE: usize = BISHOP_PAIR + 1;
/// A rook on a file with enemy pawns only.
pub const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
/// A rook on the seventh rank.
pub const ROOK_SEVENTH: usize = ROOK_SEMI_OPEN_FILE + 1;
/// A knight on a pawn-defended square no enemy pawn can attack.
pub const KNIGHT_OUTPOST: usize = ROOK_SEVENTH + 1;
/// A bishop on such an outpost.
pub const BISHOP_OUTPOST: usize = KNIGHT_OUTPOST + 1;
/// An enemy piece attacked by a pawn, by its role (pawn to queen).
pub const THREAT_BY_PAWN: usize = BISHOP_OUTPOST + 1;
/// An enemy piece attacked by a knight or bishop, by its role.
pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 5;
/// An enemy piece attacked by a rook, by its role.
pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 5;
/// An enemy piece attacked and not defended.
pub const HANGING: usize = THREAT_BY_ROOK + 5;
/// A safe central square on the own side of the board.
pub const SPACE: usize = HANGING + 1;
/// Having the move.
pub const TEMPO: usize = SPACE + 1;
/// Number of weights.
pub const COUNT: usize = TEMPO + 1;

const fn term(name: &'static str, group: Group, start: usize, len: usize) -> Term {
    Term {
        name,
        group,
        start,
        len,
    }
}

/// Every term, in weight order; together they cover `0..COUNT` exactly.
pub const TERMS: [Term; 33] = [
    term("MATERIAL", Group::Material, MATERIAL, 5),
    term("PSQT", Group::PieceSquare, PSQT, 6 * 64),
    term("MOBILITY_KNIGHT", Group::Mobility, MOBILITY_KNIGHT, 9),
    term("MOBILITY_BISHOP", Group::Mobility, MOBILITY_BISHOP, 14),
    term("MOBILITY_ROOK", Group::Mobility, MOBILITY_ROOK, 15),
    term("MOBILITY_QUEEN", Group::Mobility, MOBILITY_QUEEN, 28),
    term("PAWN_ISOLATED", Group::Pawns, PAWN_ISOLATED, 1),
    term("PAWN_DOUBLED", Group::Pawns, PAWN_DOUBLED, 1),
    term("PAWN_BACKWARD", Group::Pawns, PAWN_BACKWARD, 1),
    term("PAWN_CONNECTED", Group::Pawns, PAWN_CONNECTED, 8),
    term("PASSED_RANK", Group::PassedPawns, PASSED_RANK, 8),
    term("PASSED_FREE", Group::PassedPawns, PASSED_FREE, 8),
    term("PASSED_OWN_KING", Group::PassedPawns, PASSED_OWN_KING, 8),
    term(
        "PASSED_ENEMY_KING",
        Group::PassedPawns,
        PASSED_ENEMY_KING,
        8,
    ),
    term("KING_ATTACKERS", Group::KingSafety, KING_ATTACKERS, 8),
    term(
        "KING_ATTACKER_WEIGHT",
        Group::KingSafety,
        KING_ATTACKER_WEIGHT,
        4,
    ),
    term("KING_ZONE_ATTACKS", Group::KingSafety, KING_ZONE_ATTACKS, 1),
    term("SAFE_CHECK", Group::KingSafety, SAFE_CHECK, 4),
    term("KING_SHELTER", Group::KingSafety, KING_SHELTER, 16),
    term("KING_STORM", Group::KingSafety, KING_STORM, 16),
    term("KING_OPEN_FILE", Group::KingSafety, KING_OPEN_FILE, 1),
    term("BISHOP_PAIR", Group::Pieces, BISHOP_PAIR, 1),
    term("ROOK_OPEN_FILE", Group::Pieces, ROOK_OPEN_FILE, 1),
    term("ROOK_SEMI_OPEN_FILE", Group::Pieces, ROOK_SEMI_OPEN_FILE, 1),
    term("ROOK_SEVENTH", Group::Pieces, ROOK_SEVENTH, 1),
    term("KNIGHT_OUTPOST", Group::Pieces, KNIGHT_OUTPOST, 1),
    term("BISHOP_OUTPOST", Group::Pieces, BISHOP_OUTPOST, 1),
    term("THREAT_BY_PAWN", Group::Threats, THREAT_BY_PAWN, 5),
    term("THREAT_BY_MINOR", Group::Threats, THREAT_BY_MINOR, 5),
    term("THREAT_BY_ROOK", Group::Threats, THREAT_BY_ROOK, 5),
    term("HANGING", Group::Threats, HANGING, 1),
    term("SPACE", Group::Space, SPACE, 1),
    term("TEMPO", Group::Tempo, TEMPO, 1),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_tile_the_weights() {
        let mut next = 0;
        for t in TERMS {
            assert_eq!(t.start, next, "{}", t.name);
            next += t.len;
        }
        assert_eq!(next, COUNT);
    }
}
