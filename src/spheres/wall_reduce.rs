//! A wall's force and torque from its candidate spheres as a fixed-order parallel reduction:
//! the CPU twin of `wall_gather` in shaders/sphere_step.wgsl (one workgroup of `WALL_LANES`
//! invocations per wall). The wall's candidates that carry a force or torque (`carries`), in
//! its gather order (sphere order), have ranks r = 0 .. m_w − 1; lane t sums the block of ranks
//! t·K .. t·K + K − 1, K = ⌈m_w / WALL_LANES⌉, in increasing rank (f − force, t + torque_j, as the
//! serial gather did), then the fixed binary tree shared with the bead planes and the modal walls
//! (`crate::cpu::fixed_reduce::reduce_tree`, shaders/fixed_reduce.wgsl) adds the lane partials:
//! stride 128, 64, …, 1, partial[i] = partial[i] + partial[i + stride].
//! The same operations in the same order on both twins, so the CPU and GPU agree bit for bit; the
//! order differs from a serial sum, so the bits differ from it (within f32 rounding, tested in
//! tests/sphere_walls.rs against an f64 sum).

use crate::cpu::fixed_reduce::{reduce_tree, REDUCE_LANES};
use crate::laws::vec3::{add, sub, V3};

/// Lanes per wall (the workgroup size of `wall_gather`).
pub const WALL_LANES: usize = REDUCE_LANES;

/// (Σ −force, Σ torque) over a wall's `m` candidates in sphere order, `term(r)` giving candidate
/// r's (force, torque_j); the carrying ones summed in the order described above.
pub fn wall_reduce(m: usize, term: impl Fn(usize) -> (V3, V3)) -> (V3, V3) {
    // Lane partials (−Σ force, Σ torque_j).
    let mut p = [([0.0f32; 3], [0.0f32; 3]); WALL_LANES];
    // Ranks among the candidates that carry a force or torque (`carries`).
    let m_w = (0..m).filter(|&r| carries(term(r))).count();
    let k = m_w.div_ceil(WALL_LANES).max(1);
    let mut rank = 0;
    for r in 0..m {
        let (force, torque) = term(r);
        if !carries((force, torque)) {
            continue;
        }
        let lane = &mut p[rank / k];
        *lane = (sub(lane.0, force), add(lane.1, torque));
        rank += 1;
    }
    reduce_tree(&mut p, |a, b| (add(a.0, b.0), add(a.1, b.1)))
}

/// Whether a candidate's term is not zero (−0 counts as zero): only these are ranked into the
/// lanes' blocks, so force-free candidates — which a list built at another time has others of,
/// as after a resume — move no block, and a resumed run's wall sums are the uninterrupted run's.
pub fn carries((force, torque): (V3, V3)) -> bool {
    force != [0.0; 3] || torque != [0.0; 3]
}
