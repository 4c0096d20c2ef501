//! Twin of `shaders/integrate.wgsl`: first half of velocity Verlet (§2.4).
//! v_{n+½} = v_n + ½ dt f_n/m, x_{n+1} = x_n + dt v_{n+½} (position in double-f32), imposed
//! velocity components replace the free ones; returns |x_{n+1} − x_ref|, the displacement since
//! the last neighbour-list build. v_{n+½} goes into the new state's `vel`, where the kernels of
//! the step read it, until node_forces replaces it with v_{n+1}.
//!
//! The CPU stepper runs it on eight nodes at a time (`integrate_lanes`, the same bits): the
//! arithmetic is `half_kick` and `drift`, generic over `Real` (f32 here, eight lanes there), so
//! the pass and this twin share one copy of it.

use crate::model::df32::df_add;
use crate::model::lanes::Real;
use crate::model::*;

/// v_{n+½} = v_n + ½ dt f_n/m (also node_forces' second half-step, from v_{n+½} and f_{n+1}).
#[inline(always)]
pub fn half_kick<T: Real>(dt: f32, mass: T, vel: [T; 2], force: [T; 2]) -> [T; 2] {
    let h = T::splat(0.5 * dt) / mass;
    [vel[0] + h * force[0], vel[1] + h * force[1]]
}

/// x_{n+1} = x_n + dt v_{n+½} in double-f32 (hi, lo per coordinate), and |x_{n+1} − x_ref|.
#[inline(always)]
pub fn drift<T: Real>(dt: f32, hi: [T; 2], lo: [T; 2], vh: [T; 2], x_ref: [T; 2]) -> ([T; 2], [T; 2], T) {
    let dt = T::splat(dt);
    let (hx, lx) = df_add(hi[0], lo[0], dt * vh[0]);
    let (hy, ly) = df_add(hi[1], lo[1], dt * vh[1]);
    let dx = (hx - x_ref[0]) + lx;
    let dy = (hy - x_ref[1]) + ly;
    ([hx, hy], [lx, ly], (dx * dx + dy * dy).sqrt())
}

#[inline]
pub fn integrate(
    i: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bcs: &[NodeBc],
    s: &NodeState, // state_in[i]
    x_ref: &[[f32; 2]],
    state_out: &mut NodeState,
) -> f32 {
    let n = nodes[i];
    let mut vh = half_kick(p.dt, n.mass, s.vel, s.force);
    if n.bc != NONE {
        let c = bcs[n.bc as usize];
        if c.mode & BC_VX != 0 {
            vh[0] = c.velocity[0];
        }
        if c.mode & BC_VY != 0 {
            vh[1] = c.velocity[1];
        }
    }
    let (hi, lo, disp) = drift(p.dt, s.pos_hi, s.pos_lo, vh, x_ref[i]);
    state_out.pos_hi = hi;
    state_out.pos_lo = lo;
    state_out.vel = vh;
    disp
}
