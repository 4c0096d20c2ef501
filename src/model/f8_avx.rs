//! `F8Avx`: the eight lanes of `F8` in one AVX register, for the lane passes' AVX2 builds
//! (`cpu::shell_lanes`, `cpu::node_lanes`, `cpu::core_area_lanes` dispatch at run time; AVX2 for
//! the lane permutes).
//!
//! The same operations as `F8` with the same IEEE rounding (no FMA), so each lane gives the
//! bits of `f32` (test `avx_lanes_match_scalar_ops_bit_for_bit`).
//!
//! Only for code compiled with AVX enabled: every method runs AVX instructions, so a value of
//! this type must not be made or used outside a `#[target_feature(enable = "avx2")]` function
//! that the dispatcher calls after `is_x86_feature_detected!("avx2")`. The type is visible to
//! the crate only, and only those functions name it.

use super::f8::{Lanes, Real, LANES};
use std::arch::x86_64::*;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Eight f32 lanes in one AVX register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct F8Avx(__m256);

/// Per lane all ones (true) or all zeros (false).
#[derive(Clone, Copy, Debug)]
pub(crate) struct M8Avx(__m256);

// SAFETY (every `unsafe` block below): AVX is available, by the type's contract above; pointer
// arguments come from slices of at least eight floats (bounds-checked).

macro_rules! binary {
    ($tr:ident, $f:ident, $op:ident) => {
        impl $tr for F8Avx {
            type Output = F8Avx;
            #[inline(always)]
            fn $f(self, o: F8Avx) -> F8Avx {
                F8Avx(unsafe { $op(self.0, o.0) })
            }
        }
    };
}
binary!(Add, add, _mm256_add_ps);
binary!(Sub, sub, _mm256_sub_ps);
binary!(Mul, mul, _mm256_mul_ps);
binary!(Div, div, _mm256_div_ps);

