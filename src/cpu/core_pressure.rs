//! Twin of `shaders/core_pressure.wgsl`: core pressure on one segment a → b (§2.4): the force
//! s·ℓ·p along the segment's outward normal, half to each end. `orientation` is the sign of the
//! shell's area (+1 counter-clockwise), so the normal (e_y, −e_x)·orientation points outward.

use crate::model::df32::df_sub;
use crate::model::*;

/// Force on each end node of segment a → b.
#[inline]
pub fn core_pressure(depth: f32, pressure: f32, orientation: f32, a: &NodeState, b: &NodeState) -> [f32; 2] {
    let e = df_sub(b.pos_hi, b.pos_lo, a.pos_hi, a.pos_lo);
    let h = 0.5 * depth * pressure * orientation;
    [h * e[1], -h * e[0]]
}
