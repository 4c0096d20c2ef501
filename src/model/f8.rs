//! `Real`: a scalar (`f32`) or a bundle of lanes behind one trait (re-exported by `model::lanes`,
//! which says why). `F8`: eight f32 lanes, the `Real` the CPU stepper's lane passes run on
//! (`cpu::shell_lanes`, `cpu::node_lanes`, `cpu::core_area_lanes`), and `Lanes`, what those
//! passes need of a lane type (`F8`, or `F8Avx` in their AVX2 builds).
//!
//! Each operation is the f32 operation lane by lane with the same IEEE rounding: +, −, ×, ÷ and
//! √ are correctly rounded in a vector register as in a scalar one, negation and |·| touch only
//! the sign bit, and `select` is a bitwise blend. So a law gives in every lane the bits it gives
//! on `f32` (test `lanes_match_scalar_ops_bit_for_bit`).
//!
//! On x86-64 the lanes are two SSE registers (SSE2 is part of the baseline target, so no run-time
//! detection is needed); LLVM's own vectoriser, tried first on `[f32; 8]` loops, paired the x and
//! y components of the laws instead of the lanes and gained nothing. Elsewhere a portable
//! `[f32; 8]` implementation gives the same bits. A lane operation must not be called from a
//! closure inside an AVX2 pass: the closure is compiled without AVX2 and the intrinsics in it
//! become calls (seen: 552 → 735 instructions per node-step).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// Number of lanes of `F8`.
pub const LANES: usize = 8;

/// A scalar or a bundle of lanes, with the operations the laws use.
pub trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    /// Result of a comparison: `bool` per lane.
    type Mask: Copy;
    fn splat(v: f32) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    /// `f32::max`/`f32::min` lane by lane.
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn gt(self, o: Self) -> Self::Mask;
    fn lt(self, o: Self) -> Self::Mask;
    fn eq(self, o: Self) -> Self::Mask;
    /// `if m { a } else { b }` lane by lane.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

impl Real for f32 {
    type Mask = bool;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        f32::max(self, o)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        f32::min(self, o)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m {
            a
        } else {
            b
        }
    }
}

// SAFETY (every `unsafe` block in this module): the SSE and SSE2 intrinsics need only those
// features, which the `cfg` guarantees at compile time (they are part of the x86-64 baseline);
// `load` and `to_array` read and write 8 floats through slices of length 8.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(clippy::undocumented_unsafe_blocks)]
mod imp {
    use std::arch::x86_64::*;

    /// Lanes 0–3 in the first register, 4–7 in the second.
    #[derive(Clone, Copy, Debug)]
    pub struct F8(pub __m128, pub __m128);

    /// Per lane all ones (true) or all zeros (false), as a vector compare gives.
    #[derive(Clone, Copy, Debug)]
    pub struct M8(pub __m128, pub __m128);

    #[inline(always)]
    pub fn splat(v: f32) -> F8 {
        unsafe { F8(_mm_set1_ps(v), _mm_set1_ps(v)) }
    }

    #[inline(always)]
    pub fn from_array(v: [f32; 8]) -> F8 {
        unsafe { F8(_mm_setr_ps(v[0], v[1], v[2], v[3]), _mm_setr_ps(v[4], v[5], v[6], v[7])) }
    }

    #[inline(always)]
    pub fn load(v: &[f32]) -> F8 {
        let v = &v[..8];
        // `v` holds 8 floats (the slice above is bounds-checked); unaligned loads.
        unsafe { F8(_mm_loadu_ps(v.as_ptr()), _mm_loadu_ps(v.as_ptr().add(4))) }
    }

    #[inline(always)]
    pub fn store(a: F8, out: &mut [f32]) {
        let out = &mut out[..8];
        // `out` holds 8 floats (bounds-checked above); unaligned stores.
        unsafe {
            _mm_storeu_ps(out.as_mut_ptr(), a.0);
            _mm_storeu_ps(out.as_mut_ptr().add(4), a.1);
        }
    }

    #[inline(always)]
    pub fn to_array(a: F8) -> [f32; 8] {
        let mut r = [0.0f32; 8];
        // `r` holds 8 floats; unaligned stores.
        unsafe {
            _mm_storeu_ps(r.as_mut_ptr(), a.0);
            _mm_storeu_ps(r.as_mut_ptr().add(4), a.1);
        }
        r
    }

    #[inline(always)]
    pub fn mask_from_bools(b: [bool; 8]) -> M8 {
        let m = |x: bool| f32::from_bits(if x { !0 } else { 0 });
        unsafe {
            M8(
                _mm_setr_ps(m(b[0]), m(b[1]), m(b[2]), m(b[3])),
                _mm_setr_ps(m(b[4]), m(b[5]), m(b[6]), m(b[7])),
            )
        }
    }