impl Neg for F8Avx {
    type Output = F8Avx;
    #[inline(always)]
    fn neg(self) -> F8Avx {
        F8Avx(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}

/// maxps/minps return the second operand when either is NaN; `f32::max`/`min` return the other
/// operand: a NaN second operand gives the first.
#[inline(always)]
fn nan_fix(a: __m256, b: __m256, m: __m256) -> __m256 {
    unsafe {
        let b_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(b, b);
        _mm256_blendv_ps(m, a, b_nan)
    }
}

impl Real for F8Avx {
    type Mask = M8Avx;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        F8Avx(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F8Avx(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F8Avx(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F8Avx(nan_fix(self.0, o.0, unsafe { _mm256_max_ps(self.0, o.0) }))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        F8Avx(nan_fix(self.0, o.0, unsafe { _mm256_min_ps(self.0, o.0) }))
    }
    #[inline(always)]
    fn gt(self, o: Self) -> M8Avx {
        M8Avx(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> M8Avx {
        M8Avx(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn eq(self, o: Self) -> M8Avx {
        M8Avx(unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn select(m: M8Avx, a: Self, b: Self) -> Self {
        // Bitwise blend: exact.
        F8Avx(unsafe { _mm256_or_ps(_mm256_and_ps(m.0, a.0), _mm256_andnot_ps(m.0, b.0)) })
    }
}

impl Lanes for F8Avx {
    #[inline(always)]
    fn load(v: &[f32]) -> Self {
        let v = &v[..LANES];
        F8Avx(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        let out = &mut out[..LANES];
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn from_array(v: [f32; LANES]) -> Self {
        Self::load(&v)
    }
    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        let mut r = [0.0; LANES];
        self.store(&mut r);
        r
    }
    #[inline(always)]
    fn shift_in_first(self, s: f32) -> Self {
        unsafe {
            // [s, a0, …, a6]: rotate the lanes up by one across the halves, then put s in lane 0.
            let up = _mm256_permutevar8x32_ps(self.0, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6));
            F8Avx(_mm256_blend_ps::<0b0000_0001>(up, _mm256_set1_ps(s)))
        }
    }
    #[inline(always)]
    fn shift_in_last(self, s: f32) -> Self {
        unsafe {
            // [a1, …, a7, s].
            let down = _mm256_permutevar8x32_ps(self.0, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0));
            F8Avx(_mm256_blend_ps::<0b1000_0000>(down, _mm256_set1_ps(s)))
        }
    }
    #[inline(always)]
    fn mask(b: [bool; LANES]) -> M8Avx {
        let m = b.map(|x| if x { -1i32 } else { 0 });
        M8Avx(unsafe { _mm256_castsi256_ps(_mm256_setr_epi32(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7])) })
    }
    #[inline(always)]
    fn mask_bools(m: M8Avx) -> [bool; LANES] {
        let bits = unsafe { _mm256_movemask_ps(m.0) };
        std::array::from_fn(|l| bits >> l & 1 != 0)
    }
    #[inline(always)]
    fn transpose4(rows: [&[f32; 4]; LANES]) -> [Self; 4] {
        transpose4(rows).map(F8Avx)
    }
    #[inline(always)]
    fn store_rows4(v: [Self; 4], rows: [&mut [f32; 4]; LANES]) {
        // The 4 × 8 transpose is undone by the same shuffles: lanes l and l + 4 of the four
        // results are rows l and l + 4.
        let [r0, r1, r2, r3] = shuffle4([v[0].0, v[1].0, v[2].0, v[3].0]);
        let [a, b, c, d, e, f, g, h] = rows;
        unsafe {
            for (r, lo, hi) in [(r0, a, e), (r1, b, f), (r2, c, g), (r3, d, h)] {
                _mm_storeu_ps(lo.as_mut_ptr(), _mm256_castps256_ps128(r));
                _mm_storeu_ps(hi.as_mut_ptr(), _mm256_extractf128_ps::<1>(r));
            }
        }
    }
    #[inline(always)]
    fn store_rows2(v: [Self; 2], rows: [&mut [f32; 2]; LANES]) {
        let [a, b, c, d, e, f, g, h] = rows;
        unsafe {
            // [x0 y0 x1 y1 | x4 y4 x5 y5] and [x2 y2 x3 y3 | x6 y6 x7 y7]; each row is 64 bits.
            let lo = _mm256_castps_pd(_mm256_unpacklo_ps(v[0].0, v[1].0));
            let hi = _mm256_castps_pd(_mm256_unpackhi_ps(v[0].0, v[1].0));
            for (q, r0, r1, r4, r5) in [(lo, a, b, e, f), (hi, c, d, g, h)] {
                let (q0, q1) = (_mm256_castpd256_pd128(q), _mm256_extractf128_pd::<1>(q));
                _mm_storel_pd(r0.as_mut_ptr().cast(), q0);
                _mm_storeh_pd(r1.as_mut_ptr().cast(), q0);
                _mm_storel_pd(r4.as_mut_ptr().cast(), q1);
                _mm_storeh_pd(r5.as_mut_ptr().cast(), q1);
            }
        }
    }
    #[inline(always)]
    fn deinterleave2(v: &[f32]) -> [Self; 2] {
        let v = &v[..2 * LANES];
        unsafe {
            let (a, b) = (_mm256_loadu_ps(v.as_ptr()), _mm256_loadu_ps(v.as_ptr().add(LANES)));
            // [x0 x1 x4 x5 | x2 x3 x6 x7], then the middle 64-bit pairs swapped.
            [
                F8Avx(middle_pairs_swapped(_mm256_shuffle_ps::<0b10_00_10_00>(a, b))),
                F8Avx(middle_pairs_swapped(_mm256_shuffle_ps::<0b11_01_11_01>(a, b))),
            ]
        }
    }
}

// Helpers of the moves above: functions, not closures (a closure is compiled without AVX).

/// 64-bit elements 0, 2, 1, 3 of `q`.
#[inline(always)]
fn middle_pairs_swapped(q: __m256) -> __m256 {
    unsafe { _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(q))) }
}

/// Row `lo` in the low 128 bits, row `hi` in the high.
#[inline(always)]
fn row_pair(lo: &[f32; 4], hi: &[f32; 4]) -> __m256 {
    unsafe {
        _mm256_insertf128_ps::<1>(
            _mm256_castps128_ps256(_mm_loadu_ps(lo.as_ptr())),
            _mm_loadu_ps(hi.as_ptr()),
        )
    }
}

/// `Lanes::transpose4` on AVX registers (also for the raw-intrinsics pass `contact_reach`):
/// eight 128-bit row loads, rows l and l + 4 paired in one register, then `shuffle4`.
#[inline(always)]
pub(crate) fn transpose4(rows: [&[f32; 4]; LANES]) -> [__m256; 4] {
    shuffle4([
        row_pair(rows[0], rows[4]),
        row_pair(rows[1], rows[5]),
        row_pair(rows[2], rows[6]),
        row_pair(rows[3], rows[7]),
    ])
}

/// In each 128-bit half, the 4 × 4 transpose of the halves of `a`: element j of half h of
/// result i is element i of half h of a[j]. Its own inverse.
#[inline(always)]
fn shuffle4(a: [__m256; 4]) -> [__m256; 4] {
    unsafe {
        let t0 = _mm256_unpacklo_ps(a[0], a[1]); // a0.0 a1.0 a0.1 a1.1
        let t1 = _mm256_unpackhi_ps(a[0], a[1]); // a0.2 a1.2 a0.3 a1.3
        let t2 = _mm256_unpacklo_ps(a[2], a[3]); // a2.0 a3.0 a2.1 a3.1
        let t3 = _mm256_unpackhi_ps(a[2], a[3]); // a2.2 a3.2 a2.3 a3.3
        [
            _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2),
            _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2),
            _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3),
            _mm256_shuffle_ps::<0b11_10_11_10>(t1, t3),
        ]
    }
}
