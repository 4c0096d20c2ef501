//! Double-f32 ("hi + lo") positions and deterministic elementary functions.
//!
//! Quasi-static loading moves a node by far less than one f32 ulp of its coordinate per step. A
//! position is therefore the unevaluated sum hi + lo of two f32: `add` is Knuth's TwoSum, so an
//! increment much smaller than ulp(hi) accumulates in lo instead of being rounded away.
//! Relative vectors are formed as (hi_a − hi_b) + (lo_a − lo_b), exact to f32 rounding of the
//! difference. The WGSL twins live in `shaders/common.wgsl` with the same names and operations,
//! so both backends round identically (no fused multiply-add is written anywhere).

/// (hi, lo) + d for one coordinate, TwoSum of hi and (lo + d).
#[inline]
pub fn df_add(hi: f32, lo: f32, d: f32) -> (f32, f32) {
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
#[inline]
pub fn df_sub(a_hi: [f32; 2], a_lo: [f32; 2], b_hi: [f32; 2], b_lo: [f32; 2]) -> [f32; 2] {
    [
        (a_hi[0] - b_hi[0]) + (a_lo[0] - b_lo[0]),
        (a_hi[1] - b_hi[1]) + (a_lo[1] - b_lo[1]),
    ]
}

/// atan(x) for |x| ≤ tan(π/8) by its odd Taylor series to x^15 (error < 2e-8).
#[inline]
fn atan_small(x: f32) -> f32 {
    let s = x * x;
    let mut p = -1.0 / 15.0;
    p = p * s + 1.0 / 13.0;
    p = p * s - 1.0 / 11.0;
    p = p * s + 1.0 / 9.0;
    p = p * s - 1.0 / 7.0;
    p = p * s + 1.0 / 5.0;
    p = p * s - 1.0 / 3.0;
    p = p * s + 1.0;
    p * x
}

/// atan2(y, x) in (−π, π] from +, −, ×, ÷ only, so the GPU and the CPU agree bit for bit
/// (library atan2 differs by an ulp between lavapipe and Rust).
#[inline]
pub fn atan2_det(y: f32, x: f32) -> f32 {
    let ax = x.abs();
    let ay = y.abs();
    let mx = ax.max(ay);
    let mn = ax.min(ay);
    if mx == 0.0 {
        return 0.0;
    }
    let a = mn / mx; // in [0, 1]
                     // Reduce to |u| ≤ tan(π/8): atan(a) = π/4 + atan((a − 1)/(a + 1)).
    let mut r;
    if a > 0.414_213_57 {
        r = std::f32::consts::FRAC_PI_4 + atan_small((a - 1.0) / (a + 1.0));
    } else {
        r = atan_small(a);
    }
    if ay > ax {
        r = std::f32::consts::FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = std::f32::consts::PI - r;
    }
    if y < 0.0 {
        r = -r;
    }
    r
}

#[inline]
pub fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

/// z-component of a × b.
#[inline]
pub fn cross(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[1] - a[1] * b[0]
}

/// a rotated by +90°: (−a_y, a_x).
#[inline]
pub fn perp(a: [f32; 2]) -> [f32; 2] {
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