    #[inline(always)]
    pub fn mask_to_bools(m: M8) -> [bool; 8] {
        let (lo, hi) = unsafe { (_mm_movemask_ps(m.0), _mm_movemask_ps(m.1)) };
        let bits = lo | (hi << 4);
        std::array::from_fn(|l| bits >> l & 1 != 0)
    }

    /// [s, a0, …, a6].
    #[inline(always)]
    pub fn shift_in_first(a: F8, s: f32) -> F8 {
        unsafe {
            let lo = _mm_move_ss(_mm_shuffle_ps::<0b10_01_00_00>(a.0, a.0), _mm_set_ss(s));
            let a3 = _mm_shuffle_ps::<0b11_11_11_11>(a.0, a.0);
            let hi = _mm_move_ss(_mm_shuffle_ps::<0b10_01_00_00>(a.1, a.1), a3);
            F8(lo, hi)
        }
    }

    /// [a1, …, a7, s].
    #[inline(always)]
    pub fn shift_in_last(a: F8, s: f32) -> F8 {
        unsafe {
            let t = _mm_move_ss(a.0, a.1); // [a4, a1, a2, a3]
            let lo = _mm_shuffle_ps::<0b00_11_10_01>(t, t);
            let t = _mm_move_ss(a.1, _mm_set_ss(s)); // [s, a5, a6, a7]
            let hi = _mm_shuffle_ps::<0b00_11_10_01>(t, t);
            F8(lo, hi)
        }
    }

    macro_rules! lanewise {
        ($name:ident, $op:ident) => {
            #[inline(always)]
            pub fn $name(a: F8, b: F8) -> F8 {
                unsafe { F8($op(a.0, b.0), $op(a.1, b.1)) }
            }
        };
    }
    lanewise!(add, _mm_add_ps);
    lanewise!(sub, _mm_sub_ps);
    lanewise!(mul, _mm_mul_ps);
    lanewise!(div, _mm_div_ps);

    macro_rules! compare {
        ($name:ident, $op:ident) => {
            #[inline(always)]
            pub fn $name(a: F8, b: F8) -> M8 {
                unsafe { M8($op(a.0, b.0), $op(a.1, b.1)) }
            }
        };
    }
    compare!(gt, _mm_cmpgt_ps);
    compare!(lt, _mm_cmplt_ps);
    compare!(eq, _mm_cmpeq_ps);

    #[inline(always)]
    pub fn neg(a: F8) -> F8 {
        unsafe {
            let s = _mm_set1_ps(-0.0);
            F8(_mm_xor_ps(a.0, s), _mm_xor_ps(a.1, s))
        }
    }

    #[inline(always)]
    pub fn abs(a: F8) -> F8 {
        unsafe {
            let s = _mm_set1_ps(-0.0);
            F8(_mm_andnot_ps(s, a.0), _mm_andnot_ps(s, a.1))
        }
    }

    #[inline(always)]
    pub fn sqrt(a: F8) -> F8 {
        unsafe { F8(_mm_sqrt_ps(a.0), _mm_sqrt_ps(a.1)) }
    }

