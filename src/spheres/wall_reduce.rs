//! A wall's force and torque from its candidate spheres as a fixed-order parallel reduction:
//! the CPU twin of `wall_gather` in shaders/sphere_step.wgsl (one workgroup of `WALL_LANES`
//! invocations per wall). Lane t owns the spheres t·S .. t·S + S − 1, S = ⌈n_spheres /
//! WALL_LANES⌉, and sums the wall's candidates among them in sphere order (f − force,
//! t + torque_j, as the serial gather did), then a fixed binary tree
//! adds the lane partials: stride 128, 64, …, 1, partial[i] = partial[i] + partial[i + stride].
//! The same operations in the same order on both twins, so the CPU and GPU agree bit for bit; the
//! order differs from a serial sum, so the bits differ from it (within f32 rounding, tested in
//! tests/sphere_walls.rs against an f64 sum). The lanes split the spheres, not the candidates: a
//! candidate without force (a list built at another time, as after a resume) adds +0 in its
//! lane and moves no other term, so a resumed run's wall forces are the uninterrupted run's.

use crate::laws::vec3::{add, sub, V3};

/// Lanes per wall (the workgroup size of `wall_gather`).
pub const WALL_LANES: usize = 256;

/// A wall's force and torque from its `m` candidates in sphere order (`sphere_of(r)` the sphere
/// of candidate r, increasing; `term(r)` its force and torque on the sphere) among `n_spheres`:
/// lane t sums the candidates of spheres t·S .. t·S + S − 1, S = ⌈n_spheres / WALL_LANES⌉, in
/// order, then the fixed tree adds the lanes.
pub fn wall_reduce(
    n_spheres: usize,
    m: usize,
    sphere_of: impl Fn(usize) -> usize,
    term: impl Fn(usize) -> (V3, V3),
) -> (V3, V3) {
    let mut f = [[0.0f32; 3]; WALL_LANES];
    let mut t = [[0.0f32; 3]; WALL_LANES];
    let span = n_spheres.div_ceil(WALL_LANES).max(1);
    for r in 0..m {
        let lane = sphere_of(r) / span;
        let (force, torque) = term(r);
        f[lane] = sub(f[lane], force);
        t[lane] = add(t[lane], torque);
    }
    let mut stride = WALL_LANES / 2;
    while stride > 0 {
        for i in 0..stride {
            f[i] = add(f[i], f[i + stride]);
            t[i] = add(t[i], t[i + stride]);
        }
        stride /= 2;
    }
    (f[0], t[0])
}
