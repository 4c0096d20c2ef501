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

use super::f8::{Lanes, LANES};
use super::lanes::Real;
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
}