    #[inline(always)]
    pub fn select(m: M8, a: F8, b: F8) -> F8 {
        let s = |m, a, b| unsafe { _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)) };
        F8(s(m.0, a.0, b.0), s(m.1, a.1, b.1))
    }

    /// `f32::max` lane by lane: a NaN operand yields the other one (maxps alone would return
    /// its second operand whenever either is NaN).
    #[inline(always)]
    pub fn max(a: F8, b: F8) -> F8 {
        let f = |a, b| unsafe {
            let m = _mm_max_ps(a, b);
            let b_nan = _mm_cmpunord_ps(b, b);
            _mm_or_ps(_mm_and_ps(b_nan, a), _mm_andnot_ps(b_nan, m))
        };
        F8(f(a.0, b.0), f(a.1, b.1))
    }

    /// `f32::min` lane by lane, NaN as in `max`.
    #[inline(always)]
    pub fn min(a: F8, b: F8) -> F8 {
        let f = |a, b| unsafe {
            let m = _mm_min_ps(a, b);
            let b_nan = _mm_cmpunord_ps(b, b);
            _mm_or_ps(_mm_and_ps(b_nan, a), _mm_andnot_ps(b_nan, m))
        };
        F8(f(a.0, b.0), f(a.1, b.1))
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
mod imp {
    /// Eight lanes in an array (LLVM may vectorise the loops).
    #[derive(Clone, Copy, Debug)]
    pub struct F8(pub [f32; 8]);

    /// Per lane true or false.
    #[derive(Clone, Copy, Debug)]
    pub struct M8(pub [bool; 8]);

    #[inline(always)]
    fn map2(a: F8, b: F8, f: impl Fn(f32, f32) -> f32) -> F8 {
        F8(std::array::from_fn(|l| f(a.0[l], b.0[l])))
    }
    #[inline(always)]
    fn cmp(a: F8, b: F8, f: impl Fn(f32, f32) -> bool) -> M8 {
        M8(std::array::from_fn(|l| f(a.0[l], b.0[l])))
    }

    pub fn splat(v: f32) -> F8 {
        F8([v; 8])
    }
    pub fn from_array(v: [f32; 8]) -> F8 {
        F8(v)
    }
    pub fn load(v: &[f32]) -> F8 {
        F8(std::array::from_fn(|l| v[l]))
    }
    pub fn to_array(a: F8) -> [f32; 8] {
        a.0
    }
    pub fn store(a: F8, out: &mut [f32]) {
        out[..8].copy_from_slice(&a.0);
    }
    pub fn shift_in_first(a: F8, s: f32) -> F8 {
        F8(std::array::from_fn(|l| if l == 0 { s } else { a.0[l - 1] }))
    }
    pub fn shift_in_last(a: F8, s: f32) -> F8 {
        F8(std::array::from_fn(|l| if l == 7 { s } else { a.0[l + 1] }))
    }
    pub fn mask_from_bools(b: [bool; 8]) -> M8 {
        M8(b)
    }
    pub fn mask_to_bools(m: M8) -> [bool; 8] {
        m.0
    }
    pub fn add(a: F8, b: F8) -> F8 {
        map2(a, b, |x, y| x + y)
    }
    pub fn sub(a: F8, b: F8) -> F8 {
        map2(a, b, |x, y| x - y)
    }
    pub fn mul(a: F8, b: F8) -> F8 {
        map2(a, b, |x, y| x * y)
    }
    pub fn div(a: F8, b: F8) -> F8 {
        map2(a, b, |x, y| x / y)
    }
    pub fn gt(a: F8, b: F8) -> M8 {
        cmp(a, b, |x, y| x > y)
    }
    pub fn lt(a: F8, b: F8) -> M8 {
        cmp(a, b, |x, y| x < y)
    }
    pub fn eq(a: F8, b: F8) -> M8 {
        cmp(a, b, |x, y| x == y)
    }
    pub fn neg(a: F8) -> F8 {
        F8(a.0.map(|x| -x))
    }
    pub fn abs(a: F8) -> F8 {
        F8(a.0.map(f32::abs))
    }
    pub fn sqrt(a: F8) -> F8 {
        F8(a.0.map(f32::sqrt))
    }
    pub fn select(m: M8, a: F8, b: F8) -> F8 {
        F8(std::array::from_fn(|l| if m.0[l] { a.0[l] } else { b.0[l] }))
    }
    pub fn max(a: F8, b: F8) -> F8 {
        map2(a, b, f32::max)
    }
    pub fn min(a: F8, b: F8) -> F8 {
        map2(a, b, f32::min)
    }
}

pub use imp::{F8, M8};

/// A bundle of `LANES` lanes as the lane passes use it: `Real` and the moves between lanes and
/// memory. `F8` everywhere; `F8Avx` (one AVX register) inside the passes' AVX2 builds.
pub trait Lanes: Real {
    /// Lanes `v[0..LANES]` (`v` must hold at least `LANES` values).
    fn load(v: &[f32]) -> Self;
    /// Into `out[0..LANES]` (`out` must hold at least `LANES` values).
    fn store(self, out: &mut [f32]);
    fn from_array(v: [f32; LANES]) -> Self;
    fn to_array(self) -> [f32; LANES];
    /// [s, self_0, …, self_6]: lane l gets lane l − 1 (the value of the node before).
    fn shift_in_first(self, s: f32) -> Self;
    /// [self_1, …, self_7, s]: lane l gets lane l + 1 (the value of the node after).
    fn shift_in_last(self, s: f32) -> Self;
    fn mask(b: [bool; LANES]) -> Self::Mask;
    fn mask_bools(m: Self::Mask) -> [bool; LANES];

    // Moves between records (array of structures) and lanes; they move bits, no arithmetic.

    /// Four fields of eight records: lane l of field f is `rows[l][f]`.
    #[inline(always)]
    fn transpose4(rows: [&[f32; 4]; LANES]) -> [Self; 4] {
        std::array::from_fn(|f| Self::from_array(std::array::from_fn(|l| rows[l][f])))
    }
    /// The inverse of `transpose4`: `rows[l][f]` = lane l of field f.
    #[inline(always)]
    fn store_rows4(v: [Self; 4], rows: [&mut [f32; 4]; LANES]) {
        let a = [v[0].to_array(), v[1].to_array(), v[2].to_array(), v[3].to_array()];
        for (l, row) in rows.into_iter().enumerate() {
            *row = [a[0][l], a[1][l], a[2][l], a[3][l]];
        }
    }
    /// Two fields, likewise: `rows[l][f]` = lane l of field f.
    #[inline(always)]
    fn store_rows2(v: [Self; 2], rows: [&mut [f32; 2]; LANES]) {
        let a = [v[0].to_array(), v[1].to_array()];
        for (l, row) in rows.into_iter().enumerate() {
            *row = [a[0][l], a[1][l]];
        }
    }
    /// Eight pairs in a row, `v[0..16]` = x0, y0, x1, y1, …: the lanes of x and of y.
    #[inline(always)]
    fn deinterleave2(v: &[f32]) -> [Self; 2] {
        let v = &v[..2 * LANES];
        std::array::from_fn(|f| Self::from_array(std::array::from_fn(|l| v[2 * l + f])))
    }
}

impl Lanes for F8 {
    #[inline(always)]
    fn load(v: &[f32]) -> Self {
        imp::load(v)
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        imp::store(self, out)
    }
    #[inline(always)]
    fn from_array(v: [f32; LANES]) -> Self {
        imp::from_array(v)
    }
    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        imp::to_array(self)
    }
    #[inline(always)]
    fn shift_in_first(self, s: f32) -> Self {
        imp::shift_in_first(self, s)
    }
    #[inline(always)]
    fn shift_in_last(self, s: f32) -> Self {
        imp::shift_in_last(self, s)
    }
    #[inline(always)]
    fn mask(b: [bool; LANES]) -> M8 {
        imp::mask_from_bools(b)
    }
    #[inline(always)]
    fn mask_bools(m: M8) -> [bool; LANES] {
        imp::mask_to_bools(m)
    }
}

