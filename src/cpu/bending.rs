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
use crate::model::*;

pub struct Bending {
    /// Total moment (elastic-plastic + dashpot) acting at the vertex.
    pub moment: f32,
    /// Updated plastic reference angle.
    pub theta_p: f32,
    /// ∂θ/∂x_a = perp(e1)/ℓ1² and ∂θ/∂x_c = perp(e2)/ℓ2²; ∂θ/∂x_v = −(both).
    pub grad_a: [f32; 2],
    pub grad_c: [f32; 2],
}

#[inline]
#[allow(clippy::too_many_arguments)]
pub fn bending(
    m: &Material,
    a: &NodeState,
    v: &NodeState,
    c: &NodeState,
    va: [f32; 2],
    vv: [f32; 2],
    vc: [f32; 2],
    theta_p: f32,
) -> Bending {
    let e1 = df_sub(v.pos_hi, v.pos_lo, a.pos_hi, a.pos_lo);
    let e2 = df_sub(c.pos_hi, c.pos_lo, v.pos_hi, v.pos_lo);
    let theta = atan2_det(cross(e1, e2), dot(e1, e2));
    let mut dtheta = theta - theta_p;
    if dtheta > std::f32::consts::PI {
        dtheta -= 2.0 * std::f32::consts::PI;
    }
    if dtheta < -std::f32::consts::PI {
        dtheta += 2.0 * std::f32::consts::PI;
    }
    let mut moment = m.k_b * dtheta;
    let mut theta_p_new = theta_p;
    if moment.abs() > m.m_b_yield {
        moment = if moment > 0.0 { m.m_b_yield } else { -m.m_b_yield };
        theta_p_new = theta - moment / m.k_b;
    }
    let p1 = perp(e1);
    let p2 = perp(e2);
    let l1sq = dot(e1, e1);
    let l2sq = dot(e2, e2);
    let grad_a = [p1[0] / l1sq, p1[1] / l1sq];
    let grad_c = [p2[0] / l2sq, p2[1] / l2sq];
    let rate = (grad_a[0] * (va[0] - vv[0]) + grad_a[1] * (va[1] - vv[1]))
        + (grad_c[0] * (vc[0] - vv[0]) + grad_c[1] * (vc[1] - vv[1]));
    Bending {
        moment: moment + m.c_b * rate,
        theta_p: theta_p_new,
        grad_a,
        grad_c,
    }
}
