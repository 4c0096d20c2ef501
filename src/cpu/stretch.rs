//! Twin of `shaders/stretch.wgsl`: linear elastic–perfectly plastic segment law (eq 1–2).
//!
//! Compression counts positive (paper's convention): F = k_s (ℓ_p − ℓ). When |F| would exceed
//! F_s^Y the force stays at ±F_s^Y and the plastic rest length ℓ_p follows (return mapping, the
//! total form of the incremental eq 1–2). An optional dashpot adds −c_s dℓ/dt (not plastic).

use crate::model::df32::{df_sub, dot};
use crate::model::lanes::{Point, Real, ShellMaterial};

/// Result of the stretch law on segment a → b.
pub struct Stretch<T> {
    /// Force on node b (node a receives the opposite).
    pub force_on_b: [T; 2],
    /// Updated plastic rest length.
    pub rest: T,
}

/// On one segment (`T = f32`) or on one segment per lane (`F8`, the same bits in each lane).
#[inline(always)]
pub fn stretch<T: Real>(m: &ShellMaterial<T>, a: &Point<T>, b: &Point<T>, rest: T) -> Stretch<T> {
    let d = df_sub(b.hi, b.lo, a.hi, a.lo);
    let l = dot(d, d).sqrt();
    let u = [d[0] / l, d[1] / l];
    let elastic = m.k_s * (rest - l);
    // Return mapping as selects, not a branch: in a pressed packing whether a segment yields
    // this step is close to a coin toss, which a branch predictor cannot learn.
    let capped = T::select(elastic.gt(T::splat(0.0)), m.f_s_yield, -m.f_s_yield);
    let yielded = elastic.abs().gt(m.f_s_yield);
    let f = T::select(yielded, capped, elastic);
    let rest_new = T::select(yielded, l + capped / m.k_s, rest);
    let (va, vb) = (a.vel, b.vel);
    let rate = u[0] * (vb[0] - va[0]) + u[1] * (vb[1] - va[1]);
    let f_total = f - m.c_s * rate;
    Stretch {
        force_on_b: [f_total * u[0], f_total * u[1]],
        rest: rest_new,
    }
}