impl Add for F8 {
    type Output = F8;
    #[inline(always)]
    fn add(self, o: F8) -> F8 {
        imp::add(self, o)
    }
}
impl Sub for F8 {
    type Output = F8;
    #[inline(always)]
    fn sub(self, o: F8) -> F8 {
        imp::sub(self, o)
    }
}
impl Mul for F8 {
    type Output = F8;
    #[inline(always)]
    fn mul(self, o: F8) -> F8 {
        imp::mul(self, o)
    }
}
impl Div for F8 {
    type Output = F8;
    #[inline(always)]
    fn div(self, o: F8) -> F8 {
        imp::div(self, o)
    }
}
impl Neg for F8 {
    type Output = F8;
    #[inline(always)]
    fn neg(self) -> F8 {
        imp::neg(self)
    }
}

impl Real for F8 {
    type Mask = M8;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        imp::splat(v)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        imp::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        imp::abs(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        imp::max(self, o)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        imp::min(self, o)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> M8 {
        imp::gt(self, o)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> M8 {
        imp::lt(self, o)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> M8 {
        imp::eq(self, o)
    }
    #[inline(always)]
    fn select(m: M8, a: Self, b: Self) -> Self {
        imp::select(m, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lane operation against the f32 one, bit for bit, on signed zeros, a subnormal,
    /// infinities, NaN and ordinary values in both orders.
    pub(crate) fn check_ops<L: Lanes>() {
        let xs = [1.5, -0.0, 3.0e-39, 7.0, -2.5, 1.0e30, f32::NAN, f32::INFINITY];
        let ys = [0.3, 0.0, 2.0, -7.0, -2.5, 3.0, 0.7, f32::NAN];
        for (a, b) in [(xs, ys), (ys, xs)] {
            let (va, vb) = (L::from_array(a), L::from_array(b));
            let lanes = |v: L| v.to_array().map(f32::to_bits);
            let scalar = |f: fn(f32, f32) -> f32| std::array::from_fn::<u32, LANES, _>(|l| f(a[l], b[l]).to_bits());
            assert_eq!(lanes(va + vb), scalar(|x, y| x + y));
            assert_eq!(lanes(va - vb), scalar(|x, y| x - y));
            assert_eq!(lanes(va * vb), scalar(|x, y| x * y));
            assert_eq!(lanes(va / vb), scalar(|x, y| x / y));
            assert_eq!(lanes(-va), scalar(|x, _| -x));
            assert_eq!(lanes(va.abs()), scalar(|x, _| x.abs()));
            assert_eq!(lanes(va.abs().sqrt()), scalar(|x, _| x.abs().sqrt()));
            // max/min: NaN handling as f32::max/min; signed zeros compare equal and either may
            // come back, so only lanes without a ±0 pair are compared bit for bit.
            let (mx, mn) = (va.max(vb).to_array(), va.min(vb).to_array());
            for l in (0..LANES).filter(|&l| !(a[l] == 0.0 && b[l] == 0.0)) {
                assert_eq!(mx[l].to_bits(), a[l].max(b[l]).to_bits(), "max lane {l}");
                assert_eq!(mn[l].to_bits(), a[l].min(b[l]).to_bits(), "min lane {l}");
            }
            assert_eq!(L::mask_bools(va.gt(vb)), std::array::from_fn(|l| a[l] > b[l]));
            assert_eq!(L::mask_bools(va.lt(vb)), std::array::from_fn(|l| a[l] < b[l]));
            assert_eq!(L::mask_bools(va.eq(vb)), std::array::from_fn(|l| a[l] == b[l]));
            assert_eq!(
                lanes(L::select(va.gt(vb), va, vb)),
                scalar(|x, y| if x > y { x } else { y })
            );
            let picked = [true, false, true, true, false, false, true, false];
            assert_eq!(L::mask_bools(L::mask(picked)), picked);
            assert_eq!(
                L::load(&[a.as_slice(), &[9.0]].concat()).to_array().map(f32::to_bits),
                a.map(f32::to_bits)
            );
            let first: [f32; LANES] = std::array::from_fn(|l| if l == 0 { 9.5 } else { a[l - 1] });
            let last: [f32; LANES] = std::array::from_fn(|l| if l == 7 { 9.5 } else { a[l + 1] });
            assert_eq!(lanes(va.shift_in_first(9.5)), first.map(f32::to_bits));
            assert_eq!(lanes(va.shift_in_last(9.5)), last.map(f32::to_bits));
            let mut out = [5.0f32; LANES + 1];
            va.store(&mut out);
            assert_eq!(
                out[..LANES].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                a.map(f32::to_bits)
            );
            assert_eq!(out[LANES], 5.0);
        }
        check_moves::<L>();
    }

    /// The moves between records and lanes against their definitions, on 32 distinct bit
    /// patterns (a NaN with a payload among them: moves keep every bit).
    fn check_moves<L: Lanes>() {
        let bits = |l: usize, f: usize| f32::from_bits(0x3f80_0000 + 16 * l as u32 + f as u32);
        let mut rows: [[f32; 4]; LANES] = std::array::from_fn(|l| std::array::from_fn(|f| bits(l, f)));
        rows[5][2] = f32::from_bits(0x7fc0_1234);
        let fields = L::transpose4(std::array::from_fn(|l| &rows[l]));
        for (f, v) in fields.iter().enumerate() {
            assert_eq!(
                v.to_array().map(f32::to_bits),
                rows.map(|r| r[f].to_bits()),
                "field {f}"
            );
        }
        let mut back = [[0.0f32; 4]; LANES];
        L::store_rows4(fields, back.each_mut());
        assert_eq!(back.map(|r| r.map(f32::to_bits)), rows.map(|r| r.map(f32::to_bits)));
        let mut pairs = [[0.0f32; 2]; LANES];
        L::store_rows2([fields[1], fields[2]], pairs.each_mut());
        assert_eq!(
            pairs.map(|r| r.map(f32::to_bits)),
            rows.map(|r| [r[1].to_bits(), r[2].to_bits()])
        );
        let flat: Vec<f32> = pairs.iter().flatten().copied().chain([9.0]).collect();
        let [x, y] = L::deinterleave2(&flat);
        assert_eq!(x.to_array().map(f32::to_bits), rows.map(|r| r[1].to_bits()));
        assert_eq!(y.to_array().map(f32::to_bits), rows.map(|r| r[2].to_bits()));
    }

    #[test]
    fn lanes_match_scalar_ops_bit_for_bit() {
        check_ops::<F8>();
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx_lanes_match_scalar_ops_bit_for_bit() {
        #[target_feature(enable = "avx2")]
        fn check() {
            check_ops::<super::super::f8_avx::F8Avx>();
        }
        // Where the CPU has no AVX2 the lane passes never take F8Avx.
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked above).
            unsafe { check() };
        }
    }
}
