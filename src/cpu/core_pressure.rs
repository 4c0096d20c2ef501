//! Twin of `shaders/core_pressure.wgsl`: core pressure on one segment a → b (§2.4): the force
//! s·ℓ·p along the segment's outward normal, half to each end. `orientation` is the sign of the
//! shell's area (+1 counter-clockwise), so the normal (e_y, −e_x)·orientation points outward.

use crate::model::df32::df_sub;
use crate::model::lanes::{Point, Real};

/// Force on each end node of segment a → b.
#[inline(always)]
pub fn core_pressure<T: Real>(depth: T, pressure: T, orientation: T, a: &Point<T>, b: &Point<T>) -> [T; 2] {
    let e = df_sub(b.hi, b.lo, a.hi, a.lo);
    let h = T::splat(0.5) * depth * pressure * orientation;
    [h * e[1], -h * e[0]]
}
