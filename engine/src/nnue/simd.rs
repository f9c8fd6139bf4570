//! The network's inner loops, in a portable form and through `std::arch`
//! with AVX2 on x86-64 CPUs that have it and with NEON on 64-bit ARM. The
//! kernel is chosen once at run time; all kernels compute the same integers
//! (16-bit sums wrap the same way, products are exact), which the tests
//! check.

use super::{QA, SUM_BLOCK};

/// Values one AVX2 register holds.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 16;

/// Values one NEON register holds.
#[cfg(target_arch = "aarch64")]
const NEON_LANES: usize = 8;

/// Which implementation of the inner loops runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust loops (the compiler may still vectorise them).
    Portable,
    /// 256-bit AVX2 integer instructions. Only [`Kernel::detect`] makes it
    /// (other crates cannot), so that it never runs on a CPU without AVX2.
    #[cfg(target_arch = "x86_64")]
    #[non_exhaustive]
    Avx2,
    /// 128-bit NEON integer instructions (64-bit ARM: Raspberry Pi 3 and
    /// later, Apple silicon). Only [`Kernel::detect`] makes it.
    #[cfg(target_arch = "aarch64")]
    #[non_exhaustive]
    Neon,
}

impl Kernel {
    /// The kernel's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "AVX2",
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => "NEON",
        }
    }

    /// The fastest kernel this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        #[cfg(target_arch = "aarch64")]
        if std::arch::is_aarch64_feature_detected!("neon") {
            return Kernel::Neon;
        }
        Kernel::Portable
    }

    /// Every kernel this CPU runs (the tests compare them).
    pub fn available() -> Vec<Kernel> {
        let mut kernels = vec![Kernel::Portable];
        if Kernel::detect() != Kernel::Portable {
            kernels.push(Kernel::detect());
        }
        kernels
    }

    /// `dst = src + Σ adds − Σ subs`, lane by lane, wrapping, over a layer
    /// `H` wide (a multiple of 16).
    #[inline]
    pub fn update<const H: usize>(
        self,
        src: &[i16; H],
        dst: &mut [i16; H],
        adds: &[&[i16; H]],
        subs: &[&[i16; H]],
    ) {
        match self {
            Kernel::Portable => update_portable(src, dst, adds, subs),
            // SAFETY: this kernel is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { update_avx2(src, dst, adds, subs) },
            // SAFETY: this kernel is only chosen when the CPU has NEON.
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => unsafe { update_neon(src, dst, adds, subs) },
        }
    }

    /// `Σ clamp(values, 0, QA)² · weights`: one half of the output layer,
    /// over a layer `H` wide (a multiple of 16), exact at any width: each
    /// block of [`SUM_BLOCK`] values is summed in 32 bits, which it fits
    /// (`256 · QA² · 128 < 2³¹`), and the blocks in 64.
    #[inline]
    pub fn screlu_dot<const H: usize>(self, values: &[i16; H], weights: &[i16; H]) -> i64 {
        match self {
            Kernel::Portable => screlu_dot_portable(values, weights),
            // SAFETY: this kernel is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { screlu_dot_avx2(values, weights) },
            // SAFETY: this kernel is only chosen when the CPU has NEON.
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => unsafe { screlu_dot_neon(values, weights) },
        }
    }
}

fn update_portable<const H: usize>(
    src: &[i16; H],
    dst: &mut [i16; H],
    adds: &[&[i16; H]],
    subs: &[&[i16; H]],
) {
    *dst = *src;
    for row in adds {
        for (d, &w) in dst.iter_mut().zip(row.iter()) {
            *d = d.wrapping_add(w);
        }
    }
    for row in subs {
        for (d, &w) in dst.iter_mut().zip(row.iter()) {
            *d = d.wrapping_sub(w);
        }
    }
}

