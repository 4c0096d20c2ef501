//! Double-f32 ("hi + lo") positions and deterministic elementary functions.
//!
//! Quasi-static loading moves a node by far less than one f32 ulp of its coordinate per step. A
//! position is therefore the unevaluated sum hi + lo of two f32: `add` is Knuth's TwoSum, so an
//! increment much smaller than ulp(hi) accumulates in lo instead of being rounded away.
//! Relative vectors are formed as (hi_a − hi_b) + (lo_a − lo_b), exact to f32 rounding of the
//! difference. The WGSL twins live in `shaders/common.wgsl` with the same names and operations,
//! so both backends round identically (no fused multiply-add is written anywhere).
//! The relative-vector helpers are generic over `Real`, so the shell laws also run on lanes.

use super::lanes::Real;

/// (hi, lo) + d for one coordinate, TwoSum of hi and (lo + d).
#[inline(always)]
pub fn df_add<T: Real>(hi: T, lo: T, d: T) -> (T, T) {
    let t = lo + d;
    let s = hi + t;
    let bp = s - hi;
    let e = (hi - (s - bp)) + (t - bp);
    (s, e)
}

/// An f64 position as double-f32: hi = the nearest f32, lo = the rest rounded to f32.
#[inline]
pub fn df_split(p: [f64; 2]) -> ([f32; 2], [f32; 2]) {
    let hi = [p[0] as f32, p[1] as f32];
    (hi, [(p[0] - hi[0] as f64) as f32, (p[1] - hi[1] as f64) as f32])
}

/// Vector from position b to position a: (a_hi − b_hi) + (a_lo − b_lo), per component.
#[inline(always)]
pub fn df_sub<T: Real>(a_hi: [T; 2], a_lo: [T; 2], b_hi: [T; 2], b_lo: [T; 2]) -> [T; 2] {
    [
        (a_hi[0] - b_hi[0]) + (a_lo[0] - b_lo[0]),
        (a_hi[1] - b_hi[1]) + (a_lo[1] - b_lo[1]),
    ]
}

/// atan(x) for |x| ≤ tan(π/8) by its odd Taylor series to x^15 (error < 2e-8).
#[inline(always)]
fn atan_small<T: Real>(x: T) -> T {
    let c = T::splat;
    let s = x * x;
    let mut p = c(-1.0 / 15.0);
    p = p * s + c(1.0 / 13.0);
    p = p * s - c(1.0 / 11.0);
    p = p * s + c(1.0 / 9.0);
    p = p * s - c(1.0 / 7.0);
    p = p * s + c(1.0 / 5.0);
    p = p * s - c(1.0 / 3.0);
    p = p * s + c(1.0);
    p * x
}

/// atan2(y, x) in (−π, π] from +, −, ×, ÷ only, so the GPU and the CPU agree bit for bit
/// (library atan2 differs by an ulp between lavapipe and Rust). Written with selects (both
/// reductions evaluated, one kept) so that it also runs on lanes; the WGSL twin branches, with
/// the same operations on the branch taken.
#[inline(always)]
pub fn atan2_det<T: Real>(y: T, x: T) -> T {
    let c = T::splat;
    let ax = x.abs();
    let ay = y.abs();
    let mx = ax.max(ay);
    let mn = ax.min(ay);
    let a = mn / mx; // in [0, 1]
                     // Reduce to |u| ≤ tan(π/8): atan(a) = π/4 + atan((a − 1)/(a + 1)).
    let reduce = a.gt(c(0.414_213_57));
    let u = T::select(reduce, (a - c(1.0)) / (a + c(1.0)), a);
    let p = atan_small(u);
    let mut r = T::select(reduce, c(std::f32::consts::FRAC_PI_4) + p, p);
    r = T::select(ay.gt(ax), c(std::f32::consts::FRAC_PI_2) - r, r);
    r = T::select(x.lt(c(0.0)), c(std::f32::consts::PI) - r, r);
    r = T::select(y.lt(c(0.0)), -r, r);
    T::select(mx.eq(c(0.0)), c(0.0), r)
}

#[inline(always)]
pub fn dot<T: Real>(a: [T; 2], b: [T; 2]) -> T {
    a[0] * b[0] + a[1] * b[1]
}

/// z-component of a × b.
#[inline(always)]
pub fn cross<T: Real>(a: [T; 2], b: [T; 2]) -> T {
    a[0] * b[1] - a[1] * b[0]
}

/// a rotated by +90°: (−a_y, a_x).
#[inline(always)]
pub fn perp<T: Real>(a: [T; 2]) -> [T; 2] {
    [-a[1], a[0]]
}

#[inline]
pub fn add(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

#[inline]
pub fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[inline]
pub fn scale(a: [f32; 2], s: f32) -> [f32; 2] {
    [a[0] * s, a[1] * s]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atan2_det_matches_libm_to_1e6() {
        let mut worst = 0.0f64;
        for i in 0..2000 {
            let ang = -std::f64::consts::PI + std::f64::consts::TAU * (i as f64) / 2000.0;
            let (y, x) = ((ang.sin() * 3.0) as f32, (ang.cos() * 3.0) as f32);
            let e = (atan2_det(y, x) as f64 - (y as f64).atan2(x as f64)).abs();
            worst = worst.max(e);
        }
        assert!(worst < 1e-6, "worst atan2 error {worst}");
    }

    #[test]
    fn df_add_keeps_sub_ulp_increments() {
        // 1e-9 added 10^4 times to 100: plain f32 loses all of it.
        let (mut hi, mut lo) = (100.0f32, 0.0f32);
        for _ in 0..10_000 {
            (hi, lo) = df_add(hi, lo, 1e-9);
        }
        let got = (hi as f64 - 100.0) + lo as f64;
        assert!((got - 1e-5).abs() < 1e-9, "got {got}");
    }
}
