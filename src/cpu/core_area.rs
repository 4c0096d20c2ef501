//! Twin of `shaders/core_area.wgsl`: enclosed area of each closed shell by the signed shoelace
//! formula (relative to the first node, so the sum does not cancel far from the origin), and the
//! core pressure of §2.2: undrained p = p0 − K_Ω (V − V0)/V0 (eq 4), drained p = p0, gas p V = p0 V0.

use crate::model::df32::{cross, df_sub};
use crate::model::*;

pub fn core_area(b: usize, bodies: &[Body], materials: &[Material], pos: &[NodeState]) -> BodyState {
    let body = bodies[b];
    let mut out = BodyState {
        area: 0.0,
        pressure: 0.0,
    };
    if body.flags & BODY_CLOSED == 0 {
        return out;
    }
    let x0 = pos[body.first as usize];
    let mut twice_area = 0.0f32;
    for k in 1..body.count.saturating_sub(1) {
        let a = pos[(body.first + k) as usize];
        let c = pos[(body.first + k + 1) as usize];
        let ra = df_sub(a.pos_hi, a.pos_lo, x0.pos_hi, x0.pos_lo);
        let rc = df_sub(c.pos_hi, c.pos_lo, x0.pos_hi, x0.pos_lo);
        twice_area += cross(ra, rc);
    }
    out.area = 0.5 * twice_area;
    let m = materials[body.material as usize];
    let v = m.depth * out.area.abs();
    out.pressure = match body.core_model {
        CORE_UNDRAINED => body.core_p0 - m.k_core * (v - body.core_v0) / body.core_v0,
        CORE_DRAINED => body.core_p0,
        CORE_GAS => body.core_p0 * body.core_v0 / v,
        _ => 0.0,
    };
    out
}
