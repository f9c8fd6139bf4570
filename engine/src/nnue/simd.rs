//! The network's inner loops, in a portable form and, on x86-64 CPUs that
//! have it, with AVX2 through `std::arch`. The kernel is chosen once at run
//! time; all kernels compute the same integers (16-bit sums wrap the same
//! way, products are exact), which the tests check.

use super::{HIDDEN, QA};

/// Values one AVX2 register holds.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 16;

/// Which implementation of the inner loops runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust loops (the compiler may still vectorise them).
    Portable,
    /// 256-bit AVX2 integer instructions.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
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

    /// `dst = src + Σ adds − Σ subs`, lane by lane, wrapping.
    #[inline]
    pub fn update(
        self,
        src: &[i16; HIDDEN],
        dst: &mut [i16; HIDDEN],
        adds: &[&[i16; HIDDEN]],
        subs: &[&[i16; HIDDEN]],
    ) {
        match self {
            Kernel::Portable => update_portable(src, dst, adds, subs),
            // SAFETY: this kernel is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { update_avx2(src, dst, adds, subs) },
        }
    }

    /// `Σ clamp(values, 0, QA)² · weights`: one half of the output layer.
    #[inline]
    pub fn screlu_dot(self, values: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
        match self {
            Kernel::Portable => screlu_dot_portable(values, weights),
            // SAFETY: this kernel is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { screlu_dot_avx2(values, weights) },
        }
    }
}

fn update_portable(
    src: &[i16; HIDDEN],
    dst: &mut [i16; HIDDEN],
    adds: &[&[i16; HIDDEN]],
    subs: &[&[i16; HIDDEN]],
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

fn screlu_dot_portable(values: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    values
        .iter()
        .zip(weights.iter())
        .map(|(&v, &w)| {
            let v = i32::from(v).clamp(0, QA);
            v * v * i32::from(w)
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_avx2(
    src: &[i16; HIDDEN],
    dst: &mut [i16; HIDDEN],
    adds: &[&[i16; HIDDEN]],
    subs: &[&[i16; HIDDEN]],
) {
    use std::arch::x86_64::*;
    for lane in (0..HIDDEN).step_by(LANES) {
        // SAFETY: `lane + LANES <= HIDDEN`, so every 32-byte access stays
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
/// network is refused unless `QA · |w|` fits (see `Network::from_bytes`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2(values: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let ceiling = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    for lane in (0..HIDDEN).step_by(LANES) {
        // SAFETY: `lane + LANES <= HIDDEN`, so both loads stay inside their arrays.
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
    let total = _mm_add_epi32(pairs, _mm_shuffle_epi32::<0b10_11_00_01>(pairs));
    _mm_cvtsi128_si32(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic spread of values, negative and above `QA` included.
    fn pattern(seed: i32, spread: i32) -> [i16; HIDDEN] {
        std::array::from_fn(|i| ((i as i32 * 7919 + seed * 104_729) % (2 * spread) - spread) as i16)
    }

    #[test]
    fn kernels_agree() {
        let src = pattern(1, 400);
        let rows = [pattern(2, 500), pattern(3, 500), pattern(4, 500)];
        let weights = pattern(5, 127);
        let expected_dot = screlu_dot_portable(&src, &weights);
        let mut expected = [0; HIDDEN];
        update_portable(&src, &mut expected, &[&rows[0], &rows[1]], &[&rows[2]]);
        for kernel in Kernel::available() {
            assert_eq!(
                kernel.screlu_dot(&src, &weights),
                expected_dot,
                "{kernel:?}"
            );
            let mut dst = [0; HIDDEN];
            kernel.update(&src, &mut dst, &[&rows[0], &rows[1]], &[&rows[2]]);
            assert_eq!(dst, expected, "{kernel:?}");
        }
        // The dot product sees only clamped values.
        let all_high = [1000; HIDDEN];
        let ones = [1; HIDDEN];
        assert_eq!(
            screlu_dot_portable(&all_high, &ones),
            QA * QA * HIDDEN as i32
        );
        assert_eq!(screlu_dot_portable(&[-5; HIDDEN], &ones), 0);
    }

    #[test]
    fn sums_wrap_alike() {
        let src = [i16::MAX - 1; HIDDEN];
        let add = [10; HIDDEN];
        for kernel in Kernel::available() {
            let mut dst = [0; HIDDEN];
            kernel.update(&src, &mut dst, &[&add], &[]);
            assert_eq!(dst[0], (i16::MAX - 1).wrapping_add(10), "{kernel:?}");
        }
    }
}