fn screlu_dot_portable<const H: usize>(values: &[i16; H], weights: &[i16; H]) -> i64 {
    values
        .chunks(SUM_BLOCK)
        .zip(weights.chunks(SUM_BLOCK))
        .map(|(values, weights)| {
            let block: i32 = values
                .iter()
                .zip(weights)
                .map(|(&v, &w)| {
                    let v = i32::from(v).clamp(0, QA);
                    v * v * i32::from(w)
                })
                .sum();
            i64::from(block)
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_avx2<const H: usize>(
    src: &[i16; H],
    dst: &mut [i16; H],
    adds: &[&[i16; H]],
    subs: &[&[i16; H]],
) {
    use std::arch::x86_64::*;
    const { assert!(H.is_multiple_of(LANES)) };
    for lane in (0..H).step_by(LANES) {
        // SAFETY: `lane + LANES <= H`, so every 32-byte access stays
        // inside its array; unaligned loads and stores are used.
        unsafe {
            let mut v = _mm256_loadu_si256(src.as_ptr().add(lane).cast());
            for row in adds {
                v = _mm256_add_epi16(v, _mm256_loadu_si256(row.as_ptr().add(lane).cast()));
            }
            for row in subs {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(row.as_ptr().add(lane).cast()));
            }
            _mm256_storeu_si256(dst.as_mut_ptr().add(lane).cast(), v);
        }
    }
}

/// The products `v · w` are formed in 16 bits, which is exact because a
/// network is refused unless `QA · |w|` fits (see `Network::from_bytes`);
/// `v · (v · w)` is summed in 32 bits block by block, the blocks in 64.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2<const H: usize>(values: &[i16; H], weights: &[i16; H]) -> i64 {
    use std::arch::x86_64::*;
    const { assert!(H.is_multiple_of(LANES) && SUM_BLOCK.is_multiple_of(LANES)) };
    let zero = _mm256_setzero_si256();
    let ceiling = _mm256_set1_epi16(QA as i16);
    let mut total = 0;
    for block in (0..H).step_by(SUM_BLOCK) {
        let mut sum = _mm256_setzero_si256();
        for lane in (block..H.min(block + SUM_BLOCK)).step_by(LANES) {
            // SAFETY: `lane` is a multiple of `LANES` below `H`, which is one
            // too, so `lane + LANES <= H` and both loads stay inside their
            // arrays.
            let (v, w) = unsafe {
                (
                    _mm256_loadu_si256(values.as_ptr().add(lane).cast()),
                    _mm256_loadu_si256(weights.as_ptr().add(lane).cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), ceiling);
            let vw = _mm256_mullo_epi16(v, w);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(v, vw));
        }
        let halves = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256::<1>(sum),
        );
        let pairs = _mm_add_epi32(halves, _mm_shuffle_epi32::<0b01_00_11_10>(halves));
        let block_sum = _mm_add_epi32(pairs, _mm_shuffle_epi32::<0b10_11_00_01>(pairs));
        total += i64::from(_mm_cvtsi128_si32(block_sum));
    }
    total
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn update_neon<const H: usize>(
    src: &[i16; H],
    dst: &mut [i16; H],
    adds: &[&[i16; H]],
    subs: &[&[i16; H]],
) {
    use std::arch::aarch64::*;
    const { assert!(H.is_multiple_of(NEON_LANES)) };
    for lane in (0..H).step_by(NEON_LANES) {
        // SAFETY: `lane + NEON_LANES <= H`, so every 16-byte access stays
        // inside its array; NEON loads and stores need no alignment.
        unsafe {
            let mut v = vld1q_s16(src.as_ptr().add(lane));
            for row in adds {
                v = vaddq_s16(v, vld1q_s16(row.as_ptr().add(lane)));
            }
            for row in subs {
                v = vsubq_s16(v, vld1q_s16(row.as_ptr().add(lane)));
            }
            vst1q_s16(dst.as_mut_ptr().add(lane), v);
        }
    }
}

/// As the AVX2 kernel: `v · w` in 16 bits (exact, see
/// `Network::from_bytes`), then `v · (v · w)` widened to 32 bits and summed
/// block by block, the blocks in 64.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn screlu_dot_neon<const H: usize>(values: &[i16; H], weights: &[i16; H]) -> i64 {
    use std::arch::aarch64::*;
    const { assert!(H.is_multiple_of(NEON_LANES) && SUM_BLOCK.is_multiple_of(NEON_LANES)) };
    let zero = vdupq_n_s16(0);
    let ceiling = vdupq_n_s16(QA as i16);
    let mut total = 0;
    for block in (0..H).step_by(SUM_BLOCK) {
        let mut sum = vdupq_n_s32(0);
        for lane in (block..H.min(block + SUM_BLOCK)).step_by(NEON_LANES) {
            // SAFETY: `lane` is a multiple of `NEON_LANES` below `H`, which
            // is one too, so `lane + NEON_LANES <= H` and both loads stay
            // inside their arrays.
            let (v, w) = unsafe {
                (
                    vld1q_s16(values.as_ptr().add(lane)),
                    vld1q_s16(weights.as_ptr().add(lane)),
                )
            };
            let v = vminq_s16(vmaxq_s16(v, zero), ceiling);
            let vw = vmulq_s16(v, w);
            sum = vmlal_s16(sum, vget_low_s16(v), vget_low_s16(vw));
            sum = vmlal_high_s16(sum, v, vw);
        }
        total += i64::from(vaddvq_s32(sum));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::MAX_OUTPUT_WEIGHT;

    /// A deterministic spread of values, negative and above `QA` included.
    fn pattern<const H: usize>(seed: i32, spread: i32) -> [i16; H] {
        std::array::from_fn(|i| ((i as i32 * 7919 + seed * 104_729) % (2 * spread) - spread) as i16)
    }

    /// `Σ clamp(values, 0, QA)² · weights` summed plainly in 64 bits.
    fn screlu_dot_reference(values: &[i16], weights: &[i16]) -> i64 {
        values
            .iter()
            .zip(weights)
            .map(|(&v, &w)| {
                let v = i64::from(v).clamp(0, i64::from(QA));
                v * v * i64::from(w)
            })
            .sum()
    }

    fn kernels_agree_at<const H: usize>() {
        let src = pattern::<H>(1, 400);
        let rows = [pattern::<H>(2, 500), pattern(3, 500), pattern(4, 500)];
        let weights = pattern::<H>(5, 127);
        let expected_dot = screlu_dot_reference(&src, &weights);
        let mut expected = [0; H];
        update_portable(&src, &mut expected, &[&rows[0], &rows[1]], &[&rows[2]]);
        for kernel in Kernel::available() {
            assert_eq!(
                kernel.screlu_dot(&src, &weights),
                expected_dot,
                "{kernel:?}, {H} wide"
            );
            let mut dst = [0; H];
            kernel.update(&src, &mut dst, &[&rows[0], &rows[1]], &[&rows[2]]);
            assert_eq!(dst, expected, "{kernel:?}, {H} wide");
        }
        // The dot product sees only clamped values.
        let all_high = [1000; H];
        let ones = [1; H];
        assert_eq!(
            screlu_dot_portable(&all_high, &ones),
            i64::from(QA * QA) * H as i64
        );
        assert_eq!(screlu_dot_portable(&[-5; H], &ones), 0);
    }

    /// The largest sums a file can give, every value at `QA` and every
    /// output weight at the largest a file may hold, of either sign or both:
    /// beyond 256 values they no longer fit 32 bits, and every kernel must
    /// still give them exactly.
    fn extreme_sums_are_exact_at<const H: usize>() {
        let at_ceiling = [QA as i16; H];
        let largest = i64::from(QA * QA) * i64::from(MAX_OUTPUT_WEIGHT) * H as i64;
        let alternating: [i16; H] = std::array::from_fn(|i| {
            if (i / 16) % 2 == 0 {
                MAX_OUTPUT_WEIGHT
            } else {
                -MAX_OUTPUT_WEIGHT
            }
        });
        let first_half_positive: [i16; H] = std::array::from_fn(|i| {
            if i < H / 2 {
                MAX_OUTPUT_WEIGHT
            } else {
                -MAX_OUTPUT_WEIGHT
            }
        });
        for (weights, name) in [
            ([MAX_OUTPUT_WEIGHT; H], "all positive"),
            ([-MAX_OUTPUT_WEIGHT; H], "all negative"),
            (alternating, "alternating"),
            (first_half_positive, "positive, then negative"),
        ] {
            let expected = screlu_dot_reference(&at_ceiling, &weights);
            for kernel in Kernel::available() {
                assert_eq!(
                    kernel.screlu_dot(&at_ceiling, &weights),
                    expected,
                    "{kernel:?}, {H} wide, weights {name}"
                );
            }
        }
        assert_eq!(
            screlu_dot_reference(&at_ceiling, &[MAX_OUTPUT_WEIGHT; H]),
            largest
        );
    }

    #[test]
    fn kernels_agree() {
        kernels_agree_at::<128>();
        kernels_agree_at::<256>();
        kernels_agree_at::<384>();
        kernels_agree_at::<512>();
    }

    #[test]
    fn extreme_sums_are_exact() {
        extreme_sums_are_exact_at::<128>();
        extreme_sums_are_exact_at::<256>();
        extreme_sums_are_exact_at::<384>();
        extreme_sums_are_exact_at::<512>();
        // Beyond one block the largest sum no longer fits 32 bits.
        let largest_at_384 = i64::from(QA * QA) * i64::from(MAX_OUTPUT_WEIGHT) * 384;
        assert!(largest_at_384 > i64::from(i32::MAX));
    }

    /// On 64-bit ARM the tests above compare NEON with the portable kernel.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_is_chosen_on_64_bit_arm() {
        assert_eq!(Kernel::detect(), Kernel::Neon);
    }

    #[test]
    fn sums_wrap_alike() {
        let src = [i16::MAX - 1; 256];
        let add = [10; 256];
        for kernel in Kernel::available() {
            let mut dst = [0; 256];
            kernel.update(&src, &mut dst, &[&add], &[]);
            assert_eq!(dst[0], (i16::MAX - 1).wrapping_add(10), "{kernel:?}");
            assert_eq!(dst[255], dst[0], "{kernel:?}");
        }
    }
}
