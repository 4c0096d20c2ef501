//! Twin of `shaders/bending.wgsl`: elasto-plastic vertex moment (eq 3) applied as two couples
//! (eq 9–10, Fig. 6).
//!
//! θ is the turning angle at vertex v between e1 = x_v − x_a and e2 = x_c − x_v. M = k_b (θ − θ_p),
//! capped at ±M_b^Y with θ_p following (return mapping of eq 3). The couples are the gradient of
//! ½ k_b (θ − θ_p)²: a force M/ℓ1 perpendicular to segment (a, v) on a and its opposite on v, and
//! M/ℓ2 perpendicular to (v, c) on c and its opposite on v. (Eq 9–10 as printed use M/2ℓ: that
//! halves the bending stiffness and does not reproduce the beam deflections of eq 16/18, Fig. 9;
//! see docs/model-to-code.md.) A dashpot moment c_b dθ/dt is added to the forces but not to the
//! stored plastic state.

use crate::model::df32::{atan2_det, cross, df_sub, dot, perp};
use crate::model::lanes::{Point, Real, ShellMaterial};

pub struct Bending<T> {
    /// Total moment (elastic-plastic + dashpot) acting at the vertex.
    pub moment: T,
    /// Updated plastic reference angle.
    pub theta_p: T,
    /// ∂θ/∂x_a = perp(e1)/ℓ1² and ∂θ/∂x_c = perp(e2)/ℓ2²; ∂θ/∂x_v = −(both).
    pub grad_a: [T; 2],
    pub grad_c: [T; 2],
}

/// At one vertex (`T = f32`) or at one vertex per lane (`F8`, same bits per lane).
#[inline(always)]
pub fn bending<T: Real>(m: &ShellMaterial<T>, a: &Point<T>, v: &Point<T>, c: &Point<T>, theta_p: T) -> Bending<T> {
    let k = T::splat;
    let e1 = df_sub(v.hi, v.lo, a.hi, a.lo);
    let e2 = df_sub(c.hi, c.lo, v.hi, v.lo);
    let theta = atan2_det(cross(e1, e2), dot(e1, e2));
    let pi = std::f32::consts::PI;
    let mut dtheta = theta - theta_p;
    dtheta = T::select(dtheta.gt(k(pi)), dtheta - k(2.0 * pi), dtheta);
    dtheta = T::select(dtheta.lt(k(-pi)), dtheta + k(2.0 * pi), dtheta);
    let moment = m.k_b * dtheta;
    // Return mapping: |M| > M_b^Y → M = ±M_b^Y and θ_p follows.
    let yielded = moment.abs().gt(m.m_b_yield);
    let moment = T::select(yielded, T::select(moment.gt(k(0.0)), m.m_b_yield, -m.m_b_yield), moment);
    let theta_p_new = T::select(yielded, theta - moment / m.k_b, theta_p);
    let p1 = perp(e1);
    let p2 = perp(e2);
    let l1sq = dot(e1, e1);
    let l2sq = dot(e2, e2);
    let grad_a = [p1[0] / l1sq, p1[1] / l1sq];
    let grad_c = [p2[0] / l2sq, p2[1] / l2sq];
    let (va, vv, vc) = (a.vel, v.vel, c.vel);
    let rate = (grad_a[0] * (va[0] - vv[0]) + grad_a[1] * (va[1] - vv[1]))
        + (grad_c[0] * (vc[0] - vv[0]) + grad_c[1] * (vc[1] - vv[1]));
    Bending {
        moment: moment + m.c_b * rate,
        theta_p: theta_p_new,
        grad_a,
        grad_c,
    }
}
