//! The largest coordinate difference between two runs' spheres (m), shared by the GPU tests that
//! compare runs (beads_gpu, beads_gpu_batch, gpu_sphere_rebuild).

use softdem::spheres::SphereState;

/// Largest |Δx|, |Δy| or |Δz| between the spheres of `a` and `b`, positions in f64 (hi + lo).
pub fn position_gap(a: &[SphereState], b: &[SphereState]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let (p, q) = (x.position(), y.position());
            (0..3).map(|d| (p[d] - q[d]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}
