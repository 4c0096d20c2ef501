//! Twin of `shaders/integrate.wgsl`: first half of velocity Verlet (§2.4).
//! v_{n+½} = v_n + ½ dt f_n/m, x_{n+1} = x_n + dt v_{n+½} (position in double-f32), imposed
//! velocity components replace the free ones; returns |x_{n+1} − x_ref|, the displacement since
//! the last neighbour-list build. v_{n+½} goes into the new state's `vel`, where the kernels of
//! the step read it, until node_forces replaces it with v_{n+1}.
//!
//! The CPU stepper runs it on eight nodes at a time (`integrate_lanes`, the same bits).

use crate::model::df32::df_add;
use crate::model::*;

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
    let h = 0.5 * p.dt / n.mass;
    let mut vh = [s.vel[0] + h * s.force[0], s.vel[1] + h * s.force[1]];
    if n.bc != NONE {
        let c = bcs[n.bc as usize];
        if c.mode & BC_VX != 0 {
            vh[0] = c.velocity[0];
        }
        if c.mode & BC_VY != 0 {
            vh[1] = c.velocity[1];
        }
    }
    let (hx, lx) = df_add(s.pos_hi[0], s.pos_lo[0], p.dt * vh[0]);
    let (hy, ly) = df_add(s.pos_hi[1], s.pos_lo[1], p.dt * vh[1]);
    state_out.pos_hi = [hx, hy];
    state_out.pos_lo = [lx, ly];
    state_out.vel = vh;
    let dx = (hx - x_ref[i][0]) + lx;
    let dy = (hy - x_ref[i][1]) + ly;
    (dx * dx + dy * dy).sqrt()
}
