//! A wall's force and torque from its candidate spheres as a fixed-order parallel reduction:
//! the CPU twin of `wall_gather` in shaders/sphere_step.wgsl (one workgroup of `WALL_LANES`
//! invocations per wall). The wall's candidates that carry a force or torque (`carries`), in
//! its gather order (sphere order), have ranks r = 0 .. m_w − 1; lane t sums the block of ranks
//! t·K .. t·K + K − 1, K = ⌈m_w / WALL_LANES⌉, in increasing rank (f − force, t + torque_j, as the serial gather did), then a fixed binary tree
//! adds the lane partials: stride 128, 64, …, 1, partial[i] = partial[i] + partial[i + stride].
//! The same operations in the same order on both twins, so the CPU and GPU agree bit for bit; the
//! order differs from a serial sum, so the bits differ from it (within f32 rounding, tested in
//! tests/sphere_walls.rs against an f64 sum).

use crate::laws::vec3::{add, sub, V3};

/// Lanes per wall (the workgroup size of `wall_gather`).
pub const WALL_LANES: usize = 256;

/// (Σ −force, Σ torque) over a wall's `m` candidates in sphere order, `term(r)` giving candidate
/// r's (force, torque_j); the carrying ones summed in the order described above.
pub fn wall_reduce(m: usize, term: impl Fn(usize) -> (V3, V3)) -> (V3, V3) {
    let mut f = [[0.0f32; 3]; WALL_LANES];
    let mut t = [[0.0f32; 3]; WALL_LANES];
    // Ranks among the candidates that carry a force or torque (`carries`).
    let m_w = (0..m).filter(|&r| carries(term(r))).count();
    let k = m_w.div_ceil(WALL_LANES).max(1);
    let mut rank = 0;
    for r in 0..m {
        let (force, torque) = term(r);
        if !carries((force, torque)) {
            continue;
        }
        let lane = rank / k;
        f[lane] = sub(f[lane], force);
        t[lane] = add(t[lane], torque);
        rank += 1;
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

/// Whether a candidate's term is not zero (−0 counts as zero): only these are ranked into the
/// lanes' blocks, so force-free candidates — which a list built at another time has others of,
/// as after a resume — move no block, and a resumed run's wall sums are the uninterrupted run's.
pub fn carries((force, torque): (V3, V3)) -> bool {
    force != [0.0; 3] || torque != [0.0; 3]
}
