//! A middlegame and an endgame value packed in one integer, so that the
//! evaluation adds both halves of every term with a single addition.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A tapered value: middlegame in the low 16 bits, endgame in the high bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct S(i32);

impl S {
    /// Packs a middlegame and an endgame value (each within ±32767).
    pub const fn new(mg: i32, eg: i32) -> S {
        S((eg << 16).wrapping_add(mg))
    }

    /// The middlegame half.
    pub const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }

    /// The endgame half.
    pub const fn eg(self) -> i32 {
        (self.0.wrapping_add(0x8000) >> 16) as i16 as i32
    }
}

impl Add for S {
    type Output = S;
    fn add(self, other: S) -> S {
        S(self.0.wrapping_add(other.0))
    }
}

impl AddAssign for S {
    fn add_assign(&mut self, other: S) {
        *self = *self + other;
    }
}

impl Sub for S {
    type Output = S;
    fn sub(self, other: S) -> S {
        S(self.0.wrapping_sub(other.0))
    }
}

impl SubAssign for S {
    fn sub_assign(&mut self, other: S) {
        *self = *self - other;
    }
}

impl Neg for S {
    type Output = S;
    fn neg(self) -> S {
        S(self.0.wrapping_neg())
    }
}

impl Mul<i32> for S {
    type Output = S;
    fn mul(self, factor: i32) -> S {
        S(self.0.wrapping_mul(factor))
    }
}

#[cfg(test)]
mod tests {
    use super::S;

    #[test]
    fn halves_survive_packing_and_arithmetic() {
        for (mg, eg) in [(0, 0), (5, -7), (-300, 200), (1200, -1500), (-1, -1)] {
            let s = S::new(mg, eg);
            assert_eq!((s.mg(), s.eg()), (mg, eg));
            assert_eq!(((s * 3).mg(), (s * 3).eg()), (mg * 3, eg * 3));
            assert_eq!(((-s).mg(), (-s).eg()), (-mg, -eg));
            let t = s + S::new(10, -20) - S::new(4, 4);
            assert_eq!((t.mg(), t.eg()), (mg + 6, eg - 24));
        }
    }
}
